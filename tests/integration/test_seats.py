"""Games with four seats (issue 11): one model for solo games and tables of people,
one mutation path checked per seat, lobby refusals, clocks and bot takeovers."""

from __future__ import annotations

import datetime as dt
import importlib
import time

import pytest
from django.apps import apps as django_apps
from django.utils import timezone

import engine
from game import actions
from game.models import Game, Seat
from tests.helpers import wait_for_idle_bots

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def _bots_done(live_game_db):
    yield
    wait_for_idle_bots()


@pytest.fixture
def third_user(django_user_model):
    return django_user_model.objects.create_user("north", password="pw-north-123")


def _people_turn(game_id, timeout: float = 20.0) -> Game:
    """The fresh row once a person's seat is to move (or the game is over)."""
    deadline = time.monotonic() + timeout
    while True:
        game = Game.objects.get(public_id=game_id)
        if (game.state or {}).get("game_over") or not game.awaiting_bot:
            return game
        if time.monotonic() > deadline:
            raise AssertionError(f"bots did not reply within {timeout}s (seq {game.seq})")
        time.sleep(0.02)


def _unchanged(game: Game):
    game.refresh_from_db()
    return game.seq, list(game.actions)


def _table_two_people_two_bots(host, other, clock: int = 0) -> Game:
    game = actions.create_table(host, rules="flemish", bot_level="heuristic", clock=clock)
    actions.add_bot(game.public_id, host, 1)
    actions.sit(game.public_id, other, 2)
    actions.add_bot(game.public_id, host, 3)
    actions.start(game.public_id, host)
    return _people_turn(game.public_id)


def test_a_solo_game_is_one_person_and_three_bots(user):
    game = actions.create_game(user, seed="seats-solo", bot_level="heuristic")
    game = _people_turn(game.public_id)  # (a real worker may still be playing the bots)
    seats = actions.seats_of(game)
    assert [s.user_id for s in seats] == [user.pk, None, None, None]
    assert [s.bot_level for s in seats] == ["", "heuristic", "heuristic", "heuristic"]
    assert game.visibility == Game.Visibility.PRIVATE and game.status == Game.Status.ACTIVE


def test_a_row_without_seats_is_seated_like_the_migration_did(user):
    game = Game.objects.create(owner=user, seed="seats-legacy", rules="flemish", bot_level="club")
    seats = actions.seats_of(game)
    assert [(s.index, s.user_id, s.bot_level) for s in seats] == [
        (0, user.pk, ""),
        (1, None, "club"),
        (2, None, "club"),
        (3, None, "club"),
    ]


def test_the_migration_seats_every_existing_game(user):
    migration = importlib.import_module("game.migrations.0003_seats")
    eng = engine.Game("seats-migrate", "flemish")
    finished = Game.objects.create(
        owner=user, seed="a", rules="flemish", status="finished", final_score=42
    )
    waiting_on_bot = Game.objects.create(
        owner=user, seed="b", rules="flemish", state={**eng.observation(0), "to_move": 2}
    )
    Seat.objects.filter(game__in=[finished, waiting_on_bot]).delete()
    migration.seat_existing_games(django_apps, None)
    seats = list(Seat.objects.filter(game=finished).order_by("index"))
    assert [(s.user_id, s.final_score) for s in seats] == [
        (user.pk, 42),
        (None, -42),
        (None, 42),
        (None, -42),
    ]
    waiting_on_bot.refresh_from_db()
    assert waiting_on_bot.awaiting_bot is True
    assert Seat.objects.filter(game=waiting_on_bot, bot_level="heuristic").count() == 3


def test_two_people_and_two_bots_play_a_whole_game_each_only_their_seat(
    user, other_user, third_user
):
    game = _table_two_people_two_bots(user, other_user)
    people = {0: user, 2: other_user}
    moves = 0
    while True:
        game = _people_turn(game.public_id)
        if game.state["game_over"]:
            break
        to_move = game.state["to_move"]
        assert to_move in people, game.state
        before = _unchanged(game)
        # The partner may not act for the seat to move, nor may a spectator.
        snap_other = actions.snapshot(game.public_id, people[2 - to_move])
        assert snap_other["table"]["seat"] == 2 - to_move
        with pytest.raises(actions.NotYourTurn):
            actions.apply_action(game.public_id, people[2 - to_move], "pass", game.seq)
        with pytest.raises(actions.NotSeated) as refused:
            actions.apply_action(game.public_id, third_user, "pass", game.seq)
        assert refused.value.code == "not_seated"
        assert _unchanged(game) == before
        snap = actions.snapshot(game.public_id, people[to_move])
        assert snap["state"]["seat"] == to_move and snap["state"]["legal"]
        actions.apply_action(game.public_id, people[to_move], snap["state"]["legal"][0], game.seq)
        moves += 1
    assert moves > 20
    seats = actions.seats_of(game)
    assert game.status == Game.Status.FINISHED and game.bot_moves == []
    assert seats[0].final_score == seats[2].final_score == game.final_score
    assert seats[1].final_score == seats[3].final_score == -game.final_score
    # The record names the four players.
    assert '[South "south"]' in game.record and '[North "intruder"]' in game.record
    assert '[West "bot:heuristic"]' in game.record


