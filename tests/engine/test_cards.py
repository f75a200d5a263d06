"""Card notation: text round-trip, display forms, names in three languages, bad input."""

from __future__ import annotations

import pickle

import pytest

from engine import CARDS, Card, deck
from engine.cards import cards_mask, mask_cards, mask_texts, parse_suit

RANKS_HIGH_TO_LOW = "TAKQJ987"
SUITS = "SHDC"
ALL_TEXTS = [r + s for s in SUITS for r in "789JQKAT"]
POINTS = {"T": 5, "A": 4, "K": 3, "Q": 2, "J": 1, "9": 0, "8": 0, "7": 0}


def test_there_are_exactly_32_distinct_cards():
    assert len(CARDS) == 32
    assert len({str(c) for c in CARDS}) == 32
    assert sorted(str(c) for c in deck()) == sorted(ALL_TEXTS)


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_parse_then_str_round_trips_every_card(text):
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) is card
    assert card.rank == text[0] and card.suit == text[1]
    assert Card(text) is card
    assert Card(int(card)) is card


def test_str_then_parse_round_trips_every_card():
    for card in CARDS:
        assert Card.parse(str(card)) is card
        assert eval(repr(card), {"Card": Card}) is card
        assert pickle.loads(pickle.dumps(card)) is card


def test_points_per_rank_add_up_to_60():
    for card in CARDS:
        assert card.points == POINTS[card.rank]
    assert sum(c.points for c in CARDS) == 60


def test_rank_order_is_ten_ace_king_queen_jack_nine_eight_seven_in_every_suit():
    for s in SUITS:
        cards = [Card.parse(r + s) for r in RANKS_HIGH_TO_LOW]
        assert cards == sorted(cards, reverse=True)
    assert Card.parse("TS") > Card.parse("AS") > Card.parse("KS")


@pytest.mark.parametrize(
    "text, shown",
    [("TS", "10♠"), ("AH", "A♥"), ("KD", "K♦"), ("QC", "Q♣"), ("JS", "J♠"),
     ("9H", "9♥"), ("8D", "8♦"), ("7C", "7♣"), ("TH", "10♥")],
)  # fmt: skip
def test_display_uses_suit_symbols_and_10_for_the_manille(text, shown):
    assert Card.parse(text).display() == shown


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_display_form_parses_back(text):
    card = Card.parse(text)
    assert Card.parse(card.display()) is card


@pytest.mark.parametrize(
    "alt, text",
    [("10S", "TS"), ("10♠", "TS"), ("A♥", "AH"), ("th", "TH"), (" 7c ", "7C"), ("q♦", "QD")],
)
def test_alternative_spellings_parse(alt, text):
    assert str(Card.parse(alt)) == text


@pytest.mark.parametrize(
    "text, lang, name",
    [
        ("AH", "nl", "harten aas"),
        ("TS", "nl", "schoppen 10"),
        ("KD", "nl", "ruiten heer"),
        ("QC", "nl", "klaveren vrouw"),
        ("JS", "nl", "schoppen boer"),
        ("AH", "en", "ace of hearts"),
        ("TS", "en", "10 of spades"),
        ("KD", "en", "king of diamonds"),
        ("QC", "en", "queen of clubs"),
        ("JS", "en", "jack of spades"),
        ("7H", "en", "7 of hearts"),
        ("AH", "fr", "as de cœur"),
        ("TS", "fr", "10 de pique"),
        ("KD", "fr", "roi de carreau"),
        ("QC", "fr", "dame de trèfle"),
        ("JS", "fr", "valet de pique"),
    ],
)
def test_names_in_dutch_english_and_french(text, lang, name):
    assert Card.parse(text).name(lang) == name


def test_default_name_is_dutch():
    assert Card.parse("AH").name() == "harten aas"


def test_every_card_has_a_distinct_name_in_every_language():
    for lang in ("nl", "en", "fr"):
        assert len({c.name(lang) for c in CARDS}) == 32


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("XS", "rank 'X'"),
        ("1S", "rank '1'"),
        ("6H", "rank '6'"),
        ("TX", "suit 'X'"),
        ("AZ", "suit 'Z'"),
        ("", "a rank and a suit"),
        ("T", "a rank and a suit"),
        ("TSS", "a rank and a suit"),
        ("10", "a rank and a suit"),
    ],
)
def test_malformed_text_raises_value_error_naming_the_problem(bad, fragment):
    with pytest.raises(ValueError) as err:
        Card.parse(bad)
    assert fragment in str(err.value)


def test_unknown_rank_message_lists_the_ranks():
    with pytest.raises(ValueError, match="ranks are 7 8 9 J Q K A T"):
        Card.parse("2S")


def test_unknown_suit_message_lists_the_suits():
    with pytest.raises(ValueError, match="suits are S H D C"):
        Card.parse("AB")


@pytest.mark.parametrize("bad", [None, 3.5, ["TS"], b"TS"])
def test_non_text_raises_value_error(bad):
    with pytest.raises(ValueError, match="text"):
        Card.parse(bad)


@pytest.mark.parametrize("bad", [-1, 32, 100, True])
def test_card_number_out_of_range_raises_value_error(bad):
    with pytest.raises(ValueError, match="0..31"):
        Card(bad)


def test_masks_round_trip_to_cards_and_texts():
    texts = ["TS", "7H", "AD", "QC", "8S"]
    m = cards_mask(texts)
    assert sorted(mask_texts(m)) == sorted(texts)
    assert sorted(str(c) for c in mask_cards(m)) == sorted(texts)
    assert mask_texts((1 << 32) - 1) == ALL_TEXTS


@pytest.mark.parametrize(
    "text, index",
    [("S", 0), ("H", 1), ("D", 2), ("C", 3), ("♥", 1), ("harten", 1), ("spades", 0),
     ("trèfle", 3), (None, None), ("none", None), ("zonder troef", None)],
)  # fmt: skip
def test_parse_suit_accepts_letters_symbols_names_and_no_trump(text, index):
    assert parse_suit(text) == index


def test_parse_suit_rejects_unknown_suit():
    with pytest.raises(ValueError, match="unknown suit"):
        parse_suit("X")


def test_every_card_is_true_the_seven_of_spades_too():
    # 7♠ is the int 0: without Card.__bool__ it would be false, and `if spec.turned:`
    # would read a deal turned on 7♠ as a deal with no turned card.
    assert int(Card("7S")) == 0
    assert all(bool(c) for c in CARDS)
    assert Card("7S") or False


def test_a_deal_turned_on_the_seven_of_spades_has_a_turned_card():
    from engine import deal_for

    seed = next(
        f"turned-7s-{i}"
        for i in range(2000)
        if deal_for(f"turned-7s-{i}", 1, "french").turned == Card("7S")
    )
    spec = deal_for(seed, 1, "french")
    assert spec.turned is not None and str(spec.turned) == "7S"
    assert spec.turned  # typed Card|None: a card is always true
