"""Stable, seeded duplicate deals.

Every number comes from HMAC-SHA256 keyed by the seed (a counter-mode stream), so the
deals never change with a Python or numpy upgrade.  Deal *k* of a seed has the same
32-card order and the same dealer for every entry of a tournament.

>>> d = deal_for("demo", 1)
>>> d.dealer in range(4), [len(h) for h in d.hands]
(True, [8, 8, 8, 8])
>>> deal_for("demo", 1) == d
True
>>> len(commitment("demo"))
64
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import operator
import struct
from dataclasses import dataclass

from .cards import CARDS, Card
from .rules import RuleSet, get_rules

_DOMAIN = b"manillen/v1/"


def seed_bytes(seed: str | bytes | int) -> bytes:
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (str, int)):
        raise ValueError(f"a seed is text, bytes or an int, got {type(seed).__name__}")
    return str(seed).encode("utf-8")


class _Stream:
    """Counter-mode byte stream with unbiased bounded integers.

    One HMAC-SHA256 of the seed and a label gives a subkey; block *i* of the stream is
    SHA-256(subkey || i).  Both are fixed algorithms, so the stream never changes.
    """

    __slots__ = ("_subkey", "_counter", "_words", "_pos")

    def __init__(self, key: bytes, label: bytes) -> None:
        self._subkey = hmac.digest(key, label, "sha256")
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self, blocks: int) -> None:
        data = b"".join(
            hashlib.sha256(self._subkey + (self._counter + i).to_bytes(4, "big")).digest()
            for i in range(blocks)
        )
        self._counter += blocks
        self._words = struct.unpack(f">{8 * blocks}I", data)
        self._pos = 0

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) by rejection sampling (no modulo bias)."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            if self._pos >= len(self._words):
                self._refill(4)
            v = self._words[self._pos]
            self._pos += 1
            if v < limit:
                return v % n


@functools.lru_cache(maxsize=256)
def first_dealer(seed: str | bytes | int) -> int:
    return _Stream(seed_bytes(seed), _DOMAIN + b"dealer").below(4)


def _deal_number(number) -> int:
    if isinstance(number, bool) or not hasattr(type(number), "__index__"):
        # 1.5 or "1" or True would deal something, or fail deep inside: only an integer
        # is a deal number.
        raise TypeError(f"a deal number is an integer, got {number!r}")
    return operator.index(number)


def shuffled_deck(seed: str | bytes | int, number: int) -> list[Card]:
    """The 32 cards of deal ``number`` in dealing order (Fisher–Yates, top card first)."""
    number = _deal_number(number)
    if number < 1:
        raise ValueError(f"deal numbers start at 1, got {number}")
    stream = _Stream(seed_bytes(seed), _DOMAIN + b"deal/" + str(number).encode())
    cards = list(CARDS)
    for i in range(31, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@dataclass(frozen=True)
class DealSpec:
    """Chance for one deal: who deals and what everybody holds."""

    number: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]  # seat 0..3, in the order dealt
    turned: Card | None = None  # the dealer's last card where the preset turns it

    def texts(self) -> list[list[str]]:
        return [[str(c) for c in h] for h in self.hands]


def deal_cards(
    order: list[Card], dealer: int, rules: RuleSet
) -> tuple[tuple[tuple[Card, ...], ...], Card]:
    """Deal a card order in the preset's packets, starting next to the dealer."""
    hands: list[list[Card]] = [[], [], [], []]
    pos = 0
    for size in rules.packets:
        for k in range(1, 5):
            seat = (dealer + rules.direction * k) % 4
            hands[seat].extend(order[pos : pos + size])
            pos += size
    return tuple(tuple(h) for h in hands), order[-1]


def deal_for(seed: str | bytes | int, number: int, rules: str | RuleSet | None = None) -> DealSpec:
    """Deal ``number`` (1-based) of ``seed``: dealer, four hands and the turned card."""
    rs = get_rules(rules)
    number = _deal_number(number)
    dealer = (first_dealer(seed) + rs.direction * (number - 1)) % 4
    hands, last = deal_cards(shuffled_deck(seed, number), dealer, rs)
    return DealSpec(number, dealer, hands, last if rs.trump_by_turned_card else None)


def commitment(seed: str | bytes | int) -> str:
    """A hash to publish before play; anyone can check it against the revealed seed."""
    return hashlib.sha256(_DOMAIN + b"commitment/" + seed_bytes(seed)).hexdigest()


def verify_commitment(seed: str | bytes | int, published: str) -> bool:
    return hmac.compare_digest(commitment(seed), published.strip().lower())
