"""Small rate limiters: a token bucket per websocket connection, and a cache-based
counter of failed logins per client address and per username.

The login counter lives in Django's cache: Redis when REDIS_URL is set, so every web
process shares it; the in-process default cache otherwise (one process: `make run`).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache


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


def client_address(request) -> str:
    """The client's address. Behind N trusted proxies (TRUSTED_PROXY_COUNT), the N-th
    address from the right of X-Forwarded-For; never a value a client could choose."""
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies > 0:
        forwarded = [
            a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()
        ]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _keys(request, username: str) -> list[str]:
    name = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    return [f"login-fail:ip:{client_address(request)}", f"login-fail:user:{name}"]


def login_blocked(request, username: str) -> bool:
    limit = settings.LOGIN_RATE_LIMIT
    if limit <= 0:
        return False
    counts = cache.get_many(_keys(request, username))
    return any(count >= limit for count in counts.values())


def login_failed(request, username: str) -> None:
    window = settings.LOGIN_RATE_WINDOW
    for key in _keys(request, username):
        if not cache.add(key, 1, timeout=window):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=window)


def login_succeeded(request, username: str) -> None:
    # Only the username's counter: a shared address (a club's wifi) keeps its count.
    cache.delete(_keys(request, username)[1])
