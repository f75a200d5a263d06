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
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_noop as N_

import engine
from engine import records
from engine.rules import MAX_FIXED_DEALS
from game import actions as game_actions
from game.models import Game, seat_group

from . import replays
from .models import AuditLog, Club, DealPlay, DealResult, Entry, Tournament, TournamentDeal

logger = logging.getLogger(__name__)


class TournamentError(Exception):
    """Refused. The message is English (logs, tests) and marked for translation: views
    show it with gettext."""

    code = "error"


class NotAllowed(TournamentError):
    code = "not_allowed"


class CannotJoin(TournamentError):
    code = "cannot_join"


# --- who may do what --------------------------------------------------------------------


def is_organizer(user, tournament: Tournament) -> bool:
    if not (user and user.is_authenticated):
        return False
    if user.is_staff or tournament.created_by_id == user.pk:
        return True
    return tournament.club is not None and tournament.club.is_organizer(user)


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
    return tournament.club.is_member(user) or is_organizer(user, tournament)


def visible_closed_q(user, prefix: str = "") -> Q:
    """A filter on tournaments (`prefix`: the path to them, e.g. "tournament__") keeping
    the closed ones `user` may see: public results, and for a members-only club
    tournament its members, organizers and entrants (staff see every one)."""
    p = prefix
    q = Q(**{f"{p}club__isnull": True}) | Q(
        **{f"{p}results_audience": Tournament.Audience.EVERYONE}
    )
    if user is not None and user.is_authenticated:
        if user.is_staff:
            return Q()
        q |= Q(**{f"{p}club__members": user}) | Q(**{f"{p}club__organizers": user})
        q |= Q(**{f"{p}entries__player": user}) | Q(**{f"{p}created_by": user})
    return Q(**{f"{p}status": Tournament.Status.CLOSED}) & q


def mark_seen(tournament: Tournament, user) -> None:
    """Record that `user` has seen the deals or results: they may not enter any more."""
    if user and user.is_authenticated and not tournament.is_closed:
        tournament.deals_seen_by.add(user)


# --- clubs ------------------------------------------------------------------------------


def _one_line_name(*values: str) -> None:
    from engine.records import is_one_line

    if not all(is_one_line(v or "") for v in values):
        raise TournamentError(N_("a name is one line: no line breaks or control characters"))


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
        raise NotAllowed(N_("only the club's organizers can do that"))
    club.invite_code = secrets.token_urlsafe(6)
    club.save(update_fields=["invite_code"])
    return club


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
    _one_line_name(name, seed or "")
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
    """Generate and store the deals, publish the commitment."""
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
        if t.starts_at and now < t.starts_at:
            raise CannotJoin(N_("the play window has not started yet"))
        if t.club is not None and not (t.club.is_member(user) or is_organizer(user, t)):
            if not (t.invite_code and invite_code.strip() == t.invite_code):
                raise CannotJoin(N_("this tournament is for the club's members"))
        if t.invite_code and not t.club and invite_code.strip() != t.invite_code:
            raise CannotJoin(N_("this tournament needs an invite code"))
        if t.deals_seen_by.filter(pk=user.pk).exists():
            raise CannotJoin(N_("you have seen this tournament's deals or results"))
        taken = Entry.objects.filter(tournament=t).exclude(status=Entry.Status.REMOVED).count()
        if taken >= t.capacity:
            raise CannotJoin(N_("the tournament is full"))
        game = game_actions.create_game(
            user, seed=t.seed, rules=t.game_rules, bot_level=t.bot_level
        )
        try:
            with transaction.atomic():
                entry = Entry.objects.create(tournament=t, player=user, game=game)
        except IntegrityError:
            raise CannotJoin(N_("you already have an entry")) from None
        if _maybe_running(t, now):
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
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if actor is not None and not is_organizer(actor, t):
            raise NotAllowed(N_("only organizers can close the tournament"))
        if t.is_closed:
            return t
        if t.status == Tournament.Status.DRAFT:
            raise TournamentError(N_("a draft was never opened: there is nothing to close"))
        rule_before = t.unfinished_rule
        t.unfinished_rule = unfinished_rule or rule_before
        playing = Entry.objects.filter(tournament=t, status=Entry.Status.PLAYING)
        for entry_id, game_id in playing.values_list("pk", "game_id"):
            # The game's row is locked before the entry's, as a move does (its last move
            # finishes the entry inside the game's lock): no deadlock with a last card
            # played at the moment of the close, which then simply counts as played.
            if t.unfinished_rule == Tournament.Unfinished.BOT:
                moves = game_actions.autoplay(game_id)  # the hook finishes the entry
                game = Game.objects.get(pk=game_id)
                entry = Entry.objects.select_for_update().get(pk=entry_id)
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


def _retag_record(game: Game) -> None:
    """The stored record of a game the bot finished says so (game.actions.record_tags:
    [FinishedBy]); it was written when the last card fell, before the entry was marked."""
    game.refresh_from_db()
    game.record = records.write_text(game_actions.replay(game), game_actions.record_tags(game))
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
        Entry.objects.filter(tournament=t, status=Entry.Status.FINISHED)
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


def correct_score(entry_id: int, actor, score: int, reason: str) -> Entry:
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a correction needs a reason"))
    with transaction.atomic():
        entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry_id)
        if not is_organizer(actor, entry.tournament):
            raise NotAllowed(N_("only organizers can correct scores"))
        if entry.status != Entry.Status.FINISHED:
            raise TournamentError(N_("only a finished entry's score can be corrected"))
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
    with transaction.atomic():
        # The game first, then the entry: the order of a move that finishes the entry.
        game_actions.stop_game(entry.game_id, reason="removed")  # no more moves
        entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry_id)
        before = entry.status
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
    rule for unfinished games (finished by the bot, or scored as played so far)."""
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(N_("a restore needs a reason"))
    entry = Entry.objects.select_related("tournament").get(pk=entry_id)
    if not is_organizer(actor, entry.tournament):
        raise NotAllowed(N_("only organizers can restore entries"))
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
    for t in Tournament.objects.filter(status=Tournament.Status.OPEN, starts_at__lte=now):
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
    return {"started": started, "closed": closed}
