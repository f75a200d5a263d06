"""The table in a real browser: a whole game to the boom, a refused card, a phone."""

from __future__ import annotations

import time

import pytest

from tests.helpers import TABLE_AT_REST_JS, pace, start_new_game

expect = pytest.importorskip("playwright.sync_api").expect

# The server subprocess uses the test database; pytest-django only creates it for
# sessions that hold a test marked django_db (this process itself never queries it).
pytestmark = pytest.mark.django_db


GAME_BUDGET_S = 200
SEQ_JS = "Number(document.getElementById('table-root').dataset.seq)"
# The end dialog's title top with its overlay scrolled to the top, and its last action's
# bottom with the overlay scrolled to the bottom (px in the window).
END_REACH_JS = """() => {
  const end = document.getElementById("end");
  end.scrollTop = 0;
  const top = document.getElementById("end-title").getBoundingClientRect().top;
  end.scrollTop = end.scrollHeight;
  const actions = [...end.querySelectorAll(".end-actions a, .end-actions button")]
    .filter((e) => e.offsetParent !== null);
  const bottom = actions[actions.length - 1].getBoundingClientRect().bottom;
  end.scrollTop = 0;
  return [top, bottom];
}"""


def _hand(page) -> list[str]:
    return page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")


def _seq(page) -> int:
    return page.evaluate(SEQ_JS)


def _wait_seq_above(page, seq: int) -> None:
    page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)


def _open_table(page, base: str) -> None:
    start_new_game(page, base)
    expect(page.locator("#table-root")).to_be_visible()
    page.wait_for_function("() => window.manillenTable !== undefined")


def _try_illegal_card(page) -> bool:
    """Click a card South may not play; it must be refused and change nothing."""
    illegal = page.locator("#hand [data-card]:not([data-legal])")
    if not illegal.count():
        return False
    before_hand, before_seq = _hand(page), _seq(page)
    card = illegal.first.get_attribute("data-card")
    illegal.first.click()
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).not_to_have_text("")
    assert _hand(page) == before_hand, "a refused card must stay in the hand"
    assert _seq(page) == before_seq, "a refused card must not change the game"
    expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(1)
    return True


def test_play_a_whole_game_to_the_boom(page, asgi_server):
    _open_table(page, asgi_server)
    page.locator("#fast-play").check()
    expect(page.locator("#fast-play")).to_be_checked()

    refused_once = False
    chose_trump = False
    cards_played = 0
    deadline = time.monotonic() + GAME_BUDGET_S
    end = page.locator("[data-game-over]")
    while not end.is_visible():
        assert time.monotonic() < deadline, f"game not over after {cards_played} cards"
        trump = page.locator("[data-trump]")
        legal = page.locator("#hand [data-card][data-legal]")
        if trump.count():
            pace(page)
            seq = _seq(page)
            trump.first.click()
            _wait_seq_above(page, seq)
            chose_trump = True
        elif legal.count():
            if not refused_once and _try_illegal_card(page):
                refused_once = True
                continue
            pace(page)
            seq = _seq(page)
            legal.first.click()
            _wait_seq_above(page, seq)
            cards_played += 1
        else:
            page.wait_for_timeout(30)

    assert refused_once, "never had a card to refuse"
    assert cards_played >= 8
    wij = int(page.locator("[data-end-wij]").inner_text())
    zij = int(page.locator("[data-end-zij]").inner_text())
    assert max(wij, zij) >= 101
    assert int(end.get_attribute("data-score")) == wij - zij
    shown = page.locator("[data-end-score]").inner_text().replace("\u2212", "-").lstrip("+")
    assert int(shown) == wij - zij
    # The dialog holds the keyboard: the focus went into it, and Tab past its last
    # control comes back to its first (the ×), not to the page behind.
    assert page.evaluate("document.getElementById('end').contains(document.activeElement)")
    page.locator("#end a[href]:visible, #end button:visible").last.focus()
    page.keyboard.press("Tab")
    expect(page.locator("[data-end-close]")).to_be_focused()
    # On a phone, upright or on its side, the end is in reach: its title at the top of
    # the overlay's scroll, its last button at the bottom (centred, the card once
    # overflowed above the screen's top where nothing could scroll to it).
    desk = page.viewport_size
    for size in ({"width": 390, "height": 844}, {"width": 740, "height": 360}):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)
        top, bottom = page.evaluate(END_REACH_JS)
        assert top >= 0 and bottom <= size["height"], (size, top, bottom)
    page.set_viewport_size(desk)
    # "Nog een spel" starts a fresh game at a new table.
    old_url = page.url
    page.locator("[data-new-game]").click()
    page.wait_for_url(lambda url: url != old_url and "/game/" in url)
    expect(page.locator("[data-game-over]")).to_have_count(0)
    print(f"played {cards_played} cards, chose trump: {chose_trump}, {wij}-{zij}")
    assert not page.js_errors, page.js_errors


