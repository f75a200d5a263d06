"""Four people at one table in four browsers (issue 11): the host opens a table, one
guest joins by the link, one through the lobby, the fourth by the link (the table
starts by itself); they play a whole game through the solo hooks of their own hands;
one leaves mid-game (the bot plays on), comes back with "neem je plaats terug"."""

from __future__ import annotations

import re
import time

import pytest

from tests.browser.conftest import _finish, _new_page, sign_up

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db


# Everything this page's table shows is up to date and it waits on nobody but itself.
STATUS_JS = """() => {
  const t = window.manillenTable;
  if (!t || !t.socket.ws || t.socket.ws.readyState !== WebSocket.OPEN) return null;
  const u = t.ui, s = u.state, me = u.table.seat;
  const rest = !u.busy && u.queue.length === 0 && u.pending === null && u.shownSeq === u.seq;
  const bot = !!(u.table.players && u.table.players[me] && u.table.players[me].bot_control);
  return {rest, over: !!s.game_over, mine: rest && !bot && s.to_move === me && me !== null,
          seq: u.seq, seat: me, toMove: s.to_move};
}"""


@pytest.fixture
def four(request, browser):
    made = [_new_page(request, browser, viewport={"width": 1100, "height": 850}) for _ in range(4)]
    yield [pg for _, pg in made]
    for ctx, pg in made:
        _finish(request, ctx, pg)


def _play_one(page) -> bool:
    """Make this page's move if it is this page's turn; True if it did."""
    status = page.evaluate(STATUS_JS)
    if not status or not status["mine"]:
        return False
    for selector in ("#choices [data-trump]", "#choices [data-announce]", "#hand [data-legal]"):
        button = page.locator(selector).first
        if button.count() and button.is_visible():
            button.click()
            return True
    return False


def test_four_people_play_a_whole_game_one_leaves_and_comes_back(four, asgi_server):
    host, west, north, east = four
    sign_up(host, asgi_server, "tafel-gastheer")
    host.goto(asgi_server + "/tables/new/")
    host.select_option("select[name=clock]", "0")
    host.locator("[data-create-table]").click()
    host.wait_for_url("**/tables/*/")
    join_url = host.locator("[data-join-url]").get_attribute("data-join-url")
    expect(host.locator("[data-seat='0']")).to_contain_text("tafel-gastheer")
    expect(host.locator("[data-start]")).to_be_visible()

    west.goto(join_url)
    west.locator("[data-sit='1']").click()
    expect(west.locator("[data-seat='1'].mine [data-seat-name]")).to_contain_text("gast-")
    north.goto(asgi_server + "/tables/")
    north.locator(f"[data-open-table='{join_url.rstrip('/').split('/')[-1]}']").click()
    north.locator("[data-sit='2']").click()
    expect(host.locator("[data-seat='2'] [data-seat-name]")).to_contain_text("gast-")  # live
    east.goto(join_url)
    east.locator("[data-sit='3']").click()  # the fourth person: the table starts

    for pg in four:
        pg.wait_for_function(
            "() => window.manillenTable && window.manillenTable.ui.table.status === 'active'"
        )
        pg.locator("#fast-play").check()
    seats = [pg.evaluate("manillenTable.ui.table.seat") for pg in four]
    assert seats == [0, 1, 2, 3]
    # Names on every seat, own hand at the bottom: only that person's cards are buttons.
    expect(north.locator(".seat[data-seat='2'] .name")).to_have_text("tafel-gastheer")
    # The board's teams are told from each person's own seat, by the names on the felt:
    # West plays with East (a guest), North with the host.
    expect(west.locator("[data-board-teams]")).to_contain_text(
        re.compile(r"(jij en|you and) gast-")
    )
    expect(north.locator("[data-board-teams]")).to_contain_text(
        re.compile(r"(jij en|you and) tafel-gastheer")
    )

    left = back = False
    left_at = 0
    deadline = time.monotonic() + 600
    while True:
        states = [pg.evaluate(STATUS_JS) for pg in four]
        if all(s and s["over"] and s["rest"] for s in states):
            break
        assert time.monotonic() < deadline, states
        seq = max(s["seq"] for s in states if s)
        if not left and seq >= 30 and states[2] and states[2]["rest"]:
            # North leaves mid-game: asked first ("no" keeps the seat, others play on).
            asked: list[str] = []
            north.once("dialog", lambda d, asked=asked: (asked.append(d.message), d.dismiss()))
            north.locator("[data-leave]").click()
            assert asked and "terugneemt" in asked[0], asked
            assert north.evaluate("manillenTable.ui.table.players[2].bot_control") is False
            north.once("dialog", lambda d: d.accept())
            north.locator("[data-leave]").click()
            north.wait_for_load_state()
            expect(north.locator("[data-take-back]")).to_be_visible()
            # The others see that the bot plays North's seat; North's own cards are not
            # offered while it does.
            expect(host.locator(".seat[data-seat='2'] .bot-tag")).to_be_visible()
            assert north.evaluate("manillenTable.ui.table.players[2].bot_control") is True
            expect(north.locator("#hand [data-legal]:enabled")).to_have_count(0)
            left, left_at = True, seq
            continue
        if left and not back and seq >= left_at + 12:
            north.locator("[data-take-back]").click()  # and comes back
            north.wait_for_load_state()
            north.wait_for_function(f"() => ({STATUS_JS})() !== null")
            north.locator("#fast-play").check()
            back = True
            continue
        moved = any(_play_one(pg) for pg in four)
        if not moved:
            time.sleep(0.05)
    assert left and back
    scores = []
    for pg in four:
        end = pg.locator("[data-game-over]")
        expect(end).to_be_visible()
        scores.append(int(end.get_attribute("data-score")))
    # data-score is the person's own team total minus the other team's.
    assert scores[0] == scores[2] == -scores[1] == -scores[3]
    # The result closes to look at the table, and opens again.
    west.locator("[data-end-close]").click()
    expect(west.locator("#end")).to_be_hidden()
    west.locator("[data-end-reopen]").click()
    expect(west.locator("[data-game-over]")).to_be_visible()
    for pg in four:
        assert not pg.js_errors, pg.js_errors


