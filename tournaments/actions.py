"""The single mutation path for clubs, tournaments and entries.

Views, consumers, tasks and the game-finished hook call these functions; nothing else
saves tournament state. Rows that several requests race on (the tournament when
joining or closing, the entry when it finishes) are locked with select_for_update,
and rankings are recomputed by a task queued after commit.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.text import slugify
from django.utils.translation import gettext_noop as N_

import engine
from engine.rules import MAX_FIXED_DEALS
from game import actions as game_actions
from game.models import Game, seat_group

from . import replays
from .models import AuditLog, Club, DealPlay, DealResult, Entry, Tournament, TournamentDeal

logger = logging.getLogger(__name__)


class TournamentError(Exception):
    """Refused. The message is English (logs, tests) and marked for translation: views
    show it with `translated()`. A message may name values as %(name)s placeholders,
    filled from `params` (str() is the English text with them filled in), and `field`
    names what was wrong (e.g. "sets", "cut"): a form puts the message at that field,
    the command line names the option."""

    code = "error"

    def __init__(self, message: str = "", params: dict | None = None, field: str | None = None):
        self.message, self.params, self.field = message, params or {}, field
        super().__init__(message % self.params if self.params else message)

    def translated(self) -> str:
        """The message in the active language, its values filled in."""
        from django.utils.translation import gettext

        text = gettext(self.message) if self.message else ""
        return text % self.params if self.params else text


class NotAllowed(TournamentError):
    code = "not_allowed"


class CannotJoin(TournamentError):
    code = "cannot_join"


# --- who may do what --------------------------------------------------------------------


def is_organizer(user, tournament: Tournament) -> bool:
    if not (user and user.is_authenticated):
        return False
    if user.is_staff:
        return True
    if tournament.club is not None:
        # The club's organizers of today: one stepped down or taken out of the club no
        # longer runs the tournaments they created there.
        return tournament.club.is_organizer(user)
    return tournament.created_by_id == user.pk


def entry_of(user, tournament: Tournament) -> Entry | None:
    if not (user and user.is_authenticated):
        return None
    return Entry.objects.filter(tournament=tournament, player=user).first()


def can_see_results(user, tournament: Tournament) -> bool:
    """Standings, travellers and other entries' plays.

    After close: whoever may see the tournament (everybody when its results are public;
    for a club's members-only tournament its members, organizers and entrants). Before:
    a player whose own game is finished (if the tournament shows results "after you
    finish"), or an organizer without an entry still being played (an organizer who
    looks can no longer enter: see mark_seen).
    """
    if tournament.is_closed:
        return can_view_tournament(user, tournament) or entry_of(user, tournament) is not None
    if tournament.has_tables:
        # Standings count only sets that every table has finished (tables.standings):
        # whoever may view the tournament may see them, live.
        return True
    entry = entry_of(user, tournament)
    if entry is not None:
        return (
            entry.status == Entry.Status.FINISHED
            and tournament.results_visibility == Tournament.Visibility.AFTER_FINISH
        )
    return is_organizer(user, tournament)


def can_view_tournament(user, tournament: Tournament) -> bool:
    if tournament.status == Tournament.Status.DRAFT:
        return is_organizer(user, tournament)
    if tournament.club is None or tournament.results_public:
        return True
    return (
        tournament.club.is_member(user)
        or is_organizer(user, tournament)
        # An entrant who left the club (or was taken out) still sees what they play.
        or entry_of(user, tournament) is not None
    )


def screen_key(tournament: Tournament) -> str:
    """The key of a tournament of tables' big-screen link: the room's screen shows the
    standings without anyone logging in on it (an organizer's session left on the room's
    computer would run the tournament for whoever sits down). Derived from the server's
    secret, so nothing is stored; it shows what any viewer of the tournament sees."""
    value = f"{tournament.pk}:{tournament.created.isoformat()}"
    return salted_hmac("tournaments.screen", value).hexdigest()[:24]


# How long after the close the big screen's link still shows the final standings (the
# end of the night): after that, only whoever may see the tournament does.
SCREEN_AFTER_CLOSE = dt.timedelta(hours=12)


def screen_key_valid(tournament: Tournament, key, now=None) -> bool:
    if tournament.is_closed and tournament.closed_at is not None:
        if (now or timezone.now()) - tournament.closed_at > SCREEN_AFTER_CLOSE:
            return False
    return (
        isinstance(key, str)
        and tournament.has_tables
        and tournament.status != Tournament.Status.DRAFT
        and constant_time_compare(key, screen_key(tournament))
    )


def visible_closed_q(user, prefix: str = "") -> Q:
    """A filter on tournaments (`prefix`: the path to them, e.g. "tournament__") keeping
    the closed ones `user` may see: public results, and for a members-only club
    tournament its members, organizers and entrants (staff see every one): the rule of
    can_view_tournament, whose organizers are the club's of today (not who created it)."""
    p = prefix
    q = Q(**{f"{p}club__isnull": True}) | Q(
        **{f"{p}results_audience": Tournament.Audience.EVERYONE}
    )
    if user is not None and user.is_authenticated:
        if user.is_staff:
            return Q()
        q |= own_tournaments_q(user, prefix)
    return Q(**{f"{p}status": Tournament.Status.CLOSED}) & q


def own_tournaments_q(user, prefix: str = "") -> Q:
    """Tournaments of a club `user` is a member or organizer of, or that they entered.
    Subqueries, not joins: joined, the club's members, its organizers and the entries
    multiply into one row each per tournament (a hundred thousand rows for a club's
    history of a few tournaments) before DISTINCT gets them back to one."""
    p = prefix
    return (
        Q(**{f"{p}club__in": Club.objects.filter(members=user).values("pk")})
        | Q(**{f"{p}club__in": Club.objects.filter(organizers=user).values("pk")})
        | Q(**{f"{p}pk__in": Entry.objects.filter(player=user).values("tournament_id")})
    )


def ratings_hidden_from(user):
    """The players (a values("player") queryset) whose rating counts a tournament whose
    results `user` may not see: the rating would tell them (a first tournament's changes
    are its ranking, every later one's its ranking too). Lists and pages leave those
    ratings out; a user's own rating is theirs to see (the caller keeps it)."""
    from .models import RatingChange

    visible = Tournament.objects.filter(visible_closed_q(user)).values("pk")
    return RatingChange.objects.exclude(tournament__in=visible).values("player")


def has_seen(tournament: Tournament, user) -> bool:
    """Whether `user` is recorded as having seen the deals or results (see mark_seen)."""
    if user is None or not user.is_authenticated:
        return False
    return tournament.deals_seen_by.filter(pk=user.pk).exists()


def must_choose_to_look(user, tournament: Tournament) -> bool:
    """Whether a logged-in `user` without an entry who may see a running solo
    tournament's results is first asked "De uitslagen bekijken?": looking rules them out
    of entering, so neither a page nor a socket shows them until they chose to (the
    pages' LookFirst, the standings socket). Not at a tournament of tables: its
    standings hold finished sets only, and joining closes at the draw."""
    return (
        getattr(user, "is_authenticated", False)
        and not tournament.has_tables
        and not tournament.is_closed
        and not has_seen(tournament, user)
    )


def results_open_to(user, tournament: Tournament) -> bool:
    """Whether `user` may be shown the results without being ruled out of entering: the
    tournament is closed, their own game gives them the results, or they chose to look
    (has_seen). The organizer's panel shows scores and takes corrections by this rule."""
    if tournament.is_closed:
        return can_see_results(user, tournament)
    if not can_see_results(user, tournament):
        return False
    return entry_of(user, tournament) is not None or has_seen(tournament, user)


def mark_seen(tournament: Tournament, user) -> None:
    """Record that `user` has seen the deals or results: they may not enter any more."""
    if user and user.is_authenticated and not tournament.is_closed:
        tournament.deals_seen_by.add(user)


# --- clubs ------------------------------------------------------------------------------


def _one_line_name(*values: str) -> None:
    from engine.records import is_one_line

    if not all(is_one_line(v or "") for v in values):
        raise TournamentError(N_("a name is one line: no line breaks or control characters"))


ORGANIZERS_ONLY = N_("only the club's organizers can do that")
LAST_ORGANIZER = N_("a club keeps at least one organizer: make another member one first")
NOT_A_MEMBER = N_("that player is not a member of the club")


def create_club(user, name: str) -> Club:
    _one_line_name(name)
    base = slugify(name)[:80] or "club"
    with transaction.atomic():
        slug = base
        while Club.objects.filter(slug=slug).exists():
            slug = f"{base}-{secrets.token_hex(2)}"
        club = Club.objects.create(name=name, slug=slug)
        club.organizers.add(user)
        club.members.add(user)
    return club


def join_club(user, invite_code: str) -> Club:
    club = Club.objects.filter(invite_code=invite_code.strip()).first()
    if club is None or not invite_code.strip():
        raise CannotJoin(N_("unknown invite code"))
    club.members.add(user)
    return club


def new_club_invite(user, club: Club) -> Club:
    if not club.is_organizer(user):
        raise NotAllowed(ORGANIZERS_ONLY)
    club.invite_code = secrets.token_urlsafe(6)
    club.save(update_fields=["invite_code"])
    return club


def rename_club(actor, club: Club, name: str) -> Club:
    """A new name for the club (its address, the slug, stays: links keep working)."""
    name = (name or "").strip()
    if not club.is_organizer(actor):
        raise NotAllowed(ORGANIZERS_ONLY)
    if not name:
        raise TournamentError(N_("A club needs a name."))
    _one_line_name(name)
    if len(name) > Club._meta.get_field("name").max_length:
        raise TournamentError(N_("a club's name is at most 100 characters"))
    club.name = name
    club.save(update_fields=["name"])
    return club


def club_person(club: Club, user_id) -> object:
    """A member (or organizer) of `club` by primary key, or TournamentError."""
    try:
        pk = int(user_id)
    except (TypeError, ValueError):
        pk = None
    person = (
        club.members.filter(pk=pk).first() or club.organizers.filter(pk=pk).first()
        if pk is not None
        else None
    )
    if person is None:
        raise TournamentError(NOT_A_MEMBER)
    return person


def set_club_organizer(actor, club: Club, user_id, organizer: bool):
    """Make a member an organizer of the club, or no longer one; returns that member.
    Only an organizer may. A club always keeps at least one organizer (the club row is
    locked, so two organizers who step each other down at once cannot leave it none)."""
    with transaction.atomic():
        club = Club.objects.select_for_update().get(pk=club.pk)
        if not club.is_organizer(actor):
            raise NotAllowed(ORGANIZERS_ONLY)
        person = club_person(club, user_id)
        if organizer:
            club.members.add(person)
            club.organizers.add(person)
        else:
            if not club.organizers.exclude(pk=person.pk).exists():
                raise TournamentError(LAST_ORGANIZER)
            club.organizers.remove(person)
    return person


def leave_club(user, club: Club, *, removed_by=None):
    """`user` leaves the club, or an organizer (`removed_by`) takes them out of it (then
    `user` may be a primary key); returns who left. Their entries and results stay: a
    tournament's entrants keep seeing it (visible_filter). The last organizer stays."""
    with transaction.atomic():
        club = Club.objects.select_for_update().get(pk=club.pk)
        if removed_by is not None:
            if not club.is_organizer(removed_by):
                raise NotAllowed(ORGANIZERS_ONLY)
            user = club_person(club, getattr(user, "pk", user))
        elif not club.is_member(user):
            raise TournamentError(NOT_A_MEMBER)
        if (
            club.organizers.filter(pk=user.pk).exists()
            and not club.organizers.exclude(pk=user.pk).exists()
        ):
            raise TournamentError(LAST_ORGANIZER)
        club.organizers.remove(user)
        club.members.remove(user)
    return user


# --- tournaments ------------------------------------------------------------------------


def create_tournament(
    actor,
    *,
    name: str,
    club: Club | None = None,
    rules: str = "flemish",
    deals: int | None = None,
    tie_carry: bool = True,
    bot_level: str | None = None,
    capacity: int = 10,
    starts_at: dt.datetime | None = None,
    ends_at: dt.datetime | None = None,
    live_start: bool = False,
    results_visibility: str = Tournament.Visibility.AFTER_FINISH,
    results_audience: str | None = None,
    unfinished_rule: str = Tournament.Unfinished.BOT,
    ranking: str = Tournament.Ranking.SCORE,
    invite_code: str = "",
    seed: str | None = None,
    day: dt.date | None = None,
    open_now: bool = False,
) -> Tournament:
    """A draft tournament (or an open one with open_now). The seed is secret until close."""
    if actor is not None:
        if club is None and not actor.is_staff:
            raise NotAllowed(N_("a public tournament needs a staff account; choose your club"))
        if club is not None and not club.is_organizer(actor):
            raise NotAllowed(N_("only the club's organizers can create its tournaments"))
    _one_line_name(name, seed or "", invite_code or "")
    if live_start and starts_at is None:
        raise TournamentError(N_("a live start needs a start time"), field="starts_at")
    if day is None and not 1 <= capacity <= MAX_TABLE_PLAYERS:  # the day list has its own
        raise TournamentError(
            N_("a tournament takes 1 to %(max)s players (asked: %(players)s)"),
            {"max": MAX_TABLE_PLAYERS, "players": capacity},
            field="capacity",
        )
    engine.get_rules(rules)  # ValueError for an unknown preset, before anything is stored
    if deals is not None and not 1 <= deals <= MAX_FIXED_DEALS:
        raise TournamentError(N_("a game of fixed deals has 1 to 100 deals"))
    if ranking not in Tournament.Ranking.values:
        raise TournamentError(N_("unknown ranking"))
    bot_level = bot_level or settings.GAME_DEFAULT_BOT
    from engine.bots import get_bot

    get_bot(bot_level)
    if ends_at and starts_at and ends_at <= starts_at:
        raise TournamentError(N_("the play window ends before it starts"))
    if actor is not None and ends_at and ends_at <= timezone.now():
        # A person's tournament that could never be played (the day list of a past
        # date, made by the system, is closed at once by the tick instead).
        raise TournamentError(N_("the play window is over already: choose an end in the future"))
    if club is None:
        results_audience = Tournament.Audience.EVERYONE  # public from the start
    elif results_audience is None:
        results_audience = Tournament.Audience.MEMBERS  # a club is private
    elif results_audience not in Tournament.Audience.values:
        raise TournamentError(N_("unknown choice of who sees the results"))
    seed_given = bool((seed or "").strip())
    seed = (seed or "").strip() or secrets.token_hex(16)
    with transaction.atomic():
        t = Tournament.objects.create(
            club=club,
            name=name,
            rules=rules,
            fixed_deals=deals,
            tie_carry=tie_carry,
            bot_level=bot_level,
            seed=seed,
            seed_commitment=engine.commitment(seed),
            capacity=capacity,
            starts_at=starts_at,
            ends_at=ends_at,
            live_start=live_start,
            results_visibility=results_visibility,
            results_audience=results_audience,
            unfinished_rule=unfinished_rule,
            ranking=ranking,
            invite_code=invite_code.strip(),
            day=day,
            created_by=actor,
        )
        if seed_given and actor is not None:
            t.deals_seen_by.add(actor)  # who chose the seed knows every deal
        if open_now:
            _open(t)
    return t


def delete_draft(tournament_id: int, actor) -> str:
    """Delete a tournament that was never opened (made by mistake, or a test): nothing of
    it was published, nobody joined. An opened one stays (its commitment is out): it is
    closed instead. Returns the deleted tournament's name."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can delete the tournament"))
        if t.status != Tournament.Status.DRAFT or t.entries.exists():
            raise TournamentError(
                N_("only a tournament that was never opened can be deleted: close this one")
            )
        name = t.name
        t.delete()
    return name


def open_tournament(tournament_id: int, actor) -> Tournament:
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can open the tournament"))
        if t.status != Tournament.Status.DRAFT:
            return t
        _open(t)
    return t


def _open(t: Tournament) -> None:
    """Generate and store the deals, publish the commitment. A tournament of tables
    deals each set from its own seed (TableSet.seed) when the set starts."""
    if not t.has_tables:
        TournamentDeal.objects.bulk_create(
            TournamentDeal(tournament=t, **replays.spec_as_dict(spec))
            for spec in replays.deal_specs(t.seed, t.game_rules)
        )
    t.status = Tournament.Status.OPEN
    t.opened_at = timezone.now()
    _maybe_running(t)
    t.save()


def _maybe_running(t: Tournament, now=None) -> bool:
    now = now or timezone.now()
    if t.status == Tournament.Status.OPEN and (t.starts_at is None or t.starts_at <= now):
        t.status = Tournament.Status.RUNNING
        return True
    return False


def join(tournament_id: int, user, invite_code: str = "") -> Entry:
    """One entry per account: the entry's game has the tournament's seed, rules and bots."""
    if not (user and user.is_authenticated):
        raise CannotJoin(N_("log in to take part"))
    if not user.has_usable_password() and not getattr(settings, "TOURNAMENTS_ALLOW_GUESTS", False):
        # A guest account costs nothing: a fresh one could preview every deal of the
        # tournament before entering with the real account.
        raise CannotJoin(N_("guests cannot enter tournaments: create an account or log in"))
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        existing = Entry.objects.filter(tournament=t, player=user).first()
        if existing is not None:
            # One entry per account: joining again gives the same game (a removed entry's
            # stopped game, whose table says so).
            return existing
        if t.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
            raise CannotJoin(N_("this tournament is not open"))
        now = timezone.now()
        if t.ends_at and now >= t.ends_at:
            raise CannotJoin(N_("the play window has closed"))
        if t.has_tables and t.rounds.exists():
            raise CannotJoin(N_("the draw has been made: joining is closed"))
        if t.starts_at and now < t.starts_at and not t.has_tables:
            raise CannotJoin(N_("the play window has not started yet"))
        if t.club is not None and not (t.club.is_member(user) or is_organizer(user, t)):
            if not (t.invite_code and invite_code.strip() == t.invite_code):
                raise CannotJoin(N_("this tournament is for the club's members"))
        if t.invite_code and not t.club and invite_code.strip() != t.invite_code:
            raise CannotJoin(N_("this tournament needs an invite code"))
        if has_seen(t, user):
            raise CannotJoin(N_("you have seen this tournament's deals or results"))
        taken = Entry.objects.filter(tournament=t).exclude(status=Entry.Status.REMOVED).count()
        if taken >= t.capacity:
            raise CannotJoin(N_("the tournament is full"))
        game = (
            None  # a tournament of tables: the draw seats the entry, set by set
            if t.has_tables
            else game_actions.create_game(
                user, seed=t.seed, rules=t.game_rules, bot_level=t.bot_level
            )
        )
        try:
            with transaction.atomic():
                entry = Entry.objects.create(tournament=t, player=user, game=game)
        except IntegrityError:
            raise CannotJoin(N_("you already have an entry")) from None
        if not t.has_tables and _maybe_running(t, now):
            t.save(update_fields=["status"])
    return entry


def move_refusal(entry: Entry, now=None) -> str | None:
    """Why the entry's game takes no more moves (None: it does). Asked on every move,
    a person's or a bot's (game/signals.move_refused), with the entry and tournament
    loaded with the game row."""
    if entry.status == Entry.Status.REMOVED:
        return N_("your entry was removed by the organizer: this game no longer counts")
    t = entry.tournament
    if t.is_closed:
        return N_("this tournament has closed: its games can no longer be played")
    if t.play_over(now):
        return N_("the tournament's play window has ended: no more moves are accepted")
    return None


def game_finished(game: Game, engine_game: engine.Game, mode: str = "played") -> Entry | None:
    """The hook: the entry of a finished game finishes (same transaction as the game)."""
    entry = Entry.objects.select_for_update().filter(game=game).first()
    if entry is None or entry.status != Entry.Status.PLAYING:
        return None
    if entry.tournament.is_closed:
        return None  # scored "as played" at close: later play no longer counts
    _finish_entry(entry, game, mode)
    return entry


def _finish_entry(entry: Entry, game: Game, mode: str) -> None:
    eng, played = replays.split_deals(game.seed, game.rules, list(game.actions))
    DealResult.objects.filter(entry=entry).delete()
    results = DealResult.objects.bulk_create(
        DealResult(
            entry=entry,
            number=d.number,
            dealer=d.result["dealer"],
            trump=d.result["trump"] or "",
            no_trump=d.result["no_trump"],
            card_points=d.result["card_points"],
            multiplier=d.result["multiplier"],
            written=d.result["written"],
        )
        for d in played
    )
    if any(r.pk is None for r in results):  # a database that returns no ids
        ids = dict(DealResult.objects.filter(entry=entry).values_list("number", "pk"))
        for r in results:
            r.pk = ids[r.number]
    DealPlay.objects.bulk_create(
        DealPlay(result=r, tricks=d.tricks, actions=d.actions)
        for r, d in zip(results, played, strict=True)
    )
    entry.game_score = eng.score_for(game_actions.HUMAN_SEAT)
    entry.score = entry.game_score
    entry.deals_played = len(played)
    entry.status = Entry.Status.FINISHED
    entry.finish_mode = mode
    entry.finished_at = timezone.now()
    entry.save()
    schedule_rankings(entry.tournament_id)


def schedule_rankings(tournament_id: int) -> None:
    """Recompute after commit; stamped with the time so that bursts collapse."""
    from .tasks import recompute_rankings

    transaction.on_commit(lambda: recompute_rankings.delay(tournament_id, time.time()))


def close_tournament(
    tournament_id: int, actor=None, *, now=None, unfinished_rule: str | None = None
) -> Tournament:
    """Close: unfinished games are finished by the bot or scored as played so far
    (the tournament's `unfinished_rule`, or `unfinished_rule` given here, which is then
    stored and logged); the seed is then revealed. Every game of the tournament is over
    afterwards: none takes another move (see move_refusal and game.actions.stop_game)."""
    if unfinished_rule and unfinished_rule not in Tournament.Unfinished.values:
        raise TournamentError(N_("unknown rule for unfinished games"))
    from .models import TableSet

    with transaction.atomic():
        # A set's end (advance_set) locks the set, then the tournament: a tournament of
        # tables' close takes its sets in play in that order too, so that it either
        # follows a set's end (and stops the next set) or comes first (and the set whose
        # last table just finished is scored, and nothing more starts).
        sets_in_play = (
            TableSet.objects.select_for_update(of=("self",))
            .filter(round__tournament_id=tournament_id)
            .exclude(status=TableSet.Status.DONE)
            .order_by("pk")
        )
        list(sets_in_play.values_list("pk", flat=True))
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can close the tournament"))
        if t.is_closed:
            return t
        if t.status == Tournament.Status.DRAFT:
            raise TournamentError(N_("a draft was never opened: there is nothing to close"))
        if t.has_tables:
            _close_tables(t, actor, now)
            return t
        rule_before = t.unfinished_rule
        t.unfinished_rule = unfinished_rule or rule_before
        playing = Entry.objects.filter(tournament=t, status=Entry.Status.PLAYING)
        for entry_id, game_id in playing.values_list("pk", "game_id"):
            # The game's row is locked before the entry's, as a move does (its last move
            # finishes the entry inside the game's lock): no deadlock with a last card
            # played at the moment of the close, which then simply counts as played.
            if _no_result(game_id, t.unfinished_rule):
                # No result to rank: not a score of 0 ranked above those who played,
                # nor a whole game played by the bot for someone who never came.
                game_actions.stop_game(game_id, reason="absent")
                Entry.objects.filter(pk=entry_id, status=Entry.Status.PLAYING).update(
                    status=Entry.Status.ABSENT
                )
            elif t.unfinished_rule == Tournament.Unfinished.BOT:
                start = len(Game.objects.get(pk=game_id).actions)
                game_actions.autoplay(game_id)  # the hook finishes the entry
                game = Game.objects.get(pk=game_id)
                entry = Entry.objects.select_for_update().get(pk=entry_id)
                # "Finished by the bot" only if it played for the person: the bots' own
                # last cards, still to come after the person's last one, are no such help.
                moves = _person_moved_from(game, start)
                if entry.status == Entry.Status.FINISHED and moves:
                    entry.finish_mode = "bot"
                    entry.save(update_fields=["finish_mode"])
                elif entry.status == Entry.Status.PLAYING:  # over, but unseen by the hook
                    _finish_entry(entry, game, "bot")
                if entry.finish_mode == "bot":
                    _retag_record(game)
            else:
                # Stopped where it stands (finished, no more moves), then scored.
                game = game_actions.stop_game(game_id, reason="as_played")
                entry = Entry.objects.select_for_update().get(pk=entry_id)
                if entry.status == Entry.Status.PLAYING:
                    _finish_entry(entry, game, "as_played")
        # A removed entry's game does not count either way: it stops too (older rows;
        # remove_entry stops it already).
        removed = Entry.objects.filter(
            tournament=t, status=Entry.Status.REMOVED, game__status=Game.Status.ACTIVE
        ).values_list("game_id", flat=True)
        for game_id in removed:
            game_actions.stop_game(game_id, reason="removed")
        t.status = Tournament.Status.CLOSED
        t.closed_at = now or timezone.now()
        t.save(update_fields=["status", "closed_at", "unfinished_rule"])
        AuditLog.objects.create(
            tournament=t, actor=actor, action="close",
            before={"unfinished_rule": rule_before} if rule_before != t.unfinished_rule else None,
            after={"unfinished_rule": t.unfinished_rule}, reason="",
        )  # fmt: skip
        schedule_rankings(t.pk)
        from .tasks import notify_tables_closed

        transaction.on_commit(lambda: notify_tables_closed.delay(tournament_id))
    return t


def _no_result(game_id: int, rule: str) -> bool:
    """Whether an unfinished game at close leaves its player without a result (locks the
    game's row): scored as played, when not one deal was played to its end; finished by
    the bot, when the player never made a move (the bot would play it all)."""
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.status == Game.Status.FINISHED:
        return False
    return _nothing_to_rank(game, rule)


def _nothing_to_rank(game: Game, rule: str) -> bool:
    """_no_result of a game not played to its end (running, or stopped by a removal)."""
    if rule != Tournament.Unfinished.BOT:
        return not replays.split_deals(game.seed, game.rules, list(game.actions))[1]
    eng = engine.Game(game.seed, game.rules)
    for action in game.actions:
        if eng.to_move == game_actions.HUMAN_SEAT:
            return False
        eng.apply_action(action)
    return True


def _person_moved_from(game: Game, start: int) -> bool:
    """Whether any of the game's actions from index `start` on was the person's seat's
    (the entrant's: game_actions.HUMAN_SEAT)."""
    eng = engine.Game(game.seed, game.rules)
    for i, action in enumerate(game.actions):
        if i >= start and eng.to_move == game_actions.HUMAN_SEAT:
            return True
        eng.apply_action(action)
    return False


def _retag_record(game: Game) -> None:
    """The stored record of a game the bot finished says so (game.actions.record_tags:
    [FinishedBy]); it was written when the last card fell, before the entry was marked."""
    game.refresh_from_db()
    game.record = game_actions.fresh_record(game)
    game.save(update_fields=["record"])


def notify_tables_closed(tournament_id: int) -> int:
    """Tell the open tables of a closed tournament's finished games that it closed:
    `{"type": "closed", "reason": "bot" | "tournament", "record": URL}`. The end dialog
    then offers the record (at URL), and a game the bot finished says so. Games stopped
    "as played" or removed were told when they stopped. Returns how many games were
    told; sending again is harmless."""
    t = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.CLOSED).first()
    if t is None:
        return 0
    finished = (
        Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED, game__isnull=False)
        .exclude(finish_mode="as_played")
        .values_list("finish_mode", "game__public_id", "game__seq")
    )
    told = 0
    for mode, public_id, seq in finished.iterator():
        reason = "bot" if mode == "bot" else "tournament"
        record = reverse("game-record", args=[public_id])
        message = {"type": "closed", "seq": seq, "reason": reason, "record": record}
        # The entrant holds South's seat: their sockets listen on that seat's group.
        game_actions.send_events(seat_group(public_id, game_actions.HUMAN_SEAT), [message])
        told += 1
    return told


def set_ranking(tournament_id: int, actor, ranking: str) -> Tournament:
    """Rank by score or by the Neuberg matchpoint percentage (until the tournament
    closes: published results do not change order afterwards). Logged; the rankings
    are recomputed."""
    if ranking not in Tournament.Ranking.values:
        raise TournamentError(N_("unknown ranking"))
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can change the ranking"))
        if t.is_closed:
            raise TournamentError(N_("the ranking cannot change after the tournament closed"))
        if t.ranking == ranking:
            return t
        before, t.ranking = t.ranking, ranking
        t.save(update_fields=["ranking"])
        AuditLog.objects.create(
            tournament=t, actor=actor, action="ranking",
            before={"ranking": before}, after={"ranking": ranking}, reason="",
        )  # fmt: skip
        schedule_rankings(t.pk)
    return t


def window_not_open(t: Tournament, now=None) -> bool:
    """A solo tournament whose play window has not opened yet: a draft, or open with a
    start still to come (nobody can have joined: joining waits for the start)."""
    now = now or timezone.now()
    if t.status == Tournament.Status.DRAFT:
        return True
    return t.status == Tournament.Status.OPEN and t.starts_at is not None and t.starts_at > now


def edit_tournament(tournament_id: int, actor, **changes) -> Tournament:
    """Change what may change until the tournament closes, without touching its deals:
    `name`, `invite_code` (empty: none), `results_audience` (a club's tournament),
    `capacity` (not below the entries it has; a tournament of tables only until its draw,
    its structure checked for the new field), and for a solo tournament `ends_at` (the
    end of the play window: in the future, after its start; None for no end) and, until
    the window has opened, `starts_at` (in the future; None opens it now, but a live
    start needs a time). Logged as one "edit" with what changed; a change to nothing is
    no change."""
    editable = {"name", "invite_code", "results_audience", "capacity", "ends_at", "starts_at"}
    unknown = set(changes) - editable
    if unknown:
        raise ValueError(f"not editable: {sorted(unknown)}")
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can change the tournament"))
        if t.is_closed:
            raise TournamentError(N_("a closed tournament no longer changes"))
        if "name" in changes:
            changes["name"] = (changes["name"] or "").strip()
            if not changes["name"]:
                raise TournamentError(N_("a tournament needs a name"), field="name")
            _one_line_name(changes["name"])
        if "results_audience" in changes:
            if t.club is None:
                raise TournamentError(N_("a tournament without a club is public"))
            if changes["results_audience"] not in Tournament.Audience.values:
                raise TournamentError(N_("unknown choice of who sees the results"))
        if "invite_code" in changes:
            changes["invite_code"] = (changes["invite_code"] or "").strip()
            _one_line_name(changes["invite_code"])
            if len(changes["invite_code"]) > Tournament._meta.get_field("invite_code").max_length:
                raise TournamentError(
                    N_("an invite code is at most 32 characters"), field="invite_code"
                )
        window = {"ends_at", "starts_at"}
        if window & set(changes) and t.has_tables:
            raise TournamentError(N_("a tournament of tables keeps its field and its rounds"))
        if "capacity" in changes and t.has_tables and changes["capacity"] != t.capacity:
            if t.rounds.exists():
                raise TournamentError(
                    N_("the draw has been made: the field no longer changes"), field="capacity"
                )
            s = t.structure
            check_structure(
                t.format, changes["capacity"] or 0, rounds=s.rounds, sets=s.sets,
                deals=s.deals, cut=s.cut, cut_fraction=s.cut_fraction, duplicate=s.duplicate,
            )  # fmt: skip
        if "capacity" in changes:
            taken = Entry.objects.filter(tournament=t).exclude(status=Entry.Status.REMOVED)
            n = taken.count()
            if changes["capacity"] is None or changes["capacity"] < max(n, 1):
                raise TournamentError(
                    N_("the capacity cannot be below the %(n)s players who joined"),
                    {"n": n},
                    field="capacity",
                )
        now = timezone.now()
        start = changes.get("starts_at", t.starts_at)
        if "starts_at" in changes and start != t.starts_at:
            if not window_not_open(t, now):
                raise TournamentError(
                    N_("the play window has opened: its start no longer moves"), field="starts_at"
                )
            if start is None and t.live_start:
                raise TournamentError(N_("a live start needs a start time"), field="starts_at")
            if start is not None and start <= now:
                raise TournamentError(
                    N_("the start would be in the past: choose a time in the future"),
                    field="starts_at",
                )
        end = changes.get("ends_at")
        if end is not None and end != t.ends_at and end <= now:
            raise TournamentError(
                N_("the play window is over already: choose an end in the future"),
                field="ends_at",
            )
        end = changes.get("ends_at", t.ends_at)
        if window & set(changes) and start and end and end <= start:  # solo only, above
            raise TournamentError(N_("the play window ends before it starts"), field="ends_at")
        before, after = {}, {}
        for field, value in changes.items():
            if getattr(t, field) != value:
                before[field], after[field] = getattr(t, field), value
                setattr(t, field, value)
        if not after:
            return t
        fields = list(after)
        if "starts_at" in after and _maybe_running(t, now):  # opened now: playable
            fields.append("status")
        t.save(update_fields=fields)
        for field in ("starts_at", "ends_at"):  # logged in local time, as a moved start
            if field in after:
                before[field], after[field] = _iso_local(before[field]), _iso_local(after[field])
        AuditLog.objects.create(
            tournament=t, actor=actor, action="edit", before=before, after=after, reason=""
        )
    return t


def _not_at_tables(t: Tournament, *, before_the_draw: bool = False) -> None:
    """An entry's score, and its removal and restore once the tables are drawn, are the
    solo tournament's: at tables a score is a deal's at its table (correct_table_deal),
    a seated player is replaced (replace_player). Before the draw a sign-up can be
    taken out and put back (`before_the_draw`)."""
    if t.has_tables and not (before_the_draw and not t.rounds.exists()):
        raise TournamentError(
            N_("at a tournament of tables, correct a deal at its table or replace the player")
        )


# A game's score (ours minus theirs) is far inside this, even over 100 deals doubled.
SCORE_LIMIT = 100_000


def correct_score(entry_id: int, actor, score: int, reason: str) -> Entry:
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a correction needs a reason"))
    if not -SCORE_LIMIT <= int(score) <= SCORE_LIMIT:
        raise TournamentError(
            N_("a score is from %(low)s to %(high)s"), {"low": -SCORE_LIMIT, "high": SCORE_LIMIT}
        )
    t = Entry.objects.select_related("tournament").get(pk=entry_id).tournament
    if not (t.is_closed or t.has_tables) and is_organizer(actor, t) and entry_of(actor, t) is None:
        # An organizer without an entry who corrects a score has seen the scores (a
        # correction says whether it is the score already written): as choosing to look,
        # they can no longer enter. Recorded whether the correction goes through or not.
        mark_seen(t, actor)
    with transaction.atomic():
        entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry_id)
        if not is_organizer(actor, entry.tournament):
            raise NotAllowed(N_("only organizers can correct scores"))
        _not_at_tables(entry.tournament)
        if not results_open_to(actor, entry.tournament):
            # A correction names a score ("the score already written"): not for an
            # organizer still playing (the panel hides the scores from them too).
            raise NotAllowed(
                N_("you play in this tournament: correct scores once your own game is finished")
            )
        if entry.status != Entry.Status.FINISHED:
            raise TournamentError(N_("only a finished entry's score can be corrected"))
        if int(score) == entry.score:  # nothing to correct: no line in the trail
            raise TournamentError(N_("the corrected score is the score already written"))
        before = entry.score
        entry.score = int(score)
        entry.save(update_fields=["score"])
        AuditLog.objects.create(
            tournament=entry.tournament, entry=entry, actor=actor, action="correct_score",
            before={"score": before, "player": entry.player.get_username()},
            after={"score": entry.score}, reason=reason,
        )  # fmt: skip
        schedule_rankings(entry.tournament_id)
    return entry


