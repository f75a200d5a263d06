#!/usr/bin/env python
"""Rankings speed against the tournaments targets.

Targets (tournaments issue): rankings with travellers for a day list of 10,000 entries
x 40 deals in <= 2 s; the update after one finished entry in a 10-entry tournament
<= 50 ms.

(a) In memory. The pure numpy functions are tournaments.scoring.matchpoints, neuberg,
    percentage and standings_order (no Django). tournaments.rankings.recompute calls
    them inside an ORM transaction; the bench reproduces recompute's in-memory work
    (per-deal matchpoints + Neuberg on card_points[0], per-entry accumulation, rounding,
    change detection, score matchpoints, percentage, standings order) on plain objects,
    in the exact argument forms recompute passes (Python lists of floats/ints).
    Timed two ways: "numpy calls only" and "full in-memory pipeline".
(b) Database. tournaments.rankings.recompute (what the Celery task
    tournaments.tasks.recompute_rankings runs) for a 10-entry tournament in a throwaway
    SQLite file (embedded default settings, SQLITE_PATH pointed at a temp file).

Median of 5 repeats, time.process_time and wall (time.perf_counter).

    .venv/bin/python bench/rankings.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments import scoring  # noqa: E402  (pure numpy, no Django)

SEED = 20261130
REPEATS = 5
TARGET_BIG_S = 2.0
TARGET_SMALL_S = 0.050


class Row:  # stands in for a DealResult row
    __slots__ = ("entry_id", "number", "card_points", "matchpoints", "neuberg")

    def __init__(self, entry_id, number, card_points):
        self.entry_id, self.number, self.card_points = entry_id, number, card_points
        self.matchpoints = self.neuberg = None


class Ent:  # stands in for an Entry row
    __slots__ = ("pk", "score", "deals_played", "rank", "matchpoints", "matchpoints_pct",
                 "deal_matchpoints")

    def __init__(self, pk, score, deals_played):
        self.pk, self.score, self.deals_played = pk, score, deals_played
        self.rank = self.matchpoints = self.matchpoints_pct = self.deal_matchpoints = None


def synth(n_entries: int, max_deals: int, seed: int = SEED):
    """Entries with scores; ~20% play fewer deals (1..max_deals-1). Card points 0..60."""
    rng = np.random.default_rng(seed)
    deals = np.full(n_entries, max_deals)
    short = rng.random(n_entries) < 0.2
    deals[short] = rng.integers(1, max_deals, short.sum())
    entries, by_deal = [], defaultdict(list)
    for pk in range(1, n_entries + 1):
        d = int(deals[pk - 1])
        cps = rng.integers(0, 61, d)
        for k in range(1, d + 1):
            wij = int(cps[k - 1])
            by_deal[k].append(Row(pk, k, [wij, 60 - wij]))
        entries.append(Ent(pk, int(rng.integers(-40, 41)), d))
    # recompute orders results by ("number", "entry_id"): already so.
    return entries, dict(sorted(by_deal.items()))


def reset(entries, by_deal):
    for rows in by_deal.values():
        for r in rows:
            r.matchpoints = r.neuberg = None


def numpy_only(entries, by_deal):
    """Only the scoring.* calls, with inputs pre-extracted (lists as recompute builds)."""
    field = len(entries)
    scores = [e.score or 0 for e in entries]
    deal_inputs = [[r.card_points[0] for r in rows] for rows in by_deal.values()]
    played = [e.deals_played for e in entries]
    t0, c0 = time.perf_counter(), time.process_time()
    mp = scoring.matchpoints(scores)
    scoring.percentage(mp, field)
    for cp in deal_inputs:
        scoring.neuberg(scoring.matchpoints(cp), field)
    totals = [0.0] * field  # totals computed in the full pipeline; same cost to sort
    scoring.standings_order(scores, totals, played)
    return time.perf_counter() - t0, time.process_time() - c0


def pipeline(entries, by_deal):
    """recompute()'s in-memory part, line for line, without the ORM."""
    t0, c0 = time.perf_counter(), time.process_time()
    field = len(entries)
    scores = [e.score or 0 for e in entries]
    mp = scoring.matchpoints(scores)
    pct = scoring.percentage(mp, field)
    deal_total = defaultdict(float)
    changed = []
    for rows in by_deal.values():
        deal_mp = scoring.matchpoints([r.card_points[0] for r in rows])
        scaled = scoring.neuberg(deal_mp, field)
        for r, m, s in zip(rows, deal_mp.tolist(), scaled.tolist(), strict=True):
            deal_total[r.entry_id] += s
            if (r.matchpoints, r.neuberg) != (m, round(s, 4)):
                r.matchpoints, r.neuberg = m, round(s, 4)
                changed.append(r)
    totals = [round(deal_total[e.pk], 4) for e in entries]
    _, ranks = scoring.standings_order(scores, totals, [e.deals_played for e in entries])
    for i, e in enumerate(entries):
        e.rank = ranks[i]
        e.matchpoints = float(mp[i])
        e.matchpoints_pct = round(float(pct[i]), 2)
        e.deal_matchpoints = totals[i]
    return time.perf_counter() - t0, time.process_time() - c0, len(changed)


