"""/healthz: database, Redis, Celery workers and beat, each with a short timeout.

200 when every check passes, 503 otherwise; the body says which check failed and why,
so a load balancer can route on the status and a person can read the JSON. The worker
check asks the workers over the broker which queues they consume (Celery `inspect
active_queues`, a broadcast with a timeout): a queue nobody consumes is a failure,
because cards would pile up there unseen.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db import connection


def _timed(check) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        detail = check() or {}
        result = {"ok": True, **detail}
    except Exception as exc:  # noqa: BLE001 - a health check reports any failure
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


def check_database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


def check_redis() -> dict[str, Any]:
    if not settings.REDIS_URL:
        return {"skipped": "embedded mode (no REDIS_URL)"}
    import redis

    timeout = settings.HEALTHZ_TIMEOUT
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=timeout
    )
    try:
        client.ping()
    finally:
        client.close()
    return {}


def required_queues() -> list[str]:
    return list(settings.HEALTHZ_QUEUES or [settings.GAME_BOTS_QUEUE])


class _EveryQueueAnswered(Exception):
    """Raised from the reply callback to stop collecting replies (see check_workers)."""


def check_workers() -> dict[str, Any]:
    """Broadcast `active_queues` and collect the replies until every required queue has
    a consumer, or HEALTHZ_TIMEOUT passes without a reply. Celery's inspect() waits the
    whole timeout unless told how many replies to expect, which nobody knows here; so
    the reply callback stops the collection once the answer is known (a healthy probe
    takes a broker round trip, not the timeout). Replies that come later carry an expiry
    (the broadcast's timeout) and are dropped by the next collection."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"skipped": "embedded mode (tasks run in process)"}
    from config.celery import app

    wanted = required_queues()
    replies: dict[str, list] = {}
    consumed: dict[str, int] = {}

    def on_reply(body: dict) -> None:
        for worker, queues in (body or {}).items():
            if worker in replies:
                continue
            replies[worker] = queues or []
            for queue in replies[worker]:
                consumed[queue["name"]] = consumed.get(queue["name"], 0) + 1
        if all(consumed.get(q) for q in wanted):
            raise _EveryQueueAnswered

    try:
        app.control.broadcast(
            "active_queues", reply=True, timeout=settings.HEALTHZ_TIMEOUT, callback=on_reply
        )
    except _EveryQueueAnswered:
        pass
    missing = [q for q in wanted if not consumed.get(q)]
    if missing:
        raise RuntimeError(
            f"no worker consumes queue(s) {', '.join(missing)} ({len(replies)} worker(s) answered)"
        )
    # "workers": those that answered before every queue had one (not all of them).
    return {"workers": len(replies), "queues": {q: consumed[q] for q in wanted}}


_pdf_library: dict[str, Any] = {}


def check_pdf() -> dict[str, Any]:
    """Whether the results PDF's library (WeasyPrint, which loads Pango and its fonts
    through cffi when imported) loads in this process. Optional: the site works without
    it, only the PDF downloads do not, so it never fails /healthz. Remembered per
    process (a library installed later needs a restart anyway)."""
    if "result" not in _pdf_library:
        try:
            import weasyprint

            _pdf_library["result"] = {"ok": True, "version": weasyprint.__version__}
        except Exception as exc:  # noqa: BLE001 - OSError (no Pango), ImportError, ...
            _pdf_library["result"] = {
                "ok": False,
                "warning": "the results PDF cannot be made: WeasyPrint does not load "
                f"({type(exc).__name__}: {exc})"[:300]
                + "; install libpango-1.0-0, libpangoft2-1.0-0, libharfbuzz-subset0 and "
                "fonts-dejavu-core (deploy/README.md)",
            }
    return dict(_pdf_library["result"])


BEAT_KEY = "ops:beat-seen"


def beat_seen() -> None:
    """The periodic sweep ran (ops.tasks.sweep_stuck_games, scheduled by beat)."""
    from django.core.cache import cache

    cache.set(BEAT_KEY, time.time(), timeout=None)


def check_beat() -> dict[str, Any]:
    """Beat schedules the periodic work (the sweeper, the tournaments' tick, the day
    list) and a worker of the celery queue runs it: without either, stuck bot turns are
    never swept and tournaments never open or close, while everything else answers. The
    sweep, every SWEEP_EVERY seconds, leaves its time in the cache."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"skipped": "embedded mode (a thread of the server runs the periodic work)"}
    from django.core.cache import cache

    last = cache.get(BEAT_KEY)
    if last is None:
        raise RuntimeError("the periodic sweep has not run: is celery beat running?")
    age = time.time() - float(last)
    if age > max(3 * settings.SWEEP_EVERY, 60):
        raise RuntimeError(f"the periodic sweep last ran {age:.0f} s ago: is celery beat running?")
    return {"seconds_ago": round(age, 1)}


def report() -> tuple[bool, dict[str, Any]]:
    checks = {
        "database": _timed(check_database),
        "redis": _timed(check_redis),
    }
    # Without Redis the broker is unreachable too: do not wait for the worker timeout.
    if checks["redis"]["ok"]:
        checks["workers"] = _timed(check_workers)
        checks["beat"] = _timed(check_beat)
    else:
        checks["workers"] = {"ok": False, "error": "broker (Redis) unreachable", "ms": 0.0}
        checks["beat"] = {"ok": False, "error": "cache (Redis) unreachable", "ms": 0.0}
    ok = all(c["ok"] for c in checks.values())
    body: dict[str, Any] = {"status": "ok" if ok else "fail", "checks": checks}
    # Optional parts: reported, never a failure of the probe.
    pdf = check_pdf()
    body["optional"] = {"pdf": pdf}
    if not pdf["ok"]:
        body["warnings"] = [pdf["warning"]]
    return ok, body
