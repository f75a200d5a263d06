"""More of the table and the replay for screen-reader, keyboard and phone users: the
replay names its cards, the move log keeps the last lines, the own clock is said at five
seconds, the viewer's own seat reads "You deal", a tournament game's end dialog starts on
the tournament, the table has a heading and cards named in the page's language, guests
are told apart on a phone, and a spectator sees the result without a side."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid

import pytest

from tests.browser.conftest import _finish, _new_page, sign_up
from tests.browser.test_table_a11y import _act, _event, _open_table, _trick_won_by
from tests.helpers import PRODUCTION_STACK, ROOT, TABLE_AT_REST_JS

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db

NL_CARD = r"(schoppen|harten|ruiten|klaveren) (aas|heer|vrouw|boer|10|9|8|7)"
EN_CARD = r"(ace|king|queen|jack|10|9|8|7) of (spades|hearts|diamonds|clubs)"
SYMBOLS = re.compile(r"[\u2660\u2665\u2666\u2663]")


def _server_shell(tmp_path_factory, code: str) -> str:
    """Run `code` in `manage.py shell` against the database of the session's server
    (asgi_server: its SQLite file, or the test database on the production stack); its
    output."""
    env = {**os.environ, "DEBUG": "1"}
    if PRODUCTION_STACK:
        from django.db import connection

        env["DATABASE_NAME"] = connection.settings_dict["NAME"]
    else:
        for key in ("DATABASE_URL", "DATABASE_NAME", "REDIS_URL"):
            env.pop(key, None)
        base = tmp_path_factory.getbasetemp()
        found = {p.resolve() for p in base.glob("browser-server*/browser.sqlite3")}
        assert len(found) == 1, found
        (db,) = found
        env["SQLITE_PATH"] = str(db)
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _language(page, base: str, lang: str) -> None:
    page.goto(base + "/")
    with page.expect_navigation():
        page.locator("#lang-select").select_option(lang)


def _table_with_three_bots(page, base: str, *, name: str = "", clock: str = "") -> None:
    """A table of four opened as a guest (named `name`), three bots added, started."""
    page.goto(base + "/tables/new/")
    if name:
        page.locator("input[name=name]").fill(name)
    if clock:
        page.select_option("select[name=clock]", clock)
    page.locator("[data-create-table]").click()
    page.wait_for_url("**/tables/*/")
    for seat in (1, 2, 3):
        page.locator(f"[data-add-bot='{seat}']").click()
        page.wait_for_load_state()
    page.locator("[data-start]").click()
    page.wait_for_function("() => window.manillenTable !== undefined")


def _snapshot(page, patch: str) -> None:
    """A snapshot of the state on screen changed by `patch` (as after a reconnect)."""
    page.evaluate(
        f"""() => {{
          const u = manillenTable.ui;
          manillenTable.onMessage({{type: "snapshot", seq: u.seq + 1,
            state: {{...u.state, ...({patch})(u.state)}}}});
        }}"""
    )


GAME_OVER = """() => ({phase: "game_over", game_over: true, to_move: null, legal: [],
    outcome: {winner: 1, scores: [40, 104]}, scores: [40, 104]})"""


# --- 1. the replay ----------------------------------------------------------------------


def test_the_replay_names_every_card_for_a_screen_reader(page, asgi_server, tmp_path_factory):
    _open_table(page, asgi_server)
    public_id = page.url.rstrip("/").split("/")[-1]
    _server_shell(
        tmp_path_factory,
        "from game import actions; from game.models import Game; "
        f"actions.autoplay(Game.objects.get(public_id='{public_id}').pk)",
    )
    page.goto(f"{asgi_server}/game/{public_id}/replay/?step=3")
    trick = page.locator("[data-trick] [data-trick-card]")
    expect(trick).to_have_count(4)
    snapshot = page.locator("main").aria_snapshot()
    named = re.findall(r'img "([^"]+)"', snapshot)
    # The four cards of the trick and the six of the hand before it (the third trick),
    # each by its Dutch name.
    assert len(named) == 10, snapshot
    assert all(re.fullmatch(NL_CARD + r"( \(gespeeld\))?", n) for n in named), named
    assert sum(n.endswith("(gespeeld)") for n in named) == 1, named
    # The seat before each card of the trick is read with it.
    assert re.search(r'listitem:\s*- text: Jij\s*- img "' + NL_CARD, snapshot), snapshot
    # Still drawn with the symbols.
    expect(trick.first.locator(".suit")).to_have_text(SYMBOLS)
    _language(page, asgi_server, "en")
    page.goto(f"{asgi_server}/game/{public_id}/replay/?step=3")
    named = re.findall(r'img "([^"]+)"', page.locator("main").aria_snapshot())
    assert len(named) == 10 and all(re.fullmatch(EN_CARD + r"( \(played\))?", n) for n in named)
    assert not page.js_errors, page.js_errors


# --- 2. the move log --------------------------------------------------------------------


def test_the_move_log_keeps_the_last_plays_and_names_only_cards_played(page, asgi_server):
    _language(page, asgi_server, "en")
    _open_table(page, asgi_server)
    page.locator("#fast-play").check()
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    log = page.locator("#sr-log")
    expect(log).to_have_attribute("aria-live", "polite")
    expect(log).to_have_attribute("aria-relevant", "additions")
    for _ in range(4):  # real moves: South's and the bots' between them
        _act(page)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    # Every card the log names was played (tricks so far and the one on the table).
    check = page.evaluate(
        """async () => {
          const C = await import('/static/js/table/cards.js');
          const dict = {};
          for (const n of document.querySelectorAll('#i18n [data-k]')) {
            dict[n.dataset.k] = n.textContent.trim();
          }
          const t = (k, p = {}) => (dict[k] ?? k)
            .replace(/\\{(\\w+)\\}/g, (m, x) => (x in p ? p[x] : m));
          const s = manillenTable.ui.state;
          const played = [...(s.tricks || []).flatMap((x) => x.cards),
            ...(s.current_trick?.cards || [])].map(([, c]) => C.spokenName(c, t));
          const all = [];
          for (const r of 'SHDC') for (const k of '789JQKAT') all.push(C.spokenName(k + r, t));
          const lines = [...document.querySelectorAll('#sr-log > *')].map((n) => n.textContent);
          const named = lines.flatMap((l) => all.filter((c) => l.includes(c)));
          return {lines, named, played};
        }"""
    )
    assert len(check["lines"]) >= 4, check
    assert check["named"] and set(check["named"]) <= set(check["played"]), check
    # Quick plays one after the other: each is a line of its own, none replaced.
    before = log.locator("> *").count()
    _event(page, 1, "QS", "() => ({current_trick: {leader: 1, cards: [[1, 'QS']]}})")
    _event(page, 2, "KS", "() => ({current_trick: {leader: 1, cards: [[1, 'QS'], [2, 'KS']]}})")
    _event(page, 3, "AS", _trick_won_by(3, 9))
    lines = log.locator("> *")
    expect(lines).to_have_count(min(before + 3, 12))
    texts = lines.all_text_contents()
    assert texts[-3:] == [
        "West: queen of spades",
        "North: king of spades",
        "East: ace of spades. East wins the trick (9 points)",
    ], texts
    # Old lines go: the log stays short.
    for i in range(14):
        _event(
            page, 1, "7H", f"() => ({{current_trick: {{leader: 1, cards: [[1, '7H']]}}, n: {i}}})"
        )
    expect(lines).to_have_count(12)
    assert not page.js_errors, page.js_errors


# --- 3. the clock -----------------------------------------------------------------------


def test_the_own_clock_is_said_once_at_five_seconds(page, asgi_server):
    _language(page, asgi_server, "en")
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    alert = page.locator("#clock-alert")
    expect(alert).to_have_attribute("aria-live", "assertive")
    page.evaluate(
        """() => {
          window.alertWrites = 0;
          new MutationObserver(() => window.alertWrites++).observe(
            document.getElementById('clock-alert'),
            {childList: true, characterData: true, subtree: true});
          manillenTable.ui.deadline = Date.now() + 20000;
          manillenTable.draw();
        }"""
    )
    expect(page.locator("#clock")).to_be_visible()
    page.wait_for_timeout(700)
    assert page.evaluate("window.alertWrites") == 0  # 20 s left: nothing said
    page.evaluate("() => { manillenTable.ui.deadline = Date.now() + 4500; }")
    expect(alert).to_have_text(re.compile(r"^Your turn: [45] s$"))
    page.wait_for_timeout(1600)  # the clock counts on: said once
    assert page.evaluate("window.alertWrites") == 1
    assert not page.js_errors, page.js_errors


# --- 4. the viewer's own seat -----------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "deal", "said_in", "said_pass"),
    [
        ("en", "You deal", "You are in", "You pass"),
        ("fr", "Vous donnez", "Vous doublez", "Vous passez"),
        ("nl", "Jij deelt", "Jij gaat mee", "Jij past"),
    ],
)
def test_the_viewers_own_seat_reads_you_deal(page, asgi_server, lang, deal, said_in, said_pass):
    _language(page, asgi_server, lang)
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    _snapshot(page, '() => ({dealer: 0, announcements: [[0, "mee"], [1, "pass"]]})')
    sub = page.locator(".seat-south .seat-sub")
    expect(sub).to_contain_text(re.compile("^" + deal))
    expect(sub).to_contain_text(said_in)
    west = page.locator(".seat-west .seat-sub")
    expect(west).not_to_contain_text(said_pass)  # the others keep the third person
    _event(page, 0, "pass")
    expect(page.locator("#sr-log > *").last).to_have_text(said_pass)
    _event(page, 1, "pass")
    expect(page.locator("#sr-log > *").last).not_to_have_text(said_pass)
    assert not page.js_errors, page.js_errors


# --- 5. a tournament game's end dialog --------------------------------------------------


def test_a_tournament_games_end_dialog_focuses_the_tournament_first(
    page, asgi_server, tmp_path_factory
):
    name = f"qa-speler-{uuid.uuid4().hex[:6]}"
    sign_up(page, asgi_server, name)
    tag = uuid.uuid4().hex[:6]
    out = _server_shell(
        tmp_path_factory,
        f"""
