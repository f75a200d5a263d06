"""The big screen for the room (issue 12's "a big-screen page for the room") as a
projector shows it: every column of a duplicate event's standings on a 1280×720 screen,
and standings longer than the screen turning page by page by themselves, the header
row staying on top, back to the first page after the last (nobody scrolls a projector)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.browser.conftest import _finish, _new_page
from tests.browser.test_rounds_live import ROOT, _manage
from tests.browser.test_rounds_live import server as rounds_server  # noqa: F401 - fixture

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.django_db

HEADER_JS = """() => [...document.querySelectorAll(".t-screen thead th")].map((th) => {
  const r = th.getBoundingClientRect();
  return [th.innerText.trim(), r.left, r.right, r.top];
})"""


def test_the_room_screen_shows_every_column_and_turns_its_pages(
    rounds_server,  # noqa: F811 - the fixture imported above
    request,
    browser,
):
    base, env = rounds_server
    out = _manage(
        env, "create_tournament", "--format", "rotating", "--players", "12", "--rounds", "2",
        "--sets", "3", "--deals", "1", "--duplicate", "--cut", "8", "--open",
    ).stdout  # fmt: skip
    pk = re.search(r"id: (\d+)", out).group(1)
    # Names as long as people's, and four of them out after round 1 (which says so).
    _manage(env, "simulate_tournament", pk, "--players", "12", "--prefix", "speler-uit-de-zaal")
    ctx, page = _new_page(request, browser, viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{base}/tournaments/{pk}/tables/screen/?every=3")
        assert page.locator(".t-screen tbody tr").count() == 12
        assert not page.locator(".site-header").is_visible()  # a projector: the standings
        header = page.evaluate(HEADER_JS)
        names = [name for name, *_ in header]
        assert names == ["Plaats", "Speler", "Score", "Duplicaat-MP", "± veld", "Sets"], names
        for name, left, right, _ in header:
            assert 0 <= left and right <= 1280, (name, left, right)
        wrap = page.locator(".t-screen .t-table-wrap")
        inner, outer = wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert inner <= outer, f"columns hidden behind a sideways scroll: {inner} > {outer}"
        assert page.evaluate("document.documentElement.scrollHeight") > 720  # two pages
        assert page.evaluate("window.scrollY") == 0
        page.wait_for_function("() => window.scrollY > 0", timeout=8_000)
        page.wait_for_timeout(1_000)  # the smooth scroll comes to rest
        tops = [top for *_, top in page.evaluate(HEADER_JS)]
        assert all(abs(top) < 1 for top in tops), tops  # the header row on top
        last = page.locator(".t-screen tbody tr").last.bounding_box()
        assert last["y"] + last["height"] <= 720  # the last page shows the last row
        page.wait_for_function("() => window.scrollY === 0", timeout=8_000)  # and back
        assert not page.js_errors, page.js_errors
    finally:
        _finish(request, ctx, page)


NIGHT = """
from django.contrib.auth import get_user_model
from tournaments import actions
User = get_user_model()
boss = User.objects.get(username="zaalbaas")
club = actions.create_club(boss, "De Zaal")
t = actions.create_tables_tournament(
    boss, name="Zaal", club=club, fmt="rotating", players=8, sets=3, deals=1,
    duplicate=True, in_room=True, open_now=True,
)
for k in range(8):
    player = User.objects.create_user(f"zaal-{k}", password="x")
    club.members.add(player)
    actions.join(t.pk, player)
actions.start_tables(t.pk, boss)
print("id:", t.pk)
"""


def test_the_room_screen_follows_each_table_done(
    rounds_server,  # noqa: F811 - the fixture imported above
    request,
    browser,
):
    """A table's score sheet agreed on a phone: the big screen says "1 of 2 tables done"
    and marks that table by itself (nobody reloads a projector). The screen is the
    room's computer, where nobody logged in: it opens the panel's screen link (a
    members-only club tournament, whose pages ask for a login otherwise)."""
    from tests.browser.conftest import PASSWORD, sign_up

    base, env = rounds_server
    ctx, org = _new_page(request, browser, viewport={"width": 1000, "height": 800})
    try:
        sign_up(org, base, "zaalbaas")
        screen_ctx, screen = _new_page(request, browser, viewport={"width": 1920, "height": 1080})
        made = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", NIGHT],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr[-2000:]
        pk = re.search(r"id: (\d+)", made.stdout).group(1)
        org.goto(f"{base}/tournaments/{pk}/tables/organize/")
        link = org.locator("[data-screen-link]").get_attribute("href")
        assert "?key=" in link
        assert screen.goto(f"{base}/tournaments/{pk}/tables/screen/").status == 404
        screen.goto(link)  # the room's computer, logged in as nobody
        assert screen.locator("[data-progress-done]").get_attribute("data-progress-done") == "0"
        # A small screen turning its pages every 3 s: while no table is done the room is
        # finding its tables, and "The tables" stays in sight.
        small_ctx, small = _new_page(request, browser, viewport={"width": 1280, "height": 400})
        small.goto(f"{base}/accounts/login/")  # the organizer's second laptop
        small.fill("input[name=username]", "zaalbaas")
        small.fill("input[name=password]", PASSWORD)
        with small.expect_navigation():
            small.locator("#content form [type=submit]").click()
        small.goto(f"{base}/tournaments/{pk}/tables/screen/?every=3")
        tall, seating_bottom = small.evaluate(
            """() => [document.documentElement.scrollHeight,
                     document.querySelector("[data-screen-seating]").getBoundingClientRect().bottom]"""
        )
        assert tall > 400 >= seating_bottom, (tall, seating_bottom)  # pages to turn
        # The notes under the standings stay readable on a short screen (were 9.6px).
        note_px = small.evaluate(
            """() => {
              const p = document.createElement("p");
              p.className = "t-live";
              p.textContent = "—";
              document.querySelector(".t-screen").append(p);
              const px = parseFloat(getComputedStyle(p).fontSize);
              p.remove();
              return px;
            }"""
        )
        assert note_px >= 12, note_px
        small.evaluate("window.ys = []; setInterval(() => window.ys.push(window.scrollY), 250)")
        small.wait_for_timeout(7_000)  # two turns
        assert max(small.evaluate("window.ys")) == 0
        org.goto(f"{base}/tournaments/{pk}/tables/1/1/table/1/sheet/")
        org.locator("label.t-suit", has_text="♥").click()
        org.fill("input[name=points]", "38")
        with org.expect_navigation():
            org.locator("[data-sheet-form] button").click()
        with org.expect_navigation():
            org.locator("[data-agree]").click()  # the organizer agrees for the table
        screen.wait_for_selector("[data-progress-done='1']", timeout=20_000)
        assert "done" in screen.locator("[data-screen-table='1']").get_attribute("class")
        assert "1 van 2 tafels klaar" in screen.locator("[data-progress-done]").inner_text()
        # A table is done: the small screen turns to the standings again.
        small.wait_for_selector("[data-progress-done='1']", timeout=20_000)
        small.wait_for_function("() => window.scrollY > 0", timeout=10_000)
        assert not small.js_errors, small.js_errors
        _finish(request, small_ctx, small)
        assert not screen.js_errors, screen.js_errors
        _finish(request, screen_ctx, screen)
    finally:
        _finish(request, ctx, org)
