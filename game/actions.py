"""The single mutation path for games (zulip `zerver/actions/` style).

Views, consumers and Celery tasks never save a Game or a Seat themselves: they call
these functions. A move, a person's or a bot's, goes through `_apply`; every change
happens with the game row locked (`select_for_update`) and its messages are sent after
commit.

A game has four seats (game/models.py Seat). The seat a person plays comes from the
database (their user's Seat row), never from a message. Every move produces one
event per receiver: each person's seat gets its own `observation(seat)`, spectators a
public view without any hand (`public_view`). The sequence number is the game's,
shared by all.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F, Prefetch
from django.utils import timezone
from django.utils.translation import gettext_noop as N_

import engine
from engine.bots import bot_seed, get_bot

from .levels import level_name
from .models import (
    CLOCK_CHOICES,
    RETURN_ON_ARRIVAL,
    SEATS,
    BotReason,
    Game,
    Seat,
    seat_group,
    watch_group,
)

logger = logging.getLogger(__name__)

HUMAN_SEAT = 0  # South: the solo player's seat, and the host's at a table
TIMEOUTS_BEFORE_TAKEOVER = 3  # clock run out this many times in a row: the bot keeps it
CHAT_MAX_LENGTH = 200


class ActionError(Exception):
    """A refused request. `code` is what the client receives in its error message.
    Messages are English and marked for translation (the consumer and views translate)."""

    code = "error"
    translatable = True


class GameNotFound(ActionError):
    code = "not_found"


class StaleSeq(ActionError):
    code = "stale"
    translatable = False


class NotYourTurn(ActionError):
    code = "not_your_turn"
    translatable = False


class NotSeated(ActionError):
    """The user has no seat at this table (a spectator, or a seat someone else holds)."""

    code = "not_seated"


class BotPlaying(ActionError):
    """The bot plays this person's seat until they take it back."""

    code = "bot_playing"


class NotStarted(ActionError):
    code = "not_started"


class SeatRefused(ActionError):
    """A lobby request refused: the seat is taken, the table has started, ..."""

    code = "refused"


class AlreadyPlaying(SeatRefused):
    """ "Take your seat back" from a seat the person already plays (a second tab's tap,
    a form sent twice): nothing to do."""


class IllegalAction(ActionError):
    """The engine refused the move; the message is the engine's, naming the rule."""

    code = "illegal"
    translatable = False


class PlayClosed(ActionError):
    """No more moves: the game is over or stopped, e.g. its tournament's play window has
    ended. The message is English and marked for translation (the consumer translates)."""

    code = "closed"
    translatable = True


@dataclass(frozen=True)
class Event:
    """One move, as each receiver may see it: `states` maps a seat (0-3) to that seat's
    observation and "w" to the public view for spectators."""

    seq: int
    actor: int
    action: str
    states: dict[Any, dict[str, Any]] = field(default_factory=dict)
    deadline: float | None = None

    @property
    def state(self) -> dict[str, Any] | None:
        """South's view (the solo player's)."""
        return self.states.get(HUMAN_SEAT)

    def as_message(self, receiver=HUMAN_SEAT) -> dict[str, Any]:
        message = {
            "type": "event",
            "seq": self.seq,
            "actor": self.actor,
            "action": self.action,
            "state": self.states[receiver],
        }
        if self.deadline is not None:
            message["deadline"] = self.deadline
        return message


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


def public_view(obs: dict[str, Any]) -> dict[str, Any]:
    """A spectator's view: what lies on the table for everybody (cards played, trump,
    announcements, scores, hand sizes), never a hand, nothing seat-specific."""
    view = dict(obs)
    view["seat"] = None
    view["hand"] = None
    view["legal"] = []
    view.pop("score_for_seat", None)
    return view


def observation(game: Game, seat: int | None = HUMAN_SEAT) -> dict[str, Any]:
    """`seat`'s view of the game as stored (None: a spectator's). Before a table starts
    nobody sees a hand: people may still change seats."""
    if seat == HUMAN_SEAT and game.state is not None and game.status != Game.Status.WAITING:
        return game.state
    if seat is None or game.status == Game.Status.WAITING:
        base = game.state if game.state is not None else replay(game).observation(0)
        view = public_view(base)
        if seat is not None:
            view["seat"] = seat
        return view
    return replay(game).observation(seat)


def seats_prefetch(path: str = "seats") -> Prefetch:
    """Prefetch a game's four seats with their people, in order (`path`: to the game's
    seats from the rows queried, e.g. "game__seats"): a list of games then asks no
    query per game. Read them with prefetched_seats."""
    return Prefetch(path, queryset=Seat.objects.select_related("user").order_by("index"))


def prefetched_seats(game: Game) -> list[Seat]:
    """The four seats as prefetched by seats_prefetch (seats_of for a game made without
    its seat rows)."""
    rows = list(game.seats.all())
    return rows if len(rows) == 4 else seats_of(game)


def seats_of(game: Game, *, names: bool = True) -> list[Seat]:
    """The four seats, in order, with their people (`names`: their user rows too; a
    move needs only the ids, and saves the join on its hot path)."""
    query = Seat.objects.filter(game_id=game.pk).order_by("index")
    rows = list(query.select_related("user") if names else query)
    if len(rows) == 4:
        return rows
    # A row made without seats (bulk creation, an old path): what the migration did
    # for every earlier game, a solo game of its owner in South's seat.
    Seat.objects.bulk_create(
        [
            Seat(
                game=game,
                index=i,
                user_id=game.owner_id if i == HUMAN_SEAT else None,
                bot_level="" if i == HUMAN_SEAT else game.bot_level,
            )
            for i in SEATS
        ],
        ignore_conflicts=True,
    )
    rows = list(Seat.objects.filter(game=game).select_related("user").order_by("index"))
    if len(rows) != 4:
        raise GameNotFound(N_("this game has no seats"))
    return rows


def _holds(seats: list[Seat], user) -> Seat | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return next((s for s in seats if s.user_id == user.pk), None)


def watchable(game: Game) -> bool:
    """Whether spectators may follow the game at all (open and link tables, never a
    tournament game whose seed is still sealed)."""
    if game.visibility == Game.Visibility.PRIVATE:
        return False
    from .signals import is_seed_sealed

    return not is_seed_sealed(game)


@dataclass
class Viewer:
    """Who looks at a game: a seated person (`seat`) or a spectator (`seat` None)."""

    game: Game
    seats: list[Seat]
    seat: int | None
    user: Any = None

    @property
    def is_host(self) -> bool:
        return self.user is not None and self.game.owner_id == getattr(self.user, "pk", None)


def get_viewer(public_id, user, code: str | None = None) -> Viewer:
    """The game as `user` may see it: their seat's, or a spectator's if the table may
    be watched (an open table; a link table with its code). GameNotFound for anyone
    else (no existence leak)."""
    if not _uuid_ok(public_id):
        raise GameNotFound(N_("no such game"))
    game = Game.objects.filter(public_id=public_id).first()
    if game is None:
        raise GameNotFound(N_("no such game"))
    seats = seats_of(game)
    mine = _holds(seats, user)
    if mine is not None:
        return Viewer(game, seats, mine.index, user)
    if game.visibility == Game.Visibility.LINK and not (
        code and secrets.compare_digest(str(code), game.join_code)
    ):
        raise GameNotFound(N_("no such game"))
    if game.visibility == Game.Visibility.PRIVATE:
        raise GameNotFound(N_("no such game"))
    return Viewer(game, seats, None, user)


def get_owned_game(public_id, user) -> Game:
    """The game if `user` holds a seat at it; GameNotFound for anyone else."""
    viewer = get_viewer(public_id, user)
    if viewer.seat is None:
        raise GameNotFound(N_("no such game"))
    return viewer.game


