"""The game to 101 (RULES.md §7): the boom after a complete deal, the 40-deal stop,
the player's score, dealer rotation, replay and clone."""

from __future__ import annotations

import json

import pytest

from engine import Game, IllegalMove, get_rules
from engine.bots import get_bot
from engine.dealing import first_dealer
from tests.engine.support import scripted, scripted_game


def play_random(g: Game, stop=None, seed=b"game") -> Game:
    bot = get_bot("random")
    while not g.is_terminal() and not (stop and stop(g)):
        g.apply_action(bot.act(g.observation(g.to_move), seed))
    return g


def test_score_for_is_own_total_minus_opponents_104_61():
    # ZIJ writes 20 + 20 + 21 = 61; WIJ writes 5 x 20 = 100, then 4: 104.
    plan = (
        [(None, scripted(a)) for a in (10, 10, 9)]
        + [(None, scripted(50))] * 5
        + [(None, scripted(34))]
    )
    g = scripted_game(plan)
    assert g.is_terminal()
    assert g.outcome.scores == (104, 61)
    assert g.outcome.winner == 0 and g.outcome.reason == "boom"
    assert [g.score_for(s) for s in range(4)] == [43, -43, 43, -43]
    assert g.returns() == [43, -43, 43, -43]


def test_score_for_is_negative_for_the_losing_team_70_103():
    plan = (
        [(None, scripted(a)) for a in (50, 50, 50, 40)]
        + [(None, scripted(10))] * 5
        + [(None, scripted(27))]
    )
    g = scripted_game(plan)
    assert g.outcome.scores == (70, 103)
    assert g.outcome.winner == 1
    assert g.score_for(0) == -33 and g.score_for(1) == 33
    assert g.observation(0)["score_for_seat"] == -33


def test_game_goes_on_at_100_and_ends_after_the_deal_that_reaches_101():
    g = scripted_game([(None, scripted(50))] * 5)
    assert g.scores == [100, 0] and not g.is_terminal()
    assert g.deal_number == 6 and g.deal.phase == "trump"
    for a in scripted(31):
        assert not g.is_terminal()  # never in the middle of a deal
        g.apply_action(a)
    assert g.is_terminal()
    assert g.outcome.scores == (101, 0) and g.outcome.reason == "boom"
    assert g.to_move is None and g.legal_actions() == []
    with pytest.raises(IllegalMove, match="over"):
        g.apply_action("trump:S")


def test_random_games_end_exactly_after_the_first_deal_reaching_101():
    for i in range(6):
        g = play_random(Game(f"boom-{i}"))
        totals = [0, 0]
        for k, r in enumerate(g.results):
            totals = [totals[0] + r.written[0], totals[1] + r.written[1]]
            if k < len(g.results) - 1:
                assert max(totals) < 101
        assert totals == list(g.outcome.scores)
        if g.outcome.reason == "boom":
            assert max(totals) >= 101
            assert g.outcome.winner == (0 if totals[0] > totals[1] else 1)


def test_game_stops_after_40_deals_with_a_draw_on_equal_totals():
    plan = [(None, scripted(31 if k % 2 == 0 else 29)) for k in range(40)]
    g = scripted_game(plan)
    assert g.is_terminal() and len(g.results) == 40
    assert g.outcome.reason == "deal_limit"
    assert g.outcome.scores == (20, 20)
    assert g.outcome.winner is None
    assert g.score_for(0) == 0


def test_game_stops_after_40_deals_and_the_higher_total_wins():
    plan = [(None, scripted(31 if k % 2 == 0 or k == 39 else 29)) for k in range(40)]
    g = scripted_game(plan)
    assert g.outcome.reason == "deal_limit"
    assert g.outcome.scores == (21, 19)
    assert g.outcome.winner == 0


def test_max_deals_can_be_lowered_with_replace():
    rules = get_rules("flemish").replace(max_deals=2)
    g = scripted_game([(None, scripted(38)), (None, scripted(22))], rules=rules)
    assert g.is_terminal() and g.outcome.reason == "deal_limit"
    assert g.outcome.scores == (8, 8) and g.outcome.winner is None
    g = play_random(Game("short", rules))
    assert len(g.results) <= 2


