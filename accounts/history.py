"""A player's tournament history for the profile pages, under the fairness rules.

Two views of the same entries:
- the player's own (`own=True`): every entry, with its own score; rank and percentage
  only where tournaments.actions.can_see_results lets the player see the standings
  (closed, or finished in an "after you finish" tournament);
- the public one: finished entries of closed tournaments only, and of those only the
  ones the viewer may see (tournaments.actions.visible_closed_q): a club's members-only
  tournament is left out for whoever is not of the club or among its players.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Avg, Count, Min, Q, QuerySet
from django.utils import timezone

from tournaments import actions
from tournaments.models import Entry, TableSeat, Tournament
from tournaments.ratings import not_own_result_q, shared_entries


@dataclass
class HistoryRow:
    entry: Entry
    tournament: Tournament
    date: date | None
    score: int | None
    results_visible: bool
    rank: int | None
    field: int | None
    pct: float | None
    # Played by more than one person (the organizer replaced a player): on both their
    # pages, with who played it; it counts for nobody (ratings.shared_entries).
    shared_by: list[str] | None = None

    @property
    def kind(self) -> str:
        if self.tournament.is_day:
            return "day"
        return "club" if self.tournament.club_id else "public"


def _visible_to(viewer) -> QuerySet[Tournament]:
    # A subquery, not a join: joins over club members would repeat entries.
    return Tournament.objects.filter(actions.visible_closed_q(viewer))


def entries_of(player, *, own: bool, viewer=None) -> QuerySet[Entry]:
    """The player's entries, and those whose sets they played before an organizer gave
    the entry to someone else (tournaments.models.TableSeat.played_by)."""
    played_for = TableSeat.objects.filter(played_by=player).values("entry_id")
    qs = Entry.objects.filter(Q(player=player) | Q(pk__in=played_for)).select_related(
        "tournament", "tournament__club", "player"
    )
    if not own:
        qs = qs.filter(status=Entry.Status.FINISHED, tournament__in=_visible_to(viewer))
    return qs.order_by("-joined_at", "-pk")


def _when(entry: Entry) -> date | None:
    t = entry.tournament
    if t.day is not None:
        return t.day
    moment = t.closed_at or t.starts_at or t.opened_at or entry.joined_at
    # The club's day (TIME_ZONE), as every other page dates it: a close at 00:40 in
    # Brussels is 23:40 UTC the day before.
    return timezone.localdate(moment) if moment else None


def rows(entries: list[Entry], viewer, *, own: bool) -> list[HistoryRow]:
    """One row per entry. `viewer` is the player on the own page (their rights decide),
    anyone on the public page (only closed tournaments are there)."""
    ids = {e.tournament_id for e in entries}
    fields = dict(  # the ranked field ("3 / 4" counts only those with a place)
        Entry.objects.filter(
            tournament_id__in=ids, status=Entry.Status.FINISHED, rank__isnull=False
        )
        .values_list("tournament_id")
        .annotate(n=Count("pk"))
    )
    shared = shared_entries(ids) if ids else set()
    players = _players_of(shared & {e.pk for e in entries})
    out = []
    for e in entries:
        t = e.tournament
        finished = e.status == Entry.Status.FINISHED
        if own:
            # Closed: True without a query; otherwise the same rule as the pages.
            visible = finished and actions.can_see_results(viewer, t)
        else:
            visible = finished and t.is_closed
        out.append(
            HistoryRow(
                entry=e,
                tournament=t,
                date=_when(e),
                score=e.score if finished and (own or visible) else None,
                results_visible=visible,
                rank=e.rank if visible else None,
                field=fields.get(t.pk) if visible else None,
                pct=e.deal_matchpoints_pct if visible else None,
                shared_by=players.get(e.pk),
            )
        )
    return out


def _players_of(entry_ids: set[int]) -> dict[int, list[str]]:
    """Who played each of these entries: whoever played a set of it, and its player."""
    if not entry_ids:
        return {}
    names: dict[int, set[str]] = {}
    for entry_id, earlier, now in TableSeat.objects.filter(
        entry_id__in=entry_ids, played_by__isnull=False
    ).values_list("entry_id", "played_by__username", "entry__player__username"):
        names.setdefault(entry_id, {now}).add(earlier)
    return {k: sorted(v) for k, v in names.items()}


def summary(player, *, own: bool = True, viewer=None) -> dict:
    """Figures over closed tournaments only; on the public page over those the viewer
    may see (the same as the own page when they may see all)."""
    # A result of their own: ranked (not a tournament of tables closed before a set of
    # theirs finished, nor one whose sets the bot played because they never came).
    closed = Entry.objects.filter(
        player=player,
        status=Entry.Status.FINISHED,
        tournament__status=Tournament.Status.CLOSED,
        rank__isnull=False,
    )
    if not own:
        closed = closed.filter(tournament__in=_visible_to(viewer))
    # An entry two people played, or a game the bot finished at the close, is nobody's
    # own result (as in ratings and seasons).
    closed = closed.exclude(not_own_result_q())
    figures = closed.aggregate(
        played=Count("pk"),
        average_pct=Avg("deal_matchpoints_pct"),
        wins=Count("pk", filter=Q(rank=1)),
        best_day_rank=Min("rank", filter=Q(tournament__day__isnull=False)),
        days=Count("pk", filter=Q(tournament__day__isnull=False)),
    )
    # Not rounded here: the page's floatformat rounds half up, as the standings do
    # (Python's round() made 31.25 read 31.2 here and 31.3 there).
    return figures
