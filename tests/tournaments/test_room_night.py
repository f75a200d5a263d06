"""A club night with real cards (tournaments/room.py): the organizer prints the deals,
each table enters its deals from a phone, both sides agree, and the sets, duplicate
scores and standings follow as online; who may see and change what."""

from __future__ import annotations

import re

import numpy as np
import pytest
from django.core.management import CommandError
from django.urls import reverse

import engine
from engine.scoresheet import Line, score_sheet
from tests.helpers import wait_for_idle_worker
from tests.tournaments.conftest import joined
from tests.tournaments.test_edge_cases import meet_at_the_tournament_row, needs_postgresql
from tests.tournaments.test_ratings import closed_room_night
from tests.tournaments.test_rounds import create, exported, run, wait_until
from tournaments import actions, room, scoring, tables
from tournaments.models import AuditLog, Table, TableSeat, TableSet, Tournament
from tournaments.templatetags.tournament_tags import shown_hand

pytestmark = pytest.mark.usefixtures("live_game_db")

# What tables 1 and 2 write down for deals 1 and 2 of every set: South/North's points.
ENTRIES = {1: [("H", 41), ("none", 30)], 2: [("H", 35), ("S", 22)]}


@pytest.fixture
def night(club, organizer, make_user):
    """Eight members of the club in a rotating-partners night in the room: 2 tables,
    3 sets of 2 deals, duplicate, drawn and started."""
    t = actions.create_tables_tournament(
        organizer, name="Clubavond", club=club, fmt="rotating", players=8, sets=3, deals=2,
        duplicate=True, in_room=True, open_now=True, seed="room-night",
    )  # fmt: skip
    joined(t, *[make_user(f"speler{i}") for i in range(8)])
    actions.start_tables(t.pk, organizer)
    t.refresh_from_db()
    return t


def seated(tab: Table) -> dict[int, object]:
    seats = tab.seats.select_related("entry__player")
    return {s.index: s.entry.player for s in seats if s.entry_id is not None}


def sheet_url(t, tab: Table) -> str:
    return reverse(
        "tournaments:tables-sheet",
        args=[t.pk, tab.table_set.round.number, tab.table_set.number, tab.number],
    )


def enter(client, t, tab, user, deal, trump, points, **extra):
    client.force_login(user)
    data = {"action": "enter", "deal": deal, "trump": trump, "points": points, **extra}
    return client.post(sheet_url(t, tab), data)


def agree(client, t, tab, user):
    client.force_login(user)
    return client.post(sheet_url(t, tab), {"action": "agree"})


def current_tables(t) -> list[Table]:
    tset = TableSet.objects.filter(round__tournament=t).order_by("-number").first()
    return list(tset.tables.select_related("table_set__round").order_by("number"))


def play_set(client, t) -> list[Table]:
    tabs = current_tables(t)
    for tab in tabs:
        people = seated(tab)
        for k, (trump, points) in enumerate(ENTRIES[tab.number], start=1):
            response = enter(client, t, tab, people[k % 4], k, trump, points)
            assert response.status_code == 302
        assert agree(client, t, tab, people[0]).status_code == 302  # South–North
        assert agree(client, t, tab, people[3]).status_code == 302  # West–East
    return tabs


def test_a_night_in_the_room_is_scored_like_tables_online(client, night):
    t = night
    tabs = current_tables(t)
    assert len(tabs) == 2 and all(tab.in_room and tab.game_id is None for tab in tabs)
    rules = engine.get_rules(t.structure.rules_spec)
    first_set: dict[int, list] = {}
    for set_number in (1, 2, 3):
        tabs = play_set(client, t)
        for tab in tabs:
            tab.refresh_from_db()
            assert tab.finished
            # The server wrote the score, by the rules: the tie of deal 1 doubles deal 2
            # only where the preset says so (tie=own here: it does not).
            specs = [engine.deal_for(tab.table_set.seed, k, rules) for k in (1, 2)]
            lines = [Line(None if tr == "none" else tr, p) for tr, p in ENTRIES[tab.number]]
            rows = score_sheet(rules, specs, lines)
            if set_number == 1:
                first_set[tab.number] = [r["written"] for r in rows]
            assert [list(b["written"]) for b in tab.board] == [list(r["written"]) for r in rows]
            ns = sum(r["written"][0] for r in rows) - sum(r["written"][1] for r in rows)
            raws = dict(TableSeat.objects.filter(table=tab).values_list("index", "raw"))
            assert raws == {0: ns, 1: -ns, 2: ns, 3: -ns}
        if set_number < 3:
            wait_until(lambda n=set_number: TableSet.objects.filter(
                round__tournament=t, number=n + 1).exists())  # fmt: skip
    wait_until(lambda: Tournament.objects.get(pk=t.pk).is_closed)
    # Duplicate across the two tables: per deal, the better South–North gets 2 MP.
    mp = scoring.set_figures(np.array([first_set[1], first_set[2]], dtype=float), duplicate=True).mp
    seat_mp = dict(
        TableSeat.objects.filter(table__table_set__number=1, table__table_set__round__tournament=t)
        .values_list("table__number", "dup_mp")
        .filter(index=0)
    )
    assert seat_mp == {1: float(mp[0, 0]), 2: float(mp[1, 0])} and seat_mp[1] > seat_mp[2]
    data = exported(Tournament.objects.get(pk=t.pk))
    table = data["rounds"][0]["sets"][0]["tables"][0]
    assert table["in_room"] is True and table["game"] is None
    assert [d["written"] for d in table["deals"]] == [list(w) for w in first_set[1]]
    assert table["deals"][0]["hands"] == [
        list(h) for h in engine.deal_for(table["seed"], 1, table["rules"]).texts()
    ]
    # The traveller of a deal shows both tables' results on the same cards.
    client.force_login(tabs[0].seats.first().entry.player)
    page = client.get(reverse("tournaments:tables-traveller", args=[t.pk, 1, 1, 1]))
    a, b = first_set[2][0]
    assert page.status_code == 200 and f"{a} – {b}" in page.content.decode()
    # Each table's game of the set, deal by deal: the hands and the sheet (no play).
    replay = client.get(reverse("tournaments:tables-table", args=[t.pk, 1, 1, 2]))
    assert replay.status_code == 200 and f"{a} – {b}" in replay.content.decode()
    csv = run("export_tournament", str(t.pk), "--format", "csv", "--what", "deals")
    assert len(csv.strip().splitlines()) == 1 + 3 * 2 * 2  # sets x tables x deals


def test_deals_are_entered_in_order_and_checked_by_the_rules(client, night):
    t = night
    tab = current_tables(t)[0]
    south = seated(tab)[0]
    assert enter(client, t, tab, south, 2, "H", 40).status_code == 302
    tab.refresh_from_db()
    assert tab.sheet == []  # deal 2 before deal 1: refused
    page = client.get(sheet_url(t, tab) + "?deal=2", follow=True)
    assert "deel 1 is het volgende" in page.content.decode()
    for bad in ({"points": 61}, {"points": -1}, {"trump": "X"}, {"points": "veel"}):
        args = {"trump": "H", "points": 40, **bad}
        enter(client, t, tab, south, 1, args.pop("trump"), args.pop("points"), **args)
        tab.refresh_from_db()
        assert tab.sheet == [], bad
    # Announcements (doublings) that are not a number are told as such, not as points.
    client.get(sheet_url(t, tab))  # the messages above are shown and gone
    enter(client, t, tab, south, 1, "H", 40, doublings="x")
    page = client.get(sheet_url(t, tab) + "?deal=1").content.decode()
    assert "Kies het kloppen uit de lijst" in page and "geheel getal" not in page
    with pytest.raises(actions.TournamentError, match="0 to 60"):
        room.enter_deal(t.pk, 1, 1, tab.number, south, 1, Line("H", 61))
    with pytest.raises(actions.TournamentError, match="announcements"):
        room.enter_deal(t.pk, 1, 1, tab.number, south, 1, Line("H", 40, doublings=1))
    assert enter(client, t, tab, south, 1, "S", 40).status_code == 302
    tab.refresh_from_db()
    assert tab.sheet[0]["points"] == 40 and tab.sheet[0]["by"] == south.pk


