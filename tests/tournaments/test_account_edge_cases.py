"""Accounts at their edges: the last organizer of a club with nobody else in it deletes
their account (a club always keeps an organizer: it goes, or stays closed for its
results), and names a browser cannot reach as a path (".", "..") are not given out."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import actions as account_actions
from tests.tournaments.conftest import finish, joined
from tournaments import actions, seasons
from tournaments.models import Club, Entry, Season, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _delete(client: Client, user):
    return client.post("/accounts/profile/delete/", {"password": f"pw-{user.get_username()}-123"})


def test_a_club_that_never_played_goes_with_its_last_organizer(make_user):
    eve = make_user("eve")
    club = actions.create_club(eve, "De Kaarters van Eva")
    season = seasons.create_season(eve, club, "2026", dt.date(2026, 1, 1), dt.date(2026, 12, 31))
    draft = actions.create_tournament(eve, name="Ooit", club=club)
    code = club.invite_code
    client = _client(eve)
    assert account_actions.blockers(eve) == []
    # The profile says so beside the form, before anything is asked.
    profile = client.get("/accounts/profile/").content.decode()
    assert "data-delete-notices" in profile and "De Kaarters van Eva" in profile

    # Told first, at the form: the account is still there.
    response = _delete(client, eve)
    page = response.content.decode()
    assert response.status_code == 200
    assert "Er zit niemand anders in je club “De Kaarters van Eva”" in page
    assert "wordt samen met je account verwijderd" in page
    assert "Geef je wachtwoord nog een keer" in page
    eve.refresh_from_db()
    assert eve.is_active and Club.objects.filter(pk=club.pk).exists()

    # The password again: done, and the club with it.
    assert _delete(client, eve)["Location"] == "/accounts/deleted/"
    eve.refresh_from_db()
    assert not eve.is_active
    assert not Club.objects.filter(pk=club.pk).exists()
    assert not Season.objects.filter(pk=season.pk).exists()
    assert not Tournament.objects.filter(pk=draft.pk).exists()
    with pytest.raises(actions.CannotJoin):
        actions.join_club(make_user("later"), code)


def test_a_club_with_results_stays_closed_when_its_last_organizer_goes(make_user):
    eve, anna, ben = make_user("eve"), make_user("anna"), make_user("ben")
    club = actions.create_club(eve, "De Laatste Slag")
    t = actions.create_tournament(eve, name="Slotavond", club=club, open_now=True)
    for entry in joined(t, anna, ben):
        finish(entry)
    actions.close_tournament(t.pk, eve)
    ranks = dict(Entry.objects.filter(tournament=t).values_list("pk", "rank"))
    assert all(ranks.values())
    draft = actions.create_tournament(eve, name="Nooit gespeeld", club=club)
    for player in (anna, ben):  # the players left; their results stay
        actions.leave_club(player, club)
    code = club.invite_code
    client = _client(eve)
    page = _delete(client, eve).content.decode()
    assert "de club blijft bestaan met de uitslagen van zijn toernooien" in page
    assert "niemand kan er nog lid van worden" in page
    eve.refresh_from_db()
    assert eve.is_active

    assert _delete(client, eve).status_code == 302

    club.refresh_from_db()
    assert not club.organizers.exists() and not club.members.exists()
    # Nobody joins a club nobody can run: the old invite link is dead.
    assert club.invite_code != code
    late = make_user("laatkomer")
    with pytest.raises(actions.CannotJoin):
        actions.join_club(late, code)
    assert _client(late).post("/clubs/join/", {"code": code})["Location"] == "/clubs/"
    assert not club.members.filter(pk=late.pk).exists()
    # The tournament and its results stay as they were; the unpublished draft is gone.
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.CLOSED
    assert dict(Entry.objects.filter(tournament=t).values_list("pk", "rank")) == ranks
    assert not Tournament.objects.filter(pk=draft.pk).exists()
    standings = _client(anna).get(f"/tournaments/{t.pk}/standings/")
    assert standings.status_code == 200 and "ben" in standings.content.decode()


def test_the_admin_path_closes_the_club_too_and_shared_clubs_are_untouched(
    club, organizer, make_user
):
    # Deleted without the form (the admin's "make anonymous"): the same rule.
    eve = make_user("eve")
    alone = actions.create_club(eve, "Alleen van Eva")
    shared = actions.create_club(eve, "Samen")
    shared.organizers.add(organizer)
    assert [c.pk for c, stays in account_actions.left_clubs(eve)] == [alone.pk]
    account_actions.delete_account(eve)
    assert not Club.objects.filter(pk=alone.pk).exists()
    shared.refresh_from_db()
    assert list(shared.organizers.all()) == [organizer]
    assert Club.objects.filter(pk=club.pk).exists()


def test_nothing_more_is_asked_when_no_club_is_left_behind(club, organizer, make_user):
    anna = make_user("anna")
    club.members.add(anna)
    assert account_actions.notices(anna) == []
    assert _delete(_client(anna), anna)["Location"] == "/accounts/deleted/"


def _seen(page: str) -> str:
    """The notices the profile's deletion form showed, as it sends them back."""
    match = re.search(r'name="notices_seen" value="([0-9a-f]*)"', page)
    assert match, "the deletion form carries what it showed"
    return match.group(1)


