"""Cards as people read them in the page's language.

A face shows its rank's letter: K Q J in Dutch and English, R D V in French (roi, dame,
valet). The letters are the catalogue's "card letter" strings, which the table's script
reads too (templates/game/table.html letter_*, static/js/table/cards.js rankText).
"""

from __future__ import annotations

from django.utils.translation import pgettext

import engine

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def card_letter(rank: str) -> str:
    """What a face shows for a rank ("T", "K", "7"): "10", the page's letter, the digit."""
    if rank == "K":
        return pgettext("card letter", "K")
    if rank == "Q":
        return pgettext("card letter", "Q")
    if rank == "J":
        return pgettext("card letter", "J")
    return "10" if rank == "T" else rank


def card_text(card) -> str:
    """A card as people read it: "10♠", "A♥", "K♦" ("R♦" in French)."""
    text = str(engine.Card.parse(card))
    return card_letter(text[:-1]) + SUIT_SYMBOLS[text[-1]]
