"""Engine-side helpers: a game split into its deals, par by the bots, verification.

No models here; callers pass seeds, rules and action lists.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from engine.bots import bot_seed, get_bot


@dataclass
class PlayedDeal:
    number: int
    result: dict  # engine DealResult.to_dict()
    tricks: list[dict]
    actions: list[str]


def split_deals(seed: str, rules: str, actions: list[str]) -> tuple[engine.Game, list[PlayedDeal]]:
    """Replay a game; return it and every completed deal with its own actions and tricks."""
    g = engine.Game(seed, rules)
    done: list[PlayedDeal] = []
    current: list[str] = []
    for action in actions:
        deal = g.deal
        g.apply_action(action)
        current.append(action)
        if deal.result is not None:
            done.append(
                PlayedDeal(
                    number=deal.number,
                    result=deal.result.to_dict(),
                    tricks=[t.to_dict() for t in deal.tricks],
                    actions=current,
                )
            )
            current = []
    return g, done


def deal_specs(seed: str, rules: str) -> list[engine.DealSpec]:
    """Every deal a game of these rules can reach: its N fixed deals, else the deal
    limit times the games."""
    rs = engine.get_rules(rules)
    count = rs.deals or rs.max_deals * rs.max_games
    return [engine.deal_for(seed, k, rs) for k in range(1, count + 1)]


def spec_as_dict(spec: engine.DealSpec) -> dict:
    return {
        "number": spec.number,
        "dealer": spec.dealer,
        "hands": spec.texts(),
        "turned": "" if spec.turned is None else str(spec.turned),
    }


def par(seed: str, rules: str, number: int, bot_level: str = "heuristic") -> dict:
    """The bots in all four seats from the start of deal `number` (no earlier ties).

    Seeded like the tournament's games: bot_seed(seed, number, seat), and the bots see
    the real deal number, so this is what "the bot in your seat" would have done.
    """
    spec = engine.deal_for(seed, number, rules)
    g = engine.Game(
        seed,
        rules,
        deals=lambda n: spec if n == 1 else engine.deal_for(seed, number + n - 1, rules),
    )
    bot = get_bot(bot_level)
    deal = g.deal
    while deal.result is None:
        seat = g.to_move
        obs = g.observation(seat)
        obs["deal_number"] = number
        g.apply_action(bot.act(obs, bot_seed(seed, number, seat)))
    res = deal.result.to_dict()
    return {
        "trump": res["trump"] or ("none" if res["no_trump"] else ""),
        "no_trump": res["no_trump"],
        "card_points": res["card_points"],
        "written": res["written"],
        "multiplier": res["multiplier"],
        "tricks": [t.to_dict() for t in deal.tricks],
    }


def first_difference(a: list[str], b: list[str]) -> int | None:
    """Index of the first action where two plays of a deal differ (None if identical)."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))