def test_dealer_rotates_clockwise_each_deal_and_left_of_dealer_leads():
    g = Game("rotation")
    first = first_dealer("rotation")
    bot = get_bot("random")
    dealers = {}
    while not g.is_terminal() and g.deal_number <= 6:
        d = g.deal
        if d.phase == "trump":
            dealers[g.deal_number] = d.dealer
            assert g.to_move == d.dealer  # the dealer chooses trump
        if d.phase == "play" and not d.tricks and not d.current_trick:
            assert g.to_move == (d.dealer + 1) % 4  # left of the dealer leads trick 1
        g.apply_action(bot.act(g.observation(g.to_move), b"r"))
    assert len(dealers) >= 5
    assert dealers == {k: (first + k - 1) % 4 for k in dealers}
    assert [b["dealer"] for b in g.board] == [(first + k) % 4 for k in range(len(g.board))]


def test_replay_rebuilds_an_identical_game():
    for rules in ("flemish", "flemish-table", "french", "malilla"):
        g = play_random(Game(f"replay-{rules}", rules))
        h = Game.replay(f"replay-{rules}", rules, g.actions)
        assert h.actions == g.actions
        assert h.board == g.board
        assert h.outcome == g.outcome
        assert h.scores == g.scores and h.games_won == g.games_won
        assert [h.observation(s) for s in range(4)] == [g.observation(s) for s in range(4)]


def test_replay_of_a_partial_game_matches_the_position():
    g = play_random(Game("partial"), stop=lambda x: len(x.actions) >= 150)
    h = Game.replay("partial", "flemish", g.actions)
    assert [h.observation(s) for s in range(4)] == [g.observation(s) for s in range(4)]
    assert h.legal_actions() == g.legal_actions()


def test_replay_names_the_first_bad_action():
    g = Game("bad-replay")
    actions = ["trump:H", "XX"]
    with pytest.raises(IllegalMove, match="action 2"):
        Game.replay("bad-replay", "flemish", actions)
    assert g.actions == []


def test_clone_is_independent_of_the_original():
    g = play_random(Game("clone"), stop=lambda x: len(x.actions) >= 70)
    before = json.dumps([g.observation(s) for s in range(4)], sort_keys=True)
    actions = list(g.actions)
    c = g.clone()
    play_random(c, stop=lambda x: len(x.actions) >= 200)
    assert g.actions == actions
    assert json.dumps([g.observation(s) for s in range(4)], sort_keys=True) == before
    # And the other way round: moving the original leaves the clone alone.
    c2 = g.clone()
    snap = json.dumps([c2.observation(s) for s in range(4)], sort_keys=True)
    play_random(g, stop=lambda x: len(x.actions) >= 120)
    assert json.dumps([c2.observation(s) for s in range(4)], sort_keys=True) == snap


def test_deal_clone_is_independent():
    g = Game("deal-clone")
    g.apply_action("trump:S")
    d = g.deal
    c = d.clone()
    c.play(str(c.legal_moves()[0]))
    assert d.current_trick == [] and len(c.current_trick) == 1
    assert d.hands != c.hands and d.actions == ["trump:S"]


def test_observation_is_json_serializable_and_has_the_documented_keys():
    g = play_random(Game("obs"), stop=lambda x: len(x.actions) >= 40)
    obs = g.observation(g.to_move)
    json.dumps(obs)
    for key in ("seat", "rules", "deal_number", "dealer", "phase", "to_move", "trump", "no_trump",
                "trump_chosen", "turned_card", "announcements", "multiplier", "tie_factor", "hand",
                "hand_sizes", "current_trick", "tricks", "team_points", "legal", "scores",
                "games_won", "board", "game_over", "outcome"):  # fmt: skip
        assert key in obs, key
    assert obs["legal"] == g.legal_actions()
    other = (g.to_move + 1) % 4
    assert g.observation(other)["legal"] == []


def test_game_over_observation_reports_the_outcome():
    g = play_random(Game("over"))
    obs = g.observation(0)
    assert obs["phase"] == "game_over" and obs["game_over"] is True
    assert obs["to_move"] is None and obs["legal"] == []
    assert obs["outcome"]["winner"] == g.outcome.winner
    assert obs["outcome"]["reason"] in ("boom", "deal_limit")


def test_game_records_actions_in_canonical_notation():
    # Cards may be typed as "7s", "10♠" or given as Card objects; the record keeps "TS".
    from engine import Card

    g = Game("canon")
    g.apply_action("trump:H")
    spellings = [
        lambda t: t.lower(),
        lambda t: Card.parse(t).display(),
        lambda t: Card.parse(t),
        lambda t: t,
    ]
    for i in range(8):
        card = g.legal_actions()[0]
        g.apply_action(spellings[i % 4](card))
        assert g.actions[-1] == card
    assert g.actions == g.deal.actions
    assert Game.replay("canon", "flemish", g.actions).actions == g.actions


