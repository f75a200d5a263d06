"""The table on a phone at the larger zooms: names, cards and the trick never overlap."""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest

from tests.helpers import TABLE_AT_REST_JS, start_new_game

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db

SEQ_JS = "Number(document.getElementById('table-root').dataset.seq)"
SHOTS = os.environ.get("TABLE_SCREENSHOTS")  # a folder: keep the screenshots to look at

# Every seat's label (name) and cards, and every card in the trick, as boxes.
BOXES_JS = """() => {
  const root = document.getElementById('table-root');
  const box = (el) => el.getBoundingClientRect().toJSON();
  const out = {felt: box(root.querySelector('.felt')), parts: []};
  for (const seat of root.querySelectorAll('.seat[data-seat]')) {
    const name = seat.querySelector('.name');
    out.parts.push({what: `label ${seat.dataset.seat}`, seat: seat.dataset.seat,
      box: box(seat.querySelector('.seat-label')),
      clipped: name.scrollWidth > name.clientWidth + 1});
    const backs = seat.querySelector('.backs');
    if (backs && backs.children.length)
      out.parts.push({what: `backs ${seat.dataset.seat}`, seat: seat.dataset.seat,
        box: box(backs)});
    const sub = seat.querySelector('.seat-sub');
    if (sub && sub.textContent.trim())
      out.parts.push({what: `sub ${seat.dataset.seat}`, seat: seat.dataset.seat, box: box(sub)});
  }
  for (const card of root.querySelectorAll('#trick [data-trick-card]'))
    out.parts.push({what: `trick card of ${card.dataset.seat}`, seat: 'trick', box: box(card)});
  return out;
}"""


def _open_new_game(page, base: str) -> None:
    """A new solo game on the table. (One place to adapt how games start.)"""
    start_new_game(page, base)
    expect(page.locator("#table-root")).to_be_visible()
    page.wait_for_function("() => window.manillenTable !== undefined")


def _overlap(a: dict, b: dict) -> float:
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


def _assert_felt_in_order(page, step) -> None:
    """Every name whole and inside the felt, and no seat's label, cards or line over
    another seat's or over the cards on the table."""
    found = page.evaluate(BOXES_JS)
    felt, parts = found["felt"], found["parts"]
    for part in parts:
        assert not part.get("clipped"), (step, part)
        b = part["box"]
        assert b["left"] >= felt["left"] - 1 and b["right"] <= felt["right"] + 1, (step, part, felt)
    for i, a in enumerate(parts):
        for b in parts[i + 1 :]:
            if a["seat"] == b["seat"]:
                continue  # a seat's own label, cards and line sit together
            assert _overlap(a["box"], b["box"]) < 1, (step, a, b)


def _east_card_on_the_table(page) -> None:
    """Play until South is to move with East's card in the middle of the table."""
    for _ in range(40):
        page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
        page.wait_for_function("() => manillenTable.ui.trickView === null")
        if page.locator('#trick [data-trick-card][data-seat="3"]').count():
            return
        seq = page.evaluate(SEQ_JS)
        page.locator("[data-trump], [data-announce], #hand [data-card][data-legal]").first.tap()
        page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)
    raise AssertionError("East never had a card on the table when South was to move")


@contextmanager
def _phone_with_east_card_out(browser, base: str, width: int, height: int):
    """A phone of this size at a new solo game, played on (fast) until South is to move
    with East's card on the table; yields the page and the script errors seen so far."""
    ctx = browser.new_context(
        locale="nl-BE",
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
    )
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        _open_new_game(page, base)
        page.locator("#fast-play").check()
        _east_card_on_the_table(page)
        yield page, errors
    finally:
        ctx.close()


@pytest.mark.parametrize("width,height", [(390, 844), (360, 740)])
def test_names_cards_and_trick_do_not_overlap_at_the_larger_zooms(
    browser, asgi_server, width, height
):
    with _phone_with_east_card_out(browser, asgi_server, width, height) as (page, errors):
        larger = page.get_by_role("button", name="groter scherm")
        for step in range(1, 6):  # from 100 % up to the largest zoom
            if larger.is_disabled():
                break
            larger.tap()
            page.wait_for_timeout(400)  # the trick's cards move with a transition
            if SHOTS:
                page.screenshot(path=os.path.join(SHOTS, f"phone-{width}-zoom{step}.png"))
            _assert_felt_in_order(page, step)
            width_now = page.evaluate("document.documentElement.scrollWidth")
            assert width_now <= width, f"zoom step {step}: {width_now}px in a {width}px screen"
        assert not errors, errors


