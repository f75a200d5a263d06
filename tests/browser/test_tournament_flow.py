"""A club evening in a real browser: an organizer sets up a tournament, two players
enter it with the organizer's invitations, play their whole game at the table and see
the standings, which update by themselves when the other player finishes.

Three people, three browser contexts (cookies of their own); accounts are made on the
sign-up page, the club and the tournament in the organizer's pages. Everything is
asserted on what the pages show (Dutch, the site's default language).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.browser.conftest import _on_console, assert_fits_the_phone
from tests.helpers import pace

expect = pytest.importorskip("playwright.sync_api").expect

# The server subprocess uses the test database (production stack); pytest-django only
# creates it for sessions that hold a test marked django_db.
pytestmark = pytest.mark.django_db

GAME_BUDGET_S = 150  # one whole game at the table: about 12 s on a quiet machine
SEQ_JS = "Number(document.getElementById('table-root').dataset.seq)"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# Screenshots for a human to look at: BROWSER_SHOTS=dir keeps them, else a temp folder.
SHOTS_ENV = "BROWSER_SHOTS"

CLUB = "De Zwarte Manille"
TOURNAMENT = "Clubavond dinsdag"
INVITE = "ZWART7"
RESUME = "Speel je spel verder"
NOT_YET = "De stand wordt getoond zodra je je eigen spel hebt afgewerkt."


# --- people and pages ------------------------------------------------------------------


class Person:
    def __init__(self, browser, name: str, base: str, **context_args):
        self.name = name
        self.base = base
        self.ctx = browser.new_context(locale="nl-BE", **context_args)
        self.page = self.ctx.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", _on_console)

    def goto(self, path: str):
        return self.page.goto(self.base + path)

    def again(self, browser, **context_args) -> Person:
        """The same person (same login) in another browser: a phone, no JavaScript..."""
        state = self.ctx.storage_state()
        return Person(browser, self.name, self.base, storage_state=state, **context_args)


@pytest.fixture
def people(request, browser, asgi_server):
    made: list[Person] = []

    def make(name: str, **context_args) -> Person:
        person = Person(browser, name, asgi_server, **context_args)
        made.append(person)
        return person

    yield make
    rep = getattr(request.node, "rep_call", None)
    for person in made:
        if rep is not None and rep.failed:
            folder = Path(__file__).resolve().parent / "artifacts"
            folder.mkdir(exist_ok=True)
            try:
                shot = folder / f"{request.node.name}-{person.name}.png"
                person.page.screenshot(path=str(shot), full_page=True)
            except Exception as exc:  # the page may be gone; the failure says more
                print(f"screenshot of {person.name} failed: {exc}")
        person.ctx.close()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sign_up(*persons: Person) -> None:
    """Each makes an account on the sign-up page (the forms are sent together: the
    server hashes the passwords side by side)."""
    for person in persons:
        page = person.page
        person.goto("/")
        page.locator(".site-header").get_by_role("link", name="Account maken").click()
        expect(page.get_by_role("heading", name="Account maken")).to_be_visible()
        page.get_by_label("Gebruikersnaam").fill(person.name)
        password = f"Pw-{person.name}-Manille-2026"
        page.get_by_label("Wachtwoord", exact=True).fill(password)
        page.get_by_label("Wachtwoord (nog eens)").fill(password)
    for person in persons:
        person.page.locator("form").get_by_role("button", name="Account maken").click(
            no_wait_after=True
        )
    # Three password hashes side by side take seconds, more on a busy 2-core machine.
    for person in persons:
        expect(person.page.locator(".site-header")).to_contain_text(person.name, timeout=60_000)


# --- the table -------------------------------------------------------------------------


def _seq(page) -> int:
    return page.evaluate(SEQ_JS)


def play_whole_game(page, pick_last: bool = False) -> int:
    """Click trump choices and legal cards until the game is over; the score shown."""
    expect(page.locator("#table-root")).to_be_visible()
    page.wait_for_function("() => window.manillenTable !== undefined")
    fast = page.locator("#fast-play")
    if not fast.is_checked():
        fast.check()
    expect(fast).to_be_checked()
    end = page.locator("[data-game-over]")
    choice = page.locator("[data-trump]")
    legal = page.locator("#hand [data-card][data-legal]")
    deadline = time.monotonic() + GAME_BUDGET_S
    clicks = 0
    while not end.is_visible():
        assert time.monotonic() < deadline, f"game not over after {clicks} clicks"
        target = choice if choice.count() else legal
        if target.count():
            pace(page)
            seq = _seq(page)
            (target.last if pick_last else target.first).click()
            page.wait_for_function(f"s => {SEQ_JS} > s", arg=seq)
            clicks += 1
        else:
            page.wait_for_timeout(30)
    expect(page.locator("[data-end-title]")).to_be_visible()
    return int(page.locator("[data-end-score]").inner_text().replace("\u2212", "-").lstrip("+"))


# --- the standings ---------------------------------------------------------------------

# Counts the page's websocket closes (the standings socket must stay up while waiting).
SOCKET_LOG_JS = """
window.socketLog = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    const path = new URL(String(args[0])).pathname;
    this.addEventListener("close", (e) => window.socketLog.push([path, e.code]));
  }
};
"""


def standings_cells(page) -> list[list[str]]:
    """The standings table as text: rank, player, score, deals, score per deal, MP %."""
    return page.locator("[data-standings] tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(td => td.textContent.trim()))"
    )


def row_of(page, name: str) -> list[str]:
    rows = [r for r in standings_cells(page) if r[1] == name]
    assert len(rows) == 1, standings_cells(page)
    return rows[0]


def window_value(delta: dt.timedelta) -> str:
    """What a person types in a datetime-local field, in the site's time zone."""
    now = dt.datetime.now(ZoneInfo("Europe/Brussels"))
    return (now + delta).strftime("%Y-%m-%dT%H:%M")


