"""One test per difference between the presets of RULES.md §8 and the flemish default."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import PRESETS, Deal, Game, IllegalMove, RuleSet, deal_for, get_rules
from engine.bots import get_bot
from engine.dealing import first_dealer, shuffled_deck
from tests.engine.support import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    fill_hands,
    find_playout,
    finish_randomly,
)


def legal(d: Deal) -> set[str]:
    return {str(c) for c in d.legal_moves()}


def play_game(rules, seed="preset-game", bot="random", deals=None) -> Game:
    g = Game(seed, rules, deals=deals)
    b = get_bot(bot)
    while not g.is_terminal():
        g.apply_action(b.act(g.observation(g.to_move), b"preset"))
    return g


def test_presets_are_the_four_named_in_the_rule_book():
    assert set(PRESETS) == {"flemish", "flemish-table", "french", "malilla"}
    assert get_rules() is get_rules("flemish")
    with pytest.raises(ValueError, match="unknown rules preset 'skat'"):
        get_rules("skat")


def test_flemish_has_no_blind_no_announcements_and_offers_no_trump():
    d = Deal.from_hands(fill_hands({}), dealer=SOUTH)
    assert d.phase == "trump" and d.to_move == SOUTH
    assert d.legal_actions() == ["trump:S", "trump:H", "trump:D", "trump:C", "trump:none"]
    d.apply_action("trump:none")
    assert d.phase == "play" and d.multiplier == 2


# ------------------------------------------------------------------ flemish-table


def table_deal(dealer=SOUTH, **changes) -> Deal:
    rules = get_rules("flemish-table").replace(**changes) if changes else "flemish-table"
    return Deal.from_hands(fill_hands({}), dealer=dealer, rules=rules)


def test_table_dealer_says_blind_or_look_before_seeing_his_cards():
    d = table_deal(dealer=NORTH)
    assert d.phase == "blind" and d.to_move == NORTH
    assert d.legal_actions() == ["blind", "look"]
    assert d.observation(NORTH)["hand"] is None  # the dealer has not looked
    assert d.observation(SOUTH)["hand"] is None  # nor may his partner
    assert d.observation(WEST)["hand"] is not None
    d.apply_action("look")
    assert d.phase == "trump"
    assert d.observation(NORTH)["hand"] is not None
    assert d.observation(SOUTH)["hand"] is None
    d.apply_action("trump:S")
    assert d.observation(SOUTH)["hand"] is not None


def test_table_blind_no_trump_counts_four_times():
    d = table_deal()
    d.apply_action("blind")
    assert d.no_trump and d.blind and d.trump is None
    assert d.multiplier == 4
    assert d.actions == ["blind"]


def test_table_looked_no_trump_counts_twice():
    d = table_deal()
    d.apply_action("look")
    d.apply_action("trump:none")
    assert d.multiplier == 2 and not d.blind


def test_table_opponent_says_mee_and_dealer_side_says_tegen():
    d = table_deal(dealer=SOUTH)
    d.apply_action("look")
    d.apply_action("trump:H")
    assert d.phase == "announce"
    assert d.to_move == WEST  # the opponents speak first, from the dealer's left
    assert d.legal_actions() == ["mee", "pass"]
    d.apply_action("mee")
    assert d.multiplier == 2
    assert d.to_move == SOUTH and d.legal_actions() == ["tegen", "pass"]
    d.apply_action("tegen")
    assert d.multiplier == 4
    assert d.phase == "play"  # max_doublings = 2 reached
    assert d.announcements == [(WEST, "mee"), (SOUTH, "tegen")]
    assert d.observation(EAST)["announcements"] == [[WEST, "mee"], [SOUTH, "tegen"]]


def test_table_both_opponents_may_pass_then_play_starts_undoubled():
    d = table_deal(dealer=SOUTH)
    d.apply_action("look")
    d.apply_action("trump:H")
    d.apply_action("pass")
    assert d.to_move == EAST and d.legal_actions() == ["mee", "pass"]
    d.apply_action("pass")
    assert d.phase == "play" and d.multiplier == 1 and d.to_move == WEST


def test_table_dealer_partner_may_answer_tegen_after_the_dealer_passes():
    d = table_deal(dealer=SOUTH)
    d.apply_action("look")
    d.apply_action("trump:H")
    d.apply_action("pass")
    d.apply_action("mee")  # East
    assert d.to_move == SOUTH
    d.apply_action("pass")
    assert d.to_move == NORTH and d.legal_actions() == ["tegen", "pass"]
    d.apply_action("tegen")
    assert d.multiplier == 4 and d.phase == "play"


def test_table_max_doublings_limits_the_announcements():
    one = table_deal(max_doublings=1)
    one.apply_action("look")
    one.apply_action("trump:D")
    one.apply_action("mee")
    assert one.phase == "play" and one.multiplier == 2
    none = table_deal(max_doublings=0)
    none.apply_action("look")
    none.apply_action("trump:D")
    assert none.phase == "play"
    three = table_deal(max_doublings=3)
    three.apply_action("look")
    three.apply_action("trump:D")
    for call in ("mee", "tegen"):
        three.apply_action(call)
    assert three.phase == "announce" and three.legal_actions() == ["mee", "pass"]
    three.apply_action("mee")
    assert three.phase == "play" and three.multiplier == 8


def test_wrong_announcement_is_refused():
    d = table_deal()
    d.apply_action("look")
    d.apply_action("trump:H")
    with pytest.raises(IllegalMove):
        d.apply_action("tegen")  # the opponents say mee, not tegen
    with pytest.raises(IllegalMove):
        d.apply_action("7S")
    assert d.phase == "announce" and d.doublings == 0


def all_tricks_hands():
    # South holds every heart (trump): WIJ cannot lose a trick.
    return fill_hands(
        {SOUTH: [r + "H" for r in "789JQKAT"], NORTH: [r + "S" for r in "789JQKAT"]},
        {WEST: "HS", EAST: "HS"},
    )


def _to_play(d: Deal, trump="trump:H"):
    while d.phase != "play":
        acts = d.legal_actions()
        d.apply_action("look" if "look" in acts else trump if trump in acts else "pass")
    return d


def test_all_eight_tricks_double_at_the_table_but_not_in_flemish():
    flemish = finish_randomly(
        _to_play(Deal.from_hands(all_tricks_hands(), dealer=SOUTH)), random.Random(1)
    )
    assert flemish.result.tricks_won == (8, 0)
    assert flemish.result.card_points == (60, 0)
    assert flemish.result.written == (30, 0)
    assert flemish.result.multiplier == 1
    table = finish_randomly(
        _to_play(Deal.from_hands(all_tricks_hands(), dealer=SOUTH, rules="flemish-table")),
        random.Random(1),
    )
    assert table.result.tricks_won == (8, 0)
    assert table.result.multiplier == 2
    assert table.result.written == (60, 0)


def test_table_multipliers_multiply_without_cap_seed_000_example():
    # After a 30:30 the dealer chooses no trump and an opponent says mee; the dealer's
    # side makes 37: 7 x 2 x 2 x 2 = 56.
    d = Deal.from_hands(fill_hands({}), dealer=SOUTH, rules="flemish-table", tie_factor=2)
    d.apply_action("look")
    d.apply_action("trump:none")
    d.apply_action("mee")
    d.apply_action("pass")
    d.apply_action("pass")
    assert d.phase == "play" and d.multiplier == 8
    done = find_playout(d, lambda x: x.result.card_points[0] == 37, seed="seed-000")
    assert done.result.multiplier == 8
    assert done.result.written == (56, 0)
    # The same deal in flemish is capped at x4.
    f = Deal.from_hands(fill_hands({}), dealer=SOUTH, rules="flemish", tie_factor=2)
    f.apply_action("trump:none")
    assert f.multiplier == 4


def test_table_blind_no_trump_with_tie_and_both_doublings_is_sixty_four_times():
    d = Deal.from_hands(fill_hands({}), dealer=SOUTH, rules="flemish-table", tie_factor=2)
    d.apply_action("blind")
    d.apply_action("mee")
    d.apply_action("tegen")
    assert d.multiplier == 4 * 2 * 2 * 2


def test_table_match_is_first_to_two_booms():
    g = play_game("flemish-table", seed="table-match")
    out = g.outcome
    assert out.reason == "match"
    assert max(out.games_won) == 2 or len(g.games) == 3
    assert 2 <= len(g.games) <= 3
    for summary in g.games:
        if summary.reason == "boom":
            assert max(summary.scores) >= 101
    won = [sum(1 for s in g.games if s.winner == t) for t in (0, 1)]
    assert tuple(won) == out.games_won
    assert out.winner == (0 if won[0] > won[1] else 1 if won[1] > won[0] else None)


# ------------------------------------------------------------------ french


def french_deal(fixed=None, forbid=None, dealer=WEST, turned="JH") -> Deal:
    fixed = dict(fixed or {})
    fixed.setdefault(dealer, [])
    if turned not in fixed[dealer]:
        fixed[dealer] = fixed[dealer] + [turned]
    return Deal.from_hands(fill_hands(fixed, forbid), dealer=dealer, rules="french", turned=turned)


def test_french_turned_card_sets_trump_and_play_starts_at_once():
    d = french_deal(turned="KD")
    assert d.trump_suit == "D" and not d.no_trump
    assert d.phase == "play"
    assert d.observation(SOUTH)["turned_card"] == "KD"


def test_french_turned_card_points_count_for_the_dealer_team():
    d = french_deal(dealer=WEST, turned="TH")
    assert d.team_points == [0, 5]
    d2 = french_deal(dealer=NORTH, turned="AS")
    assert d2.team_points == [4, 0]
    d3 = french_deal(dealer=NORTH, turned="9S")
    assert d3.team_points == [0, 0]


def test_french_right_neighbour_leads_and_play_goes_counter_clockwise():
    d = french_deal(dealer=WEST)
    assert d.to_move == SOUTH  # right of West
    order = []
    for _ in range(4):
        order.append(d.to_move)
        d.play(sorted(legal(d))[0])
    assert order == [SOUTH, EAST, NORTH, WEST]


def test_french_deals_four_and_four_counter_clockwise_from_the_dealer_right():
    for n in range(1, 6):
        spec = deal_for("french-deal", n, "french")
        order = shuffled_deck("french-deal", n)
        seats = [(spec.dealer - k) % 4 for k in range(1, 5)]
        for i, seat in enumerate(seats):
            assert (
                list(spec.hands[seat])
                == order[4 * i : 4 * i + 4] + order[16 + 4 * i : 16 + 4 * i + 4]
            )
        assert spec.turned == order[-1] == spec.hands[spec.dealer][-1]


def test_french_dealer_passes_counter_clockwise():
    first = first_dealer("french-rot")
    assert [deal_for("french-rot", n, "french").dealer for n in range(1, 6)] == [
        (first - k) % 4 for k in range(5)
    ]


def test_french_has_no_no_trump_and_no_doubling():
    d = french_deal()
    assert "trump:none" not in d.legal_actions()
    assert d.multiplier == 1
    with pytest.raises(IllegalMove):
        d.apply_action("trump:none")
    with pytest.raises(ValueError):
        Deal.from_hands(fill_hands({}), dealer=SOUTH, rules="french", turned="7X")


@pytest.mark.parametrize("turned", ["TH", "9H", "AC"])
def test_french_trick_points_make_68_plus_the_turned_card(turned):
    d = french_deal(turned=turned)
    from engine import Card

    for seed in range(5):
        done = finish_randomly(d, random.Random(seed))
        assert sum(done.result.card_points) == 68 + Card.parse(turned).points
        assert sum(done.result.tricks_won) == 8


def test_french_the_team_with_more_writes_its_count_over_34():
    d = french_deal(turned="TH")
    for seed in range(20):
        r = finish_randomly(d, random.Random(seed)).result
        a, b = r.card_points
        assert r.written == (
            (max(0, a - 34), 0) if a > b else (0, max(0, b - 34)) if b > a else (0, 0)
        )
        assert r.multiplier == 1


def test_french_void_player_unable_to_overtrump_may_undertrump():
    # West deals, hearts turned; South leads A♣, East trumps K♥, North (void) holds 9♥.
    d = french_deal(
        {SOUTH: ["AC", "TC"], EAST: ["KH"], NORTH: ["9H", "AS"]},
        {EAST: "C", NORTH: "CH"},
        dealer=WEST, turned="JH",
    )  # fmt: skip
    d.play("AC")
    d.play("KH")
    assert legal(d) == {str(c) for c in d.hand(NORTH)}  # 9♥ included


def test_french_void_player_partner_winning_need_not_trump():
    d = french_deal(
        {SOUTH: ["AC", "TC"], EAST: ["7C"], NORTH: ["9H", "AS"]},
        {EAST: ["TC"], NORTH: "CH"},
        turned="JH",
    )
    d.play("AC")
    d.play("7C")  # East follows; South (North's partner) wins: no obligation to trump
    assert legal(d) == {str(c) for c in d.hand(NORTH)}


def test_french_match_is_best_of_three_manches_to_34_and_belle_to_44():
    rules = get_rules("french")
    assert rules.targets == (34, 34, 44) and rules.games_to_win == 2
    assert [rules.target(i) for i in range(2)] == [34, 34]
    assert rules.target(2, (1, 1)) == 44  # the belle: the manches stand 1-1
    g = play_game("french", seed="french-match")
    assert g.outcome.reason == "match"
    assert 2 <= len(g.games) <= 3
    for summary in g.games:
        if summary.reason == "boom":
            assert max(summary.scores) >= rules.target(summary.index)
    if len(g.games) == 3:
        assert g.games[2].reason != "boom" or max(g.games[2].scores) >= 44


def test_french_belle_is_played_to_44_not_34():
    # Find a match that goes to a belle, then check no game before a team has 44 ends it.
    for i in range(30):
        g = play_game("french", seed=f"belle-{i}")
        if len(g.games) == 3 and g.games[2].reason == "boom":
            totals = [0, 0]
            for r in g.game_results[2][:-1]:
                totals[0] += r.written[0]
                totals[1] += r.written[1]
                assert max(totals) < 44
            assert max(g.games[2].scores) >= 44
            return
    pytest.fail("no belle in 30 french matches")


# ------------------------------------------------------------------ malilla


def malilla_deal(fixed, forbid=None, dealer=WEST, turned="JH", **changes) -> Deal:
    fixed = dict(fixed)
    fixed[dealer] = fixed.get(dealer, []) + [turned]
    rules = get_rules("malilla").replace(**changes) if changes else "malilla"
    return Deal.from_hands(fill_hands(fixed, forbid), dealer=dealer, rules=rules, turned=turned)


def test_malilla_turned_card_sets_trump_right_of_dealer_leads_counter_clockwise():
    d = malilla_deal({}, dealer=NORTH, turned="QS")
    assert d.trump_suit == "S" and d.phase == "play"
    assert d.team_points == [0, 0]  # the turned card's points are not written apart
    assert d.to_move == WEST
    d.play(sorted(legal(d))[0])
    assert d.to_move == SOUTH
    assert [deal_for("m", n, "malilla").dealer for n in (1, 2)] == [
        first_dealer("m"),
        (first_dealer("m") - 1) % 4,
    ]


def test_malilla_must_beat_the_partner_in_suit():
    # West deals; South leads Q♠, East 7♠, North (South's partner) holds K♠ 8♠.
    d = malilla_deal(
        {SOUTH: ["QS"], EAST: ["7S"], NORTH: ["KS", "8S"]},
        {NORTH: "S", EAST: "S"},
    )  # fmt: skip
    d.play("QS")
    d.play("7S")
    assert d.winning[0] == SOUTH
    assert legal(d) == {"KS"}
    with pytest.raises(IllegalMove, match="higher spade"):
        d.play("8S")


def test_malilla_void_must_trump_even_when_the_partner_wins():
    d = malilla_deal(
        {SOUTH: ["AC"], EAST: ["7C"], NORTH: ["9H", "AS"]}, {EAST: ["TC"], NORTH: "CH"}
    )
    d.play("AC")
    d.play("7C")
    assert legal(d) == {"9H"}


def test_malilla_void_unable_to_overtrump_must_undertrump():
    d = malilla_deal(
        {SOUTH: ["AC", "TC"], EAST: ["KH"], NORTH: ["9H", "AS"]},
        {EAST: "C", NORTH: "CH"},
    )  # fmt: skip
    d.play("AC")
    d.play("KH")
    assert legal(d) == {"9H"}
    with pytest.raises(IllegalMove) as err:
        d.play("AS")
    assert err.value.code == "forced_trump"
    assert str(err.value) == "you have no clubs: you must still play a trump"


def test_malilla_tie_writes_nothing_and_does_not_double_the_next_deal():
    rules = get_rules("malilla")
    g = Game("malilla-tie", rules)
    rng = random.Random(7)
    for _ in range(200):
        trial = g.clone()
        start = trial.deal_number
        while trial.deal_number == start:
            trial.apply_action(rng.choice(trial.legal_actions()))
        if trial.results[-1].tied:
            assert trial.results[-1].written == (0, 0)
            assert trial.deal.tie_factor == 1 and trial.deal.multiplier == 1
            assert trial.scores == [0, 0]
            return
    pytest.fail("no tied malilla deal found")


def test_malilla_has_no_no_trump_and_no_multipliers():
    rules = get_rules("malilla")
    assert not rules.allow_no_trump and not rules.announcements and not rules.blind_no_trump
    g = play_game("malilla", seed="malilla-mult")
    assert all(r.multiplier == 1 for r in g.results)
    assert g.outcome.reason in ("boom", "deal_limit")
    assert rules.targets == (101,)


def test_malilla_last_trick_bonus_makes_61():
    d = malilla_deal({}, last_trick_bonus=1)
    for seed in range(5):
        done = finish_randomly(d, random.Random(seed))
        r = done.result
        assert sum(r.card_points) == 61
        last = done.tricks[-1]
        pts = [0, 0]
        for t in done.tricks:
            pts[t.winner % 2] += t.points
        pts[last.winner % 2] += 1
        assert list(r.card_points) == pts
    plain = finish_randomly(malilla_deal({}), random.Random(0))
    assert sum(plain.result.card_points) == 60


def test_ruleset_replace_builds_a_club_variant():
    r = get_rules("flemish").replace(targets=(121,), max_deals=10)
    assert isinstance(r, RuleSet) and r.target(0) == 121 and r.max_deals == 10
    assert get_rules("flemish").targets == (101,)
    with pytest.raises(ValueError):
        get_rules("flemish").replace(packets=(4, 3))
    with pytest.raises(ValueError):
        get_rules("french").replace(allow_no_trump=True)


def test_french_a_level_manche_counts_for_neither_and_the_belle_needs_one_one():
    """RULES §8 (french): a manche that ends level at the 40-deal stop counts for neither
    side; the match goes on until a side has won two; the belle (to 44) is played only
    when the manches stand 1-1, not because it is the third manche."""
    rules = get_rules("french")
    assert rules.target(2, (0, 1)) == 34 and rules.target(3, (1, 1)) == 44
    assert rules.max_games >= 4
    path = Path(__file__).parent / "data" / "french-level-manche.json"
    data = json.loads(path.read_text())
    g = Game.replay(data["seed"], data["rules"], data["actions"])
    # Manche 1 level at the deal limit, manche 2 won by West-East: 0-1, not a belle.
    assert [(m.winner, m.reason) for m in g.games] == [(None, "deal_limit"), (1, "boom")]
    assert g.games_won == [0, 1] and not g.outcome
    assert g.observation(0)["target"] == 34
    rng = random.Random(0)
    while not g.is_terminal():
        g.apply_action(rng.choice(g.legal_actions()))
    assert g.outcome.winner is not None and max(g.outcome.games_won) == 2
    assert len(g.games) >= 3
    for m in g.games[2:]:
        won_before = [sum(1 for x in g.games[: m.index] if x.winner == s) for s in (0, 1)]
        if m.reason == "boom":
            assert max(m.scores) >= rules.target(m.index, won_before)


def test_a_single_game_is_one_game_and_a_match_allows_level_games():
    assert get_rules("flemish").max_games == get_rules("malilla").max_games == 1
    assert get_rules("flemish", deals=12).max_games == 1
    assert get_rules("french").max_games == get_rules("flemish-table").max_games == 5


@pytest.mark.parametrize(
    ("spec", "doubles"),
    [("flemish", True), ("flemish-table", True), ("french", False), ("malilla", False),
     ("flemish tie=own", False), ("french tie=carry", True)],
)  # fmt: skip
def test_the_observation_says_whether_a_tie_doubles_the_next_deal(spec, doubles):
    """The table's note after a 30-30 reads it: french and malilla double nothing by
    their own rule, with no option saying so."""
    assert Game("tie-note", spec).observation(0)["tie_doubles_next"] is doubles