def test_phone_table_fits_and_cards_are_tappable(phone_page, asgi_server):
    page = phone_page
    _open_table(page, asgi_server)
    page.locator("#fast-play").check()

    def no_horizontal_scroll():
        width = page.evaluate("document.documentElement.scrollWidth")
        inner = page.evaluate("window.innerWidth")
        assert width <= inner, f"page is {width}px wide in a {inner}px screen"

    no_horizontal_scroll()
    page.wait_for_selector("[data-trump], #hand [data-card][data-legal]")
    for box in page.locator("#hand [data-card]").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().toJSON())"
    ):
        assert box["left"] >= 0 and box["right"] <= 390
        assert box["width"] >= 36 and box["height"] >= 44, box

    for _ in range(3):  # tap a few times: trump buttons or legal cards
        page.wait_for_selector("[data-trump], #hand [data-card][data-legal], [data-game-over]")
        seq = _seq(page)
        target = page.locator("[data-trump], #hand [data-card][data-legal]").first
        target.tap()
        _wait_seq_above(page, seq)
    no_horizontal_scroll()

    page.get_by_role("button", name="groter scherm").tap()
    page.get_by_role("button", name="groter scherm").tap()
    no_horizontal_scroll()
    page.get_by_role("button", name="Scores").tap()
    expect(page.locator("#board")).to_be_visible()
    assert not page.js_errors, page.js_errors


def test_keyboard_arrows_and_enter_play_a_card(page, asgi_server):
    _open_table(page, asgi_server)
    page.wait_for_selector("[data-trump], #hand [data-card][data-legal]")
    trump = page.locator("[data-trump]")
    if trump.count():
        seq = _seq(page)
        trump.first.focus()
        page.keyboard.press("Enter")
        _wait_seq_above(page, seq)
        page.wait_for_selector("#hand [data-card][data-legal]")
    first = page.locator("#hand [data-card]").first
    first.focus()
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.dataset.card")
    assert focused == _hand(page)[1]
    legal = page.locator("#hand [data-card][data-legal]").first
    card = legal.get_attribute("data-card")
    legal.focus()
    seq = _seq(page)
    page.keyboard.press("Enter")
    _wait_seq_above(page, seq)
    expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(0)
    # On South's next turn the focus comes back to the hand (or the trump buttons).
    page.wait_for_function(
        "() => document.activeElement?.matches('[data-legal], [data-trump]')",
        timeout=30_000,
    )


# Before any script of the page: each WebSocket the page makes stays CONNECTING until the
# test calls __releaseSockets() (then a real one is opened and passed through).
HOLD_SOCKETS_JS = """(() => {
  const Real = window.WebSocket;
  const held = [];
  class Held extends EventTarget {
    constructor(url, protocols) {
      super();
      Object.assign(this, { url, protocols, real: null, closedEarly: false });
      held.push(this);
    }
    get readyState() {
      return this.real ? this.real.readyState : this.closedEarly ? Real.CLOSED : Real.CONNECTING;
    }
    open() {
      if (this.closedEarly || this.real) return;
      const ws = (this.real = new Real(this.url, this.protocols));
      ws.addEventListener("open", () => this.dispatchEvent(new Event("open")));
      ws.addEventListener("error", () => this.dispatchEvent(new Event("error")));
      ws.addEventListener("message", (ev) =>
        this.dispatchEvent(new MessageEvent("message", { data: ev.data })));
      ws.addEventListener("close", (ev) =>
        this.dispatchEvent(new CloseEvent("close", { code: ev.code, reason: ev.reason })));
    }
    send(data) { this.real.send(data); }
    close() { if (this.real) this.real.close(); else this.closedEarly = true; }
  }
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Held[k] = Real[k];
  window.WebSocket = Held;
  window.__releaseSockets = () => held.forEach((ws) => ws.open());
})();"""


