"""Management commands: create → simulate → close → export, through the actions."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest
from django.core.management import CommandError, call_command

import engine
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_create_simulate_close_export(club, organizer):
    out = run(
        "create_tournament", "--name", "Demo", "--club", club.slug, "--seed", "demo-seed",
        "--open", "--organizer", organizer.username,
    )  # fmt: skip
    pk = int(re.search(r"id: (\d+)", out).group(1))
    t = Tournament.objects.get(pk=pk)
    assert t.seed_commitment in out
    assert t.status in (Tournament.Status.OPEN, Tournament.Status.RUNNING)
    assert "demo-seed" not in out

    out = run("simulate_tournament", str(pk), "--players", "3")
    assert "(South: heuristic)" in out and "(South: club)" in out and "(South: random)" in out
    entries = list(Entry.objects.filter(tournament=t).select_related("game"))
    assert len(entries) == 3
    assert all(e.status == Entry.Status.FINISHED for e in entries)
    # Three styles on the same cards: a field that spreads, not three copies of one game.
    assert len({tuple(e.game.actions) for e in entries}) == 3
    for e in entries:  # every game is a real one, its record its replay
        replayed = engine.Game.replay(e.game.seed, e.game.rules, e.game.actions)
        assert replayed.is_terminal() and replayed.score_for(0) == e.game.final_score
    with pytest.raises(CommandError, match="unknown bot"):
        run("simulate_tournament", str(pk), "--players", "1", "--south", "grandmaster")

    out = run("close_tournament", str(pk), "--unfinished", "as-played")
    t.refresh_from_db()
    assert t.is_closed
    assert "seed: demo-seed" in out

    # The site's language by default: Dutch words in Excel's Dutch style (`;`, the BOM).
    text = run("export_tournament", str(pk), "--format", "csv")
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff")), delimiter=";"))
    assert len(rows) == 3
    english = run("export_tournament", str(pk), "--format", "csv", "--language", "en")
    assert english.splitlines()[0].count(",") > 3 and ";" not in english.splitlines()[0]
    scores = {e.player.username: e.score for e in entries}
    assert {r["player"]: int(r["score"]) for r in rows} == scores

    data = json.loads(run("export_tournament", str(pk), "--format", "json"))
    assert data["tournament"]["seed"] == "demo-seed"
    assert len(data["standings"]) == 3

    travellers = json.loads(
        run("export_tournament", str(pk), "--format", "json", "--what", "travellers")
    )
    assert travellers["travellers"]


def test_errors(make_tournament):
    t = make_tournament()
    with pytest.raises(CommandError, match="unknown format"):
        run("export_tournament", str(t.pk), "--format", "xml")
    with pytest.raises(CommandError, match="no tournament"):
        run("export_tournament", "999999", "--format", "csv")
    with pytest.raises(CommandError, match="no tournament"):
        run("close_tournament", "999999")
    run("close_tournament", str(t.pk))
    with pytest.raises(CommandError, match="closed"):
        run("close_tournament", str(t.pk))
    with pytest.raises(CommandError, match="closed"):
        run("simulate_tournament", str(t.pk), "--players", "1")


def test_binary_exports_to_file(make_tournament, tmp_path, client):
    from engine import records

    t = make_tournament()
    run("simulate_tournament", str(t.pk), "--players", "3")
    with pytest.raises(CommandError, match="not closed"):
        run("export_tournament", str(t.pk), "--format", "records")
    run("close_tournament", str(t.pk))
    # All games as one record file in the engine's format, read back game by game.
    text = run("export_tournament", str(t.pk), "--format", "records")
    recs = records.read_many(text)
    entries = list(
        Entry.objects.filter(tournament=t).select_related("game", "player").order_by("pk")
    )
    assert len(recs) == len(entries) == 3
    for rec, entry in zip(recs, entries, strict=True):
        assert rec.tags["Event"] == t.name and rec.tags["South"] == entry.player.username
        assert rec.replay().actions == entry.game.actions
    client.force_login(entries[0].player)
    served = client.get(f"/tournaments/{t.pk}/export/records.txt")
    assert served.status_code == 200 and served.content.decode() == text
    zpath, ppath = tmp_path / "records.zip", tmp_path / "results.pdf"
    run("export_tournament", str(t.pk), "--format", "records-zip", "-o", str(zpath))
    with zipfile.ZipFile(zpath) as zf:
        assert "standings.json" in zf.namelist()
        assert zf.read("records.txt").decode() == text
    run("export_tournament", str(t.pk), "--format", "pdf", "-o", str(ppath))
    assert ppath.read_bytes().startswith(b"%PDF")


def test_the_simulated_tables_standing_lists_an_unranked_entry_as_a_dash(
    club, organizer, make_user
):
    """The standing simulate_tournament prints at the end lists an entry without a rank
    (no set of its own finished, or its person never came) as "—"; formatting its None
    rank crashed the command after the tournament had closed."""
    from tournaments import actions
    from tournaments.management.commands.simulate_tournament import Command

    t = actions.create_tables_tournament(
        organizer, name="Vroeg dicht", club=club, fmt="rotating", players=4, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    for i in range(4):
        user = make_user(f"vroeg{i}")
        club.members.add(user)
        actions.join(t.pk, user)
    actions.start_tables(t.pk)
    actions.close_tournament(t.pk, organizer)  # before any set finished: nobody ranked
    out = io.StringIO()
    command = Command(stdout=out)
    command.write_tables_standing(t)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and all(re.match(r"  — vroeg\d: 0 ", line) for line in lines), lines