def med(samples):
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def bench_memory(n, deals):
    entries, by_deal = synth(n, deals)
    n_results = sum(len(v) for v in by_deal.values())
    np_s = [numpy_only(entries, by_deal) for _ in range(REPEATS)]
    cold, warm = [], []
    for _ in range(REPEATS):
        reset(entries, by_deal)
        cold.append(pipeline(entries, by_deal))  # every row "changed" (first run)
        warm.append(pipeline(entries, by_deal))  # nothing changed (re-run)
    return n_results, med(np_s), med(cold), med(warm)


def bench_db(n_entries=10, deals=40):
    tmp = tempfile.mkdtemp(prefix="rankings-bench-")
    os.environ["SQLITE_PATH"] = str(Path(tmp) / "bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    from game.models import Game
    from tournaments import rankings
    from tournaments.models import DealResult, Entry, Tournament, TournamentDeal

    User = get_user_model()
    rng = np.random.default_rng(SEED)
    t = Tournament.objects.create(name="bench", seed="bench-seed", seed_commitment="x" * 64,
                                  capacity=n_entries, status="open")
    for k in range(1, deals + 1):
        TournamentDeal.objects.create(tournament=t, number=k, dealer=k % 4,
                                      hands=[[], [], [], []])
    results = []
    entries = []
    for i in range(n_entries):
        u = User.objects.create(username=f"bench{i}")
        g = Game.objects.create(owner=u, seed=f"g{i}")
        d = deals if i % 4 else int(rng.integers(1, deals))
        e = Entry.objects.create(tournament=t, player=u, game=g, status="finished",
                                 score=int(rng.integers(-40, 41)), deals_played=d)
        entries.append(e)
        for k in range(1, d + 1):
            wij = int(rng.integers(0, 61))
            results.append(DealResult(entry=e, number=k, dealer=k % 4, card_points=[wij, 60 - wij],
                                      written=[0, 0]))
    DealResult.objects.bulk_create(results)

    def run():
        t0, c0 = time.perf_counter(), time.process_time()
        rankings.recompute(t.pk)
        return time.perf_counter() - t0, time.process_time() - c0

    first = run()  # fills par for every deal (engine bots) and every row changes
    steady = [run() for _ in range(REPEATS)]  # nothing changed
    # "one finished entry": change one entry's score and a deal result, then recompute
    upd = []
    for j in range(REPEATS):
        e = entries[j % n_entries]
        Entry.objects.filter(pk=e.pk).update(score=int(rng.integers(-40, 41)))
        DealResult.objects.filter(entry=e, number=1).update(card_points=[int(rng.integers(0, 61)), 0])
        upd.append(run())
    return first, med(steady), med(upd), len(results)


def verdict(x, target):
    return "MEETS" if x <= target else "MISSES"


def main():
    out = []
    p = out.append
    p("# Rankings speed, 2026-11-30\n")
    p("`.venv/bin/python bench/rankings.py` — median of 5 repeats; wall = perf_counter, "
      "cpu = process_time. Seed %d; card points 0..60 uniform, scores -40..40; ~20%% of "
      "entries play fewer deals.\n" % SEED)
    p("Pure functions: `tournaments/scoring.py` (`matchpoints`, `neuberg`, `percentage`, "
      "`standings_order`) are numpy-only and separable. `tournaments.rankings.recompute` "
      "(run by Celery task `tournaments.tasks.recompute_rankings`) wraps them in an ORM "
      "transaction; its Python glue (per-row zip/round/compare/accumulate) is reproduced "
      "here on plain objects as the \"full in-memory pipeline\".\n")
    p("Wall figures are noisy on this shared host (wall often well above cpu even for "
      "pure numpy); an earlier run on the same day gave 10,000 × 40 full pipeline "
      "1216 / 939 ms wall and the 10-entry DB re-run / update 87 / 85 ms wall (cpu "
      "41 / 46 ms). Read cpu as the steadier figure.\n")
    p("## (a) In memory\n")
    p("| entries × deals | results | part | wall ms | cpu ms | target | verdict |")
    p("|---|---|---|---|---|---|---|")
    for n, d, target in ((10_000, 40, TARGET_BIG_S), (10, 40, TARGET_SMALL_S)):
        n_res, np_m, cold, warm = bench_memory(n, d)
        for label, (w, c) in (("numpy calls only", np_m),
                              ("full pipeline, all rows changed", cold[:2]),
                              ("full pipeline, no row changed", warm[:2])):
            line = (f"| {n:,} × {d} | {n_res:,} | {label} | {w*1e3:.2f} | {c*1e3:.2f} | "
                    f"≤ {target*1e3:.0f} ms | {verdict(w, target)} |")
            p(line)
            print(line, flush=True)
    p("")
    p("## (b) Database: `rankings.recompute` (the Celery task body), 10 entries × 40 deals\n")
    try:
        first, steady, upd, n_res = bench_db()
        p(f"Throwaway SQLite file, embedded default settings, {n_res} deal results; "
          "includes transaction, row lock, reads, bulk_update, version bump and the "
          "on-commit standings push to the in-memory channel layer.\n")
        p("| run | wall ms | cpu ms | target | verdict |")
        p("|---|---|---|---|---|")
        for label, (w, c) in (("first run (fills par for 40 deals with the engine bots)", first),
                              ("re-run, nothing changed", steady),
                              ("after one entry's score/deal changed", upd)):
            line = f"| {label} | {w*1e3:.2f} | {c*1e3:.2f} | ≤ 50 ms | {verdict(w, TARGET_SMALL_S)} |"
            p(line)
            print(line, flush=True)
        p("\nThe first run is a one-off per deal (par is stored); later updates skip it.")
        p("\nWhere the steady-state time goes (one-off cProfile of a re-run, ~75 ms "
          "under the profiler, not a measured figure): ORM reads ~35 ms (the ~355 "
          "DealResult rows are loaded with every column, so ~1,400 JSON decodes of "
          "card_points/written/tricks/actions; here tricks/actions are empty, real rows "
          "carry whole deals, so production will be slower), the Entry bulk_update and "
          "the two .update() calls ~25 ms (building CASE WHEN expressions), commit ~10 ms, "
          "the on-commit push_standings ~4-9 ms. The numpy scoring is ~1 ms of it. "
          "Wall is about twice cpu: SQLite commit / fsync waits on this disk.")
    except Exception as exc:  # report, do not hide
        msg = f"Database part failed: {type(exc).__name__}: {exc}"
        p(msg)
        print(msg, flush=True)
    p("\nNot measured: recompute against the database for the 10,000-entry day list "
      "(~360,000 DealResult rows loaded and bulk-updated through the ORM; given ~35 ms "
      "of ORM read for 380 rows, the in-memory figure above is a lower bound only and "
      "the 2 s target is not shown to be met end to end).")
    p("\nAlso not measured: rendering travellers (`rankings.traveller`, one ORM query per deal) "
      "and the standings push to real Redis/PostgreSQL; the 2 s target's \"with "
      "travellers\" is covered here only as the per-deal Neuberg computation that fills them.")
    path = ROOT / "bench" / "results" / "rankings-2026-11-30.md"
    path.write_text("\n".join(out) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
