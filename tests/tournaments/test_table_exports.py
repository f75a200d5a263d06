"""Issue 12, parts 3, 6 and 7 for tournaments of tables: CSV and PDF exports of the
structure (standings overall, per round, per set; every deal at every table), the
organizer's correction of a table's score with its audit trail and recomputation, and
the travellers' link to each table's replay."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client

from tests.tournaments.test_rounds import wait_until
from tournaments import actions, scoring, table_exports, tables
from tournaments.models import AuditLog, Entry, Table, TableSeat, TableSet, Tournament
from tournaments.templatetags.tournament_tags import hand_suit_order

pytestmark = pytest.mark.usefixtures("live_game_db")


def _rows(body: str, delimiter: str) -> list[list[str]]:
    return list(
        csv.reader(io.StringIO(body.removeprefix("\ufeff"), newline=""), delimiter=delimiter)
    )


def _dicts(body: str, delimiter: str) -> list[dict[str, str]]:
    rows = _rows(body, delimiter)
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def played(club, organizer):
    """10 players (three tables, two bots), 2 rounds of 1 set of 2 deals, duplicate,
    simulated to the end; one player renamed so that a spreadsheet would run the name."""
    t = actions.create_tables_tournament(
        organizer, name="Tafels export", club=club, fmt="writer-stays", players=10, rounds=2,
        sets=1, deals=2, duplicate=True, open_now=True, seed="tab-export-seed",
    )  # fmt: skip
    _run("simulate_tournament", str(t.pk), "--players", "10")
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED
    nasty = Entry.objects.filter(tournament=t).order_by("pk").first().player
    nasty.username = "=evil"
    nasty.save(update_fields=["username"])
    return t


def test_csv_files_carry_the_structure_in_the_readers_style(played, organizer, client):
    t = played
    client.force_login(organizer)
    client.cookies["django_language"] = "nl"
    response = client.get(f"/tournaments/{t.pk}/tables/export/deals.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    body = response.content.decode()
    assert body.startswith("\ufeff")  # Dutch reader: BOM, ";" and decimal commas
    deals = _dicts(body, ";")
    assert list(deals[0])[:8] == [
        "round", "set", "table", "deal", "south", "west", "north", "east",
    ]  # fmt: skip
    # One row per table per deal: 2 rounds x 1 set x 3 tables x 2 deals.
    assert Table.objects.filter(table_set__round__tournament=t).count() == 6
    assert len(deals) == 12
    for tab in Table.objects.filter(table_set__round__tournament=t).select_related(
        "table_set__round"
    ):
        mine = [
            d for d in deals
            if (d["round"], d["set"], d["table"])
            == (str(tab.table_set.round.number), str(tab.table_set.number), str(tab.number))
        ]  # fmt: skip
        assert [d["deal"] for d in mine] == ["1", "2"]
        names = {
            s.index: ("'" + s.entry.player.username if s.entry.player.username == "=evil"
                      else s.entry.player.username) if s.entry_id else "(bot)"
            for s in tab.seats.select_related("entry__player")
        }  # fmt: skip
        for d in mine:
            assert [d["south"], d["west"], d["north"], d["east"]] == [names[i] for i in range(4)]
            k = int(d["deal"]) - 1
            assert [int(d["ns_written"]), int(d["ew_written"])] == tab.board[k]["written"]
            assert [int(d["ns_points"]), int(d["ew_points"])] == tab.board[k]["card_points"]
            assert d["dealer"] in ("Zuid", "West", "Noord", "Oost")
            assert d["corrected"] == "nee" and d["ns_written_played"] == ""
            # Closed: the four hands, 8 cards each, as the table shows them (by suit, the
            # trump first, high to low), not in the order they were dealt.
            trump = tab.board[k].get("trump") or None
            order, ranks = hand_suit_order(trump), "10 A K Q J 9 8 7".split()
            for x in ("south", "west", "north", "east"):
                hand = d[f"{x}_hand"].split()
                keys = [
                    (order.index("SHDC"["♠♥♦♣".index(c[-1])]), ranks.index(c[:-1])) for c in hand
                ]
                assert len(hand) == 8 and keys == sorted(keys), (trump, hand)
    # Duplicate matchpoints per deal: 3 tables, a top of 4 shared by the directions;
    # South/North's over the tables sum to 3 x 2.
    by_deal = defaultdict(float)
    for d in deals:
        mp = float(d["ns_dup_mp"].replace(",", "."))
        assert mp + float(d["ew_dup_mp"].replace(",", ".")) == 4.0
        by_deal[(d["round"], d["set"], d["deal"])] += mp
    assert set(by_deal.values()) == {6.0} and len(by_deal) == 4
    assert any("," in d["ns_dup_diff"] for d in deals)  # decimal commas
    # Nothing a spreadsheet would run: the player named "=evil" is text.
    cells = [c for row in _rows(body, ";")[1:] for c in row]
    assert "'=evil" in cells and "=evil" not in cells

    # Standings: overall, per round, per set; players only (bots never rank).
    client.cookies["django_language"] = "en"
    overall = _dicts(
        client.get(f"/tournaments/{t.pk}/tables/export/standings.csv").content.decode(), ","
    )  # noqa: E501
    assert [r["rank"] for r in overall] == [str(i) for i in range(1, 11)]
    ranked = tables.standings(t)
    assert [r["score"] for r in overall] == [str(r["raw"]) for r in ranked]
    assert "'=evil" in [r["player"] for r in overall] and "(bot)" not in str(overall)
    assert {"dup_mp", "dup_diff", "sets", "out_after"} <= set(overall[0])
    per_round = _dicts(table_exports.round_standings_csv(t, table_exports.csv_style("en")), ",")
    assert [r["round"] for r in per_round] == ["1"] * 10 + ["2"] * 10
    per_set = _dicts(table_exports.set_standings_csv(t, table_exports.csv_style("en")), ",")
    assert len(per_set) == 2 * 10 and per_set[-1]["round"] == "2" and per_set[-1]["set"] == "1"
    for r in per_set:  # one set: the entry's seat score at that set
        assert r["sets"] == "1"
    # The solo URL of a CSV file serves the tables' one; the command has the same files.
    same = client.get(f"/tournaments/{t.pk}/export/deals.csv").content.decode()
    assert same == table_exports.deals_csv(t, table_exports.csv_style("en"))
    out = _run("export_tournament", str(t.pk), "--format", "csv", "--what", "set-standings")
    assert len(_rows(out, ",")) == 1 + 20
    out = _run(
        "export_tournament", str(t.pk), "--format", "csv", "--what", "deals", "--sep", "semicolon"
    )  # noqa: E501
    assert len(_dicts(out, ";")) == 12
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="set-standings"):
        _run("export_tournament", str(t.pk), "--format", "csv", "--what", "travellers")


def test_the_printable_results_and_the_pdf(played, organizer, client, tmp_path):
    t = played
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/results/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count("data-print-round=") == 2 and html.count("data-print-set=") == 2
    assert html.count("data-print-table=") == 6
    assert "deals.csv" in html and f"/tournaments/{t.pk}/tables/results.pdf" in html
    # The solo URLs lead to the same for a tournament of tables.
    assert (
        client.get(f"/tournaments/{t.pk}/results/").content.decode().count("data-print-set=") == 2
    )  # noqa: E501
    response = client.get(f"/tournaments/{t.pk}/tables/results.pdf")
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    from weasyprint.formatting_structure.boxes import TextBox

    from tournaments import pdf

    document = pdf.document(html, base_url="http://testserver/")
    text = " ".join(
        box.text for page in document.pages for box in page._page_box.descendants()
        if isinstance(box, TextBox)
    )  # fmt: skip
    for row in tables.standings(t):
        assert row["player"] in text
    # The organizer's view offers them too.
    organize = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-organizer-exports" in organize
    assert f"/tournaments/{t.pk}/tables/export/deals.csv" in organize
    # In Dutch: the deals are "delen" (a noun), not "deelt" as the table's dealer does.
    client.cookies["django_language"] = "nl"
    organize = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "delen CSV</a>" in organize and "deelt CSV" not in organize
    client.cookies["django_language"] = "en"
    target = tmp_path / "r.pdf"
    _run("export_tournament", str(t.pk), "--format", "pdf", "-o", str(target))
    assert target.read_bytes().startswith(b"%PDF")


def test_nothing_of_a_set_still_being_played(client, club, organizer, make_user):
    """While one table of a set still plays, its deals and scores are in no export
    (in duplicate the other table holds the same cards)."""
    from game import actions as game_actions

    t = actions.create_tables_tournament(
        organizer, name="Halfweg", club=club, fmt="rotating", players=8, sets=3, deals=1,
        duplicate=True, open_now=True,
    )  # fmt: skip
    users = [make_user(f"hw{i}") for i in range(8)]
    for u in users:
        actions.join_club(u, club.invite_code)
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    first = Table.objects.filter(table_set__round__tournament=t, number=1).get()
    game_actions.autoplay(first.game_id)
    client.force_login(users[0])
    body = client.get(f"/tournaments/{t.pk}/tables/export/deals.csv?sep=comma").content.decode()
    assert len(_rows(body, ",")) == 1  # the header only
    body = client.get(f"/tournaments/{t.pk}/tables/export/standings.csv?sep=comma").content.decode()
    assert all(r["sets"] == "0" for r in _dicts(body, ","))
    assert (
        "data-print-set=" not in client.get(f"/tournaments/{t.pk}/tables/results/").content.decode()
    )  # noqa: E501
    assert client.get(f"/tournaments/{t.pk}/tables/1/1/table/1/").status_code == 404
    # Someone outside the club sees nothing of it.
    client.force_login(make_user("stranger"))
    assert client.get(f"/tournaments/{t.pk}/tables/export/deals.csv").status_code == 404


def test_the_organizer_corrects_a_deal_at_a_table(
    played, organizer, client, make_user, monkeypatch
):  # noqa: E501
    t = played
    pushed = []
    monkeypatch.setattr(tables, "push_standings", lambda pk, rows=None: pushed.append(pk))
    tset = TableSet.objects.get(round__tournament=t, round__number=2, number=1)
    tab = Table.objects.get(table_set=tset, number=1)
    before_board = [dict(b) for b in tab.board]
    old = before_board[1]["written"]
    new = [old[0] + 7, old[1]]
    raws = {s.index: s.raw for s in tab.seats.all()}
    standings_before = {r["entry"]: r["raw"] for r in tables.standings(t)}

    # Organizer only, POST only, with CSRF, with a reason.
    form = {"round": 2, "set": 1, "table": 1, "deal": 2, "written_ns": new[0],
            "written_ew": new[1], "reason": "wrong card counted"}  # fmt: skip
    player = Entry.objects.filter(tournament=t).first().player
    client.force_login(player)
    assert client.post(f"/tournaments/{t.pk}/tables/correct/", form).status_code == 403
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.pk}/tables/correct/").status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(organizer)
    assert strict.post(f"/tournaments/{t.pk}/tables/correct/", form).status_code == 403
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-correct-table" in page and "csrfmiddlewaretoken" in page
    no_reason = client.post(
        f"/tournaments/{t.pk}/tables/correct/", {**form, "reason": " "}, follow=True
    )  # noqa: E501
    assert "reden" in no_reason.content.decode()  # Dutch: "een correctie vraagt een reden"
    tab.refresh_from_db()
    assert (
        tab.board == before_board and not AuditLog.objects.filter(action="correct_table").exists()
    )  # noqa: E501

    assert client.post(f"/tournaments/{t.pk}/tables/correct/", form).status_code == 302
    tab.refresh_from_db()
    assert tab.board[1]["written"] == new and tab.board[1]["original_written"] == old
    # The seats' set scores follow (South/North +7, West/East −7) ...
    for s in tab.seats.all():
        assert s.raw == raws[s.index] + (7 if s.index % 2 == 0 else -7)
    # ... and the set's duplicate figures are those of the corrected boards.
    boards = list(Table.objects.filter(table_set=tset).order_by("number"))
    written = np.array([[b["written"] for b in x.board] for x in boards], dtype=float)
    figures = scoring.set_figures(written, duplicate=True)
    for i, x in enumerate(boards):
        for s in x.seats.all():
            assert s.dup_mp == pytest.approx(figures.mp[i, s.index % 2])
            assert s.dup_diff == pytest.approx(figures.diff[i, s.index % 2])
    # The standings (and the entries' stored rank and score) are recomputed and pushed.
    after = {r["entry"]: r["raw"] for r in tables.standings(t)}
    for s in tab.seats.filter(entry__isnull=False):
        delta = 7 if s.index % 2 == 0 else -7
        assert after[s.entry_id] == standings_before[s.entry_id] + delta
        assert Entry.objects.get(pk=s.entry_id).score == after[s.entry_id]
    wait_until(lambda: pushed == [t.pk])
    # The audit trail, the organizer's page, the exports and the traveller show it.
    log = AuditLog.objects.get(tournament=t, action="correct_table")
    assert log.before == {"round": 2, "set": 1, "table": 1, "deal": 2, "written": old}
    assert log.after == {"written": new} and log.reason == "wrong card counted"
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert f"{old[0]} – {old[1]} → {new[0]} – {new[1]}" in page and "wrong card counted" in page
    rows = _dicts(table_exports.deals_csv(t, table_exports.csv_style("en")), ",")
    row = next(
        r for r in rows if (r["round"], r["set"], r["table"], r["deal"]) == ("2", "1", "1", "2")
    )  # noqa: E501
    assert row["corrected"] == "yes" and row["ns_written"] == str(new[0])
    assert [row["ns_written_played"], row["ew_written_played"]] == [str(old[0]), str(old[1])]
    corrections = table_exports.csv_style("en")
    from tournaments import exports

    assert "wrong card counted" in exports.corrections_csv(t, corrections)
    data = json.loads(_run("export_tournament", str(t.pk), "--format", "json"))
    deal = data["rounds"][1]["sets"][0]["tables"][0]["deals"][1]
    assert deal["written"] == new and deal["written_original"] == old
    assert data["rounds"][0]["sets"][0]["tables"][0]["deals"][0]["written_original"] is None
    [logged] = [c for c in data["corrections"] if c["action"] == "correct_table"]
    assert logged["before"]["written"] == old and logged["reason"] == "wrong card counted"
    trav = tables.traveller(t, 2, 1, 2)
    assert trav["rows"][0]["written"] == new and trav["rows"][0]["written_original"] == old
    html = client.get(f"/tournaments/{t.pk}/tables/2/1/deal/2/").content.decode()
    assert "data-written-original" in html
    assert "data-corrected" in client.get(f"/tournaments/{t.pk}/tables/results/").content.decode()
    # Refusals with a reason: a table that does not exist, a negative score.
    with pytest.raises(actions.TournamentError, match="no such table"):
        actions.correct_table_deal(t.pk, organizer, 2, 1, 9, 1, (0, 0), "x")
    with pytest.raises(actions.TournamentError, match="not negative"):
        actions.correct_table_deal(t.pk, organizer, 2, 1, 1, 1, (-1, 0), "x")
    # ... and a score no deal of these rules can write: both sides, past the most a
    # deal writes, a number no points and multiplier make.
    for impossible in [(5, 5), (9999, 0), (0, 61), (31, 0)]:
        with pytest.raises(actions.TournamentError, match="cannot be written on this deal"):
            actions.correct_table_deal(t.pk, organizer, 2, 1, 1, 1, impossible, "x")
    refused = client.post(
        f"/tournaments/{t.pk}/tables/correct/", {**form, "written_ns": 9999, "written_ew": 0},
        follow=True,
    )  # fmt: skip
    assert "9999 – 0 kan op dit deel niet geschreven worden" in refused.content.decode()
    with pytest.raises(actions.NotAllowed):
        actions.correct_table_deal(t.pk, make_user("nobody"), 2, 1, 1, 1, (0, 0), "x")
    # Corrected back to what was played: no correction left on the board.
    actions.correct_table_deal(t.pk, organizer, 2, 1, 1, 2, old, "my mistake")
    tab.refresh_from_db()
    assert tab.board == before_board
    assert {r["entry"]: r["raw"] for r in tables.standings(t)} == standings_before
    # From the traveller (organizers only: a form per table, back to the traveller).
    url = f"/tournaments/{t.pk}/tables/2/1/deal/2/"
    html = client.get(url).content.decode()
    assert html.count("data-correct-row=") == Table.objects.filter(table_set=tset).count()
    client.force_login(player)
    assert "data-correct-row=" not in client.get(url).content.decode()
    client.force_login(organizer)
    back = client.post(f"/tournaments/{t.pk}/tables/correct/", {**form, "next": url})
    assert back.status_code == 302 and back["Location"] == url
    tab.refresh_from_db()
    assert tab.board[1]["written"] == new
    away = client.post(
        f"/tournaments/{t.pk}/tables/correct/",
        {**form, "written_ns": old[0], "next": "https://evil.example/"},
    )
    assert away["Location"] == f"/tournaments/{t.pk}/tables/organize/"
    tab.refresh_from_db()
    assert tab.board == before_board


def test_travellers_link_each_tables_replay(played, client):
    """Part 3: per table the trump, card points, written score, the hands and a link to
    the replay of that table's game, which shows every deal trick by trick."""
    t = played
    player = Entry.objects.filter(tournament=t).first().player
    client.force_login(player)
    html = client.get(f"/tournaments/{t.pk}/tables/2/1/deal/2/").content.decode()
    trav = tables.traveller(t, 2, 1, 2)
    for row in trav["rows"]:
        link = f"/tournaments/{t.pk}/tables/2/1/table/{row['table']}/#deal-2"
        assert f'href="{link}"' in html
        assert f"{row['written'][0]} – {row['written'][1]}" in html
    assert html.count("data-replay") == len(trav["rows"])
    game = client.get(f"/tournaments/{t.pk}/tables/2/1/table/1/")
    assert game.status_code == 200
    body = game.content.decode()
    tab = Table.objects.get(table_set__round__tournament=t, table_set__round__number=2,
                            table_set__number=1, number=1)  # fmt: skip
    data = tables.table_game(t, 2, 1, 1)
    assert [d["number"] for d in data["deals"]] == [1, 2]
    assert body.count("data-replay-deal=") == 2 and 'id="deal-2"' in body
    for d, b in zip(data["deals"], tab.board, strict=True):
        assert d["written"] == b["written"] and len(d["tricks"]) == 8
        assert sum(trick["points"] for trick in d["tricks"]) == sum(b["card_points"])
    bots = TableSeat.objects.filter(table=tab, entry__isnull=True).count()
    assert body.count("data-bot-seat") == bots
    assert client.get(f"/tournaments/{t.pk}/tables/2/1/table/9/").status_code == 404
    # The hands as the table shows them: by suit, the trump first, then rank high to low,
    # in the travellers and the table's game alike (the deal's own order is the export's).
    ranks = "10 A K Q J 9 8 7".split()
    for hands, trump in [(row["hands"], row["trump"]) for row in trav["rows"]] + [
        (d["hands"], d["trump"]) for d in data["deals"]
    ]:
        order = hand_suit_order(None if trump in ("", "none") else trump)
        for hand in hands:
            keys = [(order.index("SHDC"["♠♥♦♣".index(c[-1])]), ranks.index(c[:-1])) for c in hand]
            assert keys == sorted(keys), (trump, hand)


