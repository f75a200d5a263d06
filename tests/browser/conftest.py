"""Browser fixtures: a real ASGI server (HTTP + WebSockets) and Debian's Chromium.

pytest-django's live_server speaks WSGI only, so the table's websocket would have
nothing to talk to. Instead we start uvicorn as a subprocess on a free loopback port:
- embedded mode: its own SQLite file (migrated here), in-memory layer, eager bots;
- production stack (DATABASE_URL + REDIS_URL): the test database pytest-django made,
  channels_redis, and the Celery worker from tests/conftest.py playing the bots.
Playwright never downloads a browser here: it drives /usr/bin/chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers import PRODUCTION_STACK, ROOT, free_port, start_uvicorn

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            pytest.fail(f"ASGI server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"ASGI server did not answer {url}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


def _server_env(request, sqlite: Path, cache_tag: str, **extra: str):
    """Environment of a uvicorn server process for a browser test, and its SQLite file
    (None on the production stack, where it shares the test database)."""
    env = {**os.environ, "DEBUG": "1", "PYTHONUNBUFFERED": "1", **extra}
    # A quick bot keeps a whole game well inside the test's time budget.
    env.setdefault("GAME_DEFAULT_BOT", "heuristic")
    # The tests call the periodic tasks themselves (test_embedded_beat.py runs the beat).
    env.setdefault("EMBEDDED_BEAT", "0")
    # Every browser test comes from 127.0.0.1, and the session's server is shared by
    # many of them: the per-address limits (meant for one real client) would refuse the
    # later tests' sign-ups, logins and new games. The limits have tests of their own.
    for limit in ("SIGNUP_RATE_LIMIT", "LOGIN_RATE_LIMIT_ADDRESS", "PLAY_RATE_LIMIT"):
        env.setdefault(limit, "1000")
    if PRODUCTION_STACK:
        # The worker fixture makes sure the test database exists and bots get played.
        request.getfixturevalue("bot_worker")
        from django.conf import settings
        from django.db import connection

        env["DATABASE_NAME"] = connection.settings_dict["NAME"]
        # The worker listens on queues of this run's own; the server must send there.
        env["GAME_BOTS_QUEUE"] = settings.GAME_BOTS_QUEUE
        env["TOURNAMENTS_RANKINGS_QUEUE"] = settings.TOURNAMENTS_RANKINGS_QUEUE
        env["TOURNAMENTS_EXPORTS_QUEUE"] = settings.TOURNAMENTS_EXPORTS_QUEUE
        # The cache (sign-up and login rate limits) lives in Redis and outlives a run:
        # counts of an earlier run must not refuse this run's sign-ups.
        env["CACHE_PREFIX"] = f"{cache_tag}{os.getpid()}"
        return env, None
    for key in ("DATABASE_URL", "DATABASE_NAME", "REDIS_URL"):
        env.pop(key, None)
    env["SQLITE_PATH"] = str(sqlite)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return env, sqlite


@pytest.fixture(scope="session")
def asgi_server(request, tmp_path_factory):
    """Base URL of a running ASGI server for the browser tests."""
    tmp = tmp_path_factory.mktemp("browser-server")
    env, _ = _server_env(request, tmp / "browser.sqlite3", "browser-test")
    port = free_port()
    log = tmp / "server.log"
    proc = start_uvicorn(env, port, log)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(base + "/", proc, log)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (make chromium installs Debian's)")
    # Playwright's sync API keeps an event loop running in this thread, and Django then
    # refuses the django_db fixture's own queries. Allowed only while a browser module
    # runs (module scope), so the realtime tests keep Django's async-safety check.
    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield b
            b.close()
    finally:
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


@pytest.fixture(autouse=True)
def _close_db_connections():
    """Close this test's database connections before the next one starts.

    While Playwright's loop runs, Django keeps connections per async context, so the
    django_db fixture's connection would otherwise outlive the test and keep PostgreSQL
    from dropping the test database at the end of the session.
    """
    yield
    from django.db import connections

    connections.close_all()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


# What the Content-Security-Policy refused on any page of the running test (see
# _no_csp_violations): a script or handler it blocks is a feature that does not work.
CSP_VIOLATIONS: list[str] = []


def _on_console(msg) -> None:
    if "Content Security Policy" in msg.text:
        CSP_VIOLATIONS.append(msg.text)


@pytest.fixture(autouse=True)
def _no_csp_violations():
    CSP_VIOLATIONS.clear()
    yield
    found, CSP_VIOLATIONS[:] = list(CSP_VIOLATIONS), []
    assert not found, f"the Content-Security-Policy refused: {found}"


def _new_page(request, browser, **context_args):
    ctx = browser.new_context(locale="nl-BE", **context_args)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", _on_console)
    page.js_errors = errors
    return ctx, page


def _finish(request, ctx, page):
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
        except Exception as exc:  # the page may be gone; the test failure says more
            print(f"screenshot failed: {exc}")
    ctx.close()


@pytest.fixture
def page(request, browser):
    ctx, pg = _new_page(request, browser, viewport={"width": 1280, "height": 900})
    yield pg
    _finish(request, ctx, pg)


@pytest.fixture
def phone_page(request, browser):
    ctx, pg = _new_page(
        request, browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    yield pg
    _finish(request, ctx, pg)


# --- a server a test may kill ---------------------------------------------------------


class RestartableServer:
    """One uvicorn process on a fixed loopback port that a test kills (SIGKILL, as a
    crash would) and starts again on the same port, the database (and in production-stack
    mode the Redis channel layer and the Celery worker) staying as they were."""

    def __init__(self, env: dict[str, str], port: int, tmp: Path, sqlite: Path | None) -> None:
        self.env, self.port, self.tmp, self.sqlite = env, port, tmp, sqlite
        self.base = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        assert not self.alive(), "the server is already running"
        self.starts += 1
        log = self.tmp / f"server-{self.starts}.log"
        self.proc = start_uvicorn(self.env, self.port, log)
        _wait_http(self.base + "/", self.proc, log)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no close frames; the kernel drops its sockets."""
        assert self.alive(), "the server is not running"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if not self.alive():
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def stored_game(self, public_id: str) -> dict:
        """The game's row as the server stored it (read from this process)."""
        fields = ["seq", "actions", "state", "status", "seed", "rules", "bot_level",
                  "record", "final_score"]  # fmt: skip
        if self.sqlite is not None:
            import sqlite3
            import uuid

            with closing(sqlite3.connect(self.sqlite, timeout=20)) as conn:
                row = conn.execute(
                    f"SELECT {', '.join(fields)} FROM game_game WHERE public_id = ?",
                    (uuid.UUID(public_id).hex,),
                ).fetchone()
            assert row is not None, f"no game {public_id} in {self.sqlite}"
            game = dict(zip(fields, row, strict=True))
            game["actions"] = json.loads(game["actions"])
            game["state"] = json.loads(game["state"]) if game["state"] else None
            return game
        from game.models import Game

        return Game.objects.filter(public_id=public_id).values(*fields).get()


