#!/usr/bin/env python
"""Latency of tables of four people on the production stack (issue 11).

Starts uvicorn and a Celery worker on loopback (PostgreSQL + channels_redis + Redis,
from DATABASE_URL and REDIS_URL, in a database and Redis number of its own, like
bench/latency.py), opens T open tables with four people each (no bots), connects the
four people's WebSockets and lets them play: whoever is to move thinks a moment and
plays a random legal card. It measures, per card, the time from one person sending it
to the next person to move receiving the event that makes it their turn (each seat has
its own channel group: the card goes out as four per-seat events plus one public one),
p50/p95/max, and the server CPU per card (web + worker processes).

Think time per turn 0.5-1.0 s by default: with four seats taking turns, every person
plays a card every 2-4 s.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/manillen \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/tables.py --tables 1,50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.latency import (  # noqa: E402 - after the path is set
    bench_env,
    cpu_seconds,
    ensure_database,
    free_port,
    percentile,
    start_services,
    stop,
    wait_ready,
)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", default="1,50", help="comma-separated numbers of tables")
    p.add_argument("--think", default="0.5,1.0", help="think time per turn, seconds")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per scenario")
    p.add_argument("--web", type=int, default=1, help="uvicorn processes (people spread)")
    p.add_argument("--worker-pool", default="solo")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--worker-log", default="warning")
    return p.parse_args()


def start_web(env: dict[str, str], port: int) -> subprocess.Popen:
    uvicorn = str(Path(sys.executable).parent / "uvicorn")
    return subprocess.Popen(
        [uvicorn, "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, **env}, start_new_session=True,
    )  # fmt: skip


def wait_http(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"web process on {port} did not answer")


def make_tables(n: int, tag: str) -> list[list[tuple[str, str, int]]]:
    """n started tables of four people: per table [(game id, session cookie, seat)]."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from game import actions

    tables = []
    for t in range(n):
        users = [get_user_model().objects.create_user(f"tb-{tag}-{t}-{s}") for s in range(4)]
        game = actions.create_table(users[0], rules="flemish")
        for s in (1, 2, 3):
            actions.sit(game.public_id, users[s], s)  # the fourth starts the table
        people = []
        for s, user in enumerate(users):
            client = Client()
            client.force_login(user)
            people.append((str(game.public_id), client.cookies["sessionid"].value, s))
        tables.append(people)
    return tables


# People arrive a few at a time (as at a club night), not 200 handshakes in one instant.
_ARRIVALS: asyncio.Semaphore | None = None


async def person(port, game_id, cookie, seat, sent, out, think, deadline, rng, counts):
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/game/{game_id}/"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": f"http://127.0.0.1:{port}"}
    await _ARRIVALS.acquire()
    try:
        ws = await websockets.connect(
            url, additional_headers=headers, max_size=2**22, open_timeout=60
        )
        message = json.loads(await ws.recv())
    finally:
        _ARRIVALS.release()
    async with ws:
        assert message["type"] == "snapshot" and message["table"]["seat"] == seat, message
        seq, state = message["seq"], message["state"]
        while time.monotonic() < deadline and not state["game_over"]:
            if state["to_move"] == seat:
                await asyncio.sleep(rng.uniform(*think))
                sent[seq + 1] = time.perf_counter()
                await ws.send(
                    json.dumps({"type": "action", "action": rng.choice(state["legal"]), "seq": seq})
                )
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
            except TimeoutError:
                continue
            if message["type"] == "error":
                counts["errors"] += 1
                await ws.send(json.dumps({"type": "snapshot"}))
                continue
            if message["type"] not in ("event", "snapshot"):
                continue
            seq, state = message["seq"], message["state"]
            if message["type"] == "event" and state["to_move"] == seat and seq in sent:
                out.append((time.perf_counter() - sent.pop(seq)) * 1000)


async def scenario(ports, tables, think, time_limit) -> tuple[list[float], dict, float]:
    global _ARRIVALS
    _ARRIVALS = asyncio.Semaphore(8)
    out: list[float] = []
    counts = {"errors": 0}
    deadline = time.monotonic() + time_limit
    rng = random.Random(7)
    started = time.perf_counter()
    tasks = []
    for t, people in enumerate(tables):
        sent: dict[int, float] = {}  # one table's cards in flight: seq -> send time
        for gid, cookie, seat in people:
            r = random.Random(rng.random())
            port = ports[(4 * t + seat) % len(ports)]  # a table's people on every process
            tasks.append(person(port, gid, cookie, seat, sent, out, think, deadline, r, counts))
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=time_limit + 60)
    return out, counts, time.perf_counter() - started


def main() -> int:
    args = parse_args()
    env = bench_env()
    os.environ.update(env)
    ensure_database(env["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    from config.celery import app

    app.control.purge()
    port = free_port()
    procs = start_services(env, port, args)
    ports = [port]
    for _ in range(args.web - 1):  # more web processes, each on its own port
        extra = free_port()
        procs.append(start_web(env, extra))
        ports.append(extra)
    try:
        wait_ready(port, f"bench-{os.getpid()}@localhost", procs)
        for extra in ports[1:]:
            wait_http(extra)
        think = tuple(float(x) for x in args.think.split(","))
        tag = f"{int(time.time())}"
        print(
            f"stack: uvicorn + celery + PostgreSQL + Redis on loopback; tables of four "
            f"people, think {think[0]}-{think[1]} s per turn",
            flush=True,
        )
        for n in [int(x) for x in args.tables.split(",")]:
            tables = make_tables(n, f"{tag}-{n}")
            watched = {"web": procs[0].pid, "worker": procs[1].pid, "clients": os.getpid()}
            for i, proc in enumerate(procs[2:], start=2):
                watched[f"web{i}"] = proc.pid
            before = {k: cpu_seconds(p) for k, p in watched.items()}
            samples, counts, elapsed = asyncio.run(scenario(ports, tables, think, args.time_limit))
            cpu = {k: cpu_seconds(p) - before[k] for k, p in watched.items()}
            cards = max(1, len(samples))
            print(
                f"{n:>3} table(s), {4 * n} people: {len(samples)} cards "
                f"({len(samples) / elapsed:.1f}/s)  p50 {statistics.median(samples):.1f} ms  "
                f"p95 {percentile(samples, 0.95):.1f} ms  max {max(samples):.1f} ms  "
                f"errors {counts['errors']}  {elapsed:.0f} s  CPU per card: "
                + ", ".join(f"{k} {1000 * v / cards:.1f} ms" for k, v in cpu.items()),
                flush=True,
            )
        return 0
    finally:
        stop(procs)


if __name__ == "__main__":
    sys.exit(main())
