"""Matchpoints, Neuberg scaling and the standings order, on hand-made numbers."""

from __future__ import annotations

import pytest

from tournaments import scoring


def test_matchpoints_give_two_per_result_beaten_and_one_per_tie():
    assert scoring.matchpoints([40, 30, 30, 20]).tolist() == [6, 3, 3, 0]
    assert scoring.matchpoints([25]).tolist() == [0]
    assert scoring.matchpoints([10, 10, 10]).tolist() == [2, 2, 2]


def test_neuberg_scales_a_deal_played_by_three_of_four_entries():
    # E = 4 entries, A = 3 played the deal: 40, 30, 20 card points → MP 4, 2, 0.
    mp = scoring.matchpoints([40, 30, 20])
    assert mp.tolist() == [4, 2, 0]
    scaled = scoring.neuberg(mp, entries=4)
    # MP' = (MP + 1)·E/A − 1
    assert scaled.tolist() == pytest.approx([5 * 4 / 3 - 1, 3 * 4 / 3 - 1, 1 * 4 / 3 - 1])
    assert scaled.tolist() == pytest.approx([5.6667, 3.0, 0.3333], abs=1e-4)


def test_neuberg_changes_nothing_when_everyone_played():
    mp = scoring.matchpoints([35, 31, 31, 12, 40])
    assert scoring.neuberg(mp, entries=5).tolist() == pytest.approx(mp.tolist())


def test_neuberg_lone_result_gets_an_average_on_the_full_field():
    # One result of 5 entries: (0 + 1)·5/1 − 1 = 4 = top 8 / 2.
    assert scoring.neuberg(scoring.matchpoints([33]), entries=5).tolist() == [4.0]


def test_percentage_of_a_top():
    assert scoring.percentage(scoring.matchpoints([50, 10, -20]), 3).tolist() == [100, 50, 0]
    assert scoring.percentage(scoring.matchpoints([7]), 1).tolist() == [50]


def test_standings_order_breaks_score_ties_by_matchpoints_then_fewer_deals():
    scores = [20, 35, 20, 20, 20]
    deal_mp = [10.0, 3.0, 12.0, 10.0, 10.0]
    deals = [14, 9, 20, 12, 14]
    order, ranks = scoring.standings_order(scores, deal_mp, deals)
    assert order == [1, 2, 3, 0, 4]
    assert ranks == [4, 1, 2, 3, 4]  # entries 0 and 4 are equal on all three keys


def test_matchpoints_agree_with_pairwise_counting_on_random_fields():
    import numpy as np

    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 40):
        values = rng.integers(-20, 20, size)
        pairwise = [
            sum(2 if v > w else 1 if v == w else 0 for j, w in enumerate(values) if j != i)
            for i, v in enumerate(values)
        ]
        assert scoring.matchpoints(values).tolist() == pairwise


def test_docstring_examples_of_the_scoring_module_run():
    import doctest

    result = doctest.testmod(scoring)
    assert result.attempted > 0 and result.failed == 0


def _rank_deal_by_deal(scores, deals_played, entries, deals, points):
    """The rankings task's former loop: per deal matchpoints and Neuberg, per entry the
    sum in deal order, Python rounding. `scoring.rank` must give the same floats."""
    from collections import defaultdict

    field = len(scores)
    by_deal = defaultdict(list)
    for i in sorted(range(len(entries)), key=lambda i: (deals[i], entries[i])):
        by_deal[deals[i]].append(i)
    res_mp, res_nb = [None] * len(entries), [None] * len(entries)
    total = defaultdict(float)
    for rows in by_deal.values():
        mp = scoring.matchpoints([points[i] for i in rows])
        nb = scoring.neuberg(mp, field)
        for i, m, s in zip(rows, mp.tolist(), nb.tolist(), strict=True):
            total[entries[i]] += s
            res_mp[i], res_nb[i] = m, round(s, 4)
    totals = [round(total[e], 4) for e in range(field)]
    # Ties on score go to the higher Neuberg percentage over the deals each entry played.
    count = defaultdict(int)
    for e in entries:
        count[e] += 1
    top = 2.0 * (field - 1)
    pct_of_deals = [
        round(100.0 * total[e] / (count[e] * top), 2) if top > 0 else 50.0 for e in range(field)
    ]
    _, ranks = scoring.standings_order(scores, pct_of_deals, deals_played)
    mp = scoring.matchpoints(scores)
    pct = [round(x, 2) for x in scoring.percentage(mp, field).tolist()]
    return ranks, mp.tolist(), pct, totals, res_mp, res_nb


