"""The error pages a misconfigured deployment shows: a form refused for its Origin (a
wrong CSRF_TRUSTED_ORIGINS) says it is the server's setting, not "reload and send
again"; a Host not in ALLOWED_HOSTS (400) and a server error (500) get the site's page,
rendered without a database or a request context."""

from __future__ import annotations

import pytest
from django.template import loader
from django.test import Client, override_settings
from django.urls import path
from django.utils import translation


def _boom(request):
    raise RuntimeError("boom")


urlpatterns = [path("boom/", _boom)]


@pytest.mark.django_db
@override_settings(CSRF_TRUSTED_ORIGINS=[])
def test_an_origin_mismatch_says_it_is_a_server_setting():
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")  # a CSRF cookie and a real token
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/",
        {"username": "x", "password": "y", "csrfmiddlewaretoken": token},
        HTTP_ORIGIN="https://proxy-name.example.org",
    )
    assert response.status_code == 403
    body = response.content.decode()
    assert 'data-error-page="403-csrf-origin"' in body and 'class="site-header"' in body
    assert "CSRF_TRUSTED_ORIGINS" in body
    assert 'data-error-page="403-csrf"' not in body  # not "this page had expired"


@pytest.mark.django_db
def test_a_missing_token_still_gets_the_expired_page():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    body = response.content.decode()
    assert 'data-error-page="403-csrf"' in body and "CSRF_TRUSTED_ORIGINS" not in body


@override_settings(DEBUG=False, ALLOWED_HOSTS=["manillen.example.org"])
def test_a_host_not_allowed_gets_the_sites_400_page():
    response = Client(HTTP_HOST="127.0.0.1").get("/healthz")
    assert response.status_code == 400
    body = response.content.decode()
    assert 'data-error-page="400"' in body and "Manillen" in body
    assert "ALLOWED_HOSTS" in body


@override_settings(DEBUG=False, ROOT_URLCONF=__name__)
def test_a_server_error_gets_the_sites_500_page():
    response = Client(raise_request_exception=False).get("/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    assert 'data-error-page="500"' in body and "boom" not in body


@pytest.mark.parametrize("name", ["400.html", "500.html"])
@pytest.mark.parametrize("language", ["nl", "en", "fr"])
def test_the_pages_render_with_no_context_and_no_database(name, language):
    """As Django's bad_request and server_error views render them: no request, no
    context processors; the database is blocked here (no django_db mark)."""
    with translation.override(language):
        html = loader.get_template(name).render()
    assert f'lang="{language}"' in html and "Manillen" in html
    titles = {
        "400.html": {"nl": "niet begrepen", "en": "not understood", "fr": "pas été comprise"},
        "500.html": {"nl": "ging iets mis", "en": "went wrong", "fr": "erreur s'est"},
    }
    assert titles[name][language] in html