# --- the steps -------------------------------------------------------------------------


def start_club(org: Person) -> str:
    """The organizer starts a club; the club's invite link."""
    o = org.page
    o.locator(".site-header").get_by_role("link", name="Clubs").click()
    o.get_by_label("Naam van de club").fill(CLUB)
    o.get_by_role("button", name="Aanmaken").click()
    expect(o.get_by_role("heading", name=CLUB)).to_be_visible()
    return o.locator(".t-code").filter(has_text="/clubs/join/").inner_text().strip()


def create_tournament(org: Person) -> tuple[str, str]:
    """From the club's page, through the create form; the panel's path and invite link."""
    o = org.page
    o.get_by_role("link", name="Nieuw toernooi").click()
    expect(o.get_by_role("heading", name="Nieuw toernooi")).to_be_visible()
    o.get_by_label("Naam", exact=True).fill(TOURNAMENT)
    # Opened from the club's page: that club is chosen already.
    expect(o.get_by_label("Club", exact=True).locator("option:checked")).to_have_text(CLUB)
    o.get_by_label("Regels").select_option("flemish")
    o.get_by_label("Niveau van de bots").select_option("heuristic")  # the quickest offered
    o.get_by_label("Maximum aantal deelnemers").fill("2")
    o.get_by_label("Begin van de speelperiode").fill(window_value(-dt.timedelta(minutes=5)))
    o.get_by_label("Einde van de speelperiode").fill(window_value(dt.timedelta(hours=3)))
    o.get_by_label("Uitslag zichtbaar").select_option("after_finish")
    o.get_by_label("Uitnodigingscode (optioneel)").fill(INVITE)
    expect(o.get_by_label("Nu openen")).to_be_checked()
    o.get_by_role("button", name="Aanmaken").click()
    expect(o.get_by_role("heading", name=re.compile("Organisatorpaneel"))).to_be_visible()
    expect(o.locator("main")).to_contain_text("bezig")  # running: the window has begun
    expect(o.locator("[data-invite-code]")).to_have_text(INVITE)
    invite_link = o.locator("[data-invite-link]").inner_text().strip()
    return o.url.removeprefix(org.base), invite_link