from django.contrib.auth import get_user_model
from tournaments import actions
users = get_user_model().objects
player = users.get(username="{name}")
org = users.create_user("qa-org-{tag}", password="x-Klaver-Aas-77")
club = actions.create_club(org, "De Troef {tag}")
t = actions.create_tournament(org, name="Donderdag", club=club, open_now=True)
club.members.add(player)
entry = actions.join(t.pk, player)
print("game:", entry.game.public_id)
""",
    )
    public_id = re.search(r"game: (\S+)", out).group(1)
    page.goto(f"{asgi_server}/game/{public_id}/")
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    expect(page.locator("#end [data-new-game]")).to_be_attached()  # "Een vrij spel"
    page.locator("#btn-scores").focus()
    _snapshot(page, GAME_OVER)
    expect(page.locator("#end")).to_be_visible()
    focused = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
    assert "data-standings-link" in focused, focused
    # The same with the focus nowhere in particular (it is put into the dialog then).
    page.reload()
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.evaluate("() => { document.getElementById('end').hidden = true; }")
    _snapshot(page, GAME_OVER)
    focused = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
    assert "data-standings-link" in focused, focused
    assert not page.js_errors, page.js_errors


# --- 6. heading, score, card names ------------------------------------------------------


def test_the_table_has_a_heading_a_named_score_and_cards_in_its_language(page, asgi_server):
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    expect(page.get_by_role("heading", level=1)).to_have_text("Manillen — aan tafel")
    toolbar = page.locator(".toolbar").aria_snapshot()
    assert re.search(r"Score\s+WIJ\s+\d+\s+·\s+ZIJ\s+\d+", toolbar.replace("\n", " ")), toolbar
    for _ in range(6):
        if page.locator("#hand [data-card]").count():
            break
        _act(page)
        page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    cards = page.locator("#hand [data-card]")
    names = cards.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    # A face card's name ends in the letter it shows (label in name, for voice control).
    in_name = r"(schoppen|harten|ruiten|klaveren) (aas, A|heer, K|vrouw, Q|boer, J|10|9|8|7)"
    assert names and all(re.match(in_name + r"( \(mag nu niet\))?$", n) for n in names), names
    for button in ("#btn-smaller", "#btn-larger"):  # the phone shows A− / A+
        label = page.locator(button).get_attribute("aria-label")
        assert label.endswith(("(A−)", "(A+)")), label
    expect(cards.first.locator(".suit")).to_have_text(SYMBOLS)  # still drawn as symbols
    assert not page.js_errors, page.js_errors


def test_french_faces_show_the_french_letters(page, asgi_server):
    """A French deck's faces read R, D, V (roi, dame, valet): the hand, the trick and the
    turned card in French, and the button's name says the letter it shows."""
    _language(page, asgi_server, "fr")
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    _snapshot(
        page,
        """() => ({hand: ["KS", "QH", "JD", "TC", "AS"], hand_sizes: [5, 5, 5, 5],
                   dealer: 0, turned_card: "KH",
                   current_trick: {leader: 1, cards: [[1, "QS"], [2, "JS"]]}})""",
    )
    hand = page.locator("#hand [data-card]")
    expect(hand).to_have_count(5)
    ranks = {
        c: page.locator(f'#hand [data-card="{c}"] .rank').inner_text()
        for c in ("KS", "QH", "JD", "TC", "AS")
    }
    assert ranks == {"KS": "R", "QH": "D", "JD": "V", "TC": "10", "AS": "A"}, ranks
    label = page.locator('#hand [data-card="KS"]').get_attribute("aria-label")
    assert label.startswith("roi de pique, R"), label
    trick = page.locator('[data-trick-card="QS"] .rank')
    expect(trick).to_have_text("D")
    expect(page.locator(".seat-south .seat-sub")).to_contain_text("R\u2665")
    assert not page.js_errors, page.js_errors


