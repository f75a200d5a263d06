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


async def _finished_and_watching(make_tournament, make_user, seed: str):
    """anna, who finished her game, with the standings socket open: (socket, snapshot)."""
    t = await database_sync_to_async(make_tournament)(seed=seed)
    anna = await database_sync_to_async(make_user)("anna")
    (entry,) = await database_sync_to_async(joined)(t, anna)
    await database_sync_to_async(finish)(entry)
    comm = _communicator(t.pk, await database_sync_to_async(_cookie)(anna))
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm, await comm.receive_json_from(timeout=TIMEOUT)


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
    comm, first = await _finished_and_watching(make_tournament, make_user, "live-3")
    await comm.send_to(text_data="not json")
    assert (await comm.receive_json_from(timeout=TIMEOUT))["code"] == "bad_message"
    await comm.send_json_to({"type": "play", "card": "TS"})
    assert (await comm.receive_json_from(timeout=TIMEOUT))["code"] == "bad_message"
    await comm.send_json_to({"type": "snapshot"})
    again = await comm.receive_json_from(timeout=TIMEOUT)
    assert again["type"] == "standings" and again["rows"] == first["rows"]
    assert "group" not in again
    await comm.disconnect()


# --- issue 10 item 1: the socket obeys the pages' "looking rules you out" ------------------


def _second_organizer(t, make_user):
    """A club organizer who did not choose the seed (so has not seen the deals yet)."""
    carl = make_user("carl")
    t.club.organizers.add(carl)
    t.club.members.add(carl)
    return carl


async def test_an_organizer_watching_the_standings_socket_can_no_longer_enter(
    make_tournament, make_user
):
    from tournaments import actions

    t = await database_sync_to_async(make_tournament)(seed="live-look-1")
    carl = await database_sync_to_async(_second_organizer)(t, make_user)
    anna = await database_sync_to_async(make_user)("anna")
    (e_anna,) = await database_sync_to_async(joined)(t, anna)
    await database_sync_to_async(finish)(e_anna)
    cookie = await database_sync_to_async(_cookie)(carl)
    # As on the standings page, not before choosing to look ("De uitslagen bekijken?"):
    # opening the socket shows nothing and records nothing.
    comm = _communicator(t.pk, cookie)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == "error" and message["code"] == "forbidden"
    assert (await comm.receive_output(timeout=TIMEOUT))["code"] == 4403
    assert not await database_sync_to_async(actions.has_seen)(t, carl)
    await database_sync_to_async(actions.mark_seen)(t, carl)  # the page's "look"
    comm = _communicator(t.pk, cookie)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    snapshot = await comm.receive_json_from(timeout=TIMEOUT)
    assert snapshot["type"] == "standings" and [r["player"] for r in snapshot["rows"]] == ["anna"]
    # As on the standings page: having looked, the organizer may not enter any more.
    with pytest.raises(actions.CannotJoin, match="seen this tournament"):
        await database_sync_to_async(actions.join)(t.pk, carl)
    await comm.disconnect()


async def test_the_standings_socket_asks_again_at_every_push(make_tournament, make_user):
    """An entry that slipped in next to the connect (a join racing the socket) gets
    nothing more about the others while its own game is unfinished."""
    from tournaments import actions

    t = await database_sync_to_async(make_tournament)(seed="live-look-2")
    carl = await database_sync_to_async(_second_organizer)(t, make_user)
    anna = await database_sync_to_async(make_user)("anna")
    ben = await database_sync_to_async(make_user)("ben")
    e_anna, e_ben = await database_sync_to_async(joined)(t, anna, ben)
    await database_sync_to_async(finish)(e_anna)
    await database_sync_to_async(actions.mark_seen)(t, carl)  # chose to look
    comm = _communicator(t.pk, await database_sync_to_async(_cookie)(carl))
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    assert (await comm.receive_json_from(timeout=TIMEOUT))["type"] == "standings"

    def race_in():
        # The join that passed its check before the socket recorded the look.
        t.deals_seen_by.remove(carl)
        return actions.join(t.pk, carl)

    await database_sync_to_async(race_in)()
    await database_sync_to_async(finish)(e_ben)  # a push with ben's row
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message == {"type": "error", "code": "forbidden", "message": "not allowed"}
    closed = await comm.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close" and closed["code"] == 4403
    assert await comm.receive_nothing(timeout=0.5)


async def test_standings_snapshots_are_bounded_by_the_persons_budget(
    make_tournament, make_user, settings
):
    """Each snapshot reads and ranks the whole field: a flood of them is refused past the
    person's snapshot budget (as on the game sockets), not answered one by one."""
    from ops.sockets import game_sockets

    settings.GAME_WS_SNAPSHOT_RATE, settings.GAME_WS_SNAPSHOT_BURST = 1, 3
    game_sockets.reset()
    comm, _ = await _finished_and_watching(make_tournament, make_user, "live-flood")
    for _ in range(20):
        await comm.send_json_to({"type": "snapshot"})
    answers = [await comm.receive_json_from(timeout=TIMEOUT) for _ in range(20)]
    kinds = [a["type"] if a["type"] == "standings" else a["code"] for a in answers]
    assert 3 <= kinds.count("standings") <= 5, kinds  # the burst, and a refill or two
    assert kinds.count("rate_limited") == 20 - kinds.count("standings")
    await comm.disconnect()
    game_sockets.reset()
