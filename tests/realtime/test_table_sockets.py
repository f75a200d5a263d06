"""Sockets of a table of people (issue 11): each person's own seat on every socket
(second tab, reconnect), a person at two tables, spectators, the table chat."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from game import actions
from game.models import Game
from tests.helpers import wait_for_idle_bots
from tests.production.conftest import TIMEOUT, communicator, connect_game, session_cookie

pytestmark = [pytest.mark.usefixtures("live_game_db")]


@pytest.fixture(autouse=True)
def _bots_done(live_game_db):
    yield
    wait_for_idle_bots()  # (sync fixture: runs outside the test's event loop)


@database_sync_to_async
def _table(host, other, *, chat=True, open_table=True):
    game = actions.create_table(host, chat=chat, private=not open_table)
    actions.add_bot(game.public_id, host, 1)
    actions.sit(game.public_id, other, 2, code=game.join_code or None)
    actions.add_bot(game.public_id, host, 3)
    actions.start(game.public_id, host)
    return Game.objects.get(pk=game.pk)


async def _until(comm, kind: str) -> dict:
    while True:
        message = await comm.receive_json_from(timeout=TIMEOUT)
        if message["type"] == kind:
            return message


@database_sync_to_async
def _person_to_move(game) -> Game:
    import time

    for _ in range(500):
        row = Game.objects.get(pk=game.pk)
        if not row.awaiting_bot:
            return row
        time.sleep(0.02)
    raise AssertionError("bots did not reply")


def _plain(message: dict) -> dict:
    """A message without the server's clock ("now": when it was sent, tab by tab)."""
    return {k: v for k, v in message.items() if k != "now"}


async def test_two_tabs_of_one_person_and_a_reconnect_see_their_own_seat(
    user, other_user, settings
):
    settings.GAME_WS_RATE = settings.GAME_WS_BURST = 1000
    game = await _table(user, other_user)
    game = await _person_to_move(game)
    tab1, snap1 = await connect_game(game.public_id, other_user)
    tab2, snap2 = await connect_game(game.public_id, other_user)
    host, snap_host = await connect_game(game.public_id, user)
    assert (
        _plain(snap1) == _plain(snap2)
        and snap1["table"]["seat"] == 2
        and snap1["state"]["seat"] == 2
    )
    assert snap_host["state"]["seat"] == 0 and snap_host["table"]["seat"] == 0
    to_move = game.state["to_move"]
    mover, snap = (tab1, snap1) if to_move == 2 else (host, snap_host)
    await mover.send_json_to(
        {"type": "action", "action": snap["state"]["legal"][0], "seq": snap["seq"]}
    )
    e1, e2, eh = [await _until(c, "event") for c in (tab1, tab2, host)]
    assert _plain(e1) == _plain(e2) and e1["state"]["seat"] == 2 and eh["state"]["seat"] == 0
    assert e1["seq"] == eh["seq"] == snap["seq"] + 1 and e1["action"] == eh["action"]
    # A phone that slept: the socket is gone, a new one gets the seat's snapshot.
    await tab2.disconnect()
    tab3, snap3 = await connect_game(game.public_id, other_user)
    assert snap3["table"]["seat"] == 2 and snap3["seq"] >= e1["seq"]
    for comm in (tab1, tab3, host):
        await comm.disconnect()


async def _table_until(comm, check) -> dict:
    while True:
        message = await _until(comm, "table")
        if check(message["table"]):
            return message["table"]


