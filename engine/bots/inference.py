"""Plausibility of the earlier plays under a sampled deal (inference for PIMC).

The sampler (:mod:`engine.bots.sampler`) draws uniformly among the deals that agree with
the hard facts (voids, obligations).  Players also reveal softer things: the dealer
names trump in a long, strong suit; a player who follows low when he could win, or who
leads from a suit, usually holds what a sensible player would do that with.  This module
scores a sampled deal by how plausible every other seat's earlier actions are under it,
with a cheap policy model: the rule-based player (:mod:`engine.bots.heuristic`, the
"beginner" level) put in that seat's place with the hand the sample gives it.

- an action the model would take too: weight factor 1;
- a card of the same suit and the same points as the model's (e.g. another small
  card): ``similar``;
- anything else: ``eps`` (opponents) or ``eps_partner`` — never 0, so a player who
  plays differently from the model only flattens the weights, it never empties them;
- the dealer's trump: 1 when the model (or the fitted trump table) names the same
  option with the dealer's sampled 8 cards, else ``eps_trump``.

Everything is a pure function of the observation and the sampled hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cards import CARD_BY_TEXT, FULL_DECK, RANK_POINTS, SUITS
from ..deal import obliged_mask
from ..rules import RuleSet
from .heuristic import HeuristicBot
from .trump_table import predict

_PTS = tuple(RANK_POINTS[c & 7] for c in range(32))
_MODEL = HeuristicBot()


@dataclass(frozen=True)
class InferenceConfig:
    eps: float = 0.05  # an opponent's play the model would not make
    eps_partner: float = 0.3  # the partner's
    similar: float = 0.7  # same suit and points as the model's card
    eps_trump: float = 0.1  # the dealer's trump, when the model names another option
    candidates: int = 10  # deals drawn per deal kept (resampled by weight)
    # "heuristic": the rule-based bot as the model of the other seats (eps / similar
    # above); "policy": the softmax fitted on expert self-play (engine/bots/policy.py),
    # evaluated with the sampling in the compiled core: a play has weight
    # (mix / n + (1 - mix) P(card)) ** alpha (n legal cards; alpha for an opponent or
    # the partner), the trump as above.
    model: str = "heuristic"
    mix: float = 0.1
    alpha_opp: float = 1.0
    alpha_partner: float = 0.5
    # the policy's coefficients (engine/bots/policy.py); None: policy.COEF
    coef: tuple[float, ...] | None = None
    # A mixture of play models (names of ``policy.MODELS``, prior weights; "policy" only):
    # each other seat plays by one of them throughout, which one is not known, so a
    # deal's weight for that seat is sum_k prior_k x prod_plays P_k(card).  A player who
    # plays like the simple rule-based bot is then recognised as such after a few cards,
    # one who plays like the expert as that.  One name: that model alone.  ``coef``, when
    # set, stands for the "expert" model's coefficients.
    models: tuple[str, ...] = ("expert",)
    priors: tuple[float, ...] | None = None
    # > 0 ("policy" only): each deal also weighs loc_beta x sum log P(card at its seat)
    # by the card-location network (engine/bots/locnet.py), when its weights are there
    loc_beta: float = 0.0
    # the network's weights: a file next to locnet.py (None: locnet.WEIGHTS, the newest)
    loc_weights: str | None = None


class _V:
    """The few View attributes the heuristic's play methods read."""

    __slots__ = ("seat", "hand", "unseen", "trump", "trick")


def legal_mask(hand: int, trick, trump: int | None, seat: int, rules: RuleSet) -> int:
    """The legal cards of ``hand`` on ``trick`` (``[(seat, card), ...]``): the engine's
    own obligations (``engine.deal.obliged_mask``)."""
    if not trick:
        return hand
    led = trick[0][1] >> 3
    w_seat, w = trick[0]
    for s, c in trick[1:]:
        if (c >> 3) == (w >> 3):
            if c > w:
                w_seat, w = s, c
        elif trump is not None and (c >> 3) == trump:
            w_seat, w = s, c
    return obliged_mask(hand, seat, led, w, w_seat, trump, rules)