def table_info(game: Game, seats: list[Seat]) -> dict[str, Any]:
    """The public facts of a table: who sits where, its status and clock."""
    players = []
    for s in seats:
        players.append(
            {
                "name": s.user.get_username() if s.user_id else "",
                "person": s.user_id is not None,
                "bot": (s.bot_level or game.bot_level) if s.played_by_bot else None,
                "bot_control": s.bot_control,
                "bot_reason": s.bot_reason,
                "left": s.left,
                "free": s.is_free,
                # The person's last socket closed and the bot has not taken over (yet):
                # the others see who they wait for.
                "away": is_away(s),
            }
        )
    return {
        "status": game.status,
        "players": players,
        "clock": game.clock,
        "deadline": _epoch_ms(game.deadline),
        "chat": game.chat_enabled,
        "rematch": str(game.rematch.public_id) if game.rematch_id else None,
    }


def snapshot_message(game: Game, seat: int | None = HUMAN_SEAT, seats=None) -> dict[str, Any]:
    seats = seats if seats is not None else seats_of(game)
    table = table_info(game, seats)
    table["seat"] = seat
    state = observation(game, seat)
    message = {"type": "snapshot", "seq": game.seq, "state": state, "table": table}
    # The chat so far, to whoever its lines were sent: the people at the table, and
    # spectators where they may watch (never at a tournament's table).
    if game.chat_enabled and (seat is not None or watchable(game)):
        message["chat"] = chat_history(game)
    return message


def snapshot(public_id, user, code: str | None = None) -> dict[str, Any]:
    viewer = get_viewer(public_id, user, code)
    return snapshot_message(viewer.game, viewer.seat, viewer.seats)


def is_away(seat: Seat) -> bool:
    """The person of `seat` had the table open and no longer has (counted sockets only:
    a table of several people or a tournament's), and still plays the seat themselves."""
    return (
        seat.user_id is not None
        and not seat.bot_control
        and seat.connections == 0
        and seat.disconnected_at is not None
    )


def counts_sockets(game: Game, seats: list[Seat]) -> bool:
    """Whether the people's open sockets are counted: at a table of several people (the
    away-takeover) and at a tournament's table (arrive_by: the absence takeover), never
    in a solo game (nobody waits on its player). Fixed for a game's life, so every close
    is counted as its open was."""
    return game.arrive_by is not None or sum(1 for s in seats if s.user_id is not None) > 1


def still_holds(public_id, user, index: int) -> bool:
    """Whether `user` holds seat `index` of the game now (a socket that has just joined
    the seat's group checks that no release fell between its snapshot and the join)."""
    return Seat.objects.filter(
        game__public_id=public_id, index=index, user_id=getattr(user, "pk", None)
    ).exists()


def seq_now(public_id) -> int | None:
    """The game's move count now (a socket that has just joined its group checks that no
    move fell between its snapshot and the join)."""
    return Game.objects.filter(public_id=public_id).values_list("seq", flat=True).first()


def connect(public_id, user, code: str | None = None) -> dict[str, Any]:
    """A socket opens: the viewer's snapshot; a seated person's socket is counted (the
    away-takeover starts when the last one closes). A person whose seat the bot plays
    because they had not arrived (absent at the set's start, or a replacement) gets it
    back now: arriving is taking it. A seat taken otherwise (away, clock, left) stays
    with the bot until "take your seat back"."""
    viewer = get_viewer(public_id, user, code)
    if (
        viewer.seat is not None
        and viewer.game.status == Game.Status.ACTIVE
        and counts_sockets(viewer.game, viewer.seats)
    ):
        pk = viewer.seats[viewer.seat].pk
        was_away = is_away(viewer.seats[viewer.seat])
        # Counted first, then the seat read again: an absence check that locked the seat
        # before this update has committed its takeover by now (we see it and undo it);
        # one that locks it after sees the socket (and takes nothing). Counted only while
        # the seat is still theirs: handed to someone else since it was read, the count
        # is the newcomer's (and this socket is refused once it has joined the group).
        held = Seat.objects.filter(pk=pk, user_id=user.pk)
        counted = held.update(
            connections=F("connections") + 1, disconnected_at=None, seen_at=timezone.now()
        )
        if counted:
            try:
                row = held.values_list("bot_control", "bot_reason").first()
                taken, reason = row if row is not None else (False, "")
                arrived = (
                    taken
                    and reason in RETURN_ON_ARRIVAL
                    and arrive(viewer.game.pk, viewer.seat, user)
                )
                if arrived or was_away:
                    viewer = get_viewer(public_id, user, code)
                if was_away and not arrived:  # back: the others stop waiting on "away"
                    _notify_table(viewer.game, viewer.seats)
                message = snapshot_message(viewer.game, viewer.seat, viewer.seats)
                if arrived:
                    message["arrived"] = reason  # the page: the bot played it until now
                return message
            except Exception:
                # Counted, but this socket will not open: not counted either.
                seat_disconnected(public_id, user)
                raise
    return snapshot_message(viewer.game, viewer.seat, viewer.seats)


def _locked_in_play(game_pk: int) -> tuple[Game, list[Seat]] | None:
    """Inside a transaction: the game locked for a move and its seats, or None when it
    is gone or no longer being played."""
    try:
        game = _locked_for_move().get(pk=game_pk)
    except Game.DoesNotExist:
        return None
    if game.status != Game.Status.ACTIVE:
        return None
    return game, seats_of(game)


def arrive(game_pk: int, index: int, user) -> bool:
    """The person of seat `index` has a socket open: a seat the bot played because they
    had not arrived goes back to them. Idempotent (False if there is nothing to give
    back: they play it already, or the bot has it for another reason)."""
    with transaction.atomic():
        locked = _locked_in_play(game_pk)
        if locked is None:
            return False
        game, seats = locked
        seat = seats[index]
        if (
            seat.user_id != getattr(user, "pk", None)
            or not seat.bot_control
            or seat.bot_reason not in RETURN_ON_ARRIVAL
            or not seat.connections
        ):
            return False
        _give_seat_back(game, seats, seat)
        return True


def record_event(game: Game) -> tuple[str, str | None]:
    """(Event, Site) of the game's record: a tournament's game (a club night, the day
    list, a table of a tournament of rounds) is named after its tournament and club;
    any other game is "Manillen"."""
    try:
        t = game.tournament_entry.tournament  # reverse one-to-one: no import of tournaments
    except ObjectDoesNotExist:
        try:
            t = game.tournament_table.table_set.round.tournament
        except ObjectDoesNotExist:
            return "Manillen", None
    return t.name, (t.club.name if t.club_id else None)


def tournament_table_of(game: Game) -> tuple[int, str, dt.datetime | None, bool] | None:
    """(tournament id, name, the set's deadline or None, whether it is the last set) if
    the game is a table of a tournament of rounds and tables (tournaments.Table, reverse
    one-to-one "tournament_table": no import of tournaments), else None. Such a table
    plays one set; the player's next table is the tournament's."""
    tset = "tournament_table__table_set"
    prefix = f"{tset}__round__tournament"
    row = (
        Game.objects.filter(pk=game.pk, tournament_table__isnull=False)
        .values_list(
            f"{prefix}_id",
            f"{prefix}__name",
            f"{tset}__deadline",
            f"{tset}__round__number",
            f"{tset}__number",
            f"{prefix}__structure__rounds",
            f"{prefix}__structure__sets",
        )  # fmt: skip
        .first()
    )
    if row is None:
        return None
    pk, name, deadline, round_number, set_number, rounds, sets = row
    return pk, name, deadline, (round_number, set_number) == (rounds, sets)