def test_without_duplicate_no_duplicate_columns(club, organizer):
    """Each table its own deals: no matchpoints to compare, so no such columns; a
    comma-separated file for an English reader, with decimal points."""
    t = actions.create_tables_tournament(
        organizer, name="Zonder duplicaat", club=club, fmt="rotating", players=5, sets=3,
        deals=1, open_now=True,
    )  # fmt: skip
    _run("simulate_tournament", str(t.pk), "--players", "5")
    style = table_exports.csv_style("en")
    body = table_exports.deals_csv(t, style)
    assert body.startswith("\ufeff")  # in English too: Excel reads ♠♥♦♣ and names right
    deals = _dicts(body, ",")
    assert len(deals) == 6  # 3 sets x 2 tables (3 seats of 8 bots) x 1 deal
    assert "ns_dup_mp" not in deals[0] and "south_hand" in deals[0]
    assert sum(1 for d in deals for x in ("south", "west", "north", "east") if d[x] == "(bot)") == 9
    overall = _dicts(table_exports.standings_csv(t, style), ",")
    assert list(overall[0]) == ["rank", "player", "score", "sets", "out_after", "played_before"]
    assert len(overall) == 5 and all(r["sets"] == str(
        TableSeat.objects.filter(entry__player__username=r["player"]).count()
    ) for r in overall)  # fmt: skip


def test_standings_json_describes_the_tournament_of_tables(played, organizer, client):
    """export/standings.json of a tournament of tables: its own structure (deals per
    set, tie rule, rules) and its standings, not the solo tournament's fields."""
    t = played
    client.force_login(organizer)
    data = json.loads(client.get(f"/tournaments/{t.pk}/export/standings.json").content)
    s = t.structure
    info = data["tournament"]
    assert (info["format"], info["deals"], info["tie_carry"]) == (t.format, s.deals, s.tie_carry)
    assert info["rules"] == s.rules_spec and info["seed"] == t.seed
    assert data["standings"] == json.loads(json.dumps(tables.standings(t)))
    assert client.get(f"/tournaments/{t.pk}/export/travellers.json").status_code == 404
