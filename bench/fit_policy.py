"""Fit the card-play policy model (engine/bots/policy.py) on expert self-play.

Plays ``--deals`` deals with the expert in all four seats (presets in turn), records at
every play decision with a choice the features of each legal card
(``engine.bots.policy.features``, from the player's own view: his hand, the trick, the
cards he has not seen) and the card the expert chose, then fits a linear softmax
(multinomial logit with a little L2) by full-batch gradient descent (Adam, numpy).
Prints the held-out log-likelihood and accuracy next to the uniform and
heuristic-bot baselines, and the coefficients to paste into ``policy.py``.

Run: python bench/fit_policy.py --deals 200 --seed fit-policy-1 [--bot expert]
(``--records FILES``: the decisions of deals recorded by ``bench/inference_check.py
record`` instead of playing new ones)
(``--bot expert,ismcts:20000``: the expert's team against the other bot's, both recorded)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Game, deal_for  # noqa: E402
from engine.bots import View, bot_seed, get_bot  # noqa: E402
from engine.bots.policy import NAMES, features  # noqa: E402
from engine.cards import CARD_BY_TEXT  # noqa: E402

PRESETS = ("flemish", "flemish", "flemish-table", "french", "malilla")


def _row(obs: dict, action: str, heur):
    """(features of each legal card, the chosen card's index, the heuristic's index) of a
    play decision with a choice, from the player's own view."""
    v = View(obs)
    unseen = v.unseen  # not in his hand, not played (the table included)
    legal = [CARD_BY_TEXT[t] for t in obs["legal"]]
    x = [features(v.hand, v.trick, v.trump, unseen, obs["seat"], c) for c in legal]
    h = heur.act(obs, b"")
    return np.array(x), legal.index(CARD_BY_TEXT[action]), obs["legal"].index(h)


def record(seed: str, deals: int, bot_name: str):
    """``bot_name``: one bot in all four seats, or ``A,B``: A's team against B's, the
    teams' seats swapped every other deal (both sides' decisions are recorded)."""
    names = bot_name.split(",")
    bots = [get_bot(n) for n in names]
    heur = get_bot("heuristic")
    rows = []  # (features [n_legal x F], chosen index, heuristic's index)
    for k in range(1, deals + 1):
        rules = PRESETS[k % len(PRESETS)]
        spec = deal_for(seed, k, rules)
        g = Game(seed, rules, deals=lambda n, spec=spec: spec)
        while g.deal_number == 1 and not g.is_terminal():
            seat = g.to_move
            obs = g.observation(seat)
            bot = bots[((seat & 1) + k) % len(bots)]
            action = bot.act(obs, bot_seed(seed, k, seat))
            if obs["phase"] == "play" and len(obs["legal"]) > 1:
                rows.append(_row(obs, action, heur))
            g.apply_action(action)
        sys.stderr.write(f"\r{k}/{deals} deals, {len(rows)} decisions")
    sys.stderr.write("\n")
    return rows


def from_records(files: list[str], bot: str = "expert"):
    """The same rows from deals recorded by ``bench/inference_check.py record`` (the
    decisions of the seats ``bot`` played), without playing them again."""
    from inference_check import load, replay

    heur = get_bot("heuristic")
    rows = []
    for d in load(files):
        bots = d.get("bots", ["expert", "expert"])
        for g, action in replay(d):
            seat = g.to_move
            if g.phase != "play" or bots[seat & 1] != bot:
                continue
            obs = g.observation(seat)
            if len(obs["legal"]) > 1:
                rows.append(_row(obs, action, heur))
    return rows


def nll(coef, rows, l2=0.0):
    total, grad = 0.0, np.zeros_like(coef)
    for x, y, _ in rows:
        s = x @ coef
        s -= s.max()
        p = np.exp(s)
        p /= p.sum()
        total -= np.log(p[y])
        grad += x.T @ p - x[y]
    n = len(rows)
    return total / n + l2 * coef @ coef, grad / n + 2 * l2 * coef


def fit(rows, steps: int = 400, lr: float = 0.05, l2: float = 1e-3):
    coef = np.zeros(len(NAMES))
    m = np.zeros_like(coef)
    v = np.zeros_like(coef)
    for t in range(1, steps + 1):
        _, g = nll(coef, rows, l2)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        coef -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return coef


def evaluate(coef, rows):
    ll = acc = unif = heur = 0.0
    for x, y, h in rows:
        s = x @ coef
        s -= s.max()
        p = np.exp(s)
        p /= p.sum()
        ll += np.log(p[y])
        acc += int(np.argmax(p)) == y
        unif += -np.log(len(p))
        heur += h == y
    n = len(rows)
    return ll / n, acc / n, unif / n, heur / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", default="fit-policy-1")
    ap.add_argument("--bot", default="expert")
    ap.add_argument(
        "--records", nargs="*", help="fit on these recorded deals (bench/inference_check.py)"
    )
    args = ap.parse_args()
    t0 = time.process_time()
    if args.records:
        rows = from_records(args.records, args.bot)
    else:
        rows = record(args.seed, args.deals, args.bot)
    cut = len(rows) * 4 // 5
    train, test = rows[:cut], rows[cut:]
    coef = fit(train)
    ll, acc, unif, heur = evaluate(coef, test)
    if args.records:
        print(f"# {args.bot}'s decisions in {', '.join(args.records)}: {len(rows)}")
    else:
        seed = args.seed
        print(f"# {args.bot} self-play, {args.deals} deals (seed {seed!r}), {len(rows)} decisions")
    print(f"# held out ({len(test)}): log-likelihood per decision {ll:.3f} (uniform {unif:.3f}),")
    print(f"# model's top card = {args.bot}'s {acc:.1%}; the heuristic bot's card {heur:.1%}")
    coef = fit(rows)  # final: all data
    print("COEF = (" + ", ".join(f"{c:.3f}" for c in coef) + ")")
    for name, c in zip(NAMES, coef, strict=True):
        print(f"#   {name:20s} {c:+.3f}")
    print(f"# CPU {time.process_time() - t0:.0f} s")


if __name__ == "__main__":
    main()
