"""Short journeys through the site in a real browser, for what only a browser shows:
the live standings' script, the header on a phone, the site's own error pages.

An organizer signs up, starts a club and a tournament on its pages (Dutch, the
default language); nobody has finished yet.
"""

from __future__ import annotations

import uuid

import pytest

from tests.browser.conftest import (
    PASSWORD,
    assert_fits_the_phone,
    open_new_tournament_form,
    sign_up,
)

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db


def _club_tournament(page, base: str) -> int:
    """A club and an open tournament made on the organizer's pages; its id."""
    open_new_tournament_form(page, base, "De Lange Troef")
    page.fill("input[name=name]", "Woensdagavond")
    page.locator("#content form [type=submit]").click()
    page.wait_for_url("**/manage/")
    return int(page.url.rstrip("/").split("/")[-2])


def test_empty_live_standings_keep_saying_why(page, asgi_server):
    sign_up(page, asgi_server, "qa-organizer")
    pk = _club_tournament(page, asgi_server)

    page.goto(f"{asgi_server}/tournaments/{pk}/standings/")
    # The organizer has not entered: looking would rule them out, so they are asked.
    expect(page.locator("[data-look-first]")).to_be_visible()
    page.locator("[data-look]").click()
    page.wait_for_url(f"**/tournaments/{pk}/standings/")
    table = page.locator("[data-standings]")
    expect(table.locator("tbody")).to_have_text("Nog geen afgewerkte spelen.")
    # The socket's first message is the (empty) standings: the live status shows, and
    # the table still says why it is empty instead of going blank.
    expect(page.locator("[data-live-status]")).to_be_visible()
    expect(table.locator("tbody")).to_have_text("Nog geen afgewerkte spelen.")
    assert not page.js_errors, page.js_errors


def test_phone_header_links_are_finger_sized(phone_page, asgi_server):
    page = phone_page
    page.goto(asgi_server + "/")
    links = page.locator(".site-nav > a")
    assert links.count() >= 3
    for box in links.evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())"):
        assert box["height"] >= 32, box
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"page is {width}px wide on a 390px phone"


# Every shown text field and drop-down of a page, the header's language list included:
# its type size and height (the header's list is lower, 32px, its type as large).
CONTROLS_JS = """() => [...document.querySelectorAll('#content input, #content select,'
  + ' #content textarea, .site-nav select')].filter((e) => !['hidden', 'checkbox',
  'radio'].includes(e.type) && e.getClientRects().length).map((e) => ({control: e.name
  || e.id, font: parseFloat(getComputedStyle(e).fontSize),
  height: e.getBoundingClientRect().height}))"""


def test_form_controls_on_a_phone_are_finger_sized_in_readable_type(phone_page, asgi_server):
    """The drop-downs and fields a person fills in on a phone: 16px type (under it phones
    zoom the page in on focus) in a box a finger hits. The bot level and the rules on the
    home page were 13px type, 19px high."""
    page = phone_page
    sign_up(page, asgi_server, "qa-phone")
    pk = _club_tournament(page, asgi_server)
    seen = set()
    for path in (
        "/",
        "/tables/new/",
        "/clubs/",
        "/tournaments/new/",
        "/accounts/profile/",
        f"/tournaments/{pk}/manage/",
        f"/tournaments/{pk}/manage/edit/",
    ):
        page.goto(asgi_server + path)
        assert_fits_the_phone(page, 390, path)
        for c in page.evaluate(CONTROLS_JS):
            seen.add(c["control"])
            low = 32 if c["control"] == "language" else 40
            assert c["font"] >= 16 and c["height"] >= low, (path, c)
    assert {
        "level",
        "rules",
        "bot_level",
        "clock",
        "name",
        "email",
        "capacity",
        "language",
    } <= seen, seen
    assert not page.js_errors, page.js_errors