def test_only_the_players_at_the_table_and_organizers_see_and_change_its_sheet(
    client, night, organizer, make_user
):
    t = night
    one, two = current_tables(t)
    stranger = seated(two)[0]  # plays at table 2, same cards
    client.force_login(stranger)
    assert client.get(sheet_url(t, one)).status_code == 404
    assert enter(client, t, one, stranger, 1, "H", 40).status_code == 404
    with pytest.raises(actions.NotAllowed):
        room.enter_deal(t.pk, 1, 1, one.number, stranger, 1, Line("H", 40))
    outsider = make_user("buiten")
    client.force_login(outsider)
    assert client.get(sheet_url(t, one)).status_code == 404
    client.logout()
    assert client.get(sheet_url(t, one)).status_code == 302  # to the login page
    # The table's own player sees it, the organizer too (a link on the organizer's view).
    client.force_login(seated(one)[1])
    page = client.get(sheet_url(t, one))
    assert page.status_code == 200 and b"data-sheet-form" in page.content
    # Each trump choice is named for a screen reader, not only by its symbol.
    assert 'value="H" aria-label="♥ Harten"' in page.content.decode()
    client.force_login(organizer)
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert sheet_url(t, one) in organize and "data-print-deals" in organize


def test_a_change_takes_back_the_agreement_and_both_sides_must_agree(client, night):
    t = night
    tab = current_tables(t)[0]
    people = seated(tab)
    enter(client, t, tab, people[0], 1, "H", 41)
    with pytest.raises(actions.TournamentError, match="not complete"):
        room.agree(t.pk, 1, 1, tab.number, people[0])
    enter(client, t, tab, people[1], 2, "C", 20)
    agree(client, t, tab, people[0])
    agree(client, t, tab, people[2])  # the same side twice: still one side
    tab.refresh_from_db()
    assert set(tab.agreed) == {"0"} and not tab.finished
    enter(client, t, tab, people[3], 2, "C", 25)  # West–East changes deal 2
    tab.refresh_from_db()
    assert tab.sheet[1]["points"] == 25
    assert room.sheet(tab, t.structure)["agreed"] == [None, None]
    # South–North's phone says why its agreement is gone.
    client.force_login(people[0])
    page = client.get(sheet_url(t, tab)).content.decode()
    assert "data-agreement-withdrawn" in page
    assert f"{people[3].username} veranderde deel 2 na het akkoord over het blad" in page
    agree(client, t, tab, people[1])
    assert "data-agreement-withdrawn" not in client.get(sheet_url(t, tab)).content.decode()
    agree(client, t, tab, people[0])
    tab.refresh_from_db()
    assert tab.finished and tab.board[1]["card_points"] == [25, 35]
    # Closed: no more changes.
    with pytest.raises(actions.TournamentError, match="closed"):
        room.enter_deal(t.pk, 1, 1, tab.number, people[0], 2, Line("C", 30))


def test_a_sheet_shows_the_organizers_correction_after_the_table_is_done(client, night, organizer):
    t = night
    tab = play_set(client, t)[0]
    tab.refresh_from_db()
    played = list(tab.board[0]["written"])
    actions.correct_table_deal(t.pk, organizer, 1, 1, tab.number, 1, [0, 20], "telfout")
    client.force_login(seated(tab)[0])
    page = client.get(sheet_url(t, tab)).content.decode()
    row = page[page.index('data-sheet-deal="1"') :]
    row = re.sub(r"\s+", " ", row[: row.index("</tr>")])
    assert "0 – 20" in row and f"gespeeld: {played[0]} – {played[1]}" in row
    tab.refresh_from_db()
    totals = [sum(b["written"][i] for b in tab.board) for i in (0, 1)]
    assert f"data-totals>{totals[0]} – {totals[1]}<" in page


def _seen(page: str) -> list[str]:
    """The fingerprints the sheet page's forms carry: the deal form's, then the agree's."""
    return re.findall(r'name="seen" value="([0-9a-f]*)"', page)


def test_two_phones_at_once_nothing_is_overwritten_or_agreed_unseen(night):
    """Two phones at one table: an entry or an agreement made on a sheet that the other
    phone changed meanwhile is refused and the page shows what is there now."""
    from django.test import Client

    t = night
    tab = current_tables(t)[0]
    people = seated(tab)
    south, west = Client(), Client()
    south.force_login(people[0])
    west.force_login(people[1])
    url = sheet_url(t, tab)
    (deal_1_empty,) = _seen(south.get(url).content.decode())  # South starts to fill in deal 1
    assert (
        west.post(
            url,
            {
                "action": "enter",
                "deal": 1,
                "trump": "H",
                "points": 41,
                "seen": _seen(west.get(url).content.decode())[0],
            },
        ).status_code
        == 302
    )
    response = south.post(url, {"action": "enter", "deal": 1, "trump": "S", "points": 20,
                                "seen": deal_1_empty}, follow=True)  # fmt: skip
    tab.refresh_from_db()
    assert tab.sheet[0]["trump"] == "H" and tab.sheet[0]["points"] == 41  # West's stays
    page = response.content.decode()
    assert "Deel 1 werd intussen aan de tafel ingevuld" in page
    assert re.search(r'name="points"[^>]*value="41"', page)  # the form shows what is there
    # Changing it knowingly, from the page that shows it, works.
    seen = _seen(page)[0]
    south.post(url, {"action": "enter", "deal": 1, "trump": "S", "points": 20, "seen": seen})
    tab.refresh_from_db()
    assert tab.sheet[0]["trump"] == "S"
    # The sheet complete; South looks at it, West changes deal 2, South agrees: refused.
    south.post(url, {"action": "enter", "deal": 2, "trump": "C", "points": 20,
                     "seen": _seen(south.get(url).content.decode())[0]})  # fmt: skip
    looked = _seen(south.get(url + "?deal=2").content.decode())[-1]
    west.post(url, {"action": "enter", "deal": 2, "trump": "C", "points": 40,
                    "seen": _seen(west.get(url + "?deal=2").content.decode())[0]})  # fmt: skip
    response = south.post(url, {"action": "agree", "seen": looked}, follow=True)
    tab.refresh_from_db()
    assert tab.agreed == {} and tab.sheet[1]["points"] == 40
    assert "Het blad werd intussen aan de tafel veranderd" in response.content.decode()
    south.post(url, {"action": "agree", "seen": _seen(south.get(url).content.decode())[-1]})
    tab.refresh_from_db()
    assert set(tab.agreed) == {"0"}


def test_the_organizer_agrees_for_a_table_and_it_is_audited(client, night, organizer):
    t = night
    tab = current_tables(t)[1]
    people = seated(tab)
    enter(client, t, tab, organizer, 1, "D", 31)
    enter(client, t, tab, organizer, 2, "none", 29)
    agree(client, t, tab, organizer)
    tab.refresh_from_db()
    assert tab.finished and tab.agreed == {"0": organizer.pk, "1": organizer.pk}
    log = AuditLog.objects.get(tournament=t, action="room_agree")
    assert log.after["table"] == tab.number and len(log.after["sheet"]) == 2
    assert all(d["by"] == organizer.pk for d in tab.sheet) and people


