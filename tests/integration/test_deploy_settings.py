"""Deployment settings read from the environment (config/settings.py, config/asgi.py):
the example's SECRET_KEY is refused, a transaction pooler turns server-side cursors
off, the channel layer may have its own Redis, the language cookie is secure in
production, and the ASGI process keeps no persistent database connection."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.helpers import ROOT
from tests.integration.test_settings import MANAGED, load

EXAMPLE = ROOT / "deploy" / "manillen.env.example"
PROD = {
    "DEBUG": "0",
    "SECRET_KEY": "x7#kq2-" + "a9Zp4Lm1" * 8,
    "ALLOWED_HOSTS": "manillen.example.org",
}


def example_value(name: str) -> str:
    for line in EXAMPLE.read_text().splitlines():
        if line.startswith(f"{name}="):
            return line.split("=", 1)[1]
    raise AssertionError(f"{name} is not in {EXAMPLE}")


def test_the_example_secret_key_is_refused_in_production(monkeypatch):
    key = example_value("SECRET_KEY")
    with pytest.raises(ImproperlyConfigured, match="example's placeholder"):
        load(monkeypatch, **{**PROD, "SECRET_KEY": key})
    # Any key starting like it, too (an operator who only appended something).
    with pytest.raises(ImproperlyConfigured, match="example's placeholder"):
        load(monkeypatch, **{**PROD, "SECRET_KEY": "Change-me" + "q8Zr" * 15})


@pytest.mark.parametrize("key", ["secret", "build-only", "x" * 15])
def test_an_obviously_short_key_is_refused_in_production(monkeypatch, key):
    with pytest.raises(ImproperlyConfigured, match="characters long"):
        load(monkeypatch, **{**PROD, "SECRET_KEY": key})


def test_keys_are_free_in_debug_and_a_real_key_passes(monkeypatch):
    assert load(monkeypatch, DEBUG="1", SECRET_KEY="change-me")["SECRET_KEY"] == "change-me"
    assert load(monkeypatch, **PROD)["SECRET_KEY"] == PROD["SECRET_KEY"]


def test_a_transaction_pooler_turns_server_side_cursors_off(monkeypatch):
    url = "postgres://u:p@pgbouncer.internal:6432/manillen"
    plain = load(monkeypatch, DATABASE_URL=url)["DATABASES"]["default"]
    assert plain["DISABLE_SERVER_SIDE_CURSORS"] is False
    pooled = load(monkeypatch, DATABASE_URL=url, DATABASE_POOLER="transaction")
    assert pooled["DATABASES"]["default"]["DISABLE_SERVER_SIDE_CURSORS"] is True
    direct = load(monkeypatch, DATABASE_URL=url, DISABLE_SERVER_SIDE_CURSORS="1")
    assert direct["DATABASES"]["default"]["DISABLE_SERVER_SIDE_CURSORS"] is True
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOLER"):
        load(monkeypatch, DATABASE_URL=url, DATABASE_POOLER="statement")


def test_the_channel_layer_may_have_its_own_redis(monkeypatch):
    s = load(monkeypatch, REDIS_URL="redis://main.internal:6379/0")
    assert s["CHANNEL_LAYERS"]["default"]["CONFIG"]["hosts"][0]["address"] == (
        "redis://main.internal:6379/0"
    )
    s = load(
        monkeypatch,
        REDIS_URL="redis://main.internal:6379/0",
        CHANNELS_REDIS_URL="redis://layer.internal:6379/0",
    )
    assert s["CHANNEL_LAYERS"]["default"]["CONFIG"]["hosts"][0]["address"] == (
        "redis://layer.internal:6379/0"
    )
    assert s["CELERY_BROKER_URL"] == "redis://main.internal:6379/0"
    assert s["CACHES"]["default"]["LOCATION"] == "redis://main.internal:6379/0"
    with pytest.raises(ImproperlyConfigured, match="CHANNELS_REDIS_URL"):
        load(monkeypatch, REDIS_URL="redis://main.internal:6379/0", CHANNELS_REDIS_URL="http://x")


def test_the_language_cookie_is_secure_in_production(monkeypatch):
    assert load(monkeypatch, **PROD)["LANGUAGE_COOKIE_SECURE"] is True
    assert "LANGUAGE_COOKIE_SECURE" not in load(monkeypatch, DEBUG="1")


def _conn_max_age(module: str, **extra) -> str:
    env = {k: v for k, v in os.environ.items() if k not in MANAGED}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL="postgres://u:p@db.invalid:5432/manillen",
        **extra,
    )
    code = (
        f"import {module}, os; from django.conf import settings; "
        "db = settings.DATABASES['default']; pool = db.get('OPTIONS', {}).get('pool'); "
        "print(db['CONN_MAX_AGE'], os.environ.get('DATABASE_CONN_MAX_AGE', '-'), "
        "pool['max_size'] if pool else '-', os.environ.get('DATABASE_POOL_SIZE', '-'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_the_asgi_process_pools_its_connections_and_workers_keep_theirs():
    from config.asgi import POOL_SIZE

    # The web process (config.asgi): no persistent connection but a pool, and the
    # variable is not left for its children.
    assert _conn_max_age("config.asgi") == ["0", "-", str(POOL_SIZE), "-"]
    assert POOL_SIZE >= 7  # asgiref's executor (at least 5 threads) + the sync views
    # A Celery worker (config.celery, no ASGI) keeps its connection 60 s, no pool.
    assert _conn_max_age("config.celery") == ["60", "-", "-", "-"]
    # An operator's value wins everywhere: persistent connections (then no pool) ...
    assert _conn_max_age("config.asgi", DATABASE_CONN_MAX_AGE="5") == ["5", "5", "-", "-"]
    # ... or a pool of another size (or none) ...
    assert _conn_max_age("config.asgi", DATABASE_POOL_SIZE="3") == ["0", "-", "3", "3"]
    assert _conn_max_age("config.asgi", DATABASE_POOL_SIZE="0") == ["0", "-", "-", "0"]
    assert _conn_max_age("config.celery", DATABASE_POOL_SIZE="4") == ["0", "-", "4", "4"]


def test_a_pool_and_persistent_connections_are_refused_together(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOL_SIZE"):
        load(monkeypatch, DATABASE_POOL_SIZE="4", DATABASE_CONN_MAX_AGE="60")


def test_collected_javascript_modules_import_each_other_by_their_hashed_names(
    monkeypatch, tmp_path
):
    """In production every static file is served for a year as immutable (nginx); the
    table's modules import each other ("./socket.js"), so those imports must name the
    hashed files too: after a deploy a returning browser otherwise runs the new main.js
    with last year's socket.js."""
    import re

    from django.core.management import call_command
    from django.test import override_settings

    storage = load(monkeypatch, **PROD)["STORAGES"]["staticfiles"]
    assert storage == {"BACKEND": "config.storage.StaticStorage"}
    with override_settings(STORAGES={"staticfiles": storage}, STATIC_ROOT=tmp_path):
        call_command("collectstatic", "--noinput", verbosity=0)
    hashed = re.compile(r"\.[0-9a-f]{12}\.js$")
    imports = re.compile(r"""(?:from|import)\s*["'](\.{1,2}/[^"']+)["']""")
    checked = 0
    for path in tmp_path.rglob("*.js"):
        if not hashed.search(path.name):
            continue
        for target in imports.findall(path.read_text()):
            checked += 1
            assert hashed.search(target), f"{path.relative_to(tmp_path)} imports {target}"
            assert (path.parent / target).resolve().exists(), target
    assert checked >= 8  # the table's modules and the tournaments' busy.js at least
