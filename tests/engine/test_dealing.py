"""Duplicate deals (RULES.md §3 and §9): pinned test vectors, stability across
processes, the dealer's rotation, packets, commitments and a uniformity sanity check.

The vectors below were generated once from engine/dealing.py (stream: HMAC-SHA256 subkey
of the seed and label, SHA-256 counter blocks, rejection sampling, Fisher-Yates). If
they fail, every stored tournament deal changes: that needs a new domain tag, not an
edit of these values.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine import Card, Game, commitment, deal_for, get_rules, verify_commitment
from engine.dealing import deal_cards, first_dealer, shuffled_deck

ROOT = Path(__file__).resolve().parents[2]

VECTORS = [
    (
        "club-2026-11-30",
        1,
        "flemish",
        0,
        (
            "AC AD TC 8D QH 8S 8C 7S",
            "QC KH TH TS AH AS KC 8H",
            "7C QD JC TD JD 7H QS JS",
            "9C JH 7D KD 9D 9H 9S KS",
        ),
        None,
    ),
    (
        "club-2026-11-30",
        2,
        "flemish",
        1,
        (
            "TS KD JS 9H QS TD KC 8S",
            "8C AC 7D QC AD TH QH 7S",
            "8H 7H JH KS 9S JD TC JC",
            "KH 9D QD 8D 9C AH AS 7C",
        ),
        None,
    ),
    (
        "club-2026-11-30",
        7,
        "flemish",
        2,
        (
            "KC KD 7H KS 9H TC AS QH",
            "JH 8D 9C QC TS 8H QS TD",
            "AC AD JD 7S JC 8S 7C KH",
            "TH JS 9D 7D AH QD 8C 9S",
        ),
        None,
    ),
    (
        "club-2026-11-30",
        40,
        "flemish",
        3,
        (
            "7S KC TC 9C QC 8D QH 9D",
            "KS TD 7D AD 8H TS JS 7H",
            "9H AH AC KH TH QS 8S 9S",
            "JH JD KD AS JC QD 7C 8C",
        ),
        None,
    ),
    (
        "demo",
        1,
        "flemish",
        1,
        (
            "7C 8C 9S KC KD 8H JC TH",
            "TS KH 9H 8D QH 9D AD JH",
            "JS QD 7S AC AH 9C QS 8S",
            "QC KS TD JD TC 7D 7H AS",
        ),
        None,
    ),
    (
        "demo",
        2,
        "flemish",
        2,
        (
            "TH 7C TS QC AC TC JC 8S",
            "QD JS KH 7H KS QS 8C 8H",
            "8D KD JD 7D 9C TD AD AS",
            "7S JH KC 9D 9H 9S AH QH",
        ),
        None,
    ),
    (
        "demo",
        7,
        "flemish",
        3,
        (
            "QD KD 8C JC KC 9S AC 8H",
            "9C 7C KS AS 7H 9H KH 7D",
            "AD TS QS TC TH QC JH JS",
            "7S 9D JD AH 8D QH TD 8S",
        ),
        None,
    ),
    (
        "demo",
        40,
        "flemish",
        0,
        (
            "AD TD JC 7S KC 8C KH 8S",
            "7C TC 8D 9S 7D AH QH AS",
            "KS KD JS 8H 9H 9C QC JD",
            "9D 7H QS TS QD JH AC TH",
        ),
        None,
    ),
    (
        "toernooi-é♠",
        1,
        "flemish",
        2,
        (
            "7D JC 8S 9C 9D AS AD KD",
            "7C 8H KC TD JS QC QH 8D",
            "JH 8C TH 9H AH TC QD AC",
            "JD 9S KH 7S TS 7H KS QS",
        ),
        None,
    ),
    (
        "toernooi-é♠",
        2,
        "flemish",
        3,
        (
            "8S 9D QH TS QC TD 9C KS",
            "8C JD TH 7C 9S KD 8H 9H",
            "JH JC 8D KC KH 7H AS AD",
            "QD 7S TC AH AC JS QS 7D",
        ),
        None,
    ),
    (
        "toernooi-é♠",
        7,
        "flemish",
        0,
        (
            "8C JD AS 9S KC 8S QD 7D",
            "QC JC TH QH KS 9C 7C JS",
            "QS KH 7H TC 8D JH KD 8H",
            "TD 9H AD 9D 7S TS AH AC",
        ),
        None,
    ),
    (
        "toernooi-é♠",
        40,
        "flemish",
        1,
        (
            "KD 7C JH AD AC QC KC KS",
            "7S TS TD AH 8D 7D 8H 9D",
            "AS 8C QH 8S KH TC TH JD",
            "JC 9C QS JS QD 9H 7H 9S",
        ),
        None,
    ),
    (
        12345,
        1,
        "flemish",
        1,
        (
            "JD QD 9H 7S AH 7H 9S 8S",
            "JS 9C QC 8H KC 8D AC 7D",
            "KD KH AS QH 8C JC TH TC",
            "JH TD 9D KS QS TS AD 7C",
        ),
        None,
    ),
    (
        12345,
        2,
        "flemish",
        2,
        (
            "8C AC 8D 9H TD JC AH 7C",
            "JH 9D TS 8H JS 9S 7D AD",
            "7S TC KD 7H JD QD AS 9C",
            "KC QC KS TH QH 8S KH QS",
        ),
        None,
    ),
    (
        12345,
        7,
        "flemish",
        3,
        (
            "7D 7H 7C AC JH KH 9H JC",
            "KC 9D 7S JD 8S TC TD 8D",
            "9C TS 8C AS 8H QD TH AH",
            "KS JS QC QH AD 9S KD QS",
        ),
        None,
    ),
    (
        12345,
        40,
        "flemish",
        0,
        (
            "7C TH AH 7H KC KD AD QD",
            "9S TD QH QS QC JH 8S 9H",
            "AS 7S JD 8H 9C TS KH 9D",
            "JS AC KS 7D TC JC 8D 8C",
        ),
        None,
    ),
    (
        "club-2026-11-30",
        1,
        "french",
        0,
        (
            "TS AH TD JD KS 8S 8C 7S",
            "7D AC AD TC QS JS 9H 9S",
            "QD JC 9C JH AS KC 8H 7H",
            "QC KH TH 7C KD 9D 8D QH",
        ),
        "7S",
    ),
    (
        "club-2026-11-30",
        1,
        "malilla",
        0,
        (
            "AC AD TC 8D QH 8S 8C 7S",
            "9C JH 7D KD 9D 9H 9S KS",
            "7C QD JC TD JD 7H QS JS",
            "QC KH TH TS AH AS KC 8H",
        ),
        "7S",
    ),
    (
        "club-2026-11-30",
        3,
        "french",
        2,
        (
            "8C JC AS KH AC TS 7H 7S",
            "JS JD QD 9S 9D AH 7C TH",
            "QH KC 8D 8S TC AD KS 9H",
            "QS TD KD 7D QC 9C 8H JH",
        ),
        "9H",
    ),
    (
        "club-2026-11-30",
        3,
        "malilla",
        2,
        (
            "9S 8C JC 8D 8S 7S QC 9C",
            "JS JD QD QH KC AC TS 7H",
            "TD KD 7D 7C TH AD KS 9H",
            "AS KH QS 9D AH 8H JH TC",
        ),
        "9H",
    ),
    (
        "demo",
        1,
        "french",
        1,
        (
            "JS QD 7S QC KC KD 8D QH",
            "AC AH JD TC TH 9D AD JH",
            "9S TS KH 9H 7H AS 8H JC",
            "KS TD 7C 8C 9C QS 8S 7D",
        ),
        "JH",
    ),
    (
        "demo",
        1,
        "malilla",
        1,
        (
            "JS QD 7S AC AH 9C QS 8S",
            "TS KH 9H 8D QH 9D AD JH",
            "7C 8C 9S KC KD 8H JC TH",
            "QC KS TD JD TC 7D 7H AS",
        ),
        "JH",
    ),
    (
        "demo",
        3,
        "french",
        3,
        (
            "KH KC TS 9C KD 7H AD TD",
            "QH 9D 8H 7D 8D JH JS KS",
            "7S AH 8S QC AC JC 8C JD",
            "TH QS TC 9S 9H 7C AS QD",
        ),
        "QD",
    ),
    (
        "demo",
        3,
        "malilla",
        3,
        (
            "8H 7D KH AC JC AD TD 9H",
            "QC QH 9D TC 9S KS KD 7H",
            "7S AH 8S TH QS 8D JH JS",
            "KC TS 9C 8C JD 7C AS QD",
        ),
        "QD",
    ),
    (
        b"\x00\xffbytes",
        5,
        "flemish",
        2,
        (
            "QS KD TC KS 8H JH 9D QC",
            "8S TD 9S TH KC 7C AD 7S",
            "AH AS 7H KH 8D AC 9C QD",
            "JC JS QH 8C TS 9H 7D JD",
        ),
        None,
    ),
]


@pytest.mark.parametrize("seed, number, rules, dealer, hands, turned", VECTORS)
def test_pinned_deal_vectors(seed, number, rules, dealer, hands, turned):
    spec = deal_for(seed, number, rules)
    assert spec.number == number
    assert spec.dealer == dealer
    assert tuple(" ".join(h) for h in spec.texts()) == hands
    assert (None if spec.turned is None else str(spec.turned)) == turned


def test_there_are_at_least_twenty_pinned_vectors():
    assert len(VECTORS) >= 20


def _reference_deck(seed: bytes, number: int) -> list[str]:
    """The documented algorithm, written out again: counter-mode SHA-256 words from an
    HMAC subkey, rejection sampling, Fisher-Yates from the top of a canonical deck."""
    subkey = hmac.new(seed, b"manillen/v1/deal/" + str(number).encode(), hashlib.sha256).digest()
    words: list[int] = []
    counter = 0

    def below(n: int) -> int:
        nonlocal counter
        limit = 2**32 - 2**32 % n
        while True:
            if not words:
                block = hashlib.sha256(subkey + counter.to_bytes(4, "big")).digest()
                counter += 1
                words.extend(struct.unpack(">8I", block))
            v = words.pop(0)
            if v < limit:
                return v % n

    cards = [r + s for s in "SHDC" for r in "789JQKAT"]
    for i in range(31, 0, -1):
        j = below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("seed, number", [("demo", 1), ("club-2026-11-30", 40), ("toernooi-é♠", 7)])
def test_shuffle_follows_the_documented_algorithm(seed, number):
    assert [str(c) for c in shuffled_deck(seed, number)] == _reference_deck(seed.encode(), number)


def test_seed_may_be_text_bytes_or_int_with_the_same_meaning():
    assert deal_for(12345, 3) == deal_for("12345", 3) == deal_for(b"12345", 3)
    with pytest.raises(ValueError):
        deal_for(3.5, 1)
    with pytest.raises(ValueError, match="start at 1"):
        deal_for("demo", 0)


def test_same_seed_and_number_give_the_same_deal_and_different_numbers_differ():
    assert deal_for("dup", 5) == deal_for("dup", 5)
    decks = {tuple(shuffled_deck("dup", n)) for n in range(1, 41)}
    assert len(decks) == 40
    assert shuffled_deck("dup", 1) != shuffled_deck("dup2", 1)


_SUBPROCESS = """
import json
from engine import deal_for, commitment
out = []
for seed in ("demo", "toernooi-é♠", 12345):
    for n in (1, 2, 40):
        for rules in ("flemish", "french"):
            d = deal_for(seed, n, rules)
            out.append([d.dealer, d.texts(), str(d.turned)])
