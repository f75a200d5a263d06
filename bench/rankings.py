#!/usr/bin/env python
"""Rankings speed against the tournaments targets.

Targets (tournaments issue #4): rankings with travellers for a day list of 10,000
entries x 40 deals in <= 2 s; the update after one finished entry in a 10-entry
tournament <= 50 ms.

(a) In memory: tournaments.scoring.rank, the pure function (plain arrays in, every
    figure out) that the rankings task calls; no Django.
(b) Database, 10 entries x 40 deals, on SQLite (embedded default settings, a throwaway
    file) and on PostgreSQL: tournaments.rankings.recompute (the body of the Celery task
    tournaments.tasks.recompute_rankings) after one entry finished, i.e. its deal
    results were inserted and its status set, as tournaments.actions does; then the
    task runs. Deal results are realistic: each is a real play of the tournament's deal
    by the engine's bots (tricks and actions JSON as stored by the game hook).
(c) PostgreSQL, the day list: 10,000 entries x 40 deals (~360,000 such deal results),
    the same update end to end, what it is made of, and serving the result (standings,
    one traveller, the compare page's field and the 40 travellers as the pages and
    exports read them). `--only-daylist` runs this part alone.

The PostgreSQL parts use a database of their own (--pg, created and dropped here) and,
with --redis, channels_redis for the standings push (one listener in the group, so the
message is really sent). Each database part runs in a child process of its own.

Wall = time.perf_counter, cpu = time.process_time of this process; "db cpu" is the
PostgreSQL backend's CPU (from /proc, same machine, 10 ms ticks, mean per run).
Medians over repeats.

    .venv/bin/python bench/rankings.py
    .venv/bin/python bench/rankings.py --pg postgres://postgres@127.0.0.1:5432/manillen_h2bench \\
        --redis redis://127.0.0.1:6379/12
    .venv/bin/python bench/rankings.py --only-daylist --big-repeats 3 --redis ...
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments import scoring  # noqa: E402  (pure numpy, no Django)

SEED = 20261130
TARGET_BIG_S = 2.0
TARGET_SMALL_S = 0.050
DEALS = 40
VARIANTS = 24  # distinct bot plays per deal that entries draw from
PARTS = ("read", "rank", "write", "commit", "push")


# --- synthetic and realistic fields ------------------------------------------------------


def synth_arrays(n_entries: int, max_deals: int, seed: int = SEED):
    """scoring.rank's inputs: ~20% of entries play fewer deals; card points 0..60."""
    rng = np.random.default_rng(seed)
    deals = np.full(n_entries, max_deals)
    short = rng.random(n_entries) < 0.2
    deals[short] = rng.integers(1, max_deals, short.sum())
    entry = np.repeat(np.arange(n_entries), deals)
    deal = np.concatenate([np.arange(1, d + 1) for d in deals])
    points = rng.integers(0, 61, entry.size)
    scores = rng.integers(-40, 41, n_entries)
    return scores.tolist(), deals.tolist(), entry, deal.tolist(), points.tolist()


def play_pool(seed: str, rules: str, deals: int, variants: int) -> dict[int, list[dict]]:
    """Per deal number, `variants` real plays of the tournament's deal by the bots
    (random and heuristic, differently seeded), as DealResult fields."""
    import engine
    from engine.bots import bot_seed, get_bot

    bots = [get_bot("random"), get_bot("heuristic")]
    pool: dict[int, list[dict]] = {}
    for k in range(1, deals + 1):
        spec = engine.deal_for(seed, k, rules)
        plays = []
        for v in range(variants):
            g = engine.Game(
                seed,
                rules,
                deals=lambda n, k=k, spec=spec: (
                    spec if n == 1 else engine.deal_for(seed, k + n - 1, rules)
                ),
            )
            deal, actions, bot = g.deal, [], bots[v % 2]
            while deal.result is None:
                seat = g.to_move
                obs = g.observation(seat)
                obs["deal_number"] = k
                action = bot.act(obs, bot_seed(f"{seed}/{v}", k, seat))
                g.apply_action(action)
                actions.append(action)
            res = deal.result.to_dict()
            plays.append(
                {
                    "dealer": res["dealer"],
                    "trump": res["trump"] or "",
                    "no_trump": res["no_trump"],
                    "card_points": res["card_points"],
                    "multiplier": res["multiplier"],
                    "written": res["written"],
                    "tricks": [t.to_dict() for t in deal.tricks],
                    "actions": actions,
                }
            )
        pool[k] = plays
    return pool


