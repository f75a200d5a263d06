"""A correction of a deal in a round that a cut followed: the cut stands (the next
round is drawn and played from it), and the organizer is told when the standing at the
end of that round no longer bears it out, and who would have gone on instead
(tables.cut_changes)."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from tournaments import actions, tables
from tournaments.models import Entry, TableSeat, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_a_correction_that_would_change_a_cut_is_pointed_out(client, django_user_model):
    out = io.StringIO()
    call_command(
        "create_tournament", "--format", "rotating", "--players", "8", "--rounds", "2",
        "--sets", "3", "--deals", "1", "--duplicate", "--cut", "4", "--open",
        "--seed", "cut-after-correction", stdout=out,
    )  # fmt: skip
    t = Tournament.objects.get(pk=int(re.search(r"id: (\d+)", out.getvalue()).group(1)))
    call_command("simulate_tournament", str(t.pk), stdout=io.StringIO())
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED
    # The standing at the end of round 1, read back, is the one the cut was made on.
    at_cut = tables.standings(t, through_round=1)
    went_on = set(
        Entry.objects.filter(tournament=t, out_after__isnull=True).values_list("pk", flat=True)
    )
    assert {row["entry"] for row in at_cut[:4]} == went_on
    assert tables.cut_changes(t) == []
    # The best of those cut had their deals of round 1 written far too low: corrected
    # (the most a deal writes), they would have gone on.
    first_out = at_cut[4]
    assert first_out["out_after"] == 1
    seats = TableSeat.objects.select_related("table__table_set__round").filter(
        entry_id=first_out["entry"], table__table_set__round__number=1
    )
    organizer = t.created_by or django_user_model.objects.create_superuser("baas", "", "pw")
    client.force_login(organizer)
    client.cookies["django_language"] = "nl"
    organize = reverse("tournaments:tables-organize", args=[t.pk])
    assert "data-cut-change" not in client.get(organize).content.decode()
    before = {}
    for seat in seats:
        row = seat.table.board[0]
        before[seat.table.table_set.number] = (seat.table.number, row["deal"], row["written"])
        best = [60, 0] if seat.index % 2 == 0 else [0, 60]
        if best == row["written"]:
            continue
        response = client.post(
            reverse("tournaments:tables-correct", args=[t.pk]),
            {"round": 1, "set": seat.table.table_set.number, "table": seat.table.number,
             "deal": row["deal"], "written_ns": best[0], "written_ew": best[1],
             "reason": "verkeerd geteld"},
            follow=True,
        )  # fmt: skip
    changes = tables.cut_changes(t)
    assert len(changes) == 1 and changes[0]["round"] == 1
    assert first_out["player"] in changes[0]["would_go_on"]
    assert len(changes[0]["went_on_instead"]) == len(changes[0]["would_go_on"])
    assert not set(changes[0]["went_on_instead"]) & set(changes[0]["would_go_on"])
    shown = [str(m) for m in response.context["messages"]]
    assert any(first_out["player"] in m and "einde van ronde 1" in m for m in shown), shown
    page = client.get(organize).content.decode()
    assert "data-cut-change" in page and first_out["player"] in page
    # The cut stands: the entry is still out, below everybody who went on.
    overall = tables.standings(t)
    assert {row["entry"] for row in overall[:4]} == went_on
    # Corrected back, the cut is borne out again.
    for set_number, (table, deal, written) in before.items():
        tab = TableSeat.objects.get(pk=seats.get(table__table_set__number=set_number).pk).table
        if tab.board[0]["written"] != written:
            actions.correct_table_deal(
                t.pk, organizer, 1, set_number, table, deal, written, "terug"
            )
    assert tables.cut_changes(t) == []
