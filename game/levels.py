"""The bots' levels a person chooses and the rules presets, and the one name each has
everywhere: the home page, the lobby, the tournament form and page, the table.

engine.bots knows more ids than it offers here: "beginner" is another name of
"heuristic" (the same bot), and "random" is for tests only. Neither is offered; a
stored one is still named (a tournament made before, a game from the shell).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

# In the order a select shows them: easiest first.
LEVELS = {
    "heuristic": _("Beginner"),
    "club": _("Club"),
    "expert": _("Expert"),
}
_OTHER_NAMES = {
    "beginner": LEVELS["heuristic"],
    "random": _("Random (for testing)"),
}


def level_name(level: str) -> str:
    """ "heuristic" → Beginner; an id that is not a level is shown as it is."""
    return str(LEVELS.get(level) or _OTHER_NAMES.get(level) or level)


def level_choices() -> list[tuple[str, str]]:
    """(id, name) of the levels offered, for a <select>."""
    return [(level, str(name)) for level, name in LEVELS.items()]


# Human names of the engine's rules presets (the engine only knows ids). The ids stay
# what is stored; an id missing here is shown as it is.
RULES_NAMES = {
    "flemish": _("Flemish"),
    "flemish-table": _("Flemish (table)"),
    "french": _("French"),
    "malilla": _("Malilla"),
}


def rules_name(rules_id: str) -> str:
    """ "flemish-table" → Flemish (table); an unknown id is shown as it is."""
    return str(RULES_NAMES.get(rules_id, rules_id))
