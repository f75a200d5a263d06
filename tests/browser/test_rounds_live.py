"""A live-start tournament of tables in the browser (issue 12): four people in four
browsers and twelve bot-played entrants (simulate_tournament, the same action path as
people) play a two-round rotating event of 1-deal sets. The round is drawn at its start
time; every person's page turns into "Jij zit aan tafel N, <seat>"; each plays their
seat at their table, set after set, until the tournament closes and the standings show
all sixteen."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from tests.browser.conftest import ROOT, _finish, _new_page, _server_env, _wait_http, sign_up
from tests.browser.test_four_people import _play_one
from tests.helpers import free_port, start_uvicorn

expect = pytest.importorskip("playwright.sync_api").expect
PlaywrightError = pytest.importorskip("playwright.sync_api").Error

pytestmark = pytest.mark.django_db

STATUS_OVER = """() => {
  const t = window.manillenTable;
  return !!(t && t.ui.state && t.ui.state.game_over && !t.ui.busy && t.ui.queue.length === 0);
}"""


@pytest.fixture
def server(request, tmp_path):
    """A server of this test's own, and the environment to run commands against its
    database (the tournament and the simulated entrants are made by the stable hooks)."""
    env, _ = _server_env(request, tmp_path / "rounds.sqlite3", "rounds-live")
    port = free_port()
    log = tmp_path / "server.log"
    proc = start_uvicorn(env, port, log)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(base + "/", proc, log)
        yield base, env
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def four(request, browser):
    made = [_new_page(request, browser, viewport={"width": 1000, "height": 800}) for _ in range(4)]
    yield [pg for _, pg in made]
    for ctx, pg in made:
        _finish(request, ctx, pg)


def _manage(env, *args, **popen) -> subprocess.CompletedProcess | subprocess.Popen:
    cmd = [sys.executable, "manage.py", *args]
    if popen:
        return subprocess.Popen(cmd, cwd=ROOT, env=env, **popen)
    return subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, text=True)


def _my_game(page) -> str | None:
    link = page.locator("[data-my-seat] a.button.primary")
    if not link.count():
        return None
    return link.get_attribute("href")


def test_four_people_and_twelve_bots_play_two_rounds_with_a_live_start(server, four, tmp_path):
    base, env = server
    names = [f"speler-{k}" for k in range(4)]
    for page, name in zip(four, names, strict=True):
        sign_up(page, base, name)
    out = _manage(
        env, "create_tournament", "--format", "rotating", "--players", "16", "--rounds", "2",
        "--sets", "3", "--deals", "1", "--duplicate", "--open", "--starts-in", "45",
    ).stdout  # fmt: skip
    pk = re.search(r"id: (\d+)", out).group(1)
    tables_url = f"{base}/tournaments/{pk}/tables/"
    for page in four:
        page.goto(f"{base}/tournaments/{pk}/")
        page.wait_for_url(tables_url)
        with page.expect_navigation():
            page.locator("[data-my-seat] form button").click()  # "Doe mee"
        messages = page.locator(".t-messages")
        assert not messages.count(), messages.inner_text()  # no refusal
        expect(page.locator("[data-my-seat]")).to_contain_text("Je bent ingeschreven")
    sim_log = open(tmp_path / "simulate.log", "w")  # noqa: SIM115 - closed below
    sim = _manage(
        env, "simulate_tournament", pk, "--players", "12", "--prefix", "bot-entrant",
        stdout=sim_log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        # The live start: each page learns the draw over its socket and shows its table.
        for page in four:
            expect(page.locator("[data-my-seat] [data-table]")).to_contain_text(
                "Jij zit aan tafel", timeout=120_000
            )
        played: list[set[str]] = [set() for _ in four]
        at_table: list[str | None] = [None] * 4
        deadline = time.monotonic() + 1800  # a shared 2-core machine: slow, not stuck
        reloaded = time.monotonic()
        while True:
            assert time.monotonic() < deadline, (played, at_table)
            if sim.poll() is not None and all(g is None for g in at_table):
                break
            moved = False
            for k, page in enumerate(four):
                if at_table[k] is None:
                    game = _my_game(page)
                    if game and game not in played[k]:
                        page.goto(base + game)
                        page.wait_for_function("() => !!window.manillenTable")
                        page.locator("#fast-play").check()
                        at_table[k] = game
                        moved = True
                    continue
                if page.evaluate(STATUS_OVER):
                    played[k].add(at_table[k])
                    at_table[k] = None
                    page.goto(tables_url)  # the next set's table, when it is drawn
                    moved = True
                    continue
                moved |= _play_one(page)
            if not moved:
                time.sleep(0.2)
                if time.monotonic() - reloaded > 3:  # the next set's draw, when it comes
                    reloaded = time.monotonic()
                    for k, page in enumerate(four):
                        if at_table[k] is None and sim.poll() is None:
                            try:
                                page.reload()
                            except PlaywrightError:
                                pass  # the page reloaded itself (its poll saw the draw)
        assert sim.wait(timeout=60) == 0, (tmp_path / "simulate.log").read_text()
    finally:
        if sim.poll() is None:
            sim.terminate()
            sim.wait(timeout=10)
        sim_log.close()
    # Every person played a table in each of the six sets.
    assert [len(p) for p in played] == [6, 6, 6, 6]
    page = four[0]
    page.goto(tables_url)
    rows = page.locator("[data-tables-standings] tbody tr")
    expect(rows).to_have_count(16)
    for name in names:
        expect(page.locator("[data-tables-standings]")).to_contain_text(name)
    for pg in four:
        assert not pg.js_errors, pg.js_errors
    assert os.path.exists(tmp_path / "simulate.log")
