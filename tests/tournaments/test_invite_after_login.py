"""Issue 10 item 9: a tournament invite link opened while logged out. "Log in to take
part" and "Create an account" keep the code in `next`, so after logging in or signing
up the player lands on the tournament (not a 404), with the code filled in: one click
from playing."""

from __future__ import annotations

import html
import re

import pytest

from tournaments.models import Entry

pytestmark = pytest.mark.usefixtures("live_game_db")
CODE = "zwart7"


@pytest.fixture(autouse=True)
def english(client):
    client.cookies["django_language"] = "en"


def _link(page: str, label: str) -> str:
    """The href of the page's link whose text is `label` (a button in the tournament's
    card: the header's links come first)."""
    found = re.findall(r'<a [^>]*href="([^"]+)"[^>]*>' + re.escape(label) + "</a>", page)
    assert found, f"no link {label!r}"
    return html.unescape(found[-1])


def _next_of(url: str) -> str:
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(url).query)["next"][0]


def _lands_one_click_from_playing(client, t, response, user) -> None:
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert page.status_code == 200  # the tournament, not "no such tournament"
    body = page.content.decode()
    assert f'value="{CODE}"' in body and "Play this tournament" in body
    joined = client.post(f"/tournaments/{t.pk}/join/", {"invite_code": CODE})
    entry = Entry.objects.get(tournament=t, player=user)
    assert joined["Location"].endswith(f"/game/{entry.game.public_id}/")


def test_log_in_from_an_invite_link_keeps_the_code(client, make_tournament, make_user):
    t = make_tournament(invite_code=CODE)
    ben = make_user("ben")
    page = client.get(f"/tournaments/{t.pk}/?code={CODE}")
    login_url = _link(page.content.decode(), "Log in to take part")
    assert _next_of(login_url) == f"/tournaments/{t.pk}/?code={CODE}"
    form = client.get(login_url)
    assert f'value="/tournaments/{t.pk}/?code={CODE}"' in form.content.decode()
    response = client.post(
        "/accounts/login/",
        {"username": "ben", "password": "pw-ben-123", "next": _next_of(login_url)},
    )
    _lands_one_click_from_playing(client, t, response, ben)


def test_sign_up_from_an_invite_link_keeps_the_code(client, make_tournament, django_user_model):
    t = make_tournament(invite_code=CODE)
    page = client.get(f"/tournaments/{t.pk}/?code={CODE}")
    signup_url = _link(page.content.decode(), "Create an account")
    assert _next_of(signup_url) == f"/tournaments/{t.pk}/?code={CODE}"
    response = client.post(
        "/accounts/signup/",
        {
            "username": "nieuw",
            "password1": "kaarten-2026-x",
            "password2": "kaarten-2026-x",
            "next": _next_of(signup_url),
        },
    )
    _lands_one_click_from_playing(
        client, t, response, django_user_model.objects.get(username="nieuw")
    )


def test_a_guest_claiming_an_account_from_the_invite_keeps_the_code(client, make_tournament):
    t = make_tournament(invite_code=CODE)
    from django.contrib.auth import get_user_model

    guest = get_user_model().objects.create_user("gast-1")
    guest.set_unusable_password()
    guest.save()
    client.force_login(guest)
    page = client.get(f"/tournaments/{t.pk}/?code={CODE}").content.decode()
    assert _next_of(_link(page, "Create an account")) == f"/tournaments/{t.pk}/?code={CODE}"
