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
    from ops.tasks import sweep_stuck_games

    sweep_stuck_games()  # as beat has it run every SWEEP_EVERY seconds
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "redis", "workers", "beat"}
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


def _table_of_two(user, other) -> Game:
    game = actions.create_table(user, rules="flemish", bot_level="heuristic", clock=0)
    actions.add_bot(game.public_id, user, 1)
    actions.sit(game.public_id, other, 2)
    actions.add_bot(game.public_id, user, 3)
    actions.start(game.public_id, user)
    return Game.objects.get(pk=game.pk)


def test_a_seat_left_counted_by_a_killed_web_process_is_taken_over(user, other_user, settings):
    """North's socket was in a web process killed outright: it never closed, so the seat
    stays counted "connected" and the bot would never play it. Its heartbeat stopped:
    after three beats the sweeper resets the count (away since the last beat), and once
    the takeover delay has passed the bot takes the seat."""
    game = _table_of_two(user, other_user)
    actions.connect(game.public_id, other_user)  # ... then the process dies
    seat = actions.seats_of(game)[2]
    assert seat.connections == 1 and seat.seen_at is not None
    assert actions.seat_seen(game.public_id, other_user) == 1  # a beat: alive
    assert sweeper.reset_stale_counts() == 0
    beat = settings.GAME_SEAT_HEARTBEAT
    last = timezone.now() - dt.timedelta(seconds=3 * beat + 5)
    Game.objects.get(pk=game.pk).seats.filter(index=2).update(seen_at=last)
    assert sweeper.reset_stale_counts() == 1
    seat = actions.seats_of(game)[2]
    assert seat.connections == 0 and seat.disconnected_at == last and not seat.bot_control
    assert sweeper.take_over_lost_seats(30) == 0  # away for less than the delay + 30 s
    later = timezone.now() + dt.timedelta(seconds=settings.GAME_DISCONNECT_TAKEOVER + 31)
    assert sweeper.take_over_lost_seats(30, now=later) == 1
    seat = actions.seats_of(game)[2]
    assert seat.bot_control and seat.bot_reason == "away"
    assert sweeper.take_over_lost_seats(30, now=later) == 0  # once


def test_a_takeover_lost_with_a_bot_worker_still_happens(user, other_user, settings):
    """North closed the tab; the countdown task of the takeover was held by a bot worker
    that was killed (Redis returns it after an hour, or never): the sweeper does it."""
    game = _table_of_two(user, other_user)
    actions.connect(game.public_id, other_user)
    actions.seat_disconnected(game.public_id, other_user)
    away = timezone.now() - dt.timedelta(seconds=settings.GAME_DISCONNECT_TAKEOVER + 40)
    Game.objects.get(pk=game.pk).seats.filter(index=2).update(disconnected_at=away)
    assert sweeper.sweep() == 0 and actions.seats_of(game)[2].bot_control  # in sweep()


@pytest.mark.skipif(not PRODUCTION_STACK, reason="beat runs only beside a real broker")
def test_healthz_is_503_when_beat_does_not_run(client, settings):
    """Everything answers, but nothing has run the periodic sweep for a while (no beat,
    or no worker of the celery queue): stuck games would never be swept."""
    import time

    from django.core.cache import cache

    from ops.health import BEAT_KEY

    cache.set(BEAT_KEY, time.time() - max(3 * settings.SWEEP_EVERY, 60) - 5, timeout=None)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "celery beat" in response.json()["checks"]["beat"]["error"]
    cache.delete(BEAT_KEY)
    assert "has not run" in client.get("/healthz").json()["checks"]["beat"]["error"]
