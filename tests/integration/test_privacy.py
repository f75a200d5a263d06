"""The privacy page (/privacy/): what the site keeps and who sees it, who runs it
(PRIVACY_CONTACT), linked from every page's footer and from the sign-up form."""

from __future__ import annotations

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db


def test_every_page_and_the_sign_up_form_link_the_privacy_page(client):
    for path in ("/", "/accounts/signup/", "/accounts/login/"):
        assert 'href="/privacy/"' in client.get(path).content.decode(), path
    page = client.get("/accounts/signup/").content.decode()
    assert "Wat de site over je bewaart" in page


def test_it_says_what_is_kept_and_who_runs_the_site(client, settings):
    settings.PRIVACY_CONTACT = ""
    page = client.get("/privacy/").content.decode()
    assert "nog niet ingevuld" in page and "data-privacy-contact" not in page
    for text in ("hoogstens 180 minuten bewaard", "Geen tracking", "onder een anonieme naam"):
        assert text in page
    assert "hoogstens 60 minuten lang" in page  # the longest window the settings give
    settings.PRIVACY_CONTACT = "Manilleclub De Troef, secretariaat@detroef.be"
    settings.LOGIN_RATE_WINDOW = 2 * 60 * 60 + 1
    page = client.get("/privacy/").content.decode()
    assert "Manilleclub De Troef, secretariaat@detroef.be" in page
    assert "hoogstens 121 minuten lang" in page


@pytest.mark.parametrize(("code", "title"), [("en", "What the site keeps"),
                                             ("fr", "Ce que le site conserve")])  # fmt: skip
def test_it_reads_in_english_and_french(client, code, title):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    assert title in client.get("/privacy/").content.decode()


def test_the_contact_comes_from_the_environment(monkeypatch):
    import runpy

    from tests.helpers import ROOT

    monkeypatch.setenv("PRIVACY_CONTACT", " De Troef <bestuur@detroef.be> ")
    values = runpy.run_path(str(ROOT / "config" / "settings.py"))
    assert values["PRIVACY_CONTACT"] == "De Troef <bestuur@detroef.be>"