def test_the_lobby_fits_a_phone_and_names_rules_and_bots(phone_page, asgi_server):
    """An open table in the lobby at 390 px: a card per table, every value named by its
    column, the button to the table in reach without scrolling sideways, both as the
    server drew the list and after the script's refresh."""
    page = phone_page
    page.goto(asgi_server + "/tables/new/")  # as a guest
    page.select_option("select[name=rules]", "french")
    page.select_option("select[name=clock]", "30")
    page.locator("[data-create-table]").click()
    page.wait_for_url("**/tables/*/")
    table_id = page.url.rstrip("/").split("/")[-1]
    page.goto(asgi_server + "/tables/")
    row = page.locator(f"[data-lobby-rows] tr[data-table='{table_id}']")

    def check() -> None:
        cells = row.locator("td[data-label]")
        named = cells.evaluate_all("els => els.map(e => [e.dataset.label, e.textContent])")
        assert named[1:] == [["Regels", "Frans"], ["Bots", "Beginner"], ["Klok", "30 s"],
                             ["Spelers", "1/4"]], named  # fmt: skip
        assert named[0][0] == "Gastheer" and named[0][1].startswith("gast-"), named
        box = row.locator(f"[data-open-table='{table_id}']").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the lobby is {width}px wide on a 390px phone"

    check()
    with page.expect_response(lambda r: "format=json" in r.url):
        pass  # the script's next refresh (every 4 s) draws the rows again
    page.wait_for_timeout(200)
    check()
    assert not page.js_errors, page.js_errors


def test_a_refused_page_is_the_sites_own_and_says_why(page, asgi_server):
    sign_up(page, asgi_server, "qa-player")
    page.goto(asgi_server + "/tournaments/today/")
    day = page.url.rstrip("/").split("/")[-1]
    # Today's standings before playing today's game: refused, with the reason, in Dutch,
    # on the site's page (not a bare "403 Forbidden") with a way back.
    response = page.goto(f"{asgi_server}/tournaments/{day}/standings/")
    assert response.status == 403
    expect(page.locator("[data-error-page='403']")).to_contain_text(
        "De uitslag is zichtbaar nadat je je eigen spel hebt afgewerkt."
    )
    expect(page.locator(".site-header")).to_be_visible()
    page.locator(f"[data-error-page] a[href='/tournaments/{day}/']").click()
    page.wait_for_url(f"**/tournaments/{day}/")
    # The language menu names each language in itself.
    options = page.locator("#lang-select option").all_inner_texts()
    assert options == ["Nederlands", "English", "Français"], options