def test_lobby_refusals_change_nothing(user, other_user, third_user):
    with pytest.raises(actions.SeatRefused):
        actions.create_table(user, clock=20)  # not offered
    game = actions.create_table(user, clock=30)
    gid = game.public_id
    with pytest.raises(actions.SeatRefused):
        actions.sit(gid, other_user, 0)  # the host's seat
    actions.sit(gid, other_user, 1)
    with pytest.raises(actions.SeatRefused):
        actions.sit(gid, third_user, 1)  # taken
    with pytest.raises(actions.SeatRefused):
        actions.sit(gid, other_user, 3)  # a second seat for one person
    with pytest.raises(actions.SeatRefused):
        actions.sit(gid, third_user, 7)  # no such seat
    with pytest.raises(actions.SeatRefused):
        actions.start(gid, other_user)  # not the host
    with pytest.raises(actions.SeatRefused):
        actions.start(gid, user)  # seats 2 and 3 are free
    with pytest.raises(actions.NotStarted):
        actions.apply_action(gid, user, "trump:H", 0)
    with pytest.raises(actions.SeatRefused):
        actions.add_bot(gid, other_user, 2)  # only the host adds bots
    with pytest.raises(actions.SeatRefused):
        actions.add_bot(gid, user, 1)  # a person sits there
    seats = actions.seats_of(game)
    assert [(s.user_id, s.bot_level) for s in seats] == [
        (user.pk, ""),
        (other_user.pk, ""),
        (None, ""),
        (None, ""),
    ]
    game.refresh_from_db()
    assert game.status == Game.Status.WAITING and game.seq == 0
    # Four people: the table starts by itself; then nobody may sit anymore.
    actions.sit(gid, third_user, 2)
    fourth = type(user).objects.create_user("east", password="pw-east-123")
    actions.sit(gid, fourth, 3)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    with pytest.raises(actions.SeatRefused):
        actions.free_seat(gid, third_user, 2)
    actions.leave(gid, third_user)
    with pytest.raises(actions.SeatRefused):
        actions.leave(gid, third_user)  # leaving twice
    assert actions.seats_of(game)[2].bot_control is True


def test_a_private_table_is_joined_only_with_its_code(user, other_user):
    game = actions.create_table(user, private=True)
    assert game.join_code
    with pytest.raises(actions.GameNotFound):
        actions.sit(game.public_id, other_user, 1)
    with pytest.raises(actions.GameNotFound):
        actions.sit(game.public_id, other_user, 1, code="wrong")
    with pytest.raises(actions.GameNotFound):
        actions.snapshot(game.public_id, other_user)
    actions.sit(game.public_id, other_user, 1, code=game.join_code)
    assert actions.seats_of(game)[1].user_id == other_user.pk
    assert actions.open_tables() == []  # not in the lobby


def test_the_clock_lets_the_bot_play_a_late_move_and_keep_the_seat_after_three(user, other_user):
    game = _table_two_people_two_bots(user, other_user, clock=15)
    people = {0: user, 2: other_user}
    late_seat = None
    for n in range(1, 4):
        game = _people_turn(game.public_id)
        while late_seat is not None and game.state["to_move"] != late_seat:
            # the other person plays at once
            who = people[game.state["to_move"]]
            legal = actions.snapshot(game.public_id, who)["state"]["legal"]
            actions.apply_action(game.public_id, who, legal[0], game.seq)
            game = _people_turn(game.public_id)
        late_seat = game.state["to_move"]
        assert game.deadline is not None
        assert game.deadline - timezone.now() > dt.timedelta(seconds=10)
        assert actions.clock_expired(game.pk, game.seq) == 0  # not yet
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - dt.timedelta(seconds=1))
        assert actions.clock_expired(game.pk, game.seq - 1) == 0  # stale seq
        seq = game.seq
        assert actions.clock_expired(game.pk, seq) >= 1
        assert actions.clock_expired(game.pk, seq) == 0  # once only
        game.refresh_from_db()
        assert seq + 1 in game.bot_moves
        seat = actions.seats_of(game)[late_seat]
        assert seat.timeouts == n and seat.bot_control is (n == 3)
    with pytest.raises(actions.SeatRefused):
        actions.take_back(game.public_id, people[2 - late_seat])  # plays their own seat
    actions.take_back(game.public_id, people[late_seat])
    assert actions.seats_of(game)[late_seat].bot_control is False


