"""The rankings task: standings, tournament matchpoints and Neuberg-scaled travellers."""

from __future__ import annotations

import pytest

from tests.tournaments.conftest import finish, joined
from tournaments import rankings
from tournaments.models import Entry, TournamentDeal
from tournaments.tasks import recompute_rankings

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture
def field_of_four(make_tournament, fake_entry):
    t = make_tournament(seed="hand-made-field")
    # Deal 1: all four played; deal 2: three of four (D stopped after one deal).
    a = fake_entry(t, "alice", 40, {1: 40, 2: 40})
    b = fake_entry(t, "bert", 12, {1: 30, 2: 30})
    c = fake_entry(t, "carla", 12, {1: 30, 2: 20})
    d = fake_entry(t, "dirk", -25, {1: 20})
    return t, a, b, c, d


def test_rankings_task_stores_ranks_matchpoints_and_neuberg(field_of_four):
    t, a, b, c, d = field_of_four
    version = recompute_rankings.apply(args=[t.pk]).get()
    assert version == 1
    for e in (a, b, c, d):
        e.refresh_from_db()
    # Tournament matchpoints on the score: 40 > 12 = 12 > -25.
    assert [a.matchpoints, b.matchpoints, c.matchpoints, d.matchpoints] == [6, 3, 3, 0]
    assert [a.matchpoints_pct, b.matchpoints_pct, d.matchpoints_pct] == [100, 50, 0]
    # Deal 2 (E = 4, A = 3): 40, 30, 20 → MP 4, 2, 0 → (MP + 1)·4/3 − 1.
    # (Per-deal figures are computed when read, by the traveller.)
    deal2 = {r["entry"]: r for r in rankings.traveller(t, 2)}
    assert deal2[a.pk]["matchpoints"] == 4 and deal2[c.pk]["matchpoints"] == 0
    assert deal2[a.pk]["neuberg"] == pytest.approx(5 * 4 / 3 - 1, abs=1e-4)
    assert deal2[b.pk]["neuberg"] == pytest.approx(3.0, abs=1e-4)
    assert deal2[c.pk]["neuberg"] == pytest.approx(1 * 4 / 3 - 1, abs=1e-4)
    # Deal 1, everyone: 40, 30, 30, 20 → 6, 3, 3, 0 (no scaling).
    deal1 = {r["entry"]: r["neuberg"] for r in rankings.traveller(t, 1)}
    assert deal1 == {a.pk: 6, b.pk: 3, c.pk: 3, d.pk: 0}
    # Ties on the score (bert, carla: 12) broken by total deal matchpoints.
    assert b.deal_matchpoints == pytest.approx(3 + 3.0, abs=1e-3)
    assert c.deal_matchpoints == pytest.approx(3 + 1 / 3, abs=1e-3)
    assert [a.rank, b.rank, c.rank, d.rank] == [1, 2, 3, 4]


def test_standings_list_best_first_and_travellers_sorted_by_matchpoints(field_of_four):
    t, a, *_ = field_of_four
    rankings.recompute(t.pk)
    rows = rankings.standings(t)
    assert [r["player"] for r in rows] == ["alice", "bert", "carla", "dirk"]
    traveller = rankings.traveller(t, 2)
    assert [r["player"] for r in traveller] == ["alice", "bert", "carla"]
    assert rankings.played_deal_numbers(t) == [1, 2]


def test_recomputing_is_idempotent_but_bumps_the_version(field_of_four):
    t, a, *_ = field_of_four
    rankings.recompute(t.pk)
    first = rankings.standings(t)
    assert rankings.recompute(t.pk) == 2
    assert rankings.standings(t) == first


def test_par_is_filled_for_the_deals_played(field_of_four):
    t, *_ = field_of_four
    rankings.recompute(t.pk)
    par = TournamentDeal.objects.get(tournament=t, number=2).par
    assert sum(par["card_points"]) == 60 and len(par["tricks"]) == 8
    assert TournamentDeal.objects.get(tournament=t, number=3).par is None


def test_finishing_an_entry_recomputes_the_rankings(make_tournament, make_user):
    t = make_tournament(seed="finish-triggers-ranking")
    (entry,) = joined(t, make_user("solo"))
    finish(entry)
    entry.refresh_from_db()
    t.refresh_from_db()
    assert entry.status == Entry.Status.FINISHED
    assert t.rankings_version >= 1  # the task ran after commit (eager in embedded mode)
    assert entry.rank == 1 and entry.matchpoints_pct == 50.0


def test_a_request_older_than_the_last_run_is_skipped(field_of_four):
    import time

    t, *_ = field_of_four
    before = time.time() - rankings.CLOCK_MARGIN - 1
    assert rankings.recompute(t.pk) == 1
    assert recompute_rankings.apply(args=[t.pk, before]).get() is None  # already included
    assert recompute_rankings.apply(args=[t.pk, time.time() + 1]).get() == 2
