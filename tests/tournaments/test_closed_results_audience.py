"""Issue 10 item 11: a private club's tournament no longer becomes public when it
closes. The organizer chooses who sees it after close: the club's members (with its
organizers and whoever entered) — the default — or everyone; the pages, the player
pages and the public API obey it."""

from __future__ import annotations

import json

import pytest

from tests.tournaments.conftest import finish, joined
from tournaments import actions
from tournaments.models import Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")
RESULT_PAGES = ["", "standings/", "deal/1/", "export/standings.csv", "export/records.txt"]


@pytest.fixture
def closed_night(make_tournament, make_user, organizer):
    """A closed club tournament (default audience): member anna and invited outsider
    ben (entered with the code) finished."""

    def make(**kwargs):
        t = make_tournament(name="Onder ons", seed="audience-seed", invite_code="k0de", **kwargs)
        anna, ben = make_user("anna"), make_user("ben")
        (e_anna,) = joined(t, anna)
        e_ben = actions.join(t.pk, ben, "k0de")
        finish(e_anna), finish(e_ben)
        actions.close_tournament(t.pk, organizer)
        t.refresh_from_db()
        return t, anna, ben

    return make


def test_a_club_tournament_defaults_to_members_only(make_tournament, club, organizer, client):
    assert make_tournament().results_audience == Tournament.Audience.MEMBERS
    # Without a club a tournament is public: stored as such.
    staff_made = actions.create_tournament(None, name="Open avond")
    assert staff_made.results_audience == Tournament.Audience.EVERYONE
    client.force_login(organizer)
    html = client.get(f"/tournaments/new/?club={club.slug}").content.decode()
    assert '<option value="members" selected>' in html and '<option value="everyone">' in html


def test_organizer_chooses_everyone_on_the_form(client, club, organizer):
    client.force_login(organizer)
    response = client.post(
        "/tournaments/new/",
        {
            "name": "Open clubavond", "club": club.pk, "rules": "flemish",
            "bot_level": "heuristic", "capacity": 4, "results_visibility": "after_finish",
            "results_audience": "everyone", "unfinished_rule": "bot",
        },
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Tournament.objects.get(name="Open clubavond").results_audience == "everyone"


@pytest.mark.parametrize("page", RESULT_PAGES)
def test_members_only_stays_with_the_club_after_close(closed_night, make_user, client, page):
    t, anna, ben = closed_night()
    url = f"/tournaments/{t.pk}/{page}"
    assert client.get(url).status_code == 404  # logged out
    client.force_login(make_user("stranger"))
    assert client.get(url).status_code == 404
    for insider in (anna, ben):  # a member; an outsider who played it
        client.force_login(insider)
        assert client.get(url).status_code == 200


def test_members_only_is_not_in_the_api(closed_night, client):
    t, *_ = closed_night()
    listed = json.loads(client.get("/api/v1/tournaments/?status=closed").content)
    assert t.pk not in [x["id"] for x in listed["tournaments"]]
    for path in ("", "standings/", "travellers/", "travellers/1/"):
        assert client.get(f"/api/v1/tournaments/{t.pk}/{path}").status_code == 404


def test_members_only_is_not_on_the_players_public_page(closed_night, make_user, client):
    t, anna, ben = closed_night()
    link = f'href="/tournaments/{t.pk}/"'
    assert link not in client.get("/players/anna/").content.decode()  # logged out
    client.force_login(make_user("stranger"))
    body = client.get("/players/anna/").content.decode()
    assert link not in body and "Onder ons" not in body
    client.force_login(ben)  # played it: sees it on anna's page
    assert link in client.get("/players/anna/").content.decode()


def test_everyone_publishes_pages_and_api_at_close(closed_night, client):
    t, *_ = closed_night(results_audience="everyone")
    for page in RESULT_PAGES:
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 200
    listed = json.loads(client.get("/api/v1/tournaments/?status=closed").content)
    (row,) = [x for x in listed["tournaments"] if x["id"] == t.pk]
    assert row["results_public"] is True and row["results_audience"] == "everyone"
    standings = json.loads(client.get(f"/api/v1/tournaments/{t.pk}/standings/").content)
    assert {r["player"] for r in standings["standings"]} == {"anna", "ben"}
    assert "Onder ons" in client.get("/players/anna/").content.decode()
    # ... and the tournament list names it for everyone (logged out too).
    assert f'href="/tournaments/{t.pk}/"' in client.get("/tournaments/").content.decode()


def test_members_only_is_not_on_the_list_for_outsiders(closed_night, make_user, client):
    t, anna, _ben = closed_night()
    link = f'href="/tournaments/{t.pk}/"'
    assert link not in client.get("/tournaments/").content.decode()
    client.force_login(make_user("stranger"))
    assert link not in client.get("/tournaments/").content.decode()
    client.force_login(anna)
    assert link in client.get("/tournaments/").content.decode()


def test_an_organizer_who_left_the_club_no_longer_sees_its_results(
    closed_night, make_user, club, organizer, client
):
    """Who made a members-only tournament and then left the club is an outsider to it:
    not on its pages, nor on a player's page (both follow the club's organizers today)."""
    t, anna, ben = closed_night()
    assert t.created_by == organizer
    club.organizers.remove(organizer)
    club.members.remove(organizer)
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.pk}/").status_code == 404
    body = client.get("/players/anna/").content.decode()
    assert f'href="/tournaments/{t.pk}/"' not in body and "Onder ons" not in body


def test_the_visibility_filter_keeps_one_row_per_tournament(
    make_tournament, fake_entry, make_user, club, organizer, client
):
    """Who may see a closed club tournament is asked by subqueries: as joins, its
    members, organizers and entries multiplied into one row each per tournament (a
    hundred thousand rows for a club's few tournaments, slowing the lists and ratings)
    before DISTINCT got them back to one."""
    from django.db.models import Q

    t = make_tournament(name="Veel volk")
    members = [make_user(f"lid{k}") for k in range(4)]
    club.members.add(*members)
    club.organizers.add(members[0])
    for k in range(3):
        entry = fake_entry(t, f"speler{k}", 10 - k, {1: 35})
        club.members.add(entry.player)
    actions.close_tournament(t.pk, organizer)
    viewer = members[1]
    visible = Tournament.objects.filter(actions.visible_closed_q(viewer))
    assert visible.count() == 1  # not members × organizers × entries rows
    own = Tournament.objects.filter(actions.own_tournaments_q(viewer) | Q(club__isnull=True))
    assert own.count() == 1
    client.force_login(viewer)
    page = client.get("/tournaments/").content.decode()
    assert page.count(f'href="/tournaments/{t.pk}/"') == 1
    # Nobody outside the club sees it.
    outsider = make_user("buiten")
    assert not Tournament.objects.filter(actions.visible_closed_q(outsider)).exists()
