"""The table for keyboard and screen-reader users: the end dialog keeps the focus, the
trick and the seat to move have names, the prompt is spoken only when it says something
new (and on the viewer's own turn), the viewer's own lines read "You win", the choices are
named by what is asked, and the skip link shows when it has the focus."""

from __future__ import annotations

import re

import pytest

from tests.helpers import TABLE_AT_REST_JS, start_new_game

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db

SEQ_JS = "Number(document.getElementById('table-root').dataset.seq)"
ACTIONABLE = "[data-trump], [data-announce], #hand [data-card][data-legal]"
CARD_NAME = (
    r"(Jij|West|Noord|Oost): (schoppen|harten|ruiten|klaveren) (aas|heer|vrouw|boer|10|9|8|7)"
)


def _open_table(page, base: str) -> None:
    start_new_game(page, base)
    page.wait_for_function("() => window.manillenTable !== undefined")


def _seq(page) -> int:
    return page.evaluate(SEQ_JS)


def _act(page) -> None:
    """At rest on South's turn: play the first trump choice, announcement or legal card."""
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    seq = _seq(page)
    page.locator(ACTIONABLE).first.click()
    page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)


def _wait_for_a_card_to_play(page) -> None:
    for _ in range(20):
        page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
        if page.locator("#hand [data-card][data-legal]").count():
            return
        _act(page)
    raise AssertionError("South was never offered a card")


# The end dialog opened as a finished game's snapshot opens it (the whole game is played
# in test_table.py's test_play_a_whole_game_to_the_boom).
GAME_OVER_JS = """() => {
  const u = manillenTable.ui;
  manillenTable.onMessage({type: "snapshot", seq: u.seq + 1, state: {...u.state,
    phase: "game_over", game_over: true, to_move: null, legal: [],
    outcome: {winner: 0, scores: [101, 64]}, scores: [101, 64]}});
}"""
IN_END_JS = "() => document.getElementById('end').contains(document.activeElement)"
FOCUSABLE_IN_END_JS = """() => [...document.querySelectorAll('#end a[href], #end button')]
  .filter((e) => e.getClientRects().length && !e.closest('[hidden]'))
  .map((e) => e.outerHTML.slice(0, 60))"""
ACTIVE_JS = "() => document.activeElement.outerHTML.slice(0, 60)"


def test_the_end_dialog_keeps_the_keyboard_focus(page, asgi_server):
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.locator("#btn-scores").focus()
    page.evaluate(GAME_OVER_JS)
    expect(page.locator("[data-game-over]")).to_be_visible()
    assert page.evaluate(IN_END_JS), "the focus did not move into the opened dialog"
    items = page.evaluate(FOCUSABLE_IN_END_JS)
    assert len(items) >= 3, items
    # Tab past the last control comes back to the first; Shift+Tab the other way round.
    page.locator("#end a[href], #end button").last.focus()
    assert page.evaluate(ACTIVE_JS) == items[-1]
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE_JS) == items[0]
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(ACTIVE_JS) == items[-1]
    for _ in range(len(items) + 2):
        page.keyboard.press("Tab")
        assert page.evaluate(IN_END_JS), page.evaluate(ACTIVE_JS)
    # After a long game the scores scroll: Tab still reaches every control in turn (the
    # scroller took the focus and sent it back to the first, past the links).
    page.add_style_tag(content="[data-end-board] { max-height: 3em; overflow: auto; }")
    scrollers = '#end button, #end [tabindex="0"]\''
    with_scrollers = FOCUSABLE_IN_END_JS.replace("#end button'", scrollers)
    items = page.evaluate(with_scrollers)
    assert any("data-end-board" in item for item in items)
    page.locator("#end a[href], #end button").last.focus()
    seen = []
    for _ in range(len(items)):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(ACTIVE_JS))
    assert sorted(seen) == sorted(items), (seen, items)
    # The page behind is out of reach (inert) while the dialog is open.
    assert page.evaluate("!!document.getElementById('btn-scores').closest('[inert]')")
    assert page.evaluate("!!document.querySelector('.site-header').closest('[inert]')")
    assert not page.evaluate("!!document.getElementById('end').closest('[inert]')")
    # Escape closes it: the focus goes to "De uitslag", which opens it again.
    page.keyboard.press("Escape")
    expect(page.locator("#end")).to_be_hidden()
    reopen = page.locator("[data-end-reopen]")
    expect(reopen).to_be_focused()
    assert page.evaluate("!document.querySelector('[inert]')")
    page.keyboard.press("Enter")
    expect(page.locator("#end")).to_be_visible()
    assert page.evaluate(IN_END_JS)
    page.locator("[data-end-close]").click()
    expect(reopen).to_be_focused()
    assert not page.js_errors, page.js_errors


