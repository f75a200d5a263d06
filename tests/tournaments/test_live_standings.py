"""Live standings over Channels, only for those allowed to see them."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from tests.tournaments.conftest import finish, joined

pytestmark = pytest.mark.usefixtures("live_game_db")
TIMEOUT = 10


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


def _communicator(pk, cookie):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]
    return WebsocketCommunicator(application, f"/ws/tournaments/{pk}/standings/", headers=headers)


async def test_standings_socket_refuses_a_player_still_playing(make_tournament, make_user):
    t = await database_sync_to_async(make_tournament)(seed="live-1")
    ben = await database_sync_to_async(make_user)("ben")
    await database_sync_to_async(joined)(t, ben)
    comm = _communicator(t.pk, await database_sync_to_async(_cookie)(ben))
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == "error" and message["code"] == "forbidden"
    closed = await comm.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close" and closed["code"] == 4403


async def test_finished_player_gets_a_push_when_another_entry_finishes(make_tournament, make_user):
    t = await database_sync_to_async(make_tournament)(seed="live-2")
    anna = await database_sync_to_async(make_user)("anna")
    ben = await database_sync_to_async(make_user)("ben")
    e_anna, e_ben = await database_sync_to_async(joined)(t, anna, ben)
    await database_sync_to_async(finish)(e_anna)
    comm = _communicator(t.pk, await database_sync_to_async(_cookie)(anna))
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    snapshot = await comm.receive_json_from(timeout=TIMEOUT)
    assert snapshot["type"] == "standings" and [r["player"] for r in snapshot["rows"]] == ["anna"]
    await database_sync_to_async(finish)(e_ben)
    update = await comm.receive_json_from(timeout=TIMEOUT)
    assert update["type"] == "standings" and update["version"] > snapshot["version"]
    assert {r["player"] for r in update["rows"]} == {"anna", "ben"}
    await comm.disconnect()


async def test_standings_socket_answers_snapshot_requests_and_rejects_junk(
    make_tournament, make_user
):
    t = await database_sync_to_async(make_tournament)(seed="live-3")
    anna = await database_sync_to_async(make_user)("anna")
    (entry,) = await database_sync_to_async(joined)(t, anna)
    await database_sync_to_async(finish)(entry)
    comm = _communicator(t.pk, await database_sync_to_async(_cookie)(anna))
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    first = await comm.receive_json_from(timeout=TIMEOUT)
    await comm.send_to(text_data="not json")
    assert (await comm.receive_json_from(timeout=TIMEOUT))["code"] == "bad_message"
    await comm.send_json_to({"type": "play", "card": "TS"})
    assert (await comm.receive_json_from(timeout=TIMEOUT))["code"] == "bad_message"
    await comm.send_json_to({"type": "snapshot"})
    again = await comm.receive_json_from(timeout=TIMEOUT)
    assert again["type"] == "standings" and again["rows"] == first["rows"]
    assert "group" not in again
    await comm.disconnect()
