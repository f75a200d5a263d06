"""The public read API (/api/v1/, docs/api.md): closed tournaments' results, nothing more."""

from __future__ import annotations

import json

import pytest

from tests.helpers import card_tokens
from tests.tournaments.conftest import finish, joined
from tournaments import actions, exports, rankings
from tournaments.models import TournamentDeal

pytestmark = pytest.mark.usefixtures("live_game_db")

API = "/api/v1"


def get(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content)


def roundtrip(value):
    """What the app computed, as it reads after a trip through JSON."""
    return json.loads(json.dumps(value))


@pytest.fixture
def closed(make_tournament, fake_entry, organizer):
    """A closed club tournament whose organizer made its results public: three finished
    entries, one corrected score."""
    t = make_tournament(name="Slotavond", seed="api-closed-seed", results_audience="everyone")
    fake_entry(t, "alice", 40, {1: 40, 2: 35, 3: 31})
    bert = fake_entry(t, "bert", -10, {1: 20, 2: 35})
    fake_entry(t, "carla", 12, {1: 33, 2: 10, 3: 50})
    actions.correct_score(bert.pk, organizer, -5, "rekenfout")
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    return t


@pytest.fixture
def running(make_user):
    """A public tournament (no club) still running: anna finished, ben is playing."""
    t = actions.create_tournament(None, name="Open avond", seed="api-open-seed", open_now=True)
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, _ = joined(t, anna, ben)
    finish(e_anna)
    t.refresh_from_db()
    return t


# --- results of a closed tournament -------------------------------------------------------


def test_standings_of_a_closed_tournament_are_the_apps_standings(closed, client):
    data = get(client, f"{API}/tournaments/{closed.pk}/standings/")
    assert data["api_version"] == "1"
    assert data["standings"] == roundtrip(rankings.standings(closed))
    assert [(r["rank"], r["player"], r["score"]) for r in data["standings"]] == [
        (1, "alice", 40), (2, "carla", 12), (3, "bert", -5),
    ]  # fmt: skip
    assert data["corrections"] == roundtrip(exports.corrections(closed))
    assert data["corrections"][0]["reason"] == "rekenfout"
    assert data["tournament"]["seed"] == "api-closed-seed"
    assert data["tournament"]["seed_commitment"] == closed.seed_commitment
    assert data["rankings_version"] == closed.rankings_version
    assert data["page"] == {"count": 3, "limit": 100, "offset": 0, "next": None, "previous": None}


def test_standings_match_the_json_export(closed, client):
    data = get(client, f"{API}/tournaments/{closed.pk}/standings/")
    export = json.loads(exports.standings_json(closed))
    assert data["standings"] == export["standings"]
    assert data["corrections"] == export["corrections"]
    assert {k: data["tournament"][k] for k in export["tournament"]} == export["tournament"]


def test_travellers_index_lists_every_played_deal(closed, client):
    data = get(client, f"{API}/tournaments/{closed.pk}/travellers/")
    assert [(d["deal"], d["played_by"]) for d in data["deals"]] == [(1, 3), (2, 3), (3, 2)]
    assert [d["deal"] for d in data["deals"]] == rankings.played_deal_numbers(closed)
    assert data["deals"][2]["url"].endswith(f"{API}/tournaments/{closed.pk}/travellers/3/")


@pytest.mark.parametrize("number", [1, 2, 3])
def test_each_traveller_is_the_apps_traveller(closed, client, number):
    data = get(client, f"{API}/tournaments/{closed.pk}/travellers/{number}/")
    assert data["results"] == roundtrip(rankings.traveller(closed, number))
    deal = TournamentDeal.objects.get(tournament=closed, number=number)
    assert data["deal"]["number"] == number and data["deal"]["dealer"] == deal.dealer
    assert data["deal"]["hands"] == deal.hands
    assert data["deal"]["par"] == roundtrip(deal.par) and deal.par is not None
    assert data["field"] == 3


def test_travellers_agree_with_the_json_export(closed, client):
    export = json.loads(exports.travellers_json(closed))["travellers"]
    api = [
        {"deal": d["deal"], "results": get(client, d["url"])["results"]}
        for d in get(client, f"{API}/tournaments/{closed.pk}/travellers/")["deals"]
    ]
    assert api == export


