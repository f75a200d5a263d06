"""Labels of a definition list on a 360 px phone keep their words whole: the profile's
"Gebruikersnaam" and the verify page's label of the revealed seed were cut mid-word
("Gebruikersnaa/m") by overflow-wrap: anywhere on both columns."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import _finish, _new_page, assert_fits_the_phone, sign_up
from tests.browser.test_rounds_live import _manage
from tests.browser.test_rounds_live import server as rounds_server  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db

# The words of each <dt> that take more than one line box (a word cut in two).
CUT_WORDS_JS = """() => [...document.querySelectorAll('#content dt')].flatMap((dt) => {
  const text = dt.firstChild;
  if (!text || text.nodeType !== Node.TEXT_NODE) return [];
  const cut = [];
  for (const m of text.data.matchAll(/\\S+/g)) {
    const r = document.createRange();
    r.setStart(text, m.index);
    r.setEnd(text, m.index + m[0].length);
    const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
    if (tops.size > 1) cut.push(m[0]);
  }
  return cut;
})"""


def test_definition_labels_keep_their_words_whole_at_360px(rounds_server, request, browser):  # noqa: F811
    base, env = rounds_server
    ctx, page = _new_page(
        request, browser, viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    try:
        sign_up(page, base, "gebruiker-met-een-lange-naam")
        out = _manage(env, "create_tournament", "--deals", "1", "--open").stdout
        pk = re.search(r"id: (\d+)", out).group(1)
        _manage(env, "close_tournament", pk)
        for path in ("/accounts/profile/", f"/tournaments/{pk}/verify/", f"/tournaments/{pk}/"):
            page.goto(base + path)
            assert page.locator("#content dt").count(), path
            assert page.evaluate(CUT_WORDS_JS) == [], path
            assert_fits_the_phone(page, 360, path)
    finally:
        _finish(request, ctx, page)