def test_a_face_down_hand_names_whom_it_waits_for(page, asgi_server):
    """Cards face down before trump: 'until West has chosen trump', and for the dealer
    themself a sentence of their own (it read 'until Jij has chosen')."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    _snapshot(page, "() => ({hand: null, hand_sizes: [8, 8, 8, 8], dealer: 0})")
    hand = page.locator("#hand")
    expect(hand).to_have_attribute(
        "aria-label", "Jouw kaarten blijven dicht tot je ze bekijkt of blind troef kiest"
    )
    _snapshot(page, "() => ({hand: null, hand_sizes: [8, 8, 8, 8], dealer: 1})")
    expect(hand).to_have_attribute("aria-label", re.compile("^Jouw kaarten blijven dicht tot West"))
    # A seat's backs: "1 kaart", not "1 kaarten".
    _snapshot(page, "() => ({hand_sizes: [1, 1, 2, 1], dealer: 1})")
    expect(page.locator(".seat[data-seat='1'] .backs")).to_have_attribute("aria-label", "1 kaart")
    expect(page.locator(".seat[data-seat='2'] .backs")).to_have_attribute("aria-label", "2 kaarten")
    assert not page.js_errors, page.js_errors


def test_french_lines_put_a_space_before_the_colon(page, asgi_server):
    """« gast-Benoît : Bonjour » in the chat and « Est : passe » in the table's log, as
    French writes them (the script wrote « Est: passe »)."""
    _language(page, asgi_server, "fr")
    _table_with_three_bots(page, asgi_server, name="Benoit")  # a table of four has the chat
    page.evaluate(
        """() => manillenTable.onMessage(
             {type: "chat", id: 990, name: "gast-Benoît", text: "Bonjour à tous !"})"""
    )
    expect(page.locator('#chat-log [data-chat-id="990"] b')).to_have_text("gast-Benoît :")
    line = page.evaluate(
        """() => document.querySelector('#i18n [data-k="name_line"]').textContent.trim()"""
    )
    assert line == "{name} : {text}", line
    assert not page.js_errors, page.js_errors


def test_a_tie_in_the_last_deal_says_no_deal_counts_double(page, asgi_server):
    """30–30 in a deal after which the game is over (the last of fixed deals): nobody
    writes, and no 'next deal counts double' (there is none); before then it does."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)

    def tie(over: bool, doubles: bool = True) -> str:
        return page.evaluate(
            """([over, doubles]) => {
              const u = manillenTable.ui;
              u.fast = true;  // no pauses between the steps
              const s = u.state;
              const board = [...(s.board || []),
                {deal: (s.board || []).length + 1, written: [0, 0], card_points: [30, 30]}];
              manillenTable.onMessage({type: "event", seq: u.seq + 1, actor: 1,
                action: "pass", state: {...s, board, game_over: over, tie_doubles_next: doubles}});
              return new Promise((r) => setTimeout(() => r(manillenTable.ui.note), 300));
            }""",
            [over, doubles],
        )

    before_the_end = tie(False)
    assert "telt dubbel" in before_the_end, before_the_end
    # French and malilla: a tie doubles nothing (the preset's rule, no option said).
    malilla = tie(False, doubles=False)
    assert "dubbel" not in malilla and "niemand schrijft" in malilla, malilla
    last = tie(True)
    assert "niemand schrijft." in last and "dubbel" not in last, last
    assert not page.js_errors, page.js_errors


