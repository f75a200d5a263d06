"""Websocket hygiene shared by the consumers: a close that is final, a per-user budget
of open game sockets and snapshots, and a quiet log line for a frame that is not UTF-8.

- `ClosesOnce`: once the server side has closed a socket (a flood, a refusal), frames
  the client had already queued are dropped and nothing more is sent or closed again, so
  the ASGI server never sees a send after its close ("Unexpected ASGI message").
- `UserBudget`: open game sockets per user (GAME_WS_SOCKETS_PER_USER) and snapshots per
  user (GAME_WS_SNAPSHOT_RATE per second, bursts of GAME_WS_SNAPSHOT_BURST), counted in
  this web process; a visitor without an account is counted by address. One user's
  tabs share one snapshot budget, so opening more sockets does not buy more database work.
- `QuietInvalidUtf8`: uvicorn closes a socket that sends a text frame which is not
  UTF-8 with 1007, as it should, but logs that with a traceback; this filter makes it one
  line (installed on "uvicorn.error" by config/asgi.py).
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from .ratelimit import TokenBucket, scope_client_address


class ClosesOnce:
    """Mixin for a Channels websocket consumer (before the consumer class in the bases)."""

    closing = False

    async def websocket_receive(self, message) -> None:
        if self.closing:
            return  # queued behind our close: not handled
        await super().websocket_receive(message)

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        if self.closing:
            return
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    async def close(self, code=None, reason=None) -> None:
        if self.closing:
            return
        self.closing = True
        await super().close(code=code, reason=reason)


def budget_key(scope) -> str:
    """Whose budget a socket spends: the user's, else (no account) the address's."""
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    # Behind the proxy scope["client"] is the proxy itself (uvicorn --no-proxy-headers):
    # the visitor's address comes from X-Forwarded-For, trusted as for HTTP.
    return f"addr:{scope_client_address(scope)}"


class UserBudget:
    """Open sockets and a snapshot token bucket per key (see budget_key), in process.

    >>> b = UserBudget(sockets=2, rate=1, burst=1, clock=iter([0.0, 0.0, 0.0, 5.0]).__next__)
    >>> b.open("u"), b.open("u"), b.open("u")
    (True, True, False)
    >>> b.close("u"); b.open("u")
    True
    >>> b.snapshot("u"), b.snapshot("u"), b.snapshot("u")
    (True, False, True)
    """

    PRUNE_AT = 10_000  # idle entries are dropped when the table grows past this

    def __init__(self, sockets=None, rate=None, burst=None, clock=None) -> None:
        self._limits = (sockets, rate, burst)
        self._clock = clock
        self._open: dict[str, int] = {}
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = threading.Lock()

    def _limit(self, i: int, name: str):
        value = self._limits[i]
        return getattr(settings, name) if value is None else value

    def open(self, key: str) -> bool:
        """Count one more open socket for `key`; False (not counted) when over budget."""
        limit = self._limit(0, "GAME_WS_SOCKETS_PER_USER")
        with self._lock:
            count = self._open.get(key, 0)
            if limit > 0 and count >= limit:
                return False
            self._open[key] = count + 1
            return True

    def close(self, key: str) -> None:
        with self._lock:
            count = self._open.get(key, 0) - 1
            if count > 0:
                self._open[key] = count
            else:
                self._open.pop(key, None)

    def snapshot(self, key: str) -> bool:
        """Spend one snapshot (a database read of the game) for `key`, or say no."""
        rate = self._limit(1, "GAME_WS_SNAPSHOT_RATE")
        burst = self._limit(2, "GAME_WS_SNAPSHOT_BURST")
        if rate <= 0:
            return True
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None or (bucket.rate, bucket.burst) != (float(rate), float(burst)):
                if len(self._buckets) >= self.PRUNE_AT:
                    self._prune()
                kwargs = {"clock": self._clock} if self._clock else {}
                bucket = self._buckets[key] = TokenBucket(rate, burst, **kwargs)
            return bucket.take()

    def reset(self) -> None:
        """Forget every count (tests: each starts with a fresh budget)."""
        with self._lock:
            self._open.clear()
            self._buckets.clear()

    def _prune(self) -> None:
        # Keys without an open socket: their bucket refills within burst/rate seconds
        # anyway, so forgetting them gives nothing away for long.
        for key in [k for k in self._buckets if k not in self._open]:
            del self._buckets[key]


game_sockets = UserBudget()


class QuietInvalidUtf8(logging.Filter):
    """uvicorn's "Invalid UTF-8 sequence received from client." without its traceback:
    the socket is already closed with 1007; a bad client is not a server error."""

    MESSAGE = "Invalid UTF-8 sequence received from client."

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == self.MESSAGE and record.exc_info:
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = "websocket closed (1007): a text frame that is not UTF-8"
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True
