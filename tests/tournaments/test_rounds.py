"""Tournaments of rounds and tables (issue 12): the stable hooks end to end, the draw
wired to the tables, duplicate across tables, scoring, cut, and the refusals."""

from __future__ import annotations

import io
import json
import re
from collections import Counter

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from tests.tournaments.conftest import joined
from tournaments import actions, scoring, tables
from tournaments.models import Entry, Table, TableSeat, TableSet, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def wait_until(predicate, timeout: float = 90) -> None:
    """The end of a set is a task: eager when embedded, a worker's on the production
    stack. Wait for what it does (polling the database)."""
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the set did not move on"
        time.sleep(0.1)


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def create(*args) -> Tournament:
    out = run("create_tournament", *args)
    return Tournament.objects.get(pk=int(re.search(r"id: (\d+)", out).group(1)))


def exported(t: Tournament) -> dict:
    return json.loads(run("export_tournament", str(t.pk), "--format", "json"))


def test_rotating_duplicate_with_bots_end_to_end():
    """6 players: two tables, a bot at each; three sets of rotating partners; the same
    deals at both tables of a set; the export carries the whole structure."""
    t = create(
        "--format", "rotating", "--players", "6", "--rounds", "1", "--sets", "3",
        "--deals", "2", "--duplicate", "--tie", "own", "--open", "--seed", "rot-6",
    )  # fmt: skip
    assert t.has_tables and t.structure.rules_spec == "flemish deals=2 tie=own"
    out = run("simulate_tournament", str(t.pk))
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED, out
    sets = list(TableSet.objects.filter(round__tournament=t).order_by("number"))
    assert [s.number for s in sets] == [1, 2, 3]
    entries = set(Entry.objects.filter(tournament=t).values_list("pk", flat=True))
    partners = Counter()
    for s in sets:
        seats = list(TableSeat.objects.filter(table__table_set=s).select_related("table__game"))
        people = [x.entry_id for x in seats if x.entry_id]
        # Every player seated exactly once per set; the bots fill the rest, marked.
        assert sorted(people) == sorted(entries)
        assert sum(1 for x in seats if x.is_bot) == 2
        games = {x.table.game for x in seats}
        # Duplicate: one deal source; identical hands per seat and dealer at every table.
        assert len({g.seed for g in games}) == 1
        for k in (1, 2):
            specs = {
                json.dumps([engine.deal_for(g.seed, k, g.rules).dealer,
                            engine.deal_for(g.seed, k, g.rules).texts()])
                for g in games
            }  # fmt: skip
            assert len(specs) == 1
        by_table = {}
        for x in seats:
            by_table.setdefault(x.table_id, [None] * 4)[x.index] = x.entry_id
        for seating in by_table.values():
            for a, b in ((0, 2), (1, 3)):
                if seating[a] and seating[b]:
                    partners[frozenset((seating[a], seating[b]))] += 1
        # Per table: raw scores are zero-sum between the teams; duplicate matchpoints of
        # 2 tables on 2 deals: top 2 per deal, the two directions share it.
        for x in seats:
            assert x.raw is not None and x.dup_mp is not None
        tabs = list(Table.objects.filter(table_set=s))
        assert all(t_.finished and len(t_.board) == 2 for t_ in tabs)
        mp_ns = [x.dup_mp for x in seats if x.index == 0]
        assert sum(mp_ns) == pytest.approx(2 * 2 * 1)  # tables*(tables-1) per deal, 2 deals
    # Rotating: within the round nobody partners the same player twice.
    assert max(partners.values()) == 1
    data = exported(t)
    assert data["tournament"]["format"] == "rotating" and data["tournament"]["duplicate"]
    r1 = data["rounds"][0]
    table = r1["sets"][0]["tables"][0]
    assert {"seat", "direction", "player", "bot", "raw"} <= set(table["seats"][0])
    deal = table["deals"][0]
    assert {"dealer", "hands", "trump", "announcements", "card_points", "written"} <= set(deal)
    assert len(deal["hands"]) == 4 and all(len(h) == 8 for h in deal["hands"])
    standing = data["standings"]
    assert [row["rank"] for row in standing] == list(range(1, 7))
    assert all(not row["player"].startswith("bot:") for row in standing)
    # All the games are one record file, each record naming its round, set and table.
    from engine import records

    text = run("export_tournament", str(t.pk), "--format", "records")
    games = records.read_many(text)
    assert len(games) == 6  # 2 tables x 3 sets
    assert text.count('[Round "1"]') == 6 and text.count('[Table "2"]') == 3
    assert text.count('[Set "3"]') == 2
    import zipfile

    from tournaments import exports

    names = zipfile.ZipFile(io.BytesIO(exports.records_zip(t))).namelist()
    assert "r1-s3-t002.txt" in names and "records.txt" in names and "tournament.json" in names
    # The overall raw score is the sum of the entry's set scores.
    for row in standing:
        total = sum(x.raw for x in TableSeat.objects.filter(entry_id=row["entry"]))
        assert row["raw"] == total


