"""The game websocket: snapshot on connect, strict schema, events for every move."""

from __future__ import annotations

import json
import threading
import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from game import actions
from game.models import Game
from tests.helpers import PRODUCTION_STACK, card_tokens, hidden_cards, wait_for_turn

pytestmark = [pytest.mark.usefixtures("live_game_db")]

TIMEOUT = 10


def _session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@database_sync_to_async
def _make_game(user, seed="ws-test-1"):
    game = actions.create_game(user, seed=seed)
    return wait_for_turn(game.public_id), _session_cookie(user)


@database_sync_to_async
def _reload(game) -> Game:
    return Game.objects.get(pk=game.pk)


@database_sync_to_async
def _cookie(user) -> bytes:
    return _session_cookie(user)


def _communicator(game_id, cookie: bytes | None, origin=b"http://testserver"):
    headers = [(b"origin", origin), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, f"/ws/game/{game_id}/", headers=headers)


async def _connect(game, cookie):
    comm = _communicator(game.public_id, cookie)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    snapshot = await comm.receive_json_from(timeout=TIMEOUT)
    return comm, snapshot


async def test_connect_sends_a_snapshot_of_souths_view(user):
    game, cookie = await _make_game(user)
    comm, snapshot = await _connect(game, cookie)
    assert snapshot["type"] == "snapshot"
    assert snapshot["seq"] == game.seq
    assert snapshot["state"]["seat"] == 0
    assert snapshot["state"] == game.state
    await comm.send_json_to({"type": "snapshot"})
    again = await comm.receive_json_from(timeout=TIMEOUT)
    # Each says the server's clock as it was sent (the page counts a deadline by it).
    assert abs(again.pop("now") - time.time() * 1000) < 5000 and snapshot.pop("now") > 0
    assert again == snapshot
    await comm.disconnect()


async def test_a_ping_is_answered_at_once_with_a_pong_and_nothing_else(user):
    """The page checks its connection lives (a dead one looks open for minutes): a
    ping gets a pong, no snapshot, no database work, no change."""
    game, cookie = await _make_game(user)
    comm, _ = await _connect(game, cookie)
    for _ in range(3):
        await comm.send_json_to({"type": "ping"})
        assert await comm.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
    assert await comm.receive_nothing(timeout=0.2)
    after = await _reload(game)
    assert (after.seq, after.actions) == (game.seq, game.actions)
    await comm.disconnect()


async def test_a_move_between_the_snapshot_and_the_join_is_not_missed(user, monkeypatch):
    """The socket's snapshot is read before it joins the game's group: a move made in
    between was sent to the group without it. The page no longer asks for a second
    snapshot on open, so the server takes it again: the first word is the game now
    (a bot's move that made it a person's turn left a tournament table waiting)."""
    game, cookie = await _make_game(user, seed="ws-race-join")
    real_connect = actions.connect

    def connect_then_a_move(public_id, who, code=None):
        snap = real_connect(public_id, who, code)
        g = Game.objects.get(public_id=public_id)
        actions.apply_action(public_id, who, g.state["legal"][0], g.seq)  # meanwhile
        return snap

    monkeypatch.setattr(actions, "connect", connect_then_a_move)
    comm, snapshot = await _connect(game, cookie)
    now = await _reload(game)
    assert snapshot["seq"] >= game.seq + 1
    assert snapshot["seq"] <= now.seq
    await comm.disconnect()


async def test_other_users_and_anonymous_visitors_get_not_found(user, other_user):
    game, _ = await _make_game(user)
    for cookie in (await _cookie(other_user), None):
        comm = _communicator(game.public_id, cookie)
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
        message = await comm.receive_json_from(timeout=TIMEOUT)
        assert message["type"] == "error" and message["code"] == "not_found"
        assert "state" not in message
        closed = await comm.receive_output(timeout=TIMEOUT)
        assert closed["type"] == "websocket.close"
        await comm.disconnect()


async def test_foreign_origin_is_rejected(user):
    game, cookie = await _make_game(user)
    comm = _communicator(game.public_id, cookie, origin=b"http://evil.example")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert not connected


HOSTILE = [
    "not json",
    "[1, 2, 3]",
    "42",
    "null",
    json.dumps({"type": "action"}),
    json.dumps({"type": "action", "action": "TS"}),
    json.dumps({"type": "action", "action": "TS", "seq": "3"}),
    json.dumps({"type": "action", "action": "TS", "seq": True}),
    json.dumps({"type": "action", "action": "TS", "seq": -1}),
    json.dumps({"type": "action", "action": "TS", "seq": 1.5}),
    json.dumps({"type": "action", "action": 7, "seq": 0}),
    json.dumps({"type": "action", "action": "", "seq": 0}),
    json.dumps({"type": "action", "action": "T" * 17, "seq": 0}),
    json.dumps({"type": "action", "action": "T♠", "seq": 0}),
    json.dumps({"type": "action", "action": "TS", "seq": 0, "user_id": 1}),
    json.dumps({"type": "snapshot", "seat": 2}),
    json.dumps({"type": "ping", "seq": 1}),
    json.dumps({"type": "become_north"}),
    json.dumps({"action": "TS", "seq": 0}),
    json.dumps({"type": "action", "action": "TS", "seq": 0, "pad": "x" * 5000}),
]