# Where each of South's cards is, and what a finger on its visible part (the left third:
# the next card covers the right fifth) would touch.
HAND_JS = """() => {
  const box = (el) => el.getBoundingClientRect().toJSON();
  return [...document.querySelectorAll('#hand [data-card]')].map((card) => {
    const b = box(card);
    const hit = document.elementFromPoint(b.left + b.width * 0.3, b.top + b.height * 0.5);
    const touched = hit ? hit.closest('[data-card]') === card : false;
    return {card: card.dataset.card, box: b, touched};
  });
}"""


@pytest.mark.parametrize("width,height", [(740, 360), (844, 390), (915, 412)])
def test_a_phone_on_its_side_has_the_felt_and_the_hand_on_one_screen(
    browser, asgi_server, width, height
):
    """A phone held sideways: the felt, the prompt and every card of South's hand on the
    screen at once, nothing to scroll (the hand sat a screen below the trick)."""
    with _phone_with_east_card_out(browser, asgi_server, width, height) as (page, errors):
        page.wait_for_timeout(400)  # the trick's cards move with a transition
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, f"side-{width}x{height}.png"))
        size = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight,"
            " document.body.scrollHeight]"
        )
        assert size[0] <= width and max(size[1:]) <= height, (size, width, height)
        _assert_felt_in_order(page, "on its side")
        screen = {"left": 0, "top": 0, "right": width, "bottom": height}
        felt = page.locator(".felt").bounding_box()
        prompt = page.locator("#prompt").bounding_box()
        for b in (felt, prompt):
            assert b["x"] >= 0 and b["y"] >= 0, b
            assert b["x"] + b["width"] <= width + 1 and b["y"] + b["height"] <= height + 1, b
        hand = page.evaluate(HAND_JS)
        assert hand, "South's hand is not drawn"
        for card in hand:
            b = card["box"]
            assert b["width"] >= 30, card  # still a card to read, not a crumb
            for side in ("left", "top"):
                assert b[side] >= screen[side] - 1, card
            for side in ("right", "bottom"):
                assert b[side] <= screen[side] + 1, card
            assert card["touched"], card  # a finger on it reaches this card
            assert _overlap(b, _box(felt)) < 1, (card, felt)  # beside the felt, not on it
        # The board opens over the table and closes again (past 900px it would take a
        # column of its own, beside a felt that fills the screen's height).
        page.locator("#btn-scores").tap()
        board = page.locator("#board")
        expect(board).to_be_visible()
        b = _box(board.bounding_box())
        assert b["left"] >= 0 and b["top"] >= 0, b
        assert b["right"] <= width and b["bottom"] <= height, b
        page.locator("#board-close").tap()
        expect(board).to_be_hidden()
        # The table plays on from there: South's card goes out with a tap.
        seq = page.evaluate(SEQ_JS)
        page.locator("#hand [data-card][data-legal]").first.tap()
        page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)
        assert not errors, errors


def _box(b: dict) -> dict:
    """A Playwright bounding box as the edges the overlap check takes."""
    right, bottom = b["x"] + b["width"], b["y"] + b["height"]
    return {"left": b["x"], "top": b["y"], "right": right, "bottom": bottom}


