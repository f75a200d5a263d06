"""Fixtures for the production-hardening suite (authorization, leaks, fuzzing, faults).

The tournament fixtures are the tournaments suite's own (one way to make a club and a
tournament); the websocket helpers talk to config.asgi.application in process.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from tests.tournaments.conftest import (  # noqa: F401 - fixtures
    club,
    make_tournament,
    make_user,
    organizer,
)

TIMEOUT = 15


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


def communicator(path: str, cookie: bytes | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, path, headers=headers)


async def connect_game(game_id, user) -> tuple[WebsocketCommunicator, dict]:
    cookie = await database_sync_to_async(session_cookie)(user)
    comm = communicator(f"/ws/game/{game_id}/", cookie)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    first = await comm.receive_json_from(timeout=TIMEOUT)
    return comm, first
