"""The results PDF keeps the shape that makes it quick to lay out (bench/pdf.py times it;
no timings here).

WeasyPrint lays a flex container's content out again for each page it breaks across and
sizes a grid's tracks by laying out every cell several times: a body as a flex column and
each deal's hands as a grid made a 10-page PDF take 30 s. The printable results are
therefore blocks on paper (body.t-results-print, static/tournaments/tournaments.css),
each hand still on one line beside its seat, and nothing runs past the right margin (as
a flex item the page had grown to its widest table, cut off at the paper's edge).
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from weasyprint.formatting_structure.boxes import (
    BlockBox,
    FlexContainerBox,
    GridContainerBox,
    TextBox,
)

from tournaments import actions, pdf, rankings
from tournaments.models import Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

DEALS = range(1, 9)


def _boxes(document):
    for page in document.pages:
        yield from page._page_box.descendants()


@pytest.fixture
def solo(make_tournament, fake_entry, organizer, client):
    """Three entries over 8 deals, one score corrected: the printed page and its PDF."""
    t = make_tournament(name="Snelle PDF", seed="pdf-speed-seed")
    alice = fake_entry(t, "alice", 40, {n: 30 + n for n in DEALS})
    fake_entry(t, "bert", -10, {n: 20 + n for n in DEALS})
    fake_entry(t, "carla", 5, {n: 25 for n in DEALS})
    actions.correct_score(alice.pk, organizer, 45, "telfout")
    rankings.recompute(t.pk)
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.pk}/results/").content.decode()
    assert "t-results-print" in html and html.count("data-hands") == len(DEALS)
    return html, pdf.document(html, base_url="http://testserver/")


@pytest.fixture
def tables_pdf(club, organizer, client):
    """A duplicate tournament of tables played to its end: the printed page's PDF."""
    t = actions.create_tables_tournament(
        organizer, name="Tafels PDF", club=club, fmt="writer-stays", players=10, rounds=1,
        sets=1, deals=1, duplicate=True, open_now=True, seed="tab-pdf-shape-seed",
    )  # fmt: skip
    call_command("simulate_tournament", str(t.pk), "--players", "10", stdout=io.StringIO())
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.pk}/tables/results/").content.decode()
    assert "t-results-print" in html and "data-print-table=" in html
    return pdf.document(html, base_url="http://testserver/")


def test_the_pages_hold_no_flex_or_grid_box(solo, tables_pdf):
    for document in (solo[1], tables_pdf):
        slow = [b for b in _boxes(document) if isinstance(b, FlexContainerBox | GridContainerBox)]
        assert not slow, slow[:5]
        # The body itself (a flex column on screen) is a block on every page.
        for page in document.pages:
            root = page._page_box.children[0]
            body = [b for b in root.children if b.element_tag == "body"]
            assert root.element_tag == "html" and len(body) == 1
            assert type(body[0]) is BlockBox, body


def test_every_hand_is_one_line_beside_its_seat(solo):
    html, document = solo
    blocks = [b for b in _boxes(document) if isinstance(b, BlockBox)]
    seats = [b for b in blocks if b.element_tag == "dt"]
    hands = [b for b in blocks if b.element_tag == "dd"]
    assert len(seats) == len(hands) == 4 * len(DEALS)
    for seat, hand in zip(seats, hands, strict=True):
        assert abs(seat.position_y - hand.position_y) < 0.5  # on the seat's line
        assert hand.content_box_x() >= seat.position_x + seat.margin_width() - 0.5
        # One line of cards (eight cards fit the width many times over).
        lines = {round(b.position_y) for b in hand.descendants() if isinstance(b, TextBox)}
        assert len(lines) == 1, lines
    # Every traveller has its four hands, and the correction is still marked.
    assert html.count("<dt>") == 4 * len(DEALS) and "data-corrections" in html
    text = " ".join(b.text for b in _boxes(document) if isinstance(b, TextBox))
    assert "telfout" in text


def test_nothing_runs_past_the_right_margin(solo, tables_pdf):
    for document in (solo[1], tables_pdf):
        for number, page in enumerate(document.pages, 1):
            box = page._page_box
            right = box.content_box_x() + box.width
            for b in box.children[0].descendants():  # the html element's, no margin box
                if b.element_tag in ("html", "body") or b.width is None:
                    continue
                end = b.position_x + b.margin_width()
                assert end <= right + 0.5, (number, b, end, right)