def test_a_laptops_short_screen_brings_the_hand_into_view_when_it_is_your_turn(
    browser, asgi_server
):
    """1280 x 720: the hand starts below the fold (its suits cut off); as South's first
    turn begins, nothing clicked yet, the page scrolls it into view, every card whole."""
    ctx = browser.new_context(locale="nl-BE", viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    try:
        _open_new_game(page, asgi_server)
        page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
        page.wait_for_function(
            "() => { const s = manillenTable.ui.state; return s.to_move === s.seat; }",
            timeout=30_000,
        )
        page.wait_for_timeout(300)
        hand = page.evaluate(HAND_JS)
        assert hand, "South's hand is not drawn"
        for card in hand:
            assert card["box"]["bottom"] <= 720 + 1 and card["box"]["top"] >= -1, card
    finally:
        ctx.close()


# The game ends (as the server would say it) after a long game: 16 deals on the sheet.
LONG_GAME_OVER_JS = """() => {
  const u = manillenTable.ui;
  manillenTable.onMessage({type: "snapshot", seq: u.seq + 1, state: {...u.state,
    phase: "game_over", game_over: true, to_move: null, legal: [],
    outcome: {winner: 0, scores: [101, 64]}, scores: [101, 64]}});
  const body = document.querySelector('[data-end-board] table tbody')
    || document.querySelector('[data-end-board] table');
  for (let i = 0; i < 16; i++) {
    const row = body.insertRow(-1);
    row.insertCell().textContent = String(i + 1);
    row.insertCell().textContent = '\u2660';
    row.insertCell().textContent = '6';
    row.insertCell().textContent = '';
  }
}"""


def test_the_end_of_a_long_game_shows_every_deal_and_the_total_on_a_phone(browser, asgi_server):
    """A phone (360 x 640): the result's score sheet is not a box of its own that
    stopped at deal 11 with the deciding deal and the total out of sight; the dialog
    scrolls to them."""
    with _phone_with_east_card_out(browser, asgi_server, 360, 640) as (page, errors):
        page.evaluate(LONG_GAME_OVER_JS)
        expect(page.locator("[data-game-over]")).to_be_visible()
        board = page.locator("[data-end-board]")
        clipped = board.evaluate("(el) => el.scrollHeight - el.clientHeight")
        assert clipped <= 1, clipped
        last = page.locator("[data-end-board] tr").last
        last.scroll_into_view_if_needed()
        expect(last).to_be_in_viewport()
        assert not errors, errors


# The bot plays persons' seats at West and East (a tournament's table): their names.
BOT_PLAYS_PEOPLE_JS = """() => {
  const person = (name, bot) => ({name, person: true, bot: bot ? "club" : null,
    bot_control: bot, bot_reason: bot ? "away" : "", left: false, free: false, away: false});
  manillenTable.onMessage({type: "table", table: {status: "active", players: [
    person("zuid", false), person("dirk", true), person("noord", false), person("cis", true)]}});
}"""


@pytest.mark.parametrize("width,height", [(320, 568), (740, 360)])
def test_a_bot_played_persons_name_is_not_cut_to_a_letter(browser, asgi_server, width, height):
    """At 320 px (and a phone on its side) West's "dirk (bot)" read "d… (bot)": the name
    and the tag now take two lines in the narrow side column, both whole."""
    with _phone_with_east_card_out(browser, asgi_server, width, height) as (page, errors):
        page.evaluate(BOT_PLAYS_PEOPLE_JS)
        for seat in ("1", "3"):
            expect(page.locator(f".seat[data-seat='{seat}'] .bot-tag")).to_be_visible()
        expect(page.locator(".seat[data-seat='1'] .name")).to_have_text("dirk")
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, f"phone-{width}-bot-names.png"))
        _assert_felt_in_order(page, "bot-played names")
        assert not errors, errors


def test_the_end_dialog_shows_its_score_and_main_action_on_a_small_phone(browser, asgi_server):
    """At 320×568 the end dialog's long title ("Verloren: zij hebben het hoogste totaal na
    het laatste deel.") took 7 lines and pushed the score and the main button below the
    screen: they are on the first screen now, the title in a few lines."""
    with _phone_with_east_card_out(browser, asgi_server, 320, 568) as (page, errors):
        page.evaluate(
            """() => {
              const u = manillenTable.ui;
              manillenTable.onMessage({type: "snapshot", seq: u.seq + 1, state: {...u.state,
                phase: "game_over", game_over: true, to_move: null, legal: [], deals: 12,
                outcome: {winner: 1, scores: [40, 104], reason: "deals"}, scores: [40, 104]}});
            }"""
        )
        title = page.locator("[data-end-title]")
        expect(title).to_contain_text("het hoogste totaal na het laatste deel")
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, "phone-320-end.png"))
        lines = page.evaluate(
            """() => {
              const h = document.querySelector('[data-end-title]');
              return Math.round(h.getBoundingClientRect().height /
                parseFloat(getComputedStyle(h).lineHeight || '0') || 0);
            }"""
        )
        box = page.locator("[data-end-title]").bounding_box()
        score = page.locator("#end .end-score b").bounding_box()
        action = page.locator("#end [data-new-game]").first.bounding_box()
        assert box["y"] >= 0, box
        assert score["y"] + score["height"] <= 568, score
        assert action["y"] + action["height"] <= 568, (action, lines)
        assert not errors, errors


def test_the_headers_links_are_big_enough_to_tap_on_a_phone(browser, asgi_server):
    """The header's links and language menu were 32 px high on a phone: 40 now."""
    ctx = browser.new_context(
        locale="nl-BE", viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    try:
        page = ctx.new_page()
        page.goto(asgi_server + "/")
        heights = page.evaluate(
            """() => [...document.querySelectorAll(
                '.site-nav > a, .site-nav .link-button, .site-nav select')]
              .filter((n) => n.getClientRects().length)
              .map((n) => [n.textContent.trim().slice(0, 20), n.getBoundingClientRect().height])"""
        )
        assert heights and all(h >= 40 for _, h in heights), heights
    finally:
        ctx.close()
