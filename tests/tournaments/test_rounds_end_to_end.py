"""A whole 16-player rotating-partner duplicate tournament with a cut, through the
stable hooks (create_tournament → simulate_tournament → export_tournament). On the
production stack (PostgreSQL, Redis, a real Celery worker playing the bots and
finishing the sets) this is the issue's end-to-end test; embedded it runs eagerly."""

from __future__ import annotations

import io
import json
import re
from collections import Counter

import pytest
from django.core.management import call_command

from tournaments.models import Entry, TableSeat, TableSet, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_sixteen_players_rotating_duplicate_with_a_cut():
    out = run(
        "create_tournament", "--format", "rotating", "--players", "16", "--rounds", "2",
        "--sets", "3", "--deals", "2", "--duplicate", "--cut", "8", "--open",
        "--seed", "e2e-16",
    )  # fmt: skip
    t = Tournament.objects.get(pk=int(re.search(r"id: (\d+)", out).group(1)))
    run("simulate_tournament", str(t.pk))
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED
    sets = list(TableSet.objects.filter(round__tournament=t).select_related("round"))
    assert [(s.round.number, s.number) for s in sets] == [(r, k) for r in (1, 2) for k in (1, 2, 3)]
    for s in sets:
        seats = list(TableSeat.objects.filter(table__table_set=s).select_related("table__game"))
        people = [x.entry_id for x in seats]
        assert None not in people  # 16 and 8: no bots needed
        assert len(people) == len(set(people)) == (16 if s.round.number == 1 else 8)
        # Duplicate: every table of the set has the same deal source.
        assert {x.table.game.seed for x in seats} == {s.seed}
        assert all(x.table.finished and x.table.game.status == "finished" for x in seats)
        assert all(x.dup_mp is not None for x in seats)
    # Rotating: in a round each player partners three different players.
    for r in (1, 2):
        partners = Counter()
        for x in TableSeat.objects.filter(
            table__table_set__round__number=r, table__table_set__round__tournament=t
        ):
            mate = TableSeat.objects.get(table=x.table, index=(x.index + 2) % 4)
            partners[(x.entry_id, mate.entry_id)] += 1
        assert max(partners.values()) == 1
    # The cut: the top 8 of round 1 played round 2, the others are out after round 1.
    round1 = {row["entry"]: row["rank"] for row in run_standings(t, 1)}
    kept = set(
        Entry.objects.filter(tournament=t, out_after__isnull=True).values_list("pk", flat=True)
    )
    assert kept == {pk for pk, rank in round1.items() if rank <= 8}
    data = json.loads(run("export_tournament", str(t.pk), "--format", "json"))
    assert len(data["rounds"]) == 2 and len(data["standings"]) == 16
    assert data["standings"][0]["out_after"] is None and data["standings"][-1]["out_after"] == 1
    # Every table of a set shows identical hands per seat and dealer in the export.
    for rnd in data["rounds"]:
        for s in rnd["sets"]:
            for k in range(2):
                assert (
                    len(
                        {
                            json.dumps([tab["deals"][k]["dealer"], tab["deals"][k]["hands"]])
                            for tab in s["tables"]
                        }
                    )
                    == 1
                )


def run_standings(t, round_number):
    from tournaments import tables

    return tables.standings(t, round_number)
