"""Players' ratings: Elo over the pairs of every closed tournament's field.

A tournament is a round robin of comparisons: each ranked player "beat" every player
ranked below them, drew with those ranked level. Each comparison counts as a game with
the usual Elo expectation; a player's change is K/(n-1) times the sum over the other
n-1 players of (result - expectation), so one tournament moves a rating by at most K
whatever the field's size, and the changes of a tournament add up to zero.

Bots never rank, so they never rate; a tournament is rated once, after it closed and its
final ranks are written (a solo tournament's come from the rankings task), by the
periodic tick in the order the tournaments closed.
"""

from __future__ import annotations

import numpy as np
from django.db import transaction
from django.utils import timezone

from .models import Entry, Rating, RatingChange, Tournament

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


def rate(tournament_id: int, now=None) -> int | None:
    """Rate one closed tournament (idempotent): the number of players rated, or None if
    it is not ready."""
    now = now or timezone.now()
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not ready(t):
            return None
        ranked = list(
            Entry.objects.filter(tournament=t, rank__isnull=False, player__is_active=True)
            .exclude(status=Entry.Status.REMOVED)
            .values_list("player_id", "rank")
        )
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
                    rank=rank, field=len(ranked),
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