def remove_entry(entry_id: int, actor, reason: str) -> Entry:
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a removal needs a reason"))
    entry = Entry.objects.select_related("tournament").get(pk=entry_id)
    if not is_organizer(actor, entry.tournament):
        raise NotAllowed(N_("only organizers can remove entries"))
    _not_at_tables(entry.tournament, before_the_draw=True)
    with transaction.atomic():
        # The game first, then the entry: the order of a move that finishes the entry.
        game_actions.stop_game(entry.game_id, reason="removed")  # no more moves
        entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry_id)
        before = entry.status
        if before == Entry.Status.REMOVED:  # a second click, a page sent again
            raise TournamentError(N_("this entry is removed already"))
        # Kept (not deleted): the player cannot re-enter and the log can name it.
        entry.status = Entry.Status.REMOVED
        entry.rank = None
        entry.save(update_fields=["status", "rank"])
        AuditLog.objects.create(
            tournament=entry.tournament, entry=entry, actor=actor, action="remove_entry",
            before={"status": before, "player": entry.player.get_username()},
            after={"status": entry.status}, reason=reason,
        )  # fmt: skip
        schedule_rankings(entry.tournament_id)
    return entry


def restore_entry(entry_id: int, actor, reason: str) -> Entry:
    """Undo a removal, logged like a correction. An entry that had finished counts again
    with its results. One that was still being played: its game (stopped at removal)
    goes on if the play window is still open; otherwise it is ended by the tournament's
    rule for unfinished games (finished by the bot, or scored as played so far), or left
    without a result ("did not play") where the close would have left it so."""
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a restore needs a reason"))
    entry = Entry.objects.select_related("tournament").get(pk=entry_id)
    if not is_organizer(actor, entry.tournament):
        raise NotAllowed(N_("only organizers can restore entries"))
    _not_at_tables(entry.tournament, before_the_draw=True)
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=entry.tournament_id)  # capacity
        entry = Entry.objects.get(pk=entry_id)
        if entry.status != Entry.Status.REMOVED:
            raise TournamentError(N_("only a removed entry can be restored"))
        taken = Entry.objects.filter(tournament=t).exclude(status=Entry.Status.REMOVED).count()
        if taken >= t.capacity:
            raise TournamentError(N_("the tournament is full: no place to restore the entry"))
        finished_before = entry.finished_at is not None
        mode = ""
        if not finished_before:
            # The game first, then the entry: the order of a move that finishes the entry.
            if not t.play_over():
                game_actions.resume_game(entry.game_id)
            elif _nothing_to_rank(Game.objects.get(pk=entry.game_id), t.unfinished_rule):
                mode = "absent"  # as the close would have left it: no result, not ranked
            elif t.unfinished_rule == Tournament.Unfinished.BOT:
                game_actions.resume_game(entry.game_id)
                game_actions.autoplay(entry.game_id)  # the hook leaves a removed entry be
                mode = "bot"
            else:
                mode = "as_played"
        entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry_id)
        if finished_before:
            entry.status = Entry.Status.FINISHED
            entry.save(update_fields=["status"])
        elif mode == "absent":
            entry.status = Entry.Status.ABSENT
            entry.save(update_fields=["status"])
        elif mode:
            _finish_entry(entry, Game.objects.get(pk=entry.game_id), mode)
        else:
            entry.status = Entry.Status.PLAYING
            entry.save(update_fields=["status"])
        AuditLog.objects.create(
            tournament=t, entry=entry, actor=actor, action="restore_entry",
            before={"status": Entry.Status.REMOVED, "player": entry.player.get_username()},
            after={"status": entry.status}, reason=reason,
        )  # fmt: skip
        schedule_rankings(t.pk)
    return entry