@pytest.mark.parametrize("size", [1, 2, 3, 7, 10, 60])
def test_rank_gives_the_figures_of_the_deal_by_deal_loop_exactly(size):
    import numpy as np

    rng = np.random.default_rng(size)
    played = rng.integers(1, 9, size).tolist()
    entries = [e for e in range(size) for _ in range(played[e])]
    deals = [k for e in range(size) for k in range(1, played[e] + 1)]
    points = rng.integers(0, 61, len(entries)).tolist()
    scores = rng.integers(-10, 10, size).tolist()
    # Results in any order: shuffled here.
    perm = rng.permutation(len(entries))
    entries, deals, points = ([x[i] for i in perm] for x in (entries, deals, points))
    expected = _rank_deal_by_deal(scores, played, entries, deals, points)
    got = scoring.rank(scores, played, entries, deals, points)
    assert got.rank == expected[0]
    assert got.matchpoints.tolist() == expected[1]
    assert got.matchpoints_pct.tolist() == expected[2]
    assert got.deal_matchpoints.tolist() == expected[3]
    assert got.result_matchpoints.tolist() == expected[4]
    assert got.result_neuberg.tolist() == expected[5]


@pytest.mark.parametrize("size", [1, 3, 10, 200])
def test_deal_figures_read_per_deal_are_the_figures_of_rank(size):
    """Pages compute a deal's figures when read (scoring.deal_figures, one deal at a
    time, rows in any order); the rankings task sums them from scoring.rank."""
    import numpy as np

    rng = np.random.default_rng(100 + size)
    played = rng.integers(1, 9, size).tolist()
    entries = [e for e in range(size) for _ in range(played[e])]
    deals = [k for e in range(size) for k in range(1, played[e] + 1)]
    points = rng.integers(0, 61, len(entries)).tolist()
    got = scoring.rank(rng.integers(-10, 10, size).tolist(), played, entries, deals, points)
    for k in set(deals):
        rows = [i for i in range(len(deals)) if deals[i] == k]
        rows.reverse()  # not the order rank saw them in
        mp, nb = scoring.deal_figures([points[i] for i in rows], entries=size)
        assert mp.tolist() == [got.result_matchpoints[i] for i in rows]
        assert nb.tolist() == [got.result_neuberg[i] for i in rows]


def test_rank_of_an_empty_field():
    got = scoring.rank([], [], [], [], [])
    assert got.rank == [] and got.result_neuberg.tolist() == []
    got = scoring.rank([5], [0], [], [], [])
    assert got.rank == [1] and got.matchpoints_pct.tolist() == [50.0]
    assert got.deal_matchpoints.tolist() == [0.0]


def test_round_like_python_matches_round_next_to_halves():
    import numpy as np

    # Neuberg values of real fields: (MP + 1)·E/A − 1, many of them near a half at the
    # 5th decimal, where rounding x·10^4 (itself rounded) can go the other way.
    values = [(m + 1) * e / a - 1 for e in range(1, 200) for a in range(1, e + 1)
              for m in range(0, 2 * a - 1, 7)]  # fmt: skip
    values += [2.675, 1.00005, 0.00015, -0.00025, 1e6 + 0.00005, 0.125, 2.5e-5]
    for ndigits in (2, 4):
        assert scoring.round_like_python(values, ndigits).tolist() == [
            round(v, ndigits) for v in values
        ]
    # np.round alone is not enough here (this is why the function exists):
    assert np.round(1.00005, 4) != round(1.00005, 4) or np.round(2.675, 2) != round(2.675, 2)


def test_changed_marks_differing_and_not_yet_stored_values():
    import numpy as np

    new = np.array([1.0, 2.0, 3.0])
    assert scoring.changed([1.0, 2.5, None], new).tolist() == [False, True, True]
    assert scoring.changed([], np.array([])).tolist() == []


def test_percentages_that_round_alike_are_not_a_tie():
    """Two entries level on score and deals, their deal matchpoint percentages differing
    in the third decimal (Neuberg over a field where deals were played by different
    numbers of entries): ranked by the percentage itself, not by its rounded 2 decimals."""
    import random

    rnd = random.Random(7545)  # a field found by search where the two round alike
    field = rnd.randint(8, 12)
    deals = [rnd.randint(10, 24) for _ in range(field)]
    deals[0] = deals[1] = rnd.randint(18, 24)
    scores = [rnd.randint(-20, 20) for _ in range(field)]
    scores[1] = scores[0]
    results = [(e, k, rnd.choice(range(61))) for e in range(field) for k in range(1, deals[e] + 1)]
    r = scoring.rank(scores, deals, *zip(*results, strict=True))
    assert r.deal_matchpoints_pct[0] == r.deal_matchpoints_pct[1]  # as shown
    assert r.deal_matchpoints[1] > r.deal_matchpoints[0]
    assert r.rank[1] < r.rank[0]


def test_half_up_rounds_halves_away_from_zero_like_the_pages():
    from fractions import Fraction

    assert scoring.half_up(81.25) == 81.3 and scoring.half_up(-0.15) == -0.2
    assert scoring.half_up(Fraction(109, 4)) == 27.3  # a field's average card points
    assert scoring.half_up(Fraction(63, 13)) == 4.8 and scoring.half_up(2.675, 2) == 2.68