def test_agreeing_with_a_sheet_both_sides_agreed_meanwhile_is_no_error(
    client, night, organizer, make_user
):
    """The organizer's phone still shows the complete sheet when the players' agreement
    finishes the table: their "agree for the whole table" tells them it is done (not a
    red refusal), and changes nothing. Someone who is neither at the table nor
    organizing is still refused."""
    t = night
    tab = current_tables(t)[0]
    people = seated(tab)
    for k, (trump, points) in enumerate(ENTRIES[1], start=1):
        enter(client, t, tab, people[k % 4], k, trump, points)
    tab.refresh_from_db()
    seen = room.lines_state(tab)  # what the organizer's phone shows
    agree(client, t, tab, people[0])
    agree(client, t, tab, people[1])
    tab.refresh_from_db()
    assert tab.finished
    agreed = dict(tab.agreed)
    client.force_login(organizer)
    response = client.post(sheet_url(t, tab), {"action": "agree", "seen": seen}, follow=True)
    page = response.content.decode()
    assert "Beide kanten gaan akkoord: deze tafel is klaar." in page
    assert 'class="error"' not in page
    tab.refresh_from_db()
    assert tab.agreed == agreed
    assert not AuditLog.objects.filter(tournament=t, action="room_agree").exists()
    stranger = make_user("buitenstaander")
    with pytest.raises(actions.NotAllowed):
        room.agree(t.pk, 1, 1, tab.number, stranger, seen)


def test_time_is_up_an_organizer_ends_a_table_with_the_deals_played(client, night, organizer):
    """Table 1 plays only deal 1 of 2 before the end of the set: the organizer ends it
    (players cannot); deal 1 compares both tables, deal 2 (table 2 alone) gives each the
    average, and the log says so."""
    t = night
    first, second = current_tables(t)
    people = seated(first)
    url = sheet_url(t, first)
    enter(client, t, first, people[0], 1, "H", 41)
    client.force_login(people[0])
    assert "data-finish-early" not in client.get(url).content.decode()
    response = client.post(url, {"action": "finish_early"}, follow=True)
    assert "Alleen een organisator" in response.content.decode()
    first.refresh_from_db()
    assert not first.finished
    client.force_login(organizer)
    page = client.get(url).content.decode()
    assert "data-finish-early" in page and "met het 1 ingevulde deel" in page
    seen = _seen(page)[-1]
    client.post(url, {"action": "finish_early", "seen": seen})
    first.refresh_from_db()
    assert first.finished and len(first.board) == 1
    # The sheet says who ended it, not that the sides agreed; so does a late entry.
    page = client.get(url).content.decode()
    assert f"De tijd was om: {organizer.username} (organisator) beëindigde deze tafel" in page
    assert "Beide kanten gingen akkoord" not in page
    client.force_login(people[1])
    response = client.post(url, {"action": "enter", "deal": 2, "trump": "S", "points": 30},
                           follow=True)  # fmt: skip
    assert "een organisator beëindigde de tafel" in response.content.decode()
    client.force_login(organizer)
    # The other table plays both deals; the set compares deal 1 only.
    for k, (trump, points) in enumerate(ENTRIES[2], start=1):
        enter(client, t, second, seated(second)[k % 4], k, trump, points)
    agree(client, t, second, seated(second)[0])
    agree(client, t, second, seated(second)[1])
    tset = first.table_set
    wait_until(lambda: TableSet.objects.get(pk=tset.pk).status == TableSet.Status.DONE)
    net = [
        b[0]["written"][0] - b[0]["written"][1]
        for b in (first.board, Table.objects.get(pk=second.pk).board)
    ]
    mp = dict(TableSeat.objects.filter(table=first).values_list("index", "dup_mp"))
    assert mp[0] == (2.0 if net[0] > net[1] else 1.0 if net[0] == net[1] else 0.0) + 1.0
    client.force_login(organizer)
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert f"beëindigde ronde 1, set 1, tafel {first.number} na 1 van 2 delen" in organize
    # Deal 2's traveller shows the table that played it; the deals export has both tables.
    traveller = reverse("tournaments:tables-traveller", args=[t.pk, 1, 1, 2])
    page = client.get(traveller).content.decode()
    assert f'data-traveller-table="{second.number}"' in page
    assert f'data-traveller-table="{first.number}"' not in page
    # Its points are South–North's and West–East's, whoever reads it (not "ours").
    assert ">Zuid–Noord</th>" in page and "Onze punten" not in page
    # As the set counts it: deal 2, played by table 2 alone, is the average for it.
    (alone,) = tables.traveller(t, 1, 1, 2)["rows"]
    assert (alone["mp"], alone["diff"]) == (1.0, 0.0)
    assert sum(r["mp"] for r in tables.traveller(t, 1, 1, 1)["rows"]) == 2.0
    csv = client.get(reverse("tournaments:tables-export", args=[t.pk, "deals.csv"]))
    assert csv.status_code == 200 and len(csv.content.decode().splitlines()) == 1 + 1 + 2


def test_the_players_page_leads_to_the_score_sheet_not_a_game(client, night):
    t = night
    tab = current_tables(t)[0]
    client.force_login(seated(tab)[2])
    url = reverse("tournaments:tables", args=[t.pk])
    page = client.get(url).content.decode()
    link = re.escape(sheet_url(t, tab))
    assert re.search(rf'href="{link}"[^>]*data-my-table', page)
    data = client.get(url + "?format=json").json()
    assert data["seat"]["room"] is True and data["seat"]["href"] == sheet_url(t, tab)
    assert data["seat"]["game"] is None


def test_the_organizer_prints_every_sets_deals_in_advance(client, night, organizer):
    t = night
    client.force_login(organizer)
    url = reverse("tournaments:tables-deals", args=[t.pk])
    assert t.deals_seen_by.filter(pk=organizer.pk).exists()  # chose the seed: not asked
    page = client.get(url + "?round=1&set=3")
    assert page.status_code == 200
    html = page.content.decode()
    rules = engine.get_rules(t.structure.rules_spec)
    spec = engine.deal_for(actions.set_seed(t, 1, 3), 2, rules)
    # Deal 2 of set 3 (not drawn yet): the four hands the tables will be seated with.
    section = html[html.index('data-print-deal="2"') :]
    section = re.sub(r"<[^>]+>", "", section[: section.index("</section>")])
    for hand in spec.texts():
        assert " ".join(shown_hand(hand)) in section
    assert "print 2 copies" in html or "2 kopieën" in html
    assert client.get(url + "?round=2&set=1").status_code == 404  # one round only
    client.force_login(seated(current_tables(t)[0])[0])
    assert client.get(url).status_code == 403  # players never see the hands


def test_a_french_print_out_shows_the_french_letters(client, night, organizer, settings):
    """R, D, V on a French club's print-outs (roi, dame, valet), K, Q, J in Dutch."""
    from django.utils import translation

    from game.cards import card_text

    with translation.override("fr"):
        assert [card_text(c) for c in ("KS", "QH", "JD", "TC", "AS", "7C")] == [
            "R\u2660", "D\u2665", "V\u2666", "10\u2663", "A\u2660", "7\u2663",
        ]  # fmt: skip
    with translation.override("nl"):
        assert card_text("KS") == "K\u2660" and card_text("JD") == "J\u2666"
    client.force_login(organizer)
    url = reverse("tournaments:tables-deals", args=[night.pk]) + "?round=1&set=1"
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    html = client.get(url).content.decode()
    faces = set(re.findall(r"(?<![\w])(10|[AKQJRDV2-9])([\u2660\u2665\u2666\u2663])", html))
    letters = {rank for rank, _ in faces}
    assert {"R", "D", "V"} <= letters and not letters & {"K", "Q", "J"}, letters


def test_an_organizer_who_plays_never_sees_the_deals_before_close(
    client, club, organizer, make_user
):
    """Online or in the room: an organizer with an entry is refused the deals (they
    would know every hand of every table); one who has looked can no longer enter."""
    t = actions.create_tables_tournament(
        organizer, name="Eerlijk", club=club, fmt="rotating", players=8, sets=3, deals=2,
        duplicate=True, open_now=True,
    )  # fmt: skip
    url = reverse("tournaments:tables-deals", args=[t.pk])
    actions.join(t.pk, organizer)
    client.force_login(organizer)
    for path in (url, url + "?round=1&set=2"):
        assert client.get(path).status_code == 403
        assert client.post(path).status_code == 403
    assert not t.deals_seen_by.filter(pk=organizer.pk).exists()
    helper = make_user("helper")
    club.organizers.add(helper)
    client.force_login(helper)
    # Asked once before the hands show: whoever looks can no longer enter.
    ask = client.get(url + "?round=1&set=2").content.decode()
    assert "data-print-deal" not in ask and not re.search(r"[♠♥♦♣]", ask)
    assert client.post(url + "?round=1&set=2")["Location"] == url + "?round=1&set=2"
    assert "data-print-deal" in client.get(url + "?round=1&set=2").content.decode()
    with pytest.raises(actions.CannotJoin, match="seen"):
        actions.join(t.pk, helper)


