"""Markup that assistive technology reads as meant (found by an axe-core audit): a list
given another role (an alert, a live region) loses it, and its items are no longer
read as a list's; a field's description points at an element that is there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"


def test_no_list_or_list_item_is_given_another_role():
    for template in TEMPLATES_DIR.rglob("*.html"):
        for tag in re.findall(r"<(?:ul|ol|li)\b[^>]*>", template.read_text()):
            assert "role=" not in tag, (template.name, tag)


@pytest.mark.django_db
def test_a_refused_login_is_an_alert_around_its_list():
    page = Client().post("/accounts/login/", {"username": "nobody", "password": "wrong-one"})
    html = page.content.decode()
    assert re.search(r'<div role="alert"><ul class="errorlist">\s*<li>', html), html


def _described_by_ids_are_there(html: str) -> list[str]:
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    wanted = {i for refs in re.findall(r'aria-describedby="([^"]+)"', html) for i in refs.split()}
    return sorted(wanted - ids)


@pytest.mark.django_db
def test_every_field_description_points_at_something_there(django_user_model):
    """Django's widgets point aria-describedby at "<id>_helptext" and "<id>_error": the
    page must have them, or the help (the password rules) is never read out."""
    user = django_user_model.objects.create_user("beschreven", password="klaver-manille-77")
    client = Client()
    pages = {
        "signup": client.get("/accounts/signup/"),
        "signup refused": client.post(
            "/accounts/signup/",
            {"username": "beschreven", "email": "x", "password1": "a", "password2": "b"},
        ),
    }
    client.force_login(user)
    pages["password change"] = client.get("/accounts/password_change/")
    pages["password change refused"] = client.post(
        "/accounts/password_change/",
        {"old_password": "fout", "new_password1": "a", "new_password2": "b"},
    )
    pages["profile"] = client.get("/accounts/profile/")
    for name, page in pages.items():
        html = page.content.decode()
        assert "aria-describedby" in html or name == "profile", name
        assert _described_by_ids_are_there(html) == [], name
    signup = pages["signup"].content.decode()
    assert "At most 30 characters" in signup or "Hoogstens 30 tekens" in signup
