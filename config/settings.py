"""One settings module, read from the environment (healthchecks style).

Without any environment this is the embedded default: SQLite, the in-memory channel
layer and Celery tasks run eagerly in process. Setting DATABASE_URL and REDIS_URL
switches to PostgreSQL, channels_redis and a real Celery broker. A value that cannot
be understood stops the process with ImproperlyConfigured instead of being guessed at.
"""

import os
import zoneinfo
from pathlib import Path
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
# deploy/manillen.env.example's placeholder starts with this: a copied example file must
# not serve production with a key everybody can read (it would pass `check --deploy`).
EXAMPLE_SECRET_KEY_PREFIX = "change-me"
# Below this a key is a placeholder, not a secret. `check --deploy` (run before every
# start by manillen-migrate and compose's init) still asks for 50+; this shorter floor
# leaves build-time runs with a throwaway key (collectstatic) working.
SECRET_KEY_MIN_LENGTH = 16
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "django-insecure-embedded-default-only-for-local-play"
elif not DEBUG:
    if SECRET_KEY.strip().lower().startswith(EXAMPLE_SECRET_KEY_PREFIX):
        raise ImproperlyConfigured(
            "SECRET_KEY is the example's placeholder (it starts with "
            f"{EXAMPLE_SECRET_KEY_PREFIX!r}): set 50+ random characters, e.g. "
            'python -c "import secrets; print(secrets.token_urlsafe(50))"'
        )
    if len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH:
        raise ImproperlyConfigured(
            f"SECRET_KEY is {len(SECRET_KEY)} characters long: set 50+ random characters, "
            'e.g. python -c "import secrets; print(secrets.token_urlsafe(50))"'
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"  # the site's page, not Django's bare one
for _origin in CSRF_TRUSTED_ORIGINS:
    if urlparse(_origin).scheme not in ("http", "https"):
        raise ImproperlyConfigured(f"CSRF_TRUSTED_ORIGINS entry {_origin!r} needs a scheme")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "game",
    "tournaments",
    "accounts",  # sign-up; its makemessages also extracts N_("…") strings
]