def test_an_organizer_who_plays_a_room_night_may_print_the_deals_on_the_record(
    client, club, organizer, make_user
):
    """Real cards must be printed by someone, at a small club perhaps by the organizer
    who plays: asked first, with the warning, and written in the tournament's log."""
    t = actions.create_tables_tournament(
        organizer, name="Klein clubje", club=club, fmt="rotating", players=4, sets=3,
        deals=1, in_room=True, open_now=True,
    )  # fmt: skip
    actions.join(t.pk, organizer)
    joined(t, *[make_user(f"klein{i}") for i in range(3)])
    actions.start_tables(t.pk, organizer)
    url = reverse("tournaments:tables-deals", args=[t.pk])
    client.force_login(organizer)
    ask = client.get(url).content.decode()
    assert "data-playing-warning" in ask and "data-print-deal" not in ask
    assert client.post(url)["Location"] == url
    assert 'data-print-deal="1"' in client.get(url).content.decode()
    log = t.audit.get(action="deals_seen_playing")
    assert log.actor == organizer
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert "keek naar de delen om af te drukken terwijl" in organize


def test_score_sheets_on_paper_for_a_table_without_a_phone(client, night, organizer):
    """The organizer prints each drawn table's blank sheet (who sits where, every deal's
    dealer, no cards) and enters what the table wrote through the table's score sheet."""
    t = night
    client.force_login(organizer)
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    url = reverse("tournaments:tables-paper", args=[t.pk])
    assert url in organize
    html = client.get(url).content.decode()
    seats = ["Zuid", "West", "Noord", "Oost"]
    tabs = current_tables(t)
    assert html.count("data-paper-table=") == len(tabs) == 2
    for tab in tabs:
        section = html[html.index(f'data-paper-table="{tab.number}"') :]
        section = section[: section.index("</section>")]
        names = re.findall(r"<dd data-paper-seat>([^<]*)</dd>", section)
        assert names == [p.get_username() for _, p in sorted(seated(tab).items())]
        dealers = re.findall(
            r'data-paper-deal="\d+"><td class="num">\d+</td><td>(\w+)</td>', section
        )
        assert dealers == [seats[spec.dealer] for spec in room.deal_specs(tab, t.structure)]
        # Not a card on it: a player of the table may hold it.
        assert not re.search(r"[♠♥♦♣]", section)
    # A set not drawn yet says so; a player gets no sheets (the organizer prints).
    assert "data-not-drawn" in client.get(url + "?round=1&set=3").content.decode()
    client.force_login(seated(tabs[0])[0])
    assert client.get(url).status_code == 403


def test_without_duplicate_each_drawn_table_prints_its_own_deals(
    client, club, organizer, make_user
):
    t = actions.create_tables_tournament(
        organizer, name="Los", club=club, fmt="rotating", players=6, sets=3, deals=1,
        in_room=True, open_now=True, seed="room-own",
    )  # fmt: skip
    joined(t, *[make_user(f"los{i}") for i in range(6)])
    actions.start_tables(t.pk, organizer)
    client.force_login(organizer)
    url = reverse("tournaments:tables-deals", args=[t.pk])
    html = client.get(url).content.decode()
    assert 'data-print-table="1"' in html and 'data-print-table="2"' in html
    later = client.get(url + "?round=1&set=2")  # not drawn yet: said so, nothing shown
    assert later.status_code == 200 and "data-not-drawn" in later.content.decode()
    assert "data-print-deal" not in later.content.decode()
    assert client.get(url + "?round=2&set=1").status_code == 404  # one round only
    # A seat without a player is a stand-in: named so on the sheet, never ranked.
    tab = current_tables(t)[0]
    client.force_login(seated(tab)[0] if 0 in seated(tab) else next(iter(seated(tab).values())))
    page = client.get(sheet_url(t, tab)).content.decode()
    assert "stand-in" in page or "invaller" in page


def test_real_cards_refuse_a_clock_and_a_deadline(club, organizer):
    with pytest.raises(actions.TournamentError, match="no clock"):
        actions.create_tables_tournament(
            organizer, name="x", club=club, fmt="rotating", players=8, in_room=True, clock=30
        )
    with pytest.raises(CommandError, match=r"deadline.*\[--set-minutes\]"):
        create("--format", "rotating", "--players", "8", "--in-room", "--set-minutes", "20")
    t = create("--format", "rotating", "--players", "8", "--in-room", "--duplicate")
    assert t.structure.in_room and t.structure.duplicate


def test_a_simulated_night_in_the_room_plays_to_the_end():
    """simulate_tournament on a night in the room: the simulated players play their
    table's deals (the engine, their bots), write them on the sheet, agree per side."""
    t = create(
        "--format", "writer-stays", "--players", "8", "--rounds", "2", "--sets", "2",
        "--deals", "2", "--duplicate", "--in-room", "--open", "--seed", "room-sim",
    )  # fmt: skip
    out = run("simulate_tournament", str(t.pk))
    t.refresh_from_db()
    assert t.is_closed, out
    tabs = Table.objects.filter(table_set__round__tournament=t)
    assert tabs.count() == 2 * 2 * 2 and all(tab.finished and tab.game_id is None for tab in tabs)
    for tab in tabs:
        assert len(tab.sheet) == 2 and set(tab.agreed) == {"0", "1"}
    # Duplicate across the two tables: matchpoints on every seat, the standings ranked.
    assert not TableSeat.objects.filter(table__in=tabs, dup_mp__isnull=True).exists()
    ranks = sorted(r["rank"] for r in tables.standings(t))
    assert ranks[0] == 1 and len(ranks) == 8


def test_a_side_of_two_stand_ins_needs_nobody_to_agree(client, night):
    t = night
    tab = current_tables(t)[0]
    people = seated(tab)
    # West and East are stand-ins here (as when the field leaves seats empty).
    TableSeat.objects.filter(table=tab, index__in=(1, 3)).update(entry=None)
    enter(client, t, tab, people[0], 1, "H", 41)
    enter(client, t, tab, people[2], 2, "S", 33)
    client.force_login(people[0])
    page = client.get(sheet_url(t, tab)).content.decode()
    assert "invallers" in page  # West–East: stand-ins, no agreement asked
    agree(client, t, tab, people[2])
    tab.refresh_from_db()
    assert tab.finished and tab.agreed == {"0": people[2].pk, "1": None}


def test_a_replacement_takes_the_seat_and_the_sheet_at_once(client, night, organizer, make_user):
    t = night
    tab = current_tables(t)[0]
    leaving = tab.seats.select_related("entry").get(index=1).entry
    newcomer = make_user("invaller-echt")
    actions.replace_player(leaving.pk, organizer, newcomer, "ziek")
    assert enter(client, t, tab, newcomer, 1, "C", 27).status_code == 302
    tab.refresh_from_db()
    assert tab.sheet[0]["by"] == newcomer.pk
    client.force_login(organizer)
    page = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert "neemt de plaats meteen in" in page and "speelt de bot" not in page


