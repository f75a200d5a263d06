#!/usr/bin/env python
"""Latency of the production stack: a human card in, every bot card that follows out.

Starts, on loopback only, a uvicorn ASGI server and a Celery worker (the production
stack: PostgreSQL + channels_redis + Redis broker, from DATABASE_URL and REDIS_URL),
then plays solo games over real WebSockets with the `websockets` client:

    client sends {"type": "action", ...}  ->  consumer -> actions.apply_action (row lock,
    replay, apply, commit) -> event + Celery task -> worker plays the bots' cards in one
    transaction -> events through Redis -> consumer -> client

and measures, per human move, the time from sending the card to receiving the event
after which South is to move again (so: all following bot cards pushed back). Moves
after which South is to move at once (South won the trick) are counted apart.

Scenarios: 1 player, then 50 players at once (each waits a "think time" between its
cards, uniform in [0.5, 1.5] s by default: people play slower than that). Bounded in
moves and in seconds; it stops by itself.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/manillen \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/latency.py

It uses its own database (<name>_bench) and Redis database number 1, so that a test
run or a dev server on the same services is not disturbed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", default="1,50", help="comma-separated scenario sizes")
    p.add_argument(
        "--moves",
        type=int,
        default=0,
        help="human moves per player (default: 120 alone, 16 in a crowd)",
    )
    p.add_argument("--think", default="0.5,1.5", help="think time range in seconds")
    p.add_argument("--time-limit", type=float, default=150.0, help="seconds per scenario")
    p.add_argument("--worker-pool", default="solo", help="celery pool: solo or threads")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--worker-log", default="warning", help="celery worker log level")
    return p.parse_args()  # fmt: skip


def bench_env() -> dict[str, str]:
    db, redis = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    if not (db and redis):
        sys.exit("bench/latency.py measures the production stack: set DATABASE_URL and REDIS_URL")
    db_url = urlparse(db)
    db_name = (db_url.path.lstrip("/") or "manillen") + "_bench"
    redis_url = urlparse(redis)
    return {
        "DATABASE_URL": urlunparse(db_url._replace(path="/" + db_name)),
        "REDIS_URL": urlunparse(redis_url._replace(path="/1")),
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "CHANNELS_PREFIX": "bench",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }


def ensure_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = urlunparse(parsed._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_services(env: dict[str, str], port: int, args) -> list[subprocess.Popen]:
    full_env = {**os.environ, **env}
    bin_dir = Path(sys.executable).parent
    server = subprocess.Popen(
        [
            str(bin_dir / "uvicorn"),
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=full_env,
        start_new_session=True,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "bots,celery",
         "-P", args.worker_pool, "-c", str(args.concurrency), "-l", args.worker_log,
         "-n", f"bench-{os.getpid()}@localhost", "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        cwd=ROOT, env=full_env, start_new_session=True,
    )  # fmt: skip
    return [server, worker]


def wait_ready(port: int, worker_name: str, procs, timeout: float = 60) -> None:
    from config.celery import app

    deadline = time.monotonic() + timeout
    http_ok = False
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                sys.exit(f"a service exited early (code {proc.returncode})")
        if not http_ok:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=1)
                http_ok = True
            except urllib.error.HTTPError as exc:
                sys.exit(f"the server answers {exc.code} on /accounts/login/")
            except OSError:
                time.sleep(0.2)
                continue
        if app.control.ping(destination=[worker_name], timeout=0.5):
            return
    sys.exit("services did not become ready in time")


def stop(procs) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def make_players(n: int, tag: str) -> list[tuple[str, str]]:
    """n (game public id, session cookie) pairs, each a fresh user with a fresh game."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from game import actions

    players = []
    for i in range(n):
        user = get_user_model().objects.create_user(f"bench-{tag}-{i}")
        game = actions.create_game(user, seed=f"bench-{tag}-{i}", fast_play=True)
        client = Client()
        client.force_login(user)
        players.append((str(game.public_id), client.cookies["sessionid"].value))
    return players


