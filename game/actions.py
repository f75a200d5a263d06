"""The single mutation path for games (zulip `zerver/actions/` style).

Views, consumers and Celery tasks never save a Game themselves: they call these
functions. A move, human or bot, goes through `_apply`; every change happens with
the game row locked (`select_for_update`) and its events are sent after commit.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection, transaction
from django.utils.translation import gettext_noop as N_

import engine
from engine.bots import bot_seed, get_bot

from .models import Game

logger = logging.getLogger(__name__)

HUMAN_SEAT = 0  # South: the only seat a person holds in a solo game


class ActionError(Exception):
    """A refused request. `code` is what the client receives in its error message."""

    code = "error"


class GameNotFound(ActionError):
    code = "not_found"


class StaleSeq(ActionError):
    code = "stale"


class NotYourTurn(ActionError):
    code = "not_your_turn"


class IllegalAction(ActionError):
    """The engine refused the move; the message is the engine's, naming the rule."""

    code = "illegal"


class PlayClosed(ActionError):
    """No more moves: the game is over or stopped, e.g. its tournament's play window has
    ended. The message is English and marked for translation (the consumer translates)."""

    code = "closed"
    translatable = True


@dataclass(frozen=True)
class Event:
    seq: int
    actor: int
    action: str
    state: dict[str, Any]

    def as_message(self) -> dict[str, Any]:
        return {
            "type": "event",
            "seq": self.seq,
            "actor": self.actor,
            "action": self.action,
            "state": self.state,
        }


# --- reading -----------------------------------------------------------------------------


def replay(game: Game) -> engine.Game:
    """The engine game for the stored (seed, rules, actions).

    A process-local cache keeps the last engine state this process stored for a game,
    and catches it up with the moves made since (by the other process: web or worker)
    instead of replaying the whole game on every card. The row stays the only truth:
    a cached state is used only if its actions are a prefix of the stored ones.
    """
    actions = list(game.actions)
    key = str(game.public_id)
    with _cache_lock:
        cached = _engine_cache.get(key)
    if (
        cached is not None
        and cached.seed == game.seed
        and cached.rules.spec == game.rules
        and len(cached.actions) <= len(actions)
        and cached.actions == actions[: len(cached.actions)]
    ):
        eng = cached.clone()
        for action in actions[len(cached.actions) :]:
            eng.apply_action(action)
        return eng
    return engine.Game.replay(game.seed, game.rules, actions)


_ENGINE_CACHE_SIZE = 512
_engine_cache: OrderedDict[str, engine.Game] = OrderedDict()
_cache_lock = threading.Lock()


def _remember(key: str, eng: engine.Game) -> None:
    with _cache_lock:
        _engine_cache[key] = eng
        _engine_cache.move_to_end(key)
        while len(_engine_cache) > _ENGINE_CACHE_SIZE:
            _engine_cache.popitem(last=False)


def observation(game: Game) -> dict[str, Any]:
    """South's view of the game as stored."""
    if game.state is not None:
        return game.state
    return replay(game).observation(HUMAN_SEAT)


def snapshot_message(game: Game) -> dict[str, Any]:
    return {"type": "snapshot", "seq": game.seq, "state": observation(game)}


def get_owned_game(public_id, user) -> Game:
    """The game if `user` owns it; GameNotFound for anyone else (no existence leak)."""
    if user is None or not user.is_authenticated:
        raise GameNotFound("no such game")
    try:
        return Game.objects.get(public_id=public_id, owner=user)
    except (Game.DoesNotExist, ValueError, TypeError):
        raise GameNotFound("no such game") from None


def snapshot(public_id, user) -> dict[str, Any]:
    return snapshot_message(get_owned_game(public_id, user))


def record_event(game: Game) -> tuple[str, str | None]:
    """(Event, Site) of the game's record: a tournament's game (a club night, the day
    list) is named after its tournament and club; a solo game is "Manillen"."""
    try:
        t = game.tournament_entry.tournament  # reverse one-to-one: no import of tournaments
    except ObjectDoesNotExist:
        return "Manillen", None
    return t.name, (t.club.name if t.club_id else None)


