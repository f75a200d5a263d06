"""Compare two bench/bots.py runs on the same deals, deal by deal (paired).

Both runs must have used the same seed, rules and deal numbers, each with ``--dump``.
When A and B are two versions of one bot measured against the same deterministic
opponent, many deals are played identically by both, so the paired difference has a
much narrower interval than the two runs' own intervals.

Run: python bench/pair.py new.jsonl old.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import statistics


def load(path: str) -> dict[int, dict]:
    with open(path, encoding="utf-8") as f:
        return {r["deal"]: r for r in map(json.loads, f) if r}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise SystemExit("fewer than two deals in common: same seed and deal numbers?")
    for key in ("points", "written"):
        d = [a[k][key] - b[k][key] for k in common]
        m = statistics.mean(d)
        half = 1.96 * statistics.stdev(d) / math.sqrt(len(d))
        same = sum(1 for x in d if x == 0)
        print(
            f"{key}: A − B {m:+.2f} per deal [{m - half:+.2f}, {m + half:+.2f}] over "
            f"{len(d)} deals ({same} scored the same); "
            f"A {statistics.mean(a[k][key] for k in common):+.2f}, "
            f"B {statistics.mean(b[k][key] for k in common):+.2f}"
        )


if __name__ == "__main__":
    main()
