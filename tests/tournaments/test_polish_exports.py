"""An organizer's season, polished: the printed results and the CSV files of a tournament
read as the organizer's pages do — the audit trail in the same sentences (never the
stored data), a room night's empty seats as stand-ins, a legend that explains only the
columns shown, and a byte-order mark in every CSV file so that Excel in any language
reads ♠♥♦♣ and accented names."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from tests.tournaments import test_room_night
from tests.tournaments.test_room_night import agree, current_tables, enter, seated
from tests.tournaments.test_rounds import create, run, wait_until
from tournaments import actions, exports, rankings, table_exports
from tournaments.models import AuditLog, TableSet

pytestmark = pytest.mark.usefixtures("live_game_db")

BOM = "\ufeff"
night = test_room_night.night  # the fixture: eight players at a duplicate night in the room


def _dicts(body: str, delimiter: str) -> list[dict[str, str]]:
    assert body.startswith(BOM)
    rows = list(csv.reader(io.StringIO(body.removeprefix(BOM), newline=""), delimiter=delimiter))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _get(client, url: str, lang: str = "nl") -> str:
    client.cookies["django_language"] = lang
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _corrections_html(page: str, marker: str) -> str:
    part = page.split(marker, 1)[1].split("</ul>", 1)[0]
    return " ".join(re.sub(r"<[^>]+>", " ", part).split())


@pytest.fixture
def audited_night(client, night, organizer, make_user):
    """Set 1 of the night: table 1 agreed by its players, table 2 entered and agreed by
    the organizer for both sides; then a player replaced."""
    t = night
    tab1, tab2 = current_tables(t)
    people = seated(tab1)
    for k, (trump, points) in enumerate([("H", 41), ("none", 30)], start=1):
        assert enter(client, t, tab1, people[k % 4], k, trump, points).status_code == 302
    agree(client, t, tab1, people[0])
    agree(client, t, tab1, people[3])
    enter(client, t, tab2, organizer, 1, "D", 31)
    enter(client, t, tab2, organizer, 2, "S", 22)
    agree(client, t, tab2, organizer)
    wait_until(
        lambda: TableSet.objects.filter(round__tournament=t, number=1, status="done").exists()
    )
    leaving = seated(tab1)[1]
    newcomer = make_user("nieuwkomer")
    entry = actions.entry_of(leaving, t)
    actions.replace_player(entry.pk, organizer, newcomer, "ziek")
    return t, leaving.get_username()


def test_printed_corrections_read_as_the_organizers_log(client, audited_night, organizer):
    t, leaving = audited_night
    client.force_login(organizer)
    organize = _get(client, reverse("tournaments:tables-organize", args=[t.pk]))
    on_screen = _corrections_html(organize, "data-audit")
    results = _get(client, reverse("tournaments:tables-results", args=[t.pk]))
    # Headed as what it is: not only corrections (agreements, replacements, ...).
    assert "Logboek van de organisator" in results
    printed = _corrections_html(results, "data-corrections")
    replaced = f"verving {leaving} door nieuwkomer"
    agreed = "ging akkoord met het scoreblad van ronde 1, set 1, tafel 2 voor beide kanten"
    for text in (on_screen, printed):
        assert replaced in text and "ziek" in text, text
        assert agreed in text, text
        # Never the stored data: no action names, no dicts.
        assert "replace_player" not in text and "room_agree" not in text
        assert "{" not in text and "'player'" not in text and "&#x27;" not in text


def test_corrections_csv_describes_each_action_and_names_people(client, audited_night, organizer):
    t, leaving = audited_night
    client.force_login(organizer)
    body = _get(client, reverse("tournaments:tables-export", args=[t.pk, "corrections.csv"]))
    rows = _dicts(body, ";")
    assert list(rows[0]) == exports.CORRECTION_COLUMNS and "description" in rows[0]
    by_action = {r["action"]: r for r in rows}
    assert by_action["replace_player"]["description"] == f"verving {leaving} door nieuwkomer"
    assert by_action["replace_player"]["reason"] == "ziek"
    agreed = by_action["room_agree"]
    assert agreed["description"] == (
        "ging akkoord met het scoreblad van ronde 1, set 1, tafel 2 voor beide kanten"
    )
    # Who entered each deal of the sheet: by name, never an account's id.
    assert '"by": "organizer"' in agreed["after"], agreed["after"]
    assert f'"by": {organizer.pk}' not in agreed["after"]
    # The JSON export's (and the API's) corrections likewise.
    (as_json,) = [c for c in exports.corrections(t) if c["action"] == "room_agree"]
    assert '"by": "organizer"' in json.dumps(as_json["after"])
    # Every row has its sentence (none falls back to the stored data).
    for row in rows:
        assert row["description"] and "{" not in row["description"], row
    # In English for an English reader, comma-separated, with a byte-order mark.
    english = _dicts(exports.corrections_csv(t, exports.csv_style("en")), ",")
    replaced = next(r for r in english if r["action"] == "replace_player")
    assert replaced["description"] == f"replaced {leaving} by nieuwkomer"


def test_a_solo_tournaments_corrections_csv_has_the_sentence(
    make_tournament, fake_entry, organizer
):
    t = make_tournament(seed="polish-solo")
    fake_entry(t, "alice", 40, {1: 40, 2: 35})
    bert = fake_entry(t, "bert", -10, {1: 20, 2: 35})
    actions.correct_score(bert.pk, organizer, -5, "rekenfout")
    rankings.recompute(t.pk)
    [row] = _dicts(exports.corrections_csv(t, exports.csv_style("en")), ",")
    assert row["description"] == "corrected the score of bert: -10 → -5"
    [row] = _dicts(exports.corrections_csv(t, exports.csv_style("nl")), ";")
    assert row["description"] == "corrigeerde de score van bert: -10 → -5"
    assert row["who"] == "organizer" and row["player"] == "bert" and row["reason"] == "rekenfout"
    assert AuditLog.objects.filter(tournament=t).count() == 1


@pytest.fixture
def stand_in_night(club, organizer):
    """Six simulated players at a duplicate night in the room: two tables, two stand-ins."""
    t = create(
        "--format", "rotating", "--players", "6", "--sets", "3", "--deals", "1",
        "--duplicate", "--in-room", "--open", "--seed", "polish-stand-in",
        "--organizer", organizer.get_username(), "--club", club.slug,
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--prefix", "invul")
    t.refresh_from_db()
    assert t.is_closed
    return t


def _set_tables(page: str) -> str:
    """The per-set tables of the printed results."""
    return " ".join(part.split("</table>", 1)[0] for part in page.split("data-print-set=")[1:])


def test_a_room_nights_printed_results_name_stand_ins_not_bots(client, stand_in_night, organizer):
    t = stand_in_night
    client.force_login(organizer)
    page = _get(client, reverse("tournaments:tables-results", args=[t.pk]))
    tables = _set_tables(page)
    assert "<em>invaller</em>" in tables and "<em>bot</em>" not in tables
    english = _get(client, reverse("tournaments:tables-results", args=[t.pk]), "en")
    assert "Stand-ins never rank." in english and "Bots never rank." not in english
    assert "Duplicate MP =" in english  # duplicate: its columns are shown and explained


def test_online_printed_results_still_name_bots(client, club, organizer):
    t = create(
        "--format", "rotating", "--players", "5", "--sets", "3", "--deals", "1",
        "--open", "--seed", "polish-bots", "--organizer", organizer.get_username(),
        "--club", club.slug,
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--players", "5")
    t.refresh_from_db()
    assert t.is_closed
    client.force_login(organizer)
    page = _get(client, reverse("tournaments:tables-results", args=[t.pk]), "en")
    tables = _set_tables(page)
    assert "<em>bot</em>" in tables and "stand-in" not in tables
    # Not duplicate: no duplicate columns, and the legend does not explain them.
    for url in (
        reverse("tournaments:tables-results", args=[t.pk]),
        reverse("tournaments:tables", args=[t.pk]),
        reverse("tournaments:tables-organize", args=[t.pk]),
    ):
        html = _get(client, url, "en")
        legend = html.split("data-standings-legend", 1)[1].split("</p>", 1)[0]
        assert "Score =" in legend and "Bots never rank." in legend
        assert "Duplicate MP" not in legend and "± field" not in legend, url
        assert "duplicate score" not in legend
        assert "Duplicate MP" not in html  # no such column either
    dutch = _get(client, reverse("tournaments:tables", args=[t.pk]), "nl")
    assert "Duplicaat-MP" not in dutch and "± veld" not in dutch


@pytest.mark.parametrize(
    "export",
    [
        exports.standings_csv,
        exports.travellers_csv,
        exports.corrections_csv,
    ],
)
@pytest.mark.parametrize("lang", ["en", "nl", "fr"])
def test_every_solo_csv_starts_with_a_byte_order_mark(make_tournament, fake_entry, export, lang):
    t = make_tournament(seed="polish-bom")
    fake_entry(t, "zoë", 40, {1: 40, 2: 35})
    rankings.recompute(t.pk)
    body = export(t, exports.csv_style(lang))
    assert body.startswith(BOM)
    assert body.count(BOM) == 1


def test_english_csv_downloads_have_a_byte_order_mark(client, stand_in_night, organizer):
    t = stand_in_night
    client.force_login(organizer)
    for kind in [*table_exports.CSV_FILES, "corrections.csv"]:
        client.cookies["django_language"] = "en"
        raw = client.get(reverse("tournaments:tables-export", args=[t.pk, kind])).content
        assert raw.startswith(b"\xef\xbb\xbf"), kind
        comma = client.get(reverse("tournaments:tables-export", args=[t.pk, kind]) + "?sep=comma")
        assert comma.content.startswith(b"\xef\xbb\xbf"), kind
    deals = _dicts(table_exports.deals_csv(t, exports.csv_style("en")), ",")
    assert any("♠" in d["south_hand"] for d in deals)
