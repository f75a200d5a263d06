"""A player downloads what the site keeps about them (the profile's "Mijn gegevens
downloaden"): the account, clubs, entries and games, under the pages' fairness rules (a
record names every hand: not while the tournament's deals are sealed)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from game import actions as game_actions
from tests.tournaments.conftest import finish, joined
from tests.tournaments.test_bot_finished_mark import closed_with_bot  # noqa: F401 - fixture
from tournaments import actions
from tournaments.models import Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def _download(user) -> dict:
    client = Client()
    client.force_login(user)
    assert 'href="/accounts/profile/data.json"' in client.get("/accounts/profile/").content.decode()
    response = client.get("/accounts/profile/data.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
    assert response["Content-Disposition"] == (
        f'attachment; filename="manillen-{user.get_username()}.json"'
    )
    return json.loads(response.content)


def test_the_download_holds_the_account_and_its_results_as_the_pages_allow(
    make_tournament, make_user, organizer
):
    t = make_tournament(seed="my-data", results_visibility=Tournament.Visibility.AFTER_CLOSE)
    anna, ben = make_user("anna", email="anna@example.org"), make_user("ben")
    entries = joined(t, anna, ben)
    finish(entries[0])
    table = game_actions.create_table(anna)

    data = _download(anna)

    assert data["account"]["username"] == "anna"
    assert data["account"]["email"] == "anna@example.org"
    assert data["clubs"] == [{"name": "De Zwarte Manille", "organizer": False}]
    [row] = data["tournaments"]
    assert row["name"] == "Clubavond" and row["entry"] == "finished"
    assert row["score"] == entries[0].game.final_score and row["rank"] is None  # not closed
    by_id = {g["id"]: g for g in data["games"]}
    solo = by_id[str(entries[0].game.public_id)]
    assert solo["seat"] == "south" and solo["status"] == "finished"
    assert solo["record"] is None  # the tournament's deals are still sealed
    assert by_id[str(table.public_id)]["status"] == "waiting"
    assert "ben" not in json.dumps(data)  # nobody else's entry or game

    actions.close_tournament(t.pk, organizer)
    data = _download(anna)
    assert data["tournaments"][0]["rank"] in (1, 2)
    solo = {g["id"]: g for g in data["games"]}[str(entries[0].game.public_id)]
    assert solo["record"] and "anna" in solo["record"]


def test_only_a_logged_in_player_downloads_and_only_their_own(make_user):
    assert Client().get("/accounts/profile/data.json")["Location"].startswith("/accounts/login/")
    anna = make_user("anna")
    client = Client()
    client.force_login(anna)
    assert client.post("/accounts/profile/data.json").status_code == 405


def test_the_download_marks_a_game_the_bot_finished(closed_with_bot):  # noqa: F811
    """As the player's page marks it ('bot'): an entry finished by the bot at the close."""
    _, e_anna, e_ben = closed_with_bot
    [mine] = _download(e_ben.player)["tournaments"]
    assert mine["finish_mode"] == "bot" and mine["played_by"] == []
    [hers] = _download(e_anna.player)["tournaments"]
    assert hers["finish_mode"] == "played"


def test_a_tournament_closed_after_midnight_in_brussels_is_dated_that_day(
    make_tournament, make_user, organizer, client
):
    """Closed at 00:40 Brussels time (23:40 UTC the day before): the player's history and
    the download say the club's day, as every other page does (they said the UTC one)."""
    import datetime as dt

    from django.utils import timezone

    t = make_tournament(seed="after-midnight")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    finish(entry)
    actions.close_tournament(t.pk, organizer)
    closed = dt.datetime(2026, 12, 8, 23, 40, tzinfo=dt.UTC)
    Tournament.objects.filter(pk=t.pk).update(closed_at=closed)
    assert timezone.localdate(closed) == dt.date(2026, 12, 9)  # settings.TIME_ZONE
    assert _download(anna)["tournaments"][0]["date"] == "2026-12-09"
    client.force_login(anna)
    page = client.get("/players/anna/").content.decode()
    assert "9/12/2026" in page and "8/12/2026" not in page