async def test_the_others_see_a_person_away_until_they_are_back(user, other_user):
    """A person's last socket closes: the others are told at once (the seat reads "away"
    until the bot takes it over a minute later), and again when the person is back."""
    game = await _table(user, other_user)
    game = await _person_to_move(game)
    north, snap = await connect_game(game.public_id, other_user)
    host, snap_host = await connect_game(game.public_id, user)
    assert [p["away"] for p in snap_host["table"]["players"]] == [False] * 4
    await north.disconnect()
    table = await _table_until(host, lambda t: t["players"][2]["away"])
    assert table["players"][2]["name"] == other_user.username
    assert not table["players"][2]["bot_control"] and not table["players"][0]["away"]
    north, snap = await connect_game(game.public_id, other_user)
    assert not snap["table"]["players"][2]["away"]
    await _table_until(host, lambda t: not t["players"][2]["away"])
    # A second tab closing while the first stays open is no absence.
    tab2, _ = await connect_game(game.public_id, other_user)
    await tab2.disconnect()
    seat = await database_sync_to_async(lambda: actions.seats_of(game)[2])()
    assert seat.connections == 1 and not actions.is_away(seat)
    for comm in (north, host):
        await comm.disconnect()


async def test_a_person_sits_at_two_tables(user, other_user):
    first = await _table(user, other_user)
    second = await database_sync_to_async(actions.create_table)(other_user)
    await database_sync_to_async(actions.sit)(second.public_id, user, 3)
    a, snap_a = await connect_game(first.public_id, user)
    b, snap_b = await connect_game(second.public_id, user)
    assert snap_a["table"]["seat"] == 0 and snap_b["table"]["seat"] == 3
    assert snap_b["table"]["status"] == "waiting" and snap_b["state"]["hand"] is None
    await a.disconnect()
    await b.disconnect()


async def test_a_spectator_gets_the_public_view_and_may_not_play(
    user, other_user, django_user_model
):
    game = await _table(user, other_user)
    game = await _person_to_move(game)
    watcher = await database_sync_to_async(django_user_model.objects.create_user)(
        "watcher", password="pw-watch-123"
    )
    comm, snap = await connect_game(game.public_id, watcher)
    assert snap["table"]["seat"] is None and snap["state"]["hand"] is None
    assert snap["state"]["legal"] == []
    await comm.send_json_to({"type": "action", "action": "trump:H", "seq": snap["seq"]})
    error = await _until(comm, "error")
    assert error["code"] == "not_seated"
    await comm.send_json_to({"type": "chat", "text": "hallo"})
    assert (await _until(comm, "error"))["code"] == "not_seated"
    await comm.disconnect()
    # A private (link) table: no spectator without the code.
    private = await _table(user, other_user, open_table=False)
    cookie = await database_sync_to_async(session_cookie)(watcher)
    spy = communicator(f"/ws/game/{private.public_id}/", cookie)
    assert (await spy.connect(timeout=TIMEOUT))[0]
    assert (await spy.receive_json_from(timeout=TIMEOUT))["code"] == "not_found"
    await spy.disconnect()


async def test_table_chat_is_passed_as_text_rate_limited_and_can_be_off(user, other_user, settings):
    settings.GAME_CHAT_BURST = 3
    game = await _table(user, other_user)
    host, _ = await connect_game(game.public_id, user)
    partner, _ = await connect_game(game.public_id, other_user)
    await host.send_json_to({"type": "chat", "text": "  <b>hoi</b>\x07 partner  "})
    line = await _until(partner, "chat")
    number = line.pop("id")
    assert line == {"type": "chat", "seat": 0, "name": "south", "text": "<b>hoi</b> partner"}
    await _until(host, "chat")
    # A page opened again gets the chat so far with its snapshot (numbered: shown once).
    again, snapshot = await connect_game(game.public_id, other_user)
    assert snapshot["type"] == "snapshot"
    assert [(c["id"], c["text"]) for c in snapshot["chat"]] == [(number, "<b>hoi</b> partner")]
    await again.disconnect()
    for _ in range(3):
        await host.send_json_to({"type": "chat", "text": "spam"})
    assert (await _until(host, "error"))["code"] == "rate_limited"
    await partner.send_json_to({"type": "chat", "text": "x" * 201})
    assert (await _until(partner, "error"))["code"] == "bad_message"
    await database_sync_to_async(actions.set_chat)(game.public_id, user, False)
    assert (await _until(partner, "table"))["table"]["chat"] is False
    await partner.send_json_to({"type": "chat", "text": "mag dit?"})
    assert (await _until(partner, "error"))["code"] == "refused"
    # Chat off: a page opened again gets none of it.
    again, snapshot = await connect_game(game.public_id, other_user)
    assert "chat" not in snapshot
    await again.disconnect()
    with pytest.raises(actions.SeatRefused):
        await database_sync_to_async(actions.set_chat)(game.public_id, other_user, True)
    await host.disconnect()
    await partner.disconnect()