# --- the day list -----------------------------------------------------------------------


def day_tournament(day: dt.date | None = None) -> Tournament:
    """Today's public tournament (the daglijst), created and opened once per date."""
    day = day or timezone.localdate()
    existing = Tournament.objects.filter(day=day).first()
    if existing is not None:
        return existing
    tz = timezone.get_current_timezone()
    start = timezone.make_aware(dt.datetime.combine(day, dt.time.min), tz)
    # Next local midnight, not start + 24 h: days with a DST change last 23 or 25 hours.
    end = timezone.make_aware(dt.datetime.combine(day + dt.timedelta(days=1), dt.time.min), tz)
    try:
        with transaction.atomic():
            return create_tournament(
                None,
                name=f"Daglijst {day:%d-%m-%Y}",
                rules=settings.GAME_DEFAULT_RULES,
                capacity=getattr(settings, "TOURNAMENT_DAY_CAPACITY", 100000),
                starts_at=start,
                ends_at=end,
                day=day,
                open_now=True,
            )
    except IntegrityError:  # a concurrent run created it first
        return Tournament.objects.get(day=day)


def tick(now=None) -> dict[str, int]:
    """Periodic: open → running when the window starts; close when it has ended."""
    now = now or timezone.now()
    started = 0
    tables_started = start_due_tables(now)
    from .models import Round

    waiting = Round.objects.filter(status=Round.Status.WAITING, starts_at__lte=now)
    for tournament_id in set(waiting.values_list("tournament_id", flat=True)):
        tables_started += start_next_round(tournament_id, None, now)
    sets_played = expire_sets(now)
    for t in Tournament.objects.filter(status=Tournament.Status.OPEN, starts_at__lte=now).exclude(
        format__in=TABLE_FORMATS
    ):
        with transaction.atomic():
            t = Tournament.objects.select_for_update().get(pk=t.pk)
            if _maybe_running(t, now):
                t.save(update_fields=["status"])
                started += 1
    closed = 0
    due = Tournament.objects.filter(
        status__in=[Tournament.Status.OPEN, Tournament.Status.RUNNING], ends_at__lte=now
    )
    for t in due:
        close_tournament(t.pk, None, now=now)
        closed += 1
    from . import ratings

    return {
        "started": started, "closed": closed,
        "tables_started": tables_started, "set_moves_by_bot": sets_played,
        "rated": ratings.rate_due(now), "rankings_asked_again": rerank_stuck(now),
    }  # fmt: skip


