"""Players' ratings: Elo over the pairs of every closed tournament's field.

A tournament is a round robin of comparisons: each ranked player "beat" every player
ranked below them, drew with those ranked level. Each comparison counts as a game with
the usual Elo expectation; a player's change is K/(n-1) times the sum over the other
n-1 players of (result - expectation), so one tournament moves a rating by at most K
whatever the field's size, and the changes of a tournament add up to zero.

Bots never rank, so they never rate; a tournament is rated once, after it closed and its
final ranks are written (a solo tournament's come from the rankings task), by the
periodic tick in the order the tournaments closed. When an organizer's correction after
that changes the ranks (a score, a deal at a table, an entry removed or restored),
`revise` takes back what this tournament and every one rated after it did, and rates
them again in order: the ratings stay what they would have been had the ranks been
right from the start.
"""

from __future__ import annotations

import numpy as np
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from .models import Entry, Rating, RatingChange, TableSeat, Tournament

START = 1500.0
K = 32.0


def deltas(ratings, ranks, k: float = K) -> np.ndarray:
    """The rating changes of one tournament: `ratings` before it, `ranks` (1 = best;
    equal ranks draw).

    >>> deltas([1500, 1500], [1, 2]).tolist()
    [16.0, -16.0]
    >>> deltas([1500, 1500, 1500], [1, 1, 3]).round(2).tolist()
    [8.0, 8.0, -16.0]
    >>> d = deltas([1800, 1400], [2, 1])  # the upset moves more than the expected result
    >>> bool(d[1] > 16), float(d.sum())
    (True, 0.0)
    """
    r = np.asarray(ratings, dtype=float)
    n = len(r)
    if n < 2:
        return np.zeros(n)
    expected = 1.0 / (1.0 + 10.0 ** ((r[None, :] - r[:, None]) / 400.0))
    np.fill_diagonal(expected, 0.0)
    return k / (n - 1) * (pair_results(ranks) - expected).sum(axis=1)


def with_places(rows, start: int = 1, first: int | None = None):
    """(place, row) for rows sorted best rating first, the first at position `start`:
    an equal rating shares the place of the first row with it. `first` is the first
    row's place when it shares one with rows before these (a page of the list).

    >>> from types import SimpleNamespace as R
    >>> [p for p, _ in with_places([R(value=v) for v in (1600, 1550, 1550, 1500)])]
    [1, 2, 2, 4]
    >>> [p for p, _ in with_places([R(value=v) for v in (1550, 1500)], start=51, first=49)]
    [49, 52]
    """
    place, last = None, None
    for i, row in enumerate(rows, start=start):
        if place is None:
            place = first or i
        elif row.value != last:
            place = i
        last = row.value
        yield place, row


def pair_results(ranks) -> np.ndarray:
    """result[i, j]: 1 if player i ranked above player j, 0.5 level, 0 below (and 0 on
    the diagonal). Row sums over n - 1 are the share of the field finished above (the
    seasons' score, tournaments/seasons.py).

    >>> pair_results([1, 2, 2]).tolist()
    [[0.0, 1.0, 1.0], [0.0, 0.0, 0.5], [0.0, 0.5, 0.0]]
    """
    rank = np.asarray(ranks, dtype=float)
    result = np.where(rank[:, None] < rank[None, :], 1.0, 0.0)
    result = np.where(rank[:, None] == rank[None, :], 0.5, result)
    np.fill_diagonal(result, 0.0)
    return result


def ready(t: Tournament) -> bool:
    """Closed, not rated yet, and its ranks final (a solo tournament's ranks are written
    by the rankings task after the close)."""
    if not t.is_closed or t.rated_at is not None or t.closed_at is None:
        return False
    if t.format == Tournament.Format.SOLO_DUPLICATE:
        return t.rankings_computed_at is not None and t.rankings_computed_at >= t.closed_at
    return True


# pg_advisory_xact_lock's key: "ratings" in ASCII.
_LOCK_KEY = 0x72617469_6E6773


def _one_at_a_time() -> None:
    """Ratings change one tournament at a time, in one order: inside the transaction,
    before any row lock (SQLite serializes its writers by itself)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])


def shared_entries(tournaments) -> set[int]:
    """Entries that more than one person played (the organizer replaced a player after
    they finished a set): their result is nobody's own, so it rates nobody and scores
    nobody in a season; the others' places around it stand."""
    return set(shared_entry_ids().filter(entry__tournament__in=tournaments))


def shared_entry_ids():
    """The query of every shared entry's id (see shared_entries), to filter by."""
    return (
        TableSeat.objects.filter(played_by__isnull=False)
        .exclude(played_by=F("entry__player"))
        .values_list("entry_id", flat=True)
    )


def not_own_result_q() -> Q:
    """Entries whose result is nobody's own: played by two people (shared_entries), or a
    solo game the bot finished at the close (its player had stopped: the result is
    largely the bot's). They stay in the field (their rank counts in its size) but rate
    nobody, score nobody in a season and are not among a player's figures."""
    return Q(pk__in=shared_entry_ids()) | Q(finish_mode="bot")


