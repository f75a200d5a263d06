"""Fit the dealer's trump table used by the PIMC bots (engine/bots/trump_table.py).

For random deals, the double-dummy card points of the dealer's side under each trump
option (four suits, no trump) are regressed on features of the dealer's 8 cards alone
(:func:`engine.bots.trump_table.features`).  Run:

    python bench/fit_trump.py --deals 2000 --out /tmp/trump-data.json   # solve (slow)
    python bench/fit_trump.py --fit /tmp/trump-data.json               # print coefficients
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import deal_for, get_rules  # noqa: E402
from engine.solver import solve_value  # noqa: E402


def solve(deals: int, seed: str, out: str, start: int = 1) -> None:
    rules = get_rules("flemish")
    rows = []
    for k in range(start, start + deals):
        spec = deal_for(seed, k, rules)
        hands = [sum(1 << c for c in h) for h in spec.hands]
        dealer = spec.dealer
        leader = (dealer + rules.direction) % 4
        side = dealer & 1
        vals = {}
        for opt in ("S", "H", "D", "C", "none"):
            trump = None if opt == "none" else "SHDC".index(opt)
            v = solve_value(hands, trump, leader, (), rules)
            vals[opt] = v if (leader & 1) == side else 60 - v
        rows.append({"hand": hands[dealer], "points": vals})
        if k % 50 == 0:
            with open(out, "w") as f:
                json.dump(rows, f)
            print(k, file=sys.stderr, flush=True)
    with open(out, "w") as f:
        json.dump(rows, f)


def fit(path: str) -> None:
    import numpy as np

    from engine.bots import trump_table as table
    from engine.bots.trump_table import features

    rows = json.load(open(path))
    n = len(rows)
    split = int(n * 0.8)
    for kind in ("suit", "none"):
        X, y = [], []
        for r in rows:
            opts = ("S", "H", "D", "C") if kind == "suit" else ("none",)
            for opt in opts:
                trump = None if opt == "none" else "SHDC".index(opt)
                X.append(features(r["hand"], trump))
                y.append(r["points"][opt])
        X, y = np.array(X, float), np.array(y, float)
        per = 4 if kind == "suit" else 1
        cut = split * per
        coef, *_ = np.linalg.lstsq(X[:cut], y[:cut], rcond=None)
        pred = X[cut:] @ coef
        resid = y[cut:] - pred
        r2 = 1 - resid.var() / y[cut:].var()
        print(kind, "n", len(y), f"holdout R2 {r2:.3f} rmse {resid.std():.2f}")
        coef_all, *_ = np.linalg.lstsq(X, y, rcond=None)
        fitted = tuple(round(float(c), 3) for c in coef_all)
        print(kind.upper(), "=", fitted)
        # evaluate the choices below with the coefficients fitted on the training part
        setattr(table, kind.upper(), tuple(float(c) for c in coef))
    # choice quality on the holdout: regret of the table's choice vs the best option
    from engine.bots.heuristic import HeuristicBot
    from engine.bots.trump_table import predict
    from engine.cards import mask_texts

    legal = ["trump:S", "trump:H", "trump:D", "trump:C", "trump:none"]
    heur = HeuristicBot()
    reg = {"table (points)": [], "table (written)": [], "heuristic": []}
    wreg = {"table (points)": [], "table (written)": [], "heuristic": []}

    def heur_obs(hand):
        return {
            "seat": 0, "hand": mask_texts(hand), "legal": legal, "tricks": [], "trump": None,
            "current_trick": {"cards": []},
        }  # fmt: skip

    def written(pts, opt):
        return (2 if opt == "none" else 1) * (pts[opt] - 30)

    for r in rows[split:]:
        pts = r["points"]
        opts = ("S", "H", "D", "C", "none")
        best = max(pts.values())
        wbest = max(written(pts, o) for o in opts)
        choices = {
            "table (points)": max(opts, key=lambda o: predict(r["hand"], o, written=False)),
            "table (written)": max(
                opts, key=lambda o: predict(r["hand"], o, multiplier=2 if o == "none" else 1)
            ),
            "heuristic": heur._trump(heur_obs(r["hand"]))[6:],
        }
        for name, c in choices.items():
            reg[name].append(best - pts[c])
            wreg[name].append(wbest - written(pts, c))
    for name in reg:
        mean_c, mean_w = sum(reg[name]) / len(reg[name]), sum(wreg[name]) / len(wreg[name])
        print(f"holdout regret of {name}: {mean_c:.2f} card points, {mean_w:.2f} written")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--seed", default="fit-trump")
    ap.add_argument("--out", default="/tmp/trump-data.json")
    ap.add_argument("--fit")
    a = ap.parse_args()
    if a.fit:
        fit(a.fit)
    else:
        solve(a.deals, a.seed, a.out, a.start)
