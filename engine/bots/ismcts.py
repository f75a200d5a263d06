"""SO-ISMCTS: the benchmark's sparring partner (``get_bot("ismcts:20000")``).

Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse
2012): one tree over the seat's information sets, a fresh determinisation of the
hidden cards per iteration, drawn uniformly among the deals that agree with what the
seat has seen (the constraints of :mod:`engine.bots.sampler`: voids, obligations, the
turned card), UCB1 with availability counts, random playouts, and the most visited
card.  The search is the compiled core ``engine/solver/_ismcts.c`` (no pure-Python
twin: without a C compiler this level is unavailable).

- Trump (the dealer sees 8 cards): the iterations are split evenly over the options;
  each option's search from the opening lead estimates the dealer side's card points,
  and the best expected written score ``multiplier x (points - threshold)`` wins.
- flemish-table: "look" (never blind); "mee"/"tegen" when the estimate is at least
  4 points above the threshold.

A benchmark level, not offered in the UI (:func:`engine.bots.available` leaves it out).
Deterministic: the 64-bit seed of the search comes from
:func:`engine.bots.base.decision_rng` of (observation, seed).
"""

from __future__ import annotations

from ..cards import CARD_BY_TEXT, CARD_TEXT, SUITS
from ..rules import get_rules
from .base import PhaseBot, decision_rng
from .sampler import analyse

UCB_C = 0.7  # exploration constant, rewards are fractions of the points left


def _core():
    from ..solver._build import load_core

    core = load_core("_ismcts")
    if core is None:
        raise RuntimeError("the ISMCTS level needs its compiled core (engine/solver/_ismcts.c)")
    return core


def hidden_args(obs: dict, rules) -> tuple[list[int], list[int], list[int], int]:
    """(known, need, forbid, unseen) of the seat's hidden-card problem, for the core."""
    h = analyse(obs, rules)
    return list(h.known), list(h.need), list(h.forbid), h.unseen


def search(
    obs: dict,
    seed: bytes,
    iterations: int,
    *,
    to_move: int | None = None,
    trump: int | None | str = "obs",
    c: float = UCB_C,
    salt: str = "",
    pool: tuple[list, list[float]] | None = None,
    seed64: int | None = None,
    playout: float | None = None,
):
    """Run the core from the observation: (best card, [(card, visits, mean)], root mean).

    ``pool``: (deals, weights) to draw the determinisations from instead of uniformly
    (the expert's inference, ``search_pool``); ``seed64``: the search's seed, else one
    drawn from (observation, seed, salt); ``playout`` (with ``pool`` only): rule-based
    playouts, that share of the cards uniformly random (else every card random).
    """
    from ..solver import rule_args

    rules = get_rules(obs.get("rules"))
    if trump == "obs":
        trump = None if obs.get("trump") is None else SUITS.index(obs["trump"])
    flat: list[int] = []
    for s, t in obs["current_trick"]["cards"]:
        flat += [int(s), CARD_BY_TEXT[t]]
    if seed64 is None:
        seed64 = decision_rng(obs, seed + salt.encode()).getrandbits(64)
    root = (
        -1 if trump is None else int(trump),
        obs["seat"] if to_move is None else to_move,
        obs["seat"],
        tuple(flat),
        *rule_args(rules),
        int(iterations),
        seed64,
        float(c),
    )
    if pool is not None:
        if playout is not None:
            return _core().search_pool(*pool, *root, float(playout))
        return _core().search_pool(*pool, *root)
    return _core().search(*hidden_args(obs, rules), *root)


class ISMCTSBot(PhaseBot):
    def __init__(self, iterations: int = 20000, c: float = UCB_C) -> None:
        if iterations < 1:
            raise ValueError("ismcts needs at least one iteration")
        self.iterations = iterations
        self.c = c
        self.name = f"ismcts:{iterations}"

    def _play(self, obs: dict, seed: bytes) -> str:
        best, _, _ = search(obs, seed, self.iterations, c=self.c)
        text = CARD_TEXT[best]
        if text not in obs["legal"]:  # cannot happen: the core plays by the same rules
            raise RuntimeError(f"ismcts chose {text}, not legal in {obs['legal']}")
        return text

    def trump_estimates(self, obs: dict, seed: bytes) -> dict[str, float]:
        rules = get_rules(obs.get("rules"))
        leader = (obs["dealer"] + rules.direction) % 4
        tie = obs.get("tie_factor", 1) or 1
        options = [a for a in obs["legal"] if a.startswith("trump:")]
        n = max(1, self.iterations // max(1, len(options)))
        out = {}
        for a in options:
            option = a[6:]
            trump = None if option == "none" else SUITS.index(option)
            _, _, pts = search(obs, seed, n, to_move=leader, trump=trump, c=self.c, salt=a)
            mult = (rules.no_trump_multiplier if trump is None else 1) * tie
            if rules.multiplier_cap is not None:
                mult = min(mult, rules.multiplier_cap)
            out[a] = mult * (pts - rules.threshold)
        return out

    def _trump(self, obs: dict, seed: bytes) -> str:
        est = self.trump_estimates(obs, seed)
        order = {a: i for i, a in enumerate(obs["legal"])}
        return max(est, key=lambda a: (est[a], -order[a]))

    def _announce(self, obs: dict, seed: bytes) -> str:
        rules = get_rules(obs.get("rules"))
        leader = (obs["dealer"] + rules.direction) % 4
        _, _, pts = search(obs, seed, self.iterations, to_move=leader, c=self.c, salt="announce")
        call = next(a for a in obs["legal"] if a != "pass")
        return call if pts >= rules.threshold + 4 else "pass"


def factory(spec: str) -> ISMCTSBot:
    """``ismcts`` or ``ismcts:N`` (N iterations per decision)."""
    _, _, n = spec.partition(":")
    try:
        iterations = int(n) if n else 20000
    except ValueError:
        raise ValueError(f"unknown bot {spec!r}: ismcts:N takes an iteration count") from None
    return ISMCTSBot(iterations)