def model_trump(hand: int, legal: list[str], no_trump_multiplier: int = 2) -> set[str]:
    """Options a sensible dealer names with ``hand``: the heuristic's and the table's."""
    tens = sum(1 for s in range(4) if hand >> (s * 8 + 7) & 1)
    aces = sum(1 for s in range(4) if hand >> (s * 8 + 6) & 1)
    if "trump:none" in legal and tens >= 3 and tens + aces >= 5:
        h = "trump:none"
    else:
        best = max(range(4), key=lambda s: (HeuristicBot.suit_strength(hand, s), -s))
        h = "trump:" + "SHDC"[best]
    options = [a for a in legal if a.startswith("trump:")]
    est = {}
    for a in options:
        mult = no_trump_multiplier if a == "trump:none" else 1
        est[a] = predict(hand, a[6:], multiplier=mult)
    t = max(options, key=lambda a: (est[a], -options.index(a)))
    return {h, t}


class PlayModel:
    """Weights of sampled deals by the plausibility of the other seats' actions."""

    def __init__(self, obs: dict, rules: RuleSet, cfg: InferenceConfig) -> None:
        self.cfg = cfg
        self.rules = rules
        seat = self.seat = obs["seat"]
        self.trump = trump = None if obs.get("trump") is None else SUITS.index(obs["trump"])
        plays: list[tuple[int, int, int, list]] = []  # (seat, card, played before, trick)
        played = 0
        tricks = [t["cards"] for t in obs.get("tricks", [])]
        tricks.append(obs["current_trick"]["cards"])
        for t in tricks:
            trick: list[tuple[int, int]] = []
            for s, txt in t:
                c = CARD_BY_TEXT[txt]
                plays.append((s, c, played, list(trick)))
                trick.append((s, c))
                played |= 1 << c
        # Cards each seat played from each play on (its hand then = now | these).
        later = [0, 0, 0, 0]
        events = []
        for s, c, before, trick in reversed(plays):
            later[s] |= 1 << c
            if s != seat:
                events.append((s, c, before, trick, later[s]))
        events.reverse()
        self.events = events
        self.dealer_trump = None
        dealer = obs.get("dealer")
        if (
            dealer is not None
            and dealer != seat
            and obs.get("trump_chosen")
            and not obs.get("blind")
            and not rules.trump_by_turned_card
        ):
            option = "trump:none" if trump is None else "trump:" + SUITS[trump]
            legal = ["trump:" + s for s in SUITS]
            if rules.allow_no_trump:
                legal.append("trump:none")
            self.dealer_trump = (dealer, option, legal, later[dealer])

    def core_args(self) -> tuple[list, tuple | None]:
        """The events and the dealer's trump in the compiled core's format."""
        from .trump_table import NONE, SUIT

        events = []
        for s, c, before, trick, later in self.events:
            flat = tuple(x for sc in trick for x in sc)
            events.append((s, c, before, later, flat, 0 if (s ^ self.seat) & 1 else 1))
        ti = None
        if self.dealer_trump is not None:
            dealer, option, _legal, later = self.dealer_trump
            code = 4 if option == "trump:none" else SUITS.index(option[6:])
            ti = (
                dealer,
                code,
                later,
                int(self.rules.allow_no_trump),
                self.rules.no_trump_multiplier,
                SUIT,
                NONE,
            )
        return events, ti

    @property
    def informative(self) -> bool:
        return bool(self.events) or self.dealer_trump is not None

    def weight(self, hands: list[int]) -> float:
        cfg = self.cfg
        seat, trump, rules = self.seat, self.trump, self.rules
        w = 1.0
        if self.dealer_trump is not None:
            dealer, option, legal, played = self.dealer_trump
            if option not in model_trump(hands[dealer] | played, legal, rules.no_trump_multiplier):
                w *= cfg.eps_trump
        v: Any = _V()
        v.trump = trump
        for s, c, before, trick, later in self.events:
            hand = hands[s] | later
            lm = legal_mask(hand, trick, trump, s, rules)
            if lm & (lm - 1) == 0:
                continue  # forced
            v.seat = s
            v.hand = hand
            v.unseen = FULL_DECK & ~before & ~hand
            if trick:
                v.trick = trick
                m = _MODEL._follow(v, lm)
            else:
                v.trick = trick
                m = _MODEL._lead(v, lm)
            if m == c:
                continue
            if (m >> 3) == (c >> 3) and _PTS[m] == _PTS[c]:
                w *= cfg.similar
            else:
                w *= cfg.eps if (s ^ seat) & 1 else cfg.eps_partner
        return w
