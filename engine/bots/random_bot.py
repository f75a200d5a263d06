"""A bot that picks uniformly among the legal actions (seeded, so reproducible)."""

from __future__ import annotations

from .base import decision_rng


class RandomBot:
    name = "random"

    def act(self, observation: dict, seed: bytes) -> str:
        legal = observation["legal"]
        if not legal:
            raise ValueError("this seat has nothing to do")
        # Never go blind at random: it is a deliberate gamble, not a coin flip.
        choices = [a for a in legal if a != "blind"] or legal
        return decision_rng(observation, seed).choice(choices)
