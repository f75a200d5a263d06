"""Every header cell of a table says what its column is (axe: empty-table-header): the
score sheet's column of links and its footer, the side-by-side replay's column of the
other play before anybody else finished, the compare table's replay column."""

from __future__ import annotations

import re

import pytest

from tests.tournaments.conftest import finish, joined
from tests.tournaments.test_room_night import (
    current_tables,
    night,  # noqa: F401 - fixture
    seated,
    sheet_url,
)

pytestmark = pytest.mark.usefixtures("live_game_db")

TH = re.compile(r"<th\b[^>]*>(.*?)</th>", re.DOTALL)


def empty_headers(page: str) -> list[str]:
    return [cell for cell in TH.findall(page) if not re.sub(r"<[^>]+>", "", cell).strip()]


def test_the_score_sheet_names_every_column(client, night):  # noqa: F811
    t = night
    tab = current_tables(t)[0]
    client.force_login(seated(tab)[0])
    page = client.get(sheet_url(t, tab)).content.decode()
    assert "data-sheet-deal" in page and "<tfoot>" in page
    assert empty_headers(page) == []


def test_compare_pages_name_every_column(make_tournament, make_user, client):
    t = make_tournament(seed="headers-seed")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    finish(entry)
    client.force_login(anna)
    for path in (f"/tournaments/{t.pk}/compare/", f"/tournaments/{t.pk}/compare/1/"):
        response = client.get(path)
        assert response.status_code == 200, path
        page = response.content.decode()
        assert "<th" in page, path
        assert empty_headers(page) == [], path


def test_the_lobby_names_every_column(client):
    page = client.get("/tables/").content.decode()
    assert "lobby-table" in page
    assert empty_headers(page) == []
