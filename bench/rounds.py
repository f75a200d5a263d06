#!/usr/bin/env python
"""Tournaments of rounds and tables (issue 12) against the speed targets.

(a) The draw of a round for 260 players (65 tables) <= 1 s: every movement of
    tournaments.draw (random, writer stays, mixed, by standing, fixed pairs), with a
    history of three earlier rounds. Pure functions, no Django.
(b) The standings update after a set finishes at 65 tables <= 200 ms: the body of the
    advance_set task minus the next set's tables, i.e. the set's raw and duplicate
    figures (tournaments.actions.score_set, numpy), the overall standing written to the
    260 entries (write_standings) and the live push (tables.push_standings). Then,
    apart, what starting the next set's 65 tables costs (draw + 65 games).
(c) A simulated event end to end through the stable hooks (create_tournament,
    simulate_tournament: people's moves through apply_action, bots through play_bots)
    printing where the time goes. Default 24 players x 3 rounds x 3 sets x 2 deals;
    `--players 260 --deals 8` is the issue's full event (long on a shared 2-core box).

Databases: a throwaway SQLite file (embedded settings, eager Celery, in-memory channel
layer) unless DATABASE_URL is set. Wall = time.perf_counter; medians over repeats.

    .venv/bin/python bench/rounds.py
    .venv/bin/python bench/rounds.py --players 260 --deals 8      # the full event
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments import draw  # noqa: E402  (pure, no Django)

TARGET_DRAW_S = 1.0
TARGET_STANDINGS_S = 0.200


def median_time(fn, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_draw(players: int, repeats: int) -> None:
    ids = list(range(players))
    history = draw.History()
    seating = draw.random_draw(ids, "bench")
    rounds = [seating]
    for r in range(3):
        history = draw.History.of(t for s in rounds for t in s)
        rounds.append(draw.writer_stays(rounds[-1], history, f"bench{r}"))
    history = draw.History.of(t for s in rounds for t in s)
    pairs = draw.draw_pairs(ids, history, "bench")
    cases = {
        "random_draw": lambda: draw.random_draw(ids, "x"),
        "writer_stays": lambda: draw.writer_stays(rounds[-1], history, "x"),
        "mixed_draw": lambda: draw.mixed_draw(ids, history, "x"),
        "standing_draw": lambda: draw.standing_draw(ids, history, "x"),
        "draw_pairs + pair_tables": lambda: draw.pair_tables(
            draw.draw_pairs(ids, history, "x"), history, "x"
        ),
        "pair_tables by standing": lambda: draw.pair_tables(pairs, history, "x", True),
    }
    print(f"(a) the draw of a round, {players} players, history of 4 rounds (target <= 1 s)")
    for name, fn in cases.items():
        s = median_time(fn, repeats)
        print(f"    {name:<26} {s * 1000:8.1f} ms  {'ok' if s <= TARGET_DRAW_S else 'OVER'}")


def setup_django() -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = str(Path(tempfile.mkdtemp()) / "rounds-bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0, interactive=False)


def bench_standings(tables: int, deals: int, repeats: int) -> None:
    """A set at `tables` tables, every table finished: the update after it."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from game.models import Game
    from tournaments import actions
    from tournaments import tables as tables_read
    from tournaments.models import Entry, Round, Table, TableSeat, TableSet

    players = 4 * tables
    t = actions.create_tables_tournament(
        None, name="bench", fmt="rotating", players=players, rounds=3, sets=3, deals=deals,
        duplicate=True, open_now=True,
    )  # fmt: skip
    User = get_user_model()
    users = User.objects.bulk_create(
        User(username=f"bench-{t.pk}-{i}", password="!") for i in range(players)
    )
    users = list(User.objects.filter(username__startswith=f"bench-{t.pk}-").order_by("pk"))
    Entry.objects.bulk_create(Entry(tournament=t, player=u) for u in users)
    entries = list(Entry.objects.filter(tournament=t).order_by("pk"))
    rng = np.random.default_rng(1)
    rnd = Round.objects.create(tournament=t, number=1, status=Round.Status.PLAYING)

    def finished_set(number: int) -> TableSet:
        tset = TableSet.objects.create(round=rnd, number=number, seed=f"bench/{number}")
        games = Game.objects.bulk_create(
            Game(owner=users[0], seed=tset.seed, rules="flemish deals=8 tie=own",
                 status=Game.Status.FINISHED)
            for _ in range(tables)
        )  # fmt: skip
        games = list(Game.objects.filter(seed=tset.seed).order_by("pk"))
        board = lambda: [  # noqa: E731
            {"written": [int(a), int(b)], "dealer": k % 4}
            for k, (a, b) in enumerate(rng.integers(0, 12, size=(deals, 2)))
        ]
        Table.objects.bulk_create(
            Table(table_set=tset, number=i + 1, game=g, finished=True, board=board())
            for i, g in enumerate(games)
        )
        tabs = list(Table.objects.filter(table_set=tset).order_by("number"))
        order = rng.permutation(players)
        TableSeat.objects.bulk_create(
            TableSeat(
                table=tab, index=k, entry=entries[order[4 * i + k]],
                raw=int(sum(b["written"][k % 2] - b["written"][1 - k % 2] for b in tab.board)),
            )
            for i, tab in enumerate(tabs)
            for k in range(4)
        )  # fmt: skip
        return tset

    parts = collections.defaultdict(list)
    for number in range(1, repeats + 1):
        tset = finished_set(number)
        with transaction.atomic():
            start = time.perf_counter()
            actions.score_set(tset)
            tset.status = TableSet.Status.DONE
            tset.save(update_fields=["status"])
            mid = time.perf_counter()
            rows = actions.write_standings(t)
            end = time.perf_counter()
        tables_read.push_standings(t.pk, rows)
        pushed = time.perf_counter()
        parts["score_set (raw + duplicate, numpy)"].append(mid - start)
        parts["write_standings (260 entries)"].append(end - mid)
        parts["push_standings (socket payload)"].append(pushed - end)
        parts["total"].append(pushed - start)
    print(
        f"(b) standings update after a set at {tables} tables x {deals} deals "
        f"(target <= 200 ms), set {repeats} of the event (more sets = more rows)"
    )
    for name, samples in parts.items():
        s = statistics.median(samples)
        flag = ("ok" if s <= TARGET_STANDINGS_S else "OVER") if name == "total" else ""
        print(f"    {name:<38} {s * 1000:8.1f} ms  {flag}")
    start = time.perf_counter()
    with transaction.atomic():
        actions._start_set(t, rnd, repeats + 1)
    print(
        f"    (apart) starting the next set: draw + {tables} games "
        f"{(time.perf_counter() - start) * 1000:8.1f} ms"
    )