def record_tags(game: Game) -> dict[str, str]:
    """Who played and when, for the game's record (the engine adds seed, rules, result)."""
    from django.utils import timezone

    day = timezone.localdate(game.created) if game.created else timezone.localdate()
    bot = f"bot:{game.bot_level}"
    event, site = record_event(game)
    tags = {
        "Event": event,
        **({"Site": site} if site else {}),
        "Date": day.strftime("%Y.%m.%d"),
        "South": game.owner.get_username(),
        "West": bot,
        "North": bot,
        "East": bot,
    }
    # A tournament game the bot played to its end at the close ("uitgespeeld door de bot").
    entry = getattr(game, "tournament_entry", None) if game.pk else None
    if entry is not None and entry.finish_mode == "bot":
        tags["FinishedBy"] = bot
    return tags


def record_text(game: Game) -> str:
    if game.record:
        return game.record
    from engine import records

    return records.write_text(replay(game), record_tags(game))


# --- writing -----------------------------------------------------------------------------


def create_game(
    user,
    *,
    seed: str | None = None,
    rules: str | None = None,
    bot_level: str | None = None,
    fast_play: bool = False,
) -> Game:
    """A new solo game for `user` in South's seat. Bots start if they move first.

    `rules` is the engine's rules text: a preset and its game options
    ("flemish deals=12 tie=own"); the row keeps it in canonical form (RuleSet.spec).
    """
    rules = rules or settings.GAME_DEFAULT_RULES
    bot_level = bot_level or settings.GAME_DEFAULT_BOT
    seed = seed or secrets.token_hex(8)
    eng = engine.Game(seed, rules)  # validates rules before anything is stored
    get_bot(bot_level)  # unknown level: fail now, not in a worker later
    with transaction.atomic():
        game = Game.objects.create(
            owner=user, seed=seed, rules=eng.rules.spec, bot_level=bot_level, fast_play=fast_play
        )
        _store(game, eng)
        game.save()
        _after_commit(game, eng, events=[])
    return game


def apply_action(public_id, user, action: str, expected_seq: int) -> Game:
    """South plays `action` (a card like "TS" or "trump:H") at version `expected_seq`."""
    if not isinstance(action, str):
        raise IllegalAction("an action is a string such as 'TS' or 'trump:H'")
    with transaction.atomic():
        _relaxed_commit()
        try:
            game = _locked_for_move().get(public_id=public_id)
        except (Game.DoesNotExist, ValueError, TypeError):
            raise GameNotFound("no such game") from None
        if user is None or not user.is_authenticated or game.owner_id != user.pk:
            raise GameNotFound("no such game")
        _check_open(game)
        if expected_seq != game.seq:
            raise StaleSeq(
                f"the game is at move {game.seq}, not {expected_seq}: ask for a snapshot"
            )
        eng = replay(game)
        if eng.is_terminal():
            raise NotYourTurn("the game is over")
        if eng.to_move != HUMAN_SEAT:
            raise NotYourTurn(f"it is seat {eng.to_move}'s turn, not yours")
        event = _apply(game, eng, HUMAN_SEAT, action)
        _store(game, eng, event.state)
        game.save()
        _after_commit(game, eng, events=[event])
    return game


def play_bots(game_pk: int, expected_seq: int) -> int:
    """Play every consecutive bot move (seats 1-3) from version `expected_seq`.

    Idempotent: a stale or repeated call (the game moved on, or is over) does nothing.
    Returns the number of moves played.
    """
    with transaction.atomic():
        _relaxed_commit()
        try:
            game = _locked_for_move().get(pk=game_pk)
        except Game.DoesNotExist:
            return 0
        if game.seq != expected_seq or game.status != Game.Status.ACTIVE:
            return 0
        try:
            _check_open(game)
        except PlayClosed:
            return 0  # e.g. the tournament's window has ended: its close decides the rest
        return _bot_moves(game, south_too=False)


def autoplay(game_pk: int) -> int:
    """Play the game to its end with the bot in every seat, South included.

    For a tournament closing with the rule "finish by the bot" (so the `move_refused`
    hook is not asked: the window has ended by then). Each move, South's too, goes
    through `_apply` with the bot seeded by (seed, deal number, seat), as always.
    Returns the number of moves played (0 if the game was already over).
    """
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_pk)
        except Game.DoesNotExist:
            return 0
        if game.status != Game.Status.ACTIVE:
            return 0
        return _bot_moves(game, south_too=True)