def entry_plan(n_entries: int, pool, rng) -> list[list[dict]]:
    """Each entry: its deals 1..d (20% stop early), each a play drawn from the pool."""
    plan = []
    for _ in range(n_entries):
        d = DEALS if rng.random() >= 0.2 else int(rng.integers(1, DEALS))
        plan.append([pool[k][int(rng.integers(len(pool[k])))] for k in range(1, d + 1)])
    return plan


def score_of(plays: list[dict]) -> int:
    return sum(p["written"][0] - p["written"][1] for p in plays)


# --- timing helpers ----------------------------------------------------------------------


class Clock:
    """Wall, this process's CPU and (PostgreSQL) the backend's CPU."""

    def __init__(self, backend_pid: int | None):
        self.pid = backend_pid

    def stamp(self) -> tuple[float, float, float]:
        db = 0.0
        if self.pid is not None:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            db = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return time.perf_counter(), time.process_time(), db

    @contextlib.contextmanager
    def __call__(self, into: list):
        start = self.stamp()
        yield
        into.append(tuple(b - a for a, b in zip(start, self.stamp(), strict=True)))


def summary(samples: list[tuple[float, float, float]]) -> dict:
    return {
        "wall": statistics.median(s[0] for s in samples),
        "cpu": statistics.median(s[1] for s in samples),
        "db_cpu": statistics.fmean(s[2] for s in samples),
        "n": len(samples),
    }


# --- (a) in memory -----------------------------------------------------------------------


def bench_memory(n: int, deals: int, repeats: int) -> dict:
    scores, played, entry, deal, points = synth_arrays(n, deals)
    clock, samples = Clock(None), []
    for _ in range(repeats):
        with clock(samples):
            figures = scoring.rank(scores, played, entry, deal, points)
            scoring.changed([None] * len(scores), figures.deal_matchpoints)
    return {"results": entry.size, **summary(samples)}


# --- (b), (c) database (child process) ---------------------------------------------------