def test_a_deal_nobody_played_has_an_empty_traveller_and_an_unknown_one_is_404(closed, client):
    data = get(client, f"{API}/tournaments/{closed.pk}/travellers/10/")
    assert data["results"] == [] and data["page"]["count"] == 0
    error = get(client, f"{API}/tournaments/{closed.pk}/travellers/999/", status=404)
    assert error["error"]["code"] == "not_found"


def test_detail_of_a_closed_tournament_reveals_the_seed_and_its_deals(closed, client):
    t = get(client, f"{API}/tournaments/{closed.pk}/")["tournament"]
    assert t["id"] == closed.pk and t["name"] == "Slotavond" and t["status"] == "closed"
    assert t["kind"] == "club" and t["club"] == "De Zwarte Manille"
    assert t["seed"] == "api-closed-seed" and t["results_public"] is True
    assert t["entries"] == 3 and t["finished"] == 3 and t["deal_numbers"] == [1, 2, 3]
    assert t["links"]["standings"].endswith(f"{API}/tournaments/{closed.pk}/standings/")
    assert "invite_code" not in t and "created_by" not in t


# --- nothing leaks before close -------------------------------------------------------------

RESULTS = ["standings/", "travellers/", "travellers/1/"]


@pytest.mark.parametrize("page", RESULTS)
def test_results_of_a_running_tournament_are_refused(running, client, page):
    error = get(client, f"{API}/tournaments/{running.pk}/{page}", status=403)
    assert error["error"]["code"] == "results_not_public"
    assert error["error"]["status"] == 403 and "closes" in error["error"]["message"]


@pytest.mark.parametrize("page", RESULTS)
def test_finished_players_and_organizers_get_no_more_from_the_api(running, client, page, make_user):
    """The API ignores the session: a finished player (who may see the results on the
    site) and staff get the same refusal, and nobody is marked as having looked."""
    client.force_login(running.entries.get(player__username="anna").player)
    assert get(client, f"{API}/tournaments/{running.pk}/{page}", status=403)
    staff = make_user("boss", is_staff=True)
    client.force_login(staff)
    assert get(client, f"{API}/tournaments/{running.pk}/{page}", status=403)
    assert not running.deals_seen_by.filter(pk=staff.pk).exists()


def test_a_running_tournament_shows_its_commitment_but_not_seed_nor_play(running, client):
    response = client.get(f"{API}/tournaments/{running.pk}/")
    body = response.content.decode()
    t = json.loads(body)["tournament"]
    assert t["status"] == "running" and t["seed"] is None and t["results_public"] is False
    assert t["seed_commitment"] == running.seed_commitment and t["entries"] == 2
    assert t["links"]["standings"] is None and t["links"]["travellers"] is None
    assert "deal_numbers" not in t and "finished" not in t
    assert "api-open-seed" not in body and "anna" not in body and "ben" not in body
    assert card_tokens(json.loads(body)) == set()
    listing = client.get(f"{API}/tournaments/").content.decode()
    assert "api-open-seed" not in listing and "anna" not in listing
    assert card_tokens(json.loads(listing)) == set()


def test_closing_publishes_the_results(running, client):
    assert client.get(f"{API}/tournaments/{running.pk}/standings/").status_code == 403
    actions.close_tournament(running.pk, None)
    running.refresh_from_db()
    data = get(client, f"{API}/tournaments/{running.pk}/standings/")
    assert [r["player"] for r in data["standings"]] == [
        r["player"] for r in rankings.standings(running)
    ]
    # ben never played a card: no result, so not in the standings ("niet gespeeld").
    assert {r["player"] for r in data["standings"]} == {"anna"}
    assert data["tournament"]["seed"] == "api-open-seed"


# --- what is listed, what is 404 ------------------------------------------------------------


