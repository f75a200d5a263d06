"""Everything an organizer needs to run a tournament of tables is on its pages (issue
12, from the browser): open it for sign-up, share the link (with the invite code; the
club's link for non-members), see who joined, start it, see the standings and the cut,
close it; players sign up on the tables page."""

from __future__ import annotations

import re

import pytest

from tournaments import actions
from tournaments.models import Entry, TableSeat, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture
def tables_tournament(club, organizer):
    def make(**kwargs):
        kwargs.setdefault("name", "Kampioenschap")
        kwargs.setdefault("club", club)
        kwargs.setdefault("fmt", Tournament.Format.ROTATING)
        kwargs.setdefault("players", 8)
        kwargs.setdefault("sets", 3)
        kwargs.setdefault("deals", 1)
        return actions.create_tables_tournament(organizer, **kwargs)

    return make


def test_a_draft_is_opened_from_the_organizer_view(client, organizer, tables_tournament):
    t = tables_tournament()
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-open" in page and "Openen voor inschrijving" in page
    assert "data-start" not in page  # nothing to draw before anyone can sign up
    response = client.post(f"/tournaments/{t.pk}/manage/open/", follow=True)
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/tables/organize/"
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING  # open; drawn when the organizer starts
    page = response.content.decode()
    assert "data-open" not in page and "data-start" in page
    # The draw cannot be undone: asked first.
    assert re.search(r"<details class=\"t-confirm\" data-start-confirm>.*?data-start>", page, re.S)


def test_the_organizer_view_gives_the_links_to_share_and_who_joined(
    client, organizer, club, make_user, tables_tournament
):
    t = tables_tournament(open_now=True, invite_code="TROEF7")
    anna = make_user("anna")
    club.members.add(anna)
    actions.join(t.pk, anna)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert f"http://testserver/tournaments/{t.pk}/tables/?code=TROEF7" in page
    assert f"/clubs/join/?code={club.invite_code}" in page
    assert "1 inschrijving." in page and "anna" in page


def test_a_player_signs_up_on_the_tables_page(client, make_user, tables_tournament):
    t = tables_tournament(open_now=True, invite_code="TROEF7")
    # Not logged in: a way to log in that comes back here.
    page = client.get(f"/tournaments/{t.pk}/tables/?code=TROEF7").content.decode()
    assert "data-login" in page and "next=" in page
    # An outsider with the organizer's link: the code is filled in, and joining works.
    ben = make_user("ben")
    client.force_login(ben)
    page = client.get(f"/tournaments/{t.pk}/tables/?code=TROEF7").content.decode()
    assert 'name="invite_code"' in page and 'value="TROEF7"' in page
    response = client.post(f"/tournaments/{t.pk}/join/", {"invite_code": "TROEF7"})
    assert response["Location"] == f"/tournaments/{t.pk}/tables/"
    assert Entry.objects.filter(tournament=t, player=ben).exists()
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "Je bent ingeschreven" in page


def test_a_start_the_players_cannot_fill_says_why_in_dutch(
    client, organizer, club, make_user, tables_tournament
):
    # (A cut larger than who came no longer refuses: it keeps them all. Writer stays
    # with one table does.)
    t = tables_tournament(open_now=True, fmt=Tournament.Format.WRITER_STAYS)
    for name in ("a1", "a2", "a3", "a4", "a5"):
        user = make_user(name)
        club.members.add(user)
        actions.join(t.pk, user)
    client.force_login(organizer)
    response = client.post(f"/tournaments/{t.pk}/tables/start/", follow=True)
    page = response.content.decode()
    assert "Met 5 spelers is er één tafel: niemand kan doorschuiven" in page
    assert not t.rounds.exists()