async def test_hostile_messages_get_an_error_and_change_nothing(user):
    game, cookie = await _make_game(user)
    comm, snapshot = await _connect(game, cookie)
    for text in HOSTILE:
        await comm.send_to(text_data=text)
        reply = await comm.receive_json_from(timeout=TIMEOUT)
        assert reply["type"] == "error", text
        assert reply["code"] == "bad_message", (text, reply)
    await comm.send_to(bytes_data=b"\x00\x01")
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    assert reply["code"] == "bad_message"
    assert await comm.receive_nothing(timeout=0.2)
    after = await _reload(game)
    assert (after.seq, after.actions) == (game.seq, game.actions)
    await comm.disconnect()


async def test_illegal_and_stale_moves_get_their_error_code(user):
    game, cookie = await _make_game(user)
    comm, snapshot = await _connect(game, cookie)
    state = snapshot["state"]
    await comm.send_json_to({"type": "action", "action": state["legal"][0], "seq": game.seq + 5})
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    assert reply["type"] == "error" and reply["code"] == "stale"
    await comm.send_json_to({"type": "action", "action": "ZZ", "seq": game.seq})
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    assert reply["type"] == "error" and reply["code"] == "illegal"
    assert reply["message"]
    after = await _reload(game)
    assert after.seq == game.seq
    await comm.disconnect()


async def test_a_legal_move_brings_events_for_it_and_every_bot_reply(user):
    game, cookie = await _make_game(user)
    comm, snapshot = await _connect(game, cookie)
    seq = snapshot["seq"]
    payloads = [snapshot]
    for _ in range(6):  # a few moves: trick ends, bot leads, maybe a new deal
        state = payloads[-1]["state"]
        if state["game_over"]:
            break
        await comm.send_json_to({"type": "action", "action": state["legal"][0], "seq": seq})
        while True:
            event = await comm.receive_json_from(timeout=TIMEOUT)
            assert event["type"] == "event", event
            assert event["seq"] == seq + 1  # versioned, no gaps
            seq = event["seq"]
            payloads.append(event)
            if event["state"]["to_move"] == 0 or event["state"]["game_over"]:
                break
        assert payloads[-1]["actor"] in (0, 1, 2, 3)
    human = [p for p in payloads if p.get("actor") == 0]
    bots = [p for p in payloads if p.get("actor") in (1, 2, 3)]
    assert human and bots
    after = await _reload(game)
    assert after.seq == seq
    assert [p["action"] for p in payloads[1:]] == after.actions[game.seq :]
    # South's view only, and not one card South may not see, in any payload.
    for payload in payloads:
        assert payload["state"]["seat"] == 0
        hidden = hidden_cards(after.seed, after.rules, after.actions[: payload["seq"]])
        assert not (card_tokens(payload) & hidden), payload
    await comm.disconnect()


async def test_the_echo_of_a_move_does_not_wait_for_the_bots_thinking(user, monkeypatch):
    """Eager bots (embedded mode) play inside the commit of South's move: the event of
    South's card must reach the socket while they are still thinking, not after."""
    game, cookie = await _make_game(user)
    comm, snapshot = await _connect(game, cookie)
    seq, state = snapshot["seq"], snapshot["state"]
    # South plays last in this trick: a card now may leave South to lead again (no bot
    # thinks). Play it at normal speed and take the next position instead.
    while len(state["current_trick"]["cards"]) == 3 and not state["game_over"]:
        await comm.send_json_to({"type": "action", "action": state["legal"][0], "seq": seq})
        while True:
            event = await comm.receive_json_from(timeout=TIMEOUT)
            seq, state = event["seq"], event["state"]
            if state["to_move"] == 0 or state["game_over"]:
                break
    assert not state["game_over"]

    started, release = threading.Event(), threading.Event()
    real_get_bot = actions.get_bot

    class SlowBot:
        def __init__(self, level):
            self.bot = real_get_bot(level)

        def act(self, observation, seed):
            started.set()
            release.wait(timeout=30)
            return self.bot.act(observation, seed)

    monkeypatch.setattr(actions, "get_bot", SlowBot)
    try:
        await comm.send_json_to({"type": "action", "action": state["legal"][0], "seq": seq})
        echo = await comm.receive_json_from(timeout=5)
        assert echo["type"] == "event" and echo["actor"] == 0 and echo["seq"] == seq + 1, echo
        if not PRODUCTION_STACK:  # the worker process does not see this monkeypatch
            assert started.wait(timeout=5), "the bots never started thinking"
    finally:
        release.set()
    seq = echo["seq"]
    while True:  # the bots' cards follow once they are done thinking
        event = await comm.receive_json_from(timeout=TIMEOUT)
        assert event["type"] == "event" and event["seq"] == seq + 1, event
        seq = event["seq"]
        if event["state"]["to_move"] == 0 or event["state"]["game_over"]:
            break
    assert (await _reload(game)).seq == seq
    await comm.disconnect()
