"""Fault tests against real processes: nothing lost, nothing applied twice.

Each test starts its own loopback stack (ops/stack.py): a PRIVATE redis-server on a
free port (restarting it disturbs nobody), uvicorn processes and Celery workers, all
on the test database. A resilient client plays whole games over real WebSockets:
it reconnects when its socket drops or stays silent, and resumes from the snapshot.

- a worker killed (SIGKILL) in the middle of a bot turn: the turn is rolled back and
  played exactly once when a worker is back (sweeper on reconnect/snapshot);
- a web process killed while a client is connected: the client resumes on another;
- Redis restarted: play continues after reconnecting;
- a PostgreSQL connection dropped mid-action (pg_terminate_backend inside the
  transaction, worker side and human side): all or nothing.
Every game still finishes with a stored record identical to its replay, and with the
bots' moves exactly those the deterministic bots make.

Needs PostgreSQL + Redis (DATABASE_URL and REDIS_URL, as in CI) and redis-server.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

from tests.helpers import PRODUCTION_STACK

pytestmark = [
    pytest.mark.skipif(
        not PRODUCTION_STACK,
        reason="fault tests need the production stack: set DATABASE_URL (PostgreSQL) and "
        "REDIS_URL (as .ci/run does)",
    ),
    pytest.mark.skipif(
        shutil.which("redis-server") is None,
        reason="fault tests start a private redis-server: install redis-server",
    ),
]

SWEEP_AFTER = "1"  # seconds a game may wait on a bot before a reconnect re-enqueues it


# --- the stack --------------------------------------------------------------------------------


def _test_database_url(app: str) -> str:
    from django.db import connection

    base = urlparse(os.environ["DATABASE_URL"])
    name = connection.settings_dict["NAME"]
    return urlunparse(base._replace(path=f"/{name}", query=f"application_name={app}"))


@pytest.fixture
def stack(transactional_db, tmp_path):
    from ops.stack import Stack

    s = Stack(
        _test_database_url("fault-stack"),
        tmp_path,
        extra_env={
            "SWEEP_STUCK_AFTER": SWEEP_AFTER,
            "GAME_WS_RATE": "1000",
            "GAME_WS_BURST": "1000",
            "FAULT_SLOW_FILE": str(tmp_path / "slow"),
            "FAULT_BOT_DELAY": "1.5",
        },
    )
    s.start_redis()
    try:
        yield s
    finally:
        s.stop_all()


def slow(stack, on: bool) -> None:
    flag = Path(stack.extra_env["FAULT_SLOW_FILE"])
    if on:
        flag.touch()
    else:
        flag.unlink(missing_ok=True)


def worker(stack, name: str, slow_bots: bool = False):
    return stack.start_worker(
        name,
        queues="bots",
        app="tests.production.slow_worker" if slow_bots else "config",
        DATABASE_URL=_test_database_url(name),
    )


def new_game(port: int) -> tuple[str, str]:
    """A guest's game, made through the web process by the start button's POST: (public
    id, session cookie). The stack serves no static files (DEBUG=0, no collectstatic), so
    no page is rendered for a token: like any client, this one picks its CSRF secret
    and sends it both as the cookie and as the form's token."""
    import secrets
    import string
    import urllib.parse

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/play/",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": token}).encode(),
        headers={"Cookie": f"csrftoken={token}"},
    )
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(request, timeout=30)
        raise AssertionError("POST /play/ should redirect to the new game")
    except urllib.error.HTTPError as exc:
        assert exc.code == 302, exc.code
        location = exc.headers["Location"]
        cookies = exc.headers.get_all("Set-Cookie")
    session = next(c.split(";")[0].split("=", 1)[1] for c in cookies if c.startswith("sessionid="))
    return location.rstrip("/").rsplit("/", 1)[-1], session


def backend_in_transaction(app: str, timeout: float = 30) -> int:
    """The pid of the PostgreSQL backend of `app` once it is inside a transaction."""
    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s "
                "AND state = 'idle in transaction'",
                (app,),
            ).fetchone()
            if row:
                return row[0]
            time.sleep(0.05)
    raise AssertionError(f"{app} never held a transaction open")


def _admin_url() -> str:
    return urlunparse(urlparse(os.environ["DATABASE_URL"])._replace(path="/postgres"))


def terminate_backend(pid: int) -> None:
    import psycopg

    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        assert conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0]


