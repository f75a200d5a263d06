"""Tables of people over HTTP (issue 11): the lobby, a new table, the waiting room with
its stable test hooks, seat requests and their refusals, the table from each seat."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.utils.html import escape

from game import actions
from game.models import Game, Seat
from tests.helpers import card_tokens, wait_for_idle_bots, wait_for_turn

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def _bots_done(live_game_db):
    yield
    wait_for_idle_bots()


def _client(user=None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def _new_table(client, **fields) -> Game:
    data = {"rules": "flemish", "bot_level": "heuristic", "clock": "0", **fields}
    response = client.post("/tables/new/", data)
    assert response.status_code == 302, response.content[:500]
    game = Game.objects.latest("created")
    assert response["Location"] == f"/tables/{game.public_id}/"
    return game


def test_the_new_table_form_and_its_refusals(user):
    host = _client(user)
    page = host.get("/tables/new/")
    assert page.status_code == 200
    body = page.content.decode()
    for name in ('name="rules"', 'name="bot_level"', 'name="clock"', 'name="private"'):
        assert name in body
    before = Game.objects.count()
    for bad in ({"clock": "20"}, {"clock": "soon"}, {"rules": "poker"}, {"bot_level": "god"}):
        data = {"rules": "flemish", "bot_level": "heuristic", "clock": "0", **bad}
        refused = host.post("/tables/new/", data)
        assert refused.status_code == 400 and b"data-error" in refused.content
    assert Game.objects.count() == before


def test_the_waiting_room_hooks_for_host_and_visitor(user, other_user):
    host = _client(user)
    game = _new_table(host, clock="30")
    assert game.clock == 30 and game.status == Game.Status.WAITING
    page = host.get(f"/tables/{game.public_id}/").content.decode()
    assert f'data-join-url="http://testserver/tables/{game.public_id}/"' in page
    assert sorted(re.findall(r'data-seat="(\d)"', page)) == ["0", "1", "2", "3"]
    assert sorted(re.findall(r'data-add-bot="(\d)"', page)) == ["1", "2", "3"]
    assert "data-start" in page and "data-sit=" not in page  # the host already sits
    visitor = _client(other_user)
    seen = visitor.get(f"/tables/{game.public_id}/").content.decode()
    assert sorted(re.findall(r'data-sit="(\d)"', seen)) == ["1", "2", "3"]
    assert "data-add-bot" not in seen and "data-start" not in seen
    assert visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "2"}).status_code == 302
    # Refusals: a taken seat, a second seat, a bot by a non-host, a start by a non-host.
    stranger = _client(type(user).objects.create_user("stranger", password="pw-str-123"))
    for client, url, data in (
        (stranger, "sit", {"seat": "2"}),
        (visitor, "sit", {"seat": "3"}),
        (visitor, "bot", {"seat": "1"}),
        (visitor, "start", {}),
        (host, "start", {}),  # seats 1 and 3 are still free
        (host, "bot", {"seat": "9"}),
    ):
        response = client.post(f"/tables/{game.public_id}/{url}/", data)
        assert response.status_code == 409, (url, data, response.status_code)
        assert b"data-error" in response.content
    seats = actions.seats_of(game)
    assert [s.user_id for s in seats] == [user.pk, None, other_user.pk, None]
    # The host fills the rest with bots and starts: the table page of each person.
    for seat in ("1", "3"):
        assert host.post(f"/tables/{game.public_id}/bot/", {"seat": seat}).status_code == 302
    assert host.post(f"/tables/{game.public_id}/start/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    # A second tap on Start (or Start as the fourth person sat down): to the table.
    again = host.post(f"/tables/{game.public_id}/start/")
    assert again.status_code == 302 and again["Location"] == f"/tables/{game.public_id}/"
    for client, seat in ((host, 0), (visitor, 2)):
        response = client.get(f"/tables/{game.public_id}/")
        assert [t.name for t in response.templates][0] == "game/table.html"
        body = response.content.decode()
        table = json.loads(re.search(r'id="initial-table"[^>]*>(.*?)</script>', body).group(1))
        assert table["seat"] == seat
        assert [p["name"] for p in table["players"]] == ["south", "", "intruder", ""]
        state = json.loads(re.search(r'id="initial-state"[^>]*>(.*?)</script>', body).group(1))
        assert state["seat"] == seat
        # The page carries no card of another seat's hand.
        game.refresh_from_db()
        eng = actions.replay(game)
        others = {str(c) for s in range(4) if s != seat for c in eng.deal.hand(s)}
        assert not card_tokens(state) & others
        assert "data-leave" in body and "data-rematch" in body and "data-new-game" not in body


def test_a_guest_sits_at_an_open_table_and_the_lobby_lists_it(user):
    host = _client(user)
    game = _new_table(host)
    lobby = _client().get("/tables/?format=json").json()["tables"]
    assert [t["id"] for t in lobby] == [str(game.public_id)]
    assert lobby[0]["free"] == [1, 2, 3] and lobby[0]["people"] == 1
    assert str(game.public_id) in _client().get("/tables/").content.decode()
    guest = _client()
    assert guest.post(f"/tables/{game.public_id}/sit/", {"seat": "1"}).status_code == 302
    seat = Seat.objects.get(game=game, index=1)
    assert seat.user.username.startswith("gast-")
    # A refused anonymous visitor leaves no guest account behind.
    users = type(user).objects.count()
    assert _client().post(f"/tables/{game.public_id}/sit/", {"seat": "1"}).status_code == 409
    assert type(user).objects.count() == users


def test_guests_tapping_one_free_seat_at_once_leave_no_account_behind(
    user, django_user_model, monkeypatch
):
    """The seat was free when the visitor's request looked, and taken by someone else
    before it sat down (five people tapping one seat): the loser is refused, and neither
    a guest account is left behind nor is the loser logged in as one."""
    from game import tables as table_views

    host = _client(user)
    game = _new_table(host)
    rival = django_user_model.objects.create_user("snelle", password="pw-snelle-123")
    look = table_views.actions.get_viewer

    def looked_then_taken(*args, **kwargs):
        viewer = look(*args, **kwargs)
        if not Seat.objects.filter(game=game, user=rival).exists():
            table_views.actions.sit(game.public_id, rival, 1, None)  # meanwhile
        return viewer

    monkeypatch.setattr(table_views.actions, "get_viewer", looked_then_taken)
    users = django_user_model.objects.count()
    visitor = _client()
    refused = visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "1", "name": "Traag"})
    assert refused.status_code == 409
    assert django_user_model.objects.count() == users
    assert not django_user_model.objects.filter(username__startswith="gast-").exists()
    assert "_auth_user_id" not in visitor.session
    assert Seat.objects.get(game=game, index=1).user == rival


def test_a_guest_sits_under_the_name_they_give(user):
    host = _client(user)
    game = _new_table(host)
    visitor = _client()
    page = visitor.get(f"/tables/{game.public_id}/").content.decode()
    assert "data-guest-name" in page and 'form="sit-form"' in page
    assert host.get(f"/tables/{game.public_id}/").content.decode().count("data-guest-name") == 0
    visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "1", "name": "  Jan Peeters "})
    assert Seat.objects.get(game=game, index=1).user.username == "gast-Jan-Peeters"
    # The same name again is told apart.
    other = _client()
    other.post(f"/tables/{game.public_id}/sit/", {"seat": "2", "name": "jan-peeters"})
    assert Seat.objects.get(game=game, index=2).user.username == "gast-jan-peeters-2"
    # A name that cannot be used is said so, kept in the field, and nothing happens (no
    # seat taken, no guest account made), rather than a random name behind one's back.
    third = _client()
    users = type(user).objects.count()
    for bad, why in (("<b>", "alleen letters"), ("gast-x", "niet beginnen met")):
        refused = third.post(f"/tables/{game.public_id}/sit/", {"seat": "3", "name": bad})
        assert refused.status_code == 400
        body = refused.content.decode()
        assert why in body and f'value="{escape(bad)}"' in body, body
        assert Seat.objects.get(game=game, index=3).is_free
    assert type(user).objects.count() == users
    # No name at all: a random one.
    third.post(f"/tables/{game.public_id}/sit/", {"seat": "3", "name": "  "})
    assert re.fullmatch(r"gast-[0-9a-f]{12}", Seat.objects.get(game=game, index=3).user.username)
    # A guest under a random name gets the same answer for a name that cannot be used.
    fourth = _new_table(host)
    refused = third.post(f"/tables/{fourth.public_id}/sit/", {"seat": "1", "name": "a/b"})
    assert refused.status_code == 400 and Seat.objects.get(game=fourth, index=1).is_free
    # A guest already under a random name takes the name at the next table.
    second = _new_table(host)
    third.post(f"/tables/{second.public_id}/sit/", {"seat": "1", "name": "Mieke"})
    assert Seat.objects.get(game=second, index=1).user.username == "gast-Mieke"
    # A visitor who opens a table names themselves too.
    opener = _client()
    assert "data-guest-name" in opener.get("/tables/new/").content.decode()
    opener.post("/tables/new/", {"rules": "flemish", "bot_level": "heuristic", "clock": "0",
                                 "name": "Gastvrouw"})  # fmt: skip
    assert Game.objects.filter(owner__username="gast-Gastvrouw").exists()
    games, users = Game.objects.count(), type(user).objects.count()
    refused = _client().post("/tables/new/", {"rules": "flemish", "bot_level": "heuristic",
                                              "clock": "0", "name": "Jan;Piet"})  # fmt: skip
    assert refused.status_code == 400 and "alleen letters" in refused.content.decode()
    assert (Game.objects.count(), type(user).objects.count()) == (games, users)
    assert "data-guest-name" not in host.get("/tables/new/").content.decode()
    # An account keeps its own name.
    third_table = _new_table(host)
    host_seat_name = Seat.objects.get(game=third_table, index=0).user.username
    assert host_seat_name == user.username


def test_lobby_form_and_waiting_room_name_rules_and_bots_in_the_page_language(user):
    host = _client(user)
    form = host.get("/tables/new/").content.decode()
    assert '<option value="flemish-table">Vlaams (tafel)</option>' in form
    assert '<option value="club">Club</option>' in form
    game = _new_table(host, rules="french", bot_level="heuristic")
    assert host.post(f"/tables/{game.public_id}/bot/", {"seat": "1"}).status_code == 302
    waiting = host.get(f"/tables/{game.public_id}/").content.decode()
    assert re.search(r"<small>Frans · ", waiting) and "bot (Beginner)" in waiting
    assert "french" not in re.sub(r"<[^>]*>", "", waiting)  # the id is never shown as text
    row = _client().get("/tables/?format=json").json()["tables"][0]
    assert (row["rules"], row["rules_name"], row["bot_level"], row["bot_name"]) == (
        "french", "Frans", "heuristic", "Beginner",
    )  # fmt: skip
    english = _client()
    english.cookies["django_language"] = "en"
    row = english.get("/tables/?format=json").json()["tables"][0]
    assert (row["rules_name"], row["bot_name"]) == ("French", "Beginner")
    lobby = _client().get("/tables/").content.decode()
    assert '<td data-label="Regels">Frans</td><td data-label="Bots">Beginner</td>' in lobby


def test_a_private_table_needs_its_link(user, other_user):
    host = _client(user)
    game = _new_table(host, private="on")
    assert game.visibility == Game.Visibility.LINK and game.join_code
    page = host.get(f"/tables/{game.public_id}/").content.decode()
    assert f"?code={game.join_code}" in page  # the link to share
    visitor = _client(other_user)
    assert visitor.get(f"/tables/{game.public_id}/").status_code == 404
    assert visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "1"}).status_code == 404
    assert _client().get("/tables/?format=json").json()["tables"] == []
    url = f"/tables/{game.public_id}/?code={game.join_code}"
    assert 'data-sit="1"' in visitor.get(url).content.decode()
    sat = visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "1", "code": game.join_code})
    assert sat.status_code == 302
    assert Seat.objects.get(game=game, index=1).user_id == other_user.pk


def test_leaving_mid_game_leaves_the_bot_and_leaving_twice_is_refused(user, other_user):
    host = _client(user)
    game = _new_table(host)
    visitor = _client(other_user)
    visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "2"})
    for seat in ("1", "3"):
        host.post(f"/tables/{game.public_id}/bot/", {"seat": seat})
    host.post(f"/tables/{game.public_id}/start/")
    assert visitor.post(f"/tables/{game.public_id}/leave/").status_code == 302
    assert Seat.objects.get(game=game, index=2).bot_control is True
    again = visitor.post(f"/tables/{game.public_id}/leave/")
    assert again.status_code == 409 and b"data-error" in again.content
    page = visitor.get(f"/tables/{game.public_id}/").content.decode()
    assert "data-take-back" in page
    assert visitor.post(f"/tables/{game.public_id}/back/").status_code == 302
    assert Seat.objects.get(game=game, index=2).bot_control is False
    # A second tab's "take your seat back": nothing to do, back to the table (was a
    # refusal page at the form's address, which a reload would send again).
    twice = visitor.post(f"/tables/{game.public_id}/back/")
    assert twice.status_code == 302 and twice["Location"] == f"/tables/{game.public_id}/"
    with pytest.raises(actions.AlreadyPlaying):
        actions.take_back(game.public_id, other_user)


def test_the_home_page_lists_a_table_game_with_the_players_own_score(user, other_user):
    game = actions.create_table(user)
    actions.add_bot(game.public_id, user, 1)
    actions.sit(game.public_id, other_user, 3)
    actions.add_bot(game.public_id, user, 2)
    actions.start(game.public_id, user)
    actions.autoplay(game.pk)
    game.refresh_from_db()
    response = _client(other_user).get("/")
    assert f"/game/{game.public_id}/" in response.content.decode()
    own = Seat.objects.get(game=game, index=3).final_score
    assert own == -game.final_score != 0 or own == 0
    listed = response.context["games"]
    assert [g.pk for g in listed] == [game.pk] and listed[0].my_score == own


def test_the_record_names_the_four_and_the_bot_moves_and_profiles_list_the_game(user, other_user):
    from engine import records

    game = actions.create_table(user)
    actions.add_bot(game.public_id, user, 1)
    actions.sit(game.public_id, other_user, 2)
    actions.add_bot(game.public_id, user, 3)
    actions.start(game.public_id, user)
    actions.leave(game.public_id, other_user)  # the bot plays north's seat from here
    actions.autoplay(game.pk)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.bot_moves
    # North left before any move: every north move is a bot move for a person (autoplay
    # also played south's, the host's); bots' own seats are never listed.
    seats_moved = {engine_seat_of_move(game, n) for n in game.bot_moves}
    assert 2 in seats_moved and not seats_moved & {1, 3}
    parsed = records.read_text(game.record)  # the record stays a valid, verified record
    assert parsed.tags["BotMoves"].split() == [str(n) for n in game.bot_moves]
    text = game.record
    assert '[South "south"]' in text and '[North "intruder"]' in text
    assert '[West "bot:heuristic"]' in text and '[East "bot:heuristic"]' in text
    assert "[BotMoves " in text
    own = Seat.objects.get(game=game, index=2).final_score
    for client, url in (
        (_client(other_user), "/accounts/profile/"),
        (_client(), "/players/intruder/"),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        rows = response.context["table_games"]
        assert [r["game"].pk for r in rows] == [game.pk]
        assert rows[0]["score"] == own and rows[0]["names"][2] == "intruder"
        assert rows[0]["names"][1] == "bot (Beginner)"  # the level as the table names it
        assert f'data-table-game="{game.public_id}"' in response.content.decode()
    # A solo game is not a table game.
    wait_for_turn(actions.create_game(other_user).public_id)
    assert len(actions.table_games_of(other_user, own=True)) == 1


def engine_seat_of_move(game: Game, n: int) -> int:
    """The seat that made move number `n` (1-based) of the game."""
    import engine

    eng = engine.Game.replay(game.seed, game.rules, game.actions[: n - 1])
    return eng.to_move


def test_the_host_closes_a_table_that_has_not_started(user, other_user):
    host = _client(user)
    game = _new_table(host)
    visitor = _client(other_user)
    visitor.post(f"/tables/{game.public_id}/sit/", {"seat": "2"})
    page = host.get(f"/tables/{game.public_id}/").content.decode()
    assert "data-close-table" in page
    assert "data-close-table" not in visitor.get(f"/tables/{game.public_id}/").content.decode()
    response = host.post(f"/tables/{game.public_id}/leave/")
    assert response.status_code == 302 and response["Location"] == "/tables/"
    assert not Game.objects.filter(pk=game.pk).exists()
    assert host.get("/tables/?format=json").json()["tables"] == []
    assert visitor.get(f"/tables/{game.public_id}/").status_code == 404


def test_a_visitor_who_clicks_a_seat_just_taken_is_told_so(user):
    host = _client(user)
    game = _new_table(host)
    assert _client().post(f"/tables/{game.public_id}/sit/", {"seat": "1"}).status_code == 302
    late = _client().post(f"/tables/{game.public_id}/sit/", {"seat": "1"})
    assert late.status_code == 409
    page = late.content.decode()
    assert "bezet" in page and "gast" not in page.split("data-error", 1)[1][:200]


def test_a_players_table_games_are_listed_without_a_query_each(user, other_user):
    """The profile and a player's page list up to 25 games at tables of people, each
    with its four names: they were asked one query per game."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def finished_table(k: int) -> None:
        game = Game.objects.create(
            owner=user, seed=f"listed-{k}", rules="flemish", status=Game.Status.FINISHED,
            visibility=Game.Visibility.OPEN,
        )  # fmt: skip
        people = {0: user, 2: other_user}
        Seat.objects.bulk_create(
            [Seat(game=game, index=i, user=people.get(i), bot_level="heuristic") for i in range(4)]
        )

    counts = []
    for games in (1, 6):
        while Seat.objects.filter(user=user, game__status=Game.Status.FINISHED).count() < games:
            finished_table(Seat.objects.filter(user=user).count())
        with CaptureQueriesContext(connection) as queries:
            rows = actions.table_games_of(user, own=False)
        assert len(rows) == games
        assert rows[0]["names"][0] == user.get_username() and rows[0]["names"][1].startswith("bot")
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