def test_an_entrys_score_removal_and_restore_are_the_solo_tournaments(make_user):
    """At tables a score is a deal's at its table and a player is replaced: the solo
    tournament's entry tools refuse, and leave the standing as it was."""
    from tournaments.models import Entry

    staff = make_user("beheerder")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    t = closed_room_night("entry-tools")
    standing = sorted(
        Entry.objects.filter(tournament=t).values_list("pk", "rank", "score", "deal_matchpoints")
    )
    entry = Entry.objects.filter(tournament=t).order_by("pk").first()
    for refused in (
        lambda: actions.correct_score(entry.pk, staff, entry.score + 50, "telfout"),
        lambda: actions.remove_entry(entry.pk, staff, "weg"),
        lambda: actions.restore_entry(entry.pk, staff, "terug"),
    ):
        with pytest.raises(actions.TournamentError, match="correct a deal at its table"):
            refused()
    assert standing == sorted(
        Entry.objects.filter(tournament=t).values_list("pk", "rank", "score", "deal_matchpoints")
    )


def test_an_account_deleted_keeps_the_tables_standing_of_the_others(make_user):
    """An account deleted outright (by the site's staff) reranks the tournaments it was in:
    a tournament of tables by its own standing, the duplicate figures of the others kept."""
    from django.contrib.auth import get_user_model

    from tournaments import rankings
    from tournaments.models import Entry

    t = closed_room_night("entry-gone")
    figures = dict(Entry.objects.filter(tournament=t).values_list("pk", "deal_matchpoints"))
    assert any(figures.values())
    gone = Entry.objects.filter(tournament=t).order_by("rank").first()
    get_user_model().objects.filter(pk=gone.player_id).delete()
    wait_for_idle_worker()
    rankings.recompute(t.pk)
    left = Entry.objects.filter(tournament=t)
    assert left.count() == 7
    assert dict(left.values_list("pk", "deal_matchpoints")) == {
        pk: mp for pk, mp in figures.items() if pk != gone.pk
    }
    assert sorted(left.values_list("rank", flat=True)) == list(range(1, 8))


def test_a_replaced_players_sets_stay_theirs_and_the_entry_rates_nobody(
    client, night, organizer, make_user
):
    """The organizer replaces a player after set 1: set 1's record still names who
    played it; the standing shows both; the entry, played by two people, is nobody's
    result in the ratings and the season (the others' places around it stand)."""
    import datetime as dt

    from django.utils import timezone

    from tournaments import seasons
    from tournaments.models import Entry, RatingChange

    t = night
    first = play_set(client, t)[0]
    wait_for_idle_worker()  # the production stack scores the set and draws the next
    entry = first.seats.select_related("entry__player").get(index=1).entry
    old = entry.player
    newcomer = make_user("invaller-later")
    t.club.members.add(newcomer)
    actions.replace_player(entry.pk, organizer, newcomer, "ziek")
    # Set 1 is the old player's on every record; set 2 is the newcomer's.
    [row] = [r for r in tables.standings(t) if r["entry"] == entry.pk]
    assert row["player"] == newcomer.username and row["before"] == [old.username]
    csv = client.get(reverse("tournaments:tables-export", args=[t.pk, "deals.csv"]))
    lines = csv.content.decode().splitlines()
    assert any(old.username in line for line in lines[1:])
    assert not any(newcomer.username in line for line in lines[1:])
    client.force_login(organizer)
    traveller = client.get(reverse("tournaments:tables-traveller", args=[t.pk, 1, 1, 1]))
    assert old.username in traveller.content.decode()
    assert newcomer.username not in traveller.content.decode()
    standing = client.get(reverse("tournaments:tables", args=[t.pk])).content.decode()
    assert f"{newcomer.username} <small data-played-before>(eerder: {old.username})" in standing
    assert any(
        newcomer.username in s.username for s in seated(current_tables(t)[0]).values()
    ) or any(newcomer.username in s.username for s in seated(current_tables(t)[1]).values())
    play_set(client, t)
    wait_for_idle_worker()
    # A set's own standing names who played it: set 2 the newcomer alone.
    [row] = [r for r in tables.standings(t, 1, 2) if r["entry"] == entry.pk]
    assert row["player"] == newcomer.username and row["before"] == []
    [row] = [r for r in tables.standings(t, 1, 1) if r["entry"] == entry.pk]
    assert row["before"] == [old.username]
    play_set(client, t)
    wait_for_idle_worker()
    t.refresh_from_db()
    assert t.is_closed
    assert actions.tick()["rated"] == 1
    changes = RatingChange.objects.filter(tournament=t)
    assert {c.field for c in changes} == {8} and changes.count() == 7  # the night's field
    assert not changes.filter(player__in=[old, newcomer]).exists()
    season = seasons.create_season(
        organizer, t.club, "Nu", timezone.localdate() - dt.timedelta(days=1),
        timezone.localdate() + dt.timedelta(days=1),
    )  # fmt: skip
    rows = seasons.standings(season)["rows"]
    assert len(rows) == 7 and {old.username, newcomer.username}.isdisjoint(
        r["player"] for r in rows
    )
    # Everyone else's score still counts the shared entry in the field of eight.
    ranks = dict(Entry.objects.filter(tournament=t).values_list("pk", "rank"))
    expected = seasons.field_scores(ranks)
    by_name = {r["player"]: r["total"] for r in rows}
    for e in Entry.objects.filter(tournament=t).exclude(pk=entry.pk).select_related("player"):
        assert by_name[e.player.username] == round(expected[e.pk], 1)
    # Both players' pages list the night, played by the two of them, counting for
    # neither: the first player's page had lost it, the newcomer's counted it whole.
    for person in (old, newcomer):
        page = client.get(f"/players/{person.username}/").content.decode()
        assert f'href="/tournaments/{t.pk}/"' in page, person
        assert f"gespeeld door {', '.join(sorted([old.username, newcomer.username]))}" in page
        assert "Gespeelde gesloten toernooien" not in page  # no tournament of their own


def test_closed_mid_set_the_pages_say_so_and_offer_nothing_to_enter(client, night, organizer):
    t = night
    play_set(client, t)
    wait_for_idle_worker()  # the production stack draws set 2
    tab = current_tables(t)[0]
    assert tab.table_set.number == 2
    people = seated(tab)
    enter(client, t, tab, people[0], 1, "H", 41)
    actions.close_tournament(t.pk, organizer)
    client.force_login(people[0])
    client.cookies["django_language"] = "nl"
    page = client.get(reverse("tournaments:tables", args=[t.pk])).content.decode()
    assert "data-my-table" not in page and "Jij zit aan tafel" not in page
    sheet = client.get(sheet_url(t, tab)).content.decode()
    assert "data-sheet-closed" in sheet and "haar blad telt niet mee" in sheet
    assert "data-sheet-form" not in sheet and "data-change" not in sheet
    # A phone that still had the form open: told why.
    late = enter(client, t, tab, people[0], 2, "S", 20)
    late = client.get(late["Location"]).content.decode()
    assert "het toernooi is gesloten" in late
    client.force_login(organizer)
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert "data-sheet-link" not in organize and "tafels klaar" not in organize
    assert "data-closed" in organize
    screen = client.get(reverse("tournaments:tables-screen", args=[t.pk])).content.decode()
    assert "tafels klaar" not in screen and "data-tables-standings" in screen


def test_the_screen_shows_where_everyone_sits(client, night, organizer):
    """The room finds its tables on the big screen: per table of the set being played,
    the two pairs by name (stand-ins named so)."""
    t = night
    client.force_login(organizer)
    html = client.get(reverse("tournaments:tables-screen", args=[t.pk])).content.decode()
    tabs = current_tables(t)
    assert html.count("data-screen-table=") == len(tabs) == 2
    for tab in tabs:
        row = html[html.index(f'data-screen-table="{tab.number}"') :]
        row = re.sub(r"<[^>]+>", "", row[: row.index("</tr>")])
        people = {i: p.get_username() for i, p in seated(tab).items()}
        for south_north in ((0, 2), (1, 3)):
            names = [people.get(i, "invaller") for i in south_north]
            assert " &amp; ".join(names) in re.sub(r"\s+", " ", row)


