from django import template
from django.utils.translation import gettext as _

register = template.Library()

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@register.filter
def suit(value) -> str:
    """ "H" → ♥, "none" → no trump, "" → —."""
    if value in SUIT_SYMBOLS:
        return SUIT_SYMBOLS[value]
    if value == "none":
        return _("no trump")
    return "—"
