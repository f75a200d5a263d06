"""The game websocket. Thin: identity from scope["user"], schema check, then actions."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from functools import partial
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import translation
from redis.exceptions import RedisError

import engine
from config.middleware import chosen_language
from ops.ratelimit import TokenBucket
from ops.sockets import ClosesOnce, budget_key, game_sockets
from ops.sweeper import BotTurnWatch, kick_if_stuck

from . import actions, messages
from .models import seat_group, watch_group

logger = logging.getLogger(__name__)

# Not thread-sensitive: Channels' default runs every consumer's database work in ONE
# thread per process, so one game's commit would wait for another game's. Moves are
# independent transactions (row lock per game), each thread has its own connection.
run_db = partial(database_sync_to_async, thread_sensitive=False)

# Failures of a service that comes back (Redis, the database): a socket opening then is
# refused, and the client tries again.
TRANSIENT_ERRORS = (RedisError, OperationalError, InterfaceError, ConnectionError, TimeoutError)

CLOSE_NOT_FOUND = 4404
CLOSE_FLOODING = 4429
CLOSE_SIGNED_OUT = 4401  # the account behind the socket was deleted
CLOSE_SEAT_RELEASED = 4409  # the person no longer holds the seat: reconnect as who they are
# Messages that may carry a deadline: sent with the server's clock ("now", epoch ms).
CLOCKED = ("snapshot", "event", "table")
# Languages the engine phrases refusals in (engine.explain).
REFUSAL_LANGUAGES = ("nl", "en", "fr")


def refusal_language(scope) -> str:
    """?lang= of the socket's URL (the page's language), else the language cookie,
    else the site's default (nl)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    lang = (query.get("lang") or [""])[0][:2].lower()
    if lang in REFUSAL_LANGUAGES:
        return lang
    lang = chosen_language(scope.get("cookies") or {})[:2]
    return lang if lang in REFUSAL_LANGUAGES else "nl"


def refusal_text(exc: Exception, lang: str) -> str:
    """An engine refusal (IllegalMove behind IllegalAction) in `lang`, and so a refusal
    whose message is marked for translation (PlayClosed); others as is."""
    cause = exc.__cause__
    if isinstance(cause, engine.IllegalMove):
        return engine.explain(cause, lang)
    if getattr(exc, "translatable", False):
        with translation.override(lang):
            return translation.gettext(str(exc))
    return str(exc)


