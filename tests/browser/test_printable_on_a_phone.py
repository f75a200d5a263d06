"""The printable results on a narrow phone (360 px): every table fits the screen or
scrolls inside its own box, nothing is cut off at the edge (html and body hide what
runs past it), for a solo tournament and a tournament of tables alike."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import _finish, _new_page, assert_fits_the_phone
from tests.browser.test_rounds_live import _manage
from tests.browser.test_rounds_live import server as rounds_server  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def narrow_phone(request, browser):
    ctx, page = _new_page(
        request, browser, viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    yield page
    _finish(request, ctx, page)


def _made(env, *args: str) -> str:
    return re.search(r"id: (\d+)", _manage(env, "create_tournament", *args).stdout).group(1)


def test_the_printable_results_fit_a_360px_phone(rounds_server, narrow_phone):  # noqa: F811
    base, env = rounds_server
    tables = _made(env, "--format", "rotating", "--players", "8", "--rounds", "1",
                   "--sets", "3", "--deals", "1", "--duplicate", "--open")  # fmt: skip
    _manage(env, "simulate_tournament", tables, "--players", "8")
    solo = _made(env, "--deals", "1", "--capacity", "4", "--open")
    _manage(env, "simulate_tournament", solo, "--players", "4")
    _manage(env, "close_tournament", solo)
    page = narrow_phone
    # The print dialog itself is the browser's: count the calls instead.
    page.add_init_script("window.print = () => { window.printed = (window.printed || 0) + 1; }")
    for url in (f"/tournaments/{tables}/tables/results/", f"/tournaments/{solo}/results/"):
        page.goto(base + url)
        # "Afdrukken" works under the Content-Security-Policy (no inline handler).
        page.get_by_role("button", name="Afdrukken").click()
        assert page.evaluate("window.printed") == 1, url
        assert page.locator("table.t-table").count() >= 2, url
        for table in page.locator("#content table").all():
            assert table.evaluate("t => !!t.closest('.t-table-wrap')"), url
        assert_fits_the_phone(page, 360, url)