def stored(game_id: str):
    from game.models import Game

    return Game.objects.get(public_id=game_id)


# --- a resilient player -------------------------------------------------------------------------


class Player:
    """Plays South to the end over real WebSockets, like the table's script: on a
    dropped or silent socket it reconnects (to whichever port `ports()` offers) and
    resumes from the snapshot. Records every event for the checks."""

    def __init__(self, game_id: str, cookie: str, ports, seed: str = "fault") -> None:
        self.game_id, self.cookie, self.ports = game_id, cookie, ports
        self.rng = random.Random(seed)
        self.events: dict[int, str] = {}  # seq -> action, from events
        self.gaps = 0
        self.duplicates = 0
        self.reconnects = 0
        self.ws = None
        self.seq = 0
        self.state: dict = {}

    async def connect(self, deadline: float) -> None:
        import websockets

        while True:
            port = self.ports()
            try:
                self.ws = await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws/game/{self.game_id}/",
                    additional_headers={"Cookie": f"sessionid={self.cookie}",
                                        "Origin": f"http://127.0.0.1:{port}"},  # fmt: skip
                    max_size=2**22, open_timeout=5,
                )  # fmt: skip
                snapshot = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=10))
                assert snapshot["type"] == "snapshot", snapshot
                self.seq, self.state = snapshot["seq"], snapshot["state"]
                return
            except Exception as exc:  # noqa: BLE001
                if not _is_connection_error(exc):
                    raise
                if time.monotonic() > deadline:
                    raise AssertionError(f"could not reconnect: {exc!r}") from exc
                await asyncio.sleep(0.3)

    async def _reconnect(self, deadline: float) -> None:
        self.reconnects += 1
        try:
            await self.ws.close()
        except Exception:  # noqa: BLE001 - the socket may be dead already
            pass
        await self.connect(deadline)

    def _record(self, message: dict) -> None:
        s = message["seq"]
        if s <= self.seq:  # already in the snapshot (or a repeat): the protocol drops it
            if s in self.events and self.events[s] != message["action"]:
                self.duplicates += 1
            return
        if s != self.seq + 1:
            self.gaps += 1
        if s in self.events:
            self.duplicates += 1
        self.events[s] = message["action"]
        self.seq, self.state = s, message["state"]

    def _done(self, after: int | None) -> bool:
        at_rest = self.state.get("to_move") == 0 or bool(self.state.get("game_over"))
        return at_rest and (after is None or self.seq > after)

    async def wait_for_turn(self, deadline: float, after: int | None = None,
                            silence: float = 4.0) -> bool:  # fmt: skip
        """Until South is to move (after move `after`, if given) or the game is over;
        reconnect on a dropped or silent socket. False if the card sent at `after` was
        lost (the snapshot after a reconnect shows South still to move at `after`)."""
        while not self._done(after):
            if time.monotonic() > deadline:
                raise AssertionError(f"stuck at seq {self.seq}: {self.state.get('to_move')}")
            try:
                message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=silence))
            except Exception as exc:  # noqa: BLE001
                if not _is_connection_error(exc):
                    raise
                await self._reconnect(deadline)
                if after is not None and self.seq == after and self.state.get("to_move") == 0:
                    return False
                continue
            if message["type"] == "event":
                self._record(message)
            elif message["type"] == "snapshot":
                self.seq, self.state = message["seq"], message["state"]
            elif message["type"] == "error" and message["code"] == "stale":
                await self.ws.send(json.dumps({"type": "snapshot"}))
        return True

    async def send_card(self) -> int:
        card = self.rng.choice(self.state["legal"])
        sent_at = self.seq
        await self.ws.send(json.dumps({"type": "action", "action": card, "seq": sent_at}))
        return sent_at

    async def play_card(self, deadline: float) -> None:
        try:
            sent_at = await self.send_card()
        except Exception as exc:  # noqa: BLE001
            if not _is_connection_error(exc):
                raise
            await self._reconnect(deadline)
            return  # the snapshot says whether the card made it; the turn loop decides
        await self.wait_for_turn(deadline, after=sent_at)

    async def play(self, moves: int | None, deadline: float) -> None:
        await self.wait_for_turn(deadline)
        played = 0
        while not self.state.get("game_over") and (moves is None or played < moves):
            await self.play_card(deadline)
            played += 1

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def _is_connection_error(exc: BaseException) -> bool:
    from websockets.exceptions import WebSocketException

    return isinstance(exc, (OSError, TimeoutError, WebSocketException))


