"""The table in Chromium survives its ASGI process being killed (SIGKILL) mid-game.

A player has the table open and has played some cards. The uvicorn process serving it
is killed twice: once right after a card is sent (the card may or may not have reached
the server), once right after a card was committed (its bot turn in flight: eagerly
in the dead process in embedded mode, in the Celery worker on the production stack,
whose events then go to nobody). Each time a new process starts on the same port. The
page, never reloaded, shows that it is reconnecting, reconnects by itself and resumes
from a snapshot: hand, trick, scores and seq equal to the server's stored state. The
game is then played to its end, and:
- the stored record is the record of the game's replay (engine.Game.replay);
- South's moves in the database are exactly the moves the page sent that the server
  took (a card lost with the process is shown back in the hand and played again):
  none lost, none twice;
- every other move is the deterministic bot's, once: none lost, none redone;
- the seq advanced by exactly those moves.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.helpers import TABLE_AT_REST_JS as AT_REST_JS
from tests.helpers import TABLE_SEQ_JS as SEQ_JS
from tests.helpers import start_new_game

expect = pytest.importorskip("playwright.sync_api").expect

# The server subprocess uses the test database on the production stack (pytest-django
# only creates it for sessions holding a django_db test).
pytestmark = pytest.mark.django_db

GAME_BUDGET_S = 120
ACTIONABLE = "[data-trump], #hand [data-card][data-legal]"
RECONNECTING = re.compile(r"opnieuw verbinden", re.IGNORECASE)


def _seq(page) -> int:
    return page.evaluate(SEQ_JS)


def _hand(page) -> list[str]:
    return page.locator("#hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")


def _trick(page) -> list[str]:
    return page.locator("#trick [data-trick-card]").evaluate_all(
        "els => els.map(e => e.dataset.trickCard)"
    )


def _action_of(target) -> str:
    return target.get_attribute("data-card") or target.get_attribute("data-action")


def _wait_at_rest(page, timeout: float = 30_000) -> None:
    page.wait_for_function(AT_REST_JS, timeout=timeout)


def _play_one(page, sent: list[str]) -> None:
    """South plays the first thing the table offers; wait until the server took it."""
    _wait_at_rest(page)
    target = page.locator(ACTIONABLE).first
    action, seq = _action_of(target), _seq(page)
    target.click()
    page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)
    sent.append(action)


def _assert_page_shows_server(page, server, game_id: str) -> dict:
    """At rest, the page shows exactly the state the server stored."""
    _wait_at_rest(page)
    # A completed trick lies in the middle for a moment before the current one shows.
    page.wait_for_function("() => manillenTable.ui.trickView === null")
    stored = server.stored_game(game_id)
    response = page.request.get(f"{server.base}/game/{game_id}/state.json")
    assert response.ok, response.status
    snapshot = response.json()
    assert snapshot["seq"] == stored["seq"] == _seq(page)
    state = snapshot["state"]
    assert state == stored["state"]
    assert page.evaluate("manillenTable.ui.state") == state
    hand = state["hand"] or []  # face down (null) before trump for the dealer's partner
    assert sorted(_hand(page)) == sorted(hand)
    assert _trick(page) == [card for _, card in state["current_trick"]["cards"]]
    wij, zij = state["scores"]
    assert page.locator("#mini-wij").inner_text() == str(wij)
    assert page.locator("#mini-zij").inner_text() == str(zij)
    return stored


def _kill_and_restart(page, server, game_id: str, sent: list[str], *, after_commit: bool) -> bool:
    """South plays; the server is killed right after the card is sent (or, with
    `after_commit`, right after the server committed it). The page must show it is
    reconnecting, come back by itself on the new process and agree with the database.
    Returns whether the server took the card."""
    _wait_at_rest(page)
    seq, deal = _seq(page), page.evaluate("manillenTable.ui.state.deal_number")
    target = page.locator(ACTIONABLE).first
    action = _action_of(target)
    page.evaluate("window.deadSocket = manillenTable.socket.ws")
    target.click()
    if after_commit:
        deadline = time.monotonic() + 15
        while server.stored_game(game_id)["seq"] == seq:
            assert time.monotonic() < deadline, "the server never stored the card"
            time.sleep(0.005)
    server.kill()
    killed_at = time.monotonic()

    conn = page.locator("#conn")
    expect(conn).to_be_visible()
    expect(conn).to_have_text(RECONNECTING)
    # What the dead process left behind: South's move at `seq` is this one, or none.
    actions = server.stored_game(game_id)["actions"]
    took = len(actions) > seq
    if took:
        assert actions[seq] == action, (seq, action, actions[seq])
        sent.append(action)
    assert took or not after_commit
    # A bot turn lost with the process is re-enqueued on reconnect once the game row is
    # SWEEP_STUCK_AFTER (1 s here) old: let that pass, as a real restart would.
    time.sleep(max(0.0, killed_at + 1.1 - time.monotonic()))
    # Still down: still saying so (the page retries with backoff meanwhile).
    expect(conn).to_have_text(RECONNECTING)
    server.start()

    _wait_at_rest(page)
    expect(conn).to_be_hidden()
    assert page.evaluate("manillenTable.socket.ws !== window.deadSocket"), "not reconnected"
    stored = _assert_page_shows_server(page, server, game_id)
    if took:
        assert stored["seq"] > seq
        if stored["state"]["deal_number"] == deal:  # (a new deal may hold it again)
            assert action not in _hand(page), f"{action} was played but is back in the hand"
    else:
        # Lost with the process: offered again (a card back in South's hand).
        assert stored["seq"] == seq
        again = page.locator(f'#hand [data-card="{action}"][data-legal], [data-action="{action}"]')
        expect(again).to_have_count(1)
    return took


def _play_to_the_end(page, budget_s: float) -> dict:
    """The rest of the game, clicked from inside the page (a few hundred moves through
    Playwright's click would take most of the test's time): South plays the first thing
    the table offers whenever it is at rest, until the game is over. Returns the moves
    the server took, in order (each one made the table's seq advance). Paced below the
    server's per-connection message rate (GAME_WS_RATE, 10/s): no person clicks faster."""
    return page.evaluate(
        f"""async (budgetMs) => {{
          const atRest = {AT_REST_JS};
          const root = document.getElementById('table-root');
          const until = Date.now() + budgetMs;
          const sent = [];
          const stuck = () => ({{sent, timeout: true, error: manillenTable.ui.error}});
          let last = 0;
          const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
          for (;;) {{
            while (!atRest()) {{
              if (Date.now() > until) return stuck();
              await tick();
            }}
            if (manillenTable.ui.state.game_over) return {{sent, timeout: false}};
            const target = root.querySelector({json.dumps(ACTIONABLE)});
            if (!target) throw new Error('South is to play but nothing is offered');
            await new Promise((resolve) => setTimeout(resolve, last + 100 - Date.now()));
            last = Date.now();
            const seq = manillenTable.ui.seq;
            target.dispatchEvent(new MouseEvent('click', {{bubbles: true, detail: 1}}));
            while (Number(root.dataset.seq) <= seq) {{
              if (Date.now() > until) return stuck();
              await tick();
            }}
            sent.push(target.dataset.card || target.dataset.action);
          }}
        }}""",
        budget_s * 1000,
    )


def _split_moves(seed: str, rules: str, actions: list[str], bot_level: str):
    """South's moves in order and the number of bot moves, checking on the way that
    each bot move is the one the deterministic bot makes there."""
    import engine
    from engine.bots import bot_seed, get_bot

    bot = get_bot(bot_level)
    eng = engine.Game(seed, rules)
    south, bots = [], 0
    for i, action in enumerate(actions):
        seat = eng.to_move
        if seat == 0:
            south.append(action)
        else:
            expected = bot.act(eng.observation(seat), bot_seed(seed, eng.deal_number, seat))
            assert expected == action, f"move {i + 1} by seat {seat}: {action}, bot: {expected}"
            bots += 1
        eng.apply_action(action)
    return south, bots


def test_the_table_survives_a_killed_server_and_finishes_the_game(page, restartable_server):
    server = restartable_server
    started = time.monotonic()
    start_new_game(page, server.base)
    expect(page.locator("#table-root")).to_be_visible()
    page.wait_for_function("() => window.manillenTable !== undefined")
    game_id = re.search(r"/game/([0-9a-f-]{36})/", page.url).group(1)
    page.locator("#fast-play").check()
    page.evaluate("window.sameDocument = true")  # gone if the page were ever reloaded
    sent: list[str] = []  # South's moves the server took, in order

    for _ in range(5):
        _play_one(page, sent)
    lost = not _kill_and_restart(page, server, game_id, sent, after_commit=False)
    for _ in range(3):
        _play_one(page, sent)
    assert _kill_and_restart(page, server, game_id, sent, after_commit=True)
    assert server.starts == 3

    outages = time.monotonic() - started
    tail = _play_to_the_end(page, budget_s=GAME_BUDGET_S - outages)
    sent.extend(tail["sent"])
    assert not tail["timeout"], f"game not over after {len(sent)} South moves: {tail}"
    end = page.locator("[data-game-over]")
    expect(end).to_be_visible()

    stored = _assert_page_shows_server(page, server, game_id)
    assert page.evaluate("window.sameDocument") is True, "the page was reloaded"
    assert not page.js_errors, page.js_errors

    import engine
    from engine import records

    assert stored["status"] == "finished"
    assert stored["seq"] == len(stored["actions"])
    replayed = engine.Game.replay(stored["seed"], stored["rules"], stored["actions"])
    assert replayed.is_terminal()
    # The same game, with the tags the server wrote (who played, when).
    assert (
        records.write_text(replayed, records.read_text(stored["record"]).tags) == stored["record"]
    )
    assert replayed.observation(0) == stored["state"]
    assert stored["final_score"] == replayed.score_for(0)
    assert int(end.get_attribute("data-score")) == stored["final_score"]
    # The owner downloads the same record from the table's server.
    download = page.request.get(f"{server.base}/game/{game_id}/record.txt")
    assert download.ok and download.text() == stored["record"]

    south, bots = _split_moves(
        stored["seed"], stored["rules"], stored["actions"], stored["bot_level"]
    )
    assert south == sent, "South's stored moves differ from the moves the page sent"
    assert stored["seq"] == len(sent) + bots
    print(
        f"game over after {stored['seq']} moves ({len(sent)} South, {bots} bots), "
        f"card at the first kill {'lost' if lost else 'taken'}; "
        f"{outages:.1f}s to both restarts, {time.monotonic() - started:.1f}s in all"
    )


def _open_new_game(page, base: str) -> str:
    """A new solo game on the table; its id. (One place to adapt how games start.)"""
    start_new_game(page, base)
    expect(page.locator("#table-root")).to_be_visible()
    page.wait_for_function("() => window.manillenTable !== undefined")
    return re.search(r"/game/([0-9a-f-]{36})/", page.url).group(1)


def test_a_click_while_offline_is_not_sent_and_the_table_is_back_within_a_second(
    page, restartable_server
):
    server = restartable_server
    game_id = _open_new_game(page, server.base)
    page.locator("#fast-play").check()
    _wait_at_rest(page)
    seq = _seq(page)
    target = page.locator(ACTIONABLE).first
    action = _action_of(target)

    tried_before = page.evaluate("manillenTable.socket.attempts.length")
    server.kill()
    conn = page.locator("#conn")
    expect(conn).to_have_text(RECONNECTING)
    page.locator(ACTIONABLE).first.click()  # the same action: the table still offers it
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Niet verbonden: je kaart is niet verstuurd")
    if target.get_attribute("data-card"):  # a card stays in the hand, none on the table
        expect(page.locator(f'#hand [data-card="{action}"]')).to_have_count(1)
        expect(page.locator(f'#trick [data-trick-card="{action}"]')).to_have_count(0)
    time.sleep(3)  # down for a while, as a restart is: the retries must not slow down
    server.start()
    page.wait_for_function(
        "() => manillenTable.socket.ws.readyState === WebSocket.OPEN", timeout=1_500
    )
    # The attempts since the connection was lost: never more than a second apart.
    attempts = page.evaluate("manillenTable.socket.attempts")[tried_before:]
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert len(gaps) >= 3 and max(gaps) <= 1000, gaps

    # The click made while offline was not replayed: the server never got it. The
    # table is back, so "play it again once the table is back" is gone.
    _wait_at_rest(page)
    expect(error).to_be_hidden()
    assert server.stored_game(game_id)["seq"] == seq == _seq(page)
    again = page.locator(f'#hand [data-card="{action}"][data-legal], [data-action="{action}"]')
    expect(again).to_have_count(1)
    again.click()  # online again, the same click counts
    page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)
    assert server.stored_game(game_id)["actions"][seq] == action
    assert not page.js_errors, page.js_errors
