"""The play obligations of RULES.md §5 (flemish preset), one test per obligation, and
every worked example of §5.

Seats: 0 South, 1 West, 2 North, 3 East, clockwise. With South dealing (dealer 0),
West (dealer + 1) leads trick 1 and South plays fourth.
"""

from __future__ import annotations

import random

import pytest

from engine import Deal, Game, IllegalMove, explain
from tests.engine.support import EAST, NORTH, SOUTH, WEST, deal_with, fill_hands, snapshot


def legal(d: Deal) -> set[str]:
    return {str(c) for c in d.legal_moves()}


def play(d: Deal, *cards: str) -> Deal:
    for c in cards:
        d.play(c)
    return d


def refused(d: Deal, card: str) -> IllegalMove:
    before = snapshot(d)
    with pytest.raises(IllegalMove) as err:
        d.play(card)
    assert snapshot(d) == before, "a refused card must leave the deal unchanged"
    return err.value


# --------------------------------------------------------------- worked examples (§5)


def test_example_west_leads_king_of_spades_south_with_ten_and_seven_must_play_the_ten():
    # Hearts trump. West leads K♠ and is still winning when South (4th) plays.
    d = deal_with(
        {WEST: ["KS"], NORTH: ["8S"], EAST: ["9S"], SOUTH: ["TS", "7S"]},
        {NORTH: "S", SOUTH: "S", EAST: "S"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    assert d.to_move == WEST
    play(d, "KS", "8S", "9S")
    assert d.winning[0] == WEST
    assert d.to_move == SOUTH
    assert legal(d) == {"TS"}
    err = refused(d, "7S")
    assert str(err) == "an opponent is winning with K♠ and you hold a higher spade: play it"
    assert err.code == "beat_in_suit"
    d.play("TS")
    assert d.tricks[-1].winner == SOUTH


def test_example_west_leads_ace_of_clubs_south_void_with_seven_of_hearts_must_trump():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["8C"], SOUTH: ["7H"]},
        {NORTH: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "8C")
    assert legal(d) == {"7H"}
    other = next(c for c in d.hand(SOUTH) if str(c) != "7H")
    err = refused(d, str(other))
    assert err.code == "must_trump"
    assert str(err) == "you have no clubs and an opponent is winning: you must trump"
    d.play("7H")
    assert d.tricks[-1].winner == SOUTH  # any trump wins a trick without trump


def test_example_east_trumps_south_with_nine_and_seven_of_hearts_must_overtrump_with_nine():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["8H"], SOUTH: ["9H", "7H"]},
        {NORTH: "C", EAST: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "8H")
    assert d.winning == (EAST, d.winning[1]) and str(d.winning[1]) == "8H"
    assert legal(d) == {"9H"}
    err = refused(d, "7H")
    assert err.code == "must_overtrump"
    assert (
        str(err)
        == "an opponent is winning with 8♥ and you hold a higher trump: you must over-trump"
    )
    other = next(str(c) for c in d.hand(SOUTH) if c.suit != "H")
    assert refused(d, other).code == "must_overtrump"
    d.play("9H")
    assert d.tricks[-1].winner == SOUTH


def test_example_east_trumps_south_with_only_seven_of_hearts_may_not_undertrump():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["8H"], SOUTH: ["7H"]},
        {NORTH: "C", EAST: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "8H")
    south = {str(c) for c in d.hand(SOUTH)}
    assert legal(d) == south - {"7H"}
    err = refused(d, "7H")
    assert err.code == "no_undertrump"
    assert str(err).startswith("you may not under-trump")
    d.play(sorted(south - {"7H"})[0])
    assert d.tricks[-1].winner == EAST