async def test_chat_is_off_by_default_for_the_french_rules_and_in_tournaments(user):
    french = await database_sync_to_async(actions.create_table)(user, rules="french")
    flemish = await database_sync_to_async(actions.create_table)(user, rules="flemish")
    solo = await database_sync_to_async(actions.create_game)(user)
    assert (french.chat_enabled, flemish.chat_enabled, solo.chat_enabled) == (False, True, False)


async def test_a_deleted_account_is_cut_off_at_the_table_and_the_game_goes_on(user, other_user):
    """An open tab of a person who deletes their account: its socket is closed (else it
    could take the seat back from the bot), and the table plays on with the bot."""
    from accounts.actions import delete_account

    game = await _table(user, other_user)
    tab, _ = await connect_game(game.public_id, other_user)
    host, _ = await connect_game(game.public_id, user)
    await database_sync_to_async(delete_account)(other_user)
    while True:
        out = await tab.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            break
    assert out["code"] == 4401
    table = await _until(host, "table")
    assert table["table"]["players"][2]["left"] and table["table"]["players"][2]["bot_control"]
    await host.send_json_to({"type": "snapshot"})
    assert (await _until(host, "snapshot"))["table"]["seat"] == 0  # the host's is open
    await host.disconnect()


async def _closed_with(comm) -> int:
    """Read a socket until it is closed; every frame before must carry no cards."""
    while True:
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return out["code"]


async def test_a_socket_of_someone_who_got_up_never_gets_the_seats_next_holders_cards(
    user, other_user, django_user_model
):
    """A person at West gets up and sits at East; carol takes West. The socket opened at
    West is released (closed), so it never carries carol's hand; a socket opened
    again is the person's new seat."""
    carol = await database_sync_to_async(django_user_model.objects.create_user)(
        "carol", password="pw-carol-123"
    )
    game = await database_sync_to_async(actions.create_table)(user)
    await database_sync_to_async(actions.sit)(game.public_id, other_user, 1)
    west, snap = await connect_game(game.public_id, other_user)
    assert snap["table"]["seat"] == 1
    await database_sync_to_async(actions.free_seat)(game.public_id, other_user, 1)
    assert await _closed_with(west) == 4409
    await database_sync_to_async(actions.sit)(game.public_id, other_user, 3)
    await database_sync_to_async(actions.sit)(game.public_id, carol, 1)
    await database_sync_to_async(actions.add_bot)(game.public_id, user, 2)
    again, snap = await connect_game(game.public_id, other_user)
    assert snap["table"]["seat"] == 3
    await database_sync_to_async(actions.start)(game.public_id, user)
    await again.send_json_to({"type": "snapshot"})
    snap = await _until(again, "snapshot")
    assert snap["table"]["seat"] == snap["state"]["seat"] == 3  # East's own hand only
    await again.disconnect()


async def test_a_replaced_players_open_socket_is_cut_off_from_the_seat(
    user, other_user, django_user_model
):
    """An organizer gives a seat in play to someone else (actions.hand_over_seat): the
    first person's socket leaves the seat's group before the next move is sent."""
    newcomer = await database_sync_to_async(django_user_model.objects.create_user)(
        "newcomer", password="pw-new-1234"
    )
    game = await _table(user, other_user)
    game = await _person_to_move(game)
    north, _ = await connect_game(game.public_id, other_user)
    await database_sync_to_async(actions.hand_over_seat)(game.pk, 2, other_user, newcomer)
    events = []
    while True:
        out = await north.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            break
        events.append(out)
    assert out["code"] == 4409
    # Released before the bot's next move for the seat (or anyone's) was sent.
    assert not any('"type":"event"' in e.get("text", "") for e in events)
    mine, snap = await connect_game(game.public_id, other_user)  # now a spectator
    assert snap["table"]["seat"] is None and snap["state"]["hand"] is None
    await mine.disconnect()