def test_nothing_is_offered_before_the_socket_first_opens(page, asgi_server):
    """A new page offers its cards or trump choice once its socket is open: a tap in the
    first moments was refused as "not connected" while the page was only connecting
    (seen in CI: the keyboard test pressed Enter that early)."""
    page.add_init_script(HOLD_SOCKETS_JS)
    _open_table(page, asgi_server)
    assert page.evaluate("manillenTable.socket.ws.readyState") == 0  # still connecting
    page.wait_for_timeout(300)
    assert page.locator("[data-trump], #hand [data-card][data-legal]").count() == 0
    page.locator("#hand [data-card]").first.click()  # a tap now: nothing, and no error
    expect(page.locator("#error")).to_be_hidden()
    page.evaluate("__releaseSockets()")
    page.wait_for_selector("[data-trump], #hand [data-card][data-legal]")
    seq = _seq(page)
    page.locator("[data-trump], #hand [data-card][data-legal]").first.click()
    _wait_seq_above(page, seq)
    expect(page.locator("#error")).to_be_hidden()


def test_reconnects_and_recovers_from_a_gap(page, asgi_server):
    _open_table(page, asgi_server)
    page.locator("#fast-play").check()
    actionable = "[data-trump], #hand [data-card][data-legal]"
    page.wait_for_selector(actionable)
    seq = _seq(page)

    # The connection drops: the table reconnects by itself and asks for a snapshot.
    page.evaluate("manillenTable.socket.ws.close()")
    page.wait_for_function("() => manillenTable.socket.ws.readyState === WebSocket.OPEN")
    assert _seq(page) == seq

    # An event from the future (a gap): ignored, a snapshot puts the table right.
    page.evaluate(
        """() => manillenTable.onMessage({type: "event", seq: manillenTable.ui.seq + 5,
             actor: 1, action: "7S", state: manillenTable.ui.state})"""
    )
    page.wait_for_selector(actionable)
    assert _seq(page) == seq

    # A snapshot older than what is on screen (it crossed newer events): ignored.
    page.evaluate(
        """() => manillenTable.onMessage({type: "snapshot", seq: manillenTable.ui.seq - 1,
             state: {...manillenTable.ui.state, phase: "play", legal: []}})"""
    )
    assert _seq(page) == seq
    page.wait_for_selector(actionable)

    page.locator(actionable).first.click()
    _wait_seq_above(page, seq)
    assert not page.js_errors, page.js_errors


def test_home_speaks_dutch_first_and_switches_language(page, asgi_server):
    page.goto(asgi_server + "/")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    expect(page.locator("[data-play]")).to_have_text("Speel een spel")
    select = page.locator("#lang-select")
    if not select.count():
        pytest.skip("no set_language view wired")
    with page.expect_navigation():
        select.select_option("en")
    expect(page.locator("[data-play]")).to_have_text("Play a game")
    with page.expect_navigation():
        page.locator("#lang-select").select_option("fr")
    expect(page.locator("[data-play]")).to_have_text("Jouer une partie")


def test_card_helpers_sort_the_hand_and_find_the_trick_winner(page, asgi_server):
    page.goto(asgi_server + "/")
    result = page.evaluate(
        """async () => {
            const m = await import('/static/js/table/cards.js');
            return {
              sorted: m.sortHand(['7H', 'TS', 'AS', 'KD', '9C', 'TH', 'QC'], 'D'),
              untrumped: m.sortHand(['7C', 'AH', 'TS', '8D'], null),
              overtrump: m.trickWinner([[1, 'AC'], [2, '8H'], [3, '9H'], [0, 'TC']], 'H'),
              manille: m.trickWinner([[1, 'KS'], [2, '7S'], [3, '8S'], [0, 'TS']], 'H'),
              discard: m.trickWinner([[2, 'TD'], [3, 'AH']], null),
              shown: [m.display('TS'), m.display('AH'), m.isRed('AH'), m.isRed('QC')],
            };
        }"""
    )
    # trump first, then alternating colours; 10 A K Q J 9 8 7 within a suit
    assert result["sorted"] == ["KD", "TS", "AS", "TH", "7H", "QC", "9C"]
    assert result["untrumped"] == ["TS", "AH", "7C", "8D"]
    assert result["overtrump"] == 3
    assert result["manille"] == 0
    assert result["discard"] == 2
    assert result["shown"] == ["10\u2660", "A\u2665", True, False]