RERANK_AFTER = dt.timedelta(minutes=2)  # a rankings run takes seconds, even for a big field


def rerank_stuck(now=None) -> int:
    """Ask again for the rankings of every solo tournament with an entry finished over
    RERANK_AFTER ago and still without a place, and no run since it finished: the run
    asked for was lost (a worker killed mid-task, a database connection dropped), and
    the standings would say "being computed" until the next entry finishes, or forever
    once the tournament is closed."""
    from .tasks import recompute_rankings

    now = now or timezone.now()
    stuck = (
        Entry.objects.filter(
            status=Entry.Status.FINISHED,
            rank__isnull=True,
            finished_at__lte=now - RERANK_AFTER,
        )
        .exclude(tournament__format__in=TABLE_FORMATS)
        .filter(
            Q(tournament__rankings_computed_at__isnull=True)
            | Q(tournament__rankings_computed_at__lt=F("finished_at"))
        )
        .values_list("tournament_id", flat=True)
    )
    ids = sorted(set(stuck))
    for tournament_id in ids:
        recompute_rankings.delay(tournament_id, now.timestamp())
    return len(ids)


# --- tournaments of rounds and tables -------------------------------------------------------

TABLE_FORMATS = (
    Tournament.Format.ROTATING,
    Tournament.Format.WRITER_STAYS,
    Tournament.Format.PAIRS,
)
MIN_TABLE_PLAYERS = 4
# The most a tournament of tables takes, the create form's limits (forms.TournamentForm:
# capacity, rounds, sets, set_minutes), so that the command line keeps to them too.
MAX_TABLE_PLAYERS = 10000
MAX_TABLE_ROUNDS = 20
MAX_TABLE_SETS = 30
MAX_SET_MINUTES = 600
MIN_WRITER_STAYS_PLAYERS = 8  # two tables: the three who move go to other tables


