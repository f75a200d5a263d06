"""Shared fixtures for the integration and realtime suites.

Two modes, one suite:
- embedded (default): SQLite, InMemoryChannelLayer, Celery tasks run eagerly in process;
- production stack (DATABASE_URL and REDIS_URL set, as in .ci/run): PostgreSQL,
  channels_redis and a REAL Celery worker process, started here once per session and
  pointed at the test database that pytest-django created.
Tests that make moves use `transactional_db` so that commits (and so on_commit events
and task dispatch) really happen and a worker in another process can see the rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.helpers import PRODUCTION_STACK, ROOT


def pytest_configure(config):
    # With REDIS_URL the cache (rate limiters, ...) lives in Redis, which outlives a run:
    # counts left by an earlier run, or a run beside this one, must not leak into it.
    from django.conf import settings

    # Clock and away-takeover timers: tests call the tasks themselves (game/actions.py).
    settings.GAME_EMBEDDED_TIMERS = False
    cache = settings.CACHES.get("default", {})
    if "redis" in cache.get("BACKEND", "").lower():
        cache["KEY_PREFIX"] = f"{cache.get('KEY_PREFIX', '')}test{os.getpid()}"
    # The absence check at a tournament table's start is a task with a countdown: in a
    # test that does not ask for it, it would fire seconds later into another test.
    # Tests of absent players set their own grace.
    settings.TABLES_ABSENT_GRACE = 0
    os.environ.setdefault("TABLES_ABSENT_GRACE", "0")  # the worker and test servers
    # Bots at a table where no person plays move at once here, as they did before the
    # pace (a person's); the tests of the pace set their own.
    settings.GAME_BOTS_ALONE_PACE = 0
    os.environ.setdefault("GAME_BOTS_ALONE_PACE", "0")
    if PRODUCTION_STACK:
        _flush_retries_deadlocks()


def _flush_retries_deadlocks() -> None:
    """A test's teardown empties the tables (TRUNCATE) while the real worker may still
    run a task queued with a countdown (a clock, a takeover): PostgreSQL then breaks the
    deadlock by aborting one of them. The flush is all or nothing, so it is tried again."""
    from django.db import OperationalError
    from django.db.backends.postgresql.operations import DatabaseOperations

    flush = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        for attempt in range(5):
            try:
                return flush(self, sql_list)
            except OperationalError as exc:
                if "deadlock" not in str(exc) or attempt == 4:
                    raise
                time.sleep(0.2 * (attempt + 1))

    DatabaseOperations.execute_sql_flush = execute_sql_flush


@pytest.fixture(autouse=True)
def fast_password_hashing(request, settings):
    """MD5 instead of PBKDF2 for the accounts a test makes in this process (PBKDF2 costs
    about half a second per user on a busy machine, and most tests make two). Not for
    the browser tests: their server is another process, with the real hashers, and
    checks the passwords of the accounts made here."""
    if "browser" not in request.node.path.parts:
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_socket_budget():
    """Each test starts with an empty per-user websocket budget (ops/sockets.py): user
    ids are reused between tests, counts of an earlier test must not refuse this one's."""
    from ops.sockets import game_sockets

    game_sockets.reset()


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test gets its own channel layer, as each server process has its own (with its
    one event loop). A test runs in an event loop of its own, and channels_redis keeps
    receive state bound to the loop it was made in: a test whose loop ended with a
    consumer still receiving (a failed assertion before its disconnect) would otherwise
    make every later consumer's receive fail ("bound to a different event loop") and
    turn one failure into a cascade of timeouts."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()


def pytest_report_header(config):
    if PRODUCTION_STACK:
        return "manillen: production stack (PostgreSQL + channels_redis + Celery worker)"
    return "manillen: embedded mode (SQLite + in-memory layer + eager Celery)"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    # Consumers reach the database from executor threads; persistent connections there
    # would outlive the tests and keep PostgreSQL from dropping the test database.
    from django.conf import settings

    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0
    if PRODUCTION_STACK:
        # Several test runs may share one PostgreSQL server (developers on one machine).
        db = settings.DATABASES["default"]
        db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database; on PostgreSQL its other sessions are ended before
    it is dropped. A consumer's executor thread of an earlier test may still hold an idle
    connection to it, and one is enough to make the drop fail: each run would leave its
    database behind (test_<name>_<pid>) on a developer's server."""
    yield
    if not PRODUCTION_STACK:
        return
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session")
def bot_worker(django_db_setup, django_db_blocker):
    """A Celery worker on this run's bots, rankings and exports queues (production stack
    only), else None."""
    if not PRODUCTION_STACK:
        yield None
        return
    from django.conf import settings
    from django.db import connection

    from config.celery import app

    name = f"manillen-test-{os.getpid()}@localhost"
    os.environ["MANILLEN_TEST_WORKER"] = name  # tests.helpers.wait_for_idle_worker
    # A queue of our own: another run (or a dev worker) on the same Redis must neither
    # take our tasks (its database is not ours) nor have its tasks purged by us.
    queue = f"bots-test-{os.getpid()}"
    settings.GAME_BOTS_QUEUE = queue
    # The tournaments' tasks too: a game that a bot's card finishes schedules the
    # rankings from the worker, and a browser test's server sends them (tests/browser).
    settings.TOURNAMENTS_RANKINGS_QUEUE = f"rankings-test-{os.getpid()}"
    settings.TOURNAMENTS_EXPORTS_QUEUE = f"exports-test-{os.getpid()}"
    queues = [queue, settings.TOURNAMENTS_RANKINGS_QUEUE, settings.TOURNAMENTS_EXPORTS_QUEUE]
    env = {
        **os.environ,
        "DATABASE_NAME": connection.settings_dict["NAME"],
        # A bot turn the worker itself queues (after a disconnect, clock or absence
        # takeover it ran) must come back to this run's queue, not the default "bots".
        "GAME_BOTS_QUEUE": queue,
        "TOURNAMENTS_RANKINGS_QUEUE": settings.TOURNAMENTS_RANKINGS_QUEUE,
        "TOURNAMENTS_EXPORTS_QUEUE": settings.TOURNAMENTS_EXPORTS_QUEUE,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", ",".join(queues),
         "-c", "1", "--pool=solo", "-l", "warning", "-n", name, "--without-gossip",
         "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"celery worker exited with code {proc.returncode}")
            replies = app.control.ping(destination=[name], timeout=0.5)
            if replies:
                break
            if time.monotonic() > deadline:
                pytest.fail("celery worker did not answer a ping within 60 s")
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def live_game_db(transactional_db, bot_worker):
    """Committed database + whatever plays the bots in this mode."""
    return bot_worker


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("south", password="pw-south-123")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("intruder", password="pw-intruder-123")