async def play(port, game_id, cookie, moves, think, deadline, rng, out) -> None:
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/game/{game_id}/"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": f"http://127.0.0.1:{port}"}
    async with websockets.connect(url, additional_headers=headers, max_size=2**22) as ws:
        message = json.loads(await ws.recv())
        assert message["type"] == "snapshot", message
        seq, state = message["seq"], message["state"]
        while state["to_move"] != 0 and not state["game_over"]:  # bots of deal 1 first
            message = json.loads(await ws.recv())
            seq, state = message["seq"], message["state"]
        for _ in range(moves):
            if state["game_over"] or time.monotonic() > deadline:
                return
            await asyncio.sleep(rng.uniform(*think))
            card = rng.choice(state["legal"])
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "action": card, "seq": seq}))
            bot_cards = 0
            while True:
                message = json.loads(await ws.recv())
                if message["type"] != "event":
                    raise RuntimeError(f"unexpected reply: {message}")
                seq, state = message["seq"], message["state"]
                bot_cards += message["actor"] != 0
                if state["to_move"] == 0 or state["game_over"]:
                    break
            out.append(((time.perf_counter() - start) * 1000, bot_cards))


async def scenario(port, players, moves, think, time_limit, seed) -> tuple[list, float]:
    rng = random.Random(seed)
    out: list[tuple[float, int]] = []
    deadline = time.monotonic() + time_limit
    started = time.perf_counter()
    tasks = [
        play(port, gid, cookie, moves, think, deadline, random.Random(rng.random()), out)
        for gid, cookie in players
    ]
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=time_limit + 30)
    return out, time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its children that were waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(x) for x in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def report(n: int, samples, elapsed: float, cpu: dict[str, float]) -> dict:
    with_bots = [ms for ms, bots in samples if bots]
    alone = [ms for ms, bots in samples if not bots]
    row = {
        "players": n,
        "moves": len(samples),
        "with_bot_replies": len(with_bots),
        "median_ms": statistics.median(with_bots) if with_bots else float("nan"),
        "p95_ms": percentile(with_bots, 0.95) if with_bots else float("nan"),
        "max_ms": max(with_bots) if with_bots else float("nan"),
        "bot_cards_per_move": sum(b for _, b in samples) / max(1, len(with_bots)),
        "echo_median_ms": statistics.median(alone) if alone else float("nan"),
        "human_moves_per_s": len(samples) / elapsed,
    }
    print(
        f"{n:>3} player(s): {row['with_bot_replies']:>5} moves answered by bots  "
        f"median {row['median_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  "
        f"max {row['max_ms']:6.1f} ms  ({row['bot_cards_per_move']:.1f} bot cards/move; "
        f"own-card echo median {row['echo_median_ms']:.1f} ms; "
        f"{row['human_moves_per_s']:.1f} human moves/s)",
        flush=True,
    )
    per_move = {name: 1000 * secs / max(1, len(samples)) for name, secs in cpu.items()}
    print(
        "      CPU per human move: "
        + ", ".join(f"{name} {ms:.1f} ms" for name, ms in per_move.items()),
        flush=True,
    )
    return row


def main() -> int:
    args = parse_args()
    env = bench_env()
    os.environ.update(env)
    ensure_database(env["DATABASE_URL"])

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)  # DEBUG=0: manifest storage
    from config.celery import app

    app.control.purge()
    port = free_port()
    procs = start_services(env, port, args)
    try:
        wait_ready(port, f"bench-{os.getpid()}@localhost", procs)
        think = tuple(float(x) for x in args.think.split(","))
        tag = f"{int(time.time())}"
        print(f"stack: uvicorn + celery ({args.worker_pool} x{args.concurrency}) + "
              f"PostgreSQL + Redis on loopback; heuristic bots, fast play; think time "
              f"{think[0]}-{think[1]} s", flush=True)  # fmt: skip
        rows = []
        for n in [int(x) for x in args.players.split(",")]:
            moves = args.moves or (120 if n == 1 else 16)
            players = make_players(n, f"{tag}-{n}")
            time.sleep(1.0)  # let the worker finish the first bot moves of every game
            watched = {"web": procs[0].pid, "worker": procs[1].pid, "clients": os.getpid()}
            before = {name: cpu_seconds(pid) for name, pid in watched.items()}
            samples, elapsed = asyncio.run(
                scenario(port, players, moves, think, args.time_limit, seed=n)
            )
            cpu = {name: cpu_seconds(pid) - before[name] for name, pid in watched.items()}
            rows.append(report(n, samples, elapsed, cpu))
        ok = all(r["median_ms"] <= 50 and r["p95_ms"] <= 150 for r in rows)
        print(f"targets (median <= 50 ms, p95 <= 150 ms): {'met' if ok else 'NOT met'}")
        return 0
    finally:
        stop(procs)


if __name__ == "__main__":
    sys.exit(main())