def test_writer_stays_with_a_cut():
    """12 players, writer-stays, 2 rounds of 2 sets, top 8 go on: round 2 is two tables
    (writer stays needs two: a cut to 4 is refused, test_draw_formats.py)."""
    t = create(
        "--format", "writer-stays", "--players", "12", "--rounds", "2", "--sets", "2",
        "--deals", "1", "--cut", "8", "--open", "--seed", "ws-12",
    )  # fmt: skip
    run("simulate_tournament", str(t.pk))
    t.refresh_from_db()
    assert t.is_closed
    last = TableSet.objects.get(round__tournament=t, round__number=2, number=2)
    assert last.tables.count() == 2
    out = Entry.objects.filter(tournament=t, out_after=1)
    assert out.count() == 4
    ranks = [row["entry"] for row in tables.standings(t)]
    still_in = set(
        Entry.objects.filter(tournament=t, out_after__isnull=True).values_list("pk", flat=True)
    )
    assert set(ranks[:8]) == still_in
    # In round 1, set 2, one player of each table stayed (kept South).
    s1 = tables.standings(t, 1)
    assert len(s1) == 12


def test_fewer_came_than_the_cut_was_made_for_the_start_is_not_refused():
    """Writer stays for 16 with half going on: 12 come. Half of 12 would leave 6, fewer
    than writer stays needs; the night still starts and the cut keeps 8."""
    t = create(
        "--format", "writer-stays", "--players", "16", "--rounds", "2", "--sets", "2",
        "--deals", "1", "--cut-fraction", "0.5", "--open", "--seed", "ws-few",
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--players", "12")
    t.refresh_from_db()
    assert t.is_closed
    assert Entry.objects.filter(tournament=t, out_after=1).count() == 4
    last = TableSet.objects.get(round__tournament=t, round__number=2, number=2)
    assert last.tables.count() == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "rotating", "--players", "8", "--deals", "0"], "1 to 100"),
        (
            ["--format", "rotating", "--players", "8", "--rounds", "2", "--cut", "9"],
            "larger than the field of 8",
        ),
        (["--format", "writer-stays", "--players", "4"], "at least 8 players"),
        (
            ["--format", "rotating", "--players", "8", "--sets", "2"],
            "use 3 sets a round (or 6, 9; asked: 2) [--sets]",
        ),
        (["--format", "rotating", "--players", "8", "--cut", "4"], "2 rounds or more [--rounds]"),
        (
            [
                "--format",
                "rotating",
                "--players",
                "8",
                "--rounds",
                "2",
                "--cut",
                "4",
                "--cut-fraction",
                "0.5",
            ],
            "not both [--cut]",
        ),
        (["--format", "knockout", "--players", "8"], "unknown --format"),
        (
            ["--format", "rotating", "--players", "8", "--round-break", "-1"],
            "0 to 600 minutes (asked: -1) [--round-break]",
        ),
        (
            ["--format", "rotating", "--players", "8", "--round-break", "100000"],
            "0 to 600 minutes (asked: 100000) [--round-break]",
        ),
        (["--capacity", "1000000"], "1 to 10000 players (asked: 1000000) [--capacity]"),
        (["--format", "pairs", "--players", "2"], "at least 4 players"),
    ],
)
def test_bad_input_is_refused_with_a_reason(args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run("create_tournament", *args)


def test_joining_after_the_draw_is_refused(django_user_model):
    t = create("--format", "pairs", "--players", "4", "--deals", "1", "--sets", "1", "--open")
    users = [django_user_model.objects.create_user(f"p{i}", password="pw-123456") for i in range(5)]
    for u in users[:4]:
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    with pytest.raises(actions.CannotJoin, match="draw has been made"):
        actions.join(t.pk, users[4])
    # Every person sees where they sit.
    seat = tables.my_seat(t, users[0])
    assert seat["table"] == 1 and seat["seat_name"] in tables.SEAT_NAMES
    progress = tables.progress(t)
    assert progress["set"] == 1 and len(progress["tables"]) == 1


def test_a_player_seated_twice_is_refused(monkeypatch, django_user_model):
    t = create("--format", "rotating", "--players", "4", "--deals", "1", "--open")
    users = [django_user_model.objects.create_user(f"q{i}", password="pw-123456") for i in range(4)]
    for u in users:
        actions.join(t.pk, u)
    from tournaments import draw

    monkeypatch.setattr(draw, "random_draw", lambda players, seed: [(players[0],) * 4])
    with pytest.raises(actions.TournamentError, match="seated twice"):
        actions.start_tables(t.pk)
    assert not t.rounds.exists()  # nothing half-made


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 7).flatmap(
        lambda n: st.lists(
            st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=3, max_size=3),
            min_size=n, max_size=n,
        )
    ),
)  # fmt: skip
def test_set_figures_match_the_definition(written):
    """Matchpoints and field differences per deal, against a plain loop."""
    w = np.array(written, dtype=float)
    f = scoring.set_figures(w, duplicate=True)
    n, deals = w.shape[0], w.shape[1]
    net = w[:, :, 0] - w[:, :, 1]
    for t in range(n):
        mp = sum(
            2 * (net[t, k] > net[o, k]) + (net[t, k] == net[o, k])
            for k in range(deals) for o in range(n) if o != t
        )  # fmt: skip
        diff = sum(
            net[t, k] - np.mean([net[o, k] for o in range(n) if o != t]) for k in range(deals)
        )
        # The figures have 4 decimals (no float noise in the seats and exports).
        assert f.mp[t, 0] == pytest.approx(mp, abs=5e-5)
        assert f.mp[t, 0] + f.mp[t, 1] == pytest.approx(2 * (n - 1) * deals)
        assert f.diff[t, 0] == pytest.approx(diff, abs=5e-5)
        assert f.diff[t, 1] == pytest.approx(-diff, abs=5e-5)
        assert round(f.diff[t, 0], 4) == f.diff[t, 0] and round(f.mp[t, 0], 4) == f.mp[t, 0]
        assert f.raw[t, 0] == net[t].sum()


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda n: st.lists(
            st.lists(
                st.one_of(st.none(), st.tuples(st.integers(0, 30), st.integers(0, 30))),
                min_size=3, max_size=3,
            ),
            min_size=n, max_size=n,
        )
    ),
)  # fmt: skip
def test_a_deal_some_tables_did_not_play(written):
    """A table that did not play a deal (None) gets the average on it; the others compare
    among themselves, scaled to the full top (Neuberg); against a plain loop."""
    w = np.array(
        [[(np.nan, np.nan) if d is None else d for d in table] for table in written], dtype=float
    )
    f = scoring.set_figures(w, duplicate=True)
    n, deals = w.shape[0], w.shape[1]
    net = w[:, :, 0] - w[:, :, 1]
    for t in range(n):
        mp = diff = 0.0
        for k in range(deals):
            others = [o for o in range(n) if o != t and not np.isnan(net[o, k])]
            if np.isnan(net[t, k]) or not others:
                mp += n - 1
                continue
            beaten = sum(2 * (net[t, k] > net[o, k]) + (net[t, k] == net[o, k]) for o in others)
            mp += beaten * (n - 1) / len(others)
            diff += net[t, k] - np.mean([net[o, k] for o in others])
        assert f.mp[t, 0] == pytest.approx(mp, abs=5e-5)
        assert f.mp[t, 0] + f.mp[t, 1] == pytest.approx(2 * (n - 1) * deals)
        assert f.diff[t, 0] == pytest.approx(diff, abs=5e-5)
        assert f.raw[t, 0] == np.nansum(net[t])