ON_A_CONTROL_JS = """() => document.activeElement?.matches(
  '#hand [data-legal], #choices [data-action]')"""


def test_a_keyboard_players_first_turn_of_a_page_is_at_the_hand(page, asgi_server):
    """The first turn of a fresh page (a new game, a reload): the focus is not left on
    the page. A player known to use the keyboard (kept from earlier pages) finds it on
    the hand or the choices; one not yet known gets there with a single Tab."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    assert page.evaluate("document.activeElement === document.body")
    page.keyboard.press("Tab")
    assert page.evaluate(ON_A_CONTROL_JS), page.evaluate("document.activeElement.outerHTML")
    assert page.evaluate("localStorage.getItem('manillen.keyboard')") == "1"
    page.reload()  # the next page knows
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.wait_for_function(ON_A_CONTROL_JS, timeout=5_000)
    page.mouse.click(5, 5)  # a mouse: no longer moved for
    assert page.evaluate("localStorage.getItem('manillen.keyboard')") == "0"
    assert not page.js_errors, page.js_errors


def test_a_redraw_keeps_the_choice_the_keyboard_moved_to(page, asgi_server):
    """Arrow to the third trump, then the table is drawn again (the end of a trick, a
    table message): Enter must choose the third, not the first again."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    _snapshot(
        page,
        """() => ({to_move: 0, seat: 0, dealer: 0, trump_chosen: false,
                   legal: ["trump:S", "trump:H", "trump:C", "trump:D", "trump:none"]})""",
    )
    page.locator("#choices [data-action='trump:S']").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.action") == "trump:C"
    page.evaluate("() => manillenTable.draw()")
    assert page.evaluate("document.activeElement.dataset.action") == "trump:C"
    assert not page.js_errors, page.js_errors