def test_the_list_has_public_and_day_tournaments_and_closed_club_ones(
    closed, running, make_tournament, client
):
    day = actions.day_tournament()
    club_running = make_tournament(name="Clubavond bezig")
    members_only = make_tournament(name="Onder ons")  # the default for a club
    actions.close_tournament(members_only.pk, None)
    draft = actions.create_tournament(None, name="Nog een ontwerp")
    data = get(client, f"{API}/tournaments/")
    ids = [t["id"] for t in data["tournaments"]]
    assert set(ids) == {closed.pk, running.pk, day.pk}
    assert club_running.pk not in ids and draft.pk not in ids and members_only.pk not in ids
    kinds = {t["id"]: t["kind"] for t in data["tournaments"]}
    assert kinds == {closed.pk: "club", running.pk: "public", day.pk: "day"}
    assert get(client, f"{API}/tournaments/{day.pk}/")["tournament"]["day"] == str(day.day)
    for hidden in (club_running, draft, members_only):
        error = get(client, f"{API}/tournaments/{hidden.pk}/", status=404)
        assert error["error"]["code"] == "not_found"
        assert get(client, f"{API}/tournaments/{hidden.pk}/standings/", status=404)


def test_every_listed_tournament_is_one_an_anonymous_visitor_may_open(
    closed, running, make_tournament, client
):
    from django.contrib.auth.models import AnonymousUser

    from tournaments.models import Tournament

    make_tournament(name="Clubavond bezig")
    actions.close_tournament(make_tournament(name="Onder ons").pk, None)
    actions.day_tournament()
    listed = {t["id"] for t in get(client, f"{API}/tournaments/?limit=100")["tournaments"]}
    viewable = {
        t.pk for t in Tournament.objects.all() if actions.can_view_tournament(AnonymousUser(), t)
    }
    assert listed == viewable


def test_filters_by_status_and_kind(closed, running, client):
    actions.day_tournament()
    assert [t["id"] for t in get(client, f"{API}/tournaments/?status=closed")["tournaments"]] == [
        closed.pk
    ]
    assert [t["id"] for t in get(client, f"{API}/tournaments/?kind=public")["tournaments"]] == [
        running.pk
    ]
    for bad in ("status=draft", "kind=secret"):
        assert get(client, f"{API}/tournaments/?{bad}", status=400)["error"]["code"] == (
            "bad_parameter"
        )


@pytest.mark.parametrize(
    "url",
    [
        "/tournaments/999999/",
        "/tournaments/999999/standings/",
        "/tournaments/abc/",
        "/tournaments/1/travellers/x/",
        "/nothing-here/",
    ],
)
def test_unknown_ids_and_paths_are_json_404s(client, url):
    error = get(client, API + url, status=404)
    assert error["error"]["code"] == "not_found" and error["error"]["status"] == 404


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_writing_is_refused_with_405(closed, method):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    for url in ("/tournaments/", f"/tournaments/{closed.pk}/standings/"):
        response = getattr(client, method)(API + url, data="{}", content_type="application/json")
        assert response.status_code == 405
        assert response["Allow"] == "GET, HEAD"
        assert json.loads(response.content)["error"]["code"] == "method_not_allowed"


def test_head_and_cors(closed, client):
    response = client.head(f"{API}/tournaments/{closed.pk}/standings/")
    assert response.status_code == 200
    response = client.get(f"{API}/tournaments/")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Set-Cookie" not in response  # no session is started


def test_index_names_the_endpoints(client):
    data = get(client, f"{API}/")
    assert data["api_version"] == "1"
    assert data["endpoints"]["standings"].endswith(f"{API}/tournaments/{{id}}/standings/")


# --- pagination -----------------------------------------------------------------------------


@pytest.fixture
def many_public():
    return [actions.create_tournament(None, name=f"Toernooi {i}", open_now=True) for i in range(7)]


def test_pages_walk_the_whole_list_once_in_a_stable_order(many_public, client):
    seen, url = [], f"{API}/tournaments/?limit=3"
    pages = 0
    while url:
        data = get(client, url)
        assert len(data["tournaments"]) <= 3 and data["page"]["count"] == 7
        seen += [t["id"] for t in data["tournaments"]]
        url = data["page"]["next"]
        pages += 1
    assert pages == 3
    assert seen == [t.pk for t in reversed(many_public)]  # newest first
    last = get(client, f"{API}/tournaments/?limit=3&offset=6")
    assert last["page"]["previous"].endswith("limit=3&offset=3")
    assert last["page"]["next"] is None


