"""Clubs (invite codes, organizers) and every tournament page rendering."""

from __future__ import annotations

import pytest

from tests.tournaments.conftest import finish, joined
from tournaments import actions
from tournaments.models import Club

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_club_invite_code_makes_a_member(client, make_user, club, organizer):
    anna = make_user("anna")
    client.force_login(anna)
    assert client.get(f"/clubs/{club.slug}/").status_code == 404
    response = client.post("/clubs/join/", {"code": club.invite_code})
    assert response.status_code == 302 and club.is_member(anna)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert club.invite_code not in page  # only organizers see the invite link
    client.force_login(organizer)
    assert club.invite_code in client.get(f"/clubs/{club.slug}/").content.decode()


def test_a_new_invite_code_retires_the_old_one(client, club, organizer, make_user):
    old = club.invite_code
    client.force_login(organizer)
    client.post(f"/clubs/{club.slug}/", {"new_invite": "1"})
    club.refresh_from_db()
    assert club.invite_code != old
    with pytest.raises(actions.CannotJoin):
        actions.join_club(make_user("anna"), old)


def test_creating_a_club_makes_you_its_organizer(client, make_user):
    anna = make_user("anna")
    client.force_login(anna)
    response = client.post("/clubs/new/", {"name": "Café De Kroon"})
    club = Club.objects.get(name="Café De Kroon")
    assert response["Location"] == f"/clubs/{club.slug}/"
    assert club.is_organizer(anna) and club.is_member(anna)
    assert client.get("/clubs/").status_code == 200


def test_every_page_renders_for_a_finished_player_and_after_close(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(seed="all-pages")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    finish(entry)
    client.force_login(anna)
    pages = ["", "standings/", "deal/1/", "compare/", "compare/1/", "verify/", "results/"]
    for page in pages:
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 200, page
    assert client.get("/tournaments/").status_code == 200
    actions.close_tournament(t.pk, organizer)
    client.force_login(organizer)
    for page in [*pages[:3], "verify/", "results/", "manage/", "manage/deals/"]:
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 200, page
    assert client.get(f"/tournaments/{t.pk}/standings/?format=json").json()["rows"][0]["rank"] == 1


def test_only_organizers_see_the_member_names(client, make_user, club, organizer):
    anna, ben = make_user("anna"), make_user("ben")
    club.members.add(anna, ben)
    client.force_login(ben)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert "anna" not in page
    client.force_login(organizer)
    assert "anna" in client.get(f"/clubs/{club.slug}/").content.decode()