def check_panel(org: Person, manage_path: str, scores: dict[str, int]) -> None:
    """Both entries finished; their scores appear once the organizer has looked at the
    standings (looking rules an organizer out of playing, so it is a choice)."""
    o = org.page
    org.goto(manage_path)
    entries = o.locator("[data-entries] tbody tr")
    expect(entries).to_have_count(len(scores))
    for name in scores:
        row = entries.filter(has=o.locator("td", has_text=re.compile(f"^{name}$")))
        expect(row.locator("td[data-label=Status]")).to_have_text("klaar")
        expect(row.locator("td[data-label=Score]")).to_have_text("—")
    o.get_by_role("button", name="Toon de stand").click()  # one step: a POST
    expect(o.locator("[data-standings] tbody tr")).to_have_count(len(scores))
    org.goto(manage_path)
    for name, score in scores.items():
        row = entries.filter(has=o.locator("td", has_text=re.compile(f"^{name}$")))
        expect(row.locator("td[data-label=Score]")).to_have_text(str(score))
        expect(row.get_by_role("button", name="Verbeteren")).to_be_visible()


def phone_screenshots(browser, shots: Path, pages: list[tuple[Person, str, str]]) -> None:
    """The pages at 390×844 and on the narrower 360×740 of many Android phones: nothing
    wider than the screen, no table to scroll, cards in order."""
    for width, height in ((390, 844), (360, 740)):
        for person, path, name in pages:
            phone = person.again(
                browser, **{**PHONE, "viewport": {"width": width, "height": height}}
            )
            try:
                phone.goto(path)
                phone.page.wait_for_load_state("networkidle")
                shot = shots / f"phone-{name}-{width}.png"
                phone.page.screenshot(path=str(shot), full_page=True)
                assert_fits_the_phone(phone.page, width, name)
                assert not phone.errors, phone.errors
            finally:
                phone.ctx.close()


# --- the test --------------------------------------------------------------------------