def test_the_others_see_who_closed_the_table_until_they_are_back(request, browser, asgi_server):
    """A person closes the table's tab: the others see "(weg)" beside the name at once
    (not just "… denkt na" for a minute, until the bot takes over), gone when they are
    back."""
    host_ctx, host = _new_page(request, browser, viewport={"width": 1100, "height": 850})
    guest_ctx, guest = _new_page(request, browser, viewport={"width": 1100, "height": 850})
    try:
        host.goto(asgi_server + "/tables/new/")  # as a guest, named
        host.fill("[data-guest-name]", "gastheer")
        host.select_option("select[name=clock]", "0")
        host.locator("[data-create-table]").click()
        host.wait_for_url("**/tables/*/")
        url = host.url.split("?")[0]
        guest.goto(url)
        guest.fill("[data-guest-name]", "noord")
        guest.locator("[data-sit='2']").click()
        for seat in (1, 3):
            host.locator(f"[data-add-bot='{seat}']").click()
            host.wait_for_load_state()
        host.locator("[data-start]").click()
        for pg in (host, guest):
            pg.wait_for_function(
                "() => window.manillenTable && window.manillenTable.ui.table.status === 'active'"
                " && manillenTable.socket.ws && manillenTable.socket.ws.readyState === 1"
            )
        tag = host.locator(".seat[data-seat='2'] .bot-tag")
        expect(host.locator(".seat[data-seat='2'] .name")).to_contain_text("noord")
        expect(tag).to_be_hidden()
        guest.close()  # the tab is closed: its socket with it
        expect(tag).to_be_visible()
        expect(tag).to_have_text("(weg)")
        expect(tag).to_have_attribute("data-away", "")
        again = guest_ctx.new_page()
        again.goto(url)
        again.wait_for_function("() => window.manillenTable !== undefined")
        expect(tag).to_be_hidden()
        assert not host.js_errors, host.js_errors
    finally:
        _finish(request, host_ctx, host)
        guest_ctx.close()
