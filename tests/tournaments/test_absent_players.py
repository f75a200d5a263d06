"""A live start (issue 12, part 5): a person who has not opened their table within the
grace (TABLES_ABSENT_GRACE) is played by the bot until they arrive; their first socket
gives the seat back. Race-safe against a connect at the same moment, idempotent, and
run by the worker's task on the production stack (the in-process timer when embedded)."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest
from django.db import connection
from django.utils import timezone

import engine
from game import actions as game_actions
from game.models import Game, Seat
from tests.helpers import PRODUCTION_STACK, wait_for_idle_bots
from tournaments import actions, tables
from tournaments.models import Table, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def _bots_done(live_game_db):
    yield
    wait_for_idle_bots()


def wait_until(predicate, timeout: float = 30.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def four_at_a_table(make_user, prefix: str, **kwargs) -> tuple[Tournament, Game, dict]:
    """A tournament of one table of four people (fixed pairs, one set of one deal),
    started; returns it, the table's game and its people by seat."""
    t = actions.create_tables_tournament(
        None, name=f"Live {prefix}", fmt="pairs", players=4, sets=1, deals=1, open_now=True,
        **kwargs,
    )  # fmt: skip
    for i in range(4):
        user = make_user(f"{prefix}{i}")
        if t.club is not None:
            actions.join_club(user, t.club.invite_code)
        actions.join(t.pk, user)
    actions.start_tables(t.pk)
    game = Table.objects.get(table_set__round__tournament=t).game
    people = {s.index: s.user for s in game_actions.seats_of(game)}
    return t, game, people


def grace_over(game: Game) -> None:
    """Move the table's arrival time into the past (instead of sleeping through it)."""
    Game.objects.filter(pk=game.pk).update(arrive_by=timezone.now() - dt.timedelta(seconds=1))


def seat(game: Game, index: int) -> Seat:
    return Seat.objects.get(game=game, index=index)


def actors(game: Game) -> list[int]:
    """Who made each move (index i: move number i + 1)."""
    eng, out = engine.Game(game.seed, game.rules), []
    for action in game.actions:
        out.append(eng.to_move)
        eng.apply_action(action)
    return out


def people_turn(game: Game, timeout: float = 20.0) -> Game:
    deadline = time.monotonic() + timeout
    while True:
        game = Game.objects.get(pk=game.pk)
        if (game.state or {}).get("game_over") or not game.awaiting_bot:
            return game
        assert time.monotonic() < deadline, f"bots did not reply (seq {game.seq})"
        time.sleep(0.02)


def play_people_until(game: Game, people: dict, done) -> Game:
    """The people whose seats they play make their first legal move, until done(game)."""
    while True:
        game = people_turn(game)
        if done(game) or (game.state or {}).get("game_over"):
            return game
        who = people[game.state["to_move"]]
        legal = game_actions.snapshot(game.public_id, who)["state"]["legal"]
        game_actions.apply_action(game.public_id, who, legal[0], game.seq)


def test_an_absent_player_is_played_by_the_bot_until_they_arrive(settings, make_user):
    settings.TABLES_ABSENT_GRACE = 60  # the test moves the time itself
    t, game, people = four_at_a_table(make_user, "abs")
    assert game.arrive_by is not None
    away = 2
    for index, user in people.items():
        if index != away:
            game_actions.connect(game.public_id, user)
    assert game_actions.absence_expired(game.pk) == 0  # the grace is not over yet
    assert not seat(game, away).bot_control
    grace_over(game)
    assert game_actions.absence_expired(game.pk) == 1  # only the one who is not there
    assert game_actions.absence_expired(game.pk) == 0  # once
    taken = seat(game, away)
    assert taken.bot_control and taken.bot_reason == "absent"
    assert not any(seat(game, i).bot_control for i in people if i != away)

    # The organizer sees who is absent and that the bot plays for them.
    row = tables.progress(t)["tables"][0]["seats"]
    assert [x["absent"] for x in row] == [i == away for i in range(4)]
    assert [x["bot_reason"] for x in row] == ["absent" if i == away else "" for i in range(4)]

    # The others play; the bot plays the absent player's moves (recorded as bot moves).
    game = play_people_until(
        game, people, lambda g: any(a == away for a in actors(g)[len(actors(g)) - 1 :])
    )
    by_bot = set(game.bot_moves)
    assert by_bot and all(actors(game)[n - 1] == away for n in by_bot)
    assert all(n in by_bot for n, a in enumerate(actors(game), start=1) if a == away)

    # They arrive: their socket gives them the seat back, and they play again.
    snap = game_actions.connect(game.public_id, people[away])
    assert snap["table"]["players"][away]["bot_control"] is False
    assert snap["arrived"] == "absent"  # their table says the bot played for them till now
    assert "arrived" not in game_actions.connect(game.public_id, people[away])  # once
    back = seat(game, away)
    assert not back.bot_control and back.bot_reason == "" and back.connections == 2
    assert tables.progress(t)["tables"][0]["seats"][away]["bot_plays"] is False
    arrived_at = Game.objects.get(pk=game.pk).seq
    game = play_people_until(game, people, lambda g: any(a == away for a in actors(g)[arrived_at:]))
    own = [n for n, a in enumerate(actors(game), start=1) if a == away and n > arrived_at]
    assert own and not set(own) & set(game.bot_moves)
    assert set(game.bot_moves) == by_bot  # no bot move for them since they arrived
    # Arriving again changes nothing; the absence check after arrival takes nothing.
    assert game_actions.arrive(game.pk, away, people[away]) is False
    assert game_actions.absence_expired(game.pk) == 0
    game = play_people_until(game, people, lambda g: False)
    assert game.status == Game.Status.FINISHED
    tags = game_actions.record_tags(game)
    assert tags["BotMoves"].split() == [str(n) for n in sorted(by_bot)]


