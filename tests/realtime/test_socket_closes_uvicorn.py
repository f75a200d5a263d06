"""Closes the server makes on a hostile game socket are quiet and handled, in a real
uvicorn (issue 10 item 7): a flooding socket is closed once (4429) and the frames it had
queued are not handled after that (no "Unexpected ASGI message 'websocket.send'"); a
text frame that is not UTF-8 closes the socket with 1007 without a traceback in the log.

The server runs in embedded mode (its own SQLite file, in-memory layer, bots in
process) whatever the suite's mode: what is tested is the websocket path in uvicorn.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.helpers import ROOT, free_port, start_uvicorn


@pytest.fixture(scope="module")
def uvicorn_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("uvicorn-closes")
    env = {**os.environ, "DEBUG": "1", "PYTHONUNBUFFERED": "1", "SQLITE_PATH": str(tmp / "db")}
    for key in ("DATABASE_URL", "DATABASE_NAME", "REDIS_URL"):
        env.pop(key, None)
    env.update(GAME_DEFAULT_BOT="heuristic", GAME_WS_RATE="1", GAME_WS_BURST="2", EMBEDDED_BEAT="0")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                   cwd=ROOT, env=env, check=True)  # fmt: skip
    port = free_port()
    log = tmp / "server.log"
    proc = start_uvicorn(env, port, log, level="info")
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/play/", timeout=2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"uvicorn did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
    try:
        yield port, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _new_game(port: int) -> tuple[str, str]:
    """The start button's POST (after GET /play/ for the CSRF token): (game id, cookie)."""
    url = f"http://127.0.0.1:{port}/play/"
    with urllib.request.urlopen(url, timeout=30) as response:
        page = response.read().decode()
        cookies = response.headers.get_all("Set-Cookie")
    csrf = next(c.split(";")[0] for c in cookies if c.startswith("csrftoken="))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": token}).encode()
    request = urllib.request.Request(url, data=body, headers={"Cookie": csrf})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    with pytest.raises(urllib.error.HTTPError) as redirect:
        urllib.request.build_opener(NoRedirect).open(request, timeout=30)
    assert redirect.value.code == 302
    session = next(
        c.split(";")[0] for c in redirect.value.headers.get_all("Set-Cookie")
        if c.startswith("sessionid=")
    )  # fmt: skip
    game_id = redirect.value.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    return game_id, session


def _client_frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, 0x80 | n])
    else:
        head = bytes([0x80 | opcode, 0x80 | 126]) + struct.pack(">H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _open_socket(port: int, game_id: str, session: str) -> tuple[socket.socket, bytes]:
    """An open websocket, and the bytes of frames that came with the handshake."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/game/{game_id}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nCookie: {session}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert b" 101 " in head.split(b"\r\n")[0], head[:200]
    return sock, head.split(b"\r\n\r\n", 1)[1]


def _server_frames(sock: socket.socket, data: bytes, timeout: float = 10):
    """Every frame (opcode, payload) the server sends until it closes the connection."""
    frames = []
    sock.settimeout(timeout)
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    while len(data) >= 2:
        opcode, n, at = data[0] & 0x0F, data[1] & 0x7F, 2
        if n == 126:
            n, at = struct.unpack(">H", data[2:4])[0], 4
        elif n == 127:
            n, at = struct.unpack(">Q", data[2:10])[0], 10
        frames.append((opcode, data[at : at + n]))
        data = data[at + n :]
    return frames


def _close_codes(frames) -> list[int]:
    return [struct.unpack(">H", payload[:2])[0] for opcode, payload in frames if opcode == 8]


def _settled_log(log) -> str:
    time.sleep(0.5)  # the server's last lines
    return log.read_text(errors="replace")


def test_a_flooding_socket_is_closed_once_and_its_queued_frames_are_dropped(uvicorn_server):
    port, log = uvicorn_server
    game_id, session = _new_game(port)
    sock, early = _open_socket(port, game_id, session)
    start = len(log.read_text(errors="replace"))
    snapshot = _client_frame(1, json.dumps({"type": "snapshot"}).encode())
    sock.sendall(snapshot * 300)  # queued far beyond the close (burst 2: close at ~23)
    frames = _server_frames(sock, early)
    sock.close()
    assert _close_codes(frames) == [4429]
    # Nothing after the close frame: the queued frames were not handled.
    assert frames[-1][0] == 8
    errors = [json.loads(p) for op, p in frames if op == 1 and b'"error"' in p]
    assert errors and all(e["code"] == "rate_limited" for e in errors)
    written = _settled_log(log)[start:]
    assert "Traceback" not in written and "Unexpected ASGI message" not in written, written


def test_a_frame_that_is_not_utf8_is_a_quiet_1007_close(uvicorn_server):
    port, log = uvicorn_server
    game_id, session = _new_game(port)
    sock, early = _open_socket(port, game_id, session)
    start = len(log.read_text(errors="replace"))
    sock.sendall(_client_frame(1, b'{"type": "snapshot"\xff}'))
    frames = _server_frames(sock, early)
    sock.close()
    assert _close_codes(frames) == [1007]
    written = _settled_log(log)[start:]
    assert "Traceback" not in written and "UnicodeDecodeError" not in written, written
    assert "ERROR" not in written, written
    # The server goes on serving: a new socket to the same game gets its snapshot.
    sock, early = _open_socket(port, game_id, session)
    time.sleep(1)  # the snapshot on connect
    sock.sendall(_client_frame(8, struct.pack(">H", 1000)))
    frames = _server_frames(sock, early)
    sock.close()
    assert any(op == 1 and b'"snapshot"' in payload for op, payload in frames)
