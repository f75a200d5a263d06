"""Manillen: cards, rule presets, play obligations, scoring, duplicate deals, records, bots.

A pure-Python library (standard library only; no Django). Five lines:

>>> from engine import Game
>>> from engine.bots import get_bot
>>> g, bot = Game("club-night-1"), get_bot("heuristic")
>>> while not g.is_terminal(): g.apply_action(bot.act(g.observation(g.to_move), b"seed"))
>>> g.outcome.winner in (0, 1, None)
True
"""

from .cards import CARDS, Card, deck
from .deal import Deal, DealResult, Trick, team_of
from .dealing import DealSpec, commitment, deal_for, verify_commitment
from .errors import IllegalMove, InvalidRecord
from .game import Game, Outcome
from .messages import explain
from .rules import PRESETS, RuleSet, get_rules

__version__ = "0.1.0"

__all__ = [
    "CARDS", "Card", "deck", "Deal", "DealResult", "Trick", "team_of", "DealSpec", "commitment",
    "deal_for", "verify_commitment", "IllegalMove", "InvalidRecord", "Game", "Outcome", "explain",
    "PRESETS", "RuleSet", "get_rules", "__version__",
]  # fmt: skip