def unscored_entries(tournaments) -> set[int]:
    """The entries of `tournaments` whose result is nobody's own (not_own_result_q)."""
    return set(
        Entry.objects.filter(tournament__in=tournaments)
        .filter(not_own_result_q())
        .values_list("pk", flat=True)
    )


def _ranked(t: Tournament) -> tuple[list[tuple[int, int]], int]:
    """(player id, rank) of the players a tournament rates, and the size of its ranked
    field. A deleted account (made anonymous) still counts, as its results do in the
    standings, whenever the tournament is rated; an entry played by two people, or one
    the bot finished at the close (its player stopped: the result is largely the bot's),
    rates nobody (its rank still counts in the field's size, as on the standings)."""
    unscored = unscored_entries([t])
    rows = list(
        Entry.objects.filter(tournament=t, rank__isnull=False)
        .exclude(status=Entry.Status.REMOVED)
        .order_by("pk")
        .values_list("pk", "player_id", "rank")
    )
    rated = [(player, rank) for pk, player, rank in rows if pk not in unscored]
    return rated, len(rows)


def rate(tournament_id: int, now=None) -> int | None:
    """Rate one closed tournament (idempotent): the number of players rated, or None if
    it is not ready."""
    now = now or timezone.now()
    with transaction.atomic():
        _one_at_a_time()
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not ready(t):
            return None
        ranked, field = _ranked(t)
        t.rated_at = now
        t.save(update_fields=["rated_at"])
        if len(ranked) < 2:
            return 0
        players = [p for p, _ in ranked]
        Rating.objects.bulk_create(
            [Rating(player_id=p, value=START) for p in players], ignore_conflicts=True
        )
        locked = Rating.objects.select_for_update().filter(player_id__in=players)
        rows = {r.player_id: r for r in locked}
        before = np.array([rows[p].value for p in players])
        change = deltas(before, [rank for _, rank in ranked])
        changes = []
        for (player, rank), old, d in zip(ranked, before, change, strict=True):
            row = rows[player]
            row.value, row.events, row.updated = float(old + d), row.events + 1, now
            changes.append(
                RatingChange(
                    tournament=t, player_id=player, before=float(old), after=row.value,
                    rank=rank, field=field,
                )
            )  # fmt: skip
        Rating.objects.bulk_update(list(rows.values()), ["value", "events", "updated"])
        RatingChange.objects.bulk_create(changes)
    return len(ranked)


def rate_due(now=None) -> int:
    """Periodic: rate every closed tournament that is ready, oldest close first."""
    rated = 0
    due = Tournament.objects.filter(
        status=Tournament.Status.CLOSED, rated_at__isnull=True
    ).order_by("closed_at", "pk")
    for pk in list(due.values_list("pk", flat=True)):
        if rate(pk, now) is not None:
            rated += 1
    return rated


def revise(tournament_id: int, now=None) -> bool:
    """After a rated tournament's ranks were written again: if they differ from the ranks
    it was rated on, take back what it and every tournament rated after it did, and
    rate them again (oldest close first). True if anything was rated again."""
    now = now or timezone.now()
    with transaction.atomic():
        _one_at_a_time()
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if t.rated_at is None:
            return False  # the tick rates it
        now_ranked, _field = _ranked(t)
        rated_on = set(RatingChange.objects.filter(tournament=t).values_list("player_id", "rank"))
        if set(now_ranked if len(now_ranked) > 1 else []) == rated_on:
            return False
        _take_back_from(t)
        rate_due(now)
    return True


def _take_back_from(t: Tournament) -> None:
    """Undo the rating of `t` and of every tournament rated after it. Changes were made
    one tournament at a time, so their ids are the order they were made in: a player's
    rating goes back to the `before` of their first change undone."""
    first = RatingChange.objects.filter(tournament=t).order_by("pk").first()
    if first is None:  # it changed nobody: undo from the first tournament rated after it
        after = Tournament.objects.filter(
            Q(rated_at__gt=t.rated_at)
            | Q(rated_at=t.rated_at, closed_at__gt=t.closed_at)
            | Q(rated_at=t.rated_at, closed_at=t.closed_at, pk__gt=t.pk)
        )
        first = RatingChange.objects.filter(tournament__in=after).order_by("pk").first()
    undone = RatingChange.objects.filter(pk__gte=first.pk) if first else RatingChange.objects.none()
    back: dict[int, tuple[float, int]] = {}
    for player, before in undone.order_by("pk").values_list("player_id", "before"):
        value, count = back.get(player, (before, 0))
        back[player] = (value, count + 1)
    tournaments = set(undone.values_list("tournament_id", flat=True)) | {t.pk}
    rows = list(Rating.objects.select_for_update().filter(player_id__in=back))
    for row in rows:
        row.value, taken = back[row.player_id]
        row.events -= taken
    Rating.objects.bulk_update([r for r in rows if r.events > 0], ["value", "events"])
    Rating.objects.filter(pk__in=[r.pk for r in rows if r.events <= 0]).delete()
    undone.delete()
    Tournament.objects.filter(pk__in=tournaments).update(rated_at=None)
