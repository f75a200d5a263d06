"""A rankings run that was asked for and lost (a worker killed mid-task, a database
connection dropped under it) is asked again by the tick: the standings do not stay
"being computed" until the next entry finishes, or forever once the tournament is
closed."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tournaments import actions, rankings
from tournaments.models import Entry

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_a_lost_rankings_run_is_asked_again_by_the_tick(make_tournament, fake_entry):
    t = make_tournament(seed="lost-run")
    first = fake_entry(t, "eerste", 20, {1: 40})
    rankings.recompute(t.pk)
    t.refresh_from_db()
    late = fake_entry(t, "laatste", 10, {1: 30})  # its run was lost: no place
    Entry.objects.filter(pk=late.pk).update(rank=None)
    ran_at = t.rankings_computed_at
    assert rankings.pending(rankings.standings(t))
    # Just finished: its own run may still be on its way.
    assert actions.rerank_stuck(now=late.finished_at + dt.timedelta(seconds=30)) == 0
    later = timezone.now() + dt.timedelta(minutes=3)
    Entry.objects.filter(pk=late.pk).update(finished_at=max(late.finished_at, ran_at))
    assert actions.tick(now=later)["rankings_asked_again"] == 1
    t.refresh_from_db()
    assert not rankings.pending(rankings.standings(t))
    places = dict(Entry.objects.filter(tournament=t).values_list("pk", "rank"))
    assert places == {first.pk: 1, late.pk: 2}
    assert actions.rerank_stuck(now=later) == 0  # nothing left to ask


def test_a_rankings_run_on_a_dropped_connection_is_run_again(
    make_tournament, fake_entry, monkeypatch
):
    """The database dropped the worker's connection under the run: it is retried (and a
    worker killed under it gives it back to the queue: reject_on_worker_lost)."""
    from django.db import OperationalError

    from tournaments import tasks

    t = make_tournament(seed="dropped")
    entry = fake_entry(t, "enige", 12, {1: 36})
    real, calls = rankings.recompute, []

    def dropped_once(tournament_id, requested_at=None):
        calls.append(tournament_id)
        if len(calls) == 1:
            raise OperationalError("terminating connection due to administrator command")
        return real(tournament_id, requested_at)

    monkeypatch.setattr(rankings, "recompute", dropped_once)
    monkeypatch.setattr(tasks.recompute_rankings, "retry_backoff", False, raising=False)
    tasks.recompute_rankings.apply(args=(t.pk,), throw=False)  # as a worker runs it
    assert calls == [t.pk, t.pk]
    entry.refresh_from_db()
    assert entry.rank == 1
    assert (
        tasks.recompute_rankings.reject_on_worker_lost and tasks.advance_set.reject_on_worker_lost
    )
