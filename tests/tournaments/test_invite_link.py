"""A club tournament's invite link: a player from outside the club sees the page with
the code, enters with it, and from then on finds the tournament, its standings and the
live socket like a member (found by the browser test tests/browser/test_tournament_flow.py,
checked here without a browser)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from tests.tournaments.conftest import finish
from tournaments.models import Entry

pytestmark = pytest.mark.usefixtures("live_game_db")
CODE = "zwart7"
TIMEOUT = 10


def test_outsider_sees_the_page_only_with_the_code(client, make_tournament, make_user):
    t = make_tournament(invite_code=CODE)
    client.force_login(make_user("ben"))
    assert client.get(f"/tournaments/{t.pk}/").status_code == 404
    assert client.get(f"/tournaments/{t.pk}/?code=wrong").status_code == 404
    page = client.get(f"/tournaments/{t.pk}/?code={CODE}")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="invite_code"' in html and f'value="{CODE}"' in html


def test_outsider_enters_with_the_code_and_then_finds_the_tournament(
    client, make_tournament, make_user
):
    t = make_tournament(invite_code=CODE)
    ben = make_user("ben")
    client.force_login(ben)
    response = client.post(f"/tournaments/{t.pk}/join/", {"invite_code": CODE})
    entry = Entry.objects.get(tournament=t, player=ben)
    assert response.status_code == 302 and response["Location"].endswith(
        f"/game/{entry.game.public_id}/"
    )
    assert not t.club.is_member(ben)  # an entrant, not a member
    assert client.get(f"/tournaments/{t.pk}/").status_code == 200
    assert f"/tournaments/{t.pk}/" in client.get("/tournaments/").content.decode()
    finish(entry)
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 200


def test_a_wrong_code_is_refused_without_a_page_to_return_to(client, make_tournament, make_user):
    t = make_tournament(invite_code=CODE)
    ben = make_user("ben")
    client.force_login(ben)
    response = client.post(f"/tournaments/{t.pk}/join/", {"invite_code": "wrong"})
    assert response.status_code == 302 and response["Location"] == "/tournaments/"
    assert not Entry.objects.filter(tournament=t, player=ben).exists()


def test_members_are_not_asked_for_the_code(client, make_tournament, make_user, club):
    t = make_tournament(invite_code=CODE)
    anna = make_user("anna")
    club.members.add(anna)
    client.force_login(anna)
    assert 'name="invite_code"' not in client.get(f"/tournaments/{t.pk}/").content.decode()
    response = client.post(f"/tournaments/{t.pk}/join/")
    assert response.status_code == 302 and Entry.objects.filter(player=anna).exists()


def test_organizer_panel_shows_the_invite_link(client, make_tournament, organizer):
    t = make_tournament(invite_code=CODE)
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert f"/tournaments/{t.pk}/?code={CODE}" in html


def _cookie(user) -> bytes:
    c = Client()
    c.force_login(user)
    return f"sessionid={c.cookies['sessionid'].value}".encode()


async def test_outsider_entrant_gets_the_live_standings(make_tournament, make_user):
    t = await database_sync_to_async(make_tournament)(invite_code=CODE, seed="invite-live")
    ben = await database_sync_to_async(make_user)("ben")

    def enter_and_finish():
        from tournaments import actions

        finish(actions.join(t.pk, ben, CODE))

    await database_sync_to_async(enter_and_finish)()
    headers = [
        (b"origin", b"http://testserver"),
        (b"host", b"testserver"),
        (b"cookie", await database_sync_to_async(_cookie)(ben)),
    ]
    comm = WebsocketCommunicator(application, f"/ws/tournaments/{t.pk}/standings/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == "standings"
    assert [r["player"] for r in message["rows"]] == ["ben"]
    await comm.disconnect()


def test_create_form_from_a_club_page_keeps_club_and_window(client, club, organizer):
    client.force_login(organizer)
    html = client.get(f"/tournaments/new/?club={club.slug}").content.decode()
    assert f'<option value="{club.pk}" selected>' in html
    response = client.post(
        "/tournaments/new/",
        {
            "name": "Clubavond", "club": club.pk, "rules": "flemish", "bot_level": "random",
            "capacity": 4, "starts_at": "2030-01-02T20:00", "ends_at": "2030-01-02T19:00",
            "results_visibility": "after_finish", "unfinished_rule": "bot",
        },
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 200  # refused: the window ends before it starts
    # Shown again in the format <input type="datetime-local"> reads, not blanked.
    assert 'value="2030-01-02T20:00"' in html and 'value="2030-01-02T19:00"' in html