def child(kind: str, n_entries: int, repeats: int) -> dict:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, transaction

    call_command("migrate", verbosity=0, interactive=False)
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from game.models import Game
    from tournaments import rankings, replays
    from tournaments.models import DealPlay, DealResult, Entry, Tournament, TournamentDeal

    postgres = connection.vendor == "postgresql"
    rng = np.random.default_rng(SEED)
    t0 = time.perf_counter()
    seed, rules = f"bench-{SEED}", "flemish"
    pool = play_pool(seed, rules, DEALS, VARIANTS)
    plan = entry_plan(n_entries, pool, rng)
    pool_s = time.perf_counter() - t0

    t = Tournament.objects.create(
        name="bench", seed=seed, seed_commitment="x" * 64, capacity=n_entries, status="open"
    )
    TournamentDeal.objects.bulk_create(
        TournamentDeal(tournament=t, **replays.spec_as_dict(engine_spec))
        for engine_spec in replays.deal_specs(seed, rules)[:DEALS]
    )
    User = get_user_model()
    users = User.objects.bulk_create(
        User(username=f"bench{i:05d}", password="!") for i in range(n_entries)
    )
    games = Game.objects.bulk_create(Game(owner=u, seed=seed, rules=rules) for u in users)
    entries = Entry.objects.bulk_create(
        Entry(
            tournament=t,
            player=u,
            game=g,
            status=Entry.Status.FINISHED,
            score=score_of(plays),
            game_score=score_of(plays),
            deals_played=len(plays),
        )
        for u, g, plays in zip(users, games, plan, strict=True)
    )
    insert_results(connection, entries, plan, postgres)
    n_results = sum(len(p) for p in plan)
    with connection.cursor() as cur:
        if postgres:
            cur.execute("VACUUM ANALYZE")
            cur.execute("SELECT pg_backend_pid()")
            pid = cur.fetchone()[0]
            cur.execute(
                "SELECT pg_total_relation_size('tournaments_dealresult'), "
                "pg_total_relation_size('tournaments_dealplay')"
            )
            table_bytes, play_bytes = cur.fetchone()
        else:
            pid, table_bytes, play_bytes = None, None, None
    setup_s = time.perf_counter() - t0
    clock = Clock(pid)

    # A listener in the standings group: the push is then really sent.
    layer = get_channel_layer()
    listener = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(t.group_name, listener)

    def recompute():
        rankings.recompute(t.pk)

    def unfinish(e):
        DealResult.objects.filter(entry=e).delete()
        Entry.objects.filter(pk=e.pk).update(status=Entry.Status.PLAYING, score=None, rank=None)

    def finish(e, plays):
        with transaction.atomic():  # as tournaments.actions._finish_entry: one commit
            results = DealResult.objects.bulk_create(
                DealResult(entry=e, number=k, **result_fields(p)) for k, p in enumerate(plays, 1)
            )
            DealPlay.objects.bulk_create(
                DealPlay(result=r, tricks=p["tricks"], actions=p["actions"])
                for r, p in zip(results, plays, strict=True)
            )
            Entry.objects.filter(pk=e.pk).update(
                status=Entry.Status.FINISHED, score=score_of(plays), deals_played=len(plays)
            )

    out = {
        "kind": kind, "vendor": connection.vendor, "entries": n_entries,
        "results": n_results, "pool_s": pool_s, "setup_s": setup_s,
        "table_bytes": table_bytes, "play_bytes": play_bytes,
    }  # fmt: skip
    first = []
    with clock(first):
        recompute()  # every row changes; fills par for the 40 deals with the bots
    out["first"] = summary(first)
    unchanged = []
    for _ in range(repeats):
        with clock(unchanged):
            recompute()
    out["unchanged"] = summary(unchanged)

    def one_finished(measure):
        samples, breakdown = [], []
        for _ in range(repeats):
            i = int(rng.integers(n_entries))
            unfinish(entries[i])
            recompute()  # the field without it, ranked
            finish(entries[i], plan[i])
            measure(samples, breakdown)
        return samples, breakdown

    def full(samples, _breakdown):
        with clock(samples):
            recompute()

    samples, _ = one_finished(full)
    out["update"] = summary(samples)

    def parts(samples, breakdown):
        """recompute's parts, called one by one as recompute calls them."""
        marks = [clock.stamp()]
        with transaction.atomic():
            tt = Tournament.objects.select_for_update().get(pk=t.pk)
            field = rankings.read_field(tt)
            marks.append(clock.stamp())
            figures = field.rank()
            marks.append(clock.stamp())
            written = rankings.write_figures(field, figures)
            marks.append(clock.stamp())
        marks.append(clock.stamp())
        rankings.push_standings(t.pk)
        marks.append(clock.stamp())
        spans = [
            tuple(b - a for a, b in zip(x, y, strict=True)) for x, y in itertools.pairwise(marks)
        ]
        breakdown.append(dict(zip(PARTS, spans, strict=True)) | {"written": written})

    _, breakdown = one_finished(parts)
    out["parts"] = {
        k: {
            "wall": statistics.median(b[k][0] for b in breakdown),
            "cpu": statistics.median(b[k][1] for b in breakdown),
            "db_cpu": statistics.fmean(b[k][2] for b in breakdown),
        }
        for k in PARTS
    }
    out["written"] = breakdown[-1]["written"]

    # Serving: the standings, travellers and the compare page's field, as pages and
    # exports read them.
    served = {"standings": [], "traveller": [], "field": [], "travellers": []}
    for _ in range(repeats):
        tt = Tournament.objects.get(pk=t.pk)
        with clock(served["standings"]):
            rankings.standings(tt)
        with clock(served["traveller"]):
            rankings.traveller(tt, 1)  # deal 1: played by every entry
        with clock(served["field"]):
            rankings.field_points(tt)
        with clock(served["travellers"]):
            for k in rankings.played_deal_numbers(tt):
                rankings.traveller(tt, k)
    out |= {k: summary(v) for k, v in served.items()}
    return out


def result_fields(p: dict) -> dict:
    """A play's DealResult fields (its tricks and actions go to DealPlay)."""
    return {k: v for k, v in p.items() if k not in ("tricks", "actions")}


