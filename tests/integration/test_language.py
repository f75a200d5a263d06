"""Dutch first: pages are nl-BE unless the visitor chose another language (the cookie),
whatever the browser's Accept-Language says."""

from __future__ import annotations

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db


def _home(client, **headers):
    response = client.get("/", **headers)
    assert response.status_code == 200
    return response


def test_an_english_browser_still_gets_dutch(client):
    response = _home(client, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    body = response.content.decode()
    assert '<html lang="nl">' in body and "Speel een spel" in body
    assert response["Content-Language"] == "nl"


def test_no_preference_gets_dutch(client):
    assert "Speel een spel" in _home(client).content.decode()


@pytest.mark.parametrize(("code", "text"), [("en", "Play a game"), ("fr", "Jouer une partie")])
def test_the_language_cookie_chooses(client, code, text):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    body = _home(client, HTTP_ACCEPT_LANGUAGE="nl-BE").content.decode()
    assert f'<html lang="{code}">' in body and text in body


def test_an_unknown_cookie_value_falls_back_to_dutch(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "xx"
    assert "Speel een spel" in _home(client, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_switcher_sets_the_cookie(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert "Play a game" in _home(client, HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    client.post("/i18n/setlang/", {"language": "nl", "next": "/"})
    assert "Speel een spel" in _home(client, HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.usefixtures("live_game_db")
def test_the_english_table_says_we_and_they_everywhere(client):
    """The English catalogue turns the source's US/THEM into WE/THEY: every line that
    names the two teams does, the seat-relative hint and the score lines included."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = client.post("/play/")
    page = client.get(response["Location"]).content.decode()
    assert "WE: you and North. THEY: West and East." in page
    assert "We write {n}." in page and "They write {n}." in page
    assert "US:" not in page and "THEM " not in page and ">US<" not in page


# --- the account's language follows it ------------------------------------------------------

PASSWORD = "klaver-manille-77"


def _lang(client, path="/") -> str:
    body = client.get(path).content.decode()
    return body[body.index('<html lang="') + 12 :].split('"', 1)[0]


def _log_in(client, username):
    response = client.post(
        "/accounts/login/", {"username": username, "password": PASSWORD, "next": "/"}
    )
    assert response.status_code == 302, response.content[:300]


def test_a_language_chosen_while_logged_in_follows_the_account_to_a_new_device(
    client, django_user_model
):
    from django.test import Client

    django_user_model.objects.create_user("eloise", "eloise@example.be", PASSWORD)
    _log_in(client, "eloise")
    client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert _lang(client) == "fr"
    laptop = Client()  # a new browser: Dutch until the account logs in
    assert _lang(laptop) == "nl"
    _log_in(laptop, "eloise")
    assert _lang(laptop) == "fr"
    assert laptop.post("/accounts/logout/").status_code in (200, 302)
    assert "_auth_user_id" not in laptop.session
    assert _lang(laptop) == "fr"  # kept on that device (its cookie) after the logout
    # Chosen again on that device before logging in: the newest choice is the account's.
    laptop.post("/i18n/setlang/", {"language": "en", "next": "/"})
    _log_in(laptop, "eloise")
    assert _lang(laptop) == "en"
    phone = Client()
    _log_in(phone, "eloise")
    assert _lang(phone) == "en"


def test_a_language_chosen_before_the_first_login_becomes_the_accounts(client, django_user_model):
    from django.test import Client

    django_user_model.objects.create_user("luc", "", PASSWORD)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    _log_in(client, "luc")
    other = Client()
    _log_in(other, "luc")
    assert _lang(other) == "fr"


def test_the_reset_link_opens_in_the_language_it_was_asked_in(
    client, django_user_model, mailoutbox
):
    """A phone's mail app opens the link in a fresh browser: the page speaks the
    language the reset was asked in, and so do the next pages."""
    import re

    from django.test import Client

    django_user_model.objects.create_user("eloise", "eloise@example.be", PASSWORD)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    client.post("/accounts/password_reset/", {"email": "eloise@example.be"})
    (mail,) = mailoutbox
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+)", mail.body).group(1)
    assert link.endswith("?lang=fr")
    phone = Client()
    response = phone.get(link, follow=True)
    assert '<html lang="fr">' in response.content.decode()
    assert phone.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    assert _lang(phone) == "fr"