# --- the checks --------------------------------------------------------------------------------


def assert_whole_and_once(game_id: str, player: Player) -> None:
    """Finished; the stored record is the record of its replay; every event the client
    saw is the stored move at that seq; the bots' moves are exactly the deterministic
    bots' (a bot move redone twice, or lost, would show here)."""
    import engine
    from engine import records
    from engine.bots import bot_seed, get_bot
    from game.models import Game

    game = stored(game_id)
    assert game.status == Game.Status.FINISHED, (game.seq, game.status)
    assert game.seq == len(game.actions)
    replayed = engine.Game.replay(game.seed, game.rules, game.actions)
    assert replayed.is_terminal()
    assert records.write_text(replayed, records.read_text(game.record).tags) == game.record
    assert replayed.observation(0) == game.state
    for s, action in player.events.items():
        assert game.actions[s - 1] == action, (s, action)
    assert player.duplicates == 0
    bot = get_bot(game.bot_level)
    eng = engine.Game(game.seed, game.rules)
    for i, action in enumerate(game.actions):
        seat = eng.to_move
        if seat != 0:
            expected = bot.act(eng.observation(seat), bot_seed(game.seed, eng.deal_number, seat))
            assert expected == action, f"move {i + 1} by seat {seat}: {action}, bot: {expected}"
        eng.apply_action(action)


def run(coro):
    return asyncio.run(coro)


async def db(fn, *args):
    """fn(*args) with the ORM in a worker thread, whose connection is closed after (a
    connection left open in an executor thread would keep the test database alive)."""
    from django.db import connection

    def call():
        try:
            return fn(*args)
        finally:
            connection.close()

    return await asyncio.to_thread(call)


# --- the faults -------------------------------------------------------------------------------


def test_a_worker_killed_mid_bot_turn_is_redone_exactly_once(stack):
    from game import actions

    web = stack.start_web()
    w1 = worker(stack, "fault-w1", slow_bots=True)
    game_id, cookie = new_game(web.port)
    player = Player(game_id, cookie, lambda: web.port, seed="worker-kill")

    async def scenario():
        deadline = time.monotonic() + 240
        await player.connect(deadline)
        await player.wait_for_turn(deadline)
        slow(stack, True)
        seq_before = await player.send_card()
        await asyncio.to_thread(backend_in_transaction, "fault-w1", 30)
        # The bot turn is under way, its transaction open and the row locked: kill -9.
        w1.kill(signal.SIGKILL)
        game = await db(stored, game_id)
        assert game.seq == seq_before + 1, "only the human card is committed"
        slow(stack, False)
        await asyncio.to_thread(worker, stack, "fault-w2")
        ready = time.monotonic()
        # A redelivery of the killed worker's task (Redis gives it back after its
        # visibility timeout) finds the game moved on or replays the same turn once.
        # The turn is re-enqueued for the new worker by the server's watch on the open
        # table (no event for GAME_BOT_TURN_TIMEOUT_MS), or by the check of a reconnect
        # after the player's silence: within seconds either way.
        await player.wait_for_turn(deadline, after=seq_before)
        assert time.monotonic() - ready < 5
        stale = await db(actions.play_bots, game.pk, seq_before + 1)
        assert stale == 0, "the turn was already played: a repeat does nothing"
        await player.play(None, deadline)
        await player.close()

    run(scenario())
    assert_whole_and_once(game_id, player)


def test_a_web_process_killed_under_a_client_resumes_on_another(stack):
    web_a = stack.start_web()
    web_b = stack.start_web()
    worker(stack, "fault-w")
    game_id, cookie = new_game(web_a.port)
    # The proxy's choice: A while it lives, then B.
    player = Player(game_id, cookie, lambda: web_a.port if web_a.alive() else web_b.port)

    async def scenario():
        deadline = time.monotonic() + 240
        await player.connect(deadline)
        await player.play(6, deadline)
        web_a.kill(signal.SIGKILL)
        await player.play(None, deadline)
        await player.close()

    run(scenario())
    assert player.reconnects >= 1
    assert_whole_and_once(game_id, player)