def insert_results(connection, entries, plan, postgres: bool) -> None:
    from tournaments.models import DealPlay, DealResult

    if not postgres:
        pairs = [(e, k, p) for e, plays in zip(entries, plan, strict=True)
                 for k, p in enumerate(plays, 1)]  # fmt: skip
        results = DealResult.objects.bulk_create(
            DealResult(entry=e, number=k, **result_fields(p)) for e, k, p in pairs
        )
        DealPlay.objects.bulk_create(
            DealPlay(result=r, tricks=p["tricks"], actions=p["actions"])
            for r, (_, _, p) in zip(results, pairs, strict=True)
        )
        return
    # 360,000 rows: COPY (setup only; the measured paths use the ORM as the app does).
    # A fresh database: the results get ids 1..n here, the sequence is moved past them.
    encoded: dict[int, tuple] = {}

    def row(p):
        key = id(p)
        if key not in encoded:
            encoded[key] = (
                (p["dealer"], p["trump"], p["no_trump"], json.dumps(p["card_points"]),
                 p["multiplier"], json.dumps(p["written"])),
                (json.dumps(p["tricks"]), json.dumps(p["actions"])),
            )  # fmt: skip
        return encoded[key]

    connection.ensure_connection()
    with connection.connection.cursor() as cur:
        with cur.copy(
            "COPY tournaments_dealresult (id, entry_id, number, dealer, trump, no_trump, "
            "card_points, multiplier, written) FROM STDIN"
        ) as copy:
            ids = itertools.count(1)
            for e, plays in zip(entries, plan, strict=True):
                for k, p in enumerate(plays, 1):
                    copy.write_row((next(ids), e.pk, k, *row(p)[0]))
        with cur.copy("COPY tournaments_dealplay (result_id, tricks, actions) FROM STDIN") as copy:
            ids = itertools.count(1)
            for plays in plan:
                for p in plays:
                    copy.write_row((next(ids), *row(p)[1]))
        cur.execute(
            "SELECT setval(pg_get_serial_sequence('tournaments_dealresult', 'id'), "
            "(SELECT max(id) FROM tournaments_dealresult))"
        )
    connection.connection.commit()


# --- the parent: runs the parts, writes the report --------------------------------------


def run_child(kind, env_extra, n_entries, repeats) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(env_extra, DJANGO_SETTINGS_MODULE="config.settings")
    proc = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--entries", str(n_entries),
         "--repeats", str(repeats)],
        env=env, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def pg_database(url: str):
    import psycopg

    name = urlparse(url).path.lstrip("/")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def ms(x: float) -> str:
    return f"{x * 1e3:.1f}"


def verdict(x, target):
    return "MEETS" if x <= target else "MISSES"


def db_rows(r: dict, target: float) -> list[str]:
    pg = r["vendor"] == "postgresql"
    lines = [
        "| run | wall ms | cpu ms | db cpu ms | target | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for label, key, tgt in (
        ("first run (every row new; par for 40 deals by the bots)", "first", None),
        ("re-run, nothing changed", "unchanged", None),
        ("**after one entry finished**", "update", target),
    ):
        s = r[key]
        db = ms(s["db_cpu"]) if pg else "—"
        v = f"≤ {ms(tgt)} ms | {verdict(s['wall'], tgt)}" if tgt else "— | —"
        lines.append(f"| {label} | {ms(s['wall'])} | {ms(s['cpu'])} | {db} | {v} |")
    lines += ["", "Parts of the update (same scenario, the parts called one by one):", ""]
    lines += ["| part | wall ms | cpu ms | db cpu ms |", "|---|---|---|---|"]
    names = {
        "read": "lock + read (`read_field`: 2 queries, needed columns only)",
        "rank": "figures (`scoring.rank`)",
        "write": "write changed entries (`write_figures`)",
        "commit": "commit",
        "push": "standings push (`push_standings`, after commit)",
    }
    for k, label in names.items():
        s = r["parts"][k]
        db = ms(s["db_cpu"]) if pg else "—"
        lines.append(f"| {label} | {ms(s['wall'])} | {ms(s['cpu'])} | {db} |")
    lines += [
        "",
        f"Rows written by the last update: {r['written']:,} entries (deal results: none).",
    ]
    lines += ["", "Serving (after the update):", "", "| read | wall ms | cpu ms | db cpu ms |"]
    lines += ["|---|---|---|---|"]
    for label, key in (
        ("`rankings.standings` (the standings page, JSON, push)", "standings"),
        ("`rankings.traveller` of one deal (deal 1, played by all: a traveller page)", "traveller"),
        ("`rankings.field_points` (the compare page's field)", "field"),
        ("`rankings.traveller` for every played deal (the travellers export)", "travellers"),
    ):
        s = r[key]
        db = ms(s["db_cpu"]) if pg else "—"
        lines.append(f"| {label} | {ms(s['wall'])} | {ms(s['cpu'])} | {db} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432/manillen_h2bench")
    ap.add_argument("--redis", default="", help="REDIS_URL for the PostgreSQL parts")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--big-repeats", type=int, default=3)
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--only-daylist", action="store_true", help="only (c), the day list")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--entries", type=int, default=10, help=argparse.SUPPRESS)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.entries, args.repeats)))
        return

    today = datetime.date.today().isoformat()
    out: list[str] = []
    p = out.append

    def show(line):
        p(line)
        print(line, flush=True)

    cmd = "`.venv/bin/python bench/rankings.py"
    if args.only_daylist:
        cmd += f" --only-daylist --big-repeats {args.big_repeats}"
    if args.redis:
        cmd += f" --redis {args.redis}"
    cmd += "`"
    p(f"# Rankings speed, {today}\n")
    p(
        f"{cmd} (PostgreSQL parts in a database of their own, `--pg {args.pg}`, created "
        f"and dropped). Medians over repeats ({args.repeats} for the 10-entry parts, "
        f"{args.big_repeats} for the day list); wall = perf_counter, cpu = process_time of "
        "the bench process, db cpu = the PostgreSQL backend's CPU from /proc (10 ms "
        "ticks, mean per run). This 2-core machine is shared with other sessions: wall "
        "is noisy, cpu steadier.\n"
    )
    if not args.only_daylist:
        memory_part(args, p, show)

    results = {}
    pg_env = {"DATABASE_URL": args.pg}
    if args.redis:
        pg_env["REDIS_URL"] = args.redis
    if not args.only_daylist:
        tmp = tempfile.mkdtemp(prefix="rankings-bench-")
        results["sqlite"] = run_child(
            "small", {"SQLITE_PATH": str(Path(tmp) / "bench.sqlite3")}, 10, args.repeats
        )
        with pg_database(args.pg):
            results["pg"] = run_child("small", pg_env, 10, args.repeats)
    if args.only_daylist or not args.skip_big:
        with pg_database(args.pg):
            results["big"] = run_child("big", pg_env, 10_000, args.big_repeats)
    report_part(args, results, p, show)

    kind = "daylist" if args.only_daylist else "e2e"
    default = ROOT / "bench" / "results" / f"rankings-{today}-{kind}.md"
    path = Path(args.out) if args.out else default
    path.write_text("\n".join(out) + "\n")
    print(f"wrote {path}")


