"""Cards, suits, ranks and their notation.

A card is a small int (0..31): ``suit * 8 + rank``, suits ordered S H D C and ranks
low to high 7 8 9 J Q K A T.  :class:`Card` subclasses ``int`` so hands can be kept
as 32-bit masks (bit ``card`` set) — that is what makes the engine fast — while every
card still prints and parses as text:

>>> c = Card.parse("TS")
>>> str(c), c.suit, c.rank, c.points
('TS', 'S', 'T', 5)
>>> c.display()
'10♠'
>>> Card.parse("AH").name("nl")
'harten aas'
>>> Card.parse("AH") > Card.parse("KH")   # higher rank, same suit
True
>>> int(Card.parse("7S")), bool(Card.parse("7S"))   # every card is true, 7♠ too
(0, True)
"""

from __future__ import annotations

SUITS = "SHDC"
RANKS = "789JQKAT"  # low -> high; the ten (manille) is the highest card of every suit
RANK_POINTS = (0, 0, 0, 1, 2, 3, 4, 5)
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_DISPLAY = {"T": "10"}

SUIT_NAMES = {
    "nl": {"S": "schoppen", "H": "harten", "D": "ruiten", "C": "klaveren"},
    "en": {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
    "fr": {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"},
}
# Singular suit words, used in messages ("a higher spade").
SUIT_SINGULAR = {
    "nl": {"S": "schoppen", "H": "harten", "D": "ruiten", "C": "klaveren"},
    "en": {"S": "spade", "H": "heart", "D": "diamond", "C": "club"},
    "fr": {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"},
}
RANK_NAMES = {
    "nl": {
        "7": "7",
        "8": "8",
        "9": "9",
        "J": "boer",
        "Q": "vrouw",
        "K": "heer",
        "A": "aas",
        "T": "10",
    },
    "en": {
        "7": "7",
        "8": "8",
        "9": "9",
        "J": "jack",
        "Q": "queen",
        "K": "king",
        "A": "ace",
        "T": "10",
    },
    "fr": {
        "7": "7",
        "8": "8",
        "9": "9",
        "J": "valet",
        "Q": "dame",
        "K": "roi",
        "A": "as",
        "T": "10",
    },
}

SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))
FULL_DECK = (1 << 32) - 1


class Card(int):
    """One of the 32 cards; an ``int`` 0..31 with notation helpers.

    Use :meth:`parse` or :data:`CARDS`; ``Card(n)`` returns the shared instance.
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        """``Card(5)`` or ``Card("TS")``: always the shared instance."""
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 32:
            return CARDS[value]
        raise ValueError(f"a card number is 0..31, got {value!r}")

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Parse ``"TS"``-style notation (also accepts ``"10S"`` and suit symbols).

        >>> Card.parse("10♥")
        Card('TH')
        >>> Card.parse("XS")
        Traceback (most recent call last):
        ...
        ValueError: unknown rank 'X' in card 'XS': ranks are 7 8 9 J Q K A T
        """
        if isinstance(text, Card):
            return text
        try:
            return CARD_BY_TEXT[text]
        except (KeyError, TypeError):
            pass
        if not isinstance(text, str):
            raise ValueError(f"a card is written as text like 'TS', got {type(text).__name__}")
        t = text.strip().upper()
        for sym, letter in SUIT_SYMBOLS.items():
            t = t.replace(letter, sym)
        if t.startswith("10"):
            t = "T" + t[2:]
        if len(t) != 2:
            raise ValueError(f"a card is a rank and a suit like 'TS' or 'AH', got {text!r}")
        rank, suit = t[0], t[1]
        if rank not in RANKS:
            raise ValueError(f"unknown rank {rank!r} in card {text!r}: ranks are 7 8 9 J Q K A T")
        if suit not in SUITS:
            raise ValueError(f"unknown suit {suit!r} in card {text!r}: suits are S H D C")
        return CARDS[SUITS.index(suit) * 8 + RANKS.index(rank)]

    @property
    def suit(self) -> str:
        return SUITS[self >> 3]

    @property
    def suit_index(self) -> int:
        return self >> 3

    @property
    def rank(self) -> str:
        return RANKS[self & 7]

    @property
    def rank_index(self) -> int:
        return self & 7

    @property
    def points(self) -> int:
        return RANK_POINTS[self & 7]

    @property
    def mask(self) -> int:
        return 1 << self

    def display(self) -> str:
        """Short form for people: ``10♠``, ``A♥``."""
        return RANK_DISPLAY.get(self.rank, self.rank) + SUIT_SYMBOLS[self.suit]

    def name(self, lang: str = "nl") -> str:
        """Full name: ``harten aas`` (nl), ``ace of hearts`` (en), ``as de cœur`` (fr)."""
        rank, suit = RANK_NAMES[lang][self.rank], SUIT_NAMES[lang][self.suit]
        if lang == "en":
            return f"{rank} of {suit}"
        if lang == "fr":
            return f"{rank} de {suit}"
        return f"{suit} {rank}"

    def __bool__(self) -> bool:
        """Every card is true, 7♠ (the int 0) too: ``if spec.turned:`` means "a card"."""
        return True

    def __str__(self) -> str:
        return CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card({CARD_TEXT[self]!r})"

    def __reduce__(self):
        return (Card, (int(self),))


CARD_TEXT: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(32))
CARD_BY_TEXT: dict[str, Card] = {CARD_TEXT[i]: CARDS[i] for i in range(32)}

