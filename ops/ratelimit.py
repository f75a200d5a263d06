"""Small rate limiters: a token bucket per websocket connection, and a cache-based
counter of failed logins per (client address, username) and, with a higher bound, per
client address.

The login counter lives in Django's cache: Redis when REDIS_URL is set, so every web
process shares it; the in-process default cache otherwise (one process: `make run`).
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import ngettext


class TokenBucket:
    """`rate` tokens per second up to `burst`; take() spends one or says no.

    >>> clock = iter([0.0, 0.0, 0.0, 0.0, 0.5]).__next__
    >>> b = TokenBucket(rate=2, burst=2, clock=clock)
    >>> b.take(), b.take(), b.take()
    (True, True, False)
    >>> b.take()  # half a second later: one token back
    True
    """

    def __init__(self, rate: float, burst: float, clock=time.monotonic) -> None:
        self.rate = float(rate)
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.stamp = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


def forwarded_address(forwarded_for: str, remote: str) -> str:
    """The client's address from an X-Forwarded-For value and the peer's address: behind
    N trusted proxies (TRUSTED_PROXY_COUNT), the N-th address from the right of
    X-Forwarded-For; never a value a client could choose."""
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies > 0:
        forwarded = [a.strip() for a in forwarded_for.split(",") if a.strip()]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return remote or "unknown"


def client_address(request) -> str:
    """The client's address of an HTTP request (see forwarded_address)."""
    return forwarded_address(
        request.META.get("HTTP_X_FORWARDED_FOR", ""), request.META.get("REMOTE_ADDR", "")
    )


def scope_client_address(scope) -> str:
    """The same for an ASGI scope (a websocket): uvicorn runs with --no-proxy-headers, so
    scope["client"] is the proxy's address; X-Forwarded-For is read from the headers
    under the same TRUSTED_PROXY_COUNT rule as HTTP. Several X-Forwarded-For headers are
    joined in order, as a WSGI/ASGI server joins them into one META value."""
    values = [
        value.decode("latin-1")
        for name, value in scope.get("headers") or ()
        if name.lower() == b"x-forwarded-for"
    ]
    client = scope.get("client") or ("", 0)
    return forwarded_address(",".join(values), str(client[0] or ""))


def over_limit(key: str, limit: int) -> int:
    """Seconds until the counter `key` (see count) is under `limit` again; 0: it is."""
    if limit <= 0:
        return 0
    values = cache.get_many([key, key + ":until"])
    if values.get(key, 0) < limit:
        return 0
    now = time.time()
    return max(1, math.ceil((values.get(key + ":until") or now + 60) - now))


def count(key: str, window: int) -> None:
    """One more event on the counter `key`, which lives `window` seconds from its first."""
    if cache.add(key, 1, timeout=window):
        cache.set(key + ":until", time.time() + window, timeout=window)
        return
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=window)
        cache.set(key + ":until", time.time() + window, timeout=window)


def _keys(request, username: str) -> list[tuple[str, int]]:
    """The failed-login counters of an attempt and their limits: (address, username) at
    LOGIN_RATE_LIMIT, and the address alone at the higher LOGIN_RATE_LIMIT_ADDRESS. No
    counter per username alone: an attacker elsewhere cannot lock the owner out, and
    guessing at one name from one address does not block the others there."""
    name = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    address = client_address(request)
    return [
        (f"login-fail:pair:{address}:{name}", settings.LOGIN_RATE_LIMIT),
        (f"login-fail:ip:{address}", settings.LOGIN_RATE_LIMIT_ADDRESS),
    ]


def login_blocked(request, username: str) -> int:
    """Seconds until this attempt may be made again (0: it may be made now)."""
    if settings.LOGIN_RATE_LIMIT <= 0:
        return 0
    keys = _keys(request, username)
    counts = cache.get_many([key for key, _ in keys] + [key + ":until" for key, _ in keys])
    now = time.time()
    wait = 0
    for key, limit in keys:
        if limit > 0 and counts.get(key, 0) >= limit:
            until = counts.get(key + ":until") or now + settings.LOGIN_RATE_WINDOW
            wait = max(wait, math.ceil(until - now), 1)
    return wait


def wait_message(seconds: int) -> str:
    """ "Too many failed attempts", with how long to wait (whole minutes, rounded up)."""
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed attempts. Try again in %(minutes)d minute.",
        "Too many failed attempts. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def login_failed(request, username: str) -> None:
    # The window starts with the first failure; its end is what the message says.
    for key, _ in _keys(request, username):
        count(key, settings.LOGIN_RATE_WINDOW)


def login_succeeded(request, username: str) -> None:
    # Only the (address, username) counter: a shared address (a club's wifi) keeps its count.
    pair = _keys(request, username)[0][0]
    cache.delete_many([pair, pair + ":until"])
