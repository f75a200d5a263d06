"""Bots: every one is a pure function of (observation, seed).

>>> bot = get_bot("heuristic")
>>> bot.name
'heuristic'
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, View, bot_seed, decision_rng
from .heuristic import HeuristicBot
from .random_bot import RandomBot

_FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "beginner": HeuristicBot,
}


def register(name: str, factory) -> None:
    """Add a bot level (the strong bots register themselves here)."""
    _FACTORIES[name] = factory


from . import pimc as _pimc  # noqa: E402  (club, expert; the solver loads on first use)

for _name, _factory in _pimc.LEVELS.items():
    register(_name, _factory)


def available() -> list[str]:
    return sorted(_FACTORIES)


def get_bot(name: str = "heuristic") -> Bot:
    """A bot by level name; ``ismcts:N`` (the benchmark's sparring partner, N iterations
    per decision) and ``expert@variant`` (earlier or screened settings of the expert,
    ``engine.bots.pimc.VARIANTS``) are accepted too but not listed by :func:`available`
    (not in the UI)."""
    if name == "ismcts" or name.startswith("ismcts:"):
        from . import ismcts

        return ismcts.factory(name)
    if name.startswith("expert@"):
        return _pimc.variant(name)
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(available())}") from None
    return factory()


__all__ = [
    "Bot",
    "View",
    "bot_seed",
    "decision_rng",
    "get_bot",
    "register",
    "available",
    "HeuristicBot",
    "RandomBot",
]