# Cards of the same suit ranked above each card, as a mask.
ABOVE: tuple[int, ...] = tuple(SUIT_MASKS[i >> 3] & ~((1 << (i + 1)) - 1) for i in range(32))

# mask -> cards, per suit byte, so a hand mask becomes a list in four lookups.
_BYTE_CARDS = tuple(
    tuple(tuple(CARDS[s * 8 + r] for r in range(8) if b >> r & 1) for b in range(256))
    for s in range(4)
)
_BYTE_TEXT = tuple(
    tuple(tuple(CARD_TEXT[s * 8 + r] for r in range(8) if b >> r & 1) for b in range(256))
    for s in range(4)
)


def mask_cards(mask: int) -> list[Card]:
    """The cards of a mask, in suit order S H D C and rank order low to high."""
    return [
        *_BYTE_CARDS[0][mask & 0xFF],
        *_BYTE_CARDS[1][mask >> 8 & 0xFF],
        *_BYTE_CARDS[2][mask >> 16 & 0xFF],
        *_BYTE_CARDS[3][mask >> 24 & 0xFF],
    ]


def mask_texts(mask: int) -> list[str]:
    """Like :func:`mask_cards` but as card texts."""
    return [
        *_BYTE_TEXT[0][mask & 0xFF],
        *_BYTE_TEXT[1][mask >> 8 & 0xFF],
        *_BYTE_TEXT[2][mask >> 16 & 0xFF],
        *_BYTE_TEXT[3][mask >> 24 & 0xFF],
    ]


def cards_mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << Card.parse(c)
    return m


def parse_suit(text: str | None) -> int | None:
    """``"H"``/``"♥"``/``"hearts"`` -> suit index; ``None``/``"none"`` -> None (no trump)."""
    if text is None:
        return None
    if type(text) is str and len(text) == 1 and text in SUITS:  # the usual "S" "H" "D" "C"
        return SUITS.index(text)
    t = str(text).strip()
    if t.lower() in ("none", "nt", "no trump", "zonder troef", ""):
        return None
    for sym, letter in SUIT_SYMBOLS.items():
        if t == letter:
            return SUITS.index(sym)
    u = t.upper()
    if u in SUITS and len(u) == 1:
        return SUITS.index(u)
    for names in SUIT_NAMES.values():
        for s, n in names.items():
            if t.lower() == n:
                return SUITS.index(s)
    raise ValueError(f"unknown suit {text!r}: use S, H, D, C or none")


def deck() -> list[Card]:
    """The 32 cards in canonical order (S H D C, each 7 up to T)."""
    return list(CARDS)