# ------------------------------------------------------------------ naive scoreboard
# RULES.md §6-§8 written out again, deal by deal, from what happened at the table
# (card points, no trump, blind, doublings, tricks won); compared with the engine.

NAIVE = {
    # threshold, cap, table doublings of all eight, ties double, targets, games to win
    "flemish": dict(threshold=30, cap=4, all_eight=False, ties=True, targets=[101], wins=1),
    "flemish-table": dict(threshold=30, cap=None, all_eight=True, ties=True, targets=[101], wins=2),
    "french": dict(
        threshold=34, cap=None, all_eight=False, ties=False, targets=[34, 34, 44], wins=2
    ),
    "malilla": dict(threshold=30, cap=None, all_eight=False, ties=False, targets=[101], wins=1),
}


def naive_scoreboard(preset: str, deals: list[dict], max_deals: int = 40):
    p = NAIVE[preset]
    written_all, games, tie = [], [], 1
    scores, n_in_game, won = [0, 0], 0, [0, 0]
    for deal in deals:
        a, b = deal["card_points"]
        mult = (4 if deal["blind"] else 2) if deal["no_trump"] else 1
        mult *= 2 ** deal["doublings"] * tie
        if p["all_eight"] and 8 in deal["tricks_won"]:
            mult *= 2
        if p["cap"]:
            mult = min(mult, p["cap"])
        w = [0, 0]
        if a > b:
            w[0] = max(0, a - p["threshold"]) * mult
        elif b > a:
            w[1] = max(0, b - p["threshold"]) * mult
        written_all.append((tuple(w), mult))
        scores = [scores[0] + w[0], scores[1] + w[1]]
        n_in_game += 1
        tie = min(tie * 2, p["cap"] or 1 << 30) if (a == b and p["ties"]) else 1
        target = p["targets"][min(len(games), len(p["targets"]) - 1)]
        if max(scores) >= target or n_in_game >= max_deals:
            winner = 0 if scores[0] > scores[1] else 1 if scores[1] > scores[0] else None
            games.append((tuple(scores), winner))
            if winner is not None:
                won[winner] += 1
            if max(won) >= p["wins"] or len(games) >= 2 * p["wins"] - 1:
                break
            scores, n_in_game, tie = [0, 0], 0, 1
    return written_all, games, won


@pytest.mark.parametrize("preset", ["flemish", "flemish-table", "french", "malilla"])
def test_naive_scoreboard_agrees_with_the_engine(preset):
    import random

    for i in range(6):
        rng = random.Random(f"board-{preset}-{i}")
        g = Game(f"board-{preset}-{i}", preset)
        while not g.is_terminal():
            acts = g.legal_actions()
            # Prefer no trump and doublings now and then to exercise the multipliers.
            special = [a for a in acts if a in ("trump:none", "mee", "tegen", "blind")]
            g.apply_action(
                rng.choice(special) if special and rng.random() < 0.3 else rng.choice(acts)
            )
        deals = [
            dict(card_points=r.card_points, no_trump=r.no_trump, blind=r.blind,
                 doublings=r.doublings, tricks_won=r.tricks_won)
            for r in g.results
        ]  # fmt: skip
        written, games, won = naive_scoreboard(preset, deals)
        assert len(written) == len(g.results), "the game ended at the wrong deal"
        assert [(r.written, r.multiplier) for r in g.results] == written
        assert [(s.scores, s.winner) for s in g.games] == games
        assert list(g.games_won) == won
        if NAIVE[preset]["wins"] == 1:
            assert g.outcome.winner == games[-1][1]
        else:
            assert g.outcome.winner == (0 if won[0] > won[1] else 1 if won[1] > won[0] else None)


@pytest.mark.parametrize("seat", [True, 4, -1, "0", 1.0])
def test_a_seat_that_is_not_0_to_3_is_refused_as_such(seat):
    """Not "it is South's turn, not yours" (and True is not East's 1): the seat is bad."""
    from engine.messages import explain

    g = Game("bad-seats", "flemish")
    before = list(g.actions)
    with pytest.raises(IllegalMove) as err:
        g.apply_action(g.legal_actions()[0], seat=seat)
    assert err.value.code == "bad_seat" and "is not a seat" in str(err.value)
    assert "geen plaats" in explain(err.value, "nl")
    assert g.actions == before


def test_deals_true_is_not_a_game_of_one_deal():
    with pytest.raises(ValueError, match="fixed deals"):
        get_rules("flemish", deals=True)