def record_tags(game: Game, seats: list[Seat] | None = None) -> dict[str, str]:
    """Who played and when, for the game's record (the engine adds seed, rules, result).
    A seat names its person, or `bot:<level>`; moves a bot made for a person are listed
    by move number in the BotMoves tag."""
    day = timezone.localdate(game.created) if game.created else timezone.localdate()
    seats = seats if seats is not None else seats_of(game)
    names = [s.user.get_username() if s.user_id else f"bot:{s.bot_level}" for s in seats]
    event, site = record_event(game)
    tags = {
        "Event": event,
        **({"Site": site} if site else {}),
        "Date": day.strftime("%Y.%m.%d"),
        "South": names[0],
        "West": names[1],
        "North": names[2],
        "East": names[3],
    }
    if game.bot_moves:
        tags["BotMoves"] = " ".join(str(n) for n in game.bot_moves)
    # A tournament game the bot played to its end at the close ("uitgespeeld door de bot").
    entry = getattr(game, "tournament_entry", None) if game.pk else None
    if entry is not None and entry.finish_mode == "bot":
        tags["FinishedBy"] = f"bot:{game.bot_level}"
    return tags


def record_text(game: Game) -> str:
    return game.record or fresh_record(game)


def fresh_record(game: Game) -> str:
    """The record written now from the moves and the seats as they are (a stored one
    names who sat and finished as it was when it was written)."""
    from engine import records

    return records.write_text(replay(game), record_tags(game))


def table_games_of(player, *, own: bool, limit: int = 25) -> list[dict[str, Any]]:
    """Finished games at tables of people (not solo, not tournament games) the player
    sat at, newest first, each with the four names and the player's own dagscore.
    Others see only the games of open tables."""
    visible = [Game.Visibility.OPEN, Game.Visibility.LINK] if own else [Game.Visibility.OPEN]
    seats = (
        Seat.objects.filter(
            user=player, game__status=Game.Status.FINISHED, game__visibility__in=visible
        )
        .select_related("game")
        .prefetch_related(seats_prefetch("game__seats"))
        .order_by("-game__created")[:limit]
    )
    rows = []
    for mine in seats:
        game = mine.game
        names = [
            s.user.get_username() if s.user_id else f"bot ({level_name(s.bot_level)})"
            for s in game.seats.all()
        ]
        rows.append(
            {
                "game": game,
                "date": game.created,
                "seat": mine.index,
                "names": names,
                "score": mine.final_score,
                "bot_moves": len(game.bot_moves),
            }
        )
    return rows


def open_tables(limit: int = 50) -> list[dict[str, Any]]:
    """The lobby: open tables waiting for people, newest first, with their free seats;
    not those left unchanged for GAME_LOBBY_MINUTES (a host who went away)."""
    fresh = timezone.now() - dt.timedelta(minutes=settings.GAME_LOBBY_MINUTES)
    games = list(
        Game.objects.filter(
            status=Game.Status.WAITING, visibility=Game.Visibility.OPEN, updated__gte=fresh
        )
        .select_related("owner")
        .prefetch_related("seats")
        .order_by("-created")[:limit]
    )
    rows = []
    for g in games:
        seats = sorted(g.seats.all(), key=lambda s: s.index)
        free = [s.index for s in seats if s.is_free]
        if not free:
            continue
        rows.append(
            {
                "id": str(g.public_id),
                "host": g.owner.get_username(),
                "rules": g.rules,
                "bot_level": g.bot_level,
                "clock": g.clock,
                "people": sum(1 for s in seats if s.user_id is not None),
                "free": free,
            }
        )
    return rows


# --- writing: games and tables -------------------------------------------------------------


def create_game(
    user,
    *,
    seed: str | None = None,
    rules: str | None = None,
    bot_level: str | None = None,
    fast_play: bool = False,
) -> Game:
    """A new solo game: `user` in South's seat, three bots. Bots start if they move first.

    `rules` is the engine's rules text: a preset and its game options
    ("flemish deals=12 tie=own"); the row keeps it in canonical form (RuleSet.spec).
    """
    rules = rules or settings.GAME_DEFAULT_RULES
    bot_level = bot_level or settings.GAME_DEFAULT_BOT
    return _new_game(
        user,
        [user, bot_level, bot_level, bot_level],
        seed=seed,
        rules=rules,
        bot_level=bot_level,
        fast_play=fast_play,
    )


def create_table(
    user,
    *,
    rules: str | None = None,
    bot_level: str | None = None,
    clock: int = 0,
    private: bool = False,
    chat: bool | None = None,
    seed: str | None = None,
) -> Game:
    """A table waiting for people: `user` (the host) in South's seat, three free seats.
    A private table is joined only by its link, which carries the join code."""
    rules = rules or settings.GAME_DEFAULT_RULES
    bot_level = bot_level or settings.GAME_DEFAULT_BOT
    if clock not in CLOCK_CHOICES:
        raise SeatRefused(N_("this clock is not offered: choose off, 15, 30 or 60 seconds"))
    if chat is None:
        # Partners may not speak in the french game.
        chat = engine.get_rules(rules).name != "french"
    return _new_game(
        user,
        [user, None, None, None],
        seed=seed,
        rules=rules,
        bot_level=bot_level,
        clock=clock,
        visibility=Game.Visibility.LINK if private else Game.Visibility.OPEN,
        join_code=secrets.token_urlsafe(9) if private else "",
        chat_enabled=chat,
        status=Game.Status.WAITING,
    )


def create_seated_game(
    host,
    holders,
    *,
    seed: str,
    rules: str,
    bot_level: str,
    clock: int = 0,
    arrive_within: float | None = None,
) -> Game:
    """A private game whose four seats are given (a tournament's table): per seat a
    user or a bot level. It starts at once; bots move first if it is their turn.

    `arrive_within` (seconds; a live start): each person who has no socket open at the
    table by then is played by the bot until they arrive (`absence_expired`)."""
    if clock not in CLOCK_CHOICES:
        raise SeatRefused(N_("this clock is not offered: choose off, 15, 30 or 60 seconds"))
    extra = {}
    if arrive_within is not None and arrive_within > 0:
        extra["arrive_by"] = timezone.now() + dt.timedelta(seconds=arrive_within)
    game = _new_game(
        host, holders, seed=seed, rules=rules, bot_level=bot_level, clock=clock, **extra
    )
    if game.arrive_by is not None:
        pk, delay = game.pk, arrive_within
        transaction.on_commit(lambda: _schedule("absent", (pk,), delay))
    return game


def _new_game(host, holders, *, seed, rules, bot_level, status=Game.Status.ACTIVE, **fields):
    """`holders`: per seat a user, a bot level (str) or None (free)."""
    seed = seed or secrets.token_hex(8)
    eng = engine.Game(seed, rules)  # validates rules before anything is stored
    get_bot(bot_level)  # unknown level: fail now, not in a worker later
    for h in holders:
        if isinstance(h, str):
            get_bot(h)
    with transaction.atomic():
        game = Game.objects.create(
            owner=host,
            seed=seed,
            rules=eng.rules.spec,
            bot_level=bot_level,
            status=status,
            **fields,
        )
        seats = Seat.objects.bulk_create(
            Seat(
                game=game,
                index=i,
                user=None if h is None or isinstance(h, str) else h,
                bot_level=h if isinstance(h, str) else "",
            )
            for i, h in enumerate(holders)
        )
        if any(s.pk is None for s in seats):
            seats = seats_of(game)
        _store(game, eng, seats)
        game.save()
        _after_commit(game, eng, seats, events=[])
    return game