def _least_players(fmt: str) -> int:
    """The fewest players a round of format `fmt` is played with: one table, writer
    stays two. A cut may not leave fewer."""
    if fmt == Tournament.Format.WRITER_STAYS:
        return MIN_WRITER_STAYS_PLAYERS
    return MIN_TABLE_PLAYERS


def _cut_keeps(count: int, cut: int | None, fraction: float | None) -> int:
    """How many of `count` (players; for fixed pairs, pairs) a cut lets go on: the best
    `cut`, or the best `fraction` rounded up (30 % of 10 keeps 3: the product is rounded
    first, 10 * 0.3 being 3.0000000000000004 in floating point)."""
    import math

    keep = count
    if cut:
        keep = min(keep, cut)
    if fraction:
        keep = min(keep, max(1, math.ceil(round(count * fraction, 9))))
    return keep


def check_structure(
    fmt: str,
    players: int,
    *,
    rounds: int,
    sets: int,
    deals: int,
    cut: int | None = None,
    cut_fraction: float | None = None,
    in_room: bool = False,
    clock: int = 0,
    set_minutes: int | None = None,
    round_break: int = 0,
    duplicate: bool = False,
) -> None:
    """Refuse, with why and what would work, a structure the format cannot serve. The
    one authority on it: the command line, the create form and the start (with the
    players who joined) all ask here. Each refusal names its `field`. `duplicate` is
    checked against the field asked for (at the start fewer may have come: one table
    then plays on, with nothing to compare)."""
    from engine.rules import MAX_FIXED_DEALS

    if fmt not in TABLE_FORMATS:
        raise TournamentError(
            N_("unknown format %(format)s: choose solo, rotating, writer-stays or pairs"),
            {"format": repr(fmt)},
            field="format",
        )
    if deals < 1 or deals > MAX_FIXED_DEALS:
        raise TournamentError(
            N_("a set is a game of 1 to %(max)s deals (asked: %(deals)s); 8 or 12 are usual"),
            {"max": MAX_FIXED_DEALS, "deals": deals},
            field="deals",
        )
    if rounds < 1:
        raise TournamentError(
            N_("a tournament needs at least 1 round (asked: %(rounds)s)"),
            {"rounds": rounds},
            field="rounds",
        )
    if sets < 1:
        raise TournamentError(
            N_("a round needs at least 1 set (asked: %(sets)s)"), {"sets": sets}, field="sets"
        )
    if players < MIN_TABLE_PLAYERS:
        raise TournamentError(
            N_(
                "a tournament of tables needs at least %(min)s players (asked: %(players)s); "
                "bots fill the seats when the count is not a multiple of 4"
            ),
            {"min": MIN_TABLE_PLAYERS, "players": players},
            field="players",
        )
    if players > MAX_TABLE_PLAYERS:
        raise TournamentError(
            N_("a tournament of tables takes at most %(max)s players (asked: %(players)s)"),
            {"max": MAX_TABLE_PLAYERS, "players": players},
            field="players",
        )
    if rounds > MAX_TABLE_ROUNDS:
        raise TournamentError(
            N_("a tournament has at most %(max)s rounds (asked: %(rounds)s)"),
            {"max": MAX_TABLE_ROUNDS, "rounds": rounds},
            field="rounds",
        )
    if sets > MAX_TABLE_SETS:
        raise TournamentError(
            N_("a round has at most %(max)s sets (asked: %(sets)s)"),
            {"max": MAX_TABLE_SETS, "sets": sets},
            field="sets",
        )
    if set_minutes is not None and not 0 <= set_minutes <= MAX_SET_MINUTES:
        raise TournamentError(
            N_("a set's deadline is 1 to %(max)s minutes, or none (asked: %(minutes)s)"),
            {"max": MAX_SET_MINUTES, "minutes": set_minutes},
            field="set_minutes",
        )
    if not 0 <= round_break <= MAX_SET_MINUTES:
        raise TournamentError(
            N_("a break between rounds is 0 to %(max)s minutes (asked: %(minutes)s)"),
            {"max": MAX_SET_MINUTES, "minutes": round_break},
            field="round_break",
        )
    if fmt == Tournament.Format.ROTATING and sets % 3:
        raise TournamentError(
            N_(
                "rotating partners plays a round in threes of sets (AB-CD, AC-BD, AD-BC), "
                "so that each player partners each other player of the table once: use 3 "
                "sets a round (or 6, 9; asked: %(sets)s)"
            ),
            {"sets": sets},
            field="sets",
        )
    if fmt == Tournament.Format.WRITER_STAYS and players < 8:
        raise TournamentError(
            N_(
                "with %(players)s players there is one table: nobody can move on. Writer "
                "stays needs at least 8 players (two tables); for 4 to 7 players choose "
                "rotating partners"
            ),
            {"players": players},
            field="players",
        )
    if duplicate and players <= 4:
        raise TournamentError(
            N_(
                "duplicate compares the tables of a set that held the same cards: with "
                "%(players)s players there is one table, nothing to compare. Choose at least "
                "5 players (bots fill the second table) or no duplicate"
            ),
            {"players": players},
            field="duplicate",
        )
    if cut is not None and cut_fraction is not None:
        raise TournamentError(
            N_("choose a cut of a number of players or a fraction of the field, not both"),
            field="cut",
        )
    if cut is not None:
        if cut < 1:
            raise TournamentError(
                N_("a cut keeps at least 1 player (asked: %(cut)s)"), {"cut": cut}, field="cut"
            )
        if cut > players:
            raise TournamentError(
                N_(
                    "a cut of %(cut)s is larger than the field of %(players)s players: "
                    "choose at most %(players)s"
                ),
                {"cut": cut, "players": players},
                field="cut",
            )
        _check_cut_leaves_enough(fmt, players, cut)
    if cut_fraction is not None and not 0 < cut_fraction < 1:
        raise TournamentError(
            N_("a cut fraction lies between 0 and 1 (asked: %(fraction)s)"),
            {"fraction": cut_fraction},
            field="cut_fraction",
        )
    if cut_fraction is not None:
        _check_fraction_leaves_enough(fmt, players, rounds, cut_fraction)
    if (cut is not None or cut_fraction is not None) and rounds < 2:
        raise TournamentError(
            N_("a cut needs a round after it: choose 2 rounds or more"),
            field="rounds",
        )
    if in_room and clock:
        raise TournamentError(
            N_("with real cards in the room there is no clock: choose no clock"), field="clock"
        )
    if in_room and set_minutes:
        raise TournamentError(
            N_(
                "with real cards in the room nobody can finish a late table for its players: "
                "leave the set's deadline empty"
            ),
            field="set_minutes",
        )


def _check_cut_leaves_enough(fmt: str, players: int, cut: int) -> None:
    """A cut of the best `cut` (1 <= cut <= players) must leave a field the next round
    can be played with, and in fixed pairs keep whole pairs (partners are level: only
    the lot would part them)."""
    least = _least_players(fmt)
    if cut < least:
        if fmt == Tournament.Format.WRITER_STAYS:
            message = N_(
                "writer stays needs two tables in every round: a cut keeps at least "
                "%(min)s players (asked: %(cut)s)"
            )
        else:
            message = N_(
                "a cut keeps at least %(min)s players, a table of four for the next round "
                "(asked: %(cut)s)"
            )
        raise TournamentError(message, {"min": least, "cut": cut}, field="cut")
    if fmt == Tournament.Format.PAIRS and cut % 2 and cut < players:
        raise TournamentError(
            N_(
                "fixed pairs go on or out together: a cut keeps whole pairs, an even number "
                "of players (asked: %(cut)s; e.g. %(lower)s or %(higher)s)"
            ),
            {"cut": cut, "lower": cut - 1, "higher": cut + 1},
            field="cut",
        )


def _check_fraction_leaves_enough(fmt: str, players: int, rounds: int, fraction: float) -> None:
    """A cut of the best `fraction`, made after every round but the last (as apply_cut
    makes it: of the pairs in fixed pairs), must leave a field every round can be played
    with."""
    least = _least_players(fmt)
    pairs = fmt == Tournament.Format.PAIRS
    count = (players + 1) // 2 if pairs else players
    for number in range(2, rounds + 1):
        count = _cut_keeps(count, None, fraction)
        left = 2 * count if pairs else count
        if left < least:
            raise TournamentError(
                N_(
                    "keeping the best %(percent)s percent after each round leaves %(left)s "
                    "players for round %(round)s, and a round needs at least %(min)s: keep "
                    "a larger part or play fewer rounds"
                ),
                {"percent": f"{fraction * 100:g}", "left": left, "round": number, "min": least},
                field="cut_fraction",
            )


def create_tables_tournament(
    actor,
    *,
    name: str,
    fmt: str,
    players: int,
    rounds: int = 1,
    sets: int = 3,
    deals: int = 8,
    duplicate: bool = False,
    tie_carry: bool = False,
    cut: int | None = None,
    cut_fraction: float | None = None,
    redraw: str = "standing",
    clock: int = 0,
    set_minutes: int | None = None,
    round_break: int = 0,
    open_now: bool = False,
    in_room: bool = False,
    **kwargs,
) -> Tournament:
    """A tournament of rounds and tables (format rotating, writer-stays or pairs); the
    solo format is `create_tournament`. `players` is the capacity the draw is checked for.
    `in_room`: a club night with real cards (tournaments/room.py)."""
    from .models import Structure

    check_structure(
        fmt, players, rounds=rounds, sets=sets, deals=deals, cut=cut, cut_fraction=cut_fraction,
        in_room=in_room, clock=clock, set_minutes=set_minutes, round_break=round_break,
        duplicate=duplicate,
    )  # fmt: skip
    if redraw not in Structure.Redraw.values:
        raise TournamentError(
            N_("unknown redraw %(redraw)s: choose standing or random"),
            {"redraw": repr(redraw)},
            field="redraw",
        )
    if clock not in game_actions.CLOCK_CHOICES:
        raise TournamentError(
            N_("the clock is off (0), 15, 30 or 60 seconds a move"), field="clock"
        )
    with transaction.atomic():
        t = create_tournament(actor, name=name, capacity=players, **kwargs)
        t.format = fmt
        t.save(update_fields=["format"])
        Structure.objects.create(
            tournament=t, rounds=rounds, sets=sets, deals=deals, duplicate=duplicate,
            tie_carry=tie_carry, cut=cut, cut_fraction=cut_fraction, redraw=redraw,
            clock=clock, set_minutes=set_minutes, round_break=round_break, in_room=in_room,
        )  # fmt: skip
        engine.get_rules(t.structure.rules_spec)  # the tables' rules exist
        if open_now:
            _open(t)
    return t


