"""Issue 10 item 10: a guest who clicks "Log out" is warned first (a guest cannot log
back in, its games would be lost) and offered to keep them by making an account; only
a second, explicit confirmation logs the guest out. Accounts log out at once."""

from __future__ import annotations

import pytest

from game.models import Game

pytestmark = pytest.mark.usefixtures("live_game_db")

PASSWORD = "klaver-manille-77"


@pytest.fixture(autouse=True)
def quick_and_unlimited(settings, client):
    settings.SIGNUP_RATE_LIMIT = 0
    client.cookies["django_language"] = "en"


def _user_id(client):
    return client.session.get("_auth_user_id")


def _guest_with_a_game(client) -> Game:
    response = client.post("/play/")  # a visitor starts a game: a guest user
    assert response.status_code == 302
    return Game.objects.get(public_id=response["Location"].rstrip("/").rsplit("/", 1)[-1])


def test_guest_log_out_asks_first_and_keeps_the_session(client):
    game = _guest_with_a_game(client)
    guest_id = _user_id(client)
    response = client.post("/accounts/logout/")
    assert response.status_code == 200
    assert _user_id(client) == guest_id  # still logged in: nothing lost yet
    body = response.content.decode()
    assert "your game in progress is lost" in body
    assert f'href="/accounts/signup/?next=/game/{game.public_id}/"' in body  # keep them
    assert f'href="/game/{game.public_id}/"' in body  # back to the table
    assert 'name="confirm"' in body
    # The warning is in Dutch for a Dutch page.
    client.cookies["django_language"] = "nl"
    assert "Afmelden als gast?" in client.post("/accounts/logout/").content.decode()


def test_guest_confirms_and_is_logged_out(client):
    _guest_with_a_game(client)
    response = client.post("/accounts/logout/", {"confirm": "1"})
    assert response.status_code == 302 and _user_id(client) is None


def test_guest_keeps_the_games_by_making_an_account_from_the_warning(client):
    game = _guest_with_a_game(client)
    response = client.post(
        "/accounts/signup/",
        {
            "username": "mieke",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": f"/game/{game.public_id}/",
        },
    )
    assert response["Location"] == f"/game/{game.public_id}/"
    assert client.get(f"/game/{game.public_id}/").status_code == 200
    # Now an account: logging out asks nothing.
    assert client.post("/accounts/logout/").status_code == 302 and _user_id(client) is None


def test_an_account_logs_out_at_once(client, django_user_model):
    user = django_user_model.objects.create_user("jef", password=PASSWORD)
    client.force_login(user)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and _user_id(client) is None


def test_a_guest_without_games_logs_out_at_once(client, django_user_model):
    guest = django_user_model.objects.create_user("gast-0a1b2c")
    guest.set_unusable_password()
    guest.save()
    client.force_login(guest)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and _user_id(client) is None
