"""The Deal state API (docs/engine-api.md): construction, phases, actions, views."""

from __future__ import annotations

import json
import random

import pytest

from engine import Card, Deal, DealResult, IllegalMove, deal_for, team_of
from engine.deal import check_deck
from tests.engine.support import EAST, NORTH, SOUTH, WEST, fill_hands, finish_randomly


def test_teams_are_south_north_against_west_east():
    assert [team_of(s) for s in (SOUTH, WEST, NORTH, EAST)] == [0, 1, 0, 1]


def test_from_hands_needs_four_hands_of_eight_distinct_cards():
    hands = fill_hands({})
    with pytest.raises(ValueError, match="four hands"):
        Deal.from_hands(hands[:3], dealer=0)
    short = [h[:] for h in hands]
    short[2] = short[2][:7]
    with pytest.raises(ValueError, match="seat 2 holds 7 cards"):
        Deal.from_hands(short, dealer=0)
    twice = [h[:] for h in hands]
    twice[1][0] = twice[0][0]
    with pytest.raises(ValueError, match="dealt twice"):
        Deal.from_hands(twice, dealer=0)
    with pytest.raises(ValueError, match="unknown rank"):
        Deal.from_hands([["XS"] + h[1:] for h in hands], dealer=0)
    with pytest.raises(ValueError, match="dealer"):
        Deal.from_hands(hands, dealer=4)


def test_turned_card_only_where_the_preset_turns_one():
    hands = fill_hands({})
    with pytest.raises(ValueError, match="do not turn"):
        Deal.from_hands(hands, dealer=0, rules="flemish", turned=hands[0][0])
    with pytest.raises(ValueError, match=f"turned card {hands[1][0]} is not in the dealer's hand"):
        Deal.from_hands(hands, dealer=0, rules="french", turned=hands[1][0])  # not the dealer's
    d = Deal.from_hands(hands, dealer=2, rules="malilla")
    assert str(d.turned) == hands[2][-1]  # defaults to the last card listed


def test_phases_and_legal_actions_through_a_deal():
    d = Deal.from_spec(deal_for("phases", 1))
    assert d.phase == "trump" and d.to_move == d.dealer
    assert d.legal_moves() == [] and d.legal_mask() == 0
    assert d.trick_leader is None and d.winning is None
    d.choose_trump("D")
    assert d.phase == "play" and d.trump_suit == "D" and d.trump_chosen
    assert d.trick_leader == (d.dealer + 1) % 4
    assert d.legal_actions() == [str(c) for c in d.legal_moves()]
    done = finish_randomly(d, random.Random(0))
    assert done.phase == "done" and done.to_move is None and done.is_terminal()
    assert done.legal_actions() == [] and done.legal_moves() == []
    assert isinstance(done.result, DealResult)
    with pytest.raises(IllegalMove, match="over"):
        done.apply_action("TS")
    with pytest.raises(IllegalMove, match="over"):
        done.play("TS")


def test_choose_trump_accepts_none_for_no_trump_and_refuses_it_twice():
    d = Deal.from_spec(deal_for("nt", 1))
    d.choose_trump(None)
    assert d.no_trump and d.trump is None and d.actions == ["trump:none"]
    with pytest.raises(IllegalMove):
        d.choose_trump("H")
    assert d.no_trump


def test_unknown_actions_are_refused_with_a_code():
    d = Deal.from_spec(deal_for("unknown", 1))
    for bad, code in [
        ("trump:X", "unknown_action"),
        ("mee", "wrong_phase"),
        ("TS", "wrong_phase"),
        ("hello", "unknown_action"),
    ]:
        with pytest.raises(IllegalMove) as err:
            d.apply_action(bad)
        assert err.value.code == code
    assert d.actions == [] and d.phase == "trump"
    d.apply_action("trump:S")
    with pytest.raises(IllegalMove) as err:
        d.play("ZZ")
    assert err.value.code == "unknown_action"
    assert d.actions == ["trump:S"]


