"""How well the expert's inference knows where the hidden cards are (no games played).

A bot's card play is only as good as the deals it imagines.  This measures that part
alone, on recorded deals, without the noise of whole matches: at positions of the
recorded deals, from an expert seat's view, each variant's inference draws its pool of
deals exactly as the expert does for its MCTS (``_policy_deals``: candidates drawn
uniformly among the consistent deals, weighted by the play models, resampled), and for
every card that seat cannot see the pool's weighted share of the seat that really holds
it is scored: the mean log-likelihood per hidden card (each share mixed 9:1 with the
room share, so that no seat has 0).  The baseline is the room share alone: where the
uniform sampler puts a card, near enough.  Differences between variants are paired
position by position, with a 95 % interval.

``record``: plays deals and writes each deal's actions as one JSON line (seed, number,
preset, actions, bots), presets in turn (flemish most often), trump by the expert on
even deals and by the simple rule on odd ones.  ``--bots expert`` is expert self-play;
``--bots expert,ismcts:20000`` the expert (seats 0/2) against the sparring partner,
whose positions are then scored from the expert's seats only.

Run: python bench/inference_check.py record --deals 200 --out /tmp/self.jsonl
     python bench/inference_check.py check /tmp/self.jsonl --bots expert,expert@cand40
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Game, deal_for  # noqa: E402
from engine.bots import bot_seed, get_bot  # noqa: E402

PRESETS = ("flemish", "flemish", "flemish", "flemish-table", "french", "malilla")


def record(seed: str, start: int, deals: int, out: str, bot_name: str) -> None:
    names = bot_name.split(",")  # one bot in all seats, or A (seats 0/2) and B (1/3)
    if len(names) == 1:
        names *= 2
    bots = [get_bot(n) for n in names]
    rule_trump = get_bot("heuristic")
    t0 = time.time()
    with open(out, "a", encoding="utf-8") as f:
        for k in range(start, start + deals):
            rules = PRESETS[k % len(PRESETS)]
            spec = deal_for(seed, k, rules)
            g = Game(seed, rules, deals=lambda n, spec=spec: spec)
            actions = []
            while g.deal_number == 1 and not g.is_terminal():
                seat = g.to_move
                obs = g.observation(seat)
                bot = bots[seat & 1]
                chooser = rule_trump if obs["phase"] == "trump" and k % 2 else bot
                action = chooser.act(obs, bot_seed(seed, k, seat))
                actions.append(action)
                g.apply_action(action)
            line = {"seed": seed, "number": k, "rules": rules, "actions": actions, "bots": names}
            f.write(json.dumps(line) + "\n")
            f.flush()
            print(f"{k - start + 1}/{deals} deals  {time.time() - t0:.0f}s", file=sys.stderr)


def load(files: list[str]) -> list[dict]:
    deals = []
    for fn in files:
        with open(fn, encoding="utf-8") as f:
            for x in f:
                try:
                    deals.append(json.loads(x))
                except json.JSONDecodeError:
                    continue  # a line cut short by a stopped recorder
    deals.sort(key=lambda d: (d["seed"], d["number"]))
    return deals


def replay(d: dict):
    """(game, next action) at every step of a recorded deal."""
    spec = deal_for(d["seed"], d["number"], d["rules"])
    g = Game(d["seed"], d["rules"], deals=lambda n, spec=spec: spec)
    for action in d["actions"]:
        if g.deal_number != 1 or g.is_terminal():
            return
        yield g, action
        g.apply_action(action)


def positions(deals: list[dict], share: float, limit: int, seed: int = 7):
    """(observation, true hands) at about ``share`` of the play positions, from a seat
    the expert plays (``bots`` of the record), at most ``limit``."""
    import random

    rng = random.Random(seed)
    out = []
    for d in deals:
        bots = d.get("bots", ["expert", "expert"])
        for g, _ in replay(d):
            if g.phase != "play" or rng.random() >= share:
                continue
            seat = rng.randrange(4)
            if not bots[seat & 1].startswith("expert"):
                seat ^= 1
            out.append((g.observation(seat), list(g.deal.hands)))
    rng.shuffle(out)
    return out[:limit]


def pool_scores(bot, obs: dict, hands: list[int], pool: int) -> list[float] | None:
    """Log-likelihood of each hidden card's true seat under ``bot``'s inference pool,
    and under the baseline (returned as [(pool, baseline), ...]); None: nothing hidden."""
    from engine.bots.base import decision_rng
    from engine.bots.inference import PlayModel
    from engine.bots.pimc import _policy_deals
    from engine.bots.sampler import analyse
    from engine.rules import get_rules

    rules = get_rules(obs.get("rules"))
    hidden = analyse(obs, rules)
    if not hidden.unseen:
        return None
    me = obs["seat"]
    inf = bot.config.inference if bot is not None else None
    deals = ws = None
    if inf is not None:
        model = PlayModel(obs, rules, inf)
        if model.informative:
            deals, ws = _policy_deals(
                obs, rules, hidden, model, inf, decision_rng(obs, b"check"), pool,
                hidden.enumerate_deals(pool),
            )  # fmt: skip
    out = []
    total = sum(ws) if ws else 0.0
    for c in range(32):
        if not hidden.unseen >> c & 1:
            continue
        owner = next(s for s in range(4) if hands[s] >> c & 1)
        room = {
            s: hidden.need[s]
            for s in range(4)
            if s != me and hidden.need[s] > 0 and not hidden.forbid[s] >> c & 1
        }
        base = room[owner] / sum(room.values())
        if deals is None:
            p = base
        else:
            got = sum(w for h, w in zip(deals, ws, strict=True) if h[owner] >> c & 1) / total
            p = 0.9 * got + 0.1 * base
        out.append((math.log(p), math.log(base)))
    return out


def check(
    files: list[str], names: list[str], limit: int, pool: int, share: float, min_number: int
) -> None:
    from engine.bots.pimc import PIMCBot

    deals = [d for d in load(files) if d["number"] >= min_number]
    pos = positions(deals, share, limit)
    bots = {}
    for n in names:
        b = get_bot(n)
        bots[n] = b if isinstance(b, PIMCBot) else None
    per = {n: [] for n in names}  # per position: sum of log-lik over its hidden cards
    base, cards = [], 0
    t0 = time.process_time()
    for obs, hands in pos:
        rows = None
        for n in names:
            rows = pool_scores(bots[n], obs, hands, pool)
            if rows is None:
                break
            per[n].append(sum(a for a, _ in rows))
        if rows is None:
            continue
        base.append(sum(b for _, b in rows))
        cards += len(rows)
    print(
        f"# {len(files)} file(s), {len(deals)} deals, {len(base)} positions, {cards} hidden "
        f"cards, pool {pool}; CPU {time.process_time() - t0:.0f} s"
    )
    print("| inference | log-lik. per hidden card | vs the first [95 % CI] |")
    print("|---|---|---|")
    print(f"| baseline (room share) | {sum(base) / cards:.4f} | |")
    first = per[names[0]]
    for n in names:
        d = [(a - b) for a, b in zip(per[n], first, strict=True)]
        m = sum(d) / cards
        var = sum((x - sum(d) / len(d)) ** 2 for x in d) / max(1, len(d) - 1)
        half = 1.96 * math.sqrt(var * len(d)) / cards
        print(f"| {n} | {sum(per[n]) / cards:.4f} | {m:+.4f} [{m - half:+.4f}, {m + half:+.4f}] |")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--seed", default="inference-1")
    r.add_argument("--start", type=int, default=1)
    r.add_argument("--deals", type=int, default=100)
    r.add_argument("--bots", default="expert")
    r.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="+")
    c.add_argument("--bots", default="expert", help="expert variants to compare, A,B,...")
    c.add_argument("--positions", type=int, default=1000)
    c.add_argument("--pool", type=int, default=400)
    c.add_argument("--share", type=float, default=0.15, help="share of positions taken")
    c.add_argument("--min-number", type=int, default=0, help="only deals from this number on")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.seed, args.start, args.deals, args.out, args.bots)
    else:
        check(
            args.files, args.bots.split(","), args.positions, args.pool, args.share,
            args.min_number,
        )  # fmt: skip


if __name__ == "__main__":
    main()
