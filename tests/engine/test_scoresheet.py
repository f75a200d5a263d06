"""The score sheet of deals played with real cards (engine.scoresheet): written down
as a table would, every deal of a played game scores exactly as the engine scored it,
in every preset, tie carry and doublings included; bad lines are refused by name."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import Game, deal_for, get_rules
from engine.bots import get_bot
from engine.scoresheet import Line, check_line, deal_total, score_sheet, writable

SPECS = ["flemish deals=8", "flemish deals=8 tie=own", "flemish-table deals=8", "french deals=8",
         "malilla deals=8"]  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(SPECS), seed=st.integers(0, 10**6), bot_seed=st.binary(max_size=4))
# Found by hypothesis: all eight tricks to one side, the turned card's points to the other.
@example(spec="french deals=8", seed=1167, bot_seed=b"\x00\x00\x00")
def test_a_played_game_written_down_scores_as_the_engine_scored_it(spec, seed, bot_seed):
    rules = get_rules(spec)
    g = Game(f"sheet-{seed}", rules)
    bot = get_bot("random")
    while not g.is_terminal():
        g.apply_action(bot.act(g.observation(g.to_move), bot_seed))
    specs = [deal_for(g.seed, r.number, rules) for r in g.results]
    rows = score_sheet(rules, specs, [Line.of(r) for r in g.results])
    for row, result in zip(rows, g.results, strict=True):
        expected = result.to_dict()
        for key in ("dealer", "trump", "no_trump", "blind", "doublings", "multiplier", "deal"):
            assert row[key] == expected[key], (key, row, expected)
        assert list(row["card_points"]) == list(expected["card_points"])
        assert list(row["written"]) == list(expected["written"])
        assert sum(row["card_points"]) == deal_total(rules, specs[result.number - 1])
        # What an organizer may correct a deal to: this score is among them.
        assert min(row["written"]) == 0
        assert max(row["written"]) in writable(rules, specs[result.number - 1]) | {0}


@pytest.mark.parametrize("spec", SPECS)
def test_writable_is_every_score_some_line_writes(spec):
    """writable() against the sheet itself: every line a table can write down (each
    trump, points, blind, announcement and all-tricks choice) after every tie factor
    the deals before it can carry."""
    rules = get_rules(spec)
    limit = rules.max_doublings if rules.announcements else 0
    for number in (1, 2, 4):
        deal = deal_for("writable", number, rules)
        factors = {1}
        for _ in range(number - 1):
            factors |= {rules.next_tie_factor(True, f) for f in factors}
        written = set()
        for factor in factors:
            for trump in ("S", None) if rules.allow_no_trump else ("S",):
                for blind in {False, bool(rules.blind_no_trump and trump is None)}:
                    for points in range(deal_total(rules, deal) + 1):
                        for doublings in range(limit + 1):
                            for all_tricks in (False, True):
                                line = Line(trump, points, blind, doublings, all_tricks)
                                try:
                                    [row] = score_sheet(rules, [deal], [line], tie_factor=factor)
                                except ValueError:
                                    continue
                                written.add(max(row["written"]))
        assert writable(rules, deal) | {0} == written | {0}, (spec, number)


def test_ties_carry_and_are_capped_in_the_flemish_preset():
    rules = get_rules("flemish deals=5")
    specs = [deal_for("ties", k, rules) for k in range(1, 6)]
    lines = [Line("S", 30), Line("S", 30), Line(None, 30), Line(None, 40), Line("H", 40)]
    rows = score_sheet(rules, specs, lines)
    # x2 after one tie, x4 after two, no trump on top still capped at 4; back to 1.
    assert [r["multiplier"] for r in rows] == [1, 2, 4, 4, 1]
    assert [r["written"] for r in rows][-2:] == [(40, 0), (10, 0)]
    own = score_sheet(get_rules("flemish deals=5 tie=own"), specs, lines)
    assert [r["multiplier"] for r in own] == [1, 1, 2, 2, 1]


def test_the_table_presets_multiply_without_cap():
    rules = get_rules("flemish-table deals=2")
    specs = [deal_for("table", k, rules) for k in (1, 2)]
    rows = score_sheet(rules, specs, [Line(None, 60, blind=True, doublings=2, all_tricks=True)])
    assert rows[0]["multiplier"] == 4 * 4 * 2 and rows[0]["written"] == (30 * 32, 0)


def test_the_turned_card_sets_trump_and_its_points_count():
    rules = get_rules("french deals=1")
    spec = deal_for("turned", 1, rules)
    total = deal_total(rules, spec)
    assert total == 68 + spec.turned.points
    row = score_sheet(rules, [spec], [Line("H", total - 40)])[0]
    # What the table wrote as trump does not matter: the turned card decides.
    assert row["trump"] == spec.turned.suit and row["no_trump"] is False
    assert row["written"] == (0, 40 - 34)


@pytest.mark.parametrize(
    "spec, line, message",
    [
        ("flemish", Line("H", -1), "points must be 0 to 60"),
        ("flemish", Line("X", 30), "trump must be one of"),
        ("flemish", Line(None, 30, blind=True), "blind"),
        ("flemish", Line("H", 30, doublings=1), "announcements must be 0 to 0"),
        ("flemish-table", Line("H", 30, doublings=3), "announcements must be 0 to 2"),
        ("flemish-table", Line("H", 50, all_tricks=True), "all eight tricks has all 60"),
        ("flemish", Line("H", 50, all_tricks=True), None),  # it scores nothing here
        ("french", Line(None, 30), None),  # the turned card decides: no-trump ignored
    ],
)
def test_bad_lines_are_refused_by_name(spec, line, message):
    rules = get_rules(spec)
    deal = deal_for("bad", 1, rules)
    if message is None:
        check_line(rules, deal, line)
        return
    with pytest.raises(ValueError, match=message):
        check_line(rules, deal, line)


def test_more_lines_than_deals_is_refused():
    rules = get_rules("flemish deals=1")
    with pytest.raises(ValueError, match="2 lines for 1 deals"):
        score_sheet(rules, [deal_for("x", 1, rules)], [Line("H", 30), Line("H", 30)])