def _lock(public_id) -> Game:
    if not _uuid_ok(public_id):
        raise GameNotFound(N_("no such game"))
    try:
        return _locked_for_move().get(public_id=public_id)
    except Game.DoesNotExist:
        raise GameNotFound(N_("no such game")) from None


def sit(public_id, user, seat: int, code: str | None = None) -> Game:
    """`user` takes the free `seat` of a table that has not started. Exactly one of two
    people clicking the same seat gets it (the row lock; the unique constraints behind
    it). Four people seated: the table starts by itself. Nobody logged in (`user` None)
    is told why the seat cannot be had first (started, taken), then to log in."""
    anonymous = not getattr(user, "is_authenticated", False)
    if seat not in SEATS:
        raise SeatRefused(N_("there is no such seat"))
    with transaction.atomic():
        game = _lock(public_id)
        if game.visibility == Game.Visibility.PRIVATE:
            raise GameNotFound(N_("no such game"))
        if game.visibility == Game.Visibility.LINK and not (
            code and secrets.compare_digest(str(code), game.join_code)
        ):
            raise GameNotFound(N_("no such game"))
        if game.status != Game.Status.WAITING:
            raise SeatRefused(N_("this table has started: its seats can no longer change"))
        seats = seats_of(game)
        if not anonymous and _holds(seats, user) is not None:
            raise SeatRefused(N_("you already have a seat at this table"))
        target = seats[seat]
        if not target.is_free:
            raise SeatRefused(N_("this seat is taken"))
        if anonymous:
            raise SeatRefused(N_("log in or play as a guest to take a seat"))
        try:
            with transaction.atomic():
                taken = Seat.objects.filter(pk=target.pk, user__isnull=True, bot_level="").update(
                    user=user
                )
        except IntegrityError:
            taken = 0
        if taken != 1:
            raise SeatRefused(N_("this seat is taken"))
        target.user = user
        if all(s.user_id is not None for s in seats):
            _start(game, seats)
        else:
            game.save(update_fields=["updated"])
            _notify_table(game, seats)
    return game


def add_bot(public_id, user, seat: int) -> Game:
    """The host fills a free seat with a bot of the table's level."""
    if seat not in SEATS:
        raise SeatRefused(N_("there is no such seat"))
    with transaction.atomic():
        game = _lock(public_id)
        seats = _host_seats(game, user)
        if game.status != Game.Status.WAITING:
            raise SeatRefused(N_("this table has started: its seats can no longer change"))
        target = seats[seat]
        if not target.is_free:
            raise SeatRefused(N_("this seat is taken"))
        target.bot_level = game.bot_level
        target.save(update_fields=["bot_level"])
        game.save(update_fields=["updated"])
        _notify_table(game, seats)
    return game


def free_seat(public_id, user, seat: int) -> Game:
    """Before the start: the host removes a bot, or a person gets up from their seat."""
    if seat not in SEATS:
        raise SeatRefused(N_("there is no such seat"))
    with transaction.atomic():
        game = _lock(public_id)
        seats = seats_of(game)
        mine = _holds(seats, user)
        if mine is None:
            raise NotSeated(N_("you have no seat at this table"))
        if game.status != Game.Status.WAITING:
            raise SeatRefused(N_("this table has started: its seats can no longer change"))
        target = seats[seat]
        own = target.user_id == user.pk
        if not own and not (game.owner_id == user.pk and target.user_id is None):
            raise SeatRefused(N_("only the host removes a bot, and only you leave your seat"))
        if own and game.owner_id == user.pk:
            raise SeatRefused(N_("the host keeps South's seat"))
        if target.is_free:
            raise SeatRefused(N_("this seat is already free"))
        target.user, target.bot_level = None, ""
        target.save(update_fields=["user", "bot_level"])
        game.save(update_fields=["updated"])
        _notify_table(game, seats)
        if own:
            _release_seat(game, target.index, user)
    return game


def _release_seat(game: Game, index: int, user) -> None:
    """After commit: `user` no longer holds seat `index`, so their sockets in that seat's
    group must leave it (game.consumers.GameConsumer.game_seat_released): a socket joins
    its seat's group once, at connect, and would otherwise go on receiving the seat's
    cards for its next holder. They reconnect as whoever they are now."""
    message = {"type": "game.seat_released", "user": user.pk, "seat": index}
    _tell_sockets([seat_group(game.public_id, index)], message)


def start(public_id, user) -> Game:
    """The host starts a table whose four seats are filled (people or bots)."""
    with transaction.atomic():
        game = _lock(public_id)
        seats = _host_seats(game, user)
        if game.status == Game.Status.ACTIVE:
            # Started meanwhile (the fourth person sat down, a double tap): what the
            # host asked for is done, so the table is where they go.
            return game
        if game.status != Game.Status.WAITING:
            raise SeatRefused(N_("this table has already started"))
        if any(s.is_free for s in seats):
            raise SeatRefused(N_("fill every seat (people or bots) before starting"))
        _start(game, seats)
    return game


def _host_seats(game: Game, user) -> list[Seat]:
    seats = seats_of(game)
    if _holds(seats, user) is None:
        raise NotSeated(N_("you have no seat at this table"))
    if game.owner_id != user.pk:
        raise SeatRefused(N_("only the host can do this"))
    return seats


def _start(game: Game, seats: list[Seat]) -> None:
    game.status = Game.Status.ACTIVE
    eng = replay(game)
    _store(game, eng, seats)
    game.save()
    _notify_table(game, seats)
    # Everyone gets their seat's first view (their hand) without asking for it.
    table = table_info(game, seats)
    sends = [
        (
            watch_group(game.public_id) if r == "w" else seat_group(game.public_id, r),
            [
                {
                    "type": "snapshot",
                    "seq": game.seq,
                    "state": public_view(eng.observation(0)) if r == "w" else eng.observation(r),
                    "table": {**table, "seat": None if r == "w" else r},
                }
            ],
        )
        for r in _receivers(game, seats)
    ]
    transaction.on_commit(lambda: send_to_groups(sends))
    _after_commit(game, eng, seats, events=[])


def _close_waiting(game: Game, seats: list[Seat]) -> None:
    """A table that has not started is closed by its host: it goes, and whoever waits
    at it is told (their waiting room reloads and finds it gone)."""
    message = {"type": "table", "seq": game.seq, "table": {"status": "closed"}}
    sends = [(g, [message]) for g in _table_groups(game, seats)]
    transaction.on_commit(lambda sends=sends: send_to_groups(sends))
    game.delete()


def leave(public_id, user) -> Game | None:
    """A person leaves a table. Before the start the seat becomes free, and the host's
    leaving closes the table (None: it is gone); during play the bot keeps the seat and
    the others are told. When the last person leaves a casual table, its game ends
    where it stands (`stop_game`)."""
    with transaction.atomic():
        game = _lock(public_id)
        seats = seats_of(game)
        mine = _holds(seats, user)
        if mine is None:
            raise NotSeated(N_("you have no seat at this table"))
        if game.status == Game.Status.WAITING:
            if game.owner_id == user.pk:
                _close_waiting(game, seats)
                return None
            mine.user = None
            mine.save(update_fields=["user"])
            game.save(update_fields=["updated"])
            _notify_table(game, seats)
            _release_seat(game, mine.index, user)
            return game
        if game.status != Game.Status.ACTIVE:
            raise SeatRefused(N_("this game is over"))
        if mine.left:
            raise SeatRefused(N_("you have already left this game"))
        mine.left = True
        # Even from a seat the bot held already (absent): a socket no longer gives it back.
        mine.bot_reason = BotReason.LEFT
        mine.bot_control = True
        mine.save(update_fields=["left", "bot_control", "bot_reason"])
        if _abandoned(game, seats):
            # Nobody is left to play for: the bots do not play the match out alone.
            return stop_game(game.pk, reason="abandoned")
        _seats_changed(game, seats)
    return game


