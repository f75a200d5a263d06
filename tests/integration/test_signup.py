"""Sign-up (/accounts/signup/): a new account, or a guest claiming the one it plays with."""

from __future__ import annotations

import secrets

import pytest
from django.contrib.auth import get_user_model

from game.models import Game
from tests.helpers import wait_for_turn

pytestmark = pytest.mark.usefixtures("live_game_db")

PASSWORD = "klaver-manille-77"


@pytest.fixture(autouse=True)
def quick_and_unlimited(settings):
    settings.SIGNUP_RATE_LIMIT = 0  # the limiter has its own test below


def _signup(client, username, next_url="", **extra):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    if next_url:
        data["next"] = next_url
    return client.post("/accounts/signup/", data)


def _logged_in_user(client):
    user_id = client.session.get("_auth_user_id")
    return get_user_model().objects.get(pk=user_id) if user_id else None


def test_signup_page_is_dutch_and_linked_from_login_and_home(client):
    response = client.get("/accounts/signup/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Account maken" in body and 'name="password2"' in body
    assert "/accounts/signup/" in client.get("/accounts/login/").content.decode()
    assert "/accounts/signup/" in client.get("/").content.decode()


def test_signup_creates_an_account_and_logs_in(client):
    response = _signup(client, "mieke", email="mieke@example.org")
    assert response.status_code == 302 and response["Location"] == "/"
    user = _logged_in_user(client)
    assert user.username == "mieke" and user.email == "mieke@example.org"
    assert user.has_usable_password() and user.check_password(PASSWORD)
    assert "mieke" in client.get("/").content.decode()


def test_signup_goes_to_next_but_never_off_site(client):
    assert _signup(client, "jef", next_url="/tournaments/")["Location"] == "/tournaments/"
    other = client.__class__()
    assert _signup(other, "jos", next_url="https://evil.example/")["Location"] == "/"


def test_duplicate_username_is_refused_with_a_message(client, django_user_model):
    django_user_model.objects.create_user("mieke", password="pw-mieke-123")
    response = _signup(client, "Mieke")  # differs only in case: still taken
    assert response.status_code == 200
    (message,) = response.context["form"].errors["username"]
    assert "gebruikersnaam" in message and message in response.content.decode()
    assert django_user_model.objects.filter(username__iexact="mieke").count() == 1
    assert _logged_in_user(client) is None


def test_an_email_address_in_use_is_refused(client, django_user_model):
    # A reset mails every account on the address: two accounts on one mailbox would
    # let whoever reads it reset both.
    django_user_model.objects.create_user("mieke", "mieke@example.org", "pw-mieke-123")
    response = _signup(client, "jef", email="MIEKE@example.org ")
    assert response.status_code == 200
    (message,) = response.context["form"].errors["email"]
    assert "e-mailadres" in message and message in response.content.decode()
    assert not django_user_model.objects.filter(username="jef").exists()
    assert _signup(client, "jef", email="jef@example.org").status_code == 302
    other = client.__class__()
    assert _signup(other, "jos").status_code == 302  # no address stays allowed
    assert _signup(client.__class__(), "rik").status_code == 302


def test_guest_names_are_reserved(client):
    response = _signup(client, "gast-123456")
    assert response.status_code == 200 and "username" in response.context["form"].errors


def test_a_name_fits_a_seat_and_a_phone(client):
    response = _signup(client, "x" * 31)
    assert response.status_code == 200 and "username" in response.context["form"].errors
    assert 'maxlength="30"' in client.get("/accounts/signup/").content.decode()
    assert _signup(client, "y" * 30).status_code == 302


def test_a_guest_keeps_its_games_when_claiming_an_account(client):
    client.post("/play/")
    guest = _logged_in_user(client)
    assert not guest.has_usable_password()
    game = wait_for_turn(Game.objects.get(owner=guest).public_id)
    page = client.get("/accounts/signup/").content.decode()
    assert guest.username not in page  # the form does not offer the "gast-…" name

    response = _signup(client, "rosa")
    assert response.status_code == 302
    user = _logged_in_user(client)
    assert user.pk == guest.pk and user.username == "rosa" and user.has_usable_password()
    game.refresh_from_db()
    assert game.owner_id == user.pk
    assert client.get(f"/game/{game.public_id}/").status_code == 200
    assert get_user_model().objects.count() == 1


def test_an_account_already_made_is_not_signed_up_again(client, user):
    client.force_login(user)
    assert client.get("/accounts/signup/").status_code == 302
    assert _signup(client, "tweede").status_code == 302
    assert not get_user_model().objects.filter(username="tweede").exists()


@pytest.mark.parametrize("claim", [False, True], ids=["new-account", "claimed-guest"])
def test_a_new_account_can_join_todays_day_list(client, claim):
    from tournaments import actions
    from tournaments.models import Entry

    if claim:
        client.post("/play/")
        guest = _logged_in_user(client)
        day = actions.day_tournament()
        refused = client.post(f"/tournaments/{day.pk}/join/", follow=True)
        assert not Entry.objects.filter(player=guest).exists()
        # The refusal, in Dutch, points to signing up.
        assert "Gasten kunnen niet meedoen aan toernooien: maak een account" in (
            refused.content.decode()
        )
    _signup(client, "nieuweling")
    user = _logged_in_user(client)
    day = actions.day_tournament()
    response = client.post(f"/tournaments/{day.pk}/join/")
    entry = Entry.objects.get(tournament=day, player=user)
    assert response.status_code == 302
    assert response["Location"] == f"/game/{entry.game.public_id}/"


def test_signups_are_rate_limited_per_address(client, settings):
    settings.SIGNUP_RATE_LIMIT = 2
    address = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    for name in ("een", "twee"):
        fresh = client.__class__(REMOTE_ADDR=address)
        assert _signup(fresh, f"{name}-{secrets.token_hex(3)}").status_code == 302
    blocked = client.__class__(REMOTE_ADDR=address)
    response = _signup(blocked, "drie")
    assert response.status_code == 429
    assert not get_user_model().objects.filter(username="drie").exists()
    elsewhere = client.__class__(REMOTE_ADDR="10.255.255.254")
    assert _signup(elsewhere, "vier").status_code == 302
    # With the limit off nothing is counted: switched on later, it starts from nought.
    settings.SIGNUP_RATE_LIMIT = 0
    other = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    assert _signup(client.__class__(REMOTE_ADDR=other), "vijf").status_code == 302
    from django.core.cache import cache

    assert cache.get(f"signup:ip:{other}") is None


def test_asking_whether_an_address_has_an_account_uses_the_signup_budget(client, settings):
    """Sign-up says "another account uses this address" (the password reset never says
    whether one does): each such answer counts against the address's budget, so a list
    of addresses cannot be tested from one place."""
    settings.SIGNUP_RATE_LIMIT = 3
    get_user_model().objects.create_user("heeft-adres", "bekend@example.com", PASSWORD)
    address = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    for attempt in range(3):
        probe = client.__class__(REMOTE_ADDR=address)
        response = _signup(probe, f"probe-{attempt}", email="bekend@example.com")
        assert response.status_code == 200
        assert response.context["form"].has_error("email", code="email_in_use")
    # A refusal for another reason (passwords that differ) does not count.
    typo = client.__class__(REMOTE_ADDR="10.255.255.253")
    for attempt in range(4):
        data = {"username": f"typo-{attempt}", "password1": PASSWORD, "password2": "anders"}
        assert typo.post("/accounts/signup/", data).status_code == 200
    assert _signup(typo, "typo-goed").status_code == 302
    blocked = client.__class__(REMOTE_ADDR=address)
    response = _signup(blocked, "probe-4", email="onbekend@example.com")
    assert response.status_code == 429
    assert b"bekend@example.com" not in response.content
    assert not get_user_model().objects.filter(username="probe-4").exists()
