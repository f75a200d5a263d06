"""The embedded mode (`make run`: no Celery worker, no beat) runs the tournaments'
periodic tasks itself (ops/beat.py): a server started as `make run` starts it closes a
tournament whose play window has ended, and rates it, with nobody calling the tick; and
the bot takes the seat of someone who left a table while the server was down."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import urllib.request

from tests.helpers import ROOT, free_port, start_uvicorn

SETUP = """
import datetime as dt
from django.contrib.auth import get_user_model
from django.utils import timezone
from game.models import Game
from tournaments import actions
from tournaments.models import Entry, Tournament

User = get_user_model()
organizer = User.objects.create_user("organisator", password="x-123-abc", is_staff=True)
t = actions.create_tournament(
    organizer, name="Avondje", open_now=True, seed="beat-seed", results_audience="everyone"
)
for name, score in (("anna", 40), ("bert", -10)):
    user = User.objects.create_user(name, password="x-123-abc")
    game = Game.objects.create(owner=user, seed=t.seed, rules=t.rules)
    Entry.objects.create(tournament=t, player=user, game=game, status="finished",
                         score=score, game_score=score, deals_played=1,
                         finished_at=timezone.now())
Tournament.objects.filter(pk=t.pk).update(ends_at=timezone.now() - dt.timedelta(minutes=1))
print(t.pk)
"""

# A casual table whose guest left while the server was down (a restart, an upgrade): the
# in-process timer that gives the bot their seat was lost with the old process.
LEFT_IN_A_RESTART = """
import datetime as dt
from django.contrib.auth import get_user_model
from django.utils import timezone
from game import actions
from game.models import Game, Seat

User = get_user_model()
host = User.objects.create_user("gastheer", password="x-123-abc")
rita = User.objects.create_user("rita", password="x-123-abc")
game = actions.create_table(host)
actions.sit(game.public_id, rita, 2)
for seat in (1, 3):
    actions.add_bot(game.public_id, host, seat)
actions.start(game.public_id, host)
game = Game.objects.get(pk=game.pk)
Seat.objects.filter(game=game, user=rita).update(
    connections=0, disconnected_at=timezone.now() - dt.timedelta(minutes=10)
)
Seat.objects.filter(game=game, user=host).update(connections=1, seen_at=timezone.now())
print(game.pk)
"""


def test_the_embedded_server_closes_and_rates_a_tournament_by_itself(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "DATABASE_NAME", "REDIS_URL")
    }
    db = tmp_path / "beat.sqlite3"
    env.update(SQLITE_PATH=str(db), DEBUG="1", EMBEDDED_BEAT="1", EMBEDDED_BEAT_FIRST="1")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)

    def made(script: str) -> int:
        """The id a set-up script prints last, run in `manage.py shell`."""
        out = subprocess.run(
            [*manage, "shell", "-c", script],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        return int(out.stdout.strip().splitlines()[-1])

    pk = made(SETUP)
    table = made(LEFT_IN_A_RESTART)

    def rita_is_played_by_the_bot() -> bool:
        with sqlite3.connect(db) as conn:
            (bot,) = conn.execute(
                'SELECT bot_control FROM game_seat WHERE game_id = ? AND "index" = 2',
                (table,),
            ).fetchone()
        return bool(bot)

    assert not rita_is_played_by_the_bot()

    def status() -> tuple[str, int]:
        with sqlite3.connect(db) as conn:
            (state,) = conn.execute(
                "SELECT status FROM tournaments_tournament WHERE id = ?", (pk,)
            ).fetchone()
            (rated,) = conn.execute(
                "SELECT COUNT(*) FROM tournaments_ratingchange WHERE tournament_id = ?", (pk,)
            ).fetchone()
        return state, rated

    assert status() == ("running", 0)
    port = free_port()
    log = tmp_path / "server.log"
    server = start_uvicorn(env, port, log)
    try:
        deadline = time.monotonic() + 40
        while status() != ("closed", 2) or not rita_is_played_by_the_bot():
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, (status(), log.read_text())
            time.sleep(0.5)
        # The server answers all along (the beat is a thread of its own).
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/tournaments/ratings/").read()
        assert b"anna" in page and b"bert" in page
    finally:
        server.terminate()
        server.wait(timeout=10)