def test_escape_from_the_board_on_a_phone_gives_the_focus_to_scores(page, asgi_server):
    """On a phone the board lies over the table: while open, Tab skips the hand it hides
    (Enter there played an unseen card), and Escape closes it with the focus back on
    Scores, as its Close button does (it fell to the page)."""
    page.set_viewport_size({"width": 360, "height": 740})
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.locator("#btn-scores").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#table-root")).to_have_class(re.compile("board-open"))
    assert page.evaluate("document.getElementById('hand').inert") is True
    page.locator("#board-close").focus()
    page.keyboard.press("Escape")
    expect(page.locator("#table-root")).not_to_have_class(re.compile("board-open"))
    page.wait_for_timeout(300)  # the browser's own blur of a hidden control comes later
    assert page.evaluate("document.activeElement.id") == "btn-scores"
    assert page.evaluate("document.getElementById('hand').inert") is False
    assert not page.js_errors, page.js_errors


def test_a_player_who_left_is_not_said_to_be_thinking(page, asgi_server):
    """West left the table (no socket, the bot not yet in the seat) and is to move: the
    prompt says so, not 'West is thinking…' while the others wait out the clock."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.evaluate(
        """() => {
          const u = manillenTable.ui;
          const players = u.table.players.map((p, i) =>
            i === 1 ? {...p, person: true, name: "rita", away: true, bot_control: false} : p);
          manillenTable.onMessage({type: "table", table: {...u.table, players}});
        }"""
    )
    _snapshot(page, "() => ({to_move: 1, legal: [], phase: 'play'})")
    expect(page.locator("#prompt")).to_contain_text("rita is aan zet maar heeft de tafel verlaten")
    assert not page.js_errors, page.js_errors


# --- 7. guests on a phone ---------------------------------------------------------------


@pytest.fixture
def small_phone(request, browser):
    ctx, pg = _new_page(
        request, browser, viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    yield pg
    _finish(request, ctx, pg)


def test_guests_are_told_apart_on_a_small_phone(small_phone, asgi_server):
    page = small_phone
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    # Three guests at the table (a table message; sent again should the page's own
    # snapshot arrive after it).
    page.wait_for_function(
        """() => {
          const west = document.querySelector('.seat-west .name');
          if (west.title === 'gast-bartholomeus') return true;
          manillenTable.onMessage({type: "table", table: {players: [
            {person: true, name: "gast-annelies", bot_control: false},
            {person: true, name: "gast-bartholomeus", bot_control: false},
            {person: true, name: "gast-christophe", bot_control: false},
            {person: false, name: "", bot_control: false}]}});
          return false;
        }""",
        polling=200,
    )
    west = page.locator(".seat-west .name")
    north = page.locator(".seat-north .name")
    expect(west).to_have_attribute("title", "gast-bartholomeus")  # the whole name
    shown = [n.evaluate("e => e.innerText") for n in (west, north)]
    assert shown == ["bartholomeus", "christophe"], shown
    # What fits of each on the felt still differs (not "gast-…" twice).
    starts = [
        n.evaluate(
            """e => { const r = document.createRange(); r.selectNodeContents(e);
              const box = e.getBoundingClientRect();
              return [...e.innerText].slice(0, 3).join('') + ':' + (box.width > 0); }"""
        )
        for n in (west, north)
    ]
    assert starts == ["bar:true", "chr:true"], starts
    # On a wide screen the prefix stays.
    page.set_viewport_size({"width": 1200, "height": 900})
    expect(west).to_have_text("gast-bartholomeus")
    assert west.evaluate("e => e.innerText") == "gast-bartholomeus"
    assert not page.js_errors, page.js_errors


# --- 8. a spectator's result ------------------------------------------------------------


def test_a_spectator_sees_the_result_without_a_side(page, browser, request, asgi_server):
    host = page
    _table_with_three_bots(host, asgi_server, clock="0")  # as a guest
    url = host.url.split("?")[0]
    ctx, watcher = _new_page(request, browser, viewport={"width": 1200, "height": 900})
    try:
        watcher.goto(url)
        watcher.wait_for_function("() => window.manillenTable !== undefined")
        expect(watcher.locator("[data-spectator]")).to_be_visible()
        # No US and THEM anywhere: the header, the board and its lines name the seats.
        mini = watcher.locator(".mini-score").last
        expect(mini).to_contain_text("Z–N")
        expect(mini).to_contain_text("W–O")
        hint = watcher.locator("[data-board-teams]")
        expect(hint).to_contain_text("Zuid–Noord:")
        expect(hint).to_contain_text("West–Oost:")
        deal_one = "{deal: 1, trump: 'H', card_points: [38, 22], written: [8, 0]}"
        _snapshot(watcher, f"() => ({{board: [{deal_one}]}})")
        row = watcher.locator("#board-body tr").first
        expect(row).to_have_attribute("title", "Kaartpunten: Zuid–Noord 38 – West–Oost 22")
        # A deal's line under the table, as the deal's last card brings it.
        note = watcher.evaluate(
            """() => { const u = manillenTable.ui; const board = u.state.board;
              manillenTable.onMessage({type: 'event', seq: u.seq + 1, actor: 1,
                state: {...u.state, board: [...board, {deal: 2, trump: 'S', card_points: [20, 40],
                        written: [0, 10]}]}});
              return new Promise((done) => setTimeout(() => done(u.note), 300)); }"""
        )
        assert note == "Deel 2: Zuid–Noord 20 – West–Oost 40. West–Oost schrijven 10.", note
        for box in (mini, hint, row):
            assert not re.search(r"WIJ|ZIJ", box.inner_text() + (box.get_attribute("title") or ""))
        _snapshot(watcher, GAME_OVER)
        end = watcher.locator("#end")
        expect(end).to_be_visible()
        expect(end.locator("[data-end-title]")).to_have_text("West–Oost winnen")
        text = end.inner_text()
        assert "Zuid–Noord" in text and "West–Oost" in text, text
        assert not re.search(r"Verloren|Gewonnen|Jouw score|jij|WIJ|ZIJ", text), text
        expect(end.locator(".end-score")).to_be_hidden()
        # The player at the table still reads it from their side.
        _snapshot(host, GAME_OVER)
        expect(host.locator("#end [data-end-title]")).to_have_text(re.compile("^Verloren"))
        expect(host.locator("#end .end-score")).to_be_visible()
        assert not watcher.js_errors, watcher.js_errors
    finally:
        _finish(request, ctx, watcher)


# --- 9. bots that do not answer --------------------------------------------------------


def test_a_bot_that_does_not_move_for_long_is_said_so_and_the_line_goes_when_it_does(
    page, asgi_server
):
    """With the bot workers down, "West denkt na…" stayed for ever: after 20 s without a
    move on a bot's turn the table says the bots are not answering (and keeps trying)."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS)
    line = page.locator("[data-bots-slow]")
    expect(line).to_be_hidden()
    # West (a bot) to move, and nothing moved for 30 s.
    _snapshot(page, "() => ({to_move: 1, legal: []})")
    page.evaluate("manillenTable.ui.movedAt = Date.now() - 30000")
    expect(line).to_be_visible(timeout=5000)
    expect(line).to_contain_text("De bots antwoorden nu niet")
    # A move comes: the line goes.
    _snapshot(page, "() => ({to_move: 0})")
    expect(line).to_be_hidden(timeout=5000)
    # South's own turn, however long, is no bot's silence.
    page.evaluate("manillenTable.ui.movedAt = Date.now() - 30000")
    page.wait_for_timeout(3000)
    expect(line).to_be_hidden()
    assert not page.js_errors, page.js_errors