def test_ties_by_duplicate_then_head_to_head_then_lot():
    keys = ["a", "b", "c", "d"]
    order = scoring.table_order(
        keys, [10, 10, 10, 5], [3.0, 4.0, 3.0, 9.0], lambda g: {"c": 2, "a": -2}, "seed"
    )
    assert [keys[i] for i in order] == ["b", "c", "a", "d"]
    lot = scoring.table_order(keys, [1, 1, 1, 1], [0, 0, 0, 0], lambda g: {}, "s")
    assert sorted(lot) == [0, 1, 2, 3]
    assert lot == scoring.table_order(keys, [1, 1, 1, 1], [0, 0, 0, 0], lambda g: {}, "s")


def test_pages_seat_standings_organizer_and_screen(client, club, organizer, make_user):
    t = actions.create_tables_tournament(
        organizer, name="Club night", club=club, fmt="rotating", players=5, sets=3, deals=1,
        duplicate=True, open_now=True,
    )  # fmt: skip
    players = [make_user(f"m{i}") for i in range(5)]
    for u in players:
        actions.join_club(u, club.invite_code)
        actions.join(t.pk, u)
    client.force_login(players[0])
    page = client.get(f"/tournaments/{t.pk}/")
    assert page.status_code == 302 and page["Location"].endswith(f"/tournaments/{t.pk}/tables/")
    body = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-table=" not in body  # not drawn yet
    client.force_login(players[1])
    assert client.post(f"/tournaments/{t.pk}/tables/start/").status_code == 403
    client.force_login(organizer)
    assert client.post(f"/tournaments/{t.pk}/tables/start/").status_code == 302
    organize = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-progress" in organize and "m0" in organize and "bot" in organize
    client.force_login(players[0])
    seat = tables.my_seat(t, players[0])
    body = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert f'data-table="{seat["table"]}" data-seat="{seat["seat"]}"' in body
    # Dutch first: "Jij zit aan tafel 1, Noord."
    north = ["Zuid", "West", "Noord", "Oost"][seat["seat"]]
    assert f"Jij zit aan tafel {seat['table']}, {north}." in body
    assert f"/game/{seat['game']}/" in body or seat["game"] in body
    screen = client.get(f"/tournaments/{t.pk}/tables/screen/")
    assert screen.status_code == 200 and b"data-tables-standings" in screen.content
    assert b'data-every="10"' in screen.content  # the pace of its pages (screen.js)
    for asked, used in (("5", "5"), ("120", "120"), ("2", "10"), ("600", "10"), ("soon", "10")):
        page = client.get(f"/tournaments/{t.pk}/tables/screen/?every={asked}").content
        assert f'data-every="{used}"'.encode() in page, asked
    # Mid-set, standings show nothing of a table that is done while another still plays.
    data = client.get(f"/tournaments/{t.pk}/tables/?format=json").json()
    assert data["seat"]["table"] == seat["table"] and data["rows"][0]["sets"] == 0