@pytest.fixture
def restartable_server(request, tmp_path):
    """A RestartableServer, started; the same environment as `asgi_server` (its own
    SQLite file in embedded mode), plus a short SWEEP_STUCK_AFTER so that a bot turn
    lost with the killed process is kicked again when the table reconnects."""
    env, sqlite = _server_env(
        request, tmp_path / "restart.sqlite3", "browser-restart", SWEEP_STUCK_AFTER="1"
    )
    server = RestartableServer(env, free_port(), tmp_path, sqlite)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# Per card of a page: the room between its padding and its first and last shown child (a
# child's own margin there doubled the padding: a tall gap above a card's heading).
CARD_GAPS_JS = """() => [...document.querySelectorAll('.t-card')].flatMap((card) => {
  const kids = [...card.children].filter((k) => {
    const s = getComputedStyle(k);
    // blocks only: a card of running text (a <p class="t-card"> of links) has no margins
    // and shown ones: of a closed <details>, its summary
    if (card.matches('details:not([open])') && k.tagName !== 'SUMMARY') return false;
    return !['none', 'inline'].includes(s.display) && !['absolute', 'fixed'].includes(s.position);
  });
  if (!kids.length || card.offsetParent === null) return [];
  const s = getComputedStyle(card), box = card.getBoundingClientRect();
  const inner = (side) =>
    parseFloat(s['border' + side + 'Width']) + parseFloat(s['padding' + side]);
  const first = kids[0].getBoundingClientRect(), last = kids.at(-1).getBoundingClientRect();
  const top = first.top - box.top - inner('Top');
  const bottom = box.bottom - last.bottom - inner('Bottom');
  return [{card: card.textContent.trim().slice(0, 40), top, bottom}];
})"""


# What runs out past the screen's right edge outside a table's own scroll box: the body
# hides what is wider (site.css), so the page's scroll width alone does not show it.
PAST_THE_EDGE_JS = """() => [...document.querySelectorAll('#content *')].filter((e) => {
  const box = e.getBoundingClientRect();
  return box.width && box.right > innerWidth + 0.5 && !e.closest('.t-table-wrap');
}).map((e) => `${e.tagName.toLowerCase()}.${e.className} ends at ${Math.round(
  e.getBoundingClientRect().right)}px`)"""


def assert_fits_the_phone(page, width: int, what: str) -> None:
    """A page on a phone: nothing wider than the screen (nor cut off at its edge), no
    table that scrolls sideways, and each card's padding its only margin inside."""
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{what} is {wide}px wide on a {width}px phone"
    past = page.evaluate(PAST_THE_EDGE_JS)
    assert not past, f"{what} on a {width}px phone: {past[:3]}"
    for wrap in page.locator(".t-table-wrap").all():
        inner, outer = wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert inner <= outer, f"a table of {what} is {inner}px in a {outer}px box"
    for gap in page.evaluate(CARD_GAPS_JS):
        assert -1 <= gap["top"] <= 1 and -1 <= gap["bottom"] <= 1, (what, gap)


PASSWORD = "Klaver-Aas-77"  # every account the browser tests sign up


def sign_up(page, base: str, name: str) -> None:
    """A new account, signed up on the site's own page (and so logged in)."""
    page.goto(base + "/accounts/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("#content form [type=submit]").click()
    page.wait_for_url(lambda url: "/signup/" not in url)


def open_new_tournament_form(page, base: str, club: str) -> None:
    """As the logged-in user: a club made on the clubs page, then its "New tournament"."""
    page.goto(base + "/clubs/")
    page.fill("form[action$='/clubs/new/'] input[name=name]", club)
    page.locator("form[action$='/clubs/new/'] button").click()
    page.locator("a.button[href*='/tournaments/new/']").click()