# --- 10. leaving a game in play ---------------------------------------------------------


def test_the_last_person_leaving_a_casual_table_is_told_the_game_ends(page, asgi_server):
    """Leaving mid-game is asked first. The one person at a table of bots is told the
    game ends where it stands ("no" keeps the seat and the game); "yes" ends it."""
    _table_with_three_bots(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS)
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.locator("[data-leave]").click()
    assert asked and "het spel stopt waar het staat" in asked[0], asked
    page.wait_for_timeout(500)
    assert page.evaluate("manillenTable.ui.table.players[0].left") is False
    assert "/tables/" in page.url
    page.once("dialog", lambda d: d.accept())
    page.locator("[data-leave]").click()
    page.wait_for_load_state()
    expect(page.locator("[data-leave]")).to_have_count(0)
    assert not page.js_errors, page.js_errors


def test_the_match_score_in_the_end_title_does_not_break(page, asgi_server):
    """ "Match verloren, 0–2" in a phone's narrow dialog broke after the dash: the score
    stays on one line, whatever the width."""
    _open_table(page, asgi_server)
    page.wait_for_function(TABLE_AT_REST_JS)
    _snapshot(
        page,
        """() => ({phase: "game_over", game_over: true, to_move: null, legal: [],
        outcome: {winner: 1, scores: [40, 104], reason: "match", games_won: [0, 2]},
        scores: [40, 104]})""",
    )
    title = page.locator("[data-end-title]")
    expect(title).to_contain_text("2")
    page.evaluate("document.querySelector('[data-end-title]').style.width = '1ch'")
    lines = page.evaluate(
        """() => {
          const node = document.querySelector('[data-end-title]').firstChild;
          const at = node.data.search(/\\d/);
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, node.data.length);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }"""
    )
    assert lines == 1, page.locator("[data-end-title]").text_content()
    assert not page.js_errors, page.js_errors


def test_the_clock_counts_by_the_servers_time_on_a_phone_whose_clock_is_off(page, asgi_server):
    """A phone whose clock is 30 s behind showed "44 s" of a 15 s clock (the server's
    deadline against the phone's time): the page counts against the server's clock."""
    page.add_init_script("(() => { const real = Date.now; Date.now = () => real() - 30000; })()")
    _table_with_three_bots(page, asgi_server, clock="15")
    page.wait_for_function(TABLE_AT_REST_JS, timeout=30_000)
    page.wait_for_function(
        "() => manillenTable.ui.state.to_move === manillenTable.ui.state.seat"
        " && manillenTable.ui.deadline",
        timeout=30_000,
    )
    clock = page.locator("#clock")
    expect(clock).to_be_visible()
    left = int(re.search(r"(\d+) s", clock.inner_text()).group(1))
    assert 0 < left <= 15, clock.inner_text()
    assert not page.js_errors, page.js_errors
