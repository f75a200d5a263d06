"""Double-dummy solver speed: the value of a full 8-trick deal and the exact values of
all 8 opening leads, compiled core vs pure Python.

Run: python bench/solver.py [--deals 50] [--py-deals 5] [--rules flemish]
Deals come from deal_for(seed, k); the dealer names trump as the heuristic bot would.
Targets (issue "The strong bot", 2-core machine): full-deal value <= 10 ms median,
all 8 opening leads <= 25 ms median (compiled core).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Deal, deal_for, get_rules  # noqa: E402
from engine.bots import get_bot  # noqa: E402
from engine.solver import available_backends, last_nodes, solve_moves, solve_value  # noqa: E402


def positions(seed: str, n: int, rules: str):
    bot = get_bot("heuristic")
    out = []
    for k in range(1, n + 1):
        d = Deal.from_spec(deal_for(seed, k, rules), rules)
        while d.phase != "play":
            obs = d.observation(d.to_move)
            obs.update(seat=d.to_move, rules=rules, deal_number=k)
            d.apply_action(bot.act(obs, b"bench"))
        out.append((list(d.hands), d.trump, d.to_move, [], get_rules(rules)))
    return out


def bench(pos, backend: str) -> dict:
    tv, tm, nv, nm, cv, cm = [], [], [], [], [], []
    for p in pos:
        t0, c0 = time.perf_counter(), time.process_time()
        solve_value(*p, backend=backend)
        tv.append(time.perf_counter() - t0)
        cv.append(time.process_time() - c0)
        nv.append(last_nodes(backend))
        t0, c0 = time.perf_counter(), time.process_time()
        solve_moves(*p, backend=backend)
        tm.append(time.perf_counter() - t0)
        cm.append(time.process_time() - c0)
        nm.append(last_nodes(backend))
    return {
        "value_ms": statistics.median(tv) * 1000,
        "value_p90_ms": sorted(tv)[int(0.9 * (len(tv) - 1))] * 1000,
        "moves_ms": statistics.median(tm) * 1000,
        "moves_p90_ms": sorted(tm)[int(0.9 * (len(tm) - 1))] * 1000,
        "value_cpu_ms": statistics.median(cv) * 1000,
        "moves_cpu_ms": statistics.median(cm) * 1000,
        "value_nodes": statistics.median(nv),
        "moves_nodes": statistics.median(nm),
        "n": len(pos),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument(
        "--py-deals", type=int, default=5, help="deals for the (slow) pure-Python backend"
    )
    ap.add_argument("--rules", default="flemish")
    ap.add_argument("--seed", default="bench-solver")
    args = ap.parse_args()
    pos = positions(args.seed, args.deals, args.rules)
    results = {}
    if "c" in available_backends():
        results["c"] = bench(pos, "c")
    results["python"] = bench(pos[: args.py_deals], "python")
    if "c" in results:
        results["c (same deals as python)"] = bench(pos[: args.py_deals], "c")
    print(
        f"rules {args.rules}, os.cpu_count()={os.cpu_count()}; wall = perf_counter, cpu = process_time"  # noqa: E501
    )
    print(
        "| backend | deals | full-deal value: median wall ms (p90) / median cpu ms "
        "| all 8 opening leads: median wall ms (p90) / median cpu ms | median nodes value / leads |"
    )
    print("|---|---|---|---|---|")
    for name, r in results.items():
        value = f"{r['value_ms']:.1f} ({r['value_p90_ms']:.1f}) / {r['value_cpu_ms']:.1f}"
        moves = f"{r['moves_ms']:.1f} ({r['moves_p90_ms']:.1f}) / {r['moves_cpu_ms']:.1f}"
        nodes = f"{r['value_nodes']:.0f} / {r['moves_nodes']:.0f}"
        print(f"| {name} | {r['n']} | {value} | {moves} | {nodes} |")
    if "c" in results:
        same = results["c (same deals as python)"]
        py = results["python"]
        print(
            f"\npure Python / C on the same deals (cpu): value x{py['value_cpu_ms'] / same['value_cpu_ms']:.0f}, "  # noqa: E501
            f"leads x{py['moves_cpu_ms'] / same['moves_cpu_ms']:.0f}"
        )


if __name__ == "__main__":
    main()