def test_live_start_and_the_set_deadline(make_user):
    """Nobody plays before the start; at the start the tick draws and starts round 1; at
    a set's deadline the bots finish every table still playing, and the next set starts."""
    import datetime as dt

    from django.utils import timezone

    start = timezone.now() + dt.timedelta(minutes=30)
    t = actions.create_tables_tournament(
        None, name="Live", fmt="rotating", players=4, sets=3, deals=1, set_minutes=20,
        starts_at=start, live_start=True, open_now=True,
    )  # fmt: skip
    for i in range(4):
        actions.join(t.pk, make_user(f"live{i}"))
    assert actions.tick(start - dt.timedelta(minutes=1))["tables_started"] == 0
    assert not t.rounds.exists()
    assert actions.tick(start)["tables_started"] == 1
    tset = TableSet.objects.get(round__tournament=t, number=1)
    assert tset.deadline == start + dt.timedelta(minutes=20)
    game = tset.tables.get().game
    assert game.status == "active" and game.rules == "flemish deals=1 tie=own"
    # Before the deadline the people's seats wait for them.
    actions.tick(start + dt.timedelta(minutes=19))
    assert not tset.tables.get().finished
    result = actions.tick(start + dt.timedelta(minutes=21))
    assert result["set_moves_by_bot"] > 0
    wait_until(lambda: TableSet.objects.filter(round__tournament=t, number=2).exists())
    tset.refresh_from_db()
    assert tset.status == TableSet.Status.DONE
    assert TableSet.objects.filter(round__tournament=t, number=2).exists()


