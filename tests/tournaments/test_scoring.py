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
