"""A bot turn nothing comes for is played again within seconds of a table waiting on it,
and a push lost to a blip is retried (issue 10 item 8).

- A turn lost with a crashed worker or web process (the row says a bot is to move, no
  task exists): the table's socket sees no event for GAME_BOT_TURN_TIMEOUT_MS and has
  the turn re-enqueued — under 5 s, not after the sweeper's SWEEP_STUCK_AFTER (30 s).
- On a healthy system the events come first: the watch makes no query at all.
- A push (group_send) that fails once is sent again after commit; failing twice it is
  logged, the move stays made and the bots' task is still queued.
"""

from __future__ import annotations

import time

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

import engine
from config.asgi import application
from engine.bots import bot_seed, get_bot
from game import actions
from game.models import Game, seat_group
from ops import sweeper
from tests.helpers import wait_for_turn

pytestmark = [pytest.mark.usefixtures("live_game_db")]

TIMEOUT = 10


@database_sync_to_async
def _game_and_cookie(user, seed):
    game = wait_for_turn(actions.create_game(user, seed=seed).public_id)
    client = Client()
    client.force_login(user)
    return game, f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(game, cookie):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]
    comm = WebsocketCommunicator(application, f"/ws/game/{game.public_id}/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm, await comm.receive_json_from(timeout=TIMEOUT)


@database_sync_to_async
def _lose_a_bot_turn(game) -> Game:
    """South's card stored as the server stores it, its bot turn never queued (what a
    process killed between the commit and the task leaves behind), just now."""
    eng = engine.Game.replay(game.seed, game.rules, game.actions)
    while True:  # a South card after which a bot is to move
        probe = eng.clone()
        probe.apply_action(probe.legal_actions()[0])
        if probe.to_move != 0:
            break
        eng = probe
        actions.apply_action(game.public_id, game.owner, eng.actions[-1], len(eng.actions) - 1)
        game = wait_for_turn(game.public_id)
        eng = engine.Game.replay(game.seed, game.rules, game.actions)
    eng.apply_action(eng.legal_actions()[0])
    # As a committed South move leaves the row: a bot seat to move (awaiting_bot).
    Game.objects.filter(pk=game.pk).update(
        actions=eng.actions,
        seq=len(eng.actions),
        state=eng.observation(0),
        updated=timezone.now(),
        awaiting_bot=True,
    )
    return Game.objects.get(pk=game.pk)


def _bots_reply(game: Game) -> list[str]:
    """The deterministic bots' moves from the game's position up to South's turn."""
    eng = engine.Game.replay(game.seed, game.rules, game.actions)
    bot, moves = get_bot(game.bot_level), []
    while not eng.is_terminal() and eng.to_move != 0:
        choice = bot.act(
            eng.observation(eng.to_move), bot_seed(game.seed, eng.deal_number, eng.to_move)
        )
        eng.apply_action(choice)
        moves.append(choice)
    return moves


async def test_a_lost_bot_turn_is_played_within_5_s_of_the_table_connecting(user, settings):
    assert settings.SWEEP_STUCK_AFTER >= 30  # the sweeper and the connect check: too late
    game, cookie = await _game_and_cookie(user, "recover-1")
    stuck = await _lose_a_bot_turn(game)
    assert stuck.state["to_move"] != 0
    started = time.monotonic()
    comm, snapshot = await _connect(stuck, cookie)
    assert snapshot["seq"] == stuck.seq and snapshot["state"]["to_move"] != 0
    expected = await database_sync_to_async(_bots_reply)(stuck)
    got = []
    while len(got) < len(expected):
        event = await comm.receive_json_from(timeout=5)
        assert event["type"] == "event" and event["seq"] == stuck.seq + len(got) + 1
        got.append(event["action"])
    waited = time.monotonic() - started
    assert got == expected
    assert waited < 5, waited
    # Played exactly once: the row holds the bots' moves once, and nothing more comes.
    after = await database_sync_to_async(Game.objects.get)(pk=stuck.pk)
    assert after.actions == stuck.actions + expected
    assert await comm.receive_nothing(timeout=0.5)
    await comm.disconnect()


async def test_a_healthy_bot_turn_costs_the_watch_nothing(user, settings, monkeypatch):
    settings.GAME_BOT_TURN_TIMEOUT_MS = 1000
    looks = []
    real = sweeper.kick_if_stuck
    monkeypatch.setattr(sweeper, "kick_if_stuck", lambda *a, **k: looks.append(a) or real(*a, **k))
    game, cookie = await _game_and_cookie(user, "recover-2")
    comm, snapshot = await _connect(game, cookie)
    seq, state = snapshot["seq"], snapshot["state"]
    for _ in range(3):
        if state["game_over"]:
            break
        await comm.send_json_to({"type": "action", "action": state["legal"][0], "seq": seq})
        while True:
            event = await comm.receive_json_from(timeout=TIMEOUT)
            seq, state = event["seq"], event["state"]
            if state["to_move"] == 0 or state["game_over"]:
                break
    await comm.receive_nothing(timeout=1.5)  # longer than the watch's timeout
    assert looks == []
    await comm.disconnect()


class _Blip:
    """The channel layer's group_send failing `times` times for one group, as Redis
    going away for a moment would make it; then the real one again."""

    def __init__(self, layer, group: str, times: int) -> None:
        self.real, self.group, self.left, self.failed = layer.group_send, group, times, 0

    async def __call__(self, group, message):
        if group == self.group and self.left > 0:
            self.left -= 1
            self.failed += 1
            raise ConnectionError("redis went away")
        await self.real(group, message)


async def test_a_push_lost_to_a_blip_is_retried_once_after_commit(user, monkeypatch):
    game, cookie = await _game_and_cookie(user, "recover-3")
    comm, snapshot = await _connect(game, cookie)
    layer = get_channel_layer()
    blip = _Blip(layer, seat_group(game.public_id, 0), times=1)
    monkeypatch.setattr(layer, "group_send", blip)
    card = snapshot["state"]["legal"][0]
    await comm.send_json_to({"type": "action", "action": card, "seq": snapshot["seq"]})
    event = await comm.receive_json_from(timeout=TIMEOUT)
    assert blip.failed == 1
    assert event["type"] == "event" and event["seq"] == snapshot["seq"] + 1
    assert event["actor"] == 0 and event["action"] == card
    await comm.disconnect()


async def test_a_push_lost_twice_still_leaves_the_move_made_and_the_bots_queued(user, monkeypatch):
    game, _ = await _game_and_cookie(user, "recover-4")
    layer = get_channel_layer()
    blip = _Blip(layer, seat_group(game.public_id, 0), times=2)
    monkeypatch.setattr(layer, "group_send", blip)
    card = game.state["legal"][0]

    def move_and_wait():
        actions.apply_action(game.public_id, user, card, game.seq)  # does not raise
        return wait_for_turn(game.public_id)

    after = await database_sync_to_async(move_and_wait)()
    assert blip.failed == 2
    assert after.actions[game.seq] == card
    if not after.state["game_over"]:
        assert after.state["to_move"] == 0  # the bots' task ran: their turn was played