def test_a_round_break_shows_the_next_draw_then_starts_it_at_its_time(
    client, club, organizer, make_user
):
    import datetime as dt

    from django.contrib.auth.models import User
    from django.utils import timezone

    from game import actions as game_actions
    from tournaments.models import Round

    t = actions.create_tables_tournament(
        organizer, name="Break", club=club, fmt="writer-stays", players=9, rounds=2, sets=1,
        deals=1, round_break=10, redraw="random", open_now=True,
    )  # fmt: skip
    for i in range(9):
        u = make_user(f"b{i}")
        actions.join_club(u, club.invite_code)
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    tables = list(Table.objects.filter(table_set__round__tournament=t).order_by("number"))
    assert len(tables) == 3
    game_actions.autoplay(tables[0].game_id)
    wait_until(lambda: Table.objects.get(pk=tables[0].pk).finished)
    # A player whose table is done while the others still play: told so, and how many
    # tables are done (not "you sit at table 1" with a way back to a finished game).
    first = TableSeat.objects.filter(table=tables[0], entry__isnull=False).first()
    client.force_login(first.entry.player)
    mine = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-table-done" in mine and "Je tafel heeft ronde 1, set 1 uitgespeeld" in mine
    assert "Wachten op de andere tafels: 1 van de 3 is klaar." in mine
    assert "data-my-table" not in mine and "data-set-done" not in mine
    assert client.get(f"/tournaments/{t.pk}/tables/?format=json").json()["seat"]["waiting"] == [
        1,
        3,
    ]
    # At a table still playing, nothing changes.
    other = TableSeat.objects.filter(table=tables[1], entry__isnull=False).first()
    client.force_login(other.entry.player)
    theirs = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-my-table" in theirs and "data-table-done" not in theirs
    for tab in tables[1:]:
        game_actions.autoplay(tab.game_id)
    wait_until(lambda: Round.objects.filter(tournament=t, number=2).exists())
    waiting = Round.objects.get(tournament=t, number=2)
    assert waiting.status == Round.Status.WAITING
    assert waiting.starts_at > timezone.now() + dt.timedelta(minutes=9)
    preview = actions.next_draw(t)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-next-draw" in page and "Ronde 2 begint om" in page
    screen = client.get(f"/tournaments/{t.pk}/tables/screen/").content.decode()
    assert "Volgende ronde om" in screen
    # A player's page: their set is over and the next table is not drawn yet (not "you
    # sit at table 2" with a way to a finished game).
    client.force_login(User.objects.get(username="b0"))
    mine = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-set-done" in mine and "Ronde 1, set 1 is voorbij" in mine
    assert "data-my-table" not in mine
    assert client.get(f"/tournaments/{t.pk}/tables/?format=json").json()["seat"]["done"]
    client.force_login(organizer)
    assert actions.tick(waiting.starts_at - dt.timedelta(seconds=1))["tables_started"] == 0
    assert actions.tick(waiting.starts_at)["tables_started"] == 1
    wait_until(lambda: len(actions.seatings_so_far(t)) == 2)
    drawn = actions.seatings_so_far(t)[-1]
    assert [tuple(e.pk if e else None for e in table) for table in preview] == drawn
    # 9 players: three tables, a bot fills each free seat and never ranks.
    assert len(drawn) == 3 and sum(p is None for table in drawn for p in table) == 3


