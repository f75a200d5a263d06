"""Every page carries a Content-Security-Policy that lets only the site's own script
files run: markup that slipped past escaping (a name, a chat line) cannot execute. The
browser tests fail on any refusal it causes (tests/browser/conftest.py), so what the
pages need is allowed; here, that it is strict where it matters."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

TEMPLATES_DIR = __import__("pathlib").Path(__file__).resolve().parents[2] / "templates"


def _policy(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


@pytest.mark.parametrize("path", ["/", "/tables/", "/tournaments/", "/accounts/login/", "/nope/"])
def test_pages_allow_only_the_sites_own_scripts(path):
    response = Client().get(path)
    policy = _policy(response)
    assert policy["script-src"] == "'self'"  # no inline script, no eval
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert policy["form-action"] == "'self'" and policy["base-uri"] == "'self'"
    # The table's socket goes to this host (named for browsers older than CSP 3).
    assert policy["connect-src"] == "'self' wss://testserver ws://testserver"


def test_a_host_not_allowed_still_gets_a_policy():
    response = Client(raise_request_exception=False).get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert _policy(response)["connect-src"] == "'self'"


def test_no_template_has_an_inline_script_or_handler():
    """What the policy would refuse: inline event handlers and inline scripts (data
    blocks of json_script are not run, and are allowed)."""
    for template in TEMPLATES_DIR.rglob("*.html"):
        text = template.read_text()
        assert not re.search(r"\son[a-z]+\s*=", text), template
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, (template, tag)


@pytest.mark.parametrize(
    "path, data",
    [
        ("/players/a%00b/", None),
        ("/tournaments/ratings/?club=%00", None),
        ("/tournaments/ratings/?club=x&format=csv&sep=%00", None),
    ],
)
def test_a_nul_byte_in_the_address_is_a_bad_request(path, data):
    """PostgreSQL refuses NUL in a text lookup: before, the lookups above were a 500."""
    response = Client().get(path)
    assert response.status_code == 400
    assert 'data-error-page="400"' in response.content.decode()


def test_a_nul_byte_in_a_form_is_a_bad_request(django_user_model):
    user = django_user_model.objects.create_user("nul", password="x-very-long-pass")
    client = Client()
    client.force_login(user)
    response = client.post("/clubs/join/", {"code": "ab\x00c"})
    assert response.status_code == 400
    # A form without NUL goes through as before (an unknown code is the form's answer).
    assert client.post("/clubs/join/", {"code": "abc"}).status_code in (200, 302)


def test_djangos_debug_error_page_keeps_its_scripts(settings, rf):
    """DEBUG's technical 500 page (for developers only) runs inline scripts: no policy
    on it; the site's own 500 page has one."""
    from django.http import HttpResponseServerError

    from config.middleware import ContentSecurityPolicyMiddleware

    middleware = ContentSecurityPolicyMiddleware(lambda r: HttpResponseServerError("boom"))
    settings.DEBUG = True
    assert "Content-Security-Policy" not in middleware(rf.get("/"))
    settings.DEBUG = False
    assert "Content-Security-Policy" in middleware(rf.get("/"))


def test_favicon_ico_is_the_sites_icon():
    """Pages that name no icon (the admin's) make browsers ask /favicon.ico: not a 404."""
    response = Client().get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert "\u2660" in response.content.decode()
