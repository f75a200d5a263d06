"""A form refused for its CSRF token (a page left open too long) gets the site's own
page, in the visitor's language, with the way back."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_a_refused_form_gets_the_sites_page_with_the_way_back():
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/accounts/login/",
        {"username": "x", "password": "y"},
        HTTP_REFERER="http://testserver/accounts/login/?next=/tournaments/",
    )
    assert response.status_code == 403
    body = response.content.decode()
    assert 'data-error-page="403-csrf"' in body and 'class="site-header"' in body
    assert "Deze pagina was verlopen" in body
    assert 'href="http://testserver/accounts/login/?next=/tournaments/" data-back' in body
    # Another site's address is no way back.
    other = client.post("/accounts/login/", {}, HTTP_REFERER="https://evil.example/")
    assert other.status_code == 403 and "data-back" not in other.content.decode()