def test_travellers_of_a_finished_set_only(client, make_user):
    """A deal's traveller shows every table (same hands in duplicate, trump, points, the
    play) once the set is finished; while any table still plays it, it is not shown."""
    from game import actions as game_actions

    t = actions.create_tables_tournament(
        None, name="Trav", fmt="rotating", players=8, sets=3, deals=1, duplicate=True,
        open_now=True,
    )  # fmt: skip
    users = [make_user(f"tr{i}") for i in range(8)]
    for u in users:
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    client.force_login(users[0])
    first, second = Table.objects.filter(table_set__number=1, table_set__round__tournament=t)
    game_actions.autoplay(first.game_id)
    url = f"/tournaments/{t.pk}/tables/1/1/deal/1/"
    assert client.get(url).status_code == 404  # table 2 still plays these cards
    assert (
        "/deal/1/" not in client.get(f"/tournaments/{t.pk}/tables/?round=1&set=1").content.decode()
    )
    game_actions.autoplay(second.game_id)
    wait_until(lambda: TableSet.objects.get(pk=first.table_set_id).status == "done")
    page = client.get(url)
    assert page.status_code == 200
    data = tables.traveller(t, 1, 1, 1)
    assert [r["table"] for r in data["rows"]] == [1, 2]
    assert data["rows"][0]["hands"] == data["rows"][1]["hands"]
    assert {r["mp"] for r in data["rows"]} <= {0.0, 1.0, 2.0}
    assert sum(r["mp"] for r in data["rows"]) == 2.0
    assert all(len(r["tricks"]) == 8 for r in data["rows"])
    assert "/deal/1/" in client.get(f"/tournaments/{t.pk}/tables/?round=1&set=1").content.decode()