def test_the_organizer_sees_the_standings_and_closes(
    client, organizer, club, make_user, tables_tournament
):
    t = tables_tournament(open_now=True, sets=3, rounds=2, cut=4)
    for k in range(8):
        user = make_user(f"p{k}")
        club.members.add(user)
        actions.join(t.pk, user)
    client.force_login(organizer)
    client.post(f"/tournaments/{t.pk}/tables/start/")
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-tables-standings" in page and "data-progress" in page
    assert "na elke ronde gaan de beste 4 door" in page
    assert "data-confirm-close" in page
    response = client.post(f"/tournaments/{t.pk}/manage/close/", follow=True)
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/tables/organize/"
    t.refresh_from_db()
    assert t.is_closed
    page = response.content.decode()
    assert "data-closed" in page and "data-confirm-close" not in page


def test_the_lists_name_the_format(client, organizer, club, tables_tournament):
    t = tables_tournament(open_now=True)
    client.force_login(organizer)
    for url in ("/tournaments/", f"/clubs/{club.slug}/"):
        page = client.get(url).content.decode()
        assert f'href="/tournaments/{t.pk}/"' in page and "wisselende partners" in page


def test_a_live_start_that_cannot_be_drawn_does_not_stop_the_others(
    club, make_user, tables_tournament
):
    """At the live start the tick draws every tournament due; one whose players cannot
    fill its structure (writer stays with one table) waits for the organizer, logged
    (and said on its pages: test_overdue_start), and the next one is still drawn."""
    import datetime as dt

    from django.utils import timezone

    soon = timezone.now() + dt.timedelta(minutes=5)
    stuck = tables_tournament(
        name="Te weinig", open_now=True, fmt=Tournament.Format.WRITER_STAYS, starts_at=soon
    )
    fine = tables_tournament(name="Genoeg", open_now=True, starts_at=soon)
    for k in range(5):
        user = make_user(f"s{k}")
        club.members.add(user)
        actions.join(stuck.pk, user)
        actions.join(fine.pk, user)
    assert actions.start_due_tables(soon + dt.timedelta(seconds=1)) == 1
    assert not stuck.rounds.exists() and fine.rounds.exists()


def test_the_live_start_counts_only_the_entries_still_in(
    club, organizer, make_user, tables_tournament, caplog
):
    """Four joined, one removed by the organizer: three players cannot start a tournament
    of tables, so the tick leaves it waiting without a refusal in the log; a fourth who
    joins lets the next tick start it."""
    import datetime as dt
    import logging

    from django.utils import timezone

    soon = timezone.now() + dt.timedelta(minutes=5)
    t = tables_tournament(name="Drie over", open_now=True, starts_at=soon)
    for k in range(4):
        user = make_user(f"r{k}")
        club.members.add(user)
        actions.join(t.pk, user)
    gone = t.entries.order_by("pk").first()
    actions.remove_entry(gone.pk, organizer, "afgemeld")
    with caplog.at_level(logging.WARNING, logger="tournaments.actions"):
        assert actions.start_due_tables(soon + dt.timedelta(seconds=1)) == 0
    assert not t.rounds.exists()
    assert "not started at its time" not in caplog.text
    late = make_user("r4")
    club.members.add(late)
    actions.join(t.pk, late)
    assert actions.start_due_tables(soon + dt.timedelta(seconds=61)) == 1
    assert t.rounds.exists()