def test_trick_records_leader_cards_winner_and_points():
    d = Deal.from_spec(deal_for("trick", 1))
    d.choose_trump("H")
    leader = d.to_move
    for _ in range(4):
        d.play(d.legal_moves()[0])
    t = d.tricks[0]
    assert t.leader == leader and [s for s, _ in t.cards] == [(leader + k) % 4 for k in range(4)]
    assert t.points == sum(c.points for _, c in t.cards)
    assert t.to_dict()["winner"] == t.winner and d.to_move == t.winner
    assert d.team_points[t.winner % 2] == t.points


def test_initial_hands_and_check_deck():
    spec = deal_for("initial", 4)
    d = Deal.from_spec(spec)
    assert check_deck(list(d.initial_hands))
    assert [sorted(d.hand(s)) for s in range(4)] == [sorted(h) for h in spec.hands]
    assert not check_deck([d.initial_hands[0]] * 4)


def test_deal_observation_is_json_ready():
    d = Deal.from_spec(deal_for("json", 1))
    d.choose_trump("C")
    d.play(d.legal_moves()[0])
    for seat in range(4):
        obs = json.loads(json.dumps(d.observation(seat)))
        assert obs["trump"] == "C" and obs["current_trick"]["cards"][0][0] == (d.dealer + 1) % 4
    with pytest.raises(ValueError):
        d.observation(4)


def test_play_accepts_card_objects_and_alternative_spellings():
    d = Deal.from_spec(deal_for("spell", 1))
    d.choose_trump("S")
    c = d.legal_moves()[0]
    d.play(Card.parse(str(c)))
    c2 = d.legal_moves()[0]
    d.play(c2.display())
    assert d.actions[-2:] == [str(c), str(c2)]


def test_dealer_partner_hand_stays_face_down_until_trump_is_chosen():
    # When North deals, South's cards stay face down until North has chosen (§3).
    d = Deal.from_hands(fill_hands({}), dealer=NORTH)
    assert d.observation(SOUTH)["hand"] is None
    assert d.observation(SOUTH)["hand_sizes"] == [8, 8, 8, 8]
    assert d.observation(NORTH)["hand"] is not None
    assert d.observation(WEST)["hand"] is not None and d.observation(EAST)["hand"] is not None
    assert d.observation(SOUTH)["legal"] == []  # nothing leaks through the legal list
    d.choose_trump("H")
    assert sorted(d.observation(SOUTH)["hand"]) == sorted(str(c) for c in d.hand(SOUTH))


def test_illegal_move_survives_pickling():
    import pickle

    e = IllegalMove("follow_suit", "you must follow hearts", suit="H")
    back = pickle.loads(pickle.dumps(e))
    assert (back.code, str(back), back.params) == (
        "follow_suit",
        "you must follow hearts",
        {"suit": "H"},
    )


def test_an_action_out_of_turn_is_refused_with_the_rule_in_the_players_language():
    """RULES §5: a refusal names the rule, in the chosen language: no English tail in
    the Dutch or French text, and kloppen's order named (mee first, then tegen)."""
    from engine import Game
    from engine.messages import explain

    g = Game("phase-words", "flemish-table")
    cases = []
    for action in ("trump:H", "look", "trump:H", "tegen", "TS", "mee", "mee"):
        try:
            g.apply_action(action)
        except IllegalMove as err:
            cases.append((action, {lang: explain(err, lang) for lang in ("nl", "en", "fr")}))
    (a1, first), (a2, tegen), (a3, card), (a4, again) = cases
    assert first["nl"] == "trump:H kan nu niet: de gever moet eerst blind spelen of kijken"
    assert tegen["nl"] == "tegen kan nu niet: de tegenpartij zegt nu mee of past"
    assert tegen["en"] == "tegen is not possible now: the opponents now say mee or pass"
    assert card["fr"] == "TS n'est pas possible maintenant : les annonces ne sont pas finies"
    assert again["nl"] == "mee kan nu niet: de partij van de gever zegt nu tegen of past"
    for _, texts in cases:  # nothing English left in the other languages
        for lang in ("nl", "fr"):
            assert not any(w in texts[lang] for w in ("the ", "must ", "first")), texts[lang]
