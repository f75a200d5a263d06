"""The host closes a table that has not started, in two browsers: closing a table
someone sits at is asked first, and whoever waits there is taken to the open tables,
which say the host closed it."""

from __future__ import annotations

import pytest

from tests.browser.conftest import _finish, _new_page, sign_up

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db


def test_the_host_closes_a_waiting_table(request, browser, asgi_server):
    hctx, host = _new_page(request, browser, viewport={"width": 1000, "height": 800})
    gctx, guest = _new_page(request, browser, viewport={"width": 1000, "height": 800})
    try:
        sign_up(host, asgi_server, "gastheer-sluit")
        host.goto(asgi_server + "/tables/new/")
        host.locator("[data-create-table]").click()
        host.wait_for_url("**/tables/*/")
        table_url = host.url
        guest.goto(table_url)
        guest.locator("[data-sit='2']").click()
        guest.wait_for_selector("[data-leave]")
        host.reload()  # the page that knows someone sits there asks first
        asked = []

        def answer(dialog):
            asked.append(dialog.message)
            (dialog.dismiss if len(asked) == 1 else dialog.accept)()

        host.on("dialog", answer)
        host.locator("[data-close-table]").click()
        host.wait_for_timeout(500)
        assert host.url == table_url and len(asked) == 1  # dismissed: still open
        assert "open tafels" in asked[0]
        host.locator("[data-close-table]").click()
        host.wait_for_url(asgi_server + "/tables/")
        guest.wait_for_url("**/tables/?closed=1", timeout=15_000)
        expect(guest.locator("[data-table-closed]")).to_contain_text("gastheer heeft de tafel")
        assert not host.js_errors and not guest.js_errors, (host.js_errors, guest.js_errors)
    finally:
        _finish(request, gctx, guest)
        _finish(request, hctx, host)
