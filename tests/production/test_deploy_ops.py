"""ops/ behind the deployment's proxy: the websocket budget of a visitor without an
account is counted per client address (X-Forwarded-For under TRUSTED_PROXY_COUNT, as for
HTTP), not per proxy; /healthz's worker check returns as soon as every required queue
has answered; and /healthz warns, without failing, when the results PDF's library
(WeasyPrint: Pango, fonts) cannot load."""

from __future__ import annotations

import sys
import time

import pytest
from django.contrib.auth.models import AnonymousUser

from ops import health
from ops.ratelimit import scope_client_address
from ops.sockets import UserBudget, budget_key
from tests.helpers import PRODUCTION_STACK


def _scope(client="127.0.0.1", forwarded=None, user=None):
    headers = [(b"host", b"manillen.example.org")]
    for value in forwarded or ():
        headers.append((b"x-forwarded-for", value.encode()))
    return {"client": (client, 51000), "headers": headers, "user": user or AnonymousUser()}


def test_anonymous_sockets_behind_the_proxy_are_counted_per_visitor(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.GAME_WS_SOCKETS_PER_USER = 2
    a = budget_key(_scope(forwarded=["203.0.113.7"]))
    b = budget_key(_scope(forwarded=["198.51.100.9"]))
    assert (a, b) == ("addr:203.0.113.7", "addr:198.51.100.9")
    budget = UserBudget()
    # Two visitors behind the same nginx: each has a budget of its own.
    assert [budget.open(a), budget.open(a), budget.open(a)] == [True, True, False]
    assert budget.open(b) is True


def test_the_trusted_hop_is_the_one_nginx_appended(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    # A client's own X-Forwarded-For comes first; nginx appends the real address.
    assert scope_client_address(_scope(forwarded=["6.6.6.6, 203.0.113.7"])) == "203.0.113.7"
    # Several headers are joined in order, as for HTTP.
    assert scope_client_address(_scope(forwarded=["6.6.6.6", "203.0.113.7"])) == "203.0.113.7"
    # No header (a direct connection): the peer's address.
    assert scope_client_address(_scope(client="192.0.2.1")) == "192.0.2.1"
    assert scope_client_address({"headers": []}) == "unknown"


def test_without_a_trusted_proxy_the_header_is_ignored(settings):
    settings.TRUSTED_PROXY_COUNT = 0
    assert budget_key(_scope(client="192.0.2.1", forwarded=["203.0.113.7"])) == "addr:192.0.2.1"


@pytest.mark.django_db
def test_an_account_is_counted_by_user_whatever_the_address(settings, django_user_model):
    settings.TRUSTED_PROXY_COUNT = 1
    user = django_user_model.objects.create_user("sockets-budget", password="x" * 12)
    assert budget_key(_scope(forwarded=["203.0.113.7"], user=user)) == f"user:{user.pk}"


@pytest.fixture
def fresh_pdf_check():
    health._pdf_library.clear()
    yield
    health._pdf_library.clear()


@pytest.mark.django_db
def test_healthz_warns_but_stays_up_when_the_pdf_library_cannot_load(
    client, monkeypatch, fresh_pdf_check
):
    # The service checks pass (this test is about the optional part, on any stack).
    for name in ("check_database", "check_redis", "check_workers", "check_beat"):
        monkeypatch.setattr(health, name, lambda: {})
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "weasyprint", None)  # the import fails, as without Pango
        response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["optional"]["pdf"]["ok"] is False
    assert "libpango-1.0-0" in body["warnings"][0]
    health._pdf_library.clear()
    body = client.get("/healthz").json()
    assert body["optional"]["pdf"]["ok"] is True and "warnings" not in body


@pytest.mark.skipif(not PRODUCTION_STACK, reason="workers are checked only with a real broker")
@pytest.mark.usefixtures("live_game_db")
def test_the_worker_check_returns_once_every_queue_answered(settings):
    """Celery's inspect() without a limit waits the whole timeout for replies that
    will not come; the check stops once every required queue has a consumer."""
    settings.HEALTHZ_TIMEOUT = 3.0
    started = time.perf_counter()
    result = health.check_workers()
    elapsed = time.perf_counter() - started
    assert result["queues"] and all(result["queues"].values())
    assert elapsed < 1.5, elapsed
    # A queue nobody consumes still waits the timeout, then fails with its name.
    settings.HEALTHZ_TIMEOUT = 0.5
    settings.HEALTHZ_QUEUES = [*health.required_queues(), "nobody-consumes-this"]
    with pytest.raises(RuntimeError, match="nobody-consumes-this"):
        health.check_workers()
