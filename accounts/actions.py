"""Deleting an account: the person goes, their results stay.

A player's results are part of other people's rankings (matchpoints are won against
them, a table's duplicate figures compare with theirs), so an account is not deleted
row by row: it is made anonymous. The name becomes "anoniem-…", the e-mail address, the
password and the club memberships go, and the account can no longer log in (every
session ends with it, and its open table sockets are closed). What carries the old name
is rewritten: the stored game records, the audit trail's player fields, and the records
archives of closed tournaments (rebuilt from the database).

Some things cannot be left behind by somebody who goes, and deletion is refused with
the reason until they are settled (`blockers`): a club that would be left with members
or a tournament still going but nobody to run it, a tournament run alone, and a seat in
a tournament of tables that has been drawn and not closed (the organizer replaces the
player, or it ends first).

A club the account runs alone with nobody else in it does not stop the deletion, but a
club always keeps an organizer, so it does not stay behind as it was (`left_clubs`, told
first by `notices`): one that never opened a tournament goes with the account (its
seasons and unpublished drafts with it); one that did stays, so that its tournaments'
results stay where their players find them, but closed: its drafts go and its invite
code is replaced by one nobody knows, so nobody joins a club nobody can run.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from engine.game import SEAT_NAMES
from game import actions as game_actions
from game.models import Game, Seat
from tournaments.models import AuditLog, Club, Entry, ExportArchive, Tournament

from .forms import ANONYMOUS_PREFIX  # not chosen at sign-up; no public page
from .models import Preferences

_RUNNING = (Tournament.Status.OPEN, Tournament.Status.RUNNING)


class AccountError(ValueError):
    """The account cannot be deleted yet; the message says what to settle first."""


def blockers(user) -> list[str]:
    """What stands in the way of deleting `user`'s account, one sentence each (already
    translated); empty when it can go."""
    found: list[str] = []
    for club in Club.objects.filter(organizers=user).order_by("name"):
        if club.organizers.exclude(pk=user.pk).exists():
            continue
        if club.members.exclude(pk=user.pk).exists():
            found.append(
                _(
                    "You are the only organizer of the club “%(club)s”: "
                    "make another member an organizer first."
                )
                % {"club": club.name}
            )
            continue
        for t in club.tournaments.filter(status__in=_RUNNING).order_by("pk"):
            found.append(
                _(
                    "Your club “%(club)s” has a tournament that has not closed: "
                    "close “%(name)s” first."
                )
                % {"club": club.name, "name": t.name}
            )
    alone = Tournament.objects.filter(club__isnull=True, created_by=user, status__in=_RUNNING)
    for t in alone.order_by("pk"):
        found.append(
            _("You run the tournament “%(name)s”, which has not closed: close it first.")
            % {"name": t.name}
        )
    playing = (
        Entry.objects.filter(player=user, tournament__status__in=_RUNNING, out_after__isnull=True)
        .exclude(tournament__format=Tournament.Format.SOLO_DUPLICATE)
        .exclude(status=Entry.Status.REMOVED)
        .filter(tournament__rounds__isnull=False)
        .select_related("tournament")
        .distinct()
    )
    for entry in playing.order_by("tournament_id"):
        found.append(
            _(
                "You play in “%(name)s”, whose tables have been drawn: "
                "ask its organizer to replace you, or wait until it closes."
            )
            % {"name": entry.tournament.name}
        )
    return found


def left_clubs(user) -> list[tuple[Club, bool]]:
    """The clubs `user` runs alone with nobody else in them, by name, each with whether
    it stays (a tournament of it was opened: its results stay) or goes with the account."""
    found = []
    for club in Club.objects.filter(organizers=user).order_by("name", "pk"):
        others = club.organizers.exclude(pk=user.pk).exists()
        if others or club.members.exclude(pk=user.pk).exists():
            continue
        found.append((club, club.tournaments.exclude(status=Tournament.Status.DRAFT).exists()))
    return found


def notices(user) -> list[str]:
    """What deleting `user`'s account does besides, one sentence each (already
    translated), to be told before it is done; empty when nothing."""
    told = []
    for club, stays in left_clubs(user):
        if stays:
            text = _(
                "Nobody else is in your club “%(club)s”: it stays with its tournaments' "
                "results, but nobody can join it any more."
            )
        else:
            text = _(
                "Nobody else is in your club “%(club)s”, which has held no tournament: "
                "it is removed with your account."
            )
        told.append(text % {"club": club.name})
    return told


def notices_key(user) -> list[list]:
    """`notices` as plain data, the same in every language: what the person was told."""
    return [[club.pk, stays] for club, stays in left_clubs(user)]


def _close_left_clubs(left: list[tuple[Club, bool]]) -> None:
    """The clubs the account ran alone (`left_clubs`, read before it left them)."""
    for club, stays in left:
        if stays:
            club.tournaments.filter(status=Tournament.Status.DRAFT).delete()
            club.invite_code = secrets.token_hex(16)  # never shown: the old link is dead
            club.save(update_fields=["invite_code"])
        else:
            club.delete()  # drafts and seasons with it; nothing was ever opened


def _anonymous_name() -> str:
    users = get_user_model().objects
    while True:
        name = ANONYMOUS_PREFIX + secrets.token_hex(4)
        if not users.filter(username=name).exists():
            return name


def delete_account(user) -> str:
    """Make `user` anonymous (see the module's text); returns the new name. Raises
    AccountError with the first blocker when the account cannot go yet."""
    from tournaments import actions as tournament_actions

    User = get_user_model()
    with transaction.atomic():
        # One deletion at a time per account: two clicks, or two devices, queue here.
        user = User.objects.select_for_update().get(pk=user.pk)
        if not user.is_active:
            raise AccountError(_("This account has been deleted already."))
        # The clubs it runs, locked as `leave_club` does: an organizer stepping down at
        # the same moment cannot leave one without any.
        list(Club.objects.select_for_update().filter(pk__in=user.organized_clubs.values("pk")))
        found = blockers(user)
        if found:
            raise AccountError(found[0])
        old_name = user.get_username()
        left = left_clubs(user)
        # Sign-ups for a tournament of tables not drawn yet are taken back.
        undrawn = (
            Entry.objects.filter(
                player=user, tournament__status__in=_RUNNING, tournament__rounds__isnull=True
            )
            .exclude(tournament__format=Tournament.Format.SOLO_DUPLICATE)
            .values_list("tournament_id", flat=True)
        )
        for tournament_id in list(undrawn):
            tournament_actions.withdraw(tournament_id, user)
        game_actions.leave_all_tables(user)
        game_actions.close_sockets_of(user)
        for club in Club.objects.filter(Q(members=user) | Q(organizers=user)).distinct():
            club.organizers.remove(user)
            club.members.remove(user)
        _close_left_clubs(left)

        user.username = _anonymous_name()
        user.email = ""
        user.first_name = user.last_name = ""
        user.is_active = user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save()
        Preferences.objects.filter(user=user).delete()

        _rewrite_records(user)
        for log in AuditLog.objects.filter(Q(before__player=old_name) | Q(after__player=old_name)):
            for side in (log.before, log.after):
                if isinstance(side, dict) and side.get("player") == old_name:
                    side["player"] = user.username
            log.save(update_fields=["before", "after"])
        _rebuild_archives(user)
    return user.username


def _rewrite_records(user) -> None:
    """The stored records name the seats' people: write them again with the new name."""
    games = Game.objects.filter(Q(seats__user=user) | Q(owner=user)).exclude(record="").distinct()
    for game in games:
        game.record = game_actions.fresh_record(game)
        game.save(update_fields=["record"])


def _rebuild_archives(user) -> None:
    """A closed tournament's stored records archive names its players: dropped, and built
    again after commit (until then its download is built from the database)."""
    from tournaments.tasks import build_records_zip

    ids = list(
        Tournament.objects.filter(entries__player=user, archives__isnull=False)
        .values_list("pk", flat=True)
        .distinct()
    )
    ExportArchive.objects.filter(tournament_id__in=ids).delete()
    for pk in ids:
        transaction.on_commit(lambda pk=pk: build_records_zip.delay(pk))


def personal_data(user) -> dict:
    """Everything the site keeps about `user`, for them to download (the right of access):
    the account, the clubs, every tournament entry and every game they sat at. Under the
    same fairness rules as the pages: a rank only where the standings may be seen, a
    game's record (it names every hand) only once the game is over and its tournament's
    deals are no longer sealed."""
    from game.signals import is_seed_sealed

    from . import history

    def when(moment):
        return moment.isoformat() if moment else None

    entries = list(history.entries_of(user, own=True))
    games = []
    seats = (
        Seat.objects.filter(user=user)
        .select_related("game")
        .prefetch_related(game_actions.seats_prefetch("game__seats"))
        .order_by("game__created")
    )
    for seat in seats:
        game = seat.game
        finished = game.status == Game.Status.FINISHED
        games.append(
            {
                "id": str(game.public_id),
                "created": when(game.created),
                "rules": game.rules,
                "status": game.status,
                "seat": SEAT_NAMES[seat.index].lower(),
                "players": [
                    s.user.get_username() if s.user_id else f"bot:{s.bot_level}"
                    for s in game_actions.prefetched_seats(game)
                ],
                "score": seat.final_score,
                "record": game_actions.record_text(game)
                if finished and not is_seed_sealed(game)
                else None,
            }
        )
    return {
        "account": {
            "username": user.get_username(),
            "email": user.email,
            "date_joined": when(user.date_joined),
            "last_login": when(user.last_login),
            "language": Preferences.objects.filter(user=user)
            .values_list("language", flat=True)
            .first(),
        },
        "clubs": [
            {"name": club.name, "organizer": club.is_organizer(user)}
            for club in user.clubs.order_by("name")
        ],
        "tournaments": [
            {
                "name": row.tournament.name,
                "club": row.tournament.club.name if row.tournament.club_id else None,
                "date": row.date.isoformat() if row.date else None,
                "entry": row.entry.status,
                # How the game ended, as the pages mark it: "played" (played out), "bot"
                # (finished by the bot at the close), "as_played" (scored as it stood).
                "finish_mode": row.entry.finish_mode or None,
                # An entry of a tournament of tables played on by others after a
                # replacement: theirs too, so it counts for nobody (as the pages say).
                "played_by": row.shared_by or [],
                "score": row.score,
                "rank": row.rank,
                "players": row.field,
                "matchpoints_pct": row.pct,
            }
            for row in history.rows(entries, user, own=True)
        ],
        "tournaments_created": [
            {"name": t.name, "status": t.status, "created": when(t.created)}
            for t in Tournament.objects.filter(created_by=user).order_by("pk")
        ],
        "rating": [
            # What each rated tournament did to the rating (tournaments/ratings.py).
            {
                "tournament": c.tournament.name,
                "before": round(c.before, 1),
                "after": round(c.after, 1),
                "rank": c.rank,
                "players": c.field,
                "when": when(c.created),
            }
            for c in user.rating_changes.select_related("tournament").order_by("created", "pk")
        ],
        "games": games,
    }