def test_the_organizer_replaces_a_player_who_leaves(client, club, organizer, make_user):
    from game import actions as game_actions
    from game.models import Seat

    t = actions.create_tables_tournament(
        organizer, name="Swap", club=club, fmt="rotating", players=4, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    users = [make_user(f"sw{i}") for i in range(4)]
    for u in users:
        actions.join_club(u, club.invite_code)
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    gone, newcomer = users[1], make_user("newcomer")
    seat = TableSeat.objects.get(entry__player=gone)
    game_actions.leave(seat.table.game.public_id, gone)
    client.force_login(organizer)
    page = client.post(
        f"/tournaments/{t.pk}/tables/replace/",
        {"entry": seat.entry_id, "username": "newcomer", "reason": "went home ill"},
    )
    assert page.status_code == 302
    game_seat = Seat.objects.get(game=seat.table.game, index=seat.index)
    assert game_seat.user == newcomer and game_seat.bot_control  # until they take it
    game_actions.take_back(seat.table.game.public_id, newcomer)
    assert tables.my_seat(t, newcomer)["table"] == 1 and tables.my_seat(t, gone) is None
    organize = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "verving sw1 door newcomer" in organize and "went home ill" in organize
    assert "newcomer neemt de plaats in van sw1" in organize  # said once, as done
    # The one replaced (whose open table sends them to the tables page) is told by whom.
    client.force_login(gone)
    mine = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-replaced" in mine and "plaats in dit toernooi aan newcomer" in mine
    # They finished no table: no "the sets you played stay yours".
    assert "de sets die je speelde" not in mine
    TableSeat.objects.filter(pk=seat.pk).update(played_by=gone)  # as when a set was done
    mine = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "de sets die je speelde blijven op je naam" in mine
    client.force_login(organizer)
    # No reason, or someone already playing: refused with a message.
    with pytest.raises(actions.TournamentError, match="reason"):
        actions.replace_player(seat.entry_id, organizer, make_user("x1"), " ")
    with pytest.raises(actions.TournamentError, match="already plays"):
        actions.replace_player(seat.entry_id, organizer, users[2], "swap")


def test_closing_mid_set_stops_the_tables_and_keeps_the_finished_sets(club, organizer, make_user):
    from game import actions as game_actions
    from game.models import Game

    t = actions.create_tables_tournament(
        organizer, name="Early", club=club, fmt="rotating", players=8, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    for i in range(8):
        u = make_user(f"cl{i}")
        actions.join_club(u, club.invite_code)
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    for game_id in Table.objects.filter(table_set__number=1).values_list("game_id", flat=True):
        game_actions.autoplay(game_id)
    wait_until(lambda: TableSet.objects.filter(round__tournament=t, number=2).exists())
    set2 = TableSet.objects.get(round__tournament=t, number=2)
    first = set2.tables.order_by("number").first()
    game_actions.autoplay(first.game_id)  # one table of set 2 done, the other still playing
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    set2.refresh_from_db()
    assert t.is_closed and set2.status == TableSet.Status.PLAYING  # not scored
    assert not Game.objects.filter(tournament_table__table_set=set2, status="active").exists()
    rows = tables.standings(t)
    assert len(rows) == 8 and all(r["sets"] == 1 for r in rows)
    # The stored ranks are the standing read again (the lot of ties does not move).
    assert all(Entry.objects.get(pk=r["entry"]).rank == r["rank"] for r in rows)
    assert tables.standings(t) == rows
    assert actions.notify_tables_closed(t.pk) == 0  # no solo games to tell


def test_watching_the_standings_before_the_draw_does_not_bar_joining(make_user):
    """The tables page opens the standings socket before the player joins: at a
    tournament of tables that is no look at any result (none exists before the draw)."""
    from tournaments import consumers

    t = actions.create_tables_tournament(
        None, name="Watch", fmt="rotating", players=4, sets=3, deals=1, open_now=True
    )
    user = make_user("watcher")
    assert consumers._snapshot(t.pk, user, looking=True) is not None
    assert actions.join(t.pk, user).player == user


@pytest.mark.parametrize(
    "language, text",
    [
        ("nl", "1 ronde van 3 sets van 1 deel"),
        ("en", "1 round of 3 sets of 1 deal"),
        ("fr", "1 tour de 3 manches de 1 donne"),
    ],
)
def test_the_structure_reads_in_singular_and_plural(client, club, organizer, language, text):
    from django.conf import settings as django_settings

    t = actions.create_tables_tournament(
        organizer, name="Eén ronde", club=club, fmt="rotating", players=8, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    client.force_login(organizer)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    for page in ("tables/", "tables/organize/"):
        body = client.get(f"/tournaments/{t.pk}/{page}").content.decode()
        assert text in body and "(s)" not in body


def test_closing_a_tournament_of_tables_from_the_shell_says_what_happens_to_its_sets():
    t = create("--format", "rotating", "--players", "4", "--sets", "3", "--deals", "1", "--open")
    out = io.StringIO()
    err = io.StringIO()
    call_command("close_tournament", str(t.pk), "--unfinished", "bot", stdout=out, stderr=err)
    assert "unfinished sets: stopped, not scored" in out.getvalue()
    assert "unfinished games" not in out.getvalue() and "solo tournaments" in err.getvalue()


def _four_at_one_table(club, organizer, make_user, name: str, **structure):
    """A rotating tournament of four of the club's members, drawn and started (one
    table): the tournament and the four, in their entry order."""
    t = actions.create_tables_tournament(
        organizer, name=name, club=club, fmt="rotating", players=4, sets=3,
        open_now=True, **{"deals": 2, **structure},
    )  # fmt: skip
    people = [make_user(f"{name.lower().replace(' ', '-')}-{i}") for i in range(4)]
    joined(t, *people)
    actions.start_tables(t.pk, organizer)
    return t, people


def test_a_tournament_closed_mid_set_says_so_at_the_table_and_on_its_pages(
    client, club, organizer, make_user
):
    """Closed while its first set is played: the open table says it stopped (no choice
    offered, a way back), and the tournament's pages, the big screen and the printed
    log say which set stopped unscored."""
    t, people = _four_at_one_table(club, organizer, make_user, "Te vroeg")
    tab = Table.objects.get(table_set__round__tournament=t)
    client.force_login(people[0])
    game_url = f"/game/{tab.game.public_id}/"
    page = client.get(game_url).content.decode()
    assert 'data-closed="false"' in page and "data-closed-note hidden" in page
    actions.close_tournament(t.pk, organizer)
    page = client.get(game_url).content.decode()
    assert 'data-closed="true"' in page  # the table offers no move
    assert "data-closed-note hidden" not in page and "data-leave" not in page
    assert "Het toernooi is gesloten: deze tafel stopte waar ze stond" in page
    assert f'href="/tournaments/{t.pk}/tables/" data-results-link' in page
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "vóór het einde gesloten: set 1.1 stopte waar hij stond" in page
    page = client.get(f"/tournaments/{t.pk}/tables/?round=1&set=1").content.decode()
    assert "data-set-stopped" in page and "Geen scores: deze set telt niet." in page
    assert "Nog geen set afgelopen" not in page
    page = client.get(f"/tournaments/{t.pk}/tables/screen/").content.decode()
    assert "data-screen-closed" in page and "Set 1.1 werd gestopt" in page
    # The room's screen marks nobody's row: whoever is logged in on the projector.
    assert 'class="mine"' not in page and 'data-me=""' in page
    assert 'class="mine"' in client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/results/").content.decode()
    assert "sloot het toernooi vóór het einde: set 1.1 stopte" in page
    assert "Er werd geen set afgewerkt voor het toernooi sloot." in page


def test_the_club_page_says_a_tournament_of_tables_is_open_for_sign_up_until_its_draw(
    client, club, organizer
):
    """Its start passed without a draw (stored as running): the club's list says what
    the tournament's own page says, "inschrijving open", not "bezig"."""
    t = actions.create_tables_tournament(
        organizer, name="Nog niet geloot", club=club, fmt="rotating", players=8, sets=3,
        deals=1, open_now=True,
    )  # fmt: skip
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.RUNNING)
    client.force_login(organizer)
    club_page = client.get(f"/clubs/{club.slug}/").content.decode()
    own_page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "inschrijving open" in own_page
    line = next(x for x in club_page.splitlines() if "Nog niet geloot" in x)
    assert "inschrijving open" in line and "bezig" not in line


def test_the_players_see_when_their_set_ends(client, club, organizer, make_user):
    """A set with a deadline: the tournament's page and the table say when it ends (the
    bots play what is left then), in the club's time zone, named (CET/CEST)."""
    from django.utils import timezone

    t, people = _four_at_one_table(club, organizer, make_user, "Met deadline", set_minutes=25)
    tset = TableSet.objects.get(round__tournament=t, number=1)
    # With the zone: on the night the clocks go back, 02:00 comes twice.
    at = timezone.localtime(tset.deadline).strftime("%H:%M %Z")
    client.force_login(people[0])
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-set-deadline" in page and f"De set eindigt om {at}" in page
    tab = Table.objects.get(table_set=tset)
    page = client.get(f"/game/{tab.game.public_id}/").content.decode()
    assert "data-set-deadline" in page and f"De set eindigt om {at}" in page


def test_the_solo_pages_of_a_tournament_of_tables_lead_to_its_own(
    client, club, organizer, make_user
):
    """Compare, a deal's comparison, a solo traveller and verify are the solo format's:
    typed for a tournament of tables they lead to its page, not to "compare after you
    have finished your own game"."""
    t = actions.create_tables_tournament(
        organizer, name="Geen solo", club=club, fmt="rotating", players=4, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    player = make_user("geensolo")
    club.members.add(player)
    client.force_login(player)
    for path in ("compare/", "compare/1/", "deal/1/", "verify/"):
        response = client.get(f"/tournaments/{t.pk}/{path}")
        assert response.status_code == 302, path
        assert response["Location"] == f"/tournaments/{t.pk}/tables/", path


@pytest.mark.parametrize("preset", ["french", "malilla"])
def test_tables_of_presets_without_doubling_never_double_after_a_tie(preset):
    """The tie option's default is "as the rules say": french and malilla double
    nothing after a tie (RULES §8), at tables as in a solo tournament."""
    t = create(
        "--rules", preset, "--format", "pairs", "--players", "8", "--rounds", "1",
        "--sets", "2", "--open",
    )  # fmt: skip
    s = t.structure
    assert s.rules_spec == f"{preset} deals=8" and s.ties_double is False
    assert engine.get_rules(s.rules_spec).tie_doubles_next is False
    assert exported(t)["tournament"]["tie_carry"] is False
    flemish = create("--format", "pairs", "--players", "8", "--rounds", "1", "--sets", "2")
    assert flemish.structure.ties_double is True
    assert flemish.structure.rules_spec == "flemish deals=8"


def test_a_players_data_names_the_tournament_of_their_tables_games():
    """The data download's record of a game at a tournament's table is named after the
    tournament and its club, as the tournament's records export names it."""
    from django.contrib.auth import get_user_model

    from accounts import actions as account_actions

    t = create(
        "--format", "pairs", "--players", "4", "--rounds", "1", "--sets", "1",
        "--deals", "1", "--open", "--name", "Tafelavond",
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--players", "4", "--prefix", "data-speler")
    t.refresh_from_db()
    assert t.status == Tournament.Status.CLOSED
    player = get_user_model().objects.get(username="data-speler-1")
    (game,) = account_actions.personal_data(player)["games"]  # the one table it sat at
    rec = engine.records.read_text(game["record"])
    assert rec.tags["Event"] == "Tafelavond"