def test_present_then_gone_is_for_the_away_takeover_and_needs_take_back(settings, make_user):
    """Opened and closed again within the grace: not "absent" (the away-takeover after
    GAME_DISCONNECT_TAKEOVER handles it), and a seat taken because of that is given
    back only by "take your seat back", not by a new socket."""
    settings.TABLES_ABSENT_GRACE = 60
    _, game, people = four_at_a_table(make_user, "gone")
    for user in people.values():
        game_actions.connect(game.public_id, user)
    game_actions.seat_disconnected(game.public_id, people[1])
    grace_over(game)
    assert game_actions.absence_expired(game.pk) == 0
    left = seat(game, 1)
    assert left.connections == 0 and left.disconnected_at is not None
    assert game_actions.disconnect_expired(game.pk, 1, left.disconnected_at.isoformat()) == 1
    assert seat(game, 1).bot_reason == "away"
    game_actions.connect(game.public_id, people[1])
    assert seat(game, 1).bot_control  # still the bot's
    game_actions.take_back(game.public_id, people[1])
    assert not seat(game, 1).bot_control and seat(game, 1).bot_reason == ""


def test_leaving_while_absent_keeps_the_seat_with_the_bot(settings, make_user):
    """Someone who was away at the start and then leaves the table: their next socket
    (a look at the table) does not give them the seat back."""
    settings.TABLES_ABSENT_GRACE = 60
    _, game, people = four_at_a_table(make_user, "quit")
    for index in (1, 2, 3):
        game_actions.connect(game.public_id, people[index])
    grace_over(game)
    assert game_actions.absence_expired(game.pk) == 1
    people_turn(game)
    game_actions.leave(game.public_id, people[0])
    assert seat(game, 0).bot_reason == "left"
    game_actions.connect(game.public_id, people[0])
    assert seat(game, 0).bot_control


def test_a_tournament_table_everyone_left_is_played_to_its_end(make_user):
    """Unlike a casual table, a tournament's table counts: the bots play it out."""
    _, game, people = four_at_a_table(make_user, "all-gone")
    for user in people.values():
        game_actions.leave(game.public_id, user)
    game = Game.objects.get(pk=game.pk)
    assert all(s.bot_control for s in game_actions.seats_of(game))
    game_actions.autoplay(game.pk)
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED and game_actions.replay(game).is_terminal()


def test_a_player_who_never_came_is_marked_and_not_ranked(settings, make_user, client):
    """The bot played all of someone's sets because they never opened the table: their
    entry is listed "never came" and not ranked (so not rated, nor in a season); their
    partner, who played, is ranked as always."""
    settings.TABLES_ABSENT_GRACE = 60
    t, game, people = four_at_a_table(make_user, "noshow")
    for index in (1, 2, 3):
        game_actions.connect(game.public_id, people[index])
    grace_over(game)
    assert game_actions.absence_expired(game.pk) == 1
    game_actions.autoplay(game.pk)
    from tournaments import tables

    wait_until(lambda: len(tables.standings(t)) == 4 and tables.standings(t)[0]["sets"])
    rows = {r["player"]: r for r in tables.standings(t)}
    gone = rows[people[0].get_username()]
    assert gone["no_show"] and gone["rank"] is None and gone["sets"] == 1
    partner = rows[people[2].get_username()]
    assert not partner["no_show"] and partner["rank"] is not None
    assert tables.standings(t)[-1]["player"] == people[0].get_username()  # unranked last
    # The entry not ranked takes up no place: the ranked ones are numbered from 1 among
    # themselves (level ones sharing a place), as if it were not there.
    ranked = [r for r in tables.standings(t) if r["rank"] is not None]
    expected = [
        1 + sum((o["raw"], o["dup_mp"]) > (r["raw"], r["dup_mp"]) for o in ranked) for r in ranked
    ]
    assert [r["rank"] for r in ranked] == expected and expected[0] == 1
    client.force_login(people[2])
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-no-show" in page and "data-unranked-note" in page