def bench_event(players: int, rounds: int, sets: int, deals: int, fmt: str) -> None:
    import io
    import re

    from django.core.management import call_command

    from game import actions as game_actions
    from tournaments import actions
    from tournaments import tables as tables_read

    spent: dict[str, float] = collections.defaultdict(float)
    calls: dict[str, int] = collections.defaultdict(int)

    def timed(module, name: str, label: str) -> None:
        fn = getattr(module, name)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start
                calls[label] += 1

        setattr(module, name, wrapper)

    timed(game_actions, "apply_action", "people's moves (apply_action)")
    timed(game_actions, "play_bots", "bots' moves (play_bots)")
    timed(actions, "advance_set", "end of a set (advance_set, all)")
    timed(actions, "draw_set", "  draw (draw_set)")
    timed(game_actions, "create_seated_game", "  tables' games (create_seated_game)")
    timed(actions, "score_set", "  scores (score_set)")
    timed(actions, "write_standings", "  standings (write_standings)")
    timed(tables_read, "push_standings", "  push (push_standings)")
    out = io.StringIO()
    call_command(
        "create_tournament", "--format", fmt, "--players", str(players),
        "--rounds", str(rounds), "--sets", str(sets), "--deals", str(deals), "--duplicate",
        "--open", "--seed", "bench-event", stdout=out,
    )  # fmt: skip
    pk = re.search(r"id: (\d+)", out.getvalue()).group(1)
    start = time.perf_counter()
    call_command("simulate_tournament", pk, stdout=io.StringIO())
    wall = time.perf_counter() - start
    print(
        f"(c) a simulated {fmt} event: {players} players, {rounds} rounds x {sets} sets x "
        f"{deals} deals, duplicate: {wall:.1f} s wall"
    )
    print("    (moves include the end of a set when they finish it: eager tasks)")
    for label in spent:
        print(f"    {label:<40} {spent[label]:8.2f} s  {calls[label]:7d} calls")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=24, help="(c) the event's players")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sets", type=int, default=3)
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--format", default="rotating", help="(c) rotating, writer-stays, pairs")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-event", action="store_true")
    opts = parser.parse_args()
    bench_draw(260, opts.repeats)
    setup_django()
    bench_standings(65, 8, opts.repeats)
    if not opts.skip_event:
        bench_event(opts.players, opts.rounds, opts.sets, opts.deals, opts.format)


if __name__ == "__main__":
    main()