def test_a_person_away_for_a_minute_is_replaced_by_the_bot(user, other_user, settings):
    game = _table_two_people_two_bots(user, other_user)
    actions.connect(game.public_id, other_user)
    actions.seat_disconnected(game.public_id, other_user)
    seat = actions.seats_of(game)[2]
    assert seat.connections == 0 and seat.disconnected_at is not None
    stamp = seat.disconnected_at.isoformat()
    assert actions.disconnect_expired(game.pk, 2, "2000-01-01T00:00:00+00:00") == 0
    assert actions.disconnect_expired(game.pk, 2, stamp) == 1
    assert actions.seats_of(game)[2].bot_control is True
    assert actions.disconnect_expired(game.pk, 2, stamp) == 0
    # A solo player who closes the tab is not replaced: nobody waits on them.
    solo = _people_turn(actions.create_game(user, seed="seats-solo-away").public_id)
    actions.connect(solo.public_id, user)
    actions.seat_disconnected(solo.public_id, user)
    assert actions.seats_of(solo)[0].disconnected_at is None


def test_nog_een_spel_seats_the_same_four_with_the_next_first_dealer(user, other_user):
    game = _table_two_people_two_bots(user, other_user)
    with pytest.raises(actions.SeatRefused):
        actions.rematch(game.public_id, user)  # not over yet
    actions.autoplay(game.pk)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    new = actions.rematch(game.public_id, other_user)
    assert actions.rematch(game.public_id, user).pk == new.pk  # made once
    assert [s.user_id for s in actions.seats_of(new)] == [user.pk, None, other_user.pk, None]
    first = engine.deal_for(game.seed, 1, "flemish").dealer
    assert engine.deal_for(new.seed, 1, "flemish").dealer == (first + 1) % 4
    assert new.status == Game.Status.ACTIVE


def test_nog_een_spel_never_waits_for_who_left_or_went_away(user, other_user, settings):
    """Whoever left is not seated again (the bot sits there); whoever does not open the
    new game in time is played by the bot until they arrive, as at a tournament's table."""
    settings.GAME_REMATCH_ARRIVE = 60  # the test moves the time itself
    game = _table_two_people_two_bots(user, other_user)
    actions.leave(game.public_id, other_user)  # North leaves mid-game
    actions.autoplay(game.pk)
    new = actions.rematch(game.public_id, user)
    seats = actions.seats_of(new)
    assert [s.user_id for s in seats] == [user.pk, None, None, None]
    assert seats[2].bot_level == "heuristic" and new.arrive_by is None  # one person: a solo
    # Both stayed, but North closed the page: the new game starts without them.
    game = _table_two_people_two_bots(user, other_user)
    actions.autoplay(game.pk)
    new = actions.rematch(game.public_id, user)
    assert [s.user_id for s in actions.seats_of(new)] == [user.pk, None, other_user.pk, None]
    assert new.arrive_by is not None
    actions.connect(new.public_id, user)
    assert actions.absence_expired(new.pk) == 0  # within the grace
    Game.objects.filter(pk=new.pk).update(arrive_by=timezone.now() - dt.timedelta(seconds=1))
    assert actions.absence_expired(new.pk) == 1
    north = actions.seats_of(Game.objects.get(pk=new.pk))[2]
    assert north.bot_control and north.bot_reason == "absent"
    assert not actions.seats_of(Game.objects.get(pk=new.pk))[0].bot_control
    # Opening the game gives North the seat back.
    snap = actions.connect(new.public_id, other_user)
    assert snap["table"]["players"][2]["bot_control"] is False
    # Whoever asks is there: seated again even after leaving the game before.
    game = _table_two_people_two_bots(user, other_user)
    actions.leave(game.public_id, other_user)
    actions.autoplay(game.pk)
    new = actions.rematch(game.public_id, other_user)
    assert actions.seats_of(new)[2].user_id == other_user.pk


def test_a_casual_table_everyone_left_ends_where_it_stands(user, other_user, client):
    """The bots do not play a match out for nobody: when the last person leaves, the game
    is over with the scores so far, and its page says why."""
    game = _table_two_people_two_bots(user, other_user)
    actions.leave(game.public_id, other_user)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE  # one is still there
    _people_turn(game.public_id)
    actions.leave(game.public_id, user)
    wait_for_idle_bots()
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED and game.record
    seq = game.seq
    assert not actions.replay(game).is_terminal()  # stopped, not played out
    time.sleep(0.3)
    wait_for_idle_bots()
    assert Game.objects.get(pk=game.pk).seq == seq  # and no bot moves after it
    client.force_login(user)
    page = client.get(f"/game/{game.public_id}/").content.decode()
    assert 'data-closed="true"' in page
    assert "Iedereen heeft deze tafel verlaten" in page


