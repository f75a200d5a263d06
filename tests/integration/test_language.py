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