def test_whoever_replaces_a_no_show_is_not_marked_never_came(settings, make_user):
    """The bot played the first set for someone who never came; the organizer gives
    their place to a newcomer during the second. The entry's row names the newcomer
    ("earlier: ..."): it is not marked "never came", which was the earlier player's."""
    settings.TABLES_ABSENT_GRACE = 60
    boss = make_user("noshow-boss")
    boss.is_staff = True
    boss.save(update_fields=["is_staff"])
    t = actions.create_tables_tournament(
        boss, name="Live swap", fmt="pairs", players=4, sets=2, deals=1, open_now=True
    )
    for i in range(4):
        actions.join(t.pk, make_user(f"swap{i}"))
    actions.start_tables(t.pk)
    game = Table.objects.get(table_set__round__tournament=t).game
    people = {s.index: s.user for s in game_actions.seats_of(game)}
    for index in (1, 2, 3):
        game_actions.connect(game.public_id, people[index])
    grace_over(game)
    assert game_actions.absence_expired(game.pk) == 1
    game_actions.autoplay(game.pk)
    wait_until(
        lambda: Table.objects.filter(table_set__round__tournament=t, table_set__number=2).exists(),
        what="the second set",
    )
    gone = tables.standings(t)
    assert {r["player"]: r["no_show"] for r in gone}[people[0].get_username()]
    entry = t.entries.get(player=people[0])
    actions.replace_player(entry.pk, boss, make_user("swap-in"), "never came")
    row = {r["player"]: r for r in tables.standings(t)}["swap-in"]
    assert row["before"] == [people[0].get_username()]
    assert not row["no_show"] and row["rank"] is not None


def test_a_tournament_table_has_no_chat(make_user):
    """Partners must not talk about their cards: the table's host (the first person in
    the draw) cannot switch a chat on, and a chat switched on somehow carries nothing."""
    _, game, people = four_at_a_table(make_user, "nochat")
    host = Game.objects.get(pk=game.pk).owner
    with pytest.raises(game_actions.SeatRefused):
        game_actions.set_chat(game.public_id, host, True)
    Game.objects.filter(pk=game.pk).update(chat_enabled=True)
    with pytest.raises(game_actions.SeatRefused):
        game_actions.chat(game.public_id, people[0], "I hold all the trumps")


def test_a_table_of_one_person_counts_their_socket(settings, make_user):
    """A live-start table with one person and three bots counts that person's sockets
    (a solo game does not): connected, they are not taken; gone, they are."""
    user = make_user("lonely")
    game = game_actions.create_seated_game(
        user, [user, "heuristic", "heuristic", "heuristic"], seed="lonely", rules="flemish",
        bot_level="heuristic", arrive_within=60,
    )  # fmt: skip
    game_actions.connect(game.public_id, user)
    assert seat(game, 0).connections == 1
    grace_over(game)
    assert game_actions.absence_expired(game.pk) == 0
    game_actions.seat_disconnected(game.public_id, user)
    assert seat(game, 0).connections == 0 and seat(game, 0).disconnected_at is not None
    solo = game_actions.create_game(user, seed="lonely-solo")
    game_actions.connect(solo.public_id, user)
    assert seat(solo, 0).connections == 0 and solo.arrive_by is None


def test_a_replacement_takes_the_seat_by_arriving(settings, client, club, organizer, make_user):
    settings.TABLES_ABSENT_GRACE = 60
    t, game, people = four_at_a_table(make_user, "rep", club=club)
    game_actions.connect(game.public_id, people[3])  # the old player's socket
    entry = t.entries.get(player=people[3])
    newcomer = make_user("newcomer")
    actions.replace_player(entry.pk, organizer, newcomer, "went home")
    handed = seat(game, 3)
    assert handed.bot_control and handed.bot_reason == "replaced" and handed.connections == 0
    # The organizer's view: who is absent, and that the bot plays until they arrive.
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert 'data-seat-state="bot-replaced"' in page
    assert "de bot speelt tot die speler er is" in page
    assert page.count('data-seat-state="absent"') == 3  # nobody else opened the table
    game_actions.connect(game.public_id, newcomer)
    handed = seat(game, 3)
    assert handed.user == newcomer and not handed.bot_control