def test_the_trick_and_the_seat_to_move_have_names(page, asgi_server):
    _open_table(page, asgi_server)
    _wait_for_a_card_to_play(page)
    page.locator("#hand [data-card][data-legal]").first.click()
    trick = page.get_by_role("group", name="Kaarten op tafel")
    expect(trick).to_have_count(1)
    cards = trick.get_by_role("img")
    expect(cards.first).to_be_attached()
    names = cards.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert names and all(re.fullmatch(CARD_NAME, n) for n in names), names
    assert any(n.startswith("Jij: ") for n in names), names  # South's own card
    snapshot = page.locator("#trick").aria_snapshot()
    assert 'group "Kaarten op tafel"' in snapshot and "img " in snapshot, snapshot
    # The dot is drawn only; the seat to move says "aan zet" after its name.
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    dots = page.locator(".seat .dot")
    assert dots.evaluate_all("els => els.every(e => e.getAttribute('aria-hidden') === 'true')")
    said = page.locator(".seat:not(.to-move) .to-play-text")
    assert said.evaluate_all("els => els.every(e => e.hidden)")
    mover = page.locator(".seat.to-move .seat-label")
    expect(mover).to_have_count(1)
    text = mover.evaluate(
        "e => [...e.querySelectorAll(':scope > :not([aria-hidden=true]):not([hidden])')]"
        ".map(n => n.textContent).join('').replace(/\\s+/g, ' ').trim()"
    )
    assert text == "Jij aan zet", text
    assert not page.js_errors, page.js_errors


# Every text written into the prompt (a new text node each write) with its aria-live then.
PROMPT_WATCH_JS = """() => {
  window.promptWrites = [];
  const p = document.getElementById('prompt');
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type !== 'childList' || !r.addedNodes.length && !r.removedNodes.length) continue;
      const text = [...r.addedNodes].map((n) => n.textContent).join('');
      window.promptWrites.push([text, p.getAttribute('aria-live')]);
    }
  }).observe(p, {childList: true, characterData: true, subtree: true});
}"""


def test_the_prompt_is_written_when_it_changes_and_live_on_the_own_turn(page, asgi_server):
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.evaluate(PROMPT_WATCH_JS)
    for _ in range(4):  # four of South's moves, and the bots' moves between them
        _act(page)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    writes = page.evaluate("window.promptWrites")
    texts = [w[0] for w in writes]
    assert len(texts) >= 4, writes
    repeats = [a for a, b in zip(texts, texts[1:], strict=False) if a == b]
    assert not repeats, f"the prompt was written again unchanged: {writes}"
    # The bots' turns are told by the move log, not by the prompt.
    for text, live in writes:
        if "denkt na" in text or "is aan zet" in text:
            assert live == "off", writes
    expect(page.locator("#prompt")).to_have_attribute("aria-live", "polite")  # South's turn
    assert not page.js_errors, page.js_errors


def _english(page, base: str) -> None:
    page.goto(base + "/")
    with page.expect_navigation():
        page.locator("#lang-select").select_option("en")


# Every line added to the move log (a line each: test_table_a11y_more.py).
SR_WATCH_JS = """() => {
  window.srLines = [];
  const log = document.getElementById('sr-log');
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.srLines.push(n.textContent);
  }).observe(log, {childList: true});
}"""


# A step of the game as the server sends it, made up from the state on screen: `actor`
# plays `action`; `patch` changes the next state (a finished trick, a trump chosen).
def _event(page, actor: int, action: str, patch: str = "() => ({})") -> None:
    page.evaluate(
        f"""() => {{
          const u = manillenTable.ui, prev = u.state;
          const next = {{...prev, ...({patch})(prev)}};
          manillenTable.onMessage({{type: "event", seq: u.seq + 1, actor: {actor},
            action: "{action}", state: next}});
        }}"""
    )


def _trick_won_by(seat: int, points: int) -> str:
    return f"""(prev) => ({{
      tricks: [...(prev.tricks || []), {{cards: [[1, "7S"], [2, "8S"], [3, "9S"], [0, "JS"]],
        winner: {seat}, points: {points}}}],
      current_trick: {{leader: {seat}, cards: []}}, to_move: {seat}}})"""