def test_a_player_who_cannot_come_takes_the_sign_up_back_until_the_draw(
    client, organizer, club, make_user, tables_tournament
):
    t = tables_tournament(open_now=True, invite_code="TROEF7")
    ben = make_user("ben")  # not a member: in by the organizer's link
    client.force_login(ben)
    client.post(f"/tournaments/{t.pk}/join/", {"invite_code": "TROEF7"})
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-withdraw" in page
    assert re.search(r"data-signed-up>1 / 8<", page)  # how many, not who
    response = client.post(f"/tournaments/{t.pk}/tables/withdraw/")
    # Back on the page the invite link shows, signed out, free to sign up again.
    assert response["Location"] == f"/tournaments/{t.pk}/tables/?code=TROEF7"
    assert not Entry.objects.filter(tournament=t, player=ben).exists()
    page = client.get(response["Location"]).content.decode()
    assert "Je bent niet meer ingeschreven." in page and 'name="invite_code"' in page
    assert re.search(r"data-signed-up>0 / 8<", page)
    # The organizers see who took a sign-up back, and when.
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "ben: trok de inschrijving in (kan niet komen)" in " ".join(panel.split())
    client.force_login(ben)
    client.post(f"/tournaments/{t.pk}/join/", {"invite_code": "TROEF7"})
    # After the draw the sign-up stays: the organizer replaces whoever cannot play.
    for k in range(7):
        user = make_user(f"p{k}")
        club.members.add(user)
        actions.join(t.pk, user)
    actions.start_tables(t.pk, organizer)
    response = client.post(f"/tournaments/{t.pk}/tables/withdraw/", follow=True)
    assert "De loting is gebeurd" in response.content.decode()
    assert Entry.objects.filter(tournament=t, player=ben).exists()
    assert "data-withdraw" not in response.content.decode()
    with pytest.raises(actions.TournamentError, match="not signed up"):
        actions.withdraw(t.pk, organizer)


def test_a_solo_entry_is_not_taken_back_by_its_player(make_tournament, make_user):
    t = make_tournament(seed="solo-stays")
    anna = make_user("anna")
    t.club.members.add(anna)
    actions.join(t.pk, anna)
    with pytest.raises(actions.TournamentError, match="solo game once begun stays"):
        actions.withdraw(t.pk, anna)
    assert Entry.objects.filter(tournament=t, player=anna).exists()


def test_the_organizer_takes_a_sign_up_out_before_the_draw(
    client, organizer, club, make_user, tables_tournament
):
    t = tables_tournament(open_now=True, players=12)
    users = [make_user(f"p{k}") for k in range(9)]
    for user in users:
        club.members.add(user)
        actions.join(t.pk, user)
    troll = Entry.objects.get(tournament=t, player=users[-1])
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert 'data-entry="p8"' in page and "9 inschrijvingen" in page
    url = f"/tournaments/{t.pk}/manage/entry/{troll.pk}/remove/"
    response = client.post(url, {"reason": "dubbel ingeschreven"}, follow=True)
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/tables/organize/"
    troll.refresh_from_db()
    assert troll.status == Entry.Status.REMOVED
    page = response.content.decode()
    assert 'data-entry="p8"' not in page and "8 inschrijvingen" in page
    assert "dubbel ingeschreven" in page  # the audit trail names the reason
    # The draw seats the eight still in: two full tables, no bot.
    actions.start_tables(t.pk, organizer)
    seats = TableSeat.objects.filter(table__table_set__round__tournament=t)
    first_set = seats.filter(table__table_set__number=1)
    assert first_set.filter(entry__isnull=True).count() == 0  # no bot
    assert set(first_set.values_list("entry__player__username", flat=True)) == {
        f"p{k}" for k in range(8)
    }


def _setting(page: str, name: str) -> str | None:
    found = re.search(rf"<dd data-setting-{name}>(.*?)</dd>", page, re.S)
    return found.group(1).strip() if found else None