def _abandoned(game: Game, seats: list[Seat]) -> bool:
    """Every person at this casual table has left it. A tournament's game is played to
    its end all the same (its result counts), so it never is."""
    people = [s for s in seats if s.user_id is not None]
    return bool(people) and all(s.left for s in people) and not _is_tournament_game(game)


def _is_tournament_game(game: Game) -> bool:
    """A tournament's game: a table of a tournament of tables, or a solo entry's."""
    return tournament_table_of(game) is not None or _is_entry_game(game)


def leave_all_tables(user) -> None:
    """The person leaves every table with other people (their account is being deleted):
    a table they host that has not started closes, and those waiting at it are told (their
    page reloads); at one in play the bot takes their seat, as with `leave`. Solo games
    stay as they are."""
    hosted = Game.objects.select_for_update().filter(owner=user, status=Game.Status.WAITING)
    for game in hosted.exclude(visibility=Game.Visibility.PRIVATE):
        _close_waiting(game, seats_of(game))
    seated = (
        Seat.objects.filter(user=user, game__status__in=(Game.Status.WAITING, Game.Status.ACTIVE))
        .exclude(game__visibility=Game.Visibility.PRIVATE)
        .exclude(game__status=Game.Status.ACTIVE, left=True)
    )
    for public_id in seated.values_list("game__public_id", flat=True):
        leave(public_id, user)


def close_sockets_of(user) -> None:
    """After commit: the person's open sockets at unfinished games are closed (their
    account was deleted, so nothing more may come from them); a socket opened after that
    is whoever its session says, which is nobody."""
    groups = [
        seat_group(public_id, index)
        for public_id, index in Seat.objects.filter(user=user)
        .exclude(game__status=Game.Status.FINISHED)
        .values_list("game__public_id", "index")
    ]
    _tell_sockets(groups, {"type": "game.signed_out", "user": user.pk})


def _tell_sockets(groups: list[str], message: dict[str, Any]) -> None:
    """After commit: `message`, a consumer handler's own (not a table event), to every
    socket of these groups (game.consumers.GameConsumer: signed out, seat released)."""
    layer = get_channel_layer()
    if layer is None or not groups:
        return

    async def send_all() -> None:
        for group in groups:
            await _send_with_retry(layer, group, message)

    transaction.on_commit(lambda: _run_send(send_all, [(g, []) for g in groups]))


def take_back(public_id, user) -> Game:
    """ "Neem je plaats terug": the person plays their seat again instead of the bot."""
    with transaction.atomic():
        game = _lock(public_id)
        seats = seats_of(game)
        mine = _holds(seats, user)
        if mine is None:
            raise NotSeated(N_("you have no seat at this table"))
        if game.status != Game.Status.ACTIVE:
            raise SeatRefused(N_("this game is not being played"))
        if not mine.bot_control:
            raise AlreadyPlaying(N_("you are playing your seat already"))
        _give_seat_back(game, seats, mine)
    return game


def _give_seat_back(game: Game, seats: list[Seat], seat: Seat) -> None:
    """Inside the locked transaction: the person plays `seat` again instead of the bot
    (arriving, or "take your seat back")."""
    seat.bot_control = seat.left = False
    seat.bot_reason = ""
    seat.timeouts = 0
    seat.save(update_fields=["bot_control", "left", "bot_reason", "timeouts"])
    _seats_changed(game, seats)


def _seats_changed(game: Game, seats: list[Seat]) -> None:
    """Inside the locked transaction, after a seat changed hands between a person and
    the bot: the clock, the bot's turn and everyone's view of the table follow."""
    eng = replay(game)
    _store(game, eng, seats)
    game.save()
    _notify_table(game, seats)
    _after_commit(game, eng, seats, events=[])


def hand_over_seat(game_pk: int, index: int, old_user, new_user) -> Game:
    """A person's seat goes to another person (a tournament's organizer replaces a player
    who left). The bot plays the seat until the newcomer takes it ("neem je plaats
    terug"), so no move waits on someone who has not arrived yet."""
    with transaction.atomic():
        game = _locked_for_move().get(pk=game_pk)
        seats = seats_of(game)
        seat = seats[index]
        if seat.user_id != getattr(old_user, "pk", None):
            raise SeatRefused(N_("this seat is not held by that person"))
        if _holds(seats, new_user) is not None:
            raise SeatRefused(N_("this person already has a seat at the table"))
        # Registered first: the old person's sockets leave the seat's group before any
        # move that follows this commit is sent to it.
        _release_seat(game, index, old_user)
        seat.user = new_user
        seat.left = False
        seat.timeouts = 0
        seat.bot_control = game.status == Game.Status.ACTIVE
        # The newcomer has not arrived: their first socket gives them the seat.
        seat.bot_reason = BotReason.REPLACED if seat.bot_control else ""
        # The sockets counted were the old person's.
        seat.connections, seat.disconnected_at = 0, None
        seat.save(
            update_fields=[
                "user", "left", "timeouts", "bot_control", "bot_reason", "connections",
                "disconnected_at",
            ]
        )  # fmt: skip
        if game.status == Game.Status.ACTIVE:
            _seats_changed(game, seats)
        else:
            _notify_table(game, seats)
    return game


def rematch(public_id, user) -> Game:
    """ "Nog een spel": the same four in the same seats, the first dealer one seat
    further; made once, whoever of them asks first (the others are told). Whoever left
    the game is not seated again (the bot takes the seat); whoever does not open the new
    game within GAME_REMATCH_ARRIVE seconds (closed the page, went home) is played by
    the bot until they arrive, so the others are never left waiting."""
    with transaction.atomic():
        game = _lock(public_id)
        seats = seats_of(game)
        if _holds(seats, user) is None:
            raise NotSeated(N_("you have no seat at this table"))
        if game.status != Game.Status.FINISHED:
            raise SeatRefused(N_("the game is not over yet"))
        if game.rematch_id:
            return game.rematch
        if _is_tournament_game(game):
            # The tournament draws the next table (or has none): no game of its own.
            raise SeatRefused(
                N_(
                    "a tournament's game has no rematch: your next table and the standings"
                    " are on the tournament's page"
                )
            )
        first = engine.deal_for(game.seed, 1, game.rules).dealer
        seed = _seed_with_first_dealer((first + 1) % 4, game.rules)
        # Whoever asks is seated again, even after leaving this game: they are here.
        holders = [
            s.user
            if s.user_id and (not s.left or s.user_id == user.pk)
            else (s.bot_level or game.bot_level)
            for s in seats
        ]
        people = sum(1 for h in holders if not isinstance(h, str))
        grace = settings.GAME_REMATCH_ARRIVE
        extra = {}
        if people > 1 and grace > 0:
            extra["arrive_by"] = timezone.now() + dt.timedelta(seconds=grace)
        new = _new_game(
            game.owner,
            holders,
            seed=seed,
            rules=game.rules,
            bot_level=game.bot_level,
            clock=game.clock,
            visibility=game.visibility,
            join_code=game.join_code,
            chat_enabled=game.chat_enabled,
            fast_play=game.fast_play,
            **extra,
        )
        if new.arrive_by is not None:
            pk = new.pk
            transaction.on_commit(lambda: _schedule("absent", (pk,), grace))
        game.rematch = new
        game.save(update_fields=["rematch", "updated"])
        _notify_table(game, seats)
    return new