def join_code(scope) -> str | None:
    """?code= of the socket's URL: a spectator's key to a private (link) table."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return (query.get("code") or [None])[0]


class GameConsumer(ClosesOnce, AsyncJsonWebsocketConsumer):
    """One socket of a person at a table (their seat's view) or of a spectator (the
    public view). The seat comes from the database (scope["user"] -> Seat), never from
    a message: the socket joins that seat's group, which alone carries its cards."""

    # ClosesOnce: after our close (a flood), queued frames are dropped, nothing is sent.
    group: str | None = None
    seat: int | None = None
    code: str | None = None  # a spectator's join code of a link table
    chat_bucket: TokenBucket | None = None
    budget: str | None = None  # whose socket/snapshot budget (ops/sockets.py) this spends
    watch: BotTurnWatch | None = None  # re-enqueues a bot turn nothing comes for
    heartbeat: asyncio.Task | None = None  # a seat's socket: actions.seat_seen, now and then
    gone = False

    async def connect(self) -> None:
        self._move_state()
        self.user = self.scope.get("user")
        self.bucket = TokenBucket(settings.GAME_WS_RATE, settings.GAME_WS_BURST)
        self.refused = 0
        self.lang = refusal_language(self.scope)
        self.public_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.code = join_code(self.scope)
        self.watch = BotTurnWatch(self.public_id)
        if not await self.open_within_budget():
            return
        try:
            # The snapshot, and a seated person's socket counted (away-takeover), in one
            # trip to the database.
            snapshot = await run_db(actions.connect)(self.public_id, self.user, self.code)
        except actions.GameNotFound:
            await self.accept()
            await self.send_error("not_found", "no such game")
            await self.close(code=CLOSE_NOT_FOUND)
            return
        except Exception as exc:
            self._release_budget()  # Channels calls no disconnect for a failed connect
            if await self._refused_as_transient(exc):
                return
            raise
        try:
            await self._join(snapshot)
        except Exception as exc:
            # The database or the channel layer failed halfway (a Redis blip): undo the
            # socket's count and budget, or the seat would read "connected" for good and
            # the person's sockets run out; the client connects again.
            await self._close_down()
            if await self._refused_as_transient(exc):
                return
            raise

    async def _refused_as_transient(self, exc: Exception) -> bool:
        """Redis or the database away a moment: the socket is refused with one line in
        the log (every client retries each second: a traceback each was hundreds of
        lines a second), and the client connects again. False for anything else."""
        if not isinstance(exc, TRANSIENT_ERRORS):
            return False
        logger.warning("game socket at %s refused: %s: %s", self.public_id, type(exc).__name__, exc)
        try:
            await self.close()
        except Exception:  # the socket is gone already
            pass
        return True

    def _release_budget(self) -> None:
        if self.budget:
            game_sockets.close(self.budget)
            self.budget = None

    async def _close_down(self) -> None:
        """Give back, once, what this socket holds: its timers, its place in the
        person's socket budget, its seat's count (first: it must not depend on the
        channel layer), then its group. On a close, a failed opening, and a consumer
        stopped by an error (Redis away under its receive): Channels then calls no
        disconnect, and the seat read "connected" for good while the timers beat on."""
        if self.watch:
            self.watch.stop()
        self._stop_beat()
        self._release_budget()
        self.gone = True
        group, self.group = self.group, None
        if group is None:
            return
        if self.seat is not None:
            try:
                await run_db(actions.seat_disconnected)(self.public_id, self.user)
            except Exception:  # its takeover task not queued: the sweeper does it
                logger.warning("socket close at %s not fully recorded", self.public_id)
        try:
            await self.channel_layer.group_discard(group, self.channel_name)
        except Exception:  # the layer that failed: its group entry expires by itself
            logger.warning("socket of %s not taken out of its group", self.public_id)

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except TRANSIENT_ERRORS as exc:
            # The channel layer (Redis) failed under the socket: one line, not a
            # traceback per socket; the client connects again.
            logger.warning(
                "game socket at %s dropped: %s: %s",
                getattr(self, "public_id", "?"), type(exc).__name__, exc,
            )  # fmt: skip
        finally:
            await self._close_down()

    async def _join(self, snapshot: dict) -> None:
        # Join before sending the snapshot so no event can fall between the two; the
        # client drops events whose seq is not above the snapshot's. One group per
        # socket: its seat's (that seat's view of every move, and the table's notices),
        # or the spectators' (the public view).
        self.seat = snapshot["table"]["seat"]
        self.group = (
            watch_group(self.public_id)
            if self.seat is None
            else seat_group(self.public_id, self.seat)
        )
        await self.channel_layer.group_add(self.group, self.channel_name)
        if self.seat is not None and not await run_db(actions.still_holds)(
            self.public_id, self.user, self.seat
        ):
            # The seat changed hands between the snapshot and the join (its release
            # was sent before we were in the group): this socket must not stay in it.
            await self.accept()
            await self.leave_released_seat()
            return
        # A move made between the snapshot and the join was sent before this socket was
        # in the group: the snapshot is taken again, so the page misses nothing (a bot's
        # move that made it the person's turn left the table waiting on them for good).
        if await run_db(actions.seq_now)(self.public_id) != snapshot.get("seq"):
            fresh = await run_db(actions.snapshot)(self.public_id, self.user, self.code)
            snapshot = {**fresh, **{k: snapshot[k] for k in ("arrived",) if k in snapshot}}
        # A reconnecting client may be waiting on a bot turn lost with a worker.
        await run_db(kick_if_stuck)(self.public_id)
        await self.accept()
        await self.send_json(snapshot)
        if self.seat is not None and snapshot["table"].get("status") == "active":
            self.heartbeat = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        """While open, say every GAME_SEAT_HEARTBEAT seconds that the seat's socket lives
        (actions.seat_seen): the count of a process killed outright goes stale and the
        sweeper sets it right (ops/sweeper.py)."""
        every = settings.GAME_SEAT_HEARTBEAT
        while True:
            await asyncio.sleep(every)
            try:
                await run_db(actions.seat_seen)(self.public_id, self.user)
            except Exception:  # a database blip: the next beat
                logger.warning("heartbeat of a socket at %s failed", self.public_id)

    def _stop_beat(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            self.heartbeat = None

    async def disconnect(self, code: int) -> None:
        await self._close_down()

    async def open_within_budget(self) -> bool:
        """Open sockets and snapshots per user (ops/sockets.py). Over budget: the socket
        is told why (rate_limited) and closed before any database work."""
        key = budget_key(self.scope)
        if not game_sockets.open(key):
            reason = "too many open game sockets: close another table first"
        elif not game_sockets.snapshot(key):
            game_sockets.close(key)
            reason = "too many snapshots: slow down"
        else:
            self.budget = key
            return True
        await self.accept()
        await self.send_error("rate_limited", reason)
        await self.close(code=CLOSE_FLOODING)
        return False

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        # Parsing is ours (not the base class's) so bad input becomes an error message.
        if self.group is not None and not self.bucket.take():
            # Over the per-connection budget: refused before parsing, nothing changes.
            self.refused += 1
            if self.refused > 10 * settings.GAME_WS_BURST:
                await self.close(code=CLOSE_FLOODING)
                return
            await self.send_error("rate_limited", "too many messages: slow down")
            return
        if text_data is None:
            await self.send_error("bad_message", "send JSON text frames")
            return
        if len(text_data) > settings.GAME_WS_MAX_MESSAGE_BYTES:
            await self.send_error("bad_message", "message too large")
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):  # "[" * 1000 fits the size limit and recurses
            await self.send_error("bad_message", "not valid JSON")
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs) -> None:
        if self.group is None:
            return
        try:
            message = messages.parse(content)
        except messages.BadMessage as exc:
            await self.send_error(exc.code, str(exc))
            return
        if isinstance(message, messages.PingMessage):
            # The page checks that its connection lives: a word back, nothing else.
            await self.send_json({"type": "pong"})
            return
        if isinstance(message, messages.SnapshotMessage):
            if not game_sockets.snapshot(self.budget):
                await self.send_error("rate_limited", "too many snapshots: slow down")
                return
            try:
                snap = await run_db(actions.snapshot)(self.public_id, self.user, self.code)
            except actions.GameNotFound as exc:
                await self.send_error(exc.code, str(exc))
                return
            await self.send_json(snap)
            await run_db(kick_if_stuck)(self.public_id)
            return
        if isinstance(message, messages.ChatMessage):
            if self.chat_bucket is None:
                self.chat_bucket = TokenBucket(
                    1 / settings.GAME_CHAT_EVERY, settings.GAME_CHAT_BURST
                )
            if not self.chat_bucket.take():
                await self.send_error("rate_limited", "too many chat messages: slow down")
                return
            try:
                await run_db(actions.chat)(self.public_id, self.user, message.text)
            except actions.ActionError as exc:
                await self.send_error(exc.code, refusal_text(exc, self.lang))
            return
        # Not awaited here: the move's events reach this socket through the group, and
        # the group's messages are handled by this same loop. A move whose commit also
        # plays the bots' turn (eager bots, in-process) would otherwise hold the echo
        # of South's card until the bots had thought.
        self._move_state()
        task = asyncio.create_task(self.move(message))
        self.moves.add(task)
        task.add_done_callback(self.moves.discard)

    def _move_state(self) -> None:
        """Moves run beside the message loop, one at a time and in order (see move()).
        Made on first need too, for a consumer driven without connect (the fuzz tests)."""
        if getattr(self, "move_lock", None) is None:
            self.moves = set()
            self.move_lock = asyncio.Lock()

    async def move(self, message: messages.ActionMessage) -> None:
        async with self.move_lock:  # FIFO: a socket's moves are tried in the order sent
            try:
                await run_db(actions.apply_action)(
                    self.public_id, self.user, message.action, message.seq
                )
            except actions.ActionError as exc:
                await self.send_error(exc.code, refusal_text(exc, self.lang))
            except Exception:
                # As an exception in the handler would: logged, and the socket closed
                # (the table reconnects and resumes from a snapshot).
                logger.exception("move %s on game %s failed", message.action, self.public_id)
                if not self.gone:
                    await self.close(code=1011)

    async def game_signed_out(self, event) -> None:
        """The account behind this socket was deleted (game.actions.close_sockets_of):
        nothing more from it. Only its own sockets share its seat's group."""
        if getattr(self.user, "pk", None) == event.get("user") and not self.gone:
            await self.close(code=CLOSE_SIGNED_OUT)

    async def game_seat_released(self, event) -> None:
        """The person behind this socket no longer holds its seat (they got up, or an
        organizer gave the seat to someone else: game.actions._release_seat). The socket
        leaves the seat's group at once, so not one more of the seat's cards reaches it,
        and closes; the table reconnects as whoever the person is now."""
        if self.gone or getattr(self.user, "pk", None) != event.get("user"):
            return
        if self.group is not None and self.seat == event.get("seat"):
            await self.leave_released_seat()

    async def leave_released_seat(self) -> None:
        """Out of the seat's group (no more of its cards), then closed: the person no
        longer holds the seat."""
        await self.channel_layer.group_discard(self.group, self.channel_name)
        self.group = None
        await self.close(code=CLOSE_SEAT_RELEASED)

    async def game_event(self, event) -> None:
        await self.send_json(event["payload"])

    async def game_events(self, event) -> None:
        for payload in event["payloads"]:
            await self.send_json(payload)

    async def send_json(self, content, close=False) -> None:
        if self.watch and not self.closing:
            self.watch.seen(content)  # every state this table is shown
        if isinstance(content, dict) and content.get("type") in CLOCKED:
            # The server's clock as it sends: a deadline is the server's instant, and the
            # page counts it down against this, not against a phone's clock that is off.
            content = {**content, "now": int(time.time() * 1000)}
        await super().send_json(content, close=close)

    async def send_error(self, code: str, message: str) -> None:
        if self.gone:  # a move answered after the socket closed: nobody to tell
            return
        await self.send_json({"type": "error", "code": code, "message": message})

    @classmethod
    async def encode_json(cls, content) -> str:
        return json.dumps(content, separators=(",", ":"))
