"""/healthz (200 when database, Redis and workers answer; 503 with the reason when not)
and the stuck-game sweeper (a game waiting on a bot gets its bot task again, once)."""

from __future__ import annotations

import datetime as dt
import doctest

import pytest
from django.test import Client
from django.utils import timezone

import engine
from game import actions
from game.models import Game
from ops import ratelimit, sweeper
from tests.helpers import PRODUCTION_STACK, wait_for_turn

pytestmark = [pytest.mark.usefixtures("live_game_db")]


def test_healthz_is_200_with_every_check(client):
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "redis", "workers"}
    assert all(check["ok"] for check in body["checks"].values())
    assert response["Cache-Control"].startswith("max-age=0")
    if PRODUCTION_STACK:
        assert body["checks"]["workers"]["queues"]  # our test worker's queue has a consumer


def test_healthz_is_503_when_redis_is_unreachable(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.HEALTHZ_TIMEOUT = 0.5
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["redis"]["ok"] is False and body["checks"]["redis"]["error"]
    assert body["checks"]["workers"]["ok"] is False


@pytest.mark.skipif(not PRODUCTION_STACK, reason="workers are checked only with a real broker")
def test_healthz_is_503_when_a_queue_has_no_worker(client, settings):
    settings.HEALTHZ_QUEUES = ["nobody-consumes-this-queue"]
    settings.HEALTHZ_TIMEOUT = 0.5
    response = client.get("/healthz")
    assert response.status_code == 503
    error = response.json()["checks"]["workers"]["error"]
    assert "nobody-consumes-this-queue" in error


def test_healthz_answers_only_get(client):
    assert client.post("/healthz").status_code == 405


def _stuck_game(user, seed: str) -> Game:
    """A game left on a bot's turn, as if the worker had died before playing it."""
    game = wait_for_turn(actions.create_game(user, seed=seed).public_id)
    eng = engine.Game.replay(game.seed, game.rules, game.actions)
    while True:  # a South card after which a bot is to move
        probe = eng.clone()
        probe.apply_action(probe.legal_actions()[0])
        if probe.to_move != 0:
            break
        eng = probe
    eng.apply_action(eng.legal_actions()[0])
    long_ago = timezone.now() - dt.timedelta(minutes=5)
    # Test setup only: the row written directly, as a crashed worker would leave it
    # (South's move committed: a bot seat is to move).
    Game.objects.filter(pk=game.pk).update(
        actions=eng.actions,
        seq=len(eng.actions),
        state=eng.observation(0),
        updated=long_ago,
        awaiting_bot=True,
    )
    return Game.objects.get(pk=game.pk)


def test_the_sweeper_replays_a_stuck_bot_turn_exactly_once(user):
    game = _stuck_game(user, "sweep-1")
    assert game.state["to_move"] != 0
    assert sweeper.sweep() >= 1
    after = wait_for_turn(game.public_id)
    assert after.seq > game.seq and after.actions[: game.seq] == game.actions
    replayed = engine.Game.replay(after.seed, after.rules, after.actions)
    assert replayed.observation(0) == after.state
    # Not stuck any more: a second sweep leaves it alone; a repeated task does nothing.
    assert sweeper.kick_if_stuck(after.public_id, older_than=0) is False
    assert actions.play_bots(after.pk, game.seq) == 0
    assert Game.objects.get(pk=game.pk).seq == after.seq


def test_a_recent_game_is_not_swept(user):
    game = _stuck_game(user, "sweep-2")
    Game.objects.filter(pk=game.pk).update(updated=timezone.now())
    assert sweeper.kick_if_stuck(game.public_id) is False
    assert Game.objects.get(pk=game.pk).seq == game.seq


def test_the_sweeper_runs_from_beat_and_on_reconnect():
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()
    assert "ops.tasks.sweep_stuck_games" in app.tasks
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "ops.tasks.sweep_stuck_games" in scheduled
    assert settings.CELERY_TASK_ACKS_LATE is True
    import inspect

    from game import consumers

    source = inspect.getsource(consumers.GameConsumer)
    assert source.count("kick_if_stuck") >= 2  # on connect and on a snapshot request


def test_token_bucket_doctest():
    assert doctest.testmod(ratelimit).failed == 0


def test_invalid_game_ids_are_not_stuck():
    assert sweeper.kick_if_stuck("not-a-uuid") is False
    assert sweeper.kick_if_stuck("00000000-0000-0000-0000-000000000000") is False


def test_healthz_needs_no_login_and_shows_no_secret(client, settings):
    body = Client().get("/healthz").content.decode()
    assert settings.SECRET_KEY not in body
    if settings.DATABASES["default"].get("PASSWORD"):
        assert settings.DATABASES["default"]["PASSWORD"] not in body


@pytest.mark.django_db
def test_the_sweeper_scan_has_a_partial_index():
    """The sweeper runs every minute over the games table; finished games pile up
    forever, so its scan must go through the partial index of active games by age."""
    from django.db import connection, transaction

    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Game._meta.db_table)
    assert constraints["game_active_by_updated"]["columns"] == ["updated"]
    if connection.vendor != "postgresql":
        return
    sql, params = (
        sweeper._stuck(60).order_by("updated").values_list("pk", "seq").query.sql_with_params()
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # an empty table: ask what it can use
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "game_active_by_updated" in plan, plan