def test_example_partner_wins_with_ten_of_diamonds_south_void_may_play_a_loose_ace():
    d = deal_with(
        {WEST: ["7D"], NORTH: ["TD"], EAST: ["8D"], SOUTH: ["AS", "TH", "7H"]},
        {SOUTH: "DSH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "7D", "TD", "8D")
    assert d.winning[0] == NORTH
    assert legal(d) == {str(c) for c in d.hand(SOUTH)}  # any card, trumping not required
    d.play("AS")
    assert d.tricks[-1].winner == NORTH
    assert d.tricks[-1].points == 5 + 4
    assert d.team_points == [9, 0]


def test_example_anna_ben_carla_dan_ben_side_wins_six_points():
    # Spades trump. Anna = South leads (dealer East), Ben = West, Carla = North, Dan = East.
    anna, ben, carla, dan = SOUTH, WEST, NORTH, EAST
    d = deal_with(
        {anna: ["QH"], ben: ["8S"], carla: ["7H", "AH"], dan: ["AD"]},
        {ben: "H", carla: "H", dan: ["H", "7S"]},
        dealer=EAST, trump="S",
    )  # fmt: skip
    assert d.to_move == anna
    d.play("QH")
    # Ben, void in hearts with an opponent winning, must trump.
    assert legal(d) == {str(c) for c in d.hand(ben) if c.suit == "S"}
    d.play("8S")
    # Carla holds hearts: she must follow, and as the trick is trumped any heart will do.
    assert legal(d) == {"7H", "AH"}
    d.play("7H")
    # Dan, void, partner winning: any card that is not an under-trump.
    assert "AD" in legal(d)
    d.play("AD")
    trick = d.tricks[-1]
    assert trick.winner == ben
    assert trick.points == 6
    assert d.team_points == [0, 6]


# --------------------------------------------------------------- one test per obligation


def test_leader_may_play_any_card():
    d = deal_with({}, dealer=SOUTH, trump="H")
    assert legal(d) == {str(c) for c in d.hand(WEST)}


def test_player_holding_the_led_suit_must_follow_suit():
    # Clubs trump; West leads K♥; South holds only lower hearts.
    d = deal_with(
        {WEST: ["KH", "TH", "AH"], NORTH: ["7H"], EAST: ["8H"], SOUTH: ["9H", "QH"]},
        {NORTH: "H", EAST: "H", SOUTH: "H"},
        dealer=SOUTH, trump="C",
    )  # fmt: skip
    play(d, "KH", "7H", "8H")
    assert legal(d) == {"9H", "QH"}
    off = next(str(c) for c in d.hand(SOUTH) if c.suit != "H")
    err = refused(d, off)
    assert err.code == "follow_suit"
    assert str(err) == "you must follow hearts"


def test_following_player_must_beat_an_opponent_in_suit_when_able():
    d = deal_with(
        {WEST: ["QD"], NORTH: ["7D"], EAST: ["8D"], SOUTH: ["KD", "AD", "9D"]},
        {NORTH: "D", EAST: "D", SOUTH: "D"},
        dealer=SOUTH, trump="S",
    )  # fmt: skip
    play(d, "QD", "7D", "8D")
    assert legal(d) == {"KD", "AD"}
    err = refused(d, "9D")
    assert str(err) == "an opponent is winning with Q♦ and you hold a higher diamond: play it"


def test_following_player_unable_to_beat_plays_any_card_of_the_suit():
    d = deal_with(
        {WEST: ["TD"], NORTH: ["7D"], EAST: ["8D"], SOUTH: ["KD", "9D"]},
        {NORTH: "D", EAST: "D", SOUTH: "D"},
        dealer=SOUTH, trump="S",
    )  # fmt: skip
    play(d, "TD", "7D", "8D")
    assert legal(d) == {"KD", "9D"}


def test_second_hand_must_beat_the_leader():
    d = deal_with({NORTH: ["KS"], EAST: ["AS", "7S"]}, {EAST: "S"}, dealer=WEST, trump="H")
    assert d.to_move == NORTH
    d.play("KS")
    assert legal(d) == {"AS"}


def test_partner_winning_in_suit_any_card_of_the_suit():
    d = deal_with(
        {WEST: ["7D"], NORTH: ["QD"], EAST: ["8D"], SOUTH: ["KD", "AD", "9D"]},
        {NORTH: "D", EAST: "D", SOUTH: "D"},
        dealer=SOUTH, trump="S",
    )  # fmt: skip
    play(d, "7D", "QD", "8D")
    assert d.winning[0] == NORTH
    assert legal(d) == {"KD", "AD", "9D"}


def test_trumped_trick_any_card_of_the_led_suit():
    d = deal_with(
        {WEST: ["9C"], NORTH: ["7C"], EAST: ["8H"], SOUTH: ["TC", "8C", "AH"]},
        {NORTH: "C", EAST: "C", SOUTH: "C"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "9C", "7C", "8H")
    assert legal(d) == {"TC", "8C"}  # the ten cannot win a trumped trick: no obligation
    err = refused(d, "AH")  # following comes before over-trumping
    assert err.code == "follow_suit"
    assert str(err) == "you must follow clubs"


def test_trump_led_opponent_winning_must_play_a_higher_trump():
    d = deal_with(
        {WEST: ["KH"], NORTH: ["7H"], EAST: ["8H"], SOUTH: ["TH", "9H"]},
        {NORTH: "H", EAST: "H", SOUTH: "H"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "KH", "7H", "8H")
    assert legal(d) == {"TH"}
    err = refused(d, "9H")
    assert str(err) == "an opponent is winning with K♥ and you hold a higher heart: play it"


def test_trump_led_partner_winning_any_trump():
    d = deal_with(
        {WEST: ["7H"], NORTH: ["KH"], EAST: ["8H"], SOUTH: ["TH", "9H"]},
        {NORTH: "H", EAST: "H", SOUTH: "H"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "7H", "KH", "8H")
    assert legal(d) == {"TH", "9H"}


def test_trump_led_void_in_trump_any_card():
    d = deal_with({WEST: ["KH"]}, {SOUTH: "H"}, dealer=SOUTH, trump="H")
    d.play("KH")
    d.play(sorted(legal(d))[0])  # North and East play whatever the rules allow
    d.play(sorted(legal(d))[0])
    assert legal(d) == {str(c) for c in d.hand(SOUTH)}


def test_void_player_must_trump_when_an_opponent_wins_without_trump():
    d = deal_with(
        {WEST: ["AC"], NORTH: ["7C"], EAST: ["8C"], SOUTH: ["7H", "TH", "AS"]},
        {NORTH: ["TC"], SOUTH: "C"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "8C")
    assert legal(d) == {str(c) for c in d.hand(SOUTH) if c.suit == "H"}  # any trump wins
    err = refused(d, "AS")
    assert err.code == "must_trump"


def test_void_player_must_overtrump_opponent():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["JH"], SOUTH: ["QH", "TH", "9H", "AS"]},
        {NORTH: "C", EAST: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "JH")
    assert legal(d) == {"QH", "TH"}
    for card in ("9H", "AS"):
        err = refused(d, card)
        assert err.code == "must_overtrump"
        assert "over-trump" in str(err)


def test_void_player_unable_to_overtrump_may_not_undertrump():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["KH"], SOUTH: ["QH", "9H", "AS"]},
        {NORTH: "C", EAST: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "KH")
    hand = {str(c) for c in d.hand(SOUTH)}
    assert legal(d) == hand - {"QH", "9H"}
    err = refused(d, "9H")
    assert str(err) == "you may not under-trump: play a card of another suit"


def test_void_player_without_trumps_plays_any_card():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["8C"]},
        {NORTH: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "8C")
    assert legal(d) == {str(c) for c in d.hand(SOUTH)}


def test_void_partner_winning_may_trump_but_need_not():
    d = deal_with(
        {WEST: ["7C"], NORTH: ["AC"], EAST: ["8C"], SOUTH: ["7H", "AS"]},
        {SOUTH: "C"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "7C", "AC", "8C")
    assert legal(d) == {str(c) for c in d.hand(SOUTH)}


def test_void_partner_winning_with_trump_no_undertrump():
    # West leads A♣, North (void) trumps K♥, East follows; South void: any card except a
    # trump below K♥ — a higher trump is still allowed.
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["KH"], EAST: ["7C"], SOUTH: ["TH", "8H", "AS"]},
        {NORTH: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "KH", "7C")
    assert d.winning[0] == NORTH
    hand = {str(c) for c in d.hand(SOUTH)}
    assert legal(d) == hand - {"8H"}
    err = refused(d, "8H")
    assert err.code == "no_undertrump"
    assert str(err).startswith("you may not under-trump")


def _find_position(predicate, seeds=range(400)):
    """First position in random flemish play (fixed seeds) where ``predicate(d)`` holds."""
    for seed in seeds:
        rng = random.Random(seed)
        from engine import deal_for

        d = Deal.from_spec(deal_for(f"find-{seed}", 1))
        d.choose_trump(rng.choice("SHDC"))
        while not d.is_terminal():
            if predicate(d):
                return d
            d.play(rng.choice(d.legal_moves()))
    raise AssertionError("no such position in the sampled games")


def _only_lower_trumps(d: Deal, partner: bool) -> bool:
    trick = d.current_trick
    if not trick or d.trump is None:
        return False
    seat = d.to_move
    led = trick[0][1].suit_index
    w_seat, w = d.winning
    if led == d.trump or w.suit_index != d.trump or ((w_seat - seat) % 2 == 0) != partner:
        return False
    hand = d.hand(seat)
    return all(c.suit_index == d.trump and c < w for c in hand)


def test_void_player_holding_nothing_but_lower_trumps_plays_one_of_them():
    d = _find_position(lambda d: _only_lower_trumps(d, partner=False))
    assert legal(d) == {str(c) for c in d.hand(d.to_move)}


def test_void_partner_winning_holding_nothing_but_lower_trumps_plays_one_of_them():
    d = _find_position(lambda d: _only_lower_trumps(d, partner=True))
    assert legal(d) == {str(c) for c in d.hand(d.to_move)}


def test_no_trump_deal_void_player_plays_any_card():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["8C"]},
        {NORTH: "C", SOUTH: "C"},
        dealer=SOUTH, trump=None,
    )  # fmt: skip
    assert d.no_trump and d.trump is None
    play(d, "AC", "7C", "8C")
    assert legal(d) == {str(c) for c in d.hand(SOUTH)}
    d.play(str(d.hand(SOUTH)[0]))
    assert d.tricks[-1].winner == WEST  # no trump: the highest club wins


def test_no_trump_deal_still_obliges_beating_an_opponent_in_suit():
    d = deal_with(
        {WEST: ["KS"], NORTH: ["8S"], EAST: ["9S"], SOUTH: ["TS", "7S"]},
        {NORTH: "S", SOUTH: "S", EAST: "S"},
        dealer=SOUTH, trump=None,
    )  # fmt: skip
    play(d, "KS", "8S", "9S")
    assert legal(d) == {"TS"}


# --------------------------------------------------------------- winning and refusals


def test_highest_trump_wins_and_a_side_suit_ten_does_not():
    d = deal_with(
        {WEST: ["9C"], NORTH: ["7H"], EAST: ["8H"], SOUTH: ["TD"]},
        {NORTH: "C", EAST: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "9C", "7H", "8H", "TD")
    assert d.tricks[-1].winner == EAST
    assert d.to_move == EAST  # the winner leads the next trick


def test_card_not_held_is_refused_and_changes_nothing():
    d = deal_with({WEST: ["AS"], SOUTH: ["KS"]}, dealer=SOUTH, trump="H")
    err = refused(d, "KS")
    assert err.code == "not_in_hand"
    assert str(err) == "you do not hold KS"


def test_every_refusal_leaves_observations_and_legal_moves_unchanged():
    d = deal_with(
        {WEST: ["AC", "TC"], NORTH: ["7C"], EAST: ["8H"], SOUTH: ["9H", "7H"]},
        {NORTH: "C", EAST: "C", SOUTH: "CH"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "AC", "7C", "8H")
    obs = [d.observation(s) for s in range(4)]
    moves = d.legal_moves()
    for card in [c for c in d.hand(SOUTH) if str(c) != "9H"] + ["AC", "8H"]:
        with pytest.raises(IllegalMove):
            d.play(card)
        assert [d.observation(s) for s in range(4)] == obs
        assert d.legal_moves() == moves


def test_refusal_is_a_value_error_with_code_and_translations():
    d = deal_with(
        {WEST: ["KS"], NORTH: ["8S"], EAST: ["9S"], SOUTH: ["TS", "7S"]},
        {NORTH: "S", SOUTH: "S", EAST: "S"},
        dealer=SOUTH, trump="H",
    )  # fmt: skip
    play(d, "KS", "8S", "9S")
    with pytest.raises(ValueError) as err:
        d.play("7S")
    e = err.value
    assert isinstance(e, IllegalMove)
    assert e.params["winning"] == "KS"
    assert (
        explain(e, "nl")
        == "de tegenpartij ligt aan de slag met K♠ en je hebt een hogere schoppen: speel die"
    )
    assert explain(e, "fr").startswith("l'adversaire est maître avec K♠")
    assert e.message("en") == str(e)


def test_playing_before_trump_is_chosen_is_refused():
    d = Deal.from_hands(fill_hands({}), dealer=SOUTH)
    with pytest.raises(IllegalMove, match="choose trump"):
        d.play(str(d.hand(WEST)[0]))
    assert d.phase == "trump" and d.actions == []


def test_game_refuses_a_move_out_of_turn_and_keeps_its_actions():
    g = Game("turns")
    dealer = g.deal.dealer
    other = (dealer + 1) % 4
    with pytest.raises(IllegalMove, match="turn"):
        g.apply_action("trump:H", seat=other)
    assert g.actions == []
    g.apply_action("trump:H", seat=dealer)
    hand = [str(c) for c in g.deal.hand(g.to_move)]
    with pytest.raises(IllegalMove):
        g.apply_action("7X")
    assert g.actions == ["trump:H"]
    g.apply_action(hand[0])
    assert g.actions == ["trump:H", hand[0]]