def _is_entry_game(game: Game) -> bool:
    """A solo tournament entry's game (reverse one-to-one "tournament_entry")."""
    return Game.objects.filter(pk=game.pk, tournament_entry__isnull=False).exists()


def _seed_with_first_dealer(dealer: int, rules: str) -> str:
    """A fresh random seed whose first deal is dealt by `dealer` (the engine draws the
    dealer from the seed; about four tries)."""
    while True:
        seed = secrets.token_hex(8)
        if engine.deal_for(seed, 1, rules).dealer == dealer:
            return seed


def set_chat(public_id, user, enabled: bool) -> Game:
    """The host switches a casual table's chat on or off. A tournament's table has
    none: partners could talk about their cards."""
    with transaction.atomic():
        game = _lock(public_id)
        seats = _host_seats(game, user)
        if _is_tournament_game(game):
            raise SeatRefused(N_("a tournament's table has no chat"))
        game.chat_enabled = bool(enabled)
        game.save(update_fields=["chat_enabled", "updated"])
        _notify_table(game, seats)
    return game


def chat(public_id, user, text: str) -> dict[str, Any]:
    """A line of table chat from a seated person, sent to the people at the table (and
    to spectators, except in a tournament). Returns the message sent."""
    if not isinstance(text, str):
        raise SeatRefused(N_("a chat message is text"))
    text = " ".join("".join(ch for ch in text if ch.isprintable()).split())
    if not text:
        raise SeatRefused(N_("an empty message"))
    if len(text) > CHAT_MAX_LENGTH:
        raise SeatRefused(N_("a chat message has at most 200 characters"))
    game = Game.objects.filter(public_id=public_id).first() if _uuid_ok(public_id) else None
    if game is None:
        raise GameNotFound(N_("no such game"))
    seats = seats_of(game)
    mine = _holds(seats, user)
    if mine is None:
        raise NotSeated(N_("only the people at the table can chat"))
    if not game.chat_enabled or _is_tournament_game(game):
        raise SeatRefused(N_("the chat is off at this table"))
    message = {"type": "chat", "seat": mine.index, "name": user.get_username(), "text": text}
    _remember_chat(game, message)
    groups = [seat_group(game.public_id, s.index) for s in seats if s.user_id]
    if watchable(game):
        groups.append(watch_group(game.public_id))
    send_to_groups([(g, [message]) for g in groups])  # not to spectators of a tournament
    return message


# The table chat's last lines, kept in the cache (Redis on the production stack) for
# GAME_CHAT_KEEP_MINUTES so that a page opened again shows them; then they are gone.
CHAT_HISTORY = 50


def _chat_key(game: Game) -> str:
    return f"chat:{game.public_id}"


def _remember_chat(game: Game, message: dict[str, Any]) -> None:
    """Number the line (one counter per table, atomic in the cache) and keep it."""
    from django.core.cache import cache

    key, ttl = _chat_key(game), settings.GAME_CHAT_KEEP_MINUTES * 60
    cache.add(key, 0, ttl)
    try:
        number = cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, ttl)
        number = 1
    cache.touch(key, ttl)
    message["id"] = number
    cache.set(f"{key}:{number}", message, ttl)


def chat_history(game: Game) -> list[dict[str, Any]]:
    """The table's last chat lines still kept, oldest first."""
    from django.core.cache import cache

    key = _chat_key(game)
    try:
        last = cache.get(key)
        if not last:
            return []
        keys = [f"{key}:{n}" for n in range(max(1, last - CHAT_HISTORY + 1), last + 1)]
        found = cache.get_many(keys)
    except Exception:  # the cache (Redis) away: the table opens without the old lines
        logger.warning("chat history of %s not read", game.public_id, exc_info=True)
        return []
    return [found[k] for k in keys if k in found]


def _uuid_ok(value) -> bool:
    import uuid

    try:
        uuid.UUID(str(value))
    except (ValueError, TypeError):
        return False
    return True


# --- writing: moves --------------------------------------------------------------------------


def apply_action(public_id, user, action: str, expected_seq: int) -> Game:
    """The person holding the seat to move plays `action` (a card like "TS" or
    "trump:H") at version `expected_seq`. The seat is the user's Seat row."""
    if not isinstance(action, str):
        raise IllegalAction("an action is a string such as 'TS' or 'trump:H'")
    with transaction.atomic():
        _relaxed_commit()
        game = _lock(public_id)
        if user is None or not user.is_authenticated:
            raise GameNotFound(N_("no such game"))
        seats = seats_of(game, names=False)
        mine = _holds(seats, user)
        if mine is None:
            if watchable(game):
                raise NotSeated(N_("you are watching: only the people at the table play"))
            raise GameNotFound(N_("no such game"))
        if game.status == Game.Status.WAITING:
            raise NotStarted(N_("the table has not started yet"))
        _check_open(game)
        if expected_seq != game.seq:
            raise StaleSeq(
                f"the game is at move {game.seq}, not {expected_seq}: ask for a snapshot"
            )
        eng = replay(game)
        if eng.is_terminal():
            raise NotYourTurn("the game is over")
        if eng.to_move != mine.index:
            raise NotYourTurn(f"it is seat {eng.to_move}'s turn, not yours")
        if mine.bot_control:
            raise BotPlaying(N_("the bot plays your seat: take your seat back first"))
        event = _apply(game, eng, seats, mine.index, action)
        if mine.timeouts:
            mine.timeouts = 0
            mine.save(update_fields=["timeouts"])
        _store(game, eng, seats, event.states.get(HUMAN_SEAT))
        game.save()
        _after_commit(game, eng, seats, events=[event])
    return game


