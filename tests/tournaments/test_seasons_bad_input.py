"""A club's season made with a slip of the keyboard or of the date picker: a refused
form comes back open with what was typed and each remark at its field; days outside
2000..2100 are refused at their field, and a season stored with such days before still
reads and can be removed (tournaments/seasons.py, season_views.py)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments import actions, rankings, seasons
from tournaments.models import Season, Tournament

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


def _night(make_tournament, fake_entry, organizer, on: dt.date) -> Tournament:
    t = make_tournament(name="Clubavond", seed=f"bad-season-{on}")
    fake_entry(t, "wint", 40, {1: 40})
    fake_entry(t, "verliest", -10, {1: 20})
    actions.close_tournament(t.pk, organizer)
    rankings.recompute(t.pk)
    opened = timezone.make_aware(dt.datetime.combine(on, dt.time(19, 30)))
    Tournament.objects.filter(pk=t.pk).update(opened_at=opened, closed_at=opened)
    return t


@pytest.mark.parametrize(
    ("starts_on", "ends_on", "wrong"),
    [
        ("0001-01-01", "2026-12-31", "starts_on"),
        ("2026-09-01", "9999-12-31", "ends_on"),
        ("1999-12-31", "2026-12-31", "starts_on"),
        ("2026-09-01", "2101-01-01", "ends_on"),
    ],
)
def test_days_outside_2000_to_2100_are_refused_at_their_field(
    client, club, organizer, starts_on, ends_on, wrong
):
    client.force_login(organizer)
    create = reverse("clubs:season-create", args=[club.slug])
    response = client.post(create, {"name": "Slip", "starts_on": starts_on, "ends_on": ends_on})
    assert not Season.objects.filter(name="Slip").exists()
    assert response["Location"] == create
    page = client.get(create).content.decode()
    remark = "Kies een dag van 1/1/2000 tot 31/12/2100."
    assert remark in _field(page, wrong) and page.count(remark) == 1
    # The date picker offers those days only.
    assert 'min="2000-01-01"' in _field(page, "starts_on")
    assert 'max="2100-12-31"' in _field(page, "ends_on")
    # Whoever makes a season some other way is held to the same days.
    with pytest.raises(actions.TournamentError, match="between 2000-01-01 and 2100-12-31") as exc:
        first, last = dt.date.fromisoformat(starts_on), dt.date.fromisoformat(ends_on)
        seasons.create_season(organizer, club, "Slip", first, last)
    assert exc.value.field == wrong
    # The first and last day themselves are fine.
    made = seasons.create_season(
        organizer, club, "Eeuw", dt.date(2000, 1, 1), dt.date(2100, 12, 31)
    )
    assert client.get(reverse("clubs:season", args=[club.slug, made.pk])).status_code == 200


def test_a_season_stored_with_extreme_days_reads_and_can_be_removed(
    client, club, organizer, make_tournament, fake_entry
):
    # Made before the days were checked.
    night = _night(make_tournament, fake_entry, organizer, dt.date(2026, 10, 2))
    ever = Season.objects.create(
        club=club, name="Altijd", starts_on=dt.date(1, 1, 1), ends_on=dt.date(9999, 12, 31)
    )
    first = Season.objects.create(
        club=club, name="Begin", starts_on=dt.date(1, 1, 1), ends_on=dt.date(1, 1, 1)
    )
    last = Season.objects.create(
        club=club, name="Einde", starts_on=dt.date(9999, 12, 31), ends_on=dt.date(9999, 12, 31)
    )
    assert [t.pk for t in seasons.standings(ever)["tournaments"]] == [night.pk]
    assert seasons.standings(first)["tournaments"] == []
    assert seasons.standings(last)["tournaments"] == []
    client.force_login(organizer)
    for season in (ever, first, last):
        page = client.get(reverse("clubs:season", args=[club.slug, season.pk]))
        assert page.status_code == 200 and "data-delete-season" in page.content.decode()
        csv = client.get(reverse("clubs:season-csv", args=[club.slug, season.pk]))
        assert csv.status_code == 200
    body = client.get(reverse("clubs:season-csv", args=[club.slug, ever.pk])).content.decode()
    assert body.splitlines()[1:] == ["1;wint;1;100,0;100,0;100,0", "2;verliest;1;0,0;0,0;0,0"]
    for season in (ever, first, last):
        response = client.post(
            reverse("clubs:season-delete", args=[club.slug, season.pk]), follow=True
        )
        assert f"Seizoen “{season.name}” verwijderd." in response.content.decode()
        assert not Season.objects.filter(pk=season.pk).exists()
    assert Tournament.objects.filter(pk=night.pk).exists()  # only the season went


def test_a_season_page_that_cannot_be_read_still_offers_its_removal(
    client, club, organizer, monkeypatch
):
    season = seasons.create_season(
        organizer, club, "Kapot", dt.date(2026, 9, 1), dt.date(2026, 12, 31)
    )

    def overflow(season):
        raise OverflowError("date value out of range")

    monkeypatch.setattr(seasons, "standings", overflow)
    client.force_login(organizer)
    page = client.get(reverse("clubs:season", args=[club.slug, season.pk])).content.decode()
    assert "data-season-unreadable" in page and "data-delete-season" in page


def test_a_second_season_of_the_same_name_is_refused_at_its_field(client, club, organizer):
    """Two seasons of one name read alike in the club's list and the page titles."""
    client.force_login(organizer)
    create = reverse("clubs:season-create", args=[club.slug])
    typed = {"name": "Seizoen 2026-2027", "starts_on": "2026-09-01", "ends_on": "2027-06-30"}
    client.post(create, typed)
    response = client.post(create, {**typed, "name": "seizoen 2026-2027 "})
    assert Season.objects.count() == 1
    page = client.get(response["Location"]).content.decode()
    assert "De club heeft al een seizoen met de naam seizoen 2026-2027" in _field(page, "name")
