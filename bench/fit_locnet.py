"""Fit the card-location network (engine/bots/locnet.py) on recorded deals.

The deals come from ``bench/inference_check.py record``: expert self-play, or the
expert against another bot (``--bots expert,heuristic``).  The network of 2026-12-04
was fitted with ``--hidden 64`` on deals of the expert of 2026-12-03
(``expert@2026-12-03`` now): 2,000 of self-play (seed locnet-2, numbers 1-1000 and
10001-11000), 300 against ismcts:20000 (locnet-2x, 1-300) and 500 against the heuristic
bot (locnet-2h, 1-500).  At every position of the card play, from each of the four
seats' views, the input is :func:`engine.bots.locnet.encode` of that seat's observation
and the target is the seat (relative: left, partner, right) that really holds each card
the viewer cannot see.  A one-hidden-layer network (ReLU) is fitted by minibatch Adam
in numpy on the cross-entropy of those seats; its output corrects the baseline, each
seat's share of the room (the hidden cards it still holds), and seats that cannot hold
a card (a void, no room) are masked.  Positions within a deal share their answer, so a
network this size learns the deals by heart within a few epochs: each training position
is repeated with the plain suits renamed at random (``--copies``, a symmetry of the
game), and every fifth deal is held out.  Prints the held-out log-likelihood per hidden
card next to the baseline's; writes the weights (float32) to
``engine/bots/locnet.npz``.  How much the network adds to the expert's own inference is
measured by ``bench/inference_check.py check`` (variants ``expert@loc*``).

Run: python bench/fit_locnet.py /tmp/self-*.jsonl [--hidden 64 --epochs 4 --copies 6] (the defaults)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from inference_check import load, replay  # noqa: E402

from engine.bots import locnet  # noqa: E402


def positions(line: dict):
    """(inputs, targets, masks) of every play position of a recorded deal, all 4 views."""
    for g, _ in replay(line):
        if g.phase != "play":
            continue
        hands = list(g.deal.hands)
        for seat in range(4):
            enc = locnet.encode(g.observation(seat))
            if enc is None:
                continue
            idx, allowed, canon, need = enc
            target = np.full(32, -1, dtype=np.int8)
            # the mask holds each allowed seat's room (its hidden cards still to come):
            # the baseline's share, which the network corrects; > 0 = allowed
            mask = np.zeros((32, 3), dtype=np.int8)
            for c in range(32):
                if not allowed[c]:
                    continue
                owner = next(s for s in range(4) if hands[s] >> c & 1)
                target[canon[c]] = (owner - seat) % 4 - 1
                for r in range(3):
                    if allowed[c] >> r & 1:
                        mask[canon[c], r] = need[r]
            yield idx, target, mask


def _suit_perms(no_trump: bool) -> list[list[int]]:
    """Renamings of the canonical suits that leave the game the same: the three plain
    suits among themselves (all four in a no-trump deal)."""
    from itertools import permutations

    if no_trump:
        return [list(p) for p in permutations(range(4))]
    return [[0, *p] for p in permutations((1, 2, 3))]


def build(deals, copies: int = 1, seed: int = 0) -> tuple:
    """Dense inputs, targets and masks; ``copies`` > 1 adds that many copies of every
    position with the suits renamed at random (a symmetry of the game)."""
    rng = np.random.default_rng(seed)
    rows_idx, rows_t, rows_m = [], [], []
    for d in deals:
        for idx, t, m in positions(d):
            no_trump = locnet.NO_TRUMP in idx
            perms = _suit_perms(no_trump)
            chosen = [list(range(4))]
            if copies > 1:
                more = rng.choice(len(perms), size=copies - 1, replace=False)
                chosen += [perms[int(j)] for j in more]
            for perm in chosen:
                card = [perm[c >> 3] * 8 + (c & 7) for c in range(32)]
                rows_idx.append(
                    [(i // 32) * 32 + card[i % 32] if i < locnet.DEALER else i for i in idx]
                )
                t2 = np.full(32, -1, dtype=np.int8)
                m2 = np.zeros((32, 3), dtype=np.int8)
                t2[card] = t
                m2[card] = m
                rows_t.append(t2)
                rows_m.append(m2)
    x = np.zeros((len(rows_idx), locnet.N_IN), dtype=np.float32)
    for i, idx in enumerate(rows_idx):
        x[i, idx] = 1.0
    return x, np.array(rows_t), np.array(rows_m)


def forward(p, x, mask):
    h = np.maximum(x @ p["w1"] + p["b1"], 0.0)
    z = (h @ p["w2"] + p["b2"]).reshape(len(x), 32, 3)
    # the network corrects the baseline: log(room of the seat) + its output
    z = np.where(mask > 0, z + np.log(np.maximum(mask, 1)), -1e9)
    z = z - z.max(axis=2, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=2, keepdims=True))
    return h, logp


def loss_grad(p, x, t, mask, l2):
    h, logp = forward(p, x, mask)
    valid = t >= 0
    n = max(1, int(valid.sum()))
    tt = np.where(valid, t, 0)
    picked = np.take_along_axis(logp, tt[..., None].astype(np.int64), axis=2)[..., 0]
    loss = -(picked * valid).sum() / n
    g = np.exp(logp)
    onehot = np.zeros_like(g)
    np.put_along_axis(onehot, tt[..., None].astype(np.int64), 1.0, axis=2)
    g = (g - onehot) * valid[..., None] / n
    g = g.reshape(len(x), 96).astype(np.float32)
    grads = {"w2": h.T @ g + l2 * p["w2"], "b2": g.sum(0)}
    dh = (g @ p["w2"].T) * (h > 0)
    grads["w1"] = x.T @ dh + l2 * p["w1"]
    grads["b1"] = dh.sum(0)
    return loss, grads


def evaluate(p, x, t, mask) -> tuple[float, float, int]:
    """(net's mean log-likelihood per hidden card, the sampler's, cards)."""
    tot = base = 0.0
    n = 0
    for i in range(0, len(x), 4096):
        _, logp = forward(p, x[i : i + 4096], mask[i : i + 4096])
        tt = t[i : i + 4096]
        valid = tt >= 0
        picked = np.take_along_axis(
            logp, np.where(valid, tt, 0)[..., None].astype(np.int64), axis=2
        )
        tot += float((picked[..., 0] * valid).sum())
        mk = mask[i : i + 4096].astype(np.float64)
        share = mk / mk.sum(axis=2, keepdims=True).clip(1)
        pb = np.take_along_axis(share, np.where(valid, tt, 0)[..., None].astype(np.int64), axis=2)[
            ..., 0
        ]
        base += float((np.log(np.where(valid, pb, 1.0))).sum())
        n += int(valid.sum())
    return tot / n, base / n, n


def fit(
    x, t, mask, hidden: int, epochs: int, lr: float, l2: float, seed: int, xv=None, tv=None, mv=None
):
    rng = np.random.default_rng(seed)
    p = {
        "w1": (rng.standard_normal((locnet.N_IN, hidden)) * np.sqrt(2.0 / 40)).astype(np.float32),
        "b1": np.zeros(hidden, dtype=np.float32),
        "w2": (rng.standard_normal((hidden, 96)) * np.sqrt(1.0 / hidden)).astype(np.float32),
        "b2": np.zeros(96, dtype=np.float32),
    }
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    step = 0
    batch = 512
    for ep in range(epochs):
        order = rng.permutation(len(x))
        rate = lr * (0.5 * (1 + np.cos(np.pi * ep / epochs)))  # cosine decay
        tot = 0.0
        for i in range(0, len(x), batch):
            b = order[i : i + batch]
            loss, g = loss_grad(p, x[b], t[b], mask[b], l2)
            tot += loss * len(b)
            step += 1
            for k in p:
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k]
                mh = m[k] / (1 - 0.9**step)
                vh = v[k] / (1 - 0.999**step)
                p[k] -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        msg = f"epoch {ep + 1}/{epochs}: train loss {tot / len(x):.4f}"
        if xv is not None:
            ll, base, _ = evaluate(p, xv, tv, mv)
            msg += f", held out {ll:.4f} (baseline {base:.4f})"
        print(msg, flush=True)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("files", nargs="+", help="deals recorded by bench/inference_check.py")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--copies", type=int, default=6, help="suit-renamed copies of a position")
    ap.add_argument("--out", default=locnet.WEIGHTS)
    args = ap.parse_args()
    t0 = time.process_time()
    deals = load(args.files)
    # every fifth deal held out (of each seed and opponent alike)
    train = [d for i, d in enumerate(deals) if i % 5 != 4]
    held = [d for i, d in enumerate(deals) if i % 5 == 4]
    x, t, mask = build(train, args.copies)
    xv, tv, mv = build(held)
    print(f"# {len(deals)} deals: {len(x)} training positions, {len(xv)} held out", flush=True)
    p = fit(x, t, mask, args.hidden, args.epochs, args.lr, args.l2, 1, xv, tv, mv)
    ll, base, n = evaluate(p, xv, tv, mv)
    print(f"# held out: {n} hidden cards, log-likelihood per card {ll:.4f}, baseline {base:.4f}")
    np.savez_compressed(args.out, **{k: v.astype(np.float32) for k, v in p.items()})
    print(f"# wrote {args.out}; CPU {time.process_time() - t0:.0f} s")


if __name__ == "__main__":
    main()