def test_a_table_left_unchanged_drops_out_of_the_lobby_until_it_changes(user, other_user, settings):
    game = actions.create_table(user)
    assert [t["id"] for t in actions.open_tables()] == [str(game.public_id)]
    stale = timezone.now() - dt.timedelta(minutes=settings.GAME_LOBBY_MINUTES + 1)
    Game.objects.filter(pk=game.pk).update(updated=stale)
    assert actions.open_tables() == []  # its host went away: not offered to others
    # Its link still works, and a change at the table lists it again.
    actions.sit(game.public_id, other_user, 1)
    assert [t["id"] for t in actions.open_tables()] == [str(game.public_id)]


def test_a_socket_opening_as_its_seat_changes_hands_counts_nowhere(
    user, other_user, third_user, monkeypatch
):
    """The organizer hands North's seat to a newcomer just after an old socket of North's
    person has read the table and before it is counted: the count is the newcomer's
    seat's now (their sockets only), so it stays 0 and the seat waits for them."""
    game = _table_two_people_two_bots(user, other_user)
    seen = actions.get_viewer

    def viewer_then_hand_over(public_id, who, code=None):
        viewer = seen(public_id, who, code)
        if who == other_user:
            actions.hand_over_seat(game.pk, 2, other_user, third_user)
        return viewer

    monkeypatch.setattr(actions, "get_viewer", viewer_then_hand_over)
    actions.connect(game.public_id, other_user)
    seat = actions.seats_of(game)[2]
    assert seat.user_id == third_user.pk and seat.bot_reason == "replaced"
    assert seat.connections == 0
    # The newcomer's first socket is theirs to count, and gives them the seat.
    monkeypatch.setattr(actions, "get_viewer", seen)
    actions.connect(game.public_id, third_user)
    seat = actions.seats_of(game)[2]
    assert seat.connections == 1 and not seat.bot_control


def test_bots_play_at_a_persons_pace_while_nobody_plays_at_the_table(
    user, other_user, settings, monkeypatch
):
    """Both people of a table are away (the bot plays their seats): the bots do not play
    the game out in a second; one move, then the next GAME_BOTS_ALONE_PACE seconds later.
    Once a person plays again, the bots answer at once."""
    settings.GAME_BOTS_ALONE_PACE = 2
    game = _table_two_people_two_bots(user, other_user)
    queued = []
    monkeypatch.setattr(actions, "_schedule", lambda *call: queued.append(call))
    for person, index in ((user, 0), (other_user, 2)):
        actions.connect(game.public_id, person)
        actions.seat_disconnected(game.public_id, person)
        since = actions.seats_of(game)[index].disconnected_at.isoformat()
        assert actions.disconnect_expired(game.pk, index, since) == 1
    game.refresh_from_db()
    assert game.awaiting_bot  # the bot now plays the person to move
    (kind, (pk, seq), delay), *_ = [c for c in queued if c[0] == "bots"]
    assert (kind, pk, seq, delay) == ("bots", game.pk, game.seq, 2)
    queued.clear()
    assert actions.play_bots(game.pk, game.seq) == 1  # one move, not the whole game
    game.refresh_from_db()
    assert [c for c in queued if c[0] == "bots"] == [("bots", (game.pk, game.seq), 2)]
    # South takes the seat back: from then on the bots move at once again.
    monkeypatch.undo()
    actions.connect(game.public_id, user)
    actions.take_back(game.public_id, user)
    assert actions._alone_pace(actions.seats_of(game)) == 0


def test_a_private_tables_next_game_is_reached_with_its_code(user, other_user, third_user):
    """Whoever watches a private table (with its code) follows the link to its next game
    with the code, and a spectator is offered no switch that saves the players' pace."""
    from django.test import Client

    game = actions.create_table(user, rules="flemish", bot_level="heuristic", private=True)
    code = game.join_code
    actions.add_bot(game.public_id, user, 1)
    actions.sit(game.public_id, other_user, 2, code=code)
    actions.add_bot(game.public_id, user, 3)
    actions.start(game.public_id, user)
    actions.autoplay(_people_turn(game.public_id).pk)
    new = actions.rematch(game.public_id, user)
    assert new.join_code == code
    watcher = Client()
    watcher.force_login(third_user)
    page = watcher.get(f"/tables/{game.public_id}/?code={code}").content.decode()
    link = f'href="/tables/{new.public_id}/?code={code}" data-rematch-link'
    assert link in page
    assert watcher.get(f"/tables/{new.public_id}/?code={code}").status_code == 200
    assert 'data-fast-play-url=""' in page
    player = Client()
    player.force_login(other_user)
    mine = player.get(f"/tables/{game.public_id}/").content.decode()
    assert f'data-fast-play-url="/game/{game.public_id}/fast/"' in mine
