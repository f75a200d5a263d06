"""Issue 10, items 3 and 24: CSV exports that a spreadsheet opens safely and readably.

Every text cell a spreadsheet would run as a formula is neutralised (OWASP's rule); the
files follow Excel's defaults of the reader's language (`;` and decimal comma in Dutch
and French, `,` in English, or the choice made on the export page; a byte-order mark in
every language, or Excel garbles ♠♥♦♣ and accented names); one
table per file; seats and suits named in the page's language.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from tournaments import actions, exports, rankings

pytestmark = pytest.mark.usefixtures("live_game_db")

NASTY_NAMES = ["-bob", "+carla", "@dirk", "=evil"]
NASTY_REASONS = ['=HYPERLINK("http://evil.example/","klik")', "\t=1+1", "\r=2+2", "@SUM(A1)"]
NUMBER = re.compile(r"-?\d+([.,]\d+)?")


@pytest.fixture
def ranked(make_tournament, fake_entry, organizer):
    t = make_tournament(seed="csv-seed")
    entries = [
        fake_entry(t, name, 40 - 10 * i, {1: 40 - 5 * i, 2: 35})
        for i, name in enumerate(NASTY_NAMES)
    ]
    for entry, reason in zip(entries, NASTY_REASONS, strict=True):
        actions.correct_score(entry.pk, organizer, entry.score - 1, reason)
    rankings.recompute(t.pk)
    return t


def _rows(body: str, delimiter: str) -> list[list[str]]:
    return list(
        csv.reader(io.StringIO(body.removeprefix("\ufeff"), newline=""), delimiter=delimiter)
    )


@pytest.mark.parametrize("lang", ["nl", "fr", "en"])
@pytest.mark.parametrize(
    "make", [exports.standings_csv, exports.travellers_csv, exports.corrections_csv]
)
def test_no_cell_starts_a_formula(ranked, make, lang):
    style = exports.csv_style(lang)
    rows = _rows(make(ranked, style), style.delimiter)
    cells = [c for row in rows[1:] for c in row]
    assert cells
    for cell in cells:
        if NUMBER.fullmatch(cell):  # a negative score stays a number
            continue
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), repr(cell)
    text = " ".join(cells)
    if make is not exports.corrections_csv:
        for name in NASTY_NAMES:  # shown as text, with a leading quote
            assert f"'{name}" in cells
    else:
        for reason in NASTY_REASONS:
            assert "'" + reason.strip() in cells, (reason, text)  # stored stripped


def test_safe_cell_follows_owasp():
    en = exports.csv_style("en")
    for value in ["=1+1", "+1", "-1 kaart", "@x", "\tx", "\rx"]:
        assert exports.safe_cell(value, en) == "'" + value
    assert exports.safe_cell("Anna", en) == "Anna"
    assert exports.safe_cell(-5, en) == "-5"  # numbers are numbers
    assert exports.safe_cell(-2.5, exports.csv_style("nl")) == "-2,5"


def _get(client, url, lang):
    from django.conf import settings

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang  # the site's language choice
    return client.get(url)


@pytest.mark.parametrize(
    ("lang", "sep", "bom", "dealer", "trump", "decimal"),
    [
        ("nl", ";", True, "Zuid", "♥ Harten", ","),
        ("fr", ";", True, "Sud", "♥ Cœur", ","),
        ("en", ",", True, "South", "♥ Hearts", "."),
    ],
)
def test_csv_follows_the_readers_language(
    ranked, organizer, client, lang, sep, bom, dealer, trump, decimal
):
    client.force_login(organizer)
    response = _get(client, f"/tournaments/{ranked.pk}/export/travellers.csv", lang)
    assert response.status_code == 200
    raw = response.content
    assert raw.startswith(b"\xef\xbb\xbf") == bom
    body = raw.decode("utf-8")
    rows = _rows(body, sep)
    header = rows[0]
    assert header == exports.TRAVELLER_COLUMNS
    row = dict(zip(header, rows[1], strict=True))
    assert row["dealer"] == dealer and row["trump"] == trump
    assert row["wij_points"] == "40"
    assert re.fullmatch(rf"\d+\{decimal}\d+", row["matchpoints"]), row["matchpoints"]

    standings = _rows(
        _get(client, f"/tournaments/{ranked.pk}/export/standings.csv", lang).content.decode(), sep
    )
    assert standings[0] == exports.STANDINGS_COLUMNS
    assert len(standings) == 1 + len(NASTY_NAMES)  # one table: corrections in their own file
    assert all(len(r) == len(exports.STANDINGS_COLUMNS) for r in standings)
    fixes = _rows(
        _get(client, f"/tournaments/{ranked.pk}/export/corrections.csv", lang).content.decode(), sep
    )
    assert fixes[0] == exports.CORRECTION_COLUMNS and len(fixes) == 1 + len(NASTY_NAMES)


def test_the_export_page_offers_the_separator(ranked, organizer, client):
    client.force_login(organizer)
    page = _get(client, f"/tournaments/{ranked.pk}/standings/", "nl").content.decode()
    assert "corrections.csv" in page and 'name="sep"' in page
    assert '<option value="semicolon" selected>' in page
    page = _get(client, f"/tournaments/{ranked.pk}/standings/?sep=comma", "nl").content.decode()
    assert '<option value="comma" selected>' in page
    assert "standings.csv?sep=comma" in page
    body = _get(client, f"/tournaments/{ranked.pk}/export/standings.csv?sep=comma", "nl").content
    assert body.startswith(b"\xef\xbb\xbf")  # whatever the separator
    assert _rows(body.decode(), ",")[0] == exports.STANDINGS_COLUMNS
    body = _get(
        client, f"/tournaments/{ranked.pk}/export/standings.csv?sep=semicolon", "en"
    ).content
    assert body.startswith(b"\xef\xbb\xbf")
    assert _rows(body.decode(), ";")[0] == exports.STANDINGS_COLUMNS


def test_the_travellers_export_reads_every_deal_in_one_query(
    make_tournament, fake_entry, django_assert_max_num_queries
):
    t = make_tournament(seed="travellers-queries")
    for i, name in enumerate(["anna", "ben", "cas"]):
        fake_entry(t, name, 30 - i, {k: 20 + i + k for k in range(1, 13)})
    rankings.recompute(t.pk)
    with django_assert_max_num_queries(1):
        travellers = exports.travellers(t)
    assert [trav["deal"] for trav in travellers] == list(range(1, 13))
    for trav in travellers:  # the same rows as each deal's own traveller
        assert trav["results"] == rankings.traveller(t, trav["deal"])
        assert len(trav["results"]) == 3


def test_the_records_export_asks_no_query_per_game(make_tournament, fake_entry, club, make_user):
    """records.txt (and the records zip) wrote each game's tags after a query for its
    seats (and, at tables, for its tournament): 200 entries, 205 queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from game import actions as game_actions
    from tests.tournaments.conftest import joined

    def solo(players: int):
        t = make_tournament(seed=f"records-{players}")
        for i in range(players):
            entry = fake_entry(t, f"r{players}-{i}", 0, {})
            game_actions.seats_of(entry.game)  # its four seats, as a played game has
        return t

    def tables(players: int):
        t = actions.create_tables_tournament(
            club.organizers.first(), name=f"Records {players}", club=club, fmt="rotating",
            players=players, sets=3, deals=1, open_now=True,
        )  # fmt: skip
        joined(t, *[make_user(f"t{players}-{i}") for i in range(players)])
        actions.start_tables(t.pk)
        return t

    for make in (tables, solo):
        counts = []
        for size in (4, 12):
            t = make(size)
            with CaptureQueriesContext(connection) as queries:
                text = exports.records_text(t)
            assert text.count("[South ") == (size if make is solo else size // 4)
            counts.append(len(queries))
        assert counts[0] == counts[1], (make.__name__, counts)