def test_the_deals_export_names_a_stand_in_as_such(client, club, organizer, make_user):
    """Six players at two tables of a night in the room: the seats without a player are
    played by stand-ins (people, with real cards), and the deals export says so."""
    t = actions.create_tables_tournament(
        organizer, name="Invallers", club=club, fmt="rotating", players=6, sets=3, deals=2,
        in_room=True, open_now=True, seed="room-stand-ins",
    )  # fmt: skip
    joined(t, *[make_user(f"inv{i}") for i in range(6)])
    actions.start_tables(t.pk, organizer)
    tabs = current_tables(t)
    for tab in tabs:
        people = seated(tab)
        anyone = next(iter(people.values()))
        for k, (trump, points) in enumerate(ENTRIES[tab.number], start=1):
            assert enter(client, t, tab, anyone, k, trump, points).status_code == 302
        for side in (0, 1):
            who = people.get(side, people.get(side + 2))
            if who is not None:
                assert agree(client, t, tab, who).status_code == 302
    wait_until(lambda: TableSet.objects.filter(round__tournament=t, number=2).exists())
    from tournaments import table_exports

    rows = table_exports.deal_rows(t)
    assert len(rows) == 4
    for row in rows:
        tab = next(tab for tab in tabs if tab.number == row["table"])
        people = seated(tab)
        assert row["names"] == [
            people[i].username if i in people else "(stand-in)" for i in range(4)
        ]
    assert any("(stand-in)" in row["names"] for row in rows)


def test_the_audit_trail_tells_nothing_of_a_set_in_play(client, night, organizer):
    """A table's agreed sheet and a finished table's corrected deal are in the audit
    trail; while other tables still play the same cards, that trail (corrections.csv, the
    printable results) leaves them out, and they appear once the set is done."""
    t = night
    first, second = current_tables(t)
    enter(client, t, second, organizer, 1, "D", 52)
    enter(client, t, second, organizer, 2, "none", 18)
    agree(client, t, second, organizer)
    actions.correct_table_deal(t.pk, organizer, 1, 1, second.number, 2, [0, 20], "telfout")
    assert set(t.audit.values_list("action", flat=True)) >= {"room_agree", "correct_table"}
    csv_url = reverse("tournaments:export", args=[t.pk, "corrections.csv"])
    print_url = reverse("tournaments:tables-results", args=[t.pk])

    def trail(user) -> tuple[str, str]:
        client.force_login(user)
        csv_response, page = client.get(csv_url), client.get(print_url)
        assert csv_response.status_code == page.status_code == 200
        return csv_response.content.decode("utf-8-sig"), page.content.decode()

    waiting = seated(first)[0]  # deals 1 and 2 of this set still to play
    text, page = trail(waiting)
    assert "room_agree" not in text and "correct_table" not in text and "52" not in text
    assert "telfout" not in page and "0 – 20" not in page
    for k, (trump, points) in enumerate(ENTRIES[first.number], start=1):
        enter(client, t, first, organizer, k, trump, points)
    agree(client, t, first, organizer)
    # The set is done (on the production stack a worker finishes it, a moment later).
    wait_until(lambda: TableSet.objects.get(pk=first.table_set_id).status == "done")
    text, page = trail(waiting)
    assert "room_agree" in text and "correct_table" in text and '""points"": 52' in text
    assert "telfout" in page and "0 – 20" in page


def test_an_organizer_who_plays_looks_at_another_tables_sheet_on_the_record(
    client, club, organizer, make_user
):
    """Another table's sheet tells its results on the same cards (duplicate): an
    organizer who plays is asked first, and the tournament's log says they looked."""
    t = actions.create_tables_tournament(
        organizer, name="Meespelen", club=club, fmt="rotating", players=8, sets=3, deals=2,
        duplicate=True, in_room=True, open_now=True,
    )  # fmt: skip
    actions.join(t.pk, organizer)
    joined(t, *[make_user(f"mee{i}") for i in range(7)])
    actions.start_tables(t.pk, organizer)
    own, other = sorted(current_tables(t), key=lambda tab: organizer not in seated(tab).values())
    enter(client, t, other, seated(other)[0], 1, "D", 52)
    client.force_login(organizer)
    assert "data-sheet-deal" in client.get(sheet_url(t, own)).content.decode()  # their own
    ask = client.get(sheet_url(t, other)).content.decode()
    assert "data-playing-warning" in ask and "data-sheet-deal" not in ask
    assert not re.search(r">\s*52\s*<", ask)  # the points (not the id: /tournaments/527/)
    assert client.get(sheet_url(t, other) + "?format=json").status_code == 403
    assert enter(client, t, other, organizer, 2, "H", 30).status_code == 403
    assert len(Table.objects.get(pk=other.pk).sheet) == 1
    assert not t.audit.filter(action="sheet_seen_playing").exists()
    assert client.post(sheet_url(t, other), {"action": "look"})["Location"] == sheet_url(t, other)
    assert "data-sheet-deal" in client.get(sheet_url(t, other)).content.decode()
    assert enter(client, t, other, organizer, 2, "H", 30).status_code == 302
    log = t.audit.get(action="sheet_seen_playing")
    assert log.actor == organizer and log.after["table"] == other.number
    # Another organizer corrects a deal of a finished table of the set still played: the
    # one who plays does not read that score in the organizer's view until the set is done.
    helper = make_user("meehelper")
    club.organizers.add(helper)
    agree(client, t, other, helper)
    actions.correct_table_deal(t.pk, helper, 1, 1, other.number, 1, [0, 20], "telfout")
    # Whoever corrects a table of a set still played has read its score: they can no
    # longer be put in at a table of these deals, even when the answer was a refusal
    # ("the score already written" confirms a guess).
    assert actions.has_seen(t, helper)
    prober = make_user("meeprober")
    club.organizers.add(prober)
    with pytest.raises(actions.TournamentError, match="already written"):
        actions.correct_table_deal(t.pk, prober, 1, 1, other.number, 1, [0, 20], "gok")
    assert actions.has_seen(t, prober)
    leaving = seated(own)[1] if seated(own)[1] != organizer else seated(own)[3]
    with pytest.raises(actions.TournamentError, match="has seen this tournament's deals"):
        actions.replace_player(t.entries.get(player=leaving).pk, organizer, prober, "ik speel mee")
    # The organizer who plays cannot correct that table while the set is played: the
    # refusal is the same for the score it holds and any other (no guess is confirmed).
    for guess in ([0, 20], [0, 0]):
        with pytest.raises(actions.NotAllowed, match="once the set is done"):
            actions.correct_table_deal(t.pk, organizer, 1, 1, other.number, 1, guess, "x")
    assert Table.objects.get(pk=other.pk).board[0]["written"] == [0, 20]
    client.force_login(organizer)
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert "telfout" not in organize
    client.force_login(helper)
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert "telfout" in organize
    client.force_login(seated(own)[1])  # every player reads it in the tournament's log
    results = client.get(reverse("tournaments:tables-results", args=[t.pk])).content.decode()
    assert f"keek naar het scoreblad van ronde 1, set 1, tafel {other.number}" in results


def test_an_organizer_who_plays_is_not_logged_for_deals_not_drawn_yet(
    client, club, organizer, make_user
):
    """Without duplicate a set's deals are known once it is drawn: before, the page says
    so, and an organizer who plays is neither asked nor written in the log."""
    t = actions.create_tables_tournament(
        organizer, name="Los en zelf", club=club, fmt="rotating", players=4, sets=3,
        deals=1, in_room=True, open_now=True,
    )  # fmt: skip
    actions.join(t.pk, organizer)
    joined(t, *[make_user(f"zelf{i}") for i in range(3)])
    actions.start_tables(t.pk, organizer)
    client.force_login(organizer)
    url = reverse("tournaments:tables-deals", args=[t.pk]) + "?round=1&set=2"
    page = client.get(url).content.decode()
    assert "data-not-drawn" in page and "data-playing-warning" not in page
    assert client.post(url).status_code == 200
    assert not t.audit.filter(action="deals_seen_playing").exists()
    assert not t.deals_seen_by.filter(pk=organizer.pk).exists()