def test_play_continues_after_a_redis_restart(stack):
    web = stack.start_web()
    w = worker(stack, "fault-w")
    game_id, cookie = new_game(web.port)
    player = Player(game_id, cookie, lambda: web.port, seed="redis")
    redis_proc = next(p for p in stack.procs if p.name.startswith("redis-"))

    async def scenario():
        deadline = time.monotonic() + 300
        await player.connect(deadline)
        await player.play(6, deadline)
        redis_proc.kill(signal.SIGKILL)  # no persistence: groups and queued tasks are gone
        await asyncio.sleep(1.0)
        await asyncio.to_thread(stack.start_redis, stack.redis_port)
        await player.play(None, deadline)
        await player.close()

    run(scenario())
    assert player.reconnects >= 1  # the groups died with Redis: a silent socket, reconnected
    assert w.alive(), "the worker reconnects to the broker by itself"
    assert_whole_and_once(game_id, player)


def test_a_database_connection_dropped_mid_bot_turn_applies_nothing(stack):
    web = stack.start_web()
    worker(stack, "fault-pg", slow_bots=True)
    game_id, cookie = new_game(web.port)
    player = Player(game_id, cookie, lambda: web.port, seed="pg-drop")

    async def scenario():
        deadline = time.monotonic() + 240
        await player.connect(deadline)
        await player.wait_for_turn(deadline)
        slow(stack, True)
        seq_before = await player.send_card()
        pid = await asyncio.to_thread(backend_in_transaction, "fault-pg", 30)
        await asyncio.to_thread(terminate_backend, pid)
        slow(stack, False)
        await asyncio.sleep(2.0)  # the task fails on its next statement; nothing committed
        game = await db(stored, game_id)
        assert game.seq == seq_before + 1 and len(game.actions) == seq_before + 1
        # The same worker reconnects for its next task; the sweeper re-enqueues the turn.
        await player.wait_for_turn(deadline, after=seq_before)
        await player.play(None, deadline)
        await player.close()

    run(scenario())
    assert_whole_and_once(game_id, player)


@pytest.mark.usefixtures("live_game_db")
def test_a_database_connection_dropped_mid_human_move_applies_nothing(user, monkeypatch):
    """The human path, in process: the connection dies after the move was applied to
    the engine and before the row is saved; nothing of it is stored."""
    from django.db import OperationalError, close_old_connections, connection

    from game import actions
    from tests.helpers import wait_for_turn

    game = wait_for_turn(actions.create_game(user, seed="pg-drop-human").public_id)
    before = (game.seq, list(game.actions), game.state)
    original = actions._apply

    def apply_then_lose_the_connection(*args, **kwargs):
        event = original(*args, **kwargs)
        terminate_backend(connection.connection.info.backend_pid)
        return event

    monkeypatch.setattr(actions, "_apply", apply_then_lose_the_connection)
    with pytest.raises(OperationalError):
        actions.apply_action(game.public_id, user, game.state["legal"][0], game.seq)
    monkeypatch.undo()
    connection.close()
    close_old_connections()
    game.refresh_from_db()
    assert (game.seq, game.actions, game.state) == before
    # And the game goes on from there, as if the move had never been sent.
    game = actions.apply_action(game.public_id, user, game.state["legal"][0], game.seq)
    assert game.seq == before[0] + 1


def _backends(app: str) -> set[int]:
    import psycopg

    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (app,)
        ).fetchall()
    return {pid for (pid,) in rows}


def test_the_web_process_reuses_pooled_connections_and_replaces_dropped_ones(stack):
    """The web (ASGI) process borrows its database connections from a pool: requests do
    not each open a connection (~9 ms), and one dropped by the server while it waited in
    the pool (a PostgreSQL restart) is replaced, not handed to a request that then fails."""
    import urllib.request

    web = stack.start_web(DATABASE_URL=_test_database_url("pool-web"))
    url = f"http://127.0.0.1:{web.port}/tables/?format=json"

    def get() -> int:
        with urllib.request.urlopen(url, timeout=20) as resp:
            resp.read()
            return resp.status

    assert get() == 200
    kept = _backends("pool-web")
    assert kept, "no connection stays open between requests: no pool"
    for _ in range(30):
        assert get() == 200
    assert _backends("pool-web") == kept, "requests opened connections of their own"
    for pid in kept:
        terminate_backend(pid)
    # Every connection in the pool is gone; the next requests are still answered.
    assert [get() for _ in range(5)] == [200] * 5
    assert _backends("pool-web") and not _backends("pool-web") & kept