def _bot_moves(game: Game, *, south_too: bool) -> int:
    """Inside the caller's locked transaction: let the bot move until South is to move
    (or, with `south_too`, until the end), store once and send the events after commit."""
    eng = replay(game)
    bot = get_bot(game.bot_level)
    events = []
    while not eng.is_terminal() and (south_too or eng.to_move != HUMAN_SEAT):
        seat = eng.to_move
        choice = bot.act(eng.observation(seat), bot_seed(game.seed, eng.deal_number, seat))
        # A bot's illegal move is a bug in the bot: let it fail loudly (no except).
        events.append(_apply(game, eng, seat, choice))
    if not events:
        return 0
    _store(game, eng, events[-1].state)
    game.save()
    _after_commit(game, eng, events=events)
    return len(events)


def stop_game(game_pk: int, reason: str = "stopped") -> Game | None:
    """End an unfinished game where it stands: no more moves (a tournament closed with
    its unfinished games scored as played so far). The game is finished with South's
    score so far and its record as played; open tables are told (`{"type": "closed"}`)."""
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_pk)
        except Game.DoesNotExist:
            return None
        if game.status != Game.Status.ACTIVE:
            return game
        eng = replay(game)
        game.status = Game.Status.FINISHED
        game.final_score = eng.score_for(HUMAN_SEAT)
        _store(game, eng)
        if not game.record:
            game.record = record_text(game)
        game.save()
        group, message = game.group_name, {"type": "closed", "seq": game.seq, "reason": reason}
        transaction.on_commit(lambda: send_events(group, [message]))
    return game


def resume_game(game_pk: int) -> Game | None:
    """Undo `stop_game`: a stopped game that was not played to its end takes moves
    again (a removed tournament entry restored by its organizer). A game played to its
    end stays over. The bots start if it is their turn (after commit, so a hook that
    refuses moves sees the caller's committed rows)."""
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_pk)
        except Game.DoesNotExist:
            return None
        if game.status == Game.Status.ACTIVE:
            return game
        eng = replay(game)
        if eng.is_terminal():
            return game
        game.status = Game.Status.ACTIVE
        game.final_score = None
        game.record = ""
        _store(game, eng)
        game.save()
        _after_commit(game, eng, events=[])
    return game


def set_fast_play(public_id, user, value: bool | None = None) -> Game:
    """Set (or toggle, with value None) "vlot doorspelen" for the owner's game."""
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(public_id=public_id, owner=user)
        except (Game.DoesNotExist, ValueError, TypeError):
            raise GameNotFound("no such game") from None
        game.fast_play = (not game.fast_play) if value is None else bool(value)
        game.save(update_fields=["fast_play", "updated"])
    return game


# --- internals ---------------------------------------------------------------------------


def _locked_for_move():
    """The game row locked for a move, with what the `move_refused` receivers read
    (their relations, e.g. a tournament entry and its tournament) in the same query."""
    from .signals import move_row_related

    # FOR UPDATE OF the game alone: PostgreSQL refuses to lock the nullable side of the
    # outer joins, and the related rows are only read.
    return Game.objects.select_for_update(of=("self",)).select_related(*move_row_related)


def _check_open(game: Game) -> None:
    """PlayClosed if the game is no longer played (stopped, or a hook refuses)."""
    from .signals import move_refused

    for _, reason in move_refused.send(sender=Game, game=game):
        if reason:
            raise PlayClosed(reason)
    if game.status != Game.Status.ACTIVE and not (game.state or {}).get("game_over", True):
        raise PlayClosed(N_("this game has been stopped: no more moves are accepted"))


def _apply(game: Game, eng: engine.Game, seat: int, action: str) -> Event:
    """Apply one move for `seat` to the replayed engine game; the one path for all seats."""
    try:
        eng.apply_action(action)
    except ValueError as exc:  # engine.IllegalMove is a ValueError naming the rule
        if seat != HUMAN_SEAT:
            raise
        raise IllegalAction(str(exc)) from exc
    game.actions = [*game.actions, action]
    game.seq = len(game.actions)
    return Event(game.seq, seat, action, eng.observation(HUMAN_SEAT))


