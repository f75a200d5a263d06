"""The embedded mode's beat: with no Celery worker and no beat (`make run`, eager tasks),
the server process runs the tournaments' periodic tasks of CELERY_BEAT_SCHEDULE itself,
on one daemon thread, each at its interval: tournaments open, start, draw, close and get
rated as they do on the production stack (where `celery beat` runs them), and stuck games
and seats lost with a restart are swept.

Started by the ASGI lifespan (config/asgi.py), so only a server process runs it, once;
EMBEDDED_BEAT=0 turns it off (the browser tests' servers, whose tests call the tasks
themselves)."""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

_started = threading.Event()


def schedule() -> list[tuple[str, float]]:
    """(task path, interval in seconds) of the periodic tasks the embedded mode runs:
    the tournaments', and the sweeper of stuck games and lost seats: a restart of the
    server loses its in-process timers (a bot's turn, the bot taking the seat of someone
    who left), which the sweeper finds again as it does for a worker's lost task."""
    entries = settings.CELERY_BEAT_SCHEDULE.values()
    return [
        (e["task"], float(e["schedule"]))
        for e in entries
        if e["task"].startswith(("tournaments.", "ops."))
    ]


def start() -> bool:
    """Start the thread (once per process); False where a real beat runs the tasks."""
    if not (settings.CELERY_TASK_ALWAYS_EAGER and settings.EMBEDDED_BEAT):
        return False
    if _started.is_set():
        return False
    _started.set()
    threading.Thread(target=_run, args=(schedule(),), name="embedded-beat", daemon=True).start()
    return True


def _run(tasks: list[tuple[str, float]]) -> None:
    first = time.monotonic() + settings.EMBEDDED_BEAT_FIRST
    due = {task: first for task, _ in tasks}
    while True:
        now = time.monotonic()
        for task, every in tasks:
            if now < due[task]:
                continue
            due[task] = now + every
            close_old_connections()
            try:
                import_string(task)()  # the task's body, in this thread
            except Exception:  # the next interval tries again
                logger.exception("embedded beat: %s failed", task)
            finally:
                close_old_connections()
        time.sleep(max(0.05, min(due.values()) - time.monotonic()))