def memory_part(args, p, show) -> None:
    p("## (a) In memory: `tournaments.scoring.rank`\n")
    p(
        "The pure function the task calls (plain arrays in, every figure out), plus the "
        f"change mask (`scoring.changed`). Synthetic field, seed {SEED}: card points 0..60, "
        "scores -40..40, ~20% of entries play fewer deals.\n"
    )
    show("| entries × deals | results | wall ms | cpu ms | target (whole task) |")
    show("|---|---|---|---|---|")
    for n, target in ((10_000, TARGET_BIG_S), (10, TARGET_SMALL_S)):
        r = bench_memory(n, DEALS, args.repeats)
        show(f"| {n:,} × {DEALS} | {r['results']:,} | {ms(r['wall'])} | {ms(r['cpu'])} | "
             f"≤ {ms(target)} ms |")  # fmt: skip
    p("")


def report_part(args, results, p, show) -> None:
    layer = "channels_redis" if args.redis else "the in-memory channel layer"
    for key, title in (
        ("sqlite", "## (b) 10 entries × 40 deals, SQLite (embedded settings)"),
        ("pg", "## (b) 10 entries × 40 deals, PostgreSQL"),
        ("big", "## (c) The day list: 10,000 entries × 40 deals, PostgreSQL"),
    ):
        if key not in results:
            continue
        r = results[key]
        target = TARGET_BIG_S if key == "big" else TARGET_SMALL_S
        size = (
            f", deal results {r['table_bytes'] / 2**20:.0f} MiB and their plays "
            f"{r['play_bytes'] / 2**20:.0f} MiB with indexes and TOAST"
            if r["table_bytes"]
            else ""
        )
        p(title + "\n")
        p(
            f"{r['results']:,} deal results (real bot plays, tricks and actions stored in "
            f"DealPlay{size}). "
            "`rankings.recompute` as the task runs it: lock, reads, figures, writes, version "
            f"bump, commit and the standings push ({layer}, one listener). One update: a "
            "random entry is taken out and the field re-ranked (not timed), then its deal "
            "results are inserted and it is finished in one commit (not timed), then the "
            "task runs (timed).\n"
        )
        for line in db_rows(r, target):
            show(line)
        p(f"\nSetup: play pool {r['pool_s']:.1f} s, whole setup {r['setup_s']:.1f} s.\n")


if __name__ == "__main__":
    main()