def test_the_same_deal_sent_twice_from_one_phone_is_no_error(client, night):
    """A second tap on a slow network sends the form again: the deal is on the sheet as
    sent, so the phone is not told that someone else entered it meanwhile."""
    t = night
    tab = current_tables(t)[0]
    south = seated(tab)[0]
    client.force_login(south)
    url = sheet_url(t, tab)
    form = {"action": "enter", "deal": 1, "trump": "H", "points": 41}
    form["seen"] = _seen(client.get(url).content.decode())[0]
    assert client.post(url, form).status_code == 302
    page = client.post(url, form, follow=True).content.decode()
    assert "intussen" not in page and "meanwhile" not in page
    tab.refresh_from_db()
    assert len(tab.sheet) == 1 and tab.sheet[0]["points"] == 41
    # Sent again with other points, it is still a change made on an old page: refused.
    page = client.post(url, {**form, "points": 30}, follow=True).content.decode()
    assert "Deel 1 werd intussen aan de tafel ingevuld" in page


@pytest.mark.parametrize("deal", ["", "abc", "0", "99"])
def test_a_deal_number_that_is_no_deal_says_which_deal_comes_next(client, night, deal):
    """A form sent with a deal that is not one of the set's (a stale or edited page) is
    told which deal comes next, not that a 'deal 0' was entered meanwhile."""
    t = night
    tab = current_tables(t)[0]
    south = seated(tab)[0]
    client.force_login(south)
    url = sheet_url(t, tab)
    assert enter(client, t, tab, south, 1, "S", 40).status_code == 302
    seen = _seen(client.get(url + "?deal=1").content.decode())[0]  # changing deal 1
    form = {"action": "enter", "deal": deal, "trump": "H", "points": 30, "seen": seen}
    page = client.post(url, form, follow=True).content.decode()
    assert "deel 2 is het volgende" in page and "intussen" not in page
    tab.refresh_from_db()
    assert [(d["trump"], d["points"]) for d in tab.sheet] == [("S", 40)]


def test_nobody_who_saw_the_deals_or_a_guest_is_made_a_player_by_a_replacement(
    client, night, organizer, make_user
):
    """Replacing a player puts someone in the tournament: the same bars as signing up.
    An organizer who printed the deals holds every hand of the sets to come."""
    t = night
    tab = current_tables(t)[0]
    leaving = tab.seats.select_related("entry").get(index=1).entry
    client.force_login(organizer)
    client.post(reverse("tournaments:tables-deals", args=[t.pk]))  # prints the deals
    assert actions.has_seen(t, organizer)
    page = client.post(
        reverse("tournaments:tables-replace", args=[t.pk]),
        {"entry": leaving.pk, "username": organizer.get_username(), "reason": "moet weg"},
        follow=True,
    ).content.decode()
    assert "heeft de delen of uitslagen van dit toernooi gezien" in page
    guest = make_user("gast-zon")
    guest.set_unusable_password()
    guest.save()
    with pytest.raises(actions.TournamentError, match="guest"):
        actions.replace_player(leaving.pk, organizer, guest, "moet weg")
    leaving.refresh_from_db()
    assert leaving.player != organizer and leaving.player != guest
    assert not t.audit.filter(action="replace_player").exists()


def test_a_refused_deal_comes_back_with_what_was_sent(client, night):
    """A typo in the points (or 61 of 60) is refused; the form comes back with the trump
    and the rest as sent, to fix only the points. Once shown, the draft is gone."""
    t = night
    tab = current_tables(t)[0]
    south = seated(tab)[0]
    client.force_login(south)
    url = sheet_url(t, tab)
    checked = re.compile(r'name="trump" value="(\w+)"[^>]*checked')
    for points, told in (("4o", "geheel getal"), ("61", "tussen 0 en 60")):
        form = {"action": "enter", "deal": 1, "trump": "H", "points": points}
        page = client.post(url, form, follow=True).content.decode()
        assert told in page, points
        assert checked.findall(page) == ["H"], points
        value = re.search(r'name="points"[^>]*value="([^"]*)"', page).group(1)
        assert value == ("61" if points == "61" else ""), points
        # Said in the form, at the field it is about (a phone's reader is taken there).
        refusal = re.search(r'<p [^>]*id="sheet-refusal"[^>]*>([^<]*)</p>', page)
        assert refusal and told in refusal.group(1), points
        field = re.search(r'<input id="points"[^>]*>', page).group(0)
        assert 'aria-invalid="true"' in field and 'aria-describedby="sheet-refusal"' in field
    page = client.get(url).content.decode()
    assert checked.findall(page) == []  # shown once, then the sheet's (nothing yet)
    assert "sheet-refusal" not in page and "aria-invalid" not in page
    # A refused trump is said at the trump.
    form = {"action": "enter", "deal": 1, "trump": "", "points": "30"}
    page = client.post(url, form, follow=True).content.decode()
    assert re.search(r'<fieldset [^>]*aria-invalid="true" aria-describedby="sheet-refusal"', page)
    tab.refresh_from_db()
    assert tab.sheet == []


def test_a_refusal_whose_form_is_not_shown_is_not_lost(client, night):
    """The table was finished meanwhile (the other side agreed, the organizer ended it):
    the refused deal's form is not shown again, and its refusal is said at the top."""
    t = night
    tab = current_tables(t)[0]
    south = seated(tab)[0]
    client.force_login(south)
    url = sheet_url(t, tab)
    session = client.session
    session["sheet_draft"] = {"table": tab.pk, "deal": 1, "error": "Te laat: al verstuurd"}
    session.save()
    tab.finished = True
    tab.save(update_fields=["finished"])
    page = client.get(url).content.decode()
    assert "data-sheet-form" not in page
    assert re.search(r'class="t-messages".*Te laat: al verstuurd', page, re.S)


def test_a_replaced_player_is_not_seated_again_at_another_table_of_the_set(
    client, night, organizer, make_user
):
    """Whoever leaves held the set's hands: put back in as the replacement of someone at
    another table of the same (duplicate) set, they would play cards they know."""
    t = night
    first, second = current_tables(t)[:2]
    leaving = first.seats.select_related("entry__player").get(index=1).entry
    gone = leaving.player
    actions.replace_player(leaving.pk, organizer, make_user("invaller"), "moet weg")
    other = second.seats.get(index=1).entry
    client.force_login(organizer)
    page = client.post(
        reverse("tournaments:tables-replace", args=[t.pk]),
        {"entry": other.pk, "username": gone.get_username(), "reason": "ruil"},
        follow=True,
    ).content.decode()
    assert "heeft de delen of uitslagen van dit toernooi gezien" in page
    other.refresh_from_db()
    assert other.player != gone
    # A replacement recorded before that rule: the seats they played name them.
    t.deals_seen_by.remove(gone)
    TableSeat.objects.filter(entry=leaving).update(played_by=gone)
    with pytest.raises(actions.TournamentError, match="has played at this tournament's tables"):
        actions.replace_player(other.pk, organizer, gone, "ruil")


def test_an_organizer_who_reads_a_sheet_in_play_cannot_be_put_in(
    client, night, organizer, make_user
):
    """An organizer without an entry who opens a table's sheet while its set is played
    reads results on cards the other tables may still have to play: they cannot then
    put themselves in at one of those tables. An empty sheet tells nothing."""
    t = night
    first, second = current_tables(t)[:2]
    helper = make_user("tweede-organisator")  # not the one who chose the seed
    t.club.members.add(helper)
    t.club.organizers.add(helper)
    client.force_login(helper)
    assert client.get(sheet_url(t, first)).status_code == 200
    assert not actions.has_seen(t, helper)  # nothing entered yet: nothing seen
    south = seated(first)[0]
    assert enter(client, t, first, south, 1, "H", 42).status_code == 302
    client.force_login(helper)
    page = client.get(sheet_url(t, first)).content.decode()
    assert "42" in page
    assert actions.has_seen(t, helper)
    leaving = second.seats.get(index=1).entry
    with pytest.raises(actions.TournamentError, match="has seen this tournament's deals"):
        actions.replace_player(leaving.pk, organizer, helper, "ik speel mee")


