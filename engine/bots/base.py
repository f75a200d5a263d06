"""The bot interface and what every bot derives from an observation.

A bot is a pure function of ``(observation, seed)``: the observation is
``Game.observation(seat)`` (only what that seat may see) and the seed is
:func:`bot_seed` of the game seed, the deal number and the seat.  Randomness comes from
a hash of both, never from a global RNG or the clock, so two duplicate entries that
make the same plays meet the same bot replies.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Protocol

from ..cards import CARD_BY_TEXT, FULL_DECK, SUIT_MASKS, SUITS
from ..dealing import seed_bytes


class Bot(Protocol):
    name: str

    def act(self, observation: dict, seed: bytes) -> str:
        """One legal action string for the seat to move."""
        ...


class PhaseBot:
    """Routes each decision to the method for its phase.

    A lone legal action is played at once, and the flemish-table dealer always looks
    before naming trump (going blind is a gamble these bots do not take).
    """

    def act(self, observation: dict, seed: bytes) -> str:
        legal = observation["legal"]
        if not legal:
            raise ValueError("this seat has nothing to do")
        if len(legal) == 1:
            return legal[0]
        phase = observation["phase"]
        if phase == "blind":
            return "look"
        if phase == "trump":
            return self._trump(observation, seed)
        if phase == "announce":
            return self._announce(observation, seed)
        return self._play(observation, seed)

    def _trump(self, obs: dict, seed: bytes) -> str:
        raise NotImplementedError

    def _announce(self, obs: dict, seed: bytes) -> str:
        raise NotImplementedError

    def _play(self, obs: dict, seed: bytes) -> str:
        raise NotImplementedError


def bot_seed(game_seed: str | bytes | int, deal_number: int, seat: int) -> bytes:
    """The seed a bot receives for one deal and seat."""
    return hashlib.sha256(
        b"manillen/bot/" + seed_bytes(game_seed) + b"/%d/%d" % (deal_number, seat)
    ).digest()


def decision_rng(observation: dict, seed: bytes) -> random.Random:
    """An RNG fixed by the seed and the decision point (what has been played so far)."""
    key = json.dumps(
        [
            observation.get("deal_number"),
            observation.get("phase"),
            observation.get("hand"),
            observation.get("tricks") and len(observation["tricks"]),
            observation.get("current_trick"),
            observation.get("legal"),
        ],
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    return random.Random(hashlib.sha256(seed + b"|" + key).digest())


def texts_mask(texts) -> int:
    m = 0
    for t in texts:
        m |= 1 << CARD_BY_TEXT[t]
    return m


class View:
    """Masks derived from an observation: own hand, played cards, unseen cards."""

    __slots__ = ("obs", "seat", "hand", "played", "unseen", "trump", "trick", "led", "legal")

    def __init__(self, obs: dict) -> None:
        self.obs = obs
        self.seat = obs["seat"]
        self.hand = texts_mask(obs["hand"] or [])
        played = 0
        for t in obs["tricks"]:
            for _, c in t["cards"]:
                played |= 1 << CARD_BY_TEXT[c]
        self.trick = [(s, CARD_BY_TEXT[c]) for s, c in obs["current_trick"]["cards"]]
        for _, c in self.trick:
            played |= 1 << c
        self.played = played
        self.unseen = FULL_DECK & ~played & ~self.hand
        self.trump = None if obs["trump"] is None else SUITS.index(obs["trump"])
        self.led = self.trick[0][1] >> 3 if self.trick else None
        self.legal = obs["legal"]

    def suit_mask(self, s: int) -> int:
        return SUIT_MASKS[s]
