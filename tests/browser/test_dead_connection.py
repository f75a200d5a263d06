"""A connection that dies without a word (a phone's network gone, a router that dropped
it) looks open to the page for minutes: the page now finds out by itself (a ping the
server answers at once), says the connection is lost, and is back when the link is."""

from __future__ import annotations

import time

import pytest

from tests.helpers import TABLE_AT_REST_JS, start_new_game

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db

# South's move, whatever is asked: trump, an announcement or a card.
MOVE = "[data-trump], [data-announce], #hand [data-card][data-legal]"


class Link:
    """The page's game sockets through Playwright's WebSocket routing: while `dead`,
    open sockets carry nothing either way and new ones are refused."""

    def __init__(self) -> None:
        self.dead = False
        self.sockets = 0
        self.open: list = []

    def route(self, ws) -> None:
        if self.dead:
            ws.close()
            return
        self.sockets += 1
        self.open.append(ws)
        server = ws.connect_to_server()
        ws.on_message(lambda m: None if self.dead else server.send(m))
        server.on_message(lambda m: None if self.dead else ws.send(m))


def test_a_silently_dead_connection_is_noticed_and_the_table_comes_back(page, asgi_server):
    link = Link()
    page.route_web_socket("**/ws/game/**", link.route)
    start_new_game(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.wait_for_function("() => manillenTable.ui.state.to_move === 0", timeout=30_000)
    conn = page.locator("#conn")
    expect(conn).to_be_hidden()
    assert page.evaluate("manillenTable.ui.handshakeRtt") > 0  # the link's speed, measured
    link.dead = True
    started = time.monotonic()
    # Nothing heard for 10 s, the ping unanswered for 5 s: the page says so.
    expect(conn).to_be_visible(timeout=25_000)
    assert time.monotonic() - started < 25
    expect(conn).to_contain_text("Verbinding")
    link.dead = False
    expect(conn).to_be_hidden(timeout=10_000)
    assert link.sockets >= 2  # a new socket, with its snapshot
    # The table plays on over the new connection.
    seq = page.evaluate("manillenTable.ui.seq")
    page.locator(MOVE).first.click()
    page.wait_for_function(f"() => manillenTable.ui.seq > {seq}", timeout=15_000)
    # Its echo measured a round trip (the wait for an answer allows three of them).
    assert page.evaluate("manillenTable.ui.rtt") > 0
    assert not page.js_errors, page.js_errors


def test_six_tabs_back_at_once_are_not_told_to_slow_down(request, browser, asgi_server):
    """After a server restart every tab reconnects at once: each asked for a snapshot
    besides the one the server sends on accepting, so six tabs of one person ran out of
    snapshots and one read "Te snel" without having played. One snapshot each now, and a
    refusal of the page's own asking never blames the player."""
    from tests.browser.conftest import _finish, _new_page

    ctx, first = _new_page(request, browser, viewport={"width": 1000, "height": 800})
    try:
        link = Link()
        ctx.route_web_socket("**/ws/game/**", link.route)
        start_new_game(first, asgi_server)
        first.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
        url = first.url
        tabs = [first]
        for _ in range(5):
            tab = ctx.new_page()
            tab.goto(url)
            tab.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
            tabs.append(tab)
        first.wait_for_timeout(5_000)  # the snapshot budget full again (2 a second)
        link.dead = True
        for ws in link.open:
            ws.close()  # the server went away
        link.open.clear()
        first.wait_for_timeout(1_500)
        link.dead = False  # and is back: six tabs reconnect within a second
        for tab in tabs:
            expect(tab.locator("#conn")).to_be_hidden(timeout=10_000)
        first.wait_for_timeout(1_000)
        errors = [tab.evaluate("manillenTable.ui.error") for tab in tabs]
        assert errors == [""] * 6, errors
    finally:
        _finish(request, ctx, first)


def test_a_slow_links_move_is_given_three_round_trips_before_starting_over(page, asgi_server):
    """With a round trip of over 5 s (a train's phone), every other move gave up on the
    connection after a fixed 5 s and the card jumped back: the wait now allows three
    round trips as last measured."""
    link = Link()
    page.route_web_socket("**/ws/game/**", link.route)
    start_new_game(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.wait_for_function("() => manillenTable.ui.state.to_move === 0", timeout=30_000)
    page.evaluate(
        """() => {
          // A slow link as its handshake measured it (before any move was echoed).
          manillenTable.ui.handshakeRtt = 3000;
          const socket = manillenTable.socket, restart = socket.restart.bind(socket);
          socket.restart = () => { window.restartedAt ??= Date.now(); restart(); };
        }"""
    )
    link.dead = True  # this move's answer will not come
    clicked = page.evaluate("Date.now()")
    page.locator(MOVE).first.click()
    page.wait_for_function("() => window.restartedAt !== undefined", timeout=20_000)
    waited = (page.evaluate("window.restartedAt") - clicked) / 1000
    assert 8.5 <= waited < 12, waited
    expect(page.locator("#conn")).to_be_visible(timeout=5_000)
    link.dead = False
    expect(page.locator("#conn")).to_be_hidden(timeout=10_000)
    assert not page.js_errors, page.js_errors


def test_going_offline_and_back_again_and_again_keeps_one_socket(page, asgi_server):
    """Each offline/online of the phone left one more live socket (a reconnect on its
    way was doubled): every move came several times and, at eight, the person could
    open no other table. One socket, whatever the toggles."""
    sockets: list = []
    page.on("websocket", lambda ws: sockets.append(ws))
    start_new_game(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    for pause in (300, 1500, 300, 3000, 300, 800):
        page.context.set_offline(True)
        page.wait_for_timeout(pause)
        page.context.set_offline(False)
        page.wait_for_timeout(400)
    expect(page.locator("#conn")).to_be_hidden(timeout=10_000)
    page.wait_for_timeout(2_000)  # any second try on its way has come by now
    live = [ws.url for ws in sockets if not ws.is_closed()]
    assert len(live) == 1, live
    seq = page.evaluate("manillenTable.ui.seq")
    page.wait_for_function("() => manillenTable.ui.state.to_move === 0", timeout=30_000)
    page.locator(MOVE).first.click()
    page.wait_for_function(f"() => manillenTable.ui.seq > {seq}", timeout=15_000)
    assert not page.js_errors, page.js_errors


# New game sockets hang in their handshake while window.hang is set (a route that died
# for good: nothing answers, not even a refusal).
HANGING_SOCKETS_JS = """(() => {
  const Real = window.WebSocket;
  window.hang = false;
  window.WebSocket = function (url, protocols) {
    if (!window.hang) return new Real(url, protocols);
    return {readyState: 0, url, addEventListener() {}, removeEventListener() {},
      send() { throw new Error("not open"); }, close() { this.readyState = 3; }};
  };
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})()"""


def test_a_handshake_that_hangs_is_given_up_on(page, asgi_server):
    """After a network change the new connection's handshake can hang for good: the
    page stayed "Opnieuw verbinden…" after the network was back. It gives a handshake
    up after a while and tries again."""
    page.add_init_script(HANGING_SOCKETS_JS)
    start_new_game(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    conn = page.locator("#conn")
    page.evaluate("window.hang = true")
    page.evaluate("manillenTable.socket.ws.close()")  # the connection drops; the next hangs
    expect(conn).to_be_visible(timeout=5_000)
    page.wait_for_timeout(2_000)
    assert page.evaluate("manillenTable.socket.ws.readyState") == 0  # still connecting
    page.evaluate("window.hang = false")  # the network is back
    expect(conn).to_be_hidden(timeout=30_000)
    assert page.evaluate("manillenTable.socket.isOpen()")
    assert not page.js_errors, page.js_errors
