"""config/settings.py: one module read from the environment; bad values fail loudly."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.helpers import ROOT

SETTINGS = str(ROOT / "config" / "settings.py")
PROD_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x7#kq2-" + "a9Zp4Lm1" * 8,
    "ALLOWED_HOSTS": "manillen.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://manillen.example.org",
}
MANAGED = [
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DATABASE_URL",
    "REDIS_URL", "DATABASE_NAME", "SECURE_HSTS_SECONDS", "GAME_DEFAULT_RULES",
    "GAME_DEFAULT_BOT", "TIME_ZONE", "LOG_LEVEL", "DATABASE_POOLER",
    "DISABLE_SERVER_SIDE_CURSORS", "DATABASE_CONN_MAX_AGE", "CHANNELS_REDIS_URL",
    "DATABASE_POOL_SIZE",
]  # fmt: skip


def load(monkeypatch, **env) -> dict:
    for name in MANAGED:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(SETTINGS)


def test_default_is_the_embedded_stack(monkeypatch):
    s = load(monkeypatch)
    assert s["DEBUG"] is True
    assert s["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert s["CHANNEL_LAYERS"]["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
    assert s["CELERY_TASK_ALWAYS_EAGER"] is True
    assert s["LANGUAGE_CODE"] == "nl-be"
    assert {"nl", "en"} <= {code for code, _ in s["LANGUAGES"]}
    assert "django.middleware.locale.LocaleMiddleware" in s["MIDDLEWARE"]


def test_urls_switch_to_postgres_redis_and_a_real_broker(monkeypatch):
    s = load(
        monkeypatch,
        DATABASE_URL="postgres://u:p@db.internal:5432/manillen",
        REDIS_URL="redis://cache.internal:6379/0",
    )
    db = s["DATABASES"]["default"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["HOST"], db["PORT"]) == ("manillen", "db.internal", 5432)
    # A worker's kept connection is tested before a task uses it (no pool there): one
    # the server dropped made every thread fail a bot turn first.
    assert db["CONN_HEALTH_CHECKS"] is True and "pool" not in db.get("OPTIONS", {})
    assert s["CHANNEL_LAYERS"]["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert s["CELERY_BROKER_URL"] == "redis://cache.internal:6379/0"
    assert s["CELERY_TASK_ALWAYS_EAGER"] is False


@pytest.mark.parametrize(
    "env",
    [
        {"DEBUG": "maybe"},
        {"DEBUG": "0", "ALLOWED_HOSTS": "x.example"},  # no SECRET_KEY
        {"DEBUG": "0", "SECRET_KEY": "k" * 60},  # no ALLOWED_HOSTS
        {"DATABASE_URL": "nosuchdb://somewhere/x"},
        {"REDIS_URL": "http://cache.internal:6379"},
        {"CSRF_TRUSTED_ORIGINS": "manillen.example.org"},
        {**PROD_ENV, "SECURE_HSTS_SECONDS": "a month"},
        {"GAME_DEFAULT_RULES": "chess"},
        {"GAME_DEFAULT_BOT": "godlike"},
        {"TIME_ZONE": "Mars/Olympus"},
        {"LOG_LEVEL": "LOUD"},
    ],
    ids=["bad-bool", "no-secret", "no-hosts", "bad-db-url", "bad-redis-url", "bad-origin",
         "bad-int", "bad-rules", "bad-bot", "bad-zone", "bad-log-level"],
)  # fmt: skip
def test_bad_values_fail_loudly(monkeypatch, env):
    with pytest.raises(ImproperlyConfigured):
        load(monkeypatch, **env)


def test_production_values_pass_check_deploy():
    env = {k: v for k, v in os.environ.items() if k not in MANAGED}
    env.update(PROD_ENV, DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
