"""Fit the card-location network (engine/bots/locnet.py) on expert self-play.

Two steps:

``record``: plays ``--deals`` deals with the expert in all four seats (the presets in
turn, flemish most often; the trump named by the expert on even deals, by the simple
rule on odd ones, as in the benchmark's fixed-trump matches) and writes each deal's
actions as one JSON line (seed, number, preset, actions): small, and every position can
be rebuilt from it with :class:`engine.Game`.

``fit``: replays the recorded deals; at every position of the card play, from each of
the four seats' views, the input is :func:`engine.bots.locnet.encode` of that seat's
observation and the target is the seat (relative: left, partner, right) that really
holds each card the viewer cannot see.  A one-hidden-layer network (ReLU) is fitted by
minibatch Adam in numpy on the cross-entropy of those seats, each card's three logits
masked by what the sampler already knows (a void, a hand with no room).  The deals are
split 80 / 20 into training and held-out data (by deal, so no position of a held-out
deal is seen in training); the held-out log-likelihood per hidden card is printed next to
a baseline close to the sampler's own (each card at the seats that may hold it in
proportion to their room).  Writes the weights to ``engine/bots/locnet.npz``.

Run: python bench/fit_locnet.py record --deals 600 --start 1 --out /tmp/loc-a.jsonl
     python bench/fit_locnet.py fit /tmp/loc-*.jsonl [--hidden 192 --epochs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Game, deal_for  # noqa: E402
from engine.bots import bot_seed, get_bot, locnet  # noqa: E402

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
            done = k - start + 1
            sys.stderr.write(f"\r{done}/{deals} deals  {time.time() - t0:.0f}s")
    sys.stderr.write("\n")


def positions(line: dict):
    """(inputs, targets, masks) of every play position of a recorded deal, all 4 views."""
    seed, k, rules = line["seed"], line["number"], line["rules"]
    spec = deal_for(seed, k, rules)
    g = Game(seed, rules, deals=lambda n, spec=spec: spec)
    for action in line["actions"]:
        if g.deal_number != 1 or g.is_terminal():
            break
        if g.phase == "play":
            hands = list(g.deal.hands)
            for seat in range(4):
                obs = g.observation(seat)
                enc = locnet.encode(obs)
                if enc is None:
                    continue
                idx, allowed, canon, need = enc
                target = np.full(32, -1, dtype=np.int8)
                for c in range(32):
                    if allowed[c]:
                        owner = next(s for s in range(4) if hands[s] >> c & 1)
                        target[canon[c]] = (owner - seat) % 4 - 1
                # the mask holds each allowed seat's room (its hidden cards still to
                # come), the baseline's share; > 0 = allowed
                mask = np.zeros((32, 3), dtype=np.int8)
                for c in range(32):
                    for r in range(3):
                        if allowed[c] >> r & 1:
                            mask[canon[c], r] = need[r]
                yield idx, target, mask
        g.apply_action(action)


def load(files: list[str]):
    deals = []
    for fn in files:
        with open(fn, encoding="utf-8") as f:
            deals += [json.loads(x) for x in f if x.strip()]
    deals.sort(key=lambda d: (d["seed"], d["number"]))
    return deals


def build(deals) -> tuple:
    rows_idx, rows_t, rows_m = [], [], []
    for d in deals:
        for idx, t, m in positions(d):
            rows_idx.append(idx)
            rows_t.append(t)
            rows_m.append(m)
    x = np.zeros((len(rows_idx), locnet.N_IN), dtype=np.float32)
    for i, idx in enumerate(rows_idx):
        x[i, idx] = 1.0
    return x, np.array(rows_t), np.array(rows_m)


def forward(p, x, mask):
    h = np.maximum(x @ p["w1"] + p["b1"], 0.0)
    z = (h @ p["w2"] + p["b2"]).reshape(len(x), 32, 3)
    z = np.where(mask > 0, z, -1e9)
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
            msg += f", held out {ll:.4f} (sampler {base:.4f})"
        print(msg, flush=True)
    return p


def check(
    files: list[str], positions_max: int, pool: int, betas: list[tuple[float, float]], whole: bool
) -> None:
    """Held-out check against the expert's own inference.

    At positions of the held-out deals (the last fifth; with ``whole`` every deal, for
    files recorded for the check, e.g. the expert against another bot, from the
    expert's seats): the mean log-likelihood per hidden card of where it really is,
    under the baseline (room share), the network, and the expert's inference pool
    (``pool`` deals drawn and weighted as the expert's blend does; the card's weighted
    share at each seat, mixed 9:1 with the baseline so that no seat has 0), with the
    network's weight ``beta`` in the draw and the play models' weights times ``alpha``
    (``betas``: (beta, alpha) pairs)."""
    from dataclasses import replace

    from engine.bots.base import decision_rng
    from engine.bots.inference import PlayModel
    from engine.bots.pimc import EXPERT, _policy_deals
    from engine.bots.sampler import analyse
    from engine.rules import get_rules

    deals = load(files)
    held = deals if whole else deals[len(deals) * 4 // 5 :]
    rng = np.random.default_rng(7)
    obs_list = []
    for d in held:
        spec = deal_for(d["seed"], d["number"], d["rules"])
        g = Game(d["seed"], d["rules"], deals=lambda n, spec=spec: spec)
        for action in d["actions"]:
            if g.deal_number != 1 or g.is_terminal():
                break
            if g.phase == "play" and rng.random() < 0.15:
                seat = int(rng.integers(4))
                if d.get("bots", ["expert"])[seat & 1] != "expert":
                    seat ^= 1  # the expert's view: it is the one that infers
                obs_list.append((g.observation(seat), list(g.deal.hands)))
            g.apply_action(action)
    obs_list = obs_list[:positions_max]
    sums = {"baseline": 0.0, "net": 0.0}
    sums.update({f"pool beta={b} alpha={a}": 0.0 for b, a in betas})
    n = 0
    for obs, hands in obs_list:
        enc = locnet.encode(obs)
        table = locnet.log_table(obs)
        if enc is None or table is None:
            continue
        _, allowed, _, need = enc
        rules = get_rules(obs.get("rules"))
        hidden = analyse(obs, rules)
        me = obs["seat"]
        pools = {}
        for b, a in betas:
            inf = replace(
                EXPERT.inference, loc_beta=b, alpha_opp=a * EXPERT.inference.alpha_opp,
                alpha_partner=a * EXPERT.inference.alpha_partner,
            )  # fmt: skip
            model = PlayModel(obs, rules, inf)
            if not model.informative and not b:
                pools[b, a] = None
                continue
            ds, ws = _policy_deals(
                obs, rules, hidden, model, inf, decision_rng(obs, b"check"), pool,
                hidden.enumerate_deals(pool),
            )  # fmt: skip
            pools[b, a] = (ds, ws)
        for c in range(32):
            if not allowed[c]:
                continue
            owner = next(s for s in range(4) if hands[s] >> c & 1)
            r = (owner - me) % 4 - 1
            room = [need[k] if allowed[c] >> k & 1 else 0 for k in range(3)]
            base = room[r] / sum(room)
            sums["baseline"] += np.log(base)
            sums["net"] += table[4 * c + owner]
            for b, a in betas:
                if pools[b, a] is None:
                    share = base
                else:
                    ds, ws = pools[b, a]
                    share = sum(w for h, w in zip(ds, ws, strict=True) if h[owner] >> c & 1) / sum(
                        ws
                    )
                sums[f"pool beta={b} alpha={a}"] += np.log(0.9 * share + 0.1 * base)
            n += 1
    print(f"# {len(obs_list)} held-out positions, {n} hidden cards; mean log-likelihood per card:")
    for k, v in sums.items():
        print(f"#   {k:22s} {v / n:.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--seed", default="locnet-1")
    r.add_argument("--start", type=int, default=1)
    r.add_argument("--deals", type=int, default=100)
    r.add_argument("--bot", default="expert")
    r.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--hidden", type=int, default=192)
    f.add_argument("--epochs", type=int, default=30)
    f.add_argument("--lr", type=float, default=2e-3)
    f.add_argument("--l2", type=float, default=1e-5)
    f.add_argument("--out", default=locnet.WEIGHTS)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="+")
    c.add_argument("--positions", type=int, default=600)
    c.add_argument("--pool", type=int, default=400)
    c.add_argument("--whole", action="store_true", help="every deal (files not used in fit)")
    c.add_argument("--betas", default="0:1,0.5:1,1:1,1:0,0.5:0.5", help="beta:alpha,...")
    args = ap.parse_args()
    if args.cmd == "check":
        pairs = [tuple(float(x) for x in ba.split(":")) for ba in args.betas.split(",")]
        check(args.files, args.positions, args.pool, pairs, args.whole)
        return
    if args.cmd == "record":
        record(args.seed, args.start, args.deals, args.out, args.bot)
        return
    t0 = time.process_time()
    deals = load(args.files)
    cut = len(deals) * 4 // 5
    x, t, mask = build(deals[:cut])
    xv, tv, mv = build(deals[cut:])
    print(f"# {len(deals)} deals: {len(x)} training positions, {len(xv)} held out", flush=True)
    p = fit(x, t, mask, args.hidden, args.epochs, args.lr, args.l2, 1, xv, tv, mv)
    ll, base, n = evaluate(p, xv, tv, mv)
    print(f"# held out: {n} hidden cards, log-likelihood per card {ll:.4f}, sampler's {base:.4f}")
    np.savez_compressed(args.out, **{k: v.astype(np.float32) for k, v in p.items()})
    print(f"# wrote {args.out}; CPU {time.process_time() - t0:.0f} s")


if __name__ == "__main__":
    main()
