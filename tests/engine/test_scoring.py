"""Scoring a deal (RULES.md §6): the team over 30 writes the difference times the
multiplier; ties, no trump, the ×4 cap and all eight tricks."""

from __future__ import annotations

import random

import pytest

from engine import Card, Deal, DealSpec
from tests.engine.support import (
    SOUTH,
    as_table,
    fill_hands,
    finish_randomly,
    script_spec,
    scripted,
    scripted_game,
)


def scored(wij: int, no_trump: bool = False) -> Deal:
    d = Deal.from_spec(script_spec())
    for a in scripted(wij, no_trump):
        d.apply_action(a)
    assert d.is_terminal()
    return d


WRITTEN = [
    (38, (8, 0)), (39, (9, 0)), (31, (1, 0)), (50, (20, 0)),
    (22, (0, 8)), (21, (0, 9)), (29, (0, 1)), (10, (0, 20)),
]  # fmt: skip


@pytest.mark.parametrize("wij, written", WRITTEN)
def test_team_over_30_writes_the_difference(wij, written):
    r = scored(wij).result
    assert r.card_points == (wij, 60 - wij)
    assert r.written == written
    assert r.multiplier == 1


def test_card_points_are_the_points_of_the_tricks_won():
    d = scored(38)
    pts = [0, 0]
    for t in d.tricks:
        pts[t.winner % 2] += sum(c.points for _, c in t.cards)
    assert tuple(pts) == d.result.card_points
    assert sum(d.result.tricks_won) == 8


def test_no_trump_doubles_the_deal():
    r = scored(38, no_trump=True).result
    assert r.no_trump and r.trump is None
    assert r.multiplier == 2
    assert r.written == (16, 0)


def test_thirty_all_nobody_writes():
    r = scored(30).result
    assert r.tied
    assert r.written == (0, 0)


def test_thirty_all_doubles_the_next_deal():
    g = scripted_game([(None, scripted(30)), (None, scripted(38))])
    first, second = g.results
    assert first.written == (0, 0)
    assert second.multiplier == 2
    assert second.written == (16, 0)
    assert g.deal.tie_factor == 1  # back to 1 after a deal that is not tied
    assert g.scores == [16, 0]


def test_consecutive_ties_compound_two_then_four():
    g = scripted_game([(None, scripted(30)), (None, scripted(30)), (None, scripted(38))])
    assert [r.multiplier for r in g.results] == [1, 2, 4]
    assert g.results[2].written == (32, 0)


def test_tie_factor_goes_back_to_one_after_an_untied_deal():
    g = scripted_game([(None, scripted(30)), (None, scripted(38)), (None, scripted(38))])
    assert [r.multiplier for r in g.results] == [1, 2, 1]
    assert g.scores == [16 + 8, 0]


def test_multiplier_is_capped_at_four_in_flemish_tie_plus_no_trump():
    g = scripted_game([(None, scripted(30)), (None, scripted(38, no_trump=True))])
    assert g.results[1].multiplier == 4  # 2 (no trump) x 2 (tie)
    g = scripted_game(
        [(None, scripted(30)), (None, scripted(30)), (None, scripted(38, no_trump=True))]
    )
    assert g.results[2].multiplier == 4  # not 2 x 4 = 8
    assert g.results[2].written == (32, 0)


def test_three_ties_in_a_row_stay_at_the_cap_in_flemish():
    g = scripted_game([(None, scripted(30))] * 3 + [(None, scripted(38))])
    assert [r.multiplier for r in g.results] == [1, 2, 4, 4]


def test_table_ties_compound_without_cap():
    plan = [(None, as_table(scripted(30)))] * 3 + [(None, as_table(scripted(38, no_trump=True)))]
    g = scripted_game(plan, rules="flemish-table")
    assert [r.multiplier for r in g.results] == [1, 2, 4, 16]
    assert g.results[3].written == (8 * 16, 0)


def all_tricks_spec() -> DealSpec:
    # South deals and holds every heart, North every spade: with hearts trump WIJ wins
    # all eight tricks whatever anyone plays.
    hands = fill_hands(
        {SOUTH: [r + "H" for r in "789JQKAT"], 2: [r + "S" for r in "789JQKAT"]}, {1: "HS", 3: "HS"}
    )
    return DealSpec(1, SOUTH, tuple(tuple(Card.parse(c) for c in h) for h in hands))


def all_tricks_actions(table: bool = False) -> list[str]:
    d = Deal.from_spec(all_tricks_spec())
    d.apply_action("trump:H")
    done = finish_randomly(d, random.Random(3))
    assert done.result.tricks_won == (8, 0)
    return as_table(done.actions) if table else list(done.actions)


def test_all_eight_tricks_write_thirty_times_the_multiplier():
    g = scripted_game([(all_tricks_spec(), all_tricks_actions())])
    assert g.results[0].card_points == (60, 0)
    assert g.results[0].written == (30, 0)
    g = scripted_game([(None, scripted(30)), (all_tricks_spec(), all_tricks_actions())])
    assert g.results[1].written == (60, 0)  # 30 x 2, no extra doubling in flemish
    g = scripted_game([(None, scripted(30))] * 2 + [(all_tricks_spec(), all_tricks_actions())])
    assert g.results[2].written == (120, 0)


def test_all_eight_tricks_double_again_at_the_table():
    g = scripted_game(
        [(None, as_table(scripted(30))), (all_tricks_spec(), all_tricks_actions(table=True))],
        rules="flemish-table",
    )
    assert g.results[1].multiplier == 2 * 2
    assert g.results[1].written == (120, 0)


def test_only_one_team_writes_and_never_a_negative_score():
    for wij in (9, 20, 29, 30, 31, 45):
        r = scored(wij).result
        assert min(r.written) == 0
        assert r.written[0] == 0 or r.written[1] == 0


def test_deal_result_serializes_for_the_board():
    r = scored(38).result
    d = r.to_dict()
    assert d["deal"] == 1 and d["written"] == [8, 0] and d["card_points"] == [38, 22]
    assert d["multiplier"] == 1 and d["no_trump"] is False and d["trump"] in "SHDC"