def test_without_fast_play_bot_cards_come_one_by_one(page, asgi_server):
    _open_table(page, asgi_server)
    expect(page.locator("#fast-play")).not_to_be_checked()
    page.evaluate(
        """() => {
            window.seqTimes = [];
            const root = document.getElementById('table-root');
            new MutationObserver(() => {
              const s = Number(root.dataset.seq);
              const last = window.seqTimes.at(-1);
              if (!last || last[0] !== s) window.seqTimes.push([s, performance.now()]);
            }).observe(root, {attributes: true, attributeFilter: ['data-seq']});
        }"""
    )
    actionable = "[data-trump], #hand [data-card][data-legal]"
    mine = set()  # South's own steps follow his click, not a pause
    for _ in range(3):
        page.wait_for_selector(actionable, timeout=30_000)
        seq = _seq(page)
        mine.add(seq + 1)
        page.locator(actionable).first.click()
        _wait_seq_above(page, seq)
    page.wait_for_selector(actionable, timeout=30_000)
    times = page.evaluate("window.seqTimes")
    gaps = [b[1] - a[1] for a, b in zip(times, times[1:], strict=False) if b[0] not in mine]
    assert len(gaps) >= 4, times
    # Every step stays on screen for a readable moment (600 ms in the table's script).
    assert min(gaps) >= 500, gaps


def test_the_start_button_starts_the_chosen_game_and_a_get_starts_none(page, asgi_server):
    """GET /play/ only shows the choice; the data-new-game button (a POST) starts the
    game with the chosen level and rules and lands on its table."""
    page.goto(asgi_server + "/play/")
    expect(page.locator("#table-root")).to_have_count(0)
    start_new_game(page, asgi_server, level="club", rules="malilla")
    page.wait_for_function("() => window.manillenTable !== undefined")
    assert page.evaluate("manillenTable.ui.state.rules") == "malilla"
    # From the home page too: the same button, the same hook.
    page.goto(asgi_server + "/")
    page.locator("[data-rules]").select_option("flemish-table")
    old_url = page.url
    page.locator("[data-new-game]").click()
    page.wait_for_url(lambda url: url != old_url and "/game/" in url)
    page.wait_for_function("() => window.manillenTable !== undefined")
    assert page.evaluate("manillenTable.ui.state.rules") == "flemish-table"


# Click the first legal card from inside the page and report, in the same task (before
# any message from the server can be handled), where the card is and what is shown.
CLICK_AND_LOOK_JS = """() => {
  const root = document.getElementById('table-root');
  const btn = root.querySelector('#hand [data-card][data-legal]');
  const card = btn.dataset.card;
  const seq = manillenTable.ui.seq;
  btn.click();
  const west = root.querySelector('.seat[data-seat="1"]');
  return {
    card,
    seqBefore: seq,
    seqNow: manillenTable.ui.seq,
    inHand: !!root.querySelector(`#hand [data-card="${card}"]`),
    inTrick: !!root.querySelector(`#trick [data-trick-card="${card}"][data-seat="0"]`),
    prompt: root.querySelector('#prompt').textContent,
    mine: root.querySelector('#prompt').classList.contains('mine'),
    legalLeft: root.querySelectorAll('#hand [data-legal]').length,
    thinking: [...root.querySelectorAll('.seat.thinking')].map((s) => s.dataset.seat),
    westToMove: west.classList.contains('to-move'),
    trickCards: root.querySelectorAll('#trick [data-trick-card]').length,
    toMove: root.dataset.toMove,
    leadingSeat: root.querySelector('#trick .leading')?.dataset.seat ?? null,
  };
}"""


def _wait_for_a_card_to_play(page) -> None:
    """Until South is to play a card (a trump choice on the way is made)."""
    for _ in range(20):
        page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
        if page.locator("#hand [data-card][data-legal]").count():
            return
        seq = _seq(page)
        page.locator("[data-trump], [data-announce]").first.click()
        _wait_seq_above(page, seq)
    raise AssertionError("South was never offered a card")


def test_a_card_leaves_the_hand_at_once_and_the_bots_are_shown_thinking(page, asgi_server):
    _open_table(page, asgi_server)
    _wait_for_a_card_to_play(page)
    look = page.evaluate(CLICK_AND_LOOK_JS)
    # Moved in the click's own handler, before the server's event (seq unchanged).
    assert look["seqNow"] == look["seqBefore"], look
    assert not look["inHand"] and look["inTrick"], look
    assert look["legalLeft"] == 0, look
    if look["trickCards"] < 4:  # South led or followed: West is next, not South
        assert look["westToMove"] and not look["mine"], look
    else:  # South's card filled the trick: its winner (marked) leads next, maybe South
        assert look["toMove"] == look["leadingSeat"], look
        assert look["mine"] == (look["toMove"] == "0"), look
    if look["westToMove"]:  # West (a bot) is next and thinking
        assert look["thinking"] == ["1"], look
        assert look["prompt"] == "West denkt na…", look
    # The server's event confirms it: the card stays played.
    _wait_seq_above(page, look["seqBefore"])
    stored = page.evaluate("manillenTable.ui.state")
    played = [c for _, c in stored["current_trick"]["cards"]]
    played += [c for trick in stored["tricks"] for _, c in trick["cards"]]
    assert look["card"] in played or stored["deal_number"] > 1
    expect(page.locator(f'#hand [data-card="{look["card"]}"]')).to_have_count(0)
    assert not page.js_errors, page.js_errors


