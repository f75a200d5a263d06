"""Exports: standings and travellers as CSV and JSON, printable page, records zip."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest

from tournaments import actions, exports, rankings

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture
def ranked(make_tournament, fake_entry, organizer):
    t = make_tournament(seed="export-seed")
    fake_entry(t, "alice", 40, {1: 40, 2: 35})
    bert = fake_entry(t, "bert", -10, {1: 20, 2: 35})
    actions.correct_score(bert.pk, organizer, -5, "rekenfout bij deal 2")
    rankings.recompute(t.pk)
    return t


EN = exports.csv_style("en")


def _text(body: str) -> io.StringIO:
    """A CSV file as csv reads it: every file starts with a byte-order mark (for Excel)."""
    assert body.startswith("\ufeff")
    return io.StringIO(body.removeprefix("\ufeff"))


def test_standings_csv_has_a_row_per_entry_and_the_corrections_their_own_file(ranked):
    rows = list(csv.reader(_text(exports.standings_csv(ranked, EN))))
    assert rows[0] == exports.STANDINGS_COLUMNS
    assert rows[1][:5] == ["1", "alice", "40", "40", "no"]
    assert rows[2][:5] == ["2", "bert", "-5", "-10", "yes"]
    assert len(rows) == 3  # one table per file: no corrections appended after a blank line
    fixes = list(csv.DictReader(_text(exports.corrections_csv(ranked, EN))))
    assert [(f["player"], f["reason"], f["who"]) for f in fixes] == [
        ("bert", "rekenfout bij deal 2", "organizer")
    ]


def test_standings_json_content(ranked):
    data = json.loads(exports.standings_json(ranked))
    assert data["tournament"]["seed"] is None  # still secret: not closed
    assert data["tournament"]["seed_commitment"] == ranked.seed_commitment
    assert [(r["player"], r["score"], r["matchpoints_pct"]) for r in data["standings"]] == [
        ("alice", 40, 100.0),
        ("bert", -5, 0.0),
    ]
    assert data["corrections"][0]["reason"] == "rekenfout bij deal 2"
    assert data["corrections"][0]["before"]["score"] == -10


def test_travellers_csv_and_json_content(ranked):
    rows = list(csv.DictReader(_text(exports.travellers_csv(ranked, EN))))
    assert [(r["deal"], r["player"], r["wij_points"], r["matchpoints"]) for r in rows] == [
        ("1", "alice", "40", "2.0"),
        ("1", "bert", "20", "0.0"),
        ("2", "alice", "35", "1.0"),
        ("2", "bert", "35", "1.0"),
    ]
    data = json.loads(exports.travellers_json(ranked))
    assert [t["deal"] for t in data["travellers"]] == [1, 2]
    assert data["travellers"][0]["results"][0]["card_points"] == [40, 20]


def test_export_views_serve_files(ranked, client, organizer):
    client.force_login(organizer)
    response = client.get(f"/tournaments/{ranked.pk}/export/standings.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert client.get(f"/tournaments/{ranked.pk}/export/nonsense").status_code == 404
    page = client.get(f"/tournaments/{ranked.pk}/results/").content.decode()
    assert "alice" in page and "rekenfout bij deal 2" in page


def test_records_zip_after_close_has_one_record_per_entry(ranked, organizer):
    actions.close_tournament(ranked.pk, organizer)
    ranked.refresh_from_db()
    archive = zipfile.ZipFile(io.BytesIO(exports.records_zip(ranked)))
    names = archive.namelist()
    assert sum(n.endswith(".txt") for n in names) == 2 + 1 and "standings.json" in names
    assert "records.txt" in names  # every game in one record file, besides one per game
    assert json.loads(archive.read("standings.json"))["tournament"]["seed"] == "export-seed"


def test_closing_builds_the_records_zip_on_the_exports_queue(ranked, organizer, client):
    from tournaments.models import ExportArchive

    actions.close_tournament(ranked.pk, organizer)  # → rankings task → exports task
    ranked.refresh_from_db()
    archive = ExportArchive.objects.get(tournament=ranked, kind="records.zip")
    assert archive.rankings_version == ranked.rankings_version
    client.force_login(organizer)  # the club's (results for its members by default)
    response = client.get(f"/tournaments/{ranked.pk}/export/records.zip")
    assert response.status_code == 200 and bytes(response.content) == bytes(archive.data)


def test_export_tasks_are_routed_to_their_queues():
    from django.conf import settings

    routes = settings.CELERY_TASK_ROUTES
    assert routes["tournaments.tasks.recompute_rankings"]["queue"] == "rankings"
    assert routes["tournaments.tasks.build_*"]["queue"] == "exports"