def test_a_connect_racing_the_absence_check_never_leaves_a_present_player_to_the_bot(
    settings, make_user
):
    """The check and a connect at the same moment, many times over: whichever wins, a
    person with a socket open ends up playing their own seat."""
    if not PRODUCTION_STACK and connection.vendor == "sqlite":
        pytest.skip("threads racing on one in-memory SQLite database: the PostgreSQL run")
    settings.TABLES_ABSENT_GRACE = 60
    _, game, people = four_at_a_table(make_user, "race")
    grace_over(game)
    for user in (people[0], people[1], people[3]):
        game_actions.connect(game.public_id, user)
    outcomes = set()
    for _ in range(12):
        Seat.objects.filter(game=game, index=2).update(
            bot_control=False, bot_reason="", connections=0, disconnected_at=None
        )
        wait_for_idle_bots()
        barrier, errors, taken = threading.Barrier(2), [], []

        def run(step, barrier=barrier, errors=errors):
            try:
                barrier.wait()
                step()
            except Exception as exc:  # reported below
                errors.append(exc)
            finally:
                connection.close()

        def check(taken=taken):
            taken.append(game_actions.absence_expired(game.pk))

        def arrive():
            game_actions.connect(game.public_id, people[2])

        threads = [threading.Thread(target=run, args=(f,)) for f in (check, arrive)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        assert not errors, errors
        s = seat(game, 2)
        assert s.connections == 1 and not s.bot_control, (taken, s.bot_reason)
        outcomes.add(taken[0])
    # Both orders are fine; what matters is the end state above.
    assert outcomes <= {0, 1}


def test_absent_players_at_the_start_are_played_by_the_scheduled_task(
    settings, monkeypatch, make_user
):
    """Nobody opens the table: after the grace the task (the worker's on the production
    stack, the in-process timer when embedded) gives every seat to the bot, which plays
    the set to its end; the tournament closes."""
    settings.TABLES_ABSENT_GRACE = 1
    settings.GAME_EMBEDDED_TIMERS = True
    timers = []
    if not PRODUCTION_STACK:
        # The in-process timer: waited for (joined) rather than polled beside, since
        # one in-memory SQLite database does not take a reader beside a writer thread.
        real_timer = threading.Timer

        def timer(*args, **kwargs):
            timers.append(real_timer(*args, **kwargs))
            return timers[-1]

        monkeypatch.setattr(game_actions.threading, "Timer", timer)
    t, game, _ = four_at_a_table(make_user, "none")
    if not PRODUCTION_STACK:
        assert len(timers) == 1  # one absence check for the table
        timers[0].join(15)
    wait_until(
        lambda: Seat.objects.filter(game=game, bot_reason="absent").count() == 4,
        what="the absence takeover",
    )
    wait_until(lambda: Tournament.objects.get(pk=t.pk).is_closed, timeout=60, what="the set's end")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert len(game.bot_moves) == game.seq  # every move was the bot's, for the people


async def test_the_table_socket_of_an_absent_player_gives_them_their_seat(settings, make_user):
    """Through the game's websocket, as a browser opens it: the snapshot already shows
    the seat as theirs; closing it counts the socket off again."""
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.test import Client

    from config.asgi import application

    settings.TABLES_ABSENT_GRACE = 60

    @database_sync_to_async
    def absent_table():
        _, game, people = four_at_a_table(make_user, "sock")
        for index in (0, 1, 3):
            game_actions.connect(game.public_id, people[index])
        grace_over(game)
        assert game_actions.absence_expired(game.pk) == 1
        client = Client()
        client.force_login(people[2])
        return game, f"sessionid={client.cookies['sessionid'].value}".encode()

    game, cookie = await absent_table()
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]
    comm = WebsocketCommunicator(application, f"/ws/game/{game.public_id}/", headers=headers)
    connected, _ = await comm.connect(timeout=10)
    assert connected
    snapshot = await comm.receive_json_from(timeout=10)
    assert snapshot["table"]["seat"] == 2
    assert snapshot["table"]["players"][2]["bot_control"] is False
    mine = await database_sync_to_async(seat)(game, 2)
    assert not mine.bot_control and mine.connections == 1
    await comm.disconnect()
    mine = await database_sync_to_async(seat)(game, 2)
    assert mine.connections == 0 and mine.disconnected_at is not None


