"""A club's season made with a slip of the keyboard: a refused form comes back open
with what was typed and each remark at its field; a season removed says so
(tournaments/season_views.py)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse

from tournaments.models import Season

pytestmark = pytest.mark.usefixtures("live_game_db")


def _field(page: str, name: str) -> str:
    """The block of the form's field `name` (tournaments/_field.html)."""
    found = re.search(rf'<div class="t-field[^"]*">\s*<label for="id_{name}">.*?</div>', page, re.S)
    assert found, f"no field {name}"
    return found.group(0)


@pytest.mark.parametrize(
    ("typed", "wrong", "remark"),
    [
        ({"name": "Lente 2027", "starts_on": "2027-03-01", "ends_on": "2027-02-01"}, "ends_on",
         "Een seizoen eindigt op of na de dag waarop het begint"),
        ({"name": "Lente\t2027", "starts_on": "2027-03-01", "ends_on": "2027-06-30"}, "name",
         "Gebruik één regel tekst"),
        ({"name": "   ", "starts_on": "2027-03-01", "ends_on": "2027-06-30"}, "name",
         "Een seizoen heeft een naam nodig"),
        ({"name": "Lente 2027", "starts_on": "", "ends_on": "2027-06-30"}, "starts_on",
         "Een seizoen heeft een eerste en een laatste dag nodig"),
    ],
)  # fmt: skip
def test_a_refused_season_form_comes_back_open_with_what_was_typed(
    client, club, organizer, typed, wrong, remark
):
    client.force_login(organizer)
    create = reverse("clubs:season-create", args=[club.slug])
    response = client.post(create, typed)
    assert not Season.objects.exists()
    page = client.get(response["Location"]).content.decode()
    assert "data-season-form" in page and "data-form-errors" in page
    block = _field(page, wrong)
    assert remark in block and "has-errors" in block
    assert "Dit veld is verplicht" not in page  # every remark says what it is about
    for name, value in typed.items():
        if value.strip():
            assert f'value="{value}"' in _field(page, name)
    # Sent again, set right: made.
    fixed = {"name": "Lente 2027", "starts_on": "2027-03-01", "ends_on": "2027-06-30"}
    made = client.post(create, fixed)
    season = Season.objects.get(name="Lente 2027")
    assert made["Location"] == reverse("clubs:season", args=[club.slug, season.pk])
    # The form page by itself is empty.
    again = client.get(create).content.decode()
    assert "data-form-errors" not in again and "Lente" not in again


def test_only_organizers_reach_the_season_form(client, club, organizer, make_user):
    create = reverse("clubs:season-create", args=[club.slug])
    member = make_user("lid")
    club.members.add(member)
    client.force_login(member)
    for response in (client.get(create), client.post(create, {"name": "X"})):
        assert response["Location"] == reverse("clubs:detail", args=[club.slug])
    client.force_login(make_user("buiten"))
    assert client.get(create).status_code == 404


def test_removing_a_season_says_so(client, club, organizer):
    season = Season.objects.create(
        club=club, name="Weg", starts_on=dt.date(2026, 1, 1), ends_on=dt.date(2026, 6, 30)
    )
    client.force_login(organizer)
    response = client.post(reverse("clubs:season-delete", args=[club.slug, season.pk]), follow=True)
    assert "Seizoen “Weg” verwijderd." in response.content.decode()
    assert not Season.objects.filter(pk=season.pk).exists()