def play_bots(game_pk: int, expected_seq: int) -> int:
    """Play every consecutive move of seats a bot plays, from version `expected_seq`.

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
        return _bot_moves(game, seats_of(game, names=False), all_seats=False)


def clock_expired(game_pk: int, expected_seq: int) -> int:
    """The clock of the move at `expected_seq` ran out: the seat's bot plays that move
    (from that seat's observation, as any bot), and the bots after it. Idempotent: does
    nothing unless (seq, deadline) still hold. After three timeouts in a row the bot
    keeps the seat until the person takes it back. Returns the moves played."""
    with transaction.atomic():
        _relaxed_commit()
        try:
            game = _locked_for_move().get(pk=game_pk)
        except Game.DoesNotExist:
            return 0
        if game.seq != expected_seq or game.status != Game.Status.ACTIVE:
            return 0
        if game.deadline is None or timezone.now() < game.deadline:
            return 0
        try:
            _check_open(game)
        except PlayClosed:
            return 0
        seats = seats_of(game)
        eng = replay(game)
        if eng.is_terminal():
            return 0
        seat = seats[eng.to_move]
        if seat.played_by_bot:
            return 0
        seat.timeouts += 1
        if seat.timeouts >= TIMEOUTS_BEFORE_TAKEOVER:
            seat.bot_control = True
            seat.bot_reason = BotReason.CLOCK
        seat.save(update_fields=["timeouts", "bot_control", "bot_reason"])
        if seat.bot_control:
            _notify_table(game, seats)
        return _bot_moves(game, seats, all_seats=False, first=seat.index, eng=eng)


def seat_seen(public_id, user) -> int:
    """A heartbeat of a person's open socket at a game in play (game.consumers): their
    counted sockets are alive (ops.sweeper.reset_stale_counts)."""
    return Seat.objects.filter(
        game__public_id=public_id,
        game__status=Game.Status.ACTIVE,
        user_id=getattr(user, "pk", None),
        connections__gt=0,
    ).update(seen_at=timezone.now())


def seat_disconnected(public_id, user) -> None:
    """A socket closed; the last one starts the minute after which the bot takes the
    seat (only at a table with other people: a solo game just waits, and writes
    nothing). Bookkeeping only: a database error here is logged, never raised into the
    socket's close (the next connect resets the count)."""
    try:
        with transaction.atomic():
            rows = list(
                Seat.objects.filter(game__public_id=public_id, game__status=Game.Status.ACTIVE)
                .filter(game__seats__user=user)
                .values_list("pk", "user_id", "index", "game_id", "connections", "game__arrive_by")
            )
            mine = next((r for r in rows if r[1] == user.pk), None)
            if mine is None:
                return
            pk, _, index, game_pk, connections, arrive_by = mine
            if arrive_by is None and sum(1 for r in rows if r[1] is not None) < 2:
                return  # not counted (counts_sockets)
            if connections > 1:
                Seat.objects.filter(pk=pk).update(connections=F("connections") - 1)
                return
            now = timezone.now()
            Seat.objects.filter(pk=pk).update(connections=0, disconnected_at=now)
            stamp, delay = now.isoformat(), settings.GAME_DISCONNECT_TAKEOVER
            transaction.on_commit(lambda: _schedule("disconnect", (game_pk, index, stamp), delay))
            game = Game.objects.get(pk=game_pk)
            _notify_table(game, seats_of(game))  # the others see the seat away
    except DatabaseError:
        logger.warning("socket count of %s in game %s not updated", user, public_id, exc_info=True)


def disconnect_expired(game_pk: int, index: int, stamp: str) -> int:
    """The person of seat `index` has been away since `stamp` for the takeover delay:
    the bot keeps the seat until they take it back. Idempotent: nothing if they came
    back (or left, or the game is over)."""
    with transaction.atomic():
        locked = _locked_in_play(game_pk)
        if locked is None:
            return 0
        game, seats = locked
        seat = seats[index]
        if (
            seat.user_id is None
            or seat.bot_control
            or seat.connections
            or seat.disconnected_at is None
            or seat.disconnected_at.isoformat() != stamp
        ):
            return 0
        seat.bot_control = True
        seat.bot_reason = BotReason.AWAY
        seat.save(update_fields=["bot_control", "bot_reason"])
        _seats_changed(game, seats)
        return 1


def hand_to_bot(game_pk: int, index: int) -> bool:
    """A tournament's organizer lets the bot play a person's seat (someone who is there
    but does not play on holds up the whole set): the bot plays until the person takes
    the seat back ("neem je plaats terug"), as after an absence. False if there is
    nothing to hand over (the game is over, the seat is the bot's already)."""
    with transaction.atomic():
        locked = _locked_in_play(game_pk)
        if locked is None:
            return False
        game, seats = locked
        seat = seats[index]
        if seat.user_id is None or seat.bot_control:
            return False
        seat.bot_control = True
        seat.bot_reason = BotReason.AWAY
        seat.save(update_fields=["bot_control", "bot_reason"])
        _seats_changed(game, seats)
        return True


def absence_expired(game_pk: int) -> int:
    """The grace of a tournament table's start is over: every person who has not opened
    the table (no socket counted, never one closed) is played by the bot until they
    arrive (`connect` gives the seat back). Idempotent, and safe against a connect at the
    same moment: the seats are locked, so a socket counted before is seen, and one
    counted after sees the takeover and undoes it. Returns the seats taken."""
    with transaction.atomic():
        try:
            game = _locked_for_move().get(pk=game_pk)
        except Game.DoesNotExist:
            return 0
        if (
            game.status != Game.Status.ACTIVE
            or game.arrive_by is None
            or timezone.now() < game.arrive_by
        ):
            return 0
        seats = list(
            Seat.objects.select_for_update(of=("self",)).filter(game=game)
            .select_related("user").order_by("index")
        )  # fmt: skip
        absent = [
            s
            for s in seats
            if s.user_id is not None
            and not s.bot_control
            and not s.connections
            # A socket that opened and closed again is the away-takeover's business.
            and s.disconnected_at is None
        ]
        if not absent:
            return 0
        for s in absent:
            s.bot_control = True
            s.bot_reason = BotReason.ABSENT
        Seat.objects.bulk_update(absent, ["bot_control", "bot_reason"])
        _seats_changed(game, seats)
        return len(absent)


def autoplay(game_pk: int) -> int:
    """Play the game to its end with the bot in every seat, people's seats included.

    For a tournament closing with the rule "finish by the bot" (so the `move_refused`
    hook is not asked: the window has ended by then). Each move goes through `_apply`
    with the bot seeded by (seed, deal number, seat), as always.
    Returns the number of moves played (0 if the game was already over).
    """
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_pk)
        except Game.DoesNotExist:
            return 0
        if game.status != Game.Status.ACTIVE:
            return 0
        return _bot_moves(game, seats_of(game), all_seats=True)


def _bot_moves(
    game: Game,
    seats: list[Seat],
    *,
    all_seats: bool,
    first: int | None = None,
    eng: engine.Game | None = None,
) -> int:
    """Inside the caller's locked transaction: let the bots move while the seat to move
    is played by a bot (`first`: one seat whose clock ran out, once; `all_seats`: to the
    end), store once and send the events after commit."""
    eng = eng if eng is not None else replay(game)
    events = []
    # Nobody plays at the table (not arrived, away): one move at a time, at a person's
    # pace (_after_commit queues the next), so that whoever comes finds the game about
    # where a table of people would be, not a set the bots played in a second.
    alone = not all_seats and first is None and _alone_pace(seats) > 0
    while not eng.is_terminal():
        seat = seats[eng.to_move]
        forced = first is not None and seat.index == first and not events
        if not (all_seats or forced or seat.played_by_bot):
            break
        bot = get_bot(seat.bot_level or game.bot_level)
        seed = bot_seed(game.seed, eng.deal_number, seat.index)
        choice = bot.act(eng.observation(seat.index), seed)
        # A bot's illegal move is a bug in the bot: let it fail loudly (no except).
        events.append(_apply(game, eng, seats, seat.index, choice, by_bot=True))
        if alone:
            break
    if not events:
        return 0
    _store(game, eng, seats, events[-1].states.get(HUMAN_SEAT))
    game.save()
    _after_commit(game, eng, seats, events=events)
    return len(events)


def stop_game(game_pk: int, reason: str = "stopped") -> Game | None:
    """End an unfinished game where it stands: no more moves (a tournament closed with
    its unfinished games scored as played so far). The game is finished with every
    seat's score so far and its record as played; open tables are told."""
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_pk)
        except Game.DoesNotExist:
            return None
        if game.status == Game.Status.FINISHED:
            return game
        seats = seats_of(game)
        eng = replay(game)
        game.status = Game.Status.FINISHED
        _store(game, eng, seats)
        _set_scores(game, eng, seats)
        if not game.record:
            game.record = record_text(game)
        game.save()
        message = {"type": "closed", "seq": game.seq, "reason": reason}
        sends = [(g, [message]) for g in _table_groups(game, seats)]
        transaction.on_commit(lambda: send_to_groups(sends))
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
        seats = seats_of(game, names=False)
        game.status = Game.Status.ACTIVE
        game.final_score = None
        game.record = ""
        for s in seats:
            s.final_score = None
        Seat.objects.bulk_update(seats, ["final_score"])
        _store(game, eng, seats)
        game.save()
        _after_commit(game, eng, seats, events=[])
    return game


def set_fast_play(public_id, user, value: bool | None = None) -> Game:
    """Set (or toggle, with value None) "vlot doorspelen" for a seated person's game."""
    with transaction.atomic():
        game = _lock(public_id)
        if _holds(seats_of(game), user) is None:
            raise GameNotFound(N_("no such game"))
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
    if game.status == Game.Status.FINISHED and not (game.state or {}).get("game_over", True):
        raise PlayClosed(N_("this game has been stopped: no more moves are accepted"))