def test_the_organizer_lets_the_bot_play_a_seat_that_holds_the_table_up(
    club, organizer, make_user, client
):
    """Without a clock, a player who is there but does not play on held the whole set up
    and the organizer could only replace them or close the tournament. The organizer's
    view lets the bot play that seat (asked first); the player takes it back at will."""
    from django.urls import reverse

    from tournaments.models import AuditLog

    t = actions.create_tables_tournament(
        organizer, name="Wachten", club=club, fmt="pairs", players=4, sets=1, deals=1,
        open_now=True,
    )  # fmt: skip
    for i in range(4):
        user = make_user(f"wacht{i}")
        actions.join_club(user, club.invite_code)
        actions.join(t.pk, user)
    actions.start_tables(t.pk, organizer)
    game = Table.objects.get(table_set__round__tournament=t).game
    people = {s.index: s.user for s in game_actions.seats_of(game)}
    for user in people.values():
        game_actions.connect(game.public_id, user)  # everyone is there
    game = Game.objects.get(pk=game.pk)  # four people: whoever is to move is a person
    idle = game.state["to_move"]
    organize = reverse("tournaments:tables-organize", args=[t.pk])
    client.force_login(organizer)
    page = client.get(organize).content.decode()
    assert f'data-seat-to-bot="1-{idle}"' in page and "Laat de bot spelen" in page
    # A button for a finger, each person's seat on a line of its own (on a phone the
    # table's seats and controls ran together in one line).
    assert '<summary class="button">Laat de bot spelen</summary>' in page
    body = page.split('<table class="t-table" data-progress>', 1)[1].split("<tbody>", 1)[1]
    seats_cell = body.split("<td>", 1)[1].split("</td>", 1)[0]
    assert seats_cell.count("<br>") == 3 and " · " not in seats_cell
    url = reverse("tournaments:tables-seat-to-bot", args=[t.pk])
    form = {"round": 1, "set": 1, "table": 1, "seat": idle}
    # Not for a player of the tournament.
    client.force_login(people[(idle + 1) % 4])
    assert client.post(url, form).status_code == 403
    assert not seat(game, idle).bot_control
    client.force_login(organizer)
    assert client.post(url, form)["Location"] == organize
    held = seat(game, idle)
    assert held.bot_control and held.bot_reason == "away"
    wait_until(lambda: Game.objects.get(pk=game.pk).seq > game.seq)  # the bot played on
    log = AuditLog.objects.get(tournament=t, action="seat_to_bot")
    assert log.actor == organizer and log.entry.player == people[idle]
    page = client.get(organize).content.decode()
    assert f"liet de bot de plaats van {people[idle].get_username()} spelen" in page
    assert f'data-seat-to-bot="1-{idle}"' not in page
    # Twice is refused with a reason, nothing logged again.
    client.post(url, form)
    assert AuditLog.objects.filter(action="seat_to_bot").count() == 1
    # The player takes the seat back.
    game_actions.take_back(game.public_id, people[idle])
    assert not seat(game, idle).bot_control


def test_a_clock_starts_after_the_arrival_window(make_user):
    """A tournament's table with a clock of 15 s and 30 s to arrive: the first move's
    clock runs from the end of the arrival window, so whoever comes in time has all
    15 s (the bot chose trump for a dealer who came after 14 s); once the window is
    over a move has its plain clock."""
    people = [make_user(f"klok{i}") for i in range(4)]
    game = game_actions.create_seated_game(
        people[0], people, seed="clock-after-arrival", rules="flemish",
        bot_level="heuristic", clock=15, arrive_within=30,
    )  # fmt: skip
    game = Game.objects.get(pk=game.pk)
    assert game.deadline is not None and game.arrive_by is not None
    assert game.deadline >= game.arrive_by + dt.timedelta(seconds=15)
    # Nobody's clock ran out at the plain 15 s: the expiry finds its deadline ahead.
    assert game_actions.clock_expired(game.pk, game.seq) == 0
    Game.objects.filter(pk=game.pk).update(arrive_by=timezone.now() - dt.timedelta(seconds=1))
    eng = game_actions.replay(Game.objects.get(pk=game.pk))
    mover = people[eng.to_move]
    game_actions.apply_action(game.public_id, mover, eng.legal_actions()[0], game.seq)
    after = Game.objects.get(pk=game.pk)  # four people: the next move is a person's too
    left = (after.deadline - timezone.now()).total_seconds()
    assert 10 < left <= 15, left