async def test_a_socket_whose_join_fails_halfway_leaves_no_count_behind(
    user, other_user, monkeypatch, caplog
):
    """The channel layer fails as a person's socket joins its seat's group (a Redis
    blip): the socket is not left counted on the seat (it would read "connected" for
    good, and the bot never take it over), nor in the person's socket budget (after a few
    such failures every reconnect was refused as "too many open game sockets")."""
    from channels.layers import get_channel_layer

    from ops.sockets import budget_key, game_sockets

    game = await _table(user, other_user)
    game = await _person_to_move(game)
    layer = get_channel_layer()
    real_add = layer.group_add

    async def failing_add(group, channel):
        raise ConnectionError("the channel layer is away")

    monkeypatch.setattr(layer, "group_add", failing_add)
    cookie = await database_sync_to_async(session_cookie)(other_user)
    for _ in range(3):
        comm = communicator(f"/ws/game/{game.public_id}/", cookie)
        connected, _ = await comm.connect(timeout=2)  # refused, not a server error
        assert not connected
    seat = await database_sync_to_async(lambda: actions.seats_of(game)[2])()
    assert seat.connections == 0 and seat.disconnected_at is not None
    assert game_sockets._open.get(budget_key({"user": other_user}), 0) == 0
    # One line each in the log (a traceback each was hundreds of lines a second).
    refused = [r for r in caplog.records if "refused: ConnectionError" in r.getMessage()]
    assert len(refused) == 3 and not any(r.exc_info for r in refused)
    # Back again: the next socket opens and counts once.
    monkeypatch.setattr(layer, "group_add", real_add)
    north, snap = await connect_game(game.public_id, other_user)
    assert snap["table"]["seat"] == 2
    seat = await database_sync_to_async(lambda: actions.seats_of(game)[2])()
    assert seat.connections == 1 and seat.disconnected_at is None
    await north.disconnect()


async def test_a_socket_whose_channel_layer_fails_under_it_gives_everything_back(
    user, other_user, monkeypatch, caplog
):
    """Redis goes away under an open socket: the channel layer's receive raises and the
    consumer stops without Channels calling its disconnect. Its seat's count still comes
    down (the person is away: the takeover can follow), its heartbeat and its socket
    budget go with it, and the log has one line, not a traceback."""
    import asyncio

    from channels.layers import get_channel_layer

    from ops.sockets import budget_key, game_sockets

    game = await _table(user, other_user)
    game = await _person_to_move(game)
    layer = get_channel_layer()
    real_receive = layer.receive
    redis_gone = asyncio.Event()

    async def receive(channel):
        waiting = asyncio.ensure_future(real_receive(channel))
        gone = asyncio.ensure_future(redis_gone.wait())
        done, _ = await asyncio.wait({waiting, gone}, return_when=asyncio.FIRST_COMPLETED)
        if gone in done:
            waiting.cancel()
            raise ConnectionError("Redis went away")
        gone.cancel()
        return waiting.result()

    monkeypatch.setattr(layer, "receive", receive)
    north, snap = await connect_game(game.public_id, other_user)
    assert snap["table"]["seat"] == 2
    seat = await database_sync_to_async(lambda: actions.seats_of(game)[2])()
    assert seat.connections == 1
    redis_gone.set()
    await north.wait(timeout=TIMEOUT)  # the consumer ends, without raising
    seat = await database_sync_to_async(lambda: actions.seats_of(game)[2])()
    assert seat.connections == 0 and seat.disconnected_at is not None
    assert game_sockets._open.get(budget_key({"user": other_user}), 0) == 0
    dropped = [r for r in caplog.records if "dropped: ConnectionError" in r.getMessage()]
    assert len(dropped) == 1 and not dropped[0].exc_info