def _screen_link(client, t, organizer) -> str:
    client.force_login(organizer)
    html = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    link = re.search(r'href="([^"]+)" data-screen-link', html).group(1).replace("&amp;", "&")
    client.logout()
    return link


def test_the_big_screen_link_needs_no_login_on_the_rooms_computer(client, night, organizer):
    """The organizer's panel gives a screen link with a key: the room's computer shows
    the standings and the tables without anyone logging in there (until and after the
    close), with nobody's row marked; a wrong key or another tournament's is refused."""
    t = night
    link = _screen_link(client, t, organizer)
    path = link.split("://", 1)[-1]
    path = path[path.index("/") :]
    plain = reverse("tournaments:tables-screen", args=[t.pk])
    assert path.startswith(plain + "?key=")
    assert client.get(plain).status_code == 404  # a members-only club tournament
    assert client.get(plain + "?key=" + "0" * 24).status_code == 404
    html = client.get(path).content.decode()
    assert "data-tables-standings" in html and html.count("data-screen-table=") == 2
    assert f'data-ws="/ws/tournaments/{t.pk}/standings/?key=' in html
    other = actions.create_tables_tournament(
        organizer, name="Andere", club=t.club, fmt="rotating", players=8, sets=3, deals=2,
        open_now=True,
    )  # fmt: skip
    stolen = reverse("tournaments:tables-screen", args=[other.pk]) + path[len(plain) :]
    assert client.get(stolen).status_code == 404
    # A player logged in on the room's computer: the screen still marks nobody.
    player = seated(current_tables(t)[0])[0]
    client.force_login(player)
    assert 'class="mine"' not in client.get(path).content.decode()
    client.logout()
    actions.close_tournament(t.pk, organizer)
    assert client.get(plain).status_code == 404
    closed = client.get(path).content.decode()
    assert "data-screen-closed" in closed
    # The end of the night: half a day after the close the link shows nothing more.
    import datetime as dt

    later = Tournament.objects.get(pk=t.pk).closed_at - dt.timedelta(hours=13)
    Tournament.objects.filter(pk=t.pk).update(closed_at=later)
    assert client.get(path).status_code == 404
    # A draft's panel offers no link yet (it would not open before the tournament does).
    draft = actions.create_tables_tournament(
        organizer, name="Klad", club=t.club, fmt="rotating", players=8, sets=3, deals=2,
    )  # fmt: skip
    client.force_login(organizer)
    html = client.get(reverse("tournaments:tables-organize", args=[draft.pk])).content.decode()
    assert "data-screen-link" not in html


async def test_the_big_screen_link_keeps_its_socket_without_login(night, organizer):
    """The screen's live standings: the socket takes the link's key instead of a login."""
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    t = night
    key = await database_sync_to_async(actions.screen_key)(t)
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]

    async def first(query: str) -> dict:
        path = f"/ws/tournaments/{t.pk}/standings/{query}"
        comm = WebsocketCommunicator(application, path, headers=headers)
        connected, _ = await comm.connect(timeout=10)
        assert connected
        message = await comm.receive_json_from(timeout=10)
        await comm.disconnect()
        return message

    assert (await first(""))["code"] == "forbidden"
    assert (await first("?key=" + key[::-1]))["code"] == "forbidden"
    snapshot = await first("?key=" + key)
    assert snapshot["type"] == "standings" and snapshot["progress"]["tables"]
    assert all(tab.get("to_move") is None for tab in snapshot["progress"]["tables"])


def test_a_close_next_to_a_sets_end_scores_that_set_and_starts_nothing(
    client, night, organizer, monkeypatch
):
    """The last sheet of set 1 is agreed and the organizer closes before the set's end
    (advance_set, a task after the commit) has run: the close counts the set, which was
    played out, and the late task starts no next set, nor closes a second time (it had
    started set 2, whose bots played on after the close, and moved the close's time)."""
    from tournaments import tasks

    late = []
    monkeypatch.setattr(tasks.advance_set, "apply_async", lambda args, **kw: late.append(args[0]))
    t = night
    tabs = play_set(client, t)
    assert late and all(tab.table_set_id == late[0] for tab in tabs)
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    closed_at = t.closed_at
    tset = TableSet.objects.get(pk=late[0])
    assert tset.status == TableSet.Status.DONE  # played out before the close: it counts
    assert tables.stopped_sets(t) == []
    log = AuditLog.objects.get(tournament=t, action="close")
    assert not (log.after or {}).get("stopped")
    raws = set(TableSeat.objects.filter(table__table_set=tset).values_list("raw", flat=True))
    assert raws != {None}
    assert actions.advance_set(late[0]) == "done already"
    t.refresh_from_db()
    assert t.closed_at == closed_at and t.is_closed
    assert not TableSet.objects.filter(round__tournament=t, number=2).exists()
    ranked = [row for row in tables.standings(t) if row["rank"] is not None]
    assert len(ranked) == 8


def test_a_set_end_that_finds_the_tournament_closed_starts_nothing(client, night, organizer):
    """advance_set of a set the close stopped (its tables unfinished): nothing starts."""
    t = night
    tset = TableSet.objects.get(round__tournament=t, number=1)
    actions.close_tournament(t.pk, organizer)
    assert actions.advance_set(tset.pk) == "closed"
    assert not TableSet.objects.filter(round__tournament=t, number=2).exists()
    assert tables.stopped_sets(Tournament.objects.get(pk=t.pk)) == ["1.1"]


@needs_postgresql
def test_two_organizers_replacing_a_player_at_once_seat_the_newcomer_once(
    night, organizer, make_user
):
    """Two organizers (or a double tap) replace the same player by the same newcomer at
    the same moment: one replacement is made, the other is refused; the newcomer, now
    playing, is not taken for someone who left (before: both 'succeeded', the log said
    'nieuw → nieuw' and the newcomer was recorded as having seen the deals; online the
    second was a 500)."""
    t = night
    entry = seated(current_tables(t)[0])[1]
    entry = t.entries.get(player=entry)
    newcomer = make_user("nieuw")
    helper = make_user("helper")
    t.club.organizers.add(helper)
    outcome = []

    def replace(actor):
        def run():
            try:
                actions.replace_player(entry.pk, actor, newcomer, "ziek")
                outcome.append("in")
            except actions.TournamentError as exc:
                outcome.append(str(exc))

        return run

    meet_at_the_tournament_row(t.pk, replace(organizer), replace(helper))
    assert sorted(outcome) == ["in", "the replacement already plays in this tournament"]
    assert AuditLog.objects.filter(tournament=t, action="replace_player").count() == 1
    assert not t.deals_seen_by.filter(pk=newcomer.pk).exists()
    assert t.entries.filter(player=newcomer).count() == 1


def test_the_data_download_says_who_else_played_a_replaced_entry(
    client, night, organizer, make_user
):
    """The personal data download marks what the player's page marks: an entry played on
    by a replacement is both players' and counts for nobody ('played by …')."""
    import json

    t = night
    play_set(client, t)
    wait_until(lambda: TableSet.objects.filter(round__tournament=t, number=2).exists())
    leaving_player = seated(current_tables(t)[0])[1]
    leaving = t.entries.get(player=leaving_player)
    newcomer = make_user("invaller-data")
    actions.replace_player(leaving.pk, organizer, newcomer, "ziek")
    for n in (2, 3):
        play_set(client, t)
        if n < 3:
            wait_until(lambda: TableSet.objects.filter(round__tournament=t, number=3).exists())
    wait_until(lambda: Tournament.objects.get(pk=t.pk).is_closed)
    for person, other in ((leaving_player, newcomer), (newcomer, leaving_player)):
        client.force_login(person)
        data = json.loads(client.get("/accounts/profile/data.json").content)
        [row] = [r for r in data["tournaments"] if r["name"] == t.name]
        assert other.get_username() in row["played_by"], row
