"""Matchpoints, Neuberg scaling and standings order: pure numpy, no Django.

Matchpoints are in 2/1 units: 2 for every other result beaten, 1 for every tie, so a
top on a field of n results is 2(n - 1).

>>> matchpoints([40, 30, 30, 20]).tolist()
[6.0, 3.0, 3.0, 0.0]
>>> [round(x, 3) for x in neuberg(matchpoints([40, 30, 20]), entries=4).tolist()]
[5.667, 3.0, 0.333]

`rank` puts them together for a whole tournament (what the rankings task stores):

>>> r = rank(scores=[12, 40], deals_played=[1, 1], result_entry=[0, 1],
...          result_deal=[1, 1], result_points=[30, 40])
>>> r.rank, r.matchpoints.tolist(), r.result_neuberg.tolist(), r.deal_matchpoints_pct.tolist()
([2, 1], [0.0, 2.0], [0.0, 2.0], [0.0, 100.0])

Two ways to rank (`Tournament.ranking`): by score, the dagscore (own minus opponents),
as the rules' source texts do and the default; or by the Neuberg-scaled matchpoint
percentage, which is fair when entries play different numbers of deals (a game to 101
lasts 9 deals or 19).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

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


BY_SCORE = "score"
BY_MATCHPOINTS = "matchpoints"


def standings_order(
    scores: Sequence[float],
    deal_pct: Sequence[float],
    deals_played: Sequence[int],
    by: str = BY_SCORE,
) -> tuple[list[int], list[int]]:
    """Indices best first, and 1-based ranks (equal on all three keys = same rank).

    By score: higher score; ties by the higher deal matchpoint percentage; then fewer
    deals played. By matchpoints: the percentage first, then the score. A percentage
    of NaN (no deal played) comes after every other.
    """
    s = np.asarray(scores, dtype=float)
    m = np.round(np.nan_to_num(np.asarray(deal_pct, dtype=float), nan=-1.0), 6)
    d = np.asarray(deals_played, dtype=float)
    if s.size == 0:
        return [], []
    # np.lexsort sorts by the last key first.
    keys = (d, -m, -s) if by == BY_SCORE else (d, -s, -m)
    order = np.lexsort(keys).tolist()
    ranks = [0] * len(order)
    for pos, i in enumerate(order):
        if pos and (s[i], m[i], d[i]) == (s[order[pos - 1]], m[order[pos - 1]], d[order[pos - 1]]):
            ranks[i] = ranks[order[pos - 1]]
        else:
            ranks[i] = pos + 1
    return order, ranks


def deal_figures(points: Sequence[float], entries: int) -> tuple[np.ndarray, np.ndarray]:
    """One deal's figures, per result in the order given: matchpoints on WIJ's card
    points among the deal's results, and Neuberg scaled to the field of `entries` (4
    decimals). The same floats as `rank` gives for those results (they are not stored:
    pages and exports compute them from the deal's results when read).

    >>> mp, nb = deal_figures([40, 30, 20], entries=4)
    >>> mp.tolist(), nb.tolist()
    ([4.0, 2.0, 0.0], [5.6667, 3.0, 0.3333])
    """
    mp = matchpoints(points)
    return mp, round_like_python(neuberg(mp, entries), 4)


@dataclass(frozen=True)
class Rankings:
    """Every ranking figure (the rankings task stores the entries' ones). Per entry (in
    the order given): `rank`, `matchpoints` (on the score), `matchpoints_pct` (2
    decimals), `deal_matchpoints` (the sum of the entry's Neuberg deal matchpoints,
    4 decimals) and `deal_matchpoints_pct` (that sum as a percentage of a top on every
    deal the entry played, 2(E − 1) each, 2 decimals; NaN for an entry with no deal:
    fair between entries of different lengths). Per result (in the order given):
    `result_matchpoints` (on card points, among the deal's results) and
    `result_neuberg` (scaled to the field, 4 decimals), as `deal_figures` gives them."""

    rank: list[int]
    matchpoints: np.ndarray
    matchpoints_pct: np.ndarray
    deal_matchpoints: np.ndarray
    deal_matchpoints_pct: np.ndarray
    result_matchpoints: np.ndarray
    result_neuberg: np.ndarray


def rank(
    scores: Sequence[float],
    deals_played: Sequence[int],
    result_entry: Sequence[int],
    result_deal: Sequence[int],
    result_points: Sequence[float],
    by: str = BY_SCORE,
) -> Rankings:
    """Every ranking figure of a tournament from plain arrays; no database.

    Entries are the finished ones (the field, E = len(scores)); each result is one
    entry's deal: `result_entry` its entry's index into `scores`, `result_deal` the deal
    number, `result_points` WIJ's card points. Per deal: `matchpoints` among the results
    of that deal, then `neuberg` to the field. Vectorised over all deals at once (a day
    list holds hundreds of thousands of results); the figures are those of calling
    `matchpoints` and `neuberg` deal by deal and summing an entry's deals in deal order.
    `by` is the ranking (BY_SCORE or BY_MATCHPOINTS, see `standings_order`).
    """
    field = len(scores)
    s = np.asarray(scores, dtype=float)
    mp = matchpoints(s)
    pct = round_like_python(percentage(mp, field), 2)

    entry = np.asarray(result_entry, dtype=np.intp)
    deal = np.asarray(result_deal, dtype=np.int64)
    points = np.asarray(result_points, dtype=float)
    n = entry.size
    res_mp = np.empty(n)
    res_nb = np.empty(n)
    totals = np.zeros(field)
    counts = np.zeros(field)
    if n:
        # Sorted by deal, then points: a deal is a run of `deal`, equal points a sub-run.
        order = np.lexsort((points, deal))
        d, p = deal[order], points[order]
        new_deal = np.empty(n, dtype=bool)
        new_deal[0] = True
        np.not_equal(d[1:], d[:-1], out=new_deal[1:])
        new_tie = new_deal.copy()
        new_tie[1:] |= p[1:] != p[:-1]
        deal_starts, tie_starts = np.flatnonzero(new_deal), np.flatnonzero(new_tie)
        deal_of, tie_of = np.cumsum(new_deal) - 1, np.cumsum(new_tie) - 1
        deal_start = deal_starts[deal_of]
        tie_start = tie_starts[tie_of]
        tie_end = np.append(tie_starts[1:], n)[tie_of]
        played = np.diff(np.append(deal_starts, n))[deal_of]
        # As `matchpoints`: 2 per result below, 1 per other result tied.
        sorted_mp = (2 * (tie_start - deal_start) + (tie_end - tie_start - 1)).astype(float)
        # As `neuberg`, same operations in the same order (so the same floats).
        sorted_nb = (sorted_mp + 1.0) * field / played - 1.0
        res_mp[order] = sorted_mp
        res_nb[order] = round_like_python(sorted_nb, 4)
        # In `order` an entry's results come deal by deal: the sums add in deal order.
        totals = np.bincount(entry[order], weights=sorted_nb, minlength=field)
        counts = np.bincount(entry, minlength=field).astype(float)
    top = 2.0 * (field - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        deal_pct = 100.0 * totals / (counts * top) if top > 0 else np.full(field, 50.0)
    deal_pct = np.where(counts > 0, deal_pct, np.nan)
    # Ordered on the percentage itself (standings_order rounds off only float noise):
    # two results that round to the same 2 decimals shown are still not a tie.
    _, ranks = standings_order(s, deal_pct, deals_played, by)
    deal_pct = round_like_python(deal_pct, 2)
    totals = round_like_python(totals, 4)
    return Rankings(ranks, mp, pct, totals, deal_pct, res_mp, res_nb)


def half_up(value: float | Fraction, ndigits: int = 1) -> float:
    """`value` to `ndigits` decimals with halves away from zero, as the pages'
    floatformat and the live pages' Intl.NumberFormat round (Python's round takes a
    half to the even digit: 27.25 gave 27.2 where the pages show 27.3). A Fraction is
    rounded exactly; a float as its shortest decimal text (81.25, not 81.2499…)."""
    exact = (
        Decimal(value.numerator) / Decimal(value.denominator)
        if isinstance(value, Fraction)
        else Decimal(repr(float(value)))
    )
    return float(exact.quantize(Decimal(1).scaleb(-ndigits), rounding=ROUND_HALF_UP))


def round_like_python(values: Sequence[float], ndigits: int) -> np.ndarray:
    """Python's round(x, ndigits) on every element, exactly (np.round differs next to a
    half: it rounds x·10^n, itself rounded, not x). Vectorised; the few values within
    an ulp of a half are rounded by Python."""
    x = np.asarray(values, dtype=float)
    scale = 10.0**ndigits
    y = x * scale
    out = np.rint(y) / scale
    # y is x·10^n to within half an ulp of y; only a half that close can round apart.
    near = np.flatnonzero(np.abs(y - np.floor(y) - 0.5) <= np.abs(y) * 1e-15)
    if near.size:
        out[near] = [round(v, ndigits) for v in x[near].tolist()]
    return out


def changed(old: Sequence[float | None], new: np.ndarray) -> np.ndarray:
    """Mask of the positions where a stored value (None = not yet computed) differs."""
    old_arr = np.array(old, dtype=float)  # None becomes NaN
    new_arr = np.asarray(new, dtype=float)
    # Not yet computed differs from any value; None stored for NaN is no change.
    return ~((old_arr == new_arr) | (np.isnan(old_arr) & np.isnan(new_arr)))


# --- tournaments of tables ----------------------------------------------------------------------


@dataclass(frozen=True)
class SetFigures:
    """One set of a tournament of tables, per table (team 0 = South/North, team 1 =
    West/East): the raw score (own written total minus the opponents'), and in duplicate
    the matchpoints against every other table on the same deals in the same direction and
    the summed difference from the other tables' average."""

    raw: np.ndarray  # (tables, 2)
    mp: np.ndarray | None  # (tables, 2), summed over deals
    diff: np.ndarray | None  # (tables, 2), summed over deals


def written_by_deal(boards: list[list[dict]]) -> np.ndarray:
    """(tables, deals, 2) written points of the tables' boards by deal number, NaN where
    a table did not play a deal."""
    deals = max((b["deal"] for board in boards for b in board), default=0)
    out = np.full((len(boards), deals, 2), np.nan)
    for i, board in enumerate(boards):
        for b in board:
            out[i, b["deal"] - 1] = b["written"]
    return out


def set_figures(written: np.ndarray, duplicate: bool) -> SetFigures:
    """`written`: (tables, deals, 2) written points per deal, [team 0, team 1]; NaN where
    a table did not play that deal (a table of the room that ran out of time).

    Matchpoints per deal are 2 per table beaten and 1 per tie, as `matchpoints`, taken
    column by column in one broadcast (65 tables x 16 deals: a few microseconds). A deal
    that only some tables played compares those tables, its matchpoints scaled to the
    full top (Neuberg); a table that did not play it gets the average, half the top,
    and no difference from the field. With every deal played this is the plain count."""
    w = np.asarray(written, dtype=float)
    net = w[:, :, 0] - w[:, :, 1]  # team 0's result per table and deal
    played = ~np.isnan(net)
    raw0 = np.where(played, net, 0.0).sum(axis=1)
    raw = np.stack([raw0, -raw0], axis=1)
    tables = net.shape[0]
    if not duplicate or tables < 2:
        return SetFigures(raw=raw, mp=None, diff=None)
    both = played[None, :, :] & played[:, None, :]  # [t, o, k]: t and o both played k
    below = ((net[None, :, :] < net[:, None, :]) & both).sum(axis=1)  # [t, k]: tables t beats
    equal = ((net[None, :, :] == net[:, None, :]) & both).sum(axis=1) - played
    top = 2.0 * (tables - 1)  # per deal
    compared = played.sum(axis=0)[None, :] - 1  # [1, k]: the others that played k
    with np.errstate(divide="ignore", invalid="ignore"):
        # Scaled to the full top; exact when every table played (x * top / top).
        scaled = (2 * below + equal) * top / (2.0 * compared)
        others = (np.where(played, net, 0.0).sum(axis=0)[None, :] - net) / compared
    counted = played & (compared > 0)
    mp0 = np.where(counted, scaled, top / 2).sum(axis=1)
    diff0 = np.where(counted, net - others, 0.0).sum(axis=1)
    full = top * net.shape[1]

    # 4 decimals, as the solo figures: the sums' float noise (6.999999999999999) is not
    # written into the seats, the exports and the standings' ties.
    def four(pair: np.ndarray) -> np.ndarray:
        return round_like_python(pair.ravel(), 4).reshape(pair.shape) + 0.0  # no -0.0

    mp = four(np.stack([mp0, full - mp0], axis=1))
    return SetFigures(raw=raw, mp=mp, diff=four(np.stack([diff0, -diff0], axis=1)))


def table_order(
    keys: Sequence[Hashable],
    raw: Sequence[float],
    dup: Sequence[float],
    head_to_head,
    lot_seed: str,
) -> list[int]:
    """Indices of `keys` best first: by raw score, ties by duplicate score, then by
    head-to-head (`head_to_head(group)` gives, for the tied keys, each one's net score in
    the sets where it sat against another of them), then by lot (seeded, stable)."""
    return table_ranks(keys, raw, dup, head_to_head, lot_seed)[0]


def table_ranks(
    keys: Sequence[Hashable],
    raw: Sequence[float],
    dup: Sequence[float],
    head_to_head,
    lot_seed: str,
) -> tuple[list[int], list[int]]:
    """`table_order`, and each position's 1-based rank: keys level on raw score,
    duplicate score and head-to-head share a rank (as a solo tournament's ties do); the
    lot only orders them (it decides a cut and a draw, not who did better).

    >>> table_ranks("abc", [5, 5, 1], [2.0, 2.0, 0.0], lambda g: {}, "s")[1]
    [1, 1, 3]
    """
    import random

    # Sums of 4-decimal figures: level at 6 decimals is level (no float noise apart).
    raw_a, dup_a = np.asarray(raw, dtype=float), np.round(np.asarray(dup, dtype=float), 6)
    lot = list(range(len(keys)))
    random.Random(f"{lot_seed}:lot").shuffle(lot)
    lot_of = {i: pos for pos, i in enumerate(lot)}
    first = sorted(range(len(keys)), key=lambda i: (-raw_a[i], -dup_a[i]))
    out: list[int] = []
    ranks: list[int] = []  # by position in `out`
    k = 0
    while k < len(first):
        j = k
        while (
            j + 1 < len(first)
            and raw_a[first[j + 1]] == raw_a[first[k]]
            and dup_a[first[j + 1]] == dup_a[first[k]]
        ):
            j += 1
        group = first[k : j + 1]
        h2h = head_to_head([keys[i] for i in group]) if len(group) > 1 else {}
        group.sort(key=lambda i: (-h2h.get(keys[i], 0), lot_of[i]))
        for pos, i in enumerate(group):
            level = pos and h2h.get(keys[i], 0) == h2h.get(keys[group[pos - 1]], 0)
            ranks.append(ranks[-1] if level else len(out) + pos + 1)
        out.extend(group)
        k = j + 1
    return out, ranks