def withdraw(tournament_id: int, user) -> None:
    """A player takes back their sign-up for a tournament of tables before its draw (the
    draw locks the same row, so it sees them either in or out, never half). After the
    draw the organizer replaces them; a solo game once begun stays (the organizer can
    remove the entry)."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        entry = Entry.objects.filter(tournament=t, player=user).first()
        if entry is None:
            raise TournamentError(N_("you have not signed up for this tournament"))
        if not t.has_tables:
            raise TournamentError(
                N_("a solo game once begun stays: ask the organizer to remove your entry")
            )
        if t.is_closed or t.rounds.exists():
            raise TournamentError(
                N_("the draw has been made: ask the organizer to replace you at your table")
            )
        entry.delete()
        # The organizers see who took back a sign-up, and when (the panel's log).
        AuditLog.objects.create(
            tournament=t, actor=user, action="withdraw",
            before={"player": user.get_username()}, after=None, reason="",
        )  # fmt: skip


def start_tables(tournament_id: int, actor=None, now=None) -> Tournament:
    """The draw of round 1 and the start of its first set (the live start: the
    organizer, or `tick` at `starts_at`). Joining is closed from here on."""
    from .models import Round

    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can start the tournament"))
        if not t.has_tables:
            raise TournamentError(N_("only a tournament of tables is started by a draw"))
        if t.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
            raise TournamentError(N_("this tournament is not open"))
        if Round.objects.filter(tournament=t).exists():
            return t  # started already (idempotent)
        _check_start(t, t.format, len(_active_entries(t)))
        t.status = Tournament.Status.RUNNING
        t.save(update_fields=["status"])
        _start_round(t, 1, now)
        from . import tables as tables_read

        pk = t.pk  # every open page learns the draw (and reloads to show its table)
        transaction.on_commit(lambda: tables_read.push_standings(pk))
    return t


def _check_start(t: Tournament, fmt: str, players: int) -> None:
    """Refuse (check_structure's TournamentError) a start of `t` in format `fmt` with
    `players` players. The structure was checked for the capacity; fewer may have come.
    A cut larger than the players who came keeps them all (apply_cut): no reason to
    refuse the start, nor a cut that would now leave fewer than a round needs (apply_cut
    never cuts below that: fewer go out). A movement the players who came cannot fill is
    refused, with why."""
    s = t.structure
    check_structure(fmt, players, rounds=s.rounds, sets=s.sets, deals=s.deals)


def overdue_start(t: Tournament, now=None) -> TournamentError | None:
    """Why a tournament of tables whose live start has passed is not drawn (the refusal
    `start_tables` would give now), or None: not a table tournament, no start time set,
    not yet due, drawn already, closed, or nothing in the way (tick draws it within a
    minute). Shown on the organizer's and the players' pages, so that nobody waits
    without knowing why."""
    now = now or timezone.now()
    if not t.has_tables or t.starts_at is None or t.starts_at > now:
        return None
    if t.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
        return None
    if t.rounds.exists():
        return None
    try:
        _check_start(t, t.format, len(_active_entries(t)))
    except TournamentError as exc:
        return exc
    return None


def _not_drawn_yet(t: Tournament, actor, refusal: str) -> None:
    """The common refusals of a change to a table tournament before its draw (`t`
    locked by the caller)."""
    if not is_organizer(actor, t):
        raise NotAllowed(refusal)
    if not t.has_tables:
        raise TournamentError(N_("not a tournament of tables"))
    if t.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
        raise TournamentError(N_("this tournament is not open"))
    if t.rounds.exists():
        raise TournamentError(N_("the draw has been made: the start can no longer change"))


def play_as_rotating(tournament_id: int, actor, reason: str = "") -> Tournament:
    """The organizer of a writer-stays tournament that too few players came to (the
    movement needs two tables) plays it as rotating partners instead, before the draw.
    The structure stays as it is and must suit rotating partners (check_structure);
    audited as "change_format"."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        _not_drawn_yet(t, actor, N_("only organizers can change the format"))
        if t.format != Tournament.Format.WRITER_STAYS:
            raise TournamentError(N_("only a writer-stays tournament changes to rotating partners"))
        s = t.structure
        # The new format must suit the structure for the field it was made for, and
        # for the players who came once enough of them are in.
        check_structure(
            Tournament.Format.ROTATING, max(t.capacity, MIN_TABLE_PLAYERS), rounds=s.rounds,
            sets=s.sets, deals=s.deals, cut=s.cut, cut_fraction=s.cut_fraction,
        )  # fmt: skip
        before = t.format
        t.format = Tournament.Format.ROTATING
        t.save(update_fields=["format"])
        AuditLog.objects.create(
            tournament=t, actor=actor, action="change_format", before={"format": before},
            after={"format": t.format}, reason=(reason or "").strip(),
        )  # fmt: skip
    return t


def move_start(tournament_id: int, actor, starts_at: dt.datetime, now=None) -> Tournament:
    """The organizer moves the live start of a tournament of tables not drawn yet to a
    new time in the future (before the end of its window, if it has one). Audited as
    "move_start"."""
    now = now or timezone.now()
    if starts_at is None:
        raise TournamentError(N_("give the new start time"), field="starts_at")
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        _not_drawn_yet(t, actor, N_("only organizers can move the start"))
        if starts_at <= now:
            raise TournamentError(
                N_("the new start time has passed: choose a time in the future"),
                field="starts_at",
            )
        if t.ends_at and starts_at >= t.ends_at:
            raise TournamentError(
                N_("the new start time is after the end of the play window"), field="starts_at"
            )
        before = t.starts_at
        t.starts_at = starts_at
        t.live_start = True
        t.save(update_fields=["starts_at", "live_start"])
        AuditLog.objects.create(
            tournament=t, actor=actor, action="move_start",
            before={"starts_at": _iso_local(before)}, after={"starts_at": _iso_local(starts_at)},
            reason="",
        )  # fmt: skip
    return t


def _iso_local(moment: dt.datetime | None) -> str | None:
    """A moment as the audit trail keeps it: ISO, in the site's time zone, to the minute."""
    return timezone.localtime(moment).isoformat(timespec="minutes") if moment else None


def _entries_in(t: Tournament):
    """The entries still in (a queryset): not removed, not cut."""
    return Entry.objects.filter(tournament=t, out_after__isnull=True).exclude(
        status=Entry.Status.REMOVED
    )


def _active_entries(t: Tournament) -> list[Entry]:
    """The entries still in, by the current standing (its order: entries level on it
    share a rank and the lot orders them)."""
    entries = list(_entries_in(t).select_related("player"))
    if t.has_tables and any(e.rank is not None for e in entries):
        from . import tables

        order = {row["entry"]: i for i, row in enumerate(tables.standings(t))}
        return sorted(entries, key=lambda e: (order.get(e.pk, 10**9), e.pk))
    return sorted(entries, key=lambda e: (e.rank or 10**9, e.pk))


def _start_round(t: Tournament, number: int, now=None):
    from .models import Round

    rnd, _ = Round.objects.get_or_create(
        tournament=t, number=number, defaults={"starts_at": now or timezone.now()}
    )
    rnd.status = Round.Status.PLAYING
    rnd.save(update_fields=["status"])
    _start_set(t, rnd, 1, now)
    return rnd


def start_next_round(tournament_id: int, actor=None, now=None) -> bool:
    """A round waiting for its start time starts (its tables drawn and seated): by the
    tick at `starts_at`, or by the organizer now. Idempotent: False if none waits."""
    from .models import Round

    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can start the tournament"))
        rnd = Round.objects.filter(tournament=t, status=Round.Status.WAITING).first()
        if rnd is None:
            return False
        _start_round(t, rnd.number, now)
        pk = t.pk
        from . import tables as tables_read

        transaction.on_commit(lambda: tables_read.push_standings(pk))
    return True


def next_draw(t: Tournament) -> list[tuple] | None:
    """The draw of the round waiting to start, as it will be made (the draw is a pure
    function of the standing, the history and the seed): per table the four entries
    (None for a bot). None when no round waits."""
    from .models import Round

    rnd = Round.objects.filter(tournament=t, status=Round.Status.WAITING).first()
    if rnd is None:
        return None
    entries = {e.pk: e for e in _active_entries(t)}
    previous = seatings_so_far(t)
    last_ids = {p for table in previous[-1] for p in table if p is not None} if previous else None
    field_changed = last_ids is not None and last_ids != set(entries)
    seating = draw_set(t, rnd.number, 1, list(entries), previous, field_changed)
    return [tuple(entries.get(p) for p in table) for table in seating]


def seatings_so_far(t: Tournament) -> list[list[tuple]]:
    """Every set's seatings (entry ids, None for a bot), in play order."""
    from .models import TableSeat

    rows = (
        TableSeat.objects.filter(table__table_set__round__tournament=t)
        .order_by(
            "table__table_set__round__number", "table__table_set__number", "table__number", "index"
        )  # fmt: skip
        .values_list("table__table_set_id", "table__number", "index", "entry_id")
    )
    sets: dict[int, dict[int, list]] = {}
    for set_id, table, index, entry_id in rows:
        sets.setdefault(set_id, {}).setdefault(table, [None] * 4)[index] = entry_id
    return [[tuple(seats) for _, seats in sorted(tables.items())] for tables in sets.values()]


def draw_set(t: Tournament, round_number: int, set_number: int, players: list[int],
             previous: list[list[tuple]], field_changed: bool) -> list[tuple]:  # fmt: skip
    """The seating of a set, from the format's movement (tournaments.draw): the players
    in standing order, the earlier sets' seatings, and whether the field changed (a cut)
    since the last set."""
    from . import draw

    s = t.structure
    seed = f"{t.seed}/draw/r{round_number}/s{set_number}"
    history = draw.History.of(table for seating in previous for table in seating)
    for before, after in zip(previous, previous[1:], strict=False):
        if len(before) == len(after):
            draw.note_stays(history, before, after)
    first_of_round = set_number == 1
    redraw = round_number == 1 or field_changed

    def new_draw() -> list[tuple]:
        if round_number == 1:
            return draw.random_draw(players, seed)
        if s.redraw == "standing":
            return draw.standing_draw(players, history, seed)
        return draw.mixed_draw(players, history, seed)

    if t.format == Tournament.Format.ROTATING:
        if first_of_round:
            return new_draw()
        base = previous[-(set_number - 1)]  # the round's first set
        return [draw.rotating_sets(table)[(set_number - 1) % 3] for table in base]
    if t.format == Tournament.Format.WRITER_STAYS:
        if not previous or (first_of_round and redraw):
            return new_draw()
        return draw.writer_stays(previous[-1], history, seed)
    # Fixed pairs (the team cup): drawn once, at the first set, and kept to the end (a
    # player whose partner left partners another such player, else a bot); every set
    # only seats the pairs two a table: a later round's first by standing (redraw
    # "standing"), else against pairs not met yet.
    if not previous:
        return draw.pair_tables(draw.draw_pairs(players, history, seed), history, seed)
    pairs = draw.fixed_pairs(players, previous[-1], history, seed)
    by_standing = first_of_round and round_number > 1 and s.redraw == "standing"
    return draw.pair_tables(pairs, history, seed, by_standing=by_standing)


def _start_set(t: Tournament, rnd, number: int, now=None):
    from .models import Table, TableSeat, TableSet

    now = now or timezone.now()
    s = t.structure
    entries = {e.pk: e for e in _active_entries(t)}
    previous = seatings_so_far(t)
    last_ids = {p for table in previous[-1] for p in table if p is not None} if previous else None
    field_changed = last_ids is not None and last_ids != set(entries)
    seating = draw_set(t, rnd.number, number, list(entries), previous, field_changed)
    seated = [p for table in seating for p in table if p is not None]
    if len(seated) != len(set(seated)):
        raise TournamentError(N_("a player would be seated twice in one set: the draw is refused"))
    if set(seated) != set(entries):
        raise TournamentError(N_("the draw leaves a player out: refused"))
    seed_of_set = set_seed(t, rnd.number, number)
    deadline = now + dt.timedelta(minutes=s.set_minutes) if s.set_minutes else None
    tset = TableSet.objects.create(round=rnd, number=number, seed=seed_of_set, deadline=deadline)
    rules = s.rules_spec
    host_default = t.created_by
    for i, table in enumerate(seating, start=1):
        if s.in_room:
            # Real cards: the table plays the printed deals and enters its results.
            tab = Table.objects.create(table_set=tset, number=i, game=None)
            TableSeat.objects.bulk_create(
                TableSeat(table=tab, index=k, entry_id=p) for k, p in enumerate(table)
            )
            continue
        holders = [t.bot_level if p is None else entries[p].player for p in table]
        host = next((h for h in holders if not isinstance(h, str)), host_default)
        # Duplicate: one deal source for the set (same hands per seat, same dealer).
        seed = table_seed(seed_of_set, i, s.duplicate)
        # A live start: whoever has not opened their table within the grace is played by
        # the bot until they arrive (game/actions.py absence_expired).
        game = game_actions.create_seated_game(
            host, holders, seed=seed, rules=rules, bot_level=t.bot_level, clock=s.clock,
            arrive_within=settings.TABLES_ABSENT_GRACE,
        )  # fmt: skip
        tab = Table.objects.create(table_set=tset, number=i, game=game)
        TableSeat.objects.bulk_create(
            TableSeat(table=tab, index=k, entry_id=p) for k, p in enumerate(table)
        )
    return tset


def table_game_finished(game: Game, engine_game: engine.Game) -> bool:
    """The hook for a tournament table's game (same transaction as its last move): the
    table keeps its board and seat scores; the set moves on after commit."""
    from .models import Table

    table = Table.objects.select_for_update().filter(game=game).first()
    if table is None or table.finished:
        return False
    finish_table(table, engine_game.board, engine_game.score_for)
    return True


def set_seed(t: Tournament, round_number: int, set_number: int) -> str:
    """The seed of a set's deals (fixed by the tournament's seed: in duplicate the deals
    of every set are known before it is drawn, so a night in the room can print them)."""
    return f"{t.seed}/r{round_number}/s{set_number}"


def table_seed(set_seed: str, number: int, duplicate: bool) -> str:
    """The deal source of table `number` of a set: in duplicate one for the whole set
    (same hands per seat, same dealer at every table), else the table's own."""
    return set_seed if duplicate else f"{set_seed}/t{number}"


def finish_table(table, board, score_for) -> None:
    """A table of a set is done (its row locked by the caller): it keeps its board and
    each seat's set score (`score_for(seat)`: own side's total minus the other's); the
    set moves on after commit."""
    from .models import TableSeat

    table.finished = True
    table.board = [dict(b) for b in board]
    table.save(update_fields=["finished", "board"])
    seats = list(TableSeat.objects.filter(table=table))
    for seat in seats:
        seat.raw = score_for(seat.index)
    TableSeat.objects.bulk_update(seats, ["raw"])
    set_id = table.table_set_id
    from .tasks import advance_set

    queue = settings.TOURNAMENTS_RANKINGS_QUEUE
    transaction.on_commit(lambda: advance_set.apply_async((set_id,), queue=queue))


def advance_set(set_id: int, now=None) -> str:
    """Idempotent: once every table of the set is done, score the set, update the
    standings and start what comes next (the next set, a cut and the next round, or the
    end). Returns what it did."""
    from . import tables as tables_read
    from .models import Round, TableSet

    with transaction.atomic():
        tset = TableSet.objects.select_for_update().select_related("round").get(pk=set_id)
        t = Tournament.objects.select_for_update().get(pk=tset.round.tournament_id)
        if tset.status == TableSet.Status.DONE:
            return "done already"
        if t.is_closed:
            # Closed meanwhile: the close scored this set if its tables had all finished
            # (_close_tables), else stopped it; nothing more starts.
            return "closed"
        if tset.tables.filter(finished=False).exists():
            return "waiting"
        _end_set(tset, now)
        rows = write_standings(t)
        rnd, s = tset.round, t.structure
        if tset.number < s.sets:
            _start_set(t, rnd, tset.number + 1, now)
            what = "next set"
        else:
            rnd.status = Round.Status.DONE
            rnd.save(update_fields=["status"])
            if rnd.number < s.rounds:
                apply_cut(t, rnd.number)
                if s.round_break:
                    # A break: the next round is drawn at its start time; until then
                    # the organizer and the big screen show it.
                    Round.objects.create(
                        tournament=t, number=rnd.number + 1, status=Round.Status.WAITING,
                        starts_at=(now or timezone.now()) + dt.timedelta(minutes=s.round_break),
                    )  # fmt: skip
                    what = "round break"
                else:
                    _start_round(t, rnd.number + 1, now)
                    what = "next round"
            else:
                Entry.objects.filter(tournament=t, status=Entry.Status.PLAYING).update(
                    status=Entry.Status.FINISHED, finished_at=now or timezone.now()
                )
                t.status = Tournament.Status.CLOSED
                t.closed_at = now or timezone.now()
                t.save(update_fields=["status", "closed_at"])
                what = "closed"
        pk = t.pk
        if what in ("next round", "round break", "closed"):
            rows = None  # a cut changed the order: read it again
        transaction.on_commit(lambda: tables_read.push_standings(pk, rows))
    return what


def _end_set(tset, now=None) -> None:
    """A set whose every table finished: scored and marked done (advance_set, and a
    close that comes before advance_set did)."""
    from .models import TableSet

    score_set(tset)
    tset.status = TableSet.Status.DONE
    tset.finished_at = now or timezone.now()
    tset.save(update_fields=["status", "finished_at"])


def score_set(tset) -> None:
    """Raw and duplicate figures of every seat of the set (numpy, one pass)."""

    from . import scoring
    from .models import Structure, TableSeat

    tables = list(tset.tables.order_by("number").values_list("pk", "board"))
    written = scoring.written_by_deal([board for _, board in tables])
    duplicate = Structure.objects.filter(tournament__rounds__sets=tset).values_list(
        "duplicate", flat=True
    )[0]
    figures = scoring.set_figures(written, duplicate)
    if figures.mp is None:
        return
    row = {pk: i for i, (pk, _) in enumerate(tables)}
    seats = TableSeat.objects.filter(table__table_set=tset).values_list("pk", "table_id", "index")
    _update_many(
        TableSeat,
        ["dup_mp", "dup_diff"],
        [
            (float(figures.mp[row[tab], i % 2]), float(figures.diff[row[tab], i % 2]), pk)
            for pk, tab, i in seats
        ],
    )


def _update_many(model, fields: list[str], rows: list[tuple]) -> None:
    """One prepared UPDATE ... WHERE id = %s run for every row (values..., pk): much
    cheaper than bulk_update's CASE over hundreds of rows."""
    from django.db import connection

    table = connection.ops.quote_name(model._meta.db_table)
    sets = ", ".join(f"{connection.ops.quote_name(f)} = %s" for f in fields)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {sets} WHERE id = %s", rows)


def write_standings(t: Tournament) -> list[dict]:
    """The overall standing on the entries (rank, raw total, duplicate figures); returns
    its rows (the push after commit sends them)."""
    from . import tables as tables_read

    rows = tables_read.standings(t)
    _update_many(
        Entry,
        ["rank", "score", "deal_matchpoints", "field_diff"],
        [(r["rank"], r["raw"], r["dup_mp"], r["dup_diff"], r["entry"]) for r in rows],
    )
    t.rankings_version += 1
    t.rankings_computed_at = timezone.now()
    t.save(update_fields=["rankings_version", "rankings_computed_at"])
    if t.is_closed and t.rated_at is not None:  # a correction after the ratings
        from . import ratings

        pk = t.pk
        transaction.on_commit(lambda: ratings.revise(pk))
    return rows


def apply_cut(t: Tournament, after_round: int) -> int:
    """Between rounds: only the top `cut` (or the top fraction) go on. In fixed pairs
    whole pairs go on or out (partners are level: the lot may list another pair between
    them): the best `cut` / 2 pairs, or the top fraction of the pairs, a pair ranking by
    its better player; a player left without a partner counts as a pair. Never fewer
    than a round needs (check_structure refuses such a cut; a field that removals
    shrank keeps them all). Returns how many were left out."""
    from . import draw

    s = t.structure
    active = _active_entries(t)
    size = 1
    groups = [(e.pk,) for e in active]
    if t.format == Tournament.Format.PAIRS:
        size = 2
        previous = seatings_so_far(t)
        groups = draw.partnerships([e.pk for e in active], previous[-1] if previous else [])
    cut = max(1, s.cut // size) if s.cut else None
    keep = _cut_keeps(len(groups), cut, s.cut_fraction)
    keep = max(keep, min(len(groups), -(-_least_players(t.format) // size)))
    out = [pk for group in groups[keep:] for pk in group]
    Entry.objects.filter(pk__in=out).update(out_after=after_round)
    return len(out)


def expire_sets(now=None) -> int:
    """Periodic: a set past its deadline is finished by the bots (each unfinished
    table's game played to its end from where it stands)."""
    from .models import TableSet

    now = now or timezone.now()
    played = 0
    due = TableSet.objects.filter(status=TableSet.Status.PLAYING, deadline__lte=now)
    for tset in due:
        for game_id in tset.tables.filter(finished=False, game__isnull=False).values_list(
            "game_id", flat=True
        ):
            played += game_actions.autoplay(game_id)
    return played


def start_due_tables(now=None) -> int:
    """Periodic: tournaments of tables whose live start has come are drawn and started."""
    now = now or timezone.now()
    started = 0
    due = Tournament.objects.filter(
        status__in=[Tournament.Status.OPEN, Tournament.Status.RUNNING],
        starts_at__lte=now,
        rounds__isnull=True,
    ).exclude(format=Tournament.Format.SOLO_DUPLICATE)
    for t in due:
        # removed entries do not play: with fewer than 4 still in, it waits (not a
        # refusal logged every minute)
        if _entries_in(t).count() >= MIN_TABLE_PLAYERS:
            try:
                start_tables(t.pk, None, now)
            except TournamentError as exc:
                # E.g. a cut larger than the players who came: the organizer's page
                # says so when they start it; the other tournaments still start.
                logger.warning("tournament %s not started at its time: %s", t.pk, exc)
                continue
            started += 1
    return started


def replace_player(entry_id: int, actor, new_user, reason: str) -> Entry:
    """The organizer of a tournament of tables replaces a player who leaves: the entry
    (its results so far, its standing) is played on by `new_user`, at the tables of the
    set being played (the bot keeps the seat until they take it) and in every later set.
    The tables they finished keep their name (TableSeat.played_by). Logged with the
    reason."""
    from .models import TableSeat

    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a replacement needs a reason"))
    entry = Entry.objects.select_related("tournament", "player").get(pk=entry_id)
    t = entry.tournament
    if not is_organizer(actor, t):
        raise NotAllowed(N_("only organizers can replace a player"))
    if not t.has_tables or t.is_closed:
        raise TournamentError(N_("only a running tournament of tables takes a replacement"))
    if new_user is None or not getattr(new_user, "is_authenticated", False):
        raise TournamentError(N_("the replacement needs an account"))
    if not new_user.has_usable_password() and not getattr(
        settings, "TOURNAMENTS_ALLOW_GUESTS", False
    ):  # as join: a guest account costs nothing
        raise TournamentError(
            N_("a guest cannot play in a tournament: the replacement needs their own account")
        )
    with transaction.atomic():
        # One replacement at a time (two organizers, a double tap): the second sees the
        # first's newcomer in the tournament and is refused, instead of seating them twice.
        t = Tournament.objects.select_for_update().get(pk=t.pk)
        if t.is_closed:
            raise TournamentError(N_("only a running tournament of tables takes a replacement"))
        if Entry.objects.filter(tournament=t, player=new_user).exists():
            raise TournamentError(N_("the replacement already plays in this tournament"))
        if has_seen(t, new_user):  # as join: whoever saw the deals or results cannot play
            raise TournamentError(
                N_("%(player)s has seen this tournament's deals or results and cannot play in it"),
                {"player": new_user.get_username()},
            )
        if TableSeat.objects.filter(
            table__table_set__round__tournament=t, played_by=new_user
        ).exists():  # replaced before (a record from before the line below)
            raise TournamentError(
                N_("%(player)s has played at this tournament's tables and cannot come back in"),
                {"player": new_user.get_username()},
            )
        entry = Entry.objects.select_for_update().get(pk=entry_id)
        old = entry.player
        # Whoever leaves held this tournament's hands (the set in play's too): seated
        # again, at another table of the same set, they would play cards they know.
        mark_seen(t, old)
        # The sets they finished stay theirs on the record (travellers, exports).
        TableSeat.objects.filter(entry=entry, table__finished=True, played_by__isnull=True).update(
            played_by=old
        )
        seats = TableSeat.objects.filter(
            entry=entry, table__finished=False, table__table_set__status="playing"
        ).select_related("table")
        for seat in seats:
            if seat.table.game_id is not None:  # in the room the new player just sits down
                game_actions.hand_over_seat(seat.table.game_id, seat.index, old, new_user)
        entry.player = new_user
        entry.save(update_fields=["player"])
        AuditLog.objects.create(
            tournament=t, entry=entry, actor=actor, action="replace_player",
            before={"player": old.get_username()}, after={"player": new_user.get_username()},
            reason=reason,
        )  # fmt: skip
    return entry


def seat_to_bot(
    tournament_id: int, actor, round_number: int, set_number: int, table_number: int, index: int
) -> None:
    """The organizer lets the bot play a person's seat at an online table of the set
    being played (a player who is there but does not play on: without a clock nothing
    else ends the wait). The person takes it back when they will ("neem je plaats
    terug"). Logged."""
    from .models import Table, TableSeat, TableSet

    t = Tournament.objects.get(pk=tournament_id)
    if not is_organizer(actor, t):
        raise NotAllowed(N_("only organizers can let the bot play a seat"))
    if not t.has_tables or t.is_closed:
        raise TournamentError(N_("not a running tournament of tables"))
    table = (
        Table.objects.filter(
            table_set__round__tournament=t,
            table_set__round__number=round_number,
            table_set__number=set_number,
            number=table_number,
        )  # fmt: skip
        .select_related("table_set")
        .first()
    )
    if table is None or table.game_id is None:  # in the room nobody but people play
        raise TournamentError(N_("no such table in this set"))
    if table.finished or table.table_set.status != TableSet.Status.PLAYING:
        raise TournamentError(N_("this table is not being played"))
    seat = TableSeat.objects.filter(table=table, index=index).select_related("entry").first()
    if seat is None or seat.entry is None or not game_actions.hand_to_bot(table.game_id, index):
        raise TournamentError(N_("the bot plays this seat already"))
    AuditLog.objects.create(
        tournament=t, entry=seat.entry, actor=actor, action="seat_to_bot",
        after={"round": round_number, "set": set_number, "table": table_number, "seat": index},
    )  # fmt: skip


def _close_tables(t: Tournament, actor, now=None) -> None:
    """Close a tournament of tables before its last set ends (the organizer, or the end
    of its window): the tables still playing stop where they stand (no more moves; the
    set is not scored), the standing of the finished sets is final. Inside the caller's
    locked transaction."""
    from .models import Round, Table, TableSet
    from .tables import unfinished_sets

    # A set whose every table finished before the close, not yet ended by advance_set
    # (it runs after the last table's commit): it was played out, so it counts.
    for tset in TableSet.objects.filter(round__tournament=t).exclude(status=TableSet.Status.DONE):
        if tset.tables.exists() and not tset.tables.filter(finished=False).exists():
            _end_set(tset, now)
            if tset.number == t.structure.sets:
                Round.objects.filter(pk=tset.round_id).update(status=Round.Status.DONE)
    unfinished = Table.objects.filter(
        table_set__round__tournament=t, finished=False, game__isnull=False
    ).values_list("game_id", flat=True)
    stopped = unfinished_sets(t)
    for game_id in list(unfinished):
        game_actions.stop_game(game_id, reason="stopped")
    Entry.objects.filter(tournament=t, status=Entry.Status.PLAYING).update(
        status=Entry.Status.FINISHED, finished_at=now or timezone.now()
    )
    t.status = Tournament.Status.CLOSED
    t.closed_at = now or timezone.now()
    t.save(update_fields=["status", "closed_at"])
    AuditLog.objects.create(
        tournament=t, actor=actor, action="close", before=None,
        after={"stopped": stopped} if stopped else None, reason="",
    )  # fmt: skip
    write_standings(t)


def _check_writable(t: Tournament, table, deal_number: int, written: list[int]) -> None:
    """A corrected score must be one the table's rules can write on that deal: one side
    writes nothing (both, on a tie), the other its points over the threshold times a
    multiplier the deal can have (engine.scoresheet.writable)."""
    from engine.scoresheet import writable

    from .tables import deal_source

    seed, rules = deal_source(table, t.structure)
    rules = engine.get_rules(rules)
    possible = writable(rules, engine.deal_for(seed, deal_number, rules))
    if written == [0, 0] or (min(written) == 0 and max(written) in possible):
        return
    raise TournamentError(
        N_(
            "%(ns)s – %(ew)s cannot be written on this deal: one side writes 0 and the "
            "other its points over %(threshold)s times the multiplier, at most %(most)s"
        ),
        {"ns": written[0], "ew": written[1], "threshold": rules.threshold, "most": max(possible)},
    )


def correct_table_deal(
    tournament_id: int, actor, round_number: int, set_number: int, table_number: int,
    deal_number: int, written: tuple[int, int] | list[int], reason: str,
):  # fmt: skip
    """The organizer corrects the written score of one deal at one table of a tournament
    of tables (`written`: [South/North, West/East]), with a reason. The table's board
    keeps the original next to the correction (shown by the travellers and the
    exports); the seats' set scores follow, and once the set is finished its duplicate
    figures and the standings (set, round, overall) are recomputed and pushed live.
    Logged in the audit trail. A cut already made after a round is not undone
    (tables.cut_changes tells the organizer when the standing no longer bears it out)."""
    from . import tables as tables_read
    from .models import Table, TableSeat, TableSet

    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a correction needs a reason"))
    try:
        new = [int(written[0]), int(written[1])]
    except (TypeError, ValueError, IndexError):
        raise TournamentError(N_("a written score is two whole numbers")) from None
    if min(new) < 0:
        raise TournamentError(N_("a written score is not negative"))
    t = Tournament.objects.get(pk=tournament_id)
    if not is_organizer(actor, t):
        raise NotAllowed(N_("only organizers can correct scores"))
    if not t.has_tables:
        raise TournamentError(N_("not a tournament of tables"))
    if (
        not t.is_closed
        and entry_of(actor, t) is None
        and (
            TableSet.objects.filter(
                round__tournament=t, round__number=round_number, number=set_number
            )
            .exclude(status=TableSet.Status.DONE)
            .exists()
        )
    ):
        # An organizer without an entry who corrects a table of a set still played has
        # read its score (a correction says whether it is the score already written): as
        # choosing to look, they can no longer be put in at a table of these deals.
        # Recorded whether the correction goes through or not.
        mark_seen(t, actor)
    with transaction.atomic():
        tset = (
            TableSet.objects.select_for_update()
            .filter(round__tournament=t, round__number=round_number, number=set_number)
            .first()
        )
        if tset is None:
            raise TournamentError(N_("no such round and set"))
        t = Tournament.objects.select_for_update().get(pk=tournament_id)  # advance_set's order
        table = (
            Table.objects.select_for_update().filter(table_set=tset, number=table_number).first()
        )
        if table is None:
            raise TournamentError(N_("no such table in this set"))
        if (
            tset.status != TableSet.Status.DONE
            and entry_of(actor, t) is not None
            and not TableSeat.objects.filter(table=table, entry__player=actor).exists()
        ):
            # An organizer who plays sees no other table's results before the set is
            # done: a correction (and its "already written") would tell them.
            raise NotAllowed(
                N_("you play in this tournament: correct another table once the set is done")
            )
        if not table.finished:
            raise TournamentError(N_("only a finished table's score can be corrected"))
        board = [dict(b) for b in table.board]
        row = next((b for b in board if b.get("deal") == deal_number), None)
        if row is None:
            raise TournamentError(N_("this table played no such deal"))
        _check_writable(t, table, deal_number, new)
        old = list(row["written"])
        if old == new:
            raise TournamentError(N_("the corrected score is the score already written"))
        row.setdefault("original_written", old)  # the score as played, kept once
        row["written"] = new
        if row["original_written"] == new:
            del row["original_written"]  # corrected back to what was played
        table.board = board
        table.save(update_fields=["board"])
        delta = (new[0] - new[1]) - (old[0] - old[1])  # for team 0 (South/North)
        seats = list(TableSeat.objects.filter(table=table))
        for seat in seats:
            seat.raw = (seat.raw or 0) + (delta if seat.index % 2 == 0 else -delta)
        TableSeat.objects.bulk_update(seats, ["raw"])
        AuditLog.objects.create(
            tournament=t, actor=actor, action="correct_table",
            before={"round": round_number, "set": set_number, "table": table_number,
                    "deal": deal_number, "written": old},
            after={"written": new}, reason=reason,
        )  # fmt: skip
        rows = None
        if tset.status == TableSet.Status.DONE:
            score_set(tset)
            rows = write_standings(t)
        pk = t.pk
        transaction.on_commit(lambda: tables_read.push_standings(pk, rows))
    return table