def test_the_profiles_form_that_showed_the_notices_needs_the_password_once(make_user):
    eve = make_user("eve")
    club = actions.create_club(eve, "Eén keer vragen")
    client = _client(eve)
    seen = _seen(client.get("/accounts/profile/").content.decode())
    # Something changed after the page was shown (a second club run alone): told again.
    other = actions.create_club(eve, "Nog een club")
    response = client.post(
        "/accounts/profile/delete/", {"password": "pw-eve-123", "notices_seen": seen}
    )
    page = response.content.decode()
    assert response.status_code == 200 and "Nog een club" in page
    eve.refresh_from_db()
    assert eve.is_active
    # The page as it stands now, sent with the password: done at once.
    seen = _seen(client.get("/accounts/profile/").content.decode())
    client = _client(eve)  # a fresh session: nothing was told in it
    response = client.post(
        "/accounts/profile/delete/", {"password": "pw-eve-123", "notices_seen": seen}
    )
    assert response["Location"] == "/accounts/deleted/"
    assert not Club.objects.filter(pk__in=[club.pk, other.pk]).exists()


@pytest.fixture
def no_signup_limit(settings):
    """Many sign-ups from one address here: the limiter has its own test (and its
    counter is shared with the rest of the run on the production stack)."""
    settings.SIGNUP_RATE_LIMIT = 0


def _sign_up(client, name: str):
    password = "een-lang-wachtwoord-9"
    return client.post(
        "/accounts/signup/", {"username": name, "password1": password, "password2": password}
    )


@pytest.mark.parametrize(
    ("name", "said"),
    [(".", "Een naam kan niet alleen uit punten bestaan")]
    + [("..", "Een naam kan niet alleen uit punten bestaan")]
    # A name of digits reads as a number beside the ranks, and a spreadsheet opening the
    # standings makes 7 of "007" and a date of "12-3".
    + [(n, "Een naam heeft minstens één letter nodig.") for n in ("007", "12-3", "1.5", "42")],
)
@pytest.mark.usefixtures("no_signup_limit")
def test_a_name_of_dots_or_digits_only_is_refused_at_sign_up(client, name, said):
    response = _sign_up(client, name)
    assert response.status_code == 200
    assert said in response.content.decode()
    assert not get_user_model().objects.filter(username=name).exists()
    assert _sign_up(client, f"jan{name}").status_code == 302  # with a letter: fine


@pytest.mark.usefixtures("no_signup_limit")
def test_a_name_with_dots_and_more_is_fine(client):
    assert _sign_up(client, ".j.").status_code == 302
    assert client.get("/players/.j./").status_code == 200
