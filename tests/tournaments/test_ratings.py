"""Players' ratings (tournaments/ratings.py): Elo over the pairs of each closed
tournament's field, rated once by the tick in the order the tournaments closed, shown on
the ratings page and the player's page (the history only where the viewer may see the
tournament's results)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tournaments.test_rounds import create, run
from tournaments import actions, ratings
from tournaments.models import Rating, RatingChange, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(800, 2400), st.integers(1, 6)), min_size=2, max_size=30))
def test_one_tournament_moves_ratings_zero_sum_and_at_most_k(players):
    values = [v for v, _ in players]
    ranks = [r for _, r in players]
    d = ratings.deltas(values, ranks)
    assert abs(d.sum()) < 1e-6
    assert np.all(np.abs(d) <= ratings.K + 1e-9)
    # Between two players of equal rating, the better ranked gains more.
    for i in range(len(players)):
        for j in range(len(players)):
            if values[i] == values[j] and ranks[i] < ranks[j]:
                assert d[i] > d[j]


def test_the_expected_result_moves_less_than_the_upset():
    assert ratings.deltas([1500, 1500], [1, 2]).tolist() == [16.0, -16.0]
    favourite_wins = ratings.deltas([1800, 1400], [1, 2])
    upset = ratings.deltas([1800, 1400], [2, 1])
    assert 0 < favourite_wins[0] < 16 < upset[1]
    assert ratings.deltas([1500], [1]).tolist() == [0.0]


def closed_room_night(seed: str) -> Tournament:
    """Eight simulated players through a duplicate night (fast: no online play)."""
    t = create(
        "--format", "rotating", "--players", "8", "--sets", "3", "--deals", "1",
        "--duplicate", "--in-room", "--open", "--seed", seed,
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--prefix", seed)
    t.refresh_from_db()
    assert t.is_closed
    return t


def test_a_closed_tournament_is_rated_once_by_the_tick():
    t = closed_room_night("rate-a")
    assert actions.tick()["rated"] == 1
    changes = list(RatingChange.objects.filter(tournament=t))
    assert len(changes) == 8 and {c.field for c in changes} == {8}
    assert all(c.before == ratings.START for c in changes)
    values = {r.player_id: r.value for r in Rating.objects.all()}
    assert abs(sum(values.values()) - 8 * ratings.START) < 1e-6
    best = min(changes, key=lambda c: c.rank)
    worst = max(changes, key=lambda c: c.rank)
    assert values[best.player_id] > ratings.START > values[worst.player_id]
    # Once: the next tick leaves it alone.
    assert actions.tick()["rated"] == 0
    assert RatingChange.objects.filter(tournament=t).count() == 8
    # A second night of the same players starts from the first night's ratings.
    second = create(
        "--format", "rotating", "--players", "8", "--sets", "3", "--deals", "1",
        "--duplicate", "--in-room", "--open", "--seed", "rate-b",
    )  # fmt: skip
    run("simulate_tournament", str(second.pk), "--prefix", "rate-a")  # the same eight
    actions.tick()
    again = RatingChange.objects.filter(tournament=second)
    assert again.count() == 8
    for c in again:
        first = RatingChange.objects.get(tournament=t, player=c.player)
        assert c.before == pytest.approx(first.after)
        assert Rating.objects.get(player=c.player).events == 2


def test_a_solo_tournament_waits_for_its_final_ranks(make_tournament, fake_entry, organizer):
    t = make_tournament(name="Solo", seed="rate-solo", results_audience="everyone")
    fake_entry(t, "anna", 40, {1: 40})
    fake_entry(t, "bert", -10, {1: 20})
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    # As when the rankings task has not run since the close (a worker busy elsewhere).
    Tournament.objects.filter(pk=t.pk).update(
        rankings_computed_at=t.closed_at - dt.timedelta(seconds=1)
    )
    assert ratings.rate(t.pk) is None and not Rating.objects.exists()
    from tournaments import rankings

    rankings.recompute(t.pk)
    assert ratings.rate(t.pk) == 2
    anna = Rating.objects.get(player__username="anna")
    assert anna.value == pytest.approx(ratings.START + 16)


def test_a_tournament_with_one_ranked_player_is_marked_and_rates_nobody(
    make_tournament, fake_entry, organizer
):
    t = make_tournament(name="Alleen", seed="rate-one")
    fake_entry(t, "solist", 10, {1: 40})
    actions.close_tournament(t.pk, organizer)
    from tournaments import rankings

    rankings.recompute(t.pk)
    assert ratings.rate(t.pk) == 0
    t.refresh_from_db()
    assert t.rated_at is not None and not Rating.objects.exists()


def test_the_ratings_page_and_the_players_page(client, make_user):
    t = closed_room_night("rate-page")
    actions.tick()
    page = client.get(reverse("tournaments:ratings")).content.decode()
    assert page.count("<tr") == 1 + 8
    best = RatingChange.objects.filter(tournament=t).order_by("rank").first()
    name = best.player.get_username()
    assert page.index(name) < page.index("</tbody>")
    profile = client.get(reverse("player", args=[name])).content.decode()
    assert "data-rating" in profile and f"{best.after:.0f}" in profile
    # A public tournament: its change is listed for anybody.
    assert "data-rating-change" in profile and t.name in profile
    # The player's own data download holds what each tournament did to the rating.
    client.force_login(best.player)
    data = client.get(reverse("profile-data")).json()
    assert data["rating"] == [
        {"tournament": t.name, "before": ratings.START, "after": round(best.after, 1),
         "rank": best.rank, "players": 8, "when": data["rating"][0]["when"]}
    ]  # fmt: skip


def test_a_members_only_tournament_is_not_listed_to_outsiders(client, make_user, club, organizer):
    t = closed_room_night("rate-private")
    Tournament.objects.filter(pk=t.pk).update(club=club, results_audience="members")
    actions.tick()
    player = RatingChange.objects.filter(tournament=t).first().player
    outsider = make_user("buitenstaander")
    client.force_login(outsider)
    profile = client.get(reverse("player", args=[player.get_username()])).content.decode()
    assert "data-rating" in profile and "data-rating-change" not in profile
    client.force_login(player)
    own = client.get(reverse("profile")).content.decode()
    assert "data-rating-change" in own
