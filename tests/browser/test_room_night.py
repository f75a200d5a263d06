"""A club night with real cards, on four phones: the organizer (who plays too) makes
the club, three friends join it, the night in the room is made and all four sign up;
the organizer draws it and opens the deals to print; at the table one player enters
each deal on the score sheet, the others' phones show it by themselves, each side
agrees, and the sets move on until the night closes with its standings."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from tests.browser.conftest import _finish, _new_page, assert_fits_the_phone, sign_up
from tests.browser.test_organizer_tables import PHONE
from tests.browser.test_rounds_live import _manage
from tests.browser.test_rounds_live import server as rounds_server  # noqa: F401 - fixture

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db


@pytest.fixture
def four_phones(request, browser):
    made = [_new_page(request, browser, **PHONE) for _ in range(4)]
    yield [pg for _, pg in made]
    for ctx, pg in made:
        _finish(request, ctx, pg)


def test_a_night_in_the_room_on_four_phones(rounds_server, four_phones):  # noqa: F811
    base, env = rounds_server
    org = four_phones[0]
    names = [f"zaalspeler-{k}" for k in range(4)]
    for page, name in zip(four_phones, names, strict=True):
        sign_up(page, base, name)
    org.goto(base + "/clubs/")
    org.fill("form[action$='/clubs/new/'] input[name=name]", "De Echte Kaarten")
    org.locator("form[action$='/clubs/new/'] button").click()
    org.wait_for_url(re.compile(r".*/clubs/[^/]+/$"))
    slug = org.url.rstrip("/").rsplit("/", 1)[-1]
    out = _manage(
        env, "create_tournament", "--club", slug, "--organizer", names[0], "--name",
        "Clubavond in de zaal", "--format", "rotating", "--players", "4", "--sets", "3",
        "--deals", "1", "--in-room", "--open",
    ).stdout  # fmt: skip
    pk = re.search(r"id: (\d+)", out).group(1)
    organize = f"{base}/tournaments/{pk}/tables/organize/"
    org.goto(organize)
    club_link = org.locator("[data-club-link]").inner_text()
    tables_url = f"{base}/tournaments/{pk}/tables/"
    for page in four_phones:
        if page is not org:
            page.goto(club_link)
            page.locator("#content form button").click()
            page.wait_for_url("**/clubs/*/")
        page.goto(tables_url)
        with page.expect_navigation():
            page.locator("[data-my-seat] form button").click()  # "Doe mee"
        expect(page.locator("[data-my-seat]")).to_contain_text("Je bent ingeschreven")

    org.goto(organize)
    expect(org.locator("[data-room]")).to_contain_text("echte kaarten")
    org.locator("[data-start-confirm] summary").click()  # "Nu loten en beginnen"
    org.locator("[data-start]").click()  # asked first
    org.wait_for_url("**/tables/organize/")
    expect(org.locator("[data-room-table]")).to_contain_text("vult scores in")
    assert_fits_the_phone(org, 390, "the organizer's view of a night in the room")
    # The deals to print: four hands of eight cards, on a phone too.
    org.locator("[data-print-deals]").click()
    # The organizer plays too: asked first, and the tournament's log will say so.
    expect(org.locator("[data-playing-warning]")).to_be_visible()
    org.locator("[data-show-deals]").click()
    hands = org.locator("[data-print-deal='1'] [data-hand]")
    expect(hands).to_have_count(4)
    assert all(len(h.split()) == 8 for h in hands.all_inner_texts())
    assert_fits_the_phone(org, 390, "the deals to print")
    # The score sheets on paper (a table without a phone): the four players, no cards.
    org.goto(organize)
    org.locator("[data-print-paper]").click()
    expect(org.locator("[data-paper-seat]")).to_have_count(4)
    assert sorted(org.locator("[data-paper-seat]").all_inner_texts()) == sorted(names)
    expect(org.locator("[data-paper-deal]")).to_have_count(1)
    assert_fits_the_phone(org, 390, "the score sheets on paper")

    for set_number in (1, 2, 3):
        seats = {}
        for page in four_phones:
            page.goto(tables_url)
            mine = page.locator("[data-my-seat] [data-table]")
            expect(mine).to_contain_text(f"set {set_number}")
            seats[int(mine.get_attribute("data-seat"))] = page
            page.locator("[data-my-table]").click()  # "Het scoreblad van je tafel"
            page.wait_for_url("**/sheet/")
        writer, partner, east = seats[2], seats[0], seats[3]
        assert_fits_the_phone(writer, 390, "the score sheet")
        # North writes deal 1: hearts, 38 points for South–North.
        writer.locator("label.t-suit", has_text="♥").click()
        if set_number == 1:
            # A typo the server refuses (past the browser's own check): the phone is
            # taken back to the points, which say why; hearts stays chosen.
            writer.fill("input[name=points]", "61")
            writer.evaluate("document.querySelector('[data-sheet-form]').noValidate = true")
            with writer.expect_navigation():
                writer.locator("[data-sheet-form] button").click()
            expect(writer.locator("[data-sheet-refusal]")).to_contain_text("tussen 0 en 60")
            expect(writer.locator("#points")).to_be_focused()
            expect(writer.locator("#points")).to_have_attribute("aria-invalid", "true")
            expect(writer.locator("input[name=trump][value=H]")).to_be_checked()
        writer.fill("input[name=points]", "38")
        if set_number == 1:
            _double_tap_on_a_slow_network(writer)
        else:
            with writer.expect_navigation():
                writer.locator("[data-sheet-form] button").click()
        written = writer.locator("[data-sheet-deal='1'] [data-written]")
        expect(written).to_contain_text("8 – 0")
        # East's open page shows it by itself (no reload by hand) and agrees.
        expect(east.locator("[data-sheet-deal='1'] [data-written]")).to_contain_text(
            "8 – 0", timeout=20_000
        )
        with east.expect_navigation():
            east.locator("[data-agree]").click()
        expect(partner.locator("[data-agreement]")).to_contain_text(
            f"✓ {east_name(seats, names, four_phones)}", timeout=20_000
        )
        with partner.expect_navigation():
            partner.locator("[data-agree]").click()
        # Every phone at the table learns that it is done (the pages reload by
        # themselves, and then stop polling).
        for page in four_phones:
            expect(page.locator("[data-sheet-done]")).to_be_visible(timeout=20_000)
        for page in four_phones:
            assert not page.js_errors, page.js_errors

    org.goto(organize)
    expect(org.locator("[data-closed]")).to_be_visible(timeout=30_000)
    expect(org.locator("[data-tables-standings] tbody tr")).to_have_count(4)
    # The club's season counts the night: made on the club page, its standing on a phone.
    today = dt.date.today()
    org.goto(f"{base}/clubs/{slug}/")
    org.locator("[data-new-season] summary").click()
    org.fill("[data-new-season] input[name=name]", "Seizoen van de zaal")
    org.fill("input[name=starts_on]", (today - dt.timedelta(days=30)).isoformat())
    org.fill("input[name=ends_on]", (today + dt.timedelta(days=300)).isoformat())
    with org.expect_navigation():
        org.locator("[data-new-season] button").click()
    expect(org.locator("[data-season-standings] tbody tr")).to_have_count(4)
    assert_fits_the_phone(org, 390, "the season's standing")


def east_name(seats, names, phones) -> str:
    return names[phones.index(seats[3])]


def _double_tap_on_a_slow_network(page) -> None:
    """The sheet's button tapped twice, 0.3 s apart, with 1.5 s of latency: the deal is
    sent once (a second POST would abort the first page load)."""
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    cdp = page.context.new_cdp_session(page)
    slow = {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", slow)
    with page.expect_navigation():
        page.evaluate(
            """() => {
              const button = document.querySelector("[data-sheet-form] button");
              button.click();
              setTimeout(() => button.click(), 300);
            }"""
        )
    cdp.send("Network.emulateNetworkConditions", {**slow, "latency": 0})
    assert len(posts) == 1, posts
