"""The rankings task's pure part (scoring.rank) and its database path agree, on a table
computed by hand; and the task writes only the rows whose figures changed."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments import rankings, scoring
from tournaments.models import Entry

pytestmark = pytest.mark.usefixtures("live_game_db")

# Four entries, E = 4. Deal 1 played by all, deal 2 by three (dirk stopped).
# (name, score, {deal: WIJ card points})
FIELD = [
    ("alice", 40, {1: 40, 2: 40}),
    ("bert", 12, {1: 30, 2: 30}),
    ("carla", 12, {1: 30, 2: 20}),
    ("dirk", -25, {1: 20}),
]
# By hand. Scores 40 > 12 = 12 > -25: matchpoints 6, 3, 3, 0 of a top of 6.
# Deal 1: 40, 30, 30, 20 → 6, 3, 3, 0; A = E so Neuberg changes nothing.
# Deal 2: 40, 30, 20 → 4, 2, 0; Neuberg (MP + 1)·4/3 − 1 = 17/3, 3, 1/3.
# Totals: alice 6 + 17/3 = 11.6667, bert 6, carla 3 + 1/3 = 3.3333, dirk 0.
# bert and carla tie on 12: bert first on deal matchpoints.
ENTRIES = {  # name: (rank, matchpoints, matchpoints_pct, deal_matchpoints)
    "alice": (1, 6.0, 100.0, 11.6667),
    "bert": (2, 3.0, 50.0, 6.0),
    "carla": (3, 3.0, 50.0, 3.3333),
    "dirk": (4, 0.0, 0.0, 0.0),
}
RESULTS = {  # (name, deal): (matchpoints, neuberg)
    ("alice", 1): (6.0, 6.0),
    ("bert", 1): (3.0, 3.0),
    ("carla", 1): (3.0, 3.0),
    ("dirk", 1): (0.0, 0.0),
    ("alice", 2): (4.0, 5.6667),
    ("bert", 2): (2.0, 3.0),
    ("carla", 2): (0.0, 0.3333),
}


def test_the_pure_function_gives_the_hand_computed_table():
    names = [name for name, _, _ in FIELD]
    # Results deliberately not grouped by deal nor by entry.
    results = [(name, k) for name, _, points in reversed(FIELD) for k in points]
    points = {(name, k): p for name, _, pts in FIELD for k, p in pts.items()}
    got = scoring.rank(
        scores=[score for _, score, _ in FIELD],
        deals_played=[len(pts) for _, _, pts in FIELD],
        result_entry=[names.index(name) for name, _ in results],
        result_deal=[k for _, k in results],
        result_points=[points[r] for r in results],
    )
    table = {
        name: (got.rank[i], got.matchpoints[i], got.matchpoints_pct[i], got.deal_matchpoints[i])
        for i, name in enumerate(names)
    }
    assert table == ENTRIES
    per_result = {
        r: (got.result_matchpoints[j], got.result_neuberg[j]) for j, r in enumerate(results)
    }
    assert per_result == RESULTS


@pytest.fixture
def field(make_tournament, fake_entry):
    t = make_tournament(seed="pure-and-stored")
    entries = {name: fake_entry(t, name, score, pts) for name, score, pts in FIELD}
    return t, entries


def stored(entries):
    """The entries' stored figures, and the per-result ones as the travellers show them
    (computed when read, not stored)."""
    by_pk = {e.pk: name for name, e in entries.items()}
    table = {
        by_pk[pk]: figures
        for pk, *figures in Entry.objects.filter(pk__in=by_pk).values_list(
            "pk", "rank", "matchpoints", "matchpoints_pct", "deal_matchpoints"
        )
    }
    t = next(iter(entries.values())).tournament
    per_result = {
        (by_pk[row["entry"]], row["deal"]): (row["matchpoints"], row["neuberg"])
        for k in rankings.played_deal_numbers(t)
        for row in rankings.traveller(t, k)
    }
    return {k: tuple(v) for k, v in table.items()}, per_result


def test_the_task_stores_the_hand_computed_table(field):
    t, entries = field
    rankings.recompute(t.pk)
    assert stored(entries) == (ENTRIES, RESULTS)


def test_a_rerun_writes_no_row_and_a_wrong_figure_is_put_right(field):
    t, entries = field
    rankings.recompute(t.pk)
    with CaptureQueriesContext(connection) as queries:
        rankings.recompute(t.pk)
    # (executemany is logged as "N times: UPDATE ...")
    writes = [q["sql"] for q in queries if "UPDATE " in q["sql"].upper()]
    assert any("tournaments_tournament" in sql for sql in writes)  # the version bump
    figures = [sql for sql in writes if "matchpoints" in sql or "neuberg" in sql]
    assert figures == []  # nothing changed: no entry written
    assert not [sql for sql in writes if "tournaments_dealresult" in sql]  # never written

    Entry.objects.filter(pk=entries["bert"].pk).update(rank=None, deal_matchpoints=0)
    rankings.recompute(t.pk)
    assert stored(entries) == (ENTRIES, RESULTS)


def test_a_removed_entry_leaves_the_field(field):
    t, entries = field
    rankings.recompute(t.pk)
    Entry.objects.filter(pk=entries["dirk"].pk).update(status=Entry.Status.REMOVED)
    rankings.recompute(t.pk)
    table, per_result = stored(entries)
    assert table["dirk"][0] is None  # no rank
    # E = 3 now: deal 1 is 40, 30, 30 → 4, 1, 1; alice 4 + 4 = 8 on deal matchpoints.
    assert per_result[("alice", 1)] == (4.0, 4.0) and per_result[("bert", 1)] == (1.0, 1.0)
    assert table["alice"] == (1, 4.0, 100.0, 8.0)
