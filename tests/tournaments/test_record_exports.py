"""Issue 10, items 2 and 26: names in game records.

Names with line separators never break the published records (the engine's writer
escapes what its reader would cut at; forms refuse such names), and a tournament's
records carry its own name as Event and its club as Site.
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile

import pytest

from engine import records
from tests.tournaments.conftest import finish, joined
from tournaments import actions
from tournaments.models import Club, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

BREAKS = "\n\r\u2028\u2029\x85\x0b\x0c\x1c\t"


@pytest.fixture
def played(make_tournament, make_user):
    t = make_tournament(name="Clubavond dinsdag", bot_level="random")
    entries = joined(t, make_user("anna"), make_user("bert"))
    for entry in entries:
        finish(entry)
    return t, entries


def test_a_tournament_game_record_is_named_after_the_tournament_and_its_club(played):
    t, entries = played
    for entry in entries:
        entry.game.refresh_from_db()
        rec = records.read_text(entry.game.record)  # stored when the game finished
        assert rec.tags["Event"] == "Clubavond dinsdag" != "Manillen"
        assert rec.tags["Site"] == "De Zwarte Manille"
        assert rec.tags["South"] == entry.player.username


def test_names_with_line_separators_do_not_break_the_records(played, organizer, client, tmp_path):
    t, entries = played
    # Names stored before forms refused them (or set through the admin).
    name, club_name = f"Club{BREAKS}avond", f"De{BREAKS}Manille"
    Tournament.objects.filter(pk=t.pk).update(name=name)
    Club.objects.filter(pk=t.club_id).update(name=club_name)
    actions.close_tournament(t.pk, organizer)
    client.force_login(organizer)

    text = client.get(f"/tournaments/{t.pk}/export/records.txt")
    assert text.status_code == 200
    body = text.content.decode()
    recs = records.read_many(body)
    assert [r.tags["Event"] for r in recs] == [name, name]
    assert [r.tags["Site"] for r in recs] == [club_name, club_name]
    assert [r.replay().actions for r in recs] == [e.game.actions for e in entries]
    # The command line reads the file too (it split U+2028 and U+0085 inside a tag).
    path = tmp_path / "records.txt"
    path.write_text(body, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr

    zipped = client.get(f"/tournaments/{t.pk}/export/records.zip")
    assert zipped.status_code == 200
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as zf:
        per_game = [n for n in zf.namelist() if n[0].isdigit()]
        assert len(per_game) == 2
        for n in per_game:
            assert records.read_text(zf.read(n).decode()).tags["Event"] == name


def test_an_empty_records_file_keeps_a_name_with_line_breaks_in_its_comment(
    make_tournament, organizer
):
    from tournaments import exports

    t = make_tournament()
    Tournament.objects.filter(pk=t.pk).update(name='Leeg\n[Seed "x"]\u2028avond')
    t.refresh_from_db()
    text = exports.records_text(t)
    assert len(text.splitlines()) == 1 and records.read_many(text) == []


@pytest.mark.parametrize("brk", ["\n", "\u2028", "\u0085", "\t", "\x1c"])
def test_forms_refuse_names_with_line_breaks_and_control_characters(brk, client, club, organizer):
    client.force_login(organizer)
    client.cookies["django_language"] = "en"
    form = {
        "name": f"Club{brk}avond", "club": club.pk, "rules": "flemish", "bot_level": "heuristic",
        "capacity": 4, "results_visibility": "after_finish", "unfinished_rule": "bot",
    }  # fmt: skip
    response = client.post("/tournaments/new/", form)
    assert response.status_code == 200
    assert "no line breaks, tabs or other control characters" in response.content.decode()
    response = client.post("/tournaments/new/", {**form, "name": "Clubavond", "seed": f"a{brk}b"})
    assert response.status_code == 200
    assert "no line breaks, tabs or other control characters" in response.content.decode()
    assert not Tournament.objects.filter(club=club).exists()

    response = client.post("/clubs/new/", {"name": f"De{brk}Club"}, follow=True)
    assert "no line breaks, tabs or other control characters" in response.content.decode()
    assert not Club.objects.filter(name__startswith="De").exclude(pk=club.pk).exists()

    client.cookies["django_language"] = "nl"  # the site's first language
    response = client.post("/tournaments/new/", form)
    assert "geen regeleinden, tabs of andere stuurtekens" in response.content.decode()

    with pytest.raises(actions.TournamentError, match="one line"):
        actions.create_tournament(organizer, name=f"x{brk}y", club=club)
    with pytest.raises(actions.TournamentError, match="one line"):
        actions.create_club(organizer, f"x{brk}y")


def test_forms_take_ordinary_names(client, club, organizer):
    client.force_login(organizer)
    form = {
        "name": "Café \"De Kroon\" — kampioenschap; 2026 ♥", "club": club.pk, "rules": "flemish",
        "bot_level": "heuristic", "capacity": 4, "results_visibility": "after_finish",
        "unfinished_rule": "bot",
    }  # fmt: skip
    assert client.post("/tournaments/new/", form).status_code == 302
    assert Tournament.objects.get(club=club).name == form["name"]


def test_the_records_hold_the_games_with_a_result_only(make_tournament, make_user, organizer):
    """A removed entry's game (the organizer took it out, maybe for play with help) and
    the empty game of one who never played are in no record export, as in the zip's own
    standings and every other view of the results."""
    from tournaments import exports

    t = make_tournament(name="Zonder de geschrapte", bot_level="random")
    anna, bert, carl = joined(t, make_user("anna"), make_user("bert"), make_user("carl"))
    for entry in (anna, bert):
        finish(entry)
    actions.remove_entry(bert.pk, organizer, "speelde met hulp")
    actions.close_tournament(t.pk, organizer)  # carl never played: did not play
    text = exports.records_text(t)
    players = [game.tags.get("South") for game in records.read_many(text)]
    assert players == ["anna"], players
    with zipfile.ZipFile(io.BytesIO(exports.records_zip(t))) as zf:
        names = [n for n in zf.namelist() if n.endswith(".txt") and n != "records.txt"]
        assert len(names) == 1 and names[0].endswith("-anna.txt"), names


def test_a_zip_kept_by_an_earlier_release_is_built_again(make_tournament, make_user, organizer):
    """An upgrade: the records zip an earlier release kept (it held a removed entry's
    game) is not served as it stands; the zip is built by today's rules and kept."""
    from django.db import connection

    from tournaments import exports
    from tournaments.models import ExportArchive

    t = make_tournament(name="Na de upgrade", bot_level="random", results_audience="everyone")
    anna, bert = joined(t, make_user("anna"), make_user("bert"))
    for entry in (anna, bert):
        finish(entry)
    actions.remove_entry(bert.pk, organizer, "speelde met hulp")
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    ExportArchive.objects.filter(tournament=t).delete()
    # As the earlier release stored it, without naming the stamp (the column's default).
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO tournaments_exportarchive "
            "(tournament_id, kind, rankings_version, data, created) VALUES (%s, %s, %s, %s, %s)",
            [t.pk, "records.zip", t.rankings_version, b"old zip", "2026-12-05 20:00:00+00:00"],
        )
    data = exports.stored_or_built_records_zip(t)
    assert data != b"old zip"
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert not [n for n in zf.namelist() if n.endswith("-bert.txt")]
    kept = ExportArchive.objects.get(tournament=t, kind="records.zip")
    assert kept.stamp == exports.RECORDS_ZIP_FORMAT and bytes(kept.data) == data
    assert exports.stored_or_built_records_zip(t) == data


def test_an_empty_records_file_says_why_it_is_empty(make_tournament, make_user, organizer):
    from tests.tournaments.test_ratings import closed_room_night
    from tournaments import exports

    night = closed_room_night("records-of-a-room-night")
    assert "played in the room with real cards" in exports.records_text(night)
    t = make_tournament(name="Niemand speelde")
    joined(t, make_user("anna"))
    actions.close_tournament(t.pk, organizer)  # anna never played: no result
    assert "no game with a result" in exports.records_text(t)
    assert "nobody entered" in exports.records_text(make_tournament(name="Leeg"))
