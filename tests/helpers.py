"""Helpers shared by the integration and realtime tests (not fixtures)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION_STACK = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
CARD_RE = re.compile(r"^[789JQKAT][SHDC]$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_uvicorn(env: dict, port: int, log: Path, level: str = "warning") -> subprocess.Popen:
    """A uvicorn process serving config.asgi:application on 127.0.0.1:`port`, as the
    deployment runs it; its output goes to `log`."""
    with open(log, "w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application",
             "--host", "127.0.0.1", "--port", str(port), "--log-level", level],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip


def wait_for_turn(public_id, timeout: float = 15.0):
    """Wait until South is to move or the game is over; return the fresh Game row.

    In embedded mode the bots have already replied by the time an action returns; with
    a real worker they answer a little later, in another process.
    """
    from game.models import Game

    deadline = time.monotonic() + timeout
    while True:
        game = Game.objects.get(public_id=public_id)
        state = game.state or {}
        if state.get("game_over") or state.get("to_move") == 0:
            return game
        if time.monotonic() > deadline:
            raise AssertionError(f"bots did not reply within {timeout}s (seq {game.seq})")
        time.sleep(0.02)


def card_tokens(payload: Any) -> set[str]:
    """Every string in a JSON payload that is a card, wherever it is nested."""
    found: set[str] = set()
    stack = [payload]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and CARD_RE.match(item):
            found.add(item)
    return found


def hidden_cards(seed: str, rules: str, actions: list[str]) -> set[str]:
    """Cards South may not see after `actions`: the other three hands (and South's own
    while it is face down, when North deals)."""
    import engine

    eng = engine.Game.replay(seed, rules, actions)
    hidden = {str(c) for seat in (1, 2, 3) for c in eng.deal.hand(seat)}
    if eng.observation(0)["hand"] is None:
        hidden |= {str(c) for c in eng.deal.hand(0)}
    return hidden


# --- the table in a browser (tests/browser) ------------------------------------------------

# South's table: the seq of the state it knows.
TABLE_SEQ_JS = "Number(document.getElementById('table-root').dataset.seq)"
# The table has shown the newest state it knows, nothing queued or pending, the socket
# open, and it is South's turn (nothing moves until he plays) or the game is over.
TABLE_AT_REST_JS = """() => {
  const t = window.manillenTable;
  if (!t || !t.socket.ws || t.socket.ws.readyState !== WebSocket.OPEN) return false;
  const u = t.ui, s = u.state;
  return !u.busy && u.queue.length === 0 && u.pending === null && u.shownSeq === u.seq
    && (s.game_over || s.to_move === s.seat);
}"""


def start_new_game(page, base: str, level: str | None = None, rules: str | None = None) -> None:
    """The stable browser hook for a new solo game: GET /play/ shows the choice, the
    button carrying data-new-game starts it (a POST) and lands on the new table."""
    page.goto(base + "/play/")
    if level:
        page.locator("[data-level]").select_option(level)
    if rules:
        page.locator("[data-rules]").select_option(rules)
    with page.expect_navigation(url=re.compile(r"/game/[0-9a-f-]{36}/$")):
        page.locator("[data-new-game]").click()
    page.locator("#table-root").wait_for(state="visible")


def wait_for_idle_bots(timeout: float = 20.0) -> None:
    """Wait until no active game waits on a bot, and (with a real worker) until the
    worker has no task running or queued: a test that ends while bots still play, or
    while a task a finished game queued (a set's advance, the rankings) still runs,
    would race the database flush of its teardown (a deadlock against TRUNCATE)."""
    from game.models import Game

    deadline = time.monotonic() + timeout
    while Game.objects.filter(status=Game.Status.ACTIVE, awaiting_bot=True).exists():
        if time.monotonic() > deadline:
            return  # the teardown will say more than a failure here
        time.sleep(0.05)
    wait_for_idle_worker(max(0.0, deadline - time.monotonic()))


def wait_for_idle_worker(timeout: float = 20.0) -> None:
    """Production stack: until this run's worker answers that it runs nothing and its
    queues are empty (tasks with a countdown still ahead are not waited for)."""
    name = os.environ.get("MANILLEN_TEST_WORKER")
    if not (PRODUCTION_STACK and name):
        return
    from django.conf import settings

    from config.celery import app

    queues = [
        settings.GAME_BOTS_QUEUE,
        settings.TOURNAMENTS_RANKINGS_QUEUE,
        settings.TOURNAMENTS_EXPORTS_QUEUE,
    ]
    deadline = time.monotonic() + timeout
    with app.connection_for_read() as conn:
        client = conn.default_channel.client
        while time.monotonic() < deadline:
            queued = sum(client.llen(q) for q in queues)
            # A solo-pool worker answers between tasks: no answer means still busy.
            active = app.control.inspect(destination=[name], timeout=1.0).active()
            if not queued and active and not any(active.values()):
                return
            time.sleep(0.05)


# Clicks of a whole game from one page stay below the server's per-connection message
# rate (GAME_WS_RATE, 10/s; a burst of 30): no person clicks faster, and a long game
# clicked as fast as Playwright can ran out of the burst and had a move refused.
CLICK_GAP_S = 0.11
_last_click: dict[int, float] = {}


def pace(page) -> None:
    """Wait until this page's last paced click is CLICK_GAP_S ago."""
    wait = _last_click.get(id(page), 0.0) + CLICK_GAP_S - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    _last_click[id(page)] = time.monotonic()