def test_page_size_is_bounded_and_bad_values_are_400(many_public, client):
    assert get(client, f"{API}/tournaments/?limit=5000")["page"]["limit"] == 100
    assert get(client, f"{API}/tournaments/")["page"]["limit"] == 20
    beyond = get(client, f"{API}/tournaments/?offset=500")
    assert beyond["tournaments"] == [] and beyond["page"]["count"] == 7
    assert beyond["page"]["previous"] is not None
    for bad in ("limit=0", "limit=-3", "limit=ten", "offset=-1", "offset=1.5", "limit=%201",
                "limit=%2B5", "offset=1_000"):  # fmt: skip
        error = get(client, f"{API}/tournaments/?{bad}", status=400)
        assert error["error"]["code"] == "bad_parameter"
    # An offset past what a database takes is the same empty page, not an error.
    for huge in ("9223372036854775808", "9" * 60):
        far = get(client, f"{API}/tournaments/?offset={huge}")
        assert far["tournaments"] == [] and far["page"]["count"] == 7


def test_an_endpoint_without_its_slash_and_another_version(client):
    response = client.get(f"{API}/tournaments?status=closed")
    assert response.status_code == 301
    assert response["Location"] == f"{API}/tournaments/?status=closed"
    for url in ("/api/v2/", "/api/v2/tournaments/", "/api/"):
        error = get(client, url, status=404)
        assert error["error"]["code"] == "not_found"


def test_standings_and_traveller_rows_page_too(closed, client):
    url = f"{API}/tournaments/{closed.pk}/standings/?limit=2"
    first = get(client, url)
    second = get(client, first["page"]["next"])
    assert first["standings"] + second["standings"] == roundtrip(rankings.standings(closed))
    assert second["page"]["next"] is None
    assert (
        get(client, f"{API}/tournaments/{closed.pk}/standings/?limit=99999")["page"]["limit"]
        == 1000
    )
    rows = get(client, f"{API}/tournaments/{closed.pk}/travellers/1/?limit=1&offset=2")
    assert rows["results"] == roundtrip(rankings.traveller(closed, 1))[2:3]


def test_removed_entries_are_not_counted(running, client, make_user):
    boss = make_user("boss", is_staff=True)
    ben = running.entries.get(player__username="ben")
    actions.remove_entry(ben.pk, boss, "speelde met twee accounts")
    listed = {t["id"]: t for t in get(client, f"{API}/tournaments/")["tournaments"]}
    assert listed[running.pk]["entries"] == 1
    assert get(client, f"{API}/tournaments/{running.pk}/")["tournament"]["entries"] == 1


def test_a_tournament_of_tables_has_its_own_rules_and_standings(client):
    """Tables play the structure's rules (not the solo fields); the standings are the
    tables' (score summed over sets, duplicate figures, sets); travellers are per set,
    in the JSON export, so the solo travellers endpoints say where to look."""
    from tests.tournaments.test_rounds import create, exported, run

    t = create(
        "--format", "rotating", "--players", "6", "--rounds", "1", "--sets", "3",
        "--deals", "2", "--duplicate", "--tie", "own", "--open", "--seed", "api-tables",
    )  # fmt: skip
    run("simulate_tournament", str(t.pk))
    t.refresh_from_db()
    assert t.is_closed
    info = get(client, f"{API}/tournaments/{t.pk}/")["tournament"]
    assert info["game_rules"] == "flemish deals=2 tie=own" and info["deals"] == 2
    assert info["tie_carry"] is False and info["deal_numbers"] == []
    assert info["structure"] == {
        "rounds": 1, "sets": 3, "deals": 2, "duplicate": True, "in_room": False,
    }  # fmt: skip
    assert info["links"]["travellers"] is None
    data = get(client, f"{API}/tournaments/{t.pk}/standings/")
    export = exported(t)["standings"]
    assert [(r["player"], r["rank"], r["score"], r["sets"]) for r in data["standings"]] == [
        (r["player"], r["rank"], r["raw"], r["sets"]) for r in export
    ]
    assert all(r["sets"] == 3 and r["dup_mp"] is not None for r in data["standings"])
    refused = get(client, f"{API}/tournaments/{t.pk}/travellers/", status=404)
    assert "JSON export" in refused["error"]["message"]
    get(client, f"{API}/tournaments/{t.pk}/travellers/1/", status=404)
    solo = get(client, f"{API}/tournaments/")["tournaments"]
    assert any(x["id"] == t.pk and x["structure"]["sets"] == 3 for x in solo)