def test_a_card_the_server_refuses_goes_back_to_the_hand(page, asgi_server):
    _open_table(page, asgi_server)
    _wait_for_a_card_to_play(page)
    seq = _seq(page)
    # An outdated move number: the server refuses the move ("stale") and nothing counts.
    page.evaluate("manillenTable.ui.seq -= 1")
    look = page.evaluate(CLICK_AND_LOOK_JS)
    assert not look["inHand"] and look["inTrick"], look
    card = page.locator(f'#hand [data-card="{look["card"]}"]')
    expect(card).to_have_count(1)  # back in the hand with the refusal
    expect(page.locator(f'#trick [data-trick-card="{look["card"]}"]')).to_have_count(0)
    page.wait_for_function(TABLE_AT_REST_JS)
    assert _seq(page) == seq
    expect(page.locator(f'#hand [data-card="{look["card"]}"][data-legal]')).to_have_count(1)
    assert not page.js_errors, page.js_errors


def test_a_snapshot_that_crosses_the_click_leaves_the_card_played(page, asgi_server):
    """A snapshot asked for before the move reached the server (on open, by the
    watchdog) still shows the card in the hand; it must not put the card back (for a
    moment a second card could be clicked) nor stop the move's own answer."""
    _open_table(page, asgi_server)
    _wait_for_a_card_to_play(page)
    seq = _seq(page)
    # The snapshot request goes out just before the move, so its answer comes first.
    page.evaluate(
        """() => {
      const ws = manillenTable.socket.ws;
      const send = ws.send.bind(ws);
      ws.send = (data) => {
        if (JSON.parse(data).type === 'action') {
          window.sentCard = JSON.parse(data).action;
          send(JSON.stringify({ type: 'snapshot' }));
          setTimeout(() => send(data), 400);
        } else send(data);
      };
      window.backInHand = [];
      window.snapshotsAtSeq = 0;
      window.seqAtClick = manillenTable.ui.seq;
      const hand = document.getElementById('hand');
      new MutationObserver(() => {
        const card = window.sentCard;
        if (!card || manillenTable.ui.seq > window.seqAtClick) return;
        if (hand.querySelector(`[data-card="${card}"]`)) window.backInHand.push(card);
      }).observe(hand, { childList: true, subtree: true });
      const onMessage = manillenTable.socket.onMessage;
      manillenTable.socket.onMessage = (msg) => {
        const same = msg.type === 'snapshot' && Number(msg.seq) === manillenTable.ui.seq;
        if (same) window.snapshotsAtSeq += 1;
        onMessage(msg);
      };
    }"""
    )
    look = page.evaluate(CLICK_AND_LOOK_JS)
    assert look["inTrick"] and not look["inHand"], look
    _wait_seq_above(page, seq)  # the move's echo came, after the snapshot
    assert page.evaluate("window.snapshotsAtSeq") >= 1
    assert page.evaluate("window.backInHand") == []
    expect(page.locator(f'#hand [data-card="{look["card"]}"]')).to_have_count(0)
    assert page.evaluate("manillenTable.ui.pending") is None
    assert not page.js_errors, page.js_errors


def test_a_move_nothing_answers_is_taken_back_and_the_table_connects_anew(page, asgi_server):
    _open_table(page, asgi_server)
    _wait_for_a_card_to_play(page)
    seq = _seq(page)
    # The socket still looks open, but what the page sends goes nowhere (a connection
    # that died without a close, as on a phone changing networks).
    page.evaluate("window.deadSocket = manillenTable.socket.ws; deadSocket.send = () => {}")
    look = page.evaluate(CLICK_AND_LOOK_JS)
    assert look["inTrick"] and not look["inHand"], look
    # No answer within 5 s: the card is back in the hand and a new connection is made.
    expect(page.locator(f'#hand [data-card="{look["card"]}"]')).to_have_count(1, timeout=10_000)
    page.wait_for_function(
        "() => { const ws = manillenTable.socket.ws;"
        " return ws && ws !== window.deadSocket && ws.readyState === WebSocket.OPEN; }"
    )
    page.wait_for_function(TABLE_AT_REST_JS)
    assert _seq(page) == seq  # the server never got it
    page.locator(f'#hand [data-card="{look["card"]}"][data-legal]').click()
    _wait_seq_above(page, seq)
    assert not page.js_errors, page.js_errors
