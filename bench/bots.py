"""Duplicate-match benchmark between two bots.

Every deal is played twice from the same seed (same dealer, same four hands): once with
bot A in seats 0/2 and bot B in 1/3, once swapped.  The luck of the cards cancels: per
deal, A's duplicate score is A's card points in the first play minus B's card points
in the same seats in the second play (= A's total over both plays minus the deal's
points).  Each deal stands alone (no game to 101, no tie doubling).

Bots: any two of random, heuristic (= beginner), club, expert, ismcts:N (SO-ISMCTS with N
iterations per decision, the sparring partner), expert@variant, and ``seer``: a side that
sees all four hands (every card the double-dummy solver's best, ties to the cheapest;
everything else the heuristic bot's) -- not a fair player but the ceiling of what
knowing the hidden cards is worth against B.  ``--trump fixed``: the dealer's trump is
named by one simple rule for both sides (the heuristic bot's: longest, strongest suit;
no trump with three tens and five tens and aces), so only the card play is compared;
``--trump own`` (default): each bot names its own trump.  ``--trump only``: both sides play
the cards with bot B and only the trump choosers differ (A's trump vs B's trump).

Run: python bench/bots.py --bots expert,ismcts:20000 --deals 1000 --rules flemish --trump fixed
Prints mean card points per deal per side, the difference with a 95 % confidence
interval, decision latency p50/p95/max per bot (every act() call, forced ones included;
the opening lead separately), and appends the table to bench/results/bots-<date>.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Game, deal_for, get_rules  # noqa: E402
from engine.bots import HeuristicBot, bot_seed, get_bot  # noqa: E402

KEYS = ("all", "lead", "cpu", "cpu_lead")
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


class FixedTrump:
    """Wraps a bot: the trump is named by the simple rule, everything else by the bot."""

    def __init__(self, bot, chooser=None) -> None:
        self.bot = bot
        self.chooser = chooser or HeuristicBot()
        self.name = bot.name

    def act(self, observation: dict, seed: bytes) -> str:
        if observation.get("phase") == "trump" and len(observation["legal"]) > 1:
            return self.chooser.act(observation, seed)
        return self.bot.act(observation, seed)

    def see(self, deal) -> None:
        if isinstance(self.bot, Seer):
            self.bot.see(deal)


class Seer:
    """Benchmark only: plays every card double dummy on the true deal (shown to it by
    :func:`play_once` before each action), so it measures what the hidden cards are worth."""

    name = "seer"

    def __init__(self) -> None:
        self.deal = None
        self.other = HeuristicBot()

    def see(self, deal) -> None:
        self.deal = deal

    def act(self, observation: dict, seed: bytes) -> str:
        if observation.get("phase") != "play" or len(observation["legal"]) < 2:
            return self.other.act(observation, seed)
        from engine.bots import View
        from engine.bots.pimc import _best
        from engine.cards import CARD_TEXT
        from engine.solver import solve_moves

        v = View(observation)
        vals = solve_moves(list(self.deal.hands), v.trump, v.seat, v.trick, observation["rules"])
        return CARD_TEXT[_best(vals)]


def bot_by_name(name: str):
    return Seer() if name == "seer" else get_bot(name)


def make_bots(names: list[str], trump: str) -> tuple[object, object]:
    a, b = bot_by_name(names[0]), bot_by_name(names[1])
    if trump == "fixed":
        return FixedTrump(a), FixedTrump(b)
    if trump == "only":  # the card play is B's on both sides; the trump chooser differs
        return FixedTrump(b, chooser=a), b
    return a, b


def play_once(seed: str, number: int, rules: str, bots: dict[int, object]) -> tuple[dict, dict]:
    """Play deal ``number`` of ``seed`` with ``bots[team]``; card points, written, latencies."""
    spec = deal_for(seed, number, rules)
    g = Game(seed, rules, deals=lambda n: spec)
    lat_by_team = {t: {k: [] for k in KEYS} for t in (0, 1)}
    while g.deal_number == 1 and not g.is_terminal():
        seat = g.to_move
        obs = g.observation(seat)
        bot = bots[seat & 1]
        if isinstance(bot, (Seer, FixedTrump)):
            bot.see(g.deal)
        t0, c0 = time.perf_counter(), time.process_time()
        action = bot.act(obs, bot_seed(seed, number, seat))
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        L = lat_by_team[seat & 1]
        L["all"].append(elapsed)
        L["cpu"].append(cpu)
        if obs["phase"] == "play" and not obs["tricks"] and not obs["current_trick"]["cards"]:
            L["lead"].append(elapsed)
            L["cpu_lead"].append(cpu)
        g.apply_action(action)
    res = g.results[0]
    return {"points": list(res.card_points), "written": list(res.written)}, lat_by_team


def run_deals(args: tuple) -> tuple[list, dict]:
    seed, rules, names, numbers, trump = args
    a, b = make_bots(names, trump)
    rows = []
    lat = {n: {k: [] for k in KEYS} for n in names}
    for k in numbers:
        r1, l1 = play_once(seed, k, rules, {0: a, 1: b})  # A in seats 0/2
        r2, l2 = play_once(seed, k, rules, {0: b, 1: a})  # swapped
        for key in KEYS:
            lat[names[0]][key] += l1[0][key] + l2[1][key]
            lat[names[1]][key] += l1[1][key] + l2[0][key]
        rows.append((k, r1, r2))
    return rows, lat


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    i = min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))
    return s[i]


def progress(done: int, total: int, t0: float) -> None:
    width = 30
    filled = int(width * done / total)
    elapsed = time.time() - t0
    eta = elapsed / done * (total - done) if done else 0
    bar = "#" * filled + "." * (width - filled)
    sys.stderr.write(f"\r[{bar}] {done}/{total} deals  {elapsed:5.0f}s  eta {eta:5.0f}s")
    sys.stderr.flush()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bots", default="expert,heuristic", help="A,B: A is measured against B")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--start", type=int, default=1, help="number of the first deal")
    ap.add_argument("--rules", default="flemish")
    ap.add_argument("--seed", default="bench-bots")
    ap.add_argument(
        "--jobs", type=int, default=1, help="worker processes (latency is noisier above 1)"
    )
    ap.add_argument("--chunk", type=int, default=5)
    ap.add_argument(
        "--trump",
        choices=("own", "fixed", "only"),
        default="own",
        help="own: each bot names trump; fixed: one simple rule for both; "
        "only: B plays the cards on both sides, A's and B's trump choices compared",
    )
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument(
        "--dump",
        default=None,
        help="write each deal's duplicate card-point difference as JSON lines to this file "
        "(bench/pair.py compares two such runs deal by deal)",
    )
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="stop after this wall time; report the deals done",
    )
    args = ap.parse_args()
    names = args.bots.split(",")
    if len(names) != 2:
        ap.error("--bots takes two names: A,B")
    rules = get_rules(args.rules).name
    numbers = list(range(args.start, args.start + args.deals))
    chunks = [numbers[i : i + args.chunk] for i in range(0, len(numbers), args.chunk)]
    tasks = [(args.seed, rules, names, c, args.trump) for c in chunks]
    rows: list = []
    lat = {n: {k: [] for k in KEYS} for n in names}
    t0 = time.time()
    progress(0, len(numbers), t0)

    def collect(result):
        r, l_ = result
        rows.extend(r)
        for n in names:
            for key in KEYS:
                lat[n][key] += l_[n][key]
        progress(len(rows), len(numbers), t0)

    def out_of_time() -> bool:
        return args.max_seconds is not None and time.time() - t0 > args.max_seconds

    if args.jobs > 1:
        with mp.get_context("fork").Pool(args.jobs) as pool:
            for result in pool.imap_unordered(run_deals, tasks):
                collect(result)
                if out_of_time():
                    pool.terminate()
                    break
    else:
        for t in tasks:
            collect(run_deals(t))
            if out_of_time():
                break
    wall = time.time() - t0
    sys.stderr.write("\n")
    rows.sort()

    pts_a, pts_b, diffs, wdiffs = [], [], [], []
    for _, r1, r2 in rows:
        a = (r1["points"][0] + r2["points"][1]) / 2  # A's mean card points per deal
        b = (r1["points"][1] + r2["points"][0]) / 2
        pts_a.append(a)
        pts_b.append(b)
        diffs.append(r1["points"][0] - r2["points"][0])  # same seats, same cards
        wdiffs.append((r1["written"][0] - r1["written"][1]) - (r2["written"][0] - r2["written"][1]))
    n = len(diffs)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            for (k, _, _), d, w in zip(rows, diffs, wdiffs, strict=True):
                f.write(json.dumps({"deal": k, "points": d, "written": w}) + "\n")
    mean = statistics.mean(diffs)
    sd = statistics.stdev(diffs) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
    wmean = statistics.mean(wdiffs)
    wsd = statistics.stdev(wdiffs) if n > 1 else 0.0
    whalf = 1.96 * wsd / math.sqrt(n) if n > 1 else float("nan")

    from engine import solver

    configs = []
    configs.append(
        {
            "own": "each bot names its own trump",
            "fixed": "trump named by the simple rule (heuristic's) for both sides",
            "only": f"card play by {names[1]} on both sides; trump by {names[0]} vs {names[1]}",
        }[args.trump]
    )
    for name in names:
        cfg = getattr(bot_by_name(name), "config", None)
        if cfg is not None:
            inf = getattr(cfg, "inference", None)
            configs.append(
                f"{name}: samples by trick {list(cfg.samples)}, exact <= {cfg.exact_limit} deals"
                + (
                    (
                        f", inference by the fitted policy ({inf.candidates} candidates per "
                        f"kept deal, mix {inf.mix}, alpha {inf.alpha_opp}/{inf.alpha_partner}, "
                        f"trump {inf.eps_trump}"
                        + (
                            f", a mixture of {'/'.join(inf.models)}"
                            if len(getattr(inf, "models", ())) > 1
                            else ""
                        )
                        + ")"
                        if getattr(inf, "model", "heuristic") == "policy"
                        else f", inference ({inf.candidates} candidates per kept deal, "
                        f"eps {inf.eps}, partner {inf.eps_partner}, trump {inf.eps_trump})"
                    )
                    if inf is not None
                    else ", no inference"
                )
                + (
                    f", node budget {cfg.node_budget:,}"
                    if getattr(cfg, "node_budget", None)
                    else ""
                )
                + (
                    f", solve limit {cfg.solve_limit:,}"
                    if getattr(cfg, "solve_limit", None)
                    else ""
                )
                + (f", node cap {cfg.node_cap:,}" if getattr(cfg, "node_cap", None) else "")
                + (
                    f", the first {cfg.mcts_tricks} trick(s) by MCTS "
                    f"({cfg.mcts_iterations:,} iterations, pool {cfg.mcts_pool})"
                    if getattr(cfg, "mcts_tricks", 0)
                    else ""
                )
                + (
                    f", later cards {cfg.mcts_blend} x their mean in an MCTS of "
                    f"{cfg.blend_iterations:,} iterations"
                    if getattr(cfg, "mcts_blend", 0)
                    else ""
                )
                + (
                    f" ({cfg.blend_first:,} at trick 1)"
                    if getattr(cfg, "mcts_blend", 0) and getattr(cfg, "blend_first", None)
                    else ""
                )
                + (
                    f" (by trick: weights {list(cfg.blend_weights)})"
                    if getattr(cfg, "blend_weights", None)
                    else ""
                )
                + (
                    f" (by trick: iterations {list(cfg.blend_iters)})"
                    if getattr(cfg, "blend_iters", None)
                    else ""
                )
                + (f" (UCB c {cfg.blend_c})" if getattr(cfg, "blend_c", None) else "")
                + (f" (pool {cfg.blend_pool})" if getattr(cfg, "blend_pool", None) else "")
                + (
                    f" (rule-based playouts, {cfg.blend_playout} at random)"
                    if getattr(cfg, "blend_playout", None) is not None
                    else ""
                )
                + (
                    f", trick 1's node budget {cfg.first_budget:,}"
                    if getattr(cfg, "first_budget", None)
                    else ""
                )
            )
    try:
        import subprocess

        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=os.path.dirname(RESULTS),
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "engine"],
            cwd=os.path.dirname(RESULTS),
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except OSError:
        commit, dirty = "", ""
    if commit:
        configs.append(f"code at commit {commit}" + (" (engine/ modified)" if dirty else ""))

    lines = [
        f"## {names[0]} vs {names[1]} — {rules}, trump {args.trump}, {n} duplicate deals "
        f"(seed {args.seed!r}" + (f", from deal {args.start}" if args.start != 1 else "") + ")",
        "",
        "`" + " ".join(["bench/bots.py", *sys.argv[1:]]) + "`",
        "",
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"{os.cpu_count()} CPUs, jobs={args.jobs}, solver backend {solver.BACKEND}, "
        f"wall {wall:.0f} s",
        *(["", "; ".join(configs)] if configs else []),
        "",
        "| side | mean card points / deal |",
        "|---|---|",
        f"| {names[0]} | {statistics.mean(pts_a):.2f} |",
        f"| {names[1]} | {statistics.mean(pts_b):.2f} |",
        "",
        "| measure | mean per deal | 95 % CI |",
        "|---|---|---|",
        f"| card points, {names[0]} − {names[1]} (duplicate) | {mean:+.2f} "
        f"| [{mean - half:+.2f}, {mean + half:+.2f}] |",
        f"| written score, {names[0]} − {names[1]} | {wmean:+.2f} "
        f"| [{wmean - whalf:+.2f}, {wmean + whalf:+.2f}] |",
        "",
        "Latency per act() call, wall clock (perf_counter) and the process's own CPU time",
        "(process_time: what an unloaded core would take; the machine is shared).",
        "",
        "| bot | clock | decisions | p50 ms | p95 ms | max ms | opening lead p50 ms "
        "| opening lead p95 ms | opening lead max ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in names:
        for clock, ka, kl in (("wall", "all", "lead"), ("cpu", "cpu", "cpu_lead")):
            al = [x * 1000 for x in lat[name][ka]]
            ld = [x * 1000 for x in lat[name][kl]]
            lines.append(
                f"| {name} | {clock} | {len(al)} | {pct(al, 0.5):.1f} | {pct(al, 0.95):.1f} | "
                f"{max(al):.1f} | {pct(ld, 0.5):.1f} | {pct(ld, 0.95):.1f} | "
                f"{max(ld) if ld else float('nan'):.1f} |"
            )
    # Total CPU: each bot plays one side (two seats) of every one of the 2 n plays.
    tot = {name: sum(lat[name]["cpu"]) for name in names}
    lines += [
        "",
        "Total CPU time (process_time), per play of a deal (the bot's two seats) and per decision:",
        "",
        "| bot | CPU per deal ms | mean per decision ms | share of the other's |",
        "|---|---|---|---|",
    ]
    for i, name in enumerate(names):
        other = tot[names[1 - i]]
        dec = len(lat[name]["cpu"]) or 1
        lines.append(
            f"| {name} | {tot[name] * 1000 / max(1, 2 * n):.1f} | {tot[name] * 1000 / dec:.2f} "
            f"| {tot[name] / other if other else float('nan'):.2f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_save:
        os.makedirs(RESULTS, exist_ok=True)
        path = os.path.join(RESULTS, f"bots-{dt.datetime.now(dt.UTC):%Y-%m-%d}.md")
        new = not os.path.exists(path)
        with open(path, "a", encoding="utf-8") as f:
            if new:
                f.write("# Bot benchmarks (bench/bots.py)\n\n")
            f.write(text + "\n")
        print(f"saved to {os.path.relpath(path)}")


if __name__ == "__main__":
    main()