def test_the_pages_say_how_the_tournament_is_played(
    client, organizer, club, make_user, tables_tournament
):
    """The players' page and the organizer's view name what was chosen at creation: the
    rules, what a tie does, the bots, the clock, a set's deadline and the break."""
    t = tables_tournament(
        open_now=True, rules="flemish", bot_level="club", rounds=2, clock=30,
        set_minutes=25, round_break=10, tie_carry=True,
    )  # fmt: skip
    anna = make_user("anna")
    club.members.add(anna)
    for who, url in ((organizer, "tables/organize/"), (anna, "tables/")):
        client.force_login(who)
        page = client.get(f"/tournaments/{t.pk}/{url}").content.decode()
        assert _setting(page, "rules") == "Vlaams", url
        assert _setting(page, "tie") == "het volgende deel telt dubbel"
        assert _setting(page, "bots") == "Club"
        assert _setting(page, "clock") == "30 s"
        assert _setting(page, "deadline") == "25 minuten"
        assert _setting(page, "break") == "10 minuten"
    plain = tables_tournament(name="Zonder klok", rules="french", in_room=True, open_now=True)
    page = client.get(f"/tournaments/{plain.pk}/tables/").content.decode()
    assert _setting(page, "rules") == "Frans"
    for absent in ("tie", "bots", "clock", "deadline", "break"):  # none of these apply
        assert _setting(page, absent) is None, absent
    quick = tables_tournament(name="Snel", rounds=2, tie_carry=False, open_now=True)
    page = client.get(f"/tournaments/{quick.pk}/tables/").content.decode()
    assert _setting(page, "tie") == "niets telt dubbel: elk deel staat op zich"
    assert _setting(page, "clock") == "uit"
    assert _setting(page, "break").startswith("geen")


def _turn_cells(page: str) -> dict[int, str]:
    """The organizer's progress table: table number -> its "To move" cell, as text."""
    body = page.split("data-progress>", 1)[1].split("</table>", 1)[0]
    cells = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)[1:]:
        tds = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        cells[int(tds[0])] = re.sub(r"<[^>]+>", "", tds[-1]).strip()
    return cells


def test_whose_turn_it_is_at_a_table_reaches_only_an_organizer_who_does_not_play(
    client, organizer, club, make_user, tables_tournament
):
    """The seat to move after a trick is the one who took it: following whose turn it
    is at another table of a duplicate set tells who won each trick of the deals a
    player is still to play. Neither the standings socket (snapshot and push) nor the
    view of an organizer who plays carries it; the organizer who does not play sees it."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from game.models import Game
    from tournaments import consumers, tables

    t = tables_tournament(open_now=True, duplicate=True, deals=2)
    players = []
    for k in range(8):
        user = make_user(f"z{k}")
        club.members.add(user)
        actions.join(t.pk, user)
        players.append(user)
    actions.start_tables(t.pk)
    seated = {
        s.entry.player_id: s.table.number
        for s in TableSeat.objects.filter(table__table_set__round__tournament=t).select_related(
            "entry", "table"
        )
    }
    games = {
        table.number: Game.objects.get(pk=table.game_id)
        for table in tables.current_set(t).tables.all()
    }
    assert len(games) == 2 and all(g.state.get("to_move") is not None for g in games.values())
    # The organizer who does not play: the name of the seat to move at each table.
    client.force_login(organizer)
    cells = _turn_cells(client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode())
    for number, game in games.items():
        mover = game.seats.get(index=game.state["to_move"]).user.get_username()
        assert cells[number] == mover
    # A player: not in the socket's snapshot, nor in a push to the tournament's group.
    player = players[0]
    snapshot = consumers._snapshot(t.pk, player)
    assert snapshot is not None and snapshot["progress"]["tables"]
    assert all(tab["to_move"] is None for tab in snapshot["progress"]["tables"])
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(t.group_name, channel)
    tables.push_standings(t.pk)
    pushed = async_to_sync(layer.receive)(channel)["payload"]["progress"]
    assert pushed["tables"] and all(tab["to_move"] is None for tab in pushed["tables"])
    # An organizer who plays: not on their view either.
    club.organizers.add(player)
    client.force_login(player)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    other = 2 if seated[player.pk] == 1 else 1
    assert _turn_cells(page)[other] == ""


def test_one_entry_is_said_in_the_singular(client, organizer, club, make_user, tables_tournament):
    t = tables_tournament(open_now=True)
    player = make_user("eerste")
    club.members.add(player)
    actions.join(t.pk, player)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "1 inschrijving." in page and "1 inschrijvingen" not in page
