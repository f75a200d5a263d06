"""A club's seasons (tournaments/seasons.py): the club's tournaments closed between two
days add up, each giving its ranked players a score out of 100; for members only, made
and removed by organizers."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from tournaments import actions, rankings, seasons
from tournaments.models import Season, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@given(st.lists(st.integers(1, 5), min_size=2, max_size=40))
def test_a_tournament_shares_out_half_of_100_per_player(ranks):
    scores = seasons.field_scores(dict(enumerate(ranks)))
    # Every pair of players shares one "finished above": 100 x n(n-1)/2 / (n-1) in all.
    assert sum(scores.values()) == pytest.approx(50 * len(ranks))
    best = min(ranks)
    assert all(scores[i] >= scores[j] for i in scores for j in scores if ranks[i] == best)
    assert seasons.field_scores({"alone": 1}) == {}


def closed(make_tournament, fake_entry, organizer, name: str, results: dict, on: dt.date,
           closed_on: dt.date | None = None):  # fmt: skip
    """A club night opened at 19:30 on `on` and closed at 23:30 (on `closed_on`)."""
    t = make_tournament(name=name, seed=f"season-{name}")
    for player, score in results.items():
        fake_entry(t, f"{player}-{name}", score, {1: 30 + score // 4})
    actions.close_tournament(t.pk, organizer)
    rankings.recompute(t.pk)
    opened = timezone.make_aware(dt.datetime.combine(on, dt.time(19, 30)))
    ended = timezone.make_aware(dt.datetime.combine(closed_on or on, dt.time(23, 30)))
    Tournament.objects.filter(pk=t.pk).update(opened_at=opened, closed_at=ended)
    return t


@pytest.fixture
def season(club, organizer):
    return seasons.create_season(
        organizer, club, "Seizoen 2026", dt.date(2026, 9, 1), dt.date(2026, 12, 31)
    )


def test_the_season_adds_up_the_clubs_tournaments_within_its_days(
    client, club, organizer, make_user, make_tournament, fake_entry, season
):
    # The same three players (by name) at two nights in the season, one night before it.
    from django.contrib.auth import get_user_model

    User = get_user_model()
    first = closed(make_tournament, fake_entry, organizer, "okt", {"a": 40, "b": 10, "c": -20},
                   dt.date(2026, 10, 2))  # fmt: skip
    second = closed(make_tournament, fake_entry, organizer, "nov", {"a": -5, "b": 30, "c": 0},
                    dt.date(2026, 11, 6))  # fmt: skip
    closed(make_tournament, fake_entry, organizer, "aug", {"a": 99, "b": 0, "c": -99},
           dt.date(2026, 8, 28))  # fmt: skip
    # One person per letter across the nights: move the second night's entries to the first's.
    for letter in "abc":
        keep = User.objects.get(username=f"{letter}-okt")
        second.entries.filter(player__username=f"{letter}-nov").update(player=keep)
    data = seasons.standings(season)
    assert [t.name for t in data["tournaments"]] == ["okt", "nov"]
    rows = {r["player"]: r for r in data["rows"]}
    assert set(rows) == {"a-okt", "b-okt", "c-okt"}
    # okt: a 100, b 50, c 0; nov: b 100, c 50, a 0.
    assert rows["a-okt"]["total"] == 100 and rows["b-okt"]["total"] == 150
    assert rows["c-okt"]["total"] == 50 and rows["b-okt"]["rank"] == 1
    assert rows["b-okt"]["events"] == 2 and rows["b-okt"]["average"] == 75
    assert first.club == club
    client.force_login(organizer)
    page = client.get(reverse("clubs:season", args=[club.slug, season.pk])).content.decode()
    assert "data-season-standings" in page and page.index("b-okt") < page.index("a-okt")
    # The standing to take away: the spreadsheet of the reader's language.
    csv_url = reverse("clubs:season-csv", args=[club.slug, season.pk])
    assert csv_url in page
    client.cookies["django_language"] = "nl"
    body = client.get(csv_url).content.decode("utf-8")
    assert body.splitlines() == [
        "\ufeffrank;player;tournaments;total;average;best",
        "1;b-okt;2;150,0;75,0;100,0",
        "2;a-okt;2;100,0;50,0;100,0",
        "3;c-okt;2;50,0;25,0;50,0",
    ]
    client.cookies["django_language"] = "en"
    assert client.get(csv_url + "?sep=comma").content.decode().splitlines()[1] == (
        "1,b-okt,2,150.0,75.0,100.0"
    )


def test_a_tournament_counts_on_the_day_it_began(
    client, club, organizer, make_tournament, fake_entry, season
):
    # The last night of the season closed after midnight, and one closed days late:
    # both were played in the season. A night begun after its last day is not.
    late = closed(make_tournament, fake_entry, organizer, "oudjaar", {"a": 5, "b": 0},
                  dt.date(2026, 12, 31), closed_on=dt.date(2027, 1, 1))  # fmt: skip
    forgotten = closed(make_tournament, fake_entry, organizer, "vergeten", {"a": 0, "b": 5},
                       dt.date(2026, 12, 20), closed_on=dt.date(2027, 1, 4))  # fmt: skip
    closed(make_tournament, fake_entry, organizer, "nieuwjaar", {"a": 9, "b": 0},
           dt.date(2027, 1, 2))  # fmt: skip
    # A tournament with a start time belongs to that day, whenever it was opened.
    started = closed(make_tournament, fake_entry, organizer, "gepland", {"a": 1, "b": 0},
                     dt.date(2027, 1, 3))  # fmt: skip
    Tournament.objects.filter(pk=started.pk).update(
        starts_at=timezone.make_aware(dt.datetime(2026, 12, 27, 20, 0))
    )
    data = seasons.standings(season)
    assert [t.name for t in data["tournaments"]] == ["vergeten", "gepland", "oudjaar"]
    client.force_login(organizer)
    client.cookies["django_language"] = "nl"
    page = client.get(reverse("clubs:season", args=[club.slug, season.pk])).content.decode()
    assert "oudjaar</a> (31/12/2026)" in page and "gepland</a> (27/12/2026)" in page
    late.refresh_from_db()
    forgotten.refresh_from_db()
    assert late.closed_at.year == forgotten.closed_at.year == 2027


def test_only_members_see_a_season_and_only_organizers_make_one(
    client, club, organizer, make_user, season
):
    url = reverse("clubs:season", args=[club.slug, season.pk])
    outsider = make_user("buiten")
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    member = make_user("lid")
    club.members.add(member)
    client.force_login(member)
    assert client.get(url).status_code == 200
    assert "data-no-season-results" in client.get(url).content.decode()
    csv_url = reverse("clubs:season-csv", args=[club.slug, season.pk])
    assert client.get(csv_url).content.decode().splitlines()[-1].endswith("best")
    client.force_login(outsider)
    assert client.get(csv_url).status_code == 404
    client.force_login(member)
    create = reverse("clubs:season-create", args=[club.slug])
    client.post(create, {"name": "Van mij", "starts_on": "2027-01-01", "ends_on": "2027-06-30"})
    assert not Season.objects.filter(name="Van mij").exists()
    assert (
        "data-new-season"
        not in client.get(reverse("clubs:detail", args=[club.slug])).content.decode()
    )
    client.post(reverse("clubs:season-delete", args=[club.slug, season.pk]))
    assert Season.objects.filter(pk=season.pk).exists()
    client.force_login(organizer)
    response = client.post(
        create, {"name": "Lente 2027", "starts_on": "2027-03-01", "ends_on": "2027-02-01"}
    )
    assert not Season.objects.filter(name="Lente 2027").exists()
    page = client.get(response["Location"]).content.decode()
    assert "eindigt op of na de dag" in page  # refused, why, in Dutch
    response = client.post(
        create, {"name": "Lente 2027", "starts_on": "2027-03-01", "ends_on": "2027-06-30"}
    )
    made = Season.objects.get(name="Lente 2027")
    assert response["Location"] == reverse("clubs:season", args=[club.slug, made.pk])
    client.post(reverse("clubs:season-delete", args=[club.slug, made.pk]))
    assert not Season.objects.filter(pk=made.pk).exists()


def test_a_tournament_of_tables_closed_before_a_set_finished_ranks_nobody(
    club, organizer, make_user, season
):
    """Drawn and closed before any set was played: nobody has a result, so nobody is
    ranked (all were '1st with 0 sets'), nor gains season points or a 'win'."""
    from tournaments import tables

    t = actions.create_tables_tournament(
        organizer, name="Vroeg dicht", club=club, fmt="rotating", players=8, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    for i in range(8):
        user = make_user(f"vroeg{i}")
        club.members.add(user)
        actions.join(t.pk, user)
    assert {r["rank"] for r in tables.standings(t)} == {None}  # before the draw too
    actions.start_tables(t.pk, organizer)
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    moment = timezone.make_aware(dt.datetime(2026, 10, 9, 20, 0))
    Tournament.objects.filter(pk=t.pk).update(opened_at=moment, closed_at=moment)
    assert not t.entries.filter(rank__isnull=False).exists()
    assert [x.pk for x in seasons.standings(season)["tournaments"]] == [t.pk]
    assert seasons.standings(season)["rows"] == []
    # The export says its first set stopped unscored (not "playing" in a closed one).
    assert tables.export(t)["rounds"][0]["sets"][0]["status"] == "stopped"
    # Nor a tournament played on a player's page.
    from django.test import Client

    client = Client()
    client.force_login(t.entries.get(player__username="vroeg0").player)
    page = client.get("/accounts/profile/").content.decode()
    assert f'href="/tournaments/{t.pk}/"' in page  # listed, but not counted as played
    assert "Gespeelde gesloten toernooien" not in page


def test_a_season_of_one_player_nights_says_why_nobody_scores(
    client, club, organizer, make_tournament, fake_entry, season
):
    """One closed tournament in the season, with one ranked player: the page counts the
    tournament and says why nobody scores (it said no tournament had closed)."""
    closed(make_tournament, fake_entry, organizer, "alleen", {"a": 40}, dt.date(2026, 10, 9))
    client.force_login(organizer)
    page = client.get(reverse("clubs:season", args=[club.slug, season.pk])).content.decode()
    assert "1 afgesloten toernooi" in page and "alleen" in page
    assert "data-no-season-results" in page
    assert "minstens twee spelers" in page and "Nog geen toernooi" not in page


def test_a_half_is_rounded_up_as_on_every_other_page(
    make_tournament, fake_entry, organizer, season
):
    """Nine players, two level in second place: each beat six of eight and tied one,
    81.25. Python's round made it 81.2; the pages' floatformat rounds halves up (81.3)."""
    scores = {"p1": 90, "p2": 50, "p3": 50, "p4": 20, "p5": 10, "p6": 0, "p7": -10}
    scores |= {"p8": -20, "p9": -30}
    closed(make_tournament, fake_entry, organizer, "half", scores, dt.date(2026, 10, 9))
    rows = {r["player"]: r for r in seasons.standings(season)["rows"]}
    assert rows["p2-half"]["best"] == rows["p3-half"]["best"] == 81.3
    assert rows["p2-half"]["total"] == rows["p2-half"]["average"] == 81.3