def test_organizer_creates_a_tournament_and_two_players_play_and_see_the_standings(
    browser, people, shots
):
    started = time.monotonic()
    laps: list[str] = []

    def lap(what: str) -> None:
        laps.append(f"{what} {time.monotonic() - started:.1f}s")

    org, anna, ben = people("organisator"), people("anna"), people("ben")
    for person in (anna, ben):
        person.ctx.add_init_script(SOCKET_LOG_JS)
    sign_up(org, anna, ben)
    lap("sign-ups")
    club_invite = start_club(org)
    manage_path, tournament_invite = create_tournament(org)
    detail_path = manage_path.removesuffix("manage/")
    standings_path = detail_path + "standings/"

    # Anna joins the club with its invite link; as a member she needs no code.
    a = anna.page
    a.goto(club_invite)
    expect(a.get_by_label("Uitnodigingscode")).not_to_have_value("")
    a.get_by_role("button", name="Lid worden").click()
    expect(a.get_by_role("heading", name=CLUB)).to_be_visible()
    a.get_by_role("link", name=TOURNAMENT).click()
    expect(a.get_by_role("heading", name=TOURNAMENT)).to_be_visible()
    expect(a.get_by_label("Uitnodigingscode")).to_have_count(0)
    a.get_by_role("button", name="Speel dit toernooi").click()
    expect(a.locator("#table-root")).to_be_visible()
    game_a = a.url

    # Until her game is over, Anna sees no standings (results "after you finish").
    anna.goto(detail_path)
    expect(a.locator("main")).to_contain_text(NOT_YET)
    expect(a.locator("table")).to_have_count(0)
    assert anna.goto(standings_path).status == 403
    anna.goto(detail_path)
    a.get_by_role("link", name=RESUME).click()
    assert a.url == game_a
    lap("set-up")

    score_a = play_whole_game(a)
    lap("anna's game")
    a.locator("[data-standings-link]").click()
    expect(a.get_by_role("heading", name=re.compile("^Stand"))).to_be_visible()
    rows = a.locator("[data-standings] tbody tr")
    expect(rows).to_have_count(1)
    expect(a.locator("[data-standings] tr.mine")).to_contain_text("anna")
    # The rank is the ranking job's (Celery): the row shows at once, its rank when that job
    # has run and the page's socket pushes it, which on a loaded machine takes a moment.
    expect(a.locator("[data-standings] tr.mine td").first).to_have_text("1", timeout=60_000)
    assert row_of(a, "anna")[:3] == ["1", "anna", str(score_a)]
    a.evaluate("window.notReloaded = true")

    # Ben is no club member: the tournament's invite link (with its code) lets him in.
    b = ben.page
    assert ben.goto(detail_path).status == 404  # without the code there is no such page
    b.goto(tournament_invite)
    expect(b.get_by_role("heading", name=TOURNAMENT)).to_be_visible()
    expect(b.get_by_label("Uitnodigingscode")).to_have_value(INVITE)
    b.get_by_role("button", name="Speel dit toernooi").click()
    expect(b.locator("#table-root")).to_be_visible()
    score_b = play_whole_game(b, pick_last=True)  # not the same cards as Anna
    lap("ben's game")
    b.locator("[data-standings-link]").click()
    expect(b.locator("[data-standings] tbody tr")).to_have_count(2)
    expect(b.locator("[data-standings] tr.mine")).to_contain_text("ben")
    assert row_of(b, "ben")[1:3] == ["ben", str(score_b)]
    assert row_of(b, "anna")[1:3] == ["anna", str(score_a)]
    # The tournament is on Ben's list now, and his page gets the live socket too (no
    # club member, but an entrant).
    ben.goto("/tournaments/")
    expect(b.get_by_role("link", name=TOURNAMENT)).to_be_visible()
    b.get_by_role("link", name=TOURNAMENT).click()
    b.get_by_role("link", name="Stand en deelverslagen").click()
    expect(b.locator("[data-live-status]")).to_be_visible()
    refused = [c for c in b.evaluate("window.socketLog") if c[0].endswith("/standings/")]
    assert not refused, f"Ben's standings socket was closed: {refused}"

    # Anna's page got Ben's result pushed, without a reload, on the socket it opened.
    expect(rows).to_have_count(2, timeout=10_000)
    expect(a.locator("[data-live-status]")).to_be_visible()
    assert a.evaluate("window.notReloaded === true"), "the standings page was reloaded"
    closed = [c for c in a.evaluate("window.socketLog") if c[0].endswith("/standings/")]
    assert not closed, f"the standings socket closed while Anna waited: {closed}"
    # Ranked (by score first), as the server writes the page itself.
    if score_a != score_b:
        better, worse = ("anna", "ben") if score_a > score_b else ("ben", "anna")
        assert (row_of(a, better)[0], row_of(a, worse)[0]) == ("1", "2")
    else:  # equal scores: the deal matchpoints may still part them
        assert {row_of(a, "anna")[0], row_of(a, "ben")[0]} <= {"1", "2"}
    plain = anna.again(browser, java_script_enabled=False)
    try:
        plain.goto(standings_path)
        assert standings_cells(a) == standings_cells(plain.page)
    finally:
        plain.ctx.close()
    lap("standings")

    check_panel(org, manage_path, {"anna": score_a, "ben": score_b})
    phone_screenshots(
        browser,
        shots,
        [
            (anna, standings_path, "standings"),
            (org, manage_path, "manage"),
            (ben, detail_path, "detail"),
        ],
    )
    for person in (org, anna, ben):
        assert not person.errors, (person.name, person.errors)
    lap("done")
    print(f"anna {score_a}, ben {score_b}; {', '.join(laps)}; screenshots in {shots}")