MIDDLEWARE = [
    # Scripts only from our own files: injected markup cannot run (config/middleware.py).
    # First, so that every response has it, also one refused before the views.
    "config.middleware.ContentSecurityPolicyMiddleware",
    # A NUL byte in the address or a form: 400, not a database error (PostgreSQL).
    "config.middleware.RefuseNulBytesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # Overrides LocaleMiddleware's choice: cookie or nl-be, never Accept-Language.
    "config.middleware.ChosenLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A results page asks someone who has not entered before ruling them out (LookFirst).
    "tournaments.middleware.LookFirstMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
# Connections kept open in a pool per process (Django's psycopg pool, PostgreSQL only; 0:
# none): a request or websocket call borrows an open connection and gives it back, instead
# of opening one (~9 ms) and closing it. config/asgi.py sets it for the web (ASGI)
# processes. A pool replaces persistent connections (Django allows only one of the two).
DATABASE_POOL_SIZE = max(0, env_int("DATABASE_POOL_SIZE", 0))
# Seconds a process keeps its database connection (without a pool). Not for the ASGI web
# process (Django: persistent connections are not for ASGI, where each request's thread
# may differ; it pools instead); Celery workers and management commands keep 60.
DATABASE_CONN_MAX_AGE = env_int("DATABASE_CONN_MAX_AGE", 0 if DATABASE_POOL_SIZE else 60)
if DATABASE_POOL_SIZE and DATABASE_CONN_MAX_AGE:
    raise ImproperlyConfigured(
        "DATABASE_POOL_SIZE and DATABASE_CONN_MAX_AGE: a pool replaces persistent "
        "connections; set DATABASE_CONN_MAX_AGE=0 or DATABASE_POOL_SIZE=0"
    )
# PgBouncer in transaction mode (or any pooler that hands a transaction, not a session,
# to a client) breaks server-side cursors (QuerySet.iterator() on PostgreSQL): a cursor
# declared in one transaction is gone in the next. DATABASE_POOLER=transaction, or
# DISABLE_SERVER_SIDE_CURSORS=1, turns them off (Django's DISABLE_SERVER_SIDE_CURSORS).
DATABASE_POOLER = os.environ.get("DATABASE_POOLER", "").strip().lower()
if DATABASE_POOLER not in ("", "session", "transaction"):
    raise ImproperlyConfigured(
        f"DATABASE_POOLER={DATABASE_POOLER!r}: use transaction (PgBouncer's transaction "
        "mode) or session, or leave it unset"
    )
DISABLE_SERVER_SIDE_CURSORS = env_bool(
    "DISABLE_SERVER_SIDE_CURSORS", DATABASE_POOLER == "transaction"
)
if DATABASE_URL:
    try:
        DATABASES = {
            "default": dj_database_url.parse(DATABASE_URL, conn_max_age=DATABASE_CONN_MAX_AGE)
        }
    except Exception as exc:  # dj_database_url raises several types for bad URLs
        raise ImproperlyConfigured(f"DATABASE_URL is not understood: {exc}") from exc
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = DISABLE_SERVER_SIDE_CURSORS
    # A kept connection is tested before a request or task uses it again (with a pool:
    # before the pool lends it): one the server dropped while it waited (a PostgreSQL
    # restart, a pooler's idle timeout) is replaced, not handed on to fail. Without it a
    # bot worker's threads each failed a turn on their dead connection first (20-40 s).
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    if DATABASE_POOL_SIZE:
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": DATABASE_POOL_SIZE,
            "timeout": 20,  # seconds a request waits for a free connection
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # The embedded default has several writers (web + eager bot tasks in threads).
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
# A separate Celery worker must use the database pytest-django created ("test_...").
if os.environ.get("DATABASE_NAME"):
    DATABASES["default"]["NAME"] = os.environ["DATABASE_NAME"]
    DATABASES["default"].setdefault("TEST", {})["NAME"] = os.environ["DATABASE_NAME"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- channels + celery ------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
# The channel layer may get a Redis of its own (deploy/README.md, scaling): the broker
# and the cache stay on REDIS_URL.
CHANNELS_REDIS_URL = os.environ.get("CHANNELS_REDIS_URL", "") or REDIS_URL
if REDIS_URL:
    for _name, _url in (("REDIS_URL", REDIS_URL), ("CHANNELS_REDIS_URL", CHANNELS_REDIS_URL)):
        if urlparse(_url).scheme not in ("redis", "rediss", "unix"):
            raise ImproperlyConfigured(f"{_name}={_url!r} must be a redis:// URL")
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 reads with a 5 s socket timeout by default, exactly the
                # channel layer's blocking-pop wait (BZPOPMIN, 5 s): an idle websocket's
                # receive then fails with TimeoutError and the consumer dies (the browser
                # sees a close and reconnects, and misses what is pushed meanwhile).
                # A read may wait longer than the pop; a dead Redis is still noticed.
                # max_connections: redis-py's pool refuses (not waits) past its default
                # of 100, which a burst of sockets joining their groups reaches.
                "hosts": [
                    {
                        "address": CHANNELS_REDIS_URL,
                        "socket_timeout": 15,
                        "max_connections": env_int("CHANNELS_MAX_CONNECTIONS", 1000),
                    }
                ],
                "prefix": os.environ.get("CHANNELS_PREFIX", "asgi"),
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://localhost/"
    CELERY_RESULT_BACKEND = None
    # Bots play in process: no broker needed for `make run`.
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True

CELERY_TASK_DEFAULT_QUEUE = "celery"
# Queues of the tournaments' tasks (a test run uses its own, see tests/conftest.py).
TOURNAMENTS_RANKINGS_QUEUE = os.environ.get("TOURNAMENTS_RANKINGS_QUEUE", "rankings")
TOURNAMENTS_EXPORTS_QUEUE = os.environ.get("TOURNAMENTS_EXPORTS_QUEUE", "exports")
CELERY_TASK_ROUTES = {
    "game.tasks.*": {"queue": "bots"},
    "tournaments.tasks.recompute_rankings": {"queue": TOURNAMENTS_RANKINGS_QUEUE},
    # The end of a set: scores, standings and the next set's tables (issue 12).
    "tournaments.tasks.advance_set": {"queue": TOURNAMENTS_RANKINGS_QUEUE},
    "tournaments.tasks.build_*": {"queue": TOURNAMENTS_EXPORTS_QUEUE},
    "tournaments.tasks.notify_*": {"queue": TOURNAMENTS_EXPORTS_QUEUE},
}
# The day tournament (daglijst) opens once a day (idempotent: get_or_create by date);
# `tick` starts and closes tournaments whose play window begins or ends.
CELERY_BEAT_SCHEDULE = {
    "open-day-tournament": {"task": "tournaments.tasks.open_day_tournament", "schedule": 15 * 60},
    "tournaments-tick": {"task": "tournaments.tasks.tick", "schedule": 60},
}
# Embedded mode (eager tasks, no beat): the server runs the tournaments' periodic tasks
# above on a thread of its own (ops/beat.py), the first time this many seconds after it
# starts. EMBEDDED_BEAT=0 turns that off.
EMBEDDED_BEAT = env_bool("EMBEDDED_BEAT", True)
EMBEDDED_BEAT_FIRST = env_int("EMBEDDED_BEAT_FIRST", 5)
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- auth -------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# --- e-mail (password reset) ------------------------------------------------------------
# SMTP when EMAIL_HOST is set; otherwise messages are printed on the web process's
# console (the embedded mode: a reset link shows in the terminal of `make run`).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
_EMAIL_BACKENDS = {
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "dummy": "django.core.mail.backends.dummy.EmailBackend",
}
_email_backend = os.environ.get("EMAIL_BACKEND", "").strip()
_email_backend = _email_backend or ("smtp" if EMAIL_HOST else "console")
if _email_backend in _EMAIL_BACKENDS:
    EMAIL_BACKEND = _EMAIL_BACKENDS[_email_backend]
elif "." in _email_backend:
    EMAIL_BACKEND = _email_backend  # a dotted path to a backend class
else:
    raise ImproperlyConfigured(
        f"EMAIL_BACKEND={_email_backend!r}: use smtp, console, dummy or a dotted path"
    )
if EMAIL_BACKEND == _EMAIL_BACKENDS["smtp"] and not EMAIL_HOST:
    raise ImproperlyConfigured("EMAIL_BACKEND=smtp needs EMAIL_HOST")
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)  # implicit TLS (port 465)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)  # STARTTLS (port 587)
if EMAIL_USE_SSL and EMAIL_USE_TLS:
    raise ImproperlyConfigured("EMAIL_USE_SSL and EMAIL_USE_TLS exclude each other")
EMAIL_PORT = env_int("EMAIL_PORT", 465 if EMAIL_USE_SSL else 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # seconds: a stuck server must not hang a page
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Manillen <noreply@localhost>")
# Who runs the site and how to reach them, on the privacy page (/privacy/).
PRIVACY_CONTACT = os.environ.get("PRIVACY_CONTACT", "").strip()
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Reset requests per client address, and per e-mail address, within the window -> 429.
PASSWORD_RESET_RATE_LIMIT = env_int("PASSWORD_RESET_RATE_LIMIT", 5)
PASSWORD_RESET_RATE_WINDOW = env_int("PASSWORD_RESET_RATE_WINDOW", 60 * 60)

# --- i18n -------------------------------------------------------------------------------
LANGUAGE_CODE = "nl-be"
LANGUAGES = [("nl", "Nederlands"), ("en", "English"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["config.formats"]  # ISO-like English dates (config/formats/)
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Brussels")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(f"TIME_ZONE={TIME_ZONE!r} is not a known time zone") from None
USE_I18N = True
USE_TZ = True

# --- static -----------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "config.storage.StaticStorage"
    },
}

# --- security (production) --------------------------------------------------------------
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 30)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    SILENCED_SYSTEM_CHECKS = []
    if not SECURE_HSTS_PRELOAD:
        # Preloading is hard to undo; it is the operator's choice, not a default.
        SILENCED_SYSTEM_CHECKS.append("security.W021")
    if not SECURE_SSL_REDIRECT:
        # Set off because the proxy redirects to https already (deploy/nginx does):
        # `check --deploy` must not stop the deployment over it (migrate runs it).
        SILENCED_SYSTEM_CHECKS.append("security.W008")
    SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# --- game -------------------------------------------------------------------------------
GAME_DEFAULT_RULES = os.environ.get("GAME_DEFAULT_RULES", "flemish")
GAME_DEFAULT_BOT = os.environ.get("GAME_DEFAULT_BOT", "heuristic")


def _check_game_defaults() -> None:
    import engine  # pure Python, no Django: light to import here
    from engine.bots import available

    if GAME_DEFAULT_RULES not in engine.PRESETS:
        raise ImproperlyConfigured(
            f"GAME_DEFAULT_RULES={GAME_DEFAULT_RULES!r} is not a preset "
            f"(choose {', '.join(engine.PRESETS)})"
        )
    if GAME_DEFAULT_BOT not in available():
        raise ImproperlyConfigured(
            f"GAME_DEFAULT_BOT={GAME_DEFAULT_BOT!r} is not a bot level "
            f"(choose {', '.join(available())})"
        )


_check_game_defaults()
# Celery queue of the bot task (a test run uses its own, see tests/conftest.py).
GAME_BOTS_QUEUE = os.environ.get("GAME_BOTS_QUEUE", "bots")
# Moves commit without waiting for the WAL flush on PostgreSQL (see game/actions.py).
# Durable by default: a committed move survives a database crash ("nothing lost").
GAME_SYNCHRONOUS_COMMIT = env_bool("GAME_SYNCHRONOUS_COMMIT", True)
# Largest websocket text frame the game consumer reads; game messages are tiny.
GAME_WS_MAX_MESSAGE_BYTES = env_int("GAME_WS_MAX_MESSAGE_BYTES", 1024)
# Minutes an open table waits in the lobby after the last change at it (someone sat
# down, a bot was added, a seat freed): a table its host left behind drops out of the
# list; its link still works, and any change there lists it again.
GAME_LOBBY_MINUTES = env_int("GAME_LOBBY_MINUTES", 120)
# Seconds a person at a table of several people may be away (no socket open) before
# the bot takes their seat until they take it back.
GAME_DISCONNECT_TAKEOVER = env_int("GAME_DISCONNECT_TAKEOVER", 60)
# Seconds after a tournament set's start within which each person opens their table: a
# seat with no socket open by then is played by the bot until they arrive (their first
# socket gives it back). 0 turns the absence takeover off.
TABLES_ABSENT_GRACE = env_int("TABLES_ABSENT_GRACE", 30)
# The same for "Nog een spel" at a table of several people: whoever does not open the
# new game within this many seconds is played by the bot until they arrive. 0: off.
GAME_REMATCH_ARRIVE = env_int("GAME_REMATCH_ARRIVE", 30)
# Minutes a table's chat lines are kept (in the cache) for a page opened again.
GAME_CHAT_KEEP_MINUTES = env_int("GAME_CHAT_KEEP_MINUTES", 180)
# Embedded mode (eager Celery): clocks and the away-takeover run on timer threads in
# the process (the test suite turns them off and calls the tasks itself).
GAME_EMBEDDED_TIMERS = env_bool("GAME_EMBEDDED_TIMERS", True)
# Table chat: lines per person and connection (burst, then one per this many seconds).
GAME_CHAT_BURST = env_int("GAME_CHAT_BURST", 5)
GAME_CHAT_EVERY = env_int("GAME_CHAT_EVERY", 2)

LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING").upper()
if LOG_LEVEL not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
    raise ImproperlyConfigured(
        f"LOG_LEVEL={LOG_LEVEL!r} is not a level (DEBUG, INFO, WARNING, ERROR, CRITICAL)"
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A refusal by the fairness rules is one line, not a traceback (ops/logs.py).
    "filters": {"one_line_refusals": {"()": "ops.logs.OneLineRefusals"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"filters": ["one_line_refusals"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}

# --- operations (ops/: /healthz, rate limits, stuck-game sweeper) -----------------------
INSTALLED_APPS.append("ops")
if REDIS_URL:
    # Shared by every web process: the login limiter counts across all of them.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_PREFIX", "manillen"),
        }
    }
# /healthz: seconds each check may take, and the queues some worker must consume
# (default: the bots queue).
HEALTHZ_TIMEOUT = float(env_int("HEALTHZ_TIMEOUT_MS", 1000)) / 1000
HEALTHZ_QUEUES = env_list("HEALTHZ_QUEUES")
# A load balancer probes /healthz over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# Failed logins per (client address, username) within the window -> 429; per address
# alone (whatever the username) the higher LOGIN_RATE_LIMIT_ADDRESS.
LOGIN_RATE_LIMIT = env_int("LOGIN_RATE_LIMIT", 10)
LOGIN_RATE_LIMIT_ADDRESS = env_int("LOGIN_RATE_LIMIT_ADDRESS", 5 * LOGIN_RATE_LIMIT)
LOGIN_RATE_WINDOW = env_int("LOGIN_RATE_WINDOW", 15 * 60)
# New accounts (/accounts/signup/) per client address within the window -> 429.
SIGNUP_RATE_LIMIT = env_int("SIGNUP_RATE_LIMIT", 20)
SIGNUP_RATE_WINDOW = env_int("SIGNUP_RATE_WINDOW", 60 * 60)
# New games (POST /play/, a guest's first one included) per client address in the window.
PLAY_RATE_LIMIT = env_int("PLAY_RATE_LIMIT", 60)
PLAY_RATE_WINDOW = env_int("PLAY_RATE_WINDOW", 10 * 60)
# Reverse proxies in front of the web processes whose X-Forwarded-For we trust.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# Websocket messages per connection: a token bucket (per second, burst); excess gets
# an error and changes nothing; a connection that keeps flooding is closed.
GAME_WS_RATE = env_int("GAME_WS_RATE", 10)
GAME_WS_BURST = env_int("GAME_WS_BURST", 30)
# Per user (per address without an account), in each web process (ops/sockets.py): open
# game sockets, and snapshots (on connect or asked for) per second and in a burst.
GAME_WS_SOCKETS_PER_USER = env_int("GAME_WS_SOCKETS_PER_USER", 8)
GAME_WS_SNAPSHOT_RATE = env_int("GAME_WS_SNAPSHOT_RATE", 2)
GAME_WS_SNAPSHOT_BURST = env_int("GAME_WS_SNAPSHOT_BURST", 10)
# A game whose seat to move is a bot and whose row has not changed for this many
# seconds gets its bot task again (ops/sweeper.py); the beat runs it every SWEEP_EVERY.
# Well above a bot turn's queueing time under load: a re-enqueued turn that was only
# slow is a harmless no-op, but a flood of them is work for nothing.
SWEEP_STUCK_AFTER = env_int("SWEEP_STUCK_AFTER", 30)
# A table waiting on a bot with no event for this long has its game row checked, and the
# turn re-enqueued if nothing has changed (ops/sweeper.BotTurnWatch); no cost otherwise.
GAME_BOT_TURN_TIMEOUT_MS = env_int("GAME_BOT_TURN_TIMEOUT_MS", 3000)
# Seconds between two bot moves while nobody plays at a table of people (none arrived,
# all away): whoever comes finds the game where a table of people would be. Keep it
# under GAME_BOT_TURN_TIMEOUT_MS (a waiting table re-queues a slower turn). 0: at once.
GAME_BOTS_ALONE_PACE = env_int("GAME_BOTS_ALONE_PACE", 2)
# Every open socket of a seat in play says it lives this often (Seat.seen_at); a seat
# counted "connected" whose sockets have not for three beats is away (a web process
# killed outright never closed them): the sweeper resets its count and the away
# takeover follows (ops/sweeper.py).
GAME_SEAT_HEARTBEAT = env_int("GAME_SEAT_HEARTBEAT", 20)
if GAME_SEAT_HEARTBEAT < 1:
    raise ImproperlyConfigured(f"GAME_SEAT_HEARTBEAT={GAME_SEAT_HEARTBEAT} must be 1 or more")
SWEEP_EVERY = env_int("SWEEP_EVERY", 15)
CELERY_BEAT_SCHEDULE["sweep-stuck-games"] = {
    "task": "ops.tasks.sweep_stuck_games",
    "schedule": SWEEP_EVERY,
}
# Celery's Django fixup closes the database connection before and after every task
# unless this is set: a new PostgreSQL connection (and backend process) per bot turn.
# Keep it for this many tasks; ops/apps.py still drops a broken or old one after each
# task (django.db.close_old_connections, CONN_MAX_AGE).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 500)
# channels_redis counts its capacity per Redis key, and every consumer of one web
# process shares that process's key: with the default 100, a process whose reader is
# ~1 s behind under load has group_send DROP events silently (logged at INFO only).
# Events must never be lost, so the bound is a memory guard, not a flow control.
if REDIS_URL:
    CHANNEL_LAYERS["default"]["CONFIG"]["capacity"] = env_int("CHANNELS_CAPACITY", 5000)