out.append(commitment("demo"))
print(json.dumps(out))
"""


@pytest.mark.parametrize("hashseed", ["0", "4242"])
def test_deals_are_stable_across_processes_and_hash_seeds(hashseed):
    expected = []
    for seed in ("demo", "toernooi-é♠", 12345):
        for n in (1, 2, 40):
            for rules in ("flemish", "french"):
                d = deal_for(seed, n, rules)
                expected.append([d.dealer, d.texts(), str(d.turned)])
    expected.append(commitment("demo"))
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == expected


@pytest.mark.parametrize(
    "rules, step", [("flemish", 1), ("flemish-table", 1), ("french", -1), ("malilla", -1)]
)
def test_dealer_of_deal_k_is_the_first_dealer_rotated(rules, step):
    for seed in ("rot-a", "rot-b", "rot-c", 7):
        first = first_dealer(seed)
        assert [deal_for(seed, k, rules).dealer for k in range(1, 10)] == [
            (first + step * (k - 1)) % 4 for k in range(1, 10)
        ]


def test_first_dealer_is_spread_over_the_four_seats():
    counts = Counter(first_dealer(f"first-{i}") for i in range(400))
    assert set(counts) == {0, 1, 2, 3}
    assert min(counts.values()) > 60


def test_flemish_packets_three_two_three_clockwise_from_the_dealer_left():
    for n in range(1, 9):
        spec = deal_for("packets", n)
        order = shuffled_deck("packets", n)
        for k in range(1, 5):
            seat = (spec.dealer + k) % 4  # k = 1 is left of the dealer, k = 4 the dealer
            i = k - 1
            want = (
                order[3 * i : 3 * i + 3]
                + order[12 + 2 * i : 12 + 2 * i + 2]
                + order[20 + 3 * i : 20 + 3 * i + 3]
            )
            assert list(spec.hands[seat]) == want
        assert spec.turned is None


def test_french_packets_four_four_counter_clockwise_from_the_dealer_right_turning_his_last_card():
    for n in range(1, 9):
        spec = deal_for("packets", n, "french")
        order = shuffled_deck("packets", n)
        for k in range(1, 5):
            seat = (spec.dealer - k) % 4  # k = 1 is right of the dealer
            i = k - 1
            assert (
                list(spec.hands[seat])
                == order[4 * i : 4 * i + 4] + order[16 + 4 * i : 16 + 4 * i + 4]
            )
        assert spec.turned == spec.hands[spec.dealer][-1] == order[-1]


def test_variant_packets_three_three_two():
    rules = get_rules("flemish").replace(packets=(3, 3, 2))
    order = shuffled_deck("v", 1)
    hands, last = deal_cards(order, 0, rules)
    assert list(hands[1]) == order[0:3] + order[12:15] + order[24:26]
    assert list(hands[0]) == order[9:12] + order[21:24] + order[30:32]
    assert last == order[-1]


def test_every_deal_gives_eight_cards_to_each_seat_and_all_32_once():
    for rules in ("flemish", "french", "malilla"):
        for n in range(1, 30):
            spec = deal_for("complete", n, rules)
            assert [len(h) for h in spec.hands] == [8, 8, 8, 8]
            assert sorted(c for h in spec.hands for c in h) == list(range(32))


def test_game_deals_come_from_deal_for():
    g = Game("game-deals", "french")
    spec = deal_for("game-deals", 1, "french")
    assert g.deal.dealer == spec.dealer
    assert [sorted(g.deal.hand(s)) for s in range(4)] == [sorted(h) for h in spec.hands]
    assert g.deal.turned == spec.turned


def test_commitment_is_deterministic_hex_sha256_and_verifies():
    c = commitment("club-2026-11-30")
    assert c == "99679fa0d392ee34ab78eb656e2a515d48c36fcc43d91b2b7713d86bfe4d19c0"
    assert c == commitment("club-2026-11-30")
    assert len(c) == 64 and int(c, 16) >= 0
    assert commitment("demo") == "c1a848f81a7d73d248071473c9e65dbdf7ad741245c351da04fc1cb93756c194"
    assert commitment("demo") != c
    assert verify_commitment("club-2026-11-30", c)
    assert verify_commitment("club-2026-11-30", "  " + c.upper() + "\n")
    assert not verify_commitment("club-2026-11-31", c)
    assert not verify_commitment("club-2026-11-30", c[:-1] + ("0" if c[-1] != "0" else "1"))


def test_commitment_does_not_reveal_the_seed_by_plain_hashing():
    # It is domain-separated: not the bare SHA-256 of the seed.
    assert commitment("demo") != hashlib.sha256(b"demo").hexdigest()


def test_ten_of_spades_lands_uniformly_on_the_four_seats():
    n = 4000
    counts = Counter()
    for k in range(1, n + 1):
        spec = deal_for("uniform", k)
        ts = Card.parse("TS")
        seat = next(s for s in range(4) if ts in spec.hands[s])
        counts[(seat - spec.dealer) % 4] += 1  # relative to the dealer
    expected = n / 4
    chi2 = sum((counts[s] - expected) ** 2 / expected for s in range(4))
    assert chi2 < 16.27, counts  # 3 degrees of freedom, p = 0.001


def test_each_card_position_in_the_shuffle_is_uniform():
    n = 3200
    counts = Counter(shuffled_deck("positions", k).index(Card.parse("7H")) for k in range(1, n + 1))
    expected = n / 32
    chi2 = sum((counts[p] - expected) ** 2 / expected for p in range(32))
    assert chi2 < 61.1, counts  # 31 degrees of freedom, p = 0.001


@pytest.mark.parametrize("number", [1.5, 1.0, "3", True, None])
def test_a_deal_number_that_is_not_an_integer_is_refused_by_name(number):
    with pytest.raises(TypeError, match="a deal number is an integer"):
        deal_for("typed", number)


def test_a_numpy_integer_is_a_deal_number():
    import numpy as np

    assert deal_for("typed", np.int64(3)) == deal_for("typed", 3)
