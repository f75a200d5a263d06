"""Issue 10 item 17: one name per bot level everywhere (the home page said "Beginner"
where the tournament form said "Standard" for the same bot), and the test-only random
bot (and the engine's alias "beginner") are not offered in the UI."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.usefixtures("live_game_db")


def _options(html: str, select_name: str) -> list[tuple[str, str]]:
    select = re.search(rf'<select name="{select_name}"[^>]*>(.*?)</select>', html, re.S)
    assert select, f"no select {select_name}"
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(1))


@pytest.mark.parametrize("lang", ["nl", "en", "fr"])
def test_home_and_tournament_form_name_the_same_levels_alike(client, organizer, club, lang):
    client.cookies["django_language"] = lang
    client.force_login(organizer)
    home = re.search(
        r'<select id="play-level" name="level"[^>]*>(.*?)</select>',
        client.get("/").content.decode(),
        re.S,
    )
    home_levels = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', home.group(1))
    form_levels = _options(client.get("/tournaments/new/").content.decode(), "bot_level")
    assert [v for v, _ in home_levels] == ["heuristic", "club", "expert"]
    assert form_levels == home_levels  # same ids, same names, same order


def test_the_form_offers_no_test_bot_and_refuses_it(client, organizer, club):
    client.cookies["django_language"] = "nl"
    client.force_login(organizer)
    html = client.get("/tournaments/new/").content.decode()
    values = [v for v, _ in _options(html, "bot_level")]
    assert "random" not in values and "beginner" not in values
    assert "Willekeurig" not in html and "Standaard" not in html
    response = client.post(
        "/tournaments/new/",
        {
            "name": "Test", "club": club.pk, "rules": "flemish", "bot_level": "random",
            "capacity": 4, "results_visibility": "after_finish", "unfinished_rule": "bot",
        },
    )  # fmt: skip
    assert response.status_code == 200 and "random" in response.content.decode()  # refused


@pytest.mark.parametrize("level, name", [("heuristic", "Beginner"), ("expert", "Expert")])
def test_the_tournament_page_uses_the_home_pages_name(
    client, make_tournament, organizer, level, name
):
    client.cookies["django_language"] = "en"
    t = make_tournament(bot_level=level)
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert f"<dt>Bots</dt><dd>{name}</dd>" in html
