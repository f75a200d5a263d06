"""An organizer's season, polished: pages that stop speaking of what is over (a closed
tournament's standings are not live, a closed night's tables are not "not drawn yet")
and printed deals one to a sheet, so that a table folding its sheet sees no coming deal."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.tournaments import test_room_night
from tests.tournaments.conftest import joined
from tests.tournaments.test_rounds import create, run
from tournaments import actions, pdf, rankings

pytestmark = pytest.mark.usefixtures("live_game_db")
night = test_room_night.night  # the fixture: eight players at a duplicate night in the room


def _get(client, url: str, lang: str = "nl") -> str:
    client.cookies["django_language"] = lang
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_a_closed_solo_tournaments_standings_are_not_said_to_be_live(
    client, make_tournament, fake_entry, organizer
):
    t = make_tournament(seed="polish-live")
    fake_entry(t, "alice", 40, {1: 40, 2: 35})
    fake_entry(t, "bert", -10, {1: 20, 2: 35})
    rankings.recompute(t.pk)
    client.force_login(organizer)
    url = reverse("tournaments:standings", args=[t.pk])
    assert "data-live-status" in _get(client, url)  # open: updated as entries finish
    actions.close_tournament(t.pk, organizer)
    page = _get(client, url)
    assert "data-live-status" not in page
    assert "Live: bijgewerkt" not in page and "Live: updated" not in _get(client, url, "en")
    assert "alice" in page and "data-standings" in page  # the (final) standings stay


def test_a_closed_room_night_does_not_say_its_tables_are_not_drawn(client, club, organizer):
    t = create(
        "--format", "rotating", "--players", "8", "--sets", "3", "--deals", "1",
        "--duplicate", "--in-room", "--open", "--seed", "polish-drawn",
        "--organizer", organizer.get_username(), "--club", club.slug,
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--prefix", "geloot")
    t.refresh_from_db()
    assert t.is_closed
    client.force_login(organizer)
    page = _get(client, reverse("tournaments:tables-organize", args=[t.pk]))
    assert "data-print-deals" in page  # the room's section is there ...
    assert "nog niet geloot" not in page  # ... without "De tafels zijn nog niet geloot."
    assert "not been drawn" not in _get(
        client, reverse("tournaments:tables-organize", args=[t.pk]), "en"
    )


def test_before_the_draw_the_organizer_is_told_the_tables_are_not_drawn(client, club, organizer):
    t = actions.create_tables_tournament(
        organizer, name="Nog te loten", club=club, fmt="rotating", players=8, sets=3, deals=1,
        duplicate=True, in_room=True, open_now=True,
    )  # fmt: skip
    client.force_login(organizer)
    page = _get(client, reverse("tournaments:tables-organize", args=[t.pk]))
    assert "De tafels zijn nog niet geloot." in page


def _deal_pages(document) -> list[str]:
    from weasyprint.formatting_structure.boxes import TextBox

    return [
        " ".join(box.text for box in page._page_box.descendants() if isinstance(box, TextBox))
        for page in document.pages
    ]


def test_printed_deals_one_deal_per_page(client, night, organizer):
    t = night
    client.force_login(organizer)
    html = _get(client, reverse("tournaments:tables-deals", args=[t.pk]) + "?round=1&set=1")
    assert html.count("data-print-deal=") == 2  # duplicate: deals 1 and 2, one copy each
    pages = _deal_pages(pdf.document(html, base_url="http://testserver/"))
    assert len(pages) == 2, [p[:80] for p in pages]
    for number, text in enumerate(pages, start=1):
        shown = re.findall(r"deel (\d+)", text)
        assert shown and set(shown) == {str(number)}, text[:200]


def test_printed_deals_of_each_table_one_deal_per_page(client, club, organizer, make_user):
    """Without duplicate each table has its own deals: still one deal per sheet."""
    t = actions.create_tables_tournament(
        organizer, name="Eigen delen", club=club, fmt="rotating", players=8, sets=3, deals=2,
        in_room=True, open_now=True, seed="polish-own-deals",
    )  # fmt: skip
    joined(t, *[make_user(f"eigen{i}") for i in range(8)])
    actions.start_tables(t.pk, organizer)
    client.force_login(organizer)
    html = _get(client, reverse("tournaments:tables-deals", args=[t.pk]) + "?round=1&set=1")
    assert html.count("data-print-deal=") == 4  # 2 tables x 2 deals
    pages = _deal_pages(pdf.document(html, base_url="http://testserver/"))
    assert len(pages) == 4
    assert all(len(re.findall(r"deel \d+", p)) == 1 for p in pages), pages