def _store(game: Game, eng: engine.Game, state: dict[str, Any] | None = None) -> None:
    # Saved in the same row write as seq and actions, so it always matches them.
    game.state = state if state is not None else eng.observation(HUMAN_SEAT)
    if eng.is_terminal() and game.status != Game.Status.FINISHED:
        game.status = Game.Status.FINISHED
        game.final_score = eng.score_for(HUMAN_SEAT)
        from engine import records

        game.record = records.write_text(eng, record_tags(game))


def _after_commit(game: Game, eng: engine.Game, events: list[Event]) -> None:
    # Only a committed state may serve as a starting point for the next move.
    key = str(game.public_id)
    transaction.on_commit(lambda: _remember(key, eng))
    if events and eng.is_terminal():
        # This transaction made the last move: let tournaments finish the entry atomically.
        from .signals import game_finished

        game_finished.send(sender=Game, game=game, engine_game=eng)
    group = game.group_name
    messages = [e.as_message() for e in events]
    if messages:
        transaction.on_commit(lambda: send_events(group, messages))
    if not eng.is_terminal() and eng.to_move != HUMAN_SEAT:
        from .tasks import play_bots as play_bots_task

        pk, seq = game.pk, game.seq
        queue = settings.GAME_BOTS_QUEUE
        transaction.on_commit(lambda: play_bots_task.apply_async((pk, seq), queue=queue))


def send_events(group: str, messages: list[dict[str, Any]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return

    async def send_all() -> None:
        # One layer message for the batch (a bot turn is up to a dozen cards); the
        # consumer still sends the browser one event per move, in order.
        await _send_with_retry(layer, group, {"type": "game.events", "payloads": messages})

    if _in_server_thread() or isinstance(layer, InMemoryChannelLayer):
        # Inside the ASGI server (a sync_to_async thread): hop onto the server's loop.
        async_to_sync(send_all)()
    else:
        # A Celery worker has no loop; async_to_sync would make a new one, and so a new
        # Redis connection, for every batch. A long-lived loop keeps the pool warm.
        future = asyncio.run_coroutine_threadsafe(send_all(), _publisher_loop())
        try:
            future.result(timeout=10)
        except TimeoutError:  # committed already: the table's watchdog catches up
            future.cancel()
            logger.warning("push to %s timed out", group)


# A push that fails (a Redis blip) is tried once more after this pause; the moves are
# committed by then, so a push never raises into the mover (whose next on_commit step,
# the bots' task, must still run). Lost twice: the table's watchdog asks for a snapshot.
PUSH_RETRY_DELAY = 0.2


async def _send_with_retry(layer, group: str, message: dict[str, Any]) -> bool:
    for attempt in (1, 2):
        try:
            await layer.group_send(group, message)
            return True
        except Exception:
            if attempt == 2:
                logger.warning("push to %s lost after a retry", group, exc_info=True)
                return False
            logger.warning("push to %s failed; retrying once", group)
            await asyncio.sleep(PUSH_RETRY_DELAY)
    return False


def _in_server_thread() -> bool:
    return getattr(SyncToAsync.threadlocal, "main_event_loop", None) is not None


_publisher: asyncio.AbstractEventLoop | None = None
_publisher_lock = threading.Lock()


def _publisher_loop() -> asyncio.AbstractEventLoop:
    global _publisher
    with _publisher_lock:
        if _publisher is None or _publisher.is_closed():
            _publisher = asyncio.new_event_loop()
            threading.Thread(
                target=_publisher.run_forever, name="game-event-publisher", daemon=True
            ).start()
        return _publisher


def _relaxed_commit() -> None:
    """Skip waiting for the WAL flush on PostgreSQL for this transaction (a move).

    A crash may lose the last few moves (the row stays consistent; the client then sees
    a stale seq and asks for a snapshot), and each move saves an fsync, milliseconds on
    every card. Only with GAME_SYNCHRONOUS_COMMIT=0; the default keeps full durability.
    """
    if connection.vendor == "postgresql" and not settings.GAME_SYNCHRONOUS_COMMIT:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