def _receivers(game: Game, seats: list[Seat]) -> list[Any]:
    """Who gets an event: every seat a person holds, and spectators ("w") if any may
    watch. A bot seat has nobody to tell."""
    out: list[Any] = [s.index for s in seats if s.user_id is not None]
    if game.visibility != Game.Visibility.PRIVATE:
        out.append("w")
    return out


def _apply(
    game: Game,
    eng: engine.Game,
    seats: list[Seat],
    seat: int,
    action: str,
    *,
    by_bot: bool = False,
) -> Event:
    """Apply one move for `seat` to the replayed engine game; the one path for all seats."""
    try:
        eng.apply_action(action)
    except ValueError as exc:  # engine.IllegalMove is a ValueError naming the rule
        if by_bot:
            raise
        raise IllegalAction(str(exc)) from exc
    game.actions = [*game.actions, action]
    game.seq = len(game.actions)
    if by_bot and seats[seat].user_id is not None:
        game.bot_moves = [*game.bot_moves, game.seq]
    states: dict[Any, dict[str, Any]] = {}
    for receiver in _receivers(game, seats):
        if receiver == "w":
            states["w"] = public_view(states.get(0) or eng.observation(0))
        else:
            states[receiver] = eng.observation(receiver)
    return Event(game.seq, seat, action, states)


def _store(game: Game, eng: engine.Game, seats: list[Seat], south=None) -> None:
    """`south`: South's observation of this position if the caller has it already."""
    # Saved in the same row write as seq and actions, so it always matches them.
    game.state = south if south is not None else eng.observation(HUMAN_SEAT)
    active = game.status == Game.Status.ACTIVE and not eng.is_terminal()
    game.awaiting_bot = active and seats[eng.to_move].played_by_bot
    game.deadline = None
    if active and game.clock and not game.awaiting_bot:
        now = timezone.now()
        game.deadline = now + dt.timedelta(seconds=game.clock)
        if game.arrive_by is not None and now < game.arrive_by:
            # A tournament's table being sat down at: its players have until arrive_by
            # to come (the bot then plays for whoever has not), and the clock of a move
            # starts from there, so that one who comes in time has their whole clock.
            game.deadline = game.arrive_by + dt.timedelta(seconds=game.clock)
    if eng.is_terminal() and game.status != Game.Status.FINISHED:
        game.status = Game.Status.FINISHED
        _set_scores(game, eng, seats)
        from engine import records

        game.record = records.write_text(eng, record_tags(game, seats))


def _set_scores(game: Game, eng: engine.Game, seats: list[Seat]) -> None:
    game.final_score = eng.score_for(HUMAN_SEAT)
    for s in seats:
        s.final_score = eng.score_for(s.index)
    Seat.objects.bulk_update(seats, ["final_score"])


def _epoch_ms(moment) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def _after_commit(game: Game, eng: engine.Game, seats: list[Seat], events: list[Event]) -> None:
    # Only a committed state may serve as a starting point for the next move.
    key = str(game.public_id)
    transaction.on_commit(lambda: _remember(key, eng))
    if events and eng.is_terminal():
        # This transaction made the last move: let tournaments finish the entry atomically.
        from .signals import game_finished

        game_finished.send(sender=Game, game=game, engine_game=eng)
    if events:
        deadline = _epoch_ms(game.deadline)
        sends = []
        for receiver in events[-1].states:
            group = (
                watch_group(game.public_id)
                if receiver == "w"
                else seat_group(game.public_id, receiver)
            )
            batch = []
            for i, e in enumerate(events):
                message = e.as_message(receiver)
                if deadline is not None and i == len(events) - 1:
                    message["deadline"] = deadline
                batch.append(message)
            sends.append((group, batch))
        transaction.on_commit(lambda: send_to_groups(sends))
    pk, seq = game.pk, game.seq
    pace = _alone_pace(seats)
    if game.awaiting_bot and pace:
        transaction.on_commit(lambda: _schedule("bots", (pk, seq), pace))
    elif game.awaiting_bot:
        from .tasks import play_bots as play_bots_task

        queue = settings.GAME_BOTS_QUEUE
        transaction.on_commit(lambda: play_bots_task.apply_async((pk, seq), queue=queue))
    elif game.deadline is not None:
        delay = max(0.0, (game.deadline - timezone.now()).total_seconds())
        transaction.on_commit(lambda: _schedule("clock", (pk, seq), delay))


def _alone_pace(seats: list[Seat]) -> float:
    """Seconds between two bot moves at a table of people where none plays (each seat
    the bot's: not arrived yet, away, gone), GAME_BOTS_ALONE_PACE; 0 (at once) while a
    person plays, and in a solo game."""
    people = [s for s in seats if s.user_id is not None]
    if len(people) < 2 and not any(s.bot_reason in RETURN_ON_ARRIVAL for s in people):
        return 0  # a solo game (its player's seat is the bot's only at a close)
    if people and all(s.bot_control for s in people):
        return settings.GAME_BOTS_ALONE_PACE
    return 0


def _notify_table(game: Game, seats: list[Seat]) -> None:
    """After commit: everyone at the table (and watching) gets the table's new facts."""
    message = {"type": "table", "seq": game.seq, "table": table_info(game, seats)}
    sends = [(g, [message]) for g in _table_groups(game, seats)]
    transaction.on_commit(lambda: send_to_groups(sends))


def _table_groups(game: Game, seats: list[Seat]) -> list[str]:
    """Everyone at the table: each person's seat group, and the spectators'. (A socket
    joins one group only: its seat's or the spectators'.)"""
    return [
        watch_group(game.public_id) if r == "w" else seat_group(game.public_id, r)
        for r in _receivers(game, seats)
    ]


def _schedule(kind: str, args: tuple, countdown: float) -> None:
    """Queue a clock, disconnection, absence or paced bot task for later. With a broker: a
    Celery countdown.
    Embedded (eager Celery runs tasks at once): a timer thread in this process."""
    from . import tasks

    task = {
        "bots": tasks.play_bots,
        "clock": tasks.clock_expired,
        "disconnect": tasks.disconnect_expired,
        "absent": tasks.absence_expired,
    }[kind]
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        task.apply_async(args, countdown=countdown, queue=settings.GAME_BOTS_QUEUE)
        return
    if not settings.GAME_EMBEDDED_TIMERS:
        return

    def fire() -> None:
        try:
            task.apply(args)
        except Exception:  # a timer thread has nobody to tell
            logger.exception("embedded %s timer failed", kind)
        finally:
            connection.close()

    timer = threading.Timer(countdown + 0.05, fire)
    timer.daemon = True
    timer.start()


def send_to_groups(sends: list[tuple[str, list[dict[str, Any]]]]) -> None:
    """One layer message per group (a bot turn's events travel as one batch)."""
    layer = get_channel_layer()
    if layer is None or not sends:
        return

    async def send_all() -> None:
        # One layer message per group for the batch (a bot turn is up to a dozen
        # cards); the consumer still sends the browser one event per move, in order.
        for group, messages in sends:
            await _send_with_retry(layer, group, {"type": "game.events", "payloads": messages})

    _run_send(send_all, sends)


def send_events(group: str, messages: list[dict[str, Any]]) -> None:
    send_to_groups([(group, messages)])


def _run_send(send_all, sends) -> None:
    layer = get_channel_layer()
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
            logger.warning("push to %s timed out", ", ".join(g for g, _ in sends))


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
