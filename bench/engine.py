"""Engine speed: one random deal, one random game to 101, dealing, observations.

Run: python bench/engine.py [--repeats 7] [--n 300]
Prints medians over repeats (each repeat times N items and takes their median).
Times are the process's own CPU time (time.process_time): on a shared machine that is
what one idle core would take; wall-clock figures swing with the other load.
Targets (issue #2, one core): a whole random game to 101 (legal_moves + play) <= 2 ms
median; a full random deal (32 cards) <= 0.1 ms median.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Deal, Game, deal_for  # noqa: E402

CLOCK = time.process_time


def random_deal(spec, rnd) -> float:
    d = Deal.from_spec(spec)
    d.choose_trump("SHDC"[spec.number % 4])
    t0 = CLOCK()
    while d.to_move is not None:
        moves = d.legal_moves()
        d.play(moves[int(rnd() * len(moves))])
    return CLOCK() - t0


def random_game(seed: str, rnd) -> tuple[float, int, float]:
    """Whole game wall/CPU time, deal count, and the time spent in legal_moves + play."""
    t0 = CLOCK()
    g = Game(seed)
    in_play = 0.0
    while g.outcome is None:
        deal = g.deal
        if deal.phase == "play":
            t1 = CLOCK()
            while g.deal is deal and g.outcome is None:
                moves = deal.legal_moves()
                g.apply_action(moves[int(rnd() * len(moves))])
            in_play += CLOCK() - t1
        else:
            acts = deal.legal_actions()
            g.apply_action(acts[int(rnd() * len(acts))])
    return CLOCK() - t0, g.deal_number, in_play


def timed(fn, items) -> float:
    ts = []
    for it in items:
        t0 = CLOCK()
        fn(it)
        ts.append(CLOCK() - t0)
    return statistics.median(ts)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--n", type=int, default=300, help="deals/games per repeat")
    ap.add_argument("--wall", action="store_true", help="wall clock instead of CPU time")
    args = ap.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter
    rnd = random.Random(2026).random
    specs = [deal_for("bench", i) for i in range(1, args.n + 1)]

    deal_meds, game_meds, deal_counts, gen_meds, obs_meds = [], [], [], [], []
    play_meds: list[float] = []
    for rep in range(args.repeats):
        deal_meds.append(statistics.median(random_deal(s, rnd) for s in specs))
        runs = [random_game(f"bench-{rep}-{i}", rnd) for i in range(args.n // 3)]
        game_meds.append(statistics.median(t for t, _, _ in runs))
        play_meds.append(statistics.median(p for _, _, p in runs))
        deal_counts.append(statistics.mean(n for _, n, _ in runs))
        gen_meds.append(timed(lambda k: deal_for("gen", k), range(1, args.n + 1)))
        obs_meds.append(timed(Game("obs").observation, [s % 4 for s in range(args.n)]))

    def fmt(xs, scale=1e3, unit="ms"):
        lo, hi = min(xs) * scale, max(xs) * scale
        return f"{statistics.median(xs) * scale:8.3f} {unit} (repeats: min {lo:.3f}, max {hi:.3f})"

    clock = "wall clock" if args.wall else "CPU time"
    print(f"python {sys.version.split()[0]}, {args.repeats} x {args.n} items, medians, {clock}")
    print(f"full random deal (32 x legal_moves + play): {fmt(deal_meds)}   target <= 0.100 ms")
    deals = statistics.mean(deal_counts)
    print(f"random game to 101 (with dealing, ~{deals:.1f} deals): {fmt(game_meds)} target <= 2 ms")
    print(f"  of which legal_moves + play:               {fmt(play_meds)} target <= 2 ms")
    print(f"deal_for (HMAC shuffle + deal):            {fmt(gen_meds, 1e6, 'us')}")
    print(f"Game.observation(seat):                     {fmt(obs_meds, 1e6, 'us')}")


if __name__ == "__main__":
    main()
