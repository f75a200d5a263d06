"""HTTP views: quick play, the table page, downloads, fast play, accounts."""

from __future__ import annotations

import json
import re

import pytest

from game.models import Game
from tests.helpers import wait_for_turn

pytestmark = pytest.mark.usefixtures("live_game_db")


def _start(client) -> Game:
    response = client.post("/play/")
    assert response.status_code == 302
    game = Game.objects.latest("created")
    assert response["Location"] == f"/game/{game.public_id}/"
    return wait_for_turn(game.public_id)


def test_home_page_links_to_play_and_login(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "/play/" in body
    assert "/accounts/login/" in body
    # The rules on the page are Flemish; the other rules offered say how they differ.
    other = body.split("data-other-rules", 1)[1].split("</section>", 1)[0]
    for name in ("Vlaams (tafel)", "Frans", "Malilla"):
        assert f"<b>{name}</b>" in other, name
    assert "tegen de klok in" in other and "tot 34" in other


def test_anonymous_quick_play_gets_a_guest_player_and_a_game(client):
    game = _start(client)
    assert game.owner.username.startswith("gast-")
    assert not game.owner.has_usable_password()
    response = client.get(f"/game/{game.public_id}/")
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "game/table.html"
    assert response.context["game"] == game
    assert response.context["ws_path"] == f"/ws/game/{game.public_id}/"
    assert response.context["seq"] == game.seq
    assert json.loads(response.context["state_json"]) == response.context["state"] == game.state


def test_get_play_shows_the_choice_and_creates_nothing(client, user):
    """A GET (a crawler, a cross-site link or image) starts no game and makes no guest."""
    from django.contrib.auth import get_user_model

    users, games = get_user_model().objects.count(), Game.objects.count()
    response = client.get("/play/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "data-new-game" in body and 'method="post"' in body
    assert 'name="csrfmiddlewaretoken"' in body
    for level in ("heuristic", "club", "expert"):
        assert f'<option value="{level}"' in body
    for rules in ("flemish", "flemish-table", "french", "malilla"):
        assert f'<option value="{rules}"' in body
    assert "_auth_user_id" not in client.session
    client.force_login(user)
    assert client.get("/play/").status_code == 200
    assert (get_user_model().objects.count(), Game.objects.count()) == (users, games)


def test_starting_a_game_needs_the_csrf_token(user):
    from django.test import Client

    victim = Client(enforce_csrf_checks=True)
    victim.force_login(user)
    assert victim.post("/play/").status_code == 403  # a cross-site form post
    assert not Game.objects.filter(owner=user).exists()
    token = victim.get("/play/").context["csrf_token"]
    response = victim.post("/play/", {"csrfmiddlewaretoken": str(token)})
    assert response.status_code == 302
    assert Game.objects.filter(owner=user).count() == 1


@pytest.mark.parametrize("rules", ["flemish", "flemish-table", "french", "malilla"])
def test_play_uses_the_chosen_rules_preset(client, rules):
    response = client.post("/play/", {"level": "heuristic", "rules": rules})
    assert response.status_code == 302
    game = Game.objects.get(public_id=response["Location"].split("/")[2])
    assert game.rules == rules
    # "Another game" keeps the rules too.
    table = client.get(response["Location"]).content.decode()
    assert f'<input type="hidden" name="rules" value="{rules}">' in table


def test_unknown_rules_are_refused_and_make_no_game(client):
    before = Game.objects.count()
    response = client.post("/play/", {"rules": "poker"})
    assert response.status_code == 400 and b"unknown rules" in response.content
    assert Game.objects.count() == before


def test_new_games_are_rate_limited_per_address(client, settings):
    from django.core.cache import cache

    settings.PLAY_RATE_LIMIT = 3
    address = "203.0.113.77"
    cache.delete_many(["play:ip:" + address, "play:ip:" + address + ":until"])
    for _ in range(3):
        assert client.post("/play/", REMOTE_ADDR=address).status_code == 302
    before = Game.objects.count()
    response = client.post("/play/", REMOTE_ADDR=address)
    assert response.status_code == 429
    assert "data-play-error" in response.content.decode()
    assert Game.objects.count() == before
    # Another address is not affected.
    from django.test import Client

    assert Client(REMOTE_ADDR="203.0.113.78").post("/play/").status_code == 302
    cache.delete_many(["play:ip:" + address, "play:ip:" + address + ":until"])


def test_only_the_owner_sees_a_game(client, other_user):
    game = _start(client)
    urls = [f"/game/{game.public_id}/", f"/game/{game.public_id}/state.json",
            f"/game/{game.public_id}/record.txt"]  # fmt: skip
    stranger = client.__class__()
    for url in urls:
        assert stranger.get(url).status_code == 404
    stranger.force_login(other_user)
    for url in urls:
        assert stranger.get(url).status_code == 404
    assert stranger.post(f"/game/{game.public_id}/fast/").status_code == 404
    assert client.get("/game/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_state_json_is_the_owners_snapshot(client):
    game = _start(client)
    data = client.get(f"/game/{game.public_id}/state.json").json()
    table = data.pop("table")
    assert data == {"type": "snapshot", "seq": game.seq, "state": game.state}
    # The table part: the owner's seat (South) and who sits where (three bots).
    assert table["seat"] == 0 and table["status"] == "active"
    assert [p["person"] for p in table["players"]] == [True, False, False, False]
    assert [p["bot"] for p in table["players"][1:]] == [game.bot_level] * 3


def test_record_download_is_the_engine_game_record(client):
    records = pytest.importorskip("engine.records")
    import engine
    from game import actions

    game = _start(client)
    # Mid-game the record would show every hand (it names the seed): not yet.
    assert client.get(f"/game/{game.public_id}/record.txt").status_code == 404
    actions.autoplay(game.pk)
    game.refresh_from_db()
    response = client.get(f"/game/{game.public_id}/record.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert "attachment" in response["Content-Disposition"]
    eng = engine.Game.replay(game.seed, game.rules, game.actions)
    assert response.content.decode() == records.write_text(eng, actions.record_tags(game))
    tags = records.read_text(response.content.decode()).tags
    assert tags["South"] == game.owner.get_username() and tags["West"] == f"bot:{game.bot_level}"
    assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", tags["Date"])


def test_fast_play_is_toggled_by_post_only(client):
    game = _start(client)
    url = f"/game/{game.public_id}/fast/"
    assert client.get(url).status_code == 405
    response = client.post(url, {"fast_play": "1"}, headers={"Accept": "application/json"})
    assert response.json() == {"fast_play": True}
    assert client.post(url).status_code == 302  # toggle, back to the table
    game.refresh_from_db()
    assert game.fast_play is False


def test_login_and_logout_work(client, user):
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "south", "password": "pw-south-123"})
    assert response.status_code == 302
    assert client.get("/").context["user"] == user
    assert client.post("/accounts/logout/").status_code == 302
    assert not client.get("/").context["user"].is_authenticated


@pytest.mark.parametrize("level", ["heuristic", "club", "expert"])
def test_the_home_page_offers_the_three_levels_and_play_uses_the_chosen_one(client, level):
    home = client.get("/").content.decode()
    for value in ("heuristic", "club", "expert"):
        assert f'<option value="{value}"' in home
    response = client.post("/play/", {"level": level})
    assert response.status_code == 302
    game = Game.objects.get(public_id=response["Location"].split("/")[2])
    assert game.bot_level == level
    # "Another game" at the end of it keeps the level.
    table = client.get(response["Location"]).content.decode()
    assert f'<input type="hidden" name="level" value="{level}">' in table


def test_an_unknown_level_is_refused_and_makes_no_game(client):
    before = Game.objects.count()
    response = client.post("/play/", {"level": "grandmaster"})
    assert response.status_code == 400 and b"unknown bot level" in response.content
    assert Game.objects.count() == before
