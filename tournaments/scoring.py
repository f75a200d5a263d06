"""Matchpoints, Neuberg scaling and standings order: pure numpy, no Django.

Matchpoints are in 2/1 units: 2 for every other result beaten, 1 for every tie, so a
top on a field of n results is 2(n - 1).

>>> matchpoints([40, 30, 30, 20]).tolist()
[6.0, 3.0, 3.0, 0.0]
>>> [round(x, 3) for x in neuberg(matchpoints([40, 30, 20]), entries=4).tolist()]
[5.667, 3.0, 0.333]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def matchpoints(values: Sequence[float]) -> np.ndarray:
    """2 per result beaten, 1 per tie (the result itself is not counted)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return v
    # Sorted counts, O(n log n): a day list can hold thousands of entries.
    ordered = np.sort(v)
    below = np.searchsorted(ordered, v, side="left")
    upto = np.searchsorted(ordered, v, side="right")
    tied = upto - below - 1
    return (2 * below + tied).astype(float)


def neuberg(mp: np.ndarray, entries: int) -> np.ndarray:
    """Scale matchpoints won among A results to a field of E: MP' = (MP + 1)·E/A − 1."""
    mp = np.asarray(mp, dtype=float)
    played = mp.size
    if played == 0:
        return mp
    return (mp + 1.0) * entries / played - 1.0


def percentage(mp: np.ndarray, field: int) -> np.ndarray:
    """Matchpoints as a percentage of a top (2(field − 1)); a lone result gets 50%."""
    mp = np.asarray(mp, dtype=float)
    top = 2.0 * (field - 1)
    if top <= 0:
        return np.full(mp.shape, 50.0)
    return 100.0 * mp / top


def standings_order(
    scores: Sequence[float], deal_mp: Sequence[float], deals_played: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Indices best first, and 1-based ranks (equal on all three keys = same rank).

    Order: higher score; ties by more total deal matchpoints; then fewer deals played.
    """
    s = np.asarray(scores, dtype=float)
    m = np.round(np.asarray(deal_mp, dtype=float), 6)
    d = np.asarray(deals_played, dtype=float)
    if s.size == 0:
        return [], []
    # np.lexsort sorts by the last key first.
    order = np.lexsort((d, -m, -s)).tolist()
    ranks = [0] * len(order)
    for pos, i in enumerate(order):
        if pos and (s[i], m[i], d[i]) == (s[order[pos - 1]], m[order[pos - 1]], d[order[pos - 1]]):
            ranks[i] = ranks[order[pos - 1]]
        else:
            ranks[i] = pos + 1
    return order, ranks