@pytest.mark.usefixtures("live_game_db")
def test_compare_and_traveller_fit_a_phone(phone_page, asgi_server, client, django_user_model):
    """Compare and traveller pages at 390×844: no table scrolls sideways, the replay
    link sits beside the deal number. The pages are rendered by Django here (two
    finished entries in this test's database) and shown on the server's origin, so
    they load its CSS."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    from tests.tournaments.conftest import finish, joined
    from tournaments import actions, rankings

    def pages() -> list[tuple[str, str]]:
        # In a thread of its own: the game's channel-layer calls may not run in the
        # thread where Playwright's event loop runs.
        # Committed from this thread's own connection (on the production stack it
        # outlives the test): names of this run only.
        tag = uuid.uuid4().hex[:6]
        org = django_user_model.objects.create_user(f"qa-org-{tag}", password=PASSWORD)
        anna = django_user_model.objects.create_user(
            f"anna-met-een-lange-naam-{tag}", password=PASSWORD
        )
        ben = django_user_model.objects.create_user(f"ben-{tag}", password=PASSWORD)
        club = actions.create_club(org, f"De Lange Troef {tag}")
        t = actions.create_tournament(org, name="Woensdagavond", club=club, open_now=True)
        for entry in joined(t, anna, ben):
            finish(entry)
        rankings.recompute(t.pk)
        client.force_login(anna)
        out = []
        for name, path in [("compare", f"/tournaments/{t.pk}/compare/"),
                           ("traveller", f"/tournaments/{t.pk}/deal/1/")]:  # fmt: skip
            response = client.get(path, HTTP_ACCEPT_LANGUAGE="nl")
            assert response.status_code == 200, (name, response.status_code)
            out.append((name, response.content.decode()))
        connections.close_all()
        return out

    with ThreadPoolExecutor(1) as pool:
        rendered = pool.submit(pages).result()
    shots = os.environ.get("PHONE_SHOTS_DIR")
    page = phone_page
    page.goto(asgi_server + "/")
    for name, html in rendered:
        page.set_content(html, wait_until="load")
        if shots:
            page.screenshot(path=os.path.join(shots, f"phone-{name}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{name} is {width}px wide on a 390px phone"
        for wrap in page.locator(".t-table-wrap").all():
            inner, outer = wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
            assert inner <= outer, f"the {name} table is {inner}px in a {outer}px box"
        if name == "compare":
            replay = page.locator("td.t-deal a.t-replay").first
            expect(replay).to_be_visible()
            box = replay.bounding_box()
            assert box["x"] + box["width"] <= 390 and box["height"] >= 28, box
    assert not page.js_errors, page.js_errors


def test_an_organizer_shares_the_club_and_hands_it_over_on_a_phone(
    request, browser, phone_page, page, asgi_server
):
    """The founder (on a phone) makes a member an organizer, steps down, and the new
    organizer takes a third member out of the club: two taps each for what takes
    somebody out. The club always keeps an organizer, and every step fits the phone."""
    founder = phone_page
    sign_up(founder, asgi_server, "qa-founder")
    founder.goto(asgi_server + "/clubs/")
    founder.fill("form[action$='/clubs/new/'] input[name=name]", "De Vette Manille")
    founder.locator("form[action$='/clubs/new/'] button").click()
    founder.wait_for_url("**/clubs/de-vette-manille/")
    club_url = founder.url
    invite = founder.locator(".t-code").text_content()
    # The only organizer can neither step down nor leave: the page says why instead.
    expect(founder.locator("[data-member='qa-founder'] button")).to_have_count(0)
    expect(founder.locator("[data-leave]")).to_have_count(0)

    for name in ("qa-third", "qa-second"):  # the page stays signed in as qa-second
        page.context.clear_cookies()
        sign_up(page, asgi_server, name)
        page.goto(invite)
        page.locator("#content form button").click()
        page.wait_for_url(club_url)

    founder.reload()
    second = founder.locator("[data-member='qa-second']")
    second.locator("button[name=organizer]").click()
    expect(founder.locator(".t-messages")).to_contain_text("qa-second is nu organisator.")
    assert_fits_the_phone(founder, 390, "the club page")
    founder.locator("[data-member='qa-founder'] button[name=not_organizer]").click()
    expect(founder.locator("[data-members]")).to_have_count(0)  # a member's page now

    # qa-second (the last page signed in) runs the club: takes qa-third out, two taps.
    page.goto(club_url)
    third = page.locator("[data-member='qa-third']")
    third.locator("[data-remove-member] summary").click()
    expect(third.locator("[data-remove-member] p")).to_contain_text("qa-third uit de club halen?")
    third.locator("button[name=remove]").click()
    expect(page.locator("[data-member='qa-third']")).to_have_count(0)
    expect(page.locator("[data-member='qa-founder']")).to_be_visible()

    # The founder, a member now, leaves with two taps too, and lands on the club list.
    founder.goto(club_url)
    founder.locator("[data-leave] summary").click()
    assert_fits_the_phone(founder, 390, "the club page, leave opened")
    founder.locator("button[name=leave]").click()
    founder.wait_for_url("**/clubs/")
    expect(founder.locator("#content")).to_contain_text("Je hebt De Vette Manille verlaten.")
    assert founder.goto(club_url).status == 404
    assert not founder.js_errors and not page.js_errors


def test_a_player_deletes_the_account_on_a_phone(phone_page, asgi_server):
    """The profile's last part, on a phone: what goes and what stays, the password, one
    button; then the account is gone (logged out, the old name no longer logs in)."""
    page = phone_page
    sign_up(page, asgi_server, "qa-goodbye")
    page.goto(asgi_server + "/accounts/profile/")
    part = page.locator("[data-delete-account]")
    part.locator("summary").click()
    expect(part).to_contain_text("onder een anonieme naam")
    assert_fits_the_phone(page, 390, "the profile, delete opened")
    part.locator("input[name=password]").fill("not the password")
    part.locator("[data-confirm-delete-account]").click()
    part = page.locator("[data-delete-account]")
    expect(part.locator("[role=alert], .errorlist")).to_contain_text("niet je huidige wachtwoord")
    part.locator("input[name=password]").fill(PASSWORD)
    part.locator("[data-confirm-delete-account]").click()
    page.wait_for_url("**/accounts/deleted/")
    expect(page.locator("[data-account-deleted]")).to_contain_text("Je account is verwijderd")
    assert_fits_the_phone(page, 390, "the page after deleting")
    page.goto(asgi_server + "/accounts/login/")
    page.fill("input[name=username]", "qa-goodbye")
    page.fill("input[name=password]", PASSWORD)
    page.locator("#content form [type=submit]").click()
    expect(page.locator("#content")).to_contain_text("Voer een juiste gebruikersnaam")
    assert not page.js_errors