def test_the_viewers_own_lines_read_you_win_and_one_point(page, asgi_server):
    _english(page, asgi_server)
    _open_table(page, asgi_server)
    page.locator("#fast-play").check()
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.evaluate(SR_WATCH_JS)
    # A few real moves first: every line so far reads right.
    for _ in range(3):
        _act(page)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    # Then steps made up from the state on screen, through the table's own event path.
    log = page.locator("#sr-log > *").last
    _event(page, 1, "QS", _trick_won_by(0, 1))
    expect(log).to_have_text("West: queen of spades. You win the trick (1 point)")
    _event(page, 1, "KS", _trick_won_by(0, 9))
    expect(log).to_have_text("West: king of spades. You win the trick (9 points)")
    _event(page, 0, "AS", _trick_won_by(1, 1))
    expect(log).to_have_text("You: ace of spades. West wins the trick (1 point)")
    _event(page, 0, "TS", _trick_won_by(1, 7))
    expect(log).to_have_text("You: 10 of spades. West wins the trick (7 points)")
    _event(page, 0, "trump:H", '() => ({trump_chosen: true, trump: "H", no_trump: false})')
    expect(log).to_have_text(re.compile(r"^You choose: Trump \u2665"))
    _event(page, 1, "trump:S", '() => ({trump_chosen: true, trump: "S", no_trump: false})')
    expect(log).to_have_text(re.compile(r"^West chooses: Trump \u2660"))
    # A deal's last trick: the next state is already the new deal's, its points counted
    # from the cards (were "( points)").
    three = '[[1, "7S"], [2, "8S"], [3, "9S"]]'
    _event(page, 3, "9S", f"() => ({{current_trick: {{leader: 1, cards: {three}}}, to_move: 0}})")
    expect(log).to_have_text("East: 9 of spades")
    _event(
        page,
        0,
        "JS",
        "(prev) => ({deal_number: prev.deal_number + 1, tricks: [],"
        " current_trick: {leader: null, cards: []}})",
    )
    expect(log).to_have_text("You: jack of spades. You win the trick (1 point)")
    lines = page.evaluate("window.srLines")
    wrong = [x for x in lines if re.search(r"You wins|You chooses|\(1 points\)", x)]
    assert not wrong, lines
    assert not page.js_errors, page.js_errors


# The choices group, drawn by the table's own renderer for each kind of question.
CHOICES_LABELS_JS = """async () => {
  const R = await import('/static/js/table/render.js');
  const dict = {};
  for (const n of document.querySelectorAll('#i18n [data-k]')) {
    dict[n.dataset.k] = n.textContent.trim();
  }
  const t = (k) => dict[k] ?? k;
  const box = document.createElement('div');
  const label = (legal, phase) => {
    R.renderChoices(box, {seat: 0, to_move: 0, phase, legal}, {interactive: true, t});
    return [box.getAttribute('aria-label'), box.querySelectorAll('button').length];
  };
  return {
    trump: label(['trump:S', 'trump:H', 'trump:D', 'trump:C', 'trump:none'], 'trump'),
    mee: label(['mee', 'pass'], 'announce'),
    tegen: label(['tegen', 'pass'], 'announce'),
    blind: label(['blind', 'look'], 'blind'),
  };
}"""


def test_the_choices_are_named_by_what_is_asked(page, asgi_server):
    _open_table(page, asgi_server)
    labels = page.evaluate(CHOICES_LABELS_JS)
    assert labels["trump"] == ["Kies de troef", 5], labels
    assert labels["mee"] == ["Ga je mee? (dubbel)", 2], labels
    assert labels["tegen"] == ["Ga je tegen? (herdubbel)", 2], labels
    assert labels["blind"][0].startswith("Jij deelt: blind zonder troef"), labels


def test_the_skip_link_shows_when_focused_and_is_not_printed(page, asgi_server):
    page.goto(asgi_server + "/")
    link = page.locator("a[href='#content']").first
    expect(link).to_have_text("Naar de inhoud")
    page.keyboard.press("Tab")
    expect(link).to_be_focused()
    box = link.bounding_box()
    assert box and box["width"] > 40 and box["height"] > 16, box
    assert link.evaluate("e => getComputedStyle(e).clip") in ("auto", "")
    assert box["x"] >= 0 and box["y"] >= 0
    page.keyboard.press("Tab")  # away again: out of sight
    box = link.bounding_box()
    assert box is None or (box["width"] <= 1 and box["height"] <= 1), box
    page.emulate_media(media="print")
    assert link.evaluate("e => getComputedStyle(e).display") == "none"


def test_a_tricks_line_counts_the_points_the_rules_give_a_trick(page, asgi_server):
    """French gives a point a trick besides its cards: the line says what the trick
    added to the deal's points (the lines of a deal add up to its total), also for the
    deal's last trick, whose points the new deal's state only has on the board."""
    _english(page, asgi_server)
    _open_table(page, asgi_server)
    page.locator("#fast-play").check()
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    log = page.locator("#sr-log > *").last
    # The jack (1 card point) and the trick's own point: 2 for South-North.
    _event(
        page,
        1,
        "JS",
        """(prev) => ({...("""
        + _trick_won_by(0, 1)
        + """)(prev),
          team_points: [prev.team_points[0] + 2, prev.team_points[1]]})""",
    )
    expect(log).to_have_text("West: jack of spades. You win the trick (2 points)")
    # The last trick: the board's new row holds the deal's total.
    three = '[[1, "7S"], [2, "8S"], [3, "9S"]]'
    _event(page, 3, "9S", f"() => ({{current_trick: {{leader: 1, cards: {three}}}, to_move: 0}})")
    _event(
        page,
        0,
        "KS",
        """(prev) => ({deal_number: prev.deal_number + 1, tricks: [],
          current_trick: {leader: null, cards: []}, team_points: [0, 0],
          board: [...(prev.board || []), {deal: prev.deal_number, card_points:
            [prev.team_points[0] + 4, prev.team_points[1] + 30], written: [0, 0]}]})""",
    )
    expect(log).to_have_text("You: king of spades. You win the trick (34 points)")
    assert not page.js_errors, page.js_errors
