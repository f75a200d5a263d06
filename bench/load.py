#!/usr/bin/env python
"""Load test: N simulated players on real WebSockets against the production stack.

Starts, on loopback only and in a dedicated database (<name>_load) with a private
redis-server on a free port: W uvicorn ASGI processes, K Celery bot workers and (for
the figures of where CPU goes) py-spy on one worker and one web process. Then N
players, each with a solo game in no-pause mode ("vlot doorspelen"), connect over
WebSockets (spread over the web processes) and play whole games, one card every
`--think` seconds (uniform in [0.8, 1.2] x think; 0 = as fast as the replies come).

Printed, and saved to bench/results/load-<date>.md:
- moves/s (human and bot cards pushed to clients);
- latency from sending a human card to receiving the last bot card that follows it
  (p50/p95/p99), and the echo of a human card that no bot card follows;
- errors (error messages, unexpected closes, timeouts);
- lost or duplicated moves: every client's event seqs must be contiguous from its
  snapshot, every event must match the stored action at that seq, and every game's
  stored record must equal the record of its replay (engine.Game.replay);
- CPU seconds per process class per human card, and the hottest functions (py-spy).

Bounded: players, games per player and a time limit per scenario; it stops by itself.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/manillen \\
      .venv/bin/python bench/load.py --players 200 --think 3
    .venv/bin/python bench/load.py --players 20,50,100 --think 0   # the ceiling
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ops.stack import Stack  # noqa: E402


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", default="200", help="comma-separated scenario sizes")
    p.add_argument("--think", type=float, default=3.0, help="seconds between a player's cards")
    p.add_argument("--games", type=int, default=1, help="whole games per player")
    p.add_argument("--time-limit", type=float, default=600.0, help="seconds per scenario")
    p.add_argument("--web", type=int, default=2, help="uvicorn processes")
    p.add_argument("--workers", type=int, default=2, help="celery bot worker processes")
    p.add_argument("--pool", default="solo", help="celery pool of each worker: solo, threads")
    p.add_argument("--concurrency", type=int, default=1, help="tasks at once per worker")
    p.add_argument("--bot", default="club", help="bot level of the games (the target: club)")
    p.add_argument("--profile", type=float, default=20.0, help="py-spy seconds (0: off)")
    p.add_argument("--target-p95", type=float, default=300.0)
    p.add_argument("--idle", action="store_true", help="py-spy samples waiting threads too")
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs, py-spy)")
    p.add_argument("--out", default="", help="results file (default bench/results/load-<date>.md)")
    return p.parse_args()  # fmt: skip


# --- the stack ------------------------------------------------------------------------------


def load_database_url() -> str:
    db = os.environ.get("DATABASE_URL")
    if not db:
        sys.exit("bench/load.py measures the production stack: set DATABASE_URL (PostgreSQL)")
    parsed = urlparse(db)
    name = (parsed.path.lstrip("/") or "manillen") + "_load"
    return urlunparse(parsed._replace(path="/" + name))


def fresh_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = urlunparse(parsed._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(stack: Stack) -> None:
    os.environ.update({k: v for k, v in stack.env().items() if k not in ("PATH",)})
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)


def make_players(n: int, tag: str, bot: str) -> list[dict]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.test import Client

    from game import actions

    players = []
    password = make_password(None)  # unusable; the session is made by force_login
    for i in range(n):
        user = get_user_model().objects.create(username=f"load-{tag}-{i}", password=password)
        game = actions.create_game(user, seed=f"load-{tag}-{i}", bot_level=bot, fast_play=True)
        client = Client()
        client.force_login(user)
        players.append(
            {"user": user, "game": str(game.public_id), "cookie": client.cookies["sessionid"].value}
        )
    return players


def new_game(user, tag: str, bot: str) -> str:
    from game import actions

    return str(actions.create_game(user, seed=tag, bot_level=bot, fast_play=True).public_id)


# --- a player ------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # human card -> last bot card
    echoes: list[float] = field(default_factory=list)  # human card -> its own event only
    events: int = 0
    human_moves: int = 0
    errors: Counter = field(default_factory=Counter)
    gaps: int = 0
    duplicates: int = 0
    seen: dict[str, dict[int, str]] = field(default_factory=lambda: defaultdict(dict))
    first_seq: dict[str, int] = field(default_factory=dict)
    games_finished: int = 0
    stale: int = 0
    cut_short: int = 0
    completed: set = field(default_factory=set)  # games whose client saw the end


async def play_game(port, game_id, cookie, think, deadline, rng, stats: Stats) -> bool:
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/game/{game_id}/"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": f"http://127.0.0.1:{port}"}
    seen = stats.seen[game_id]

    async def receive(ws):
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
        if message["type"] == "error":
            stats.errors[f"error:{message['code']}"] += 1
            raise RuntimeError(message)
        return message

    def record(message) -> None:
        nonlocal seq
        s = message["seq"]
        if s <= stats.first_seq[game_id] and s not in seen:
            stats.stale += 1  # sent between joining the group and the snapshot: in it
            return
        if s in seen:
            stats.duplicates += 1
        elif s != seq + 1:
            stats.gaps += 1
        seen[s] = message["action"]
        seq = s
        stats.events += 1

    async with websockets.connect(url, additional_headers=headers, max_size=2**22) as ws:
        message = await receive(ws)
        assert message["type"] == "snapshot", message
        seq, state = message["seq"], message["state"]
        stats.first_seq[game_id] = seq
        while state["to_move"] != 0 and not state["game_over"]:  # the bots open deal 1
            message = await receive(ws)
            record(message)
            state = message["state"]
        while not state["game_over"]:
            if time.monotonic() > deadline:
                stats.cut_short += 1  # the bench's bound, not a fault of the stack
                return False
            if think:
                await asyncio.sleep(think * rng.uniform(0.8, 1.2))
            card = rng.choice(state["legal"])
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "action": card, "seq": seq}))
            bot_cards = 0
            while True:
                message = await receive(ws)
                if message["type"] != "event":
                    stats.errors[f"unexpected:{message['type']}"] += 1
                    continue
                record(message)
                state = message["state"]
                bot_cards += message["actor"] != 0
                if state["to_move"] == 0 or state["game_over"]:
                    break
            elapsed = (time.perf_counter() - start) * 1000
            (stats.latencies if bot_cards else stats.echoes).append(elapsed)
            stats.human_moves += 1
        stats.games_finished += 1
        stats.completed.add(game_id)
        return True


async def player(i, p, ports, args, deadline, stats: Stats, tag) -> None:
    rng = random.Random(f"{tag}-{i}")
    # Spread the start over one think time, like people arriving.
    await asyncio.sleep(rng.uniform(0, args.think or 0.2))
    game_id = p["game"]
    for g in range(args.games):
        port = ports[(i + g) % len(ports)]
        try:
            finished = await play_game(port, game_id, p["cookie"], args.think, deadline, rng, stats)
        except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
            stats.errors[f"{type(exc).__name__}"] += 1
            print(f"  player {i}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
            return
        if not finished or g + 1 == args.games:
            return
        game_id = await asyncio.to_thread(new_game, p["user"], f"load-{tag}-{i}-g{g + 1}", args.bot)
        stats.seen[game_id]  # noqa: B018 - registers the game for the checks


# --- checks and figures --------------------------------------------------------------------


def check_games(stats: Stats) -> dict:
    """Lost/duplicated moves against the stored games, and records against replays."""
    import engine
    from engine import records
    from game import actions as game_actions
    from game.models import Game

    mismatched, lost, replay_bad, unfinished = 0, 0, 0, 0
    for game_id, seen in stats.seen.items():
        game = Game.objects.get(public_id=game_id)
        first = stats.first_seq.get(game_id, 0)
        for s, action in seen.items():
            if s < 1 or s > len(game.actions) or game.actions[s - 1] != action:
                mismatched += 1
        if game_id in stats.completed:  # an aborted client is counted under errors
            expected = set(range(first + 1, game.seq + 1))
            lost += len(expected - set(seen))
        eng = engine.Game.replay(game.seed, game.rules, game.actions)
        if game.status == Game.Status.FINISHED:
            # The stored record carries who played and when (game.actions.record_tags).
            if (
                not eng.is_terminal()
                or records.write_text(eng, game_actions.record_tags(game)) != game.record
            ):
                replay_bad += 1
        else:
            unfinished += 1
        if eng.observation(0) != game.state:
            replay_bad += 1
    return {
        "games": len(stats.seen),
        "mismatched": mismatched,
        "lost": lost,
        "replay_bad": replay_bad,
        "unfinished": unfinished,
    }


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its children so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(x) for x in fields[11:15]) / ticks


def tree_pids(pid: int) -> list[int]:
    out = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return out
    for child in children:
        out += tree_pids(int(child))
    return out


def postgres_pids() -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() in ("postgres", "postmaster"):
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def cpu_snapshot(stack: Stack) -> dict[str, float]:
    groups: dict[str, float] = defaultdict(float)
    for proc in stack.procs:
        kind = proc.name.split("-")[0]
        for pid in tree_pids(proc.pid):
            groups[kind] += cpu_seconds(pid)
    groups["postgres"] = sum(cpu_seconds(pid) for pid in postgres_pids())
    groups["clients (this process)"] = sum(os.times()[:2])
    return groups


def py_spy(pid: int, seconds: float, out: Path, idle: bool = False) -> subprocess.Popen | None:
    exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(exe).exists():
        return None
    return subprocess.Popen(
        [exe, "record", "--pid", str(pid), "--duration", str(int(seconds)), "--rate", "200",
         "--format", "raw", "--output", str(out), "--nonblocking", *(["--idle"] if idle else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


OURS = ("game/", "engine/", "ops/", "tournaments/", "channels/", "channels_redis/",
        "django/db/", "celery/app/trace", "kombu/messaging", "json/", "websockets/",
        "uvicorn/protocols/", "asgiref/")  # fmt: skip


def hot_functions(raw: Path, top: int = 12) -> list[tuple[str, float, float]]:
    """(function, self %, inclusive %) from py-spy's collapsed stacks: the functions of
    the application and its frameworks with the most samples under them."""
    if not raw.exists():
        return []
    self_count: Counter = Counter()
    incl: Counter = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        frames = stack.split(";")
        total += n
        self_count[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    if not total:
        return []
    ranked = [
        name for name, _ in incl.most_common()
        if any(part in name for part in OURS) and "thread_handler" not in name
    ][:top]  # fmt: skip
    short = [re.sub(r"\(.*site-packages/|\(/work/main/", "(", name) for name in ranked]
    return [
        (label, 100 * self_count[name] / total, 100 * incl[name] / total)
        for label, name in zip(short, ranked, strict=True)
    ]


# --- main ------------------------------------------------------------------------------------


def main() -> int:
    args = parse_args()
    if not shutil.which("redis-server"):
        sys.exit("bench/load.py needs redis-server (it starts a private one on a free port)")
    db_url = load_database_url()
    fresh_database(db_url)
    workdir = Path(tempfile.mkdtemp(prefix="manillen-load-"))
    stack = Stack(
        db_url,
        workdir,
        # Bench clients with think 0 send faster than a person may; the limits stay on
        # for the paced scenario's defaults only when --think >= 1.
        extra_env={} if args.think >= 1 else {"GAME_WS_RATE": "1000", "GAME_WS_BURST": "1000"},
    )
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    try:
        stack.start_redis()
        setup_django(stack)
        webs = [stack.start_web() for _ in range(args.web)]
        workers = [
            stack.start_worker(
                f"bots-{k}", queues="bots", pool=args.pool, concurrency=args.concurrency
            )  # fmt: skip
            for k in range(args.workers)
        ]
        ports = [w.port for w in webs]
        say(f"# Load test {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC")
        say()
        say(f"Stack on loopback: {args.web} uvicorn process(es), {args.workers} Celery bot "
            f"worker(s) ({args.pool} pool x{args.concurrency}), PostgreSQL, a private "
            f"redis-server; {os.cpu_count()} CPU "
            f"core(s) shared by all of it and the clients. Bots: {args.bot}; no-pause mode; "
            f"think time {args.think} s per human card (x0.8-1.2); {args.games} whole "
            f"game(s) per player.")  # fmt: skip
        say()
        rows = []
        for n in [int(x) for x in args.players.split(",")]:
            tag = f"{int(time.time())}-{n}"
            players = make_players(n, tag, args.bot)
            stats = Stats()
            deadline = time.monotonic() + args.time_limit
            before = cpu_snapshot(stack)
            machine_before = machine_busy()
            spies = []
            if args.profile:
                for proc in (workers[0], webs[0]):
                    raw = workdir / f"pyspy-{proc.name}-{n}.txt"
                    spy = py_spy(proc.pid, args.profile, raw, args.idle)
                    if spy:
                        spies.append((proc.name, raw, spy))
            started = time.perf_counter()

            async def run(players=players, stats=stats, deadline=deadline, tag=tag):
                await asyncio.wait_for(
                    asyncio.gather(
                        *(
                            player(i, p, ports, args, deadline, stats, tag)
                            for i, p in enumerate(players)
                        )  # fmt: skip
                    ),
                    timeout=args.time_limit + 60,
                )

            asyncio.run(run())
            elapsed = time.perf_counter() - started
            after = cpu_snapshot(stack)
            machine_after = machine_busy()
            load = os.getloadavg()[0]
            for _, _, spy in spies:
                try:
                    spy.wait(timeout=args.profile + 30)
                except subprocess.TimeoutExpired:
                    spy.kill()
            time.sleep(0.5)
            checks = check_games(stats)
            cpu = {k: after[k] - before.get(k, 0.0) for k in after}
            row = {
                "players": n,
                "elapsed": elapsed,
                "human": stats.human_moves,
                "events": stats.events,
                "p50": pct(stats.latencies, 0.5),
                "p95": pct(stats.latencies, 0.95),
                "p99": pct(stats.latencies, 0.99),
                "max": max(stats.latencies, default=float("nan")),
                "echo50": pct(stats.echoes, 0.5),
                "echo95": pct(stats.echoes, 0.95),
                "errors": sum(stats.errors.values()),
                "error_kinds": dict(stats.errors),
                "gaps": stats.gaps,
                "dups": stats.duplicates,
                "finished": stats.games_finished,
                **checks,
                "cpu": cpu,
                "machine_busy": machine_after[0] - machine_before[0],
                "load": load,
                "stale": stats.stale,
                "cut_short": stats.cut_short,
            }
            rows.append(row)
            report(say, row, args, spies)
        ok = all(
            r["p95"] <= args.target_p95 and r["errors"] == 0 and not r["gaps"] and not r["dups"]
            and not r["lost"] and not r["mismatched"] and not r["replay_bad"]
            for r in rows
        )  # fmt: skip
        say(f"**Targets** (p95 <= {args.target_p95:.0f} ms, 0 errors, 0 lost or duplicated "
            f"moves, every record = its replay): {'met' if ok else 'NOT met'}")  # fmt: skip
        out = Path(args.out) if args.out else ROOT / "bench" / "results" / (
            f"load-{dt.date.today():%Y-%m-%d}.md")  # fmt: skip
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "a") as f:
            f.write("\n".join(lines) + "\n\n")
        print(f"(appended to {out})")
        return 0 if ok else 1
    finally:
        stack.stop_all()
        if args.keep:
            print(f"(logs and profiles kept in {workdir})")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def report(say, r: dict, args, spies) -> None:
    say(f"## {r['players']} players, think {args.think} s")
    say()
    say(f"- {r['human']} human cards and {r['events']} events (all cards) in "
        f"{r['elapsed']:.0f} s: **{r['human'] / r['elapsed']:.1f} human cards/s, "
        f"{r['events'] / r['elapsed']:.1f} cards/s pushed**; games finished "
        f"{r['finished']}/{r['games']} ({r['cut_short']} still playing at the time "
        f"limit)")  # fmt: skip
    say(f"- latency human card -> last following bot card: **p50 {r['p50']:.1f} ms, "
        f"p95 {r['p95']:.1f} ms, p99 {r['p99']:.1f} ms**, max {r['max']:.1f} ms; own-card "
        f"echo (no bot card follows) p50 {r['echo50']:.1f} ms, "
        f"p95 {r['echo95']:.1f} ms")  # fmt: skip
    say(f"- errors: **{r['errors']}** {r['error_kinds'] or ''}")
    say(f"- lost/duplicated: client seq gaps {r['gaps']}, duplicates {r['dups']}, events not "
        f"matching the stored action {r['mismatched']}, stored moves never received "
        f"{r['lost']}; records differing from their replay {r['replay_bad']} (events older "
        f"than the snapshot, ignored as the protocol says: {r['stale']})")  # fmt: skip
    human = max(1, r["human"])
    total = sum(r["cpu"].values())
    parts = ", ".join(
        f"{k} {v:.1f} s ({1000 * v / human:.1f} ms/card)"
        for k, v in sorted(r["cpu"].items(), key=lambda kv: -kv[1])
    )
    say(f"- CPU over the run: {total:.1f} s on {os.cpu_count()} core(s) "
        f"({100 * total / (r['elapsed'] * (os.cpu_count() or 1)):.0f}% of the machine): "
        f"{parts}")  # fmt: skip
    others = max(0.0, r["machine_busy"] - total)
    say(f"- the whole machine was busy {r['machine_busy']:.0f} CPU-s of "
        f"{r['elapsed'] * (os.cpu_count() or 1):.0f}: {total:.0f} ours, {others:.0f} other "
        f"tenants' (load average {r['load']:.1f} at the end)")  # fmt: skip
    for name, raw, _ in spies:
        hot = hot_functions(raw)
        if not hot:
            continue
        say(f"- py-spy, {name} (first {args.profile:.0f} s; self % / inclusive %):")
        for fn, self_pct, incl_pct in hot[:10]:
            say(f"    - `{fn}` {self_pct:.1f}% / {incl_pct:.1f}%")
    say()


if __name__ == "__main__":
    sys.exit(main())
