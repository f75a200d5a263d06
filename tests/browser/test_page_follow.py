"""static/tournaments/busy.js in a real browser: the pages that follow a tournament by
reloading themselves (the organizer's view, a table's score sheet, the players' tables
page) wait while the person is busy with the page, and only then."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

# A page of the site (for the module's origin) with a form like the score sheet's: a
# select with nothing marked selected (its first option shows), one marked, a number,
# radios, a question (<details>) and a link.
SETUP_JS = """async () => {
  document.body.innerHTML = `
    <form id="f"><select id="s1"><option>0</option><option>1</option></select>
      <select id="s2"><option>0</option><option selected>1</option></select>
      <input id="n" type="number" value="">
      <label><input id="r" type="radio" name="t" value="H"> H</label>
      <input type="hidden" name="seen" value="abc"></form>
    <details id="q"><summary>?</summary></details>
    <a id="away" href="/tournaments/">away</a><a id="here" href="#top">top</a>`;
  const mod = await import("/static/tournaments/busy.js");
  window.busy = mod.busyWatch({ openDetails: true });
  window.plain = mod.busyWatch();
  return [window.busy(), window.plain()];
}"""


def test_a_following_page_waits_while_the_person_is_busy_with_it(asgi_server, page):
    page.goto(asgi_server + "/tournaments/")
    # Nothing touched: free (a select showing its first option has not changed).
    assert page.evaluate(SETUP_JS) == [False, False]
    busy = "() => window.busy()"
    page.select_option("#s1", "1")
    assert page.evaluate(busy)
    page.select_option("#s1", "0")
    page.evaluate("document.activeElement.blur()")
    assert not page.evaluate(busy)
    page.select_option("#s2", "0")  # away from the option marked selected
    page.evaluate("document.activeElement.blur()")
    assert page.evaluate(busy)
    page.select_option("#s2", "1")
    page.evaluate("document.activeElement.blur()")
    assert not page.evaluate(busy)
    page.fill("#n", "38")  # typing, and typed
    assert page.evaluate(busy)
    page.evaluate("document.activeElement.blur()")
    assert page.evaluate(busy)
    page.fill("#n", "")
    page.evaluate("document.activeElement.blur()")
    assert not page.evaluate(busy)
    page.check("#r")
    page.evaluate("document.activeElement.blur()")
    assert page.evaluate(busy)
    page.evaluate("document.getElementById('r').checked = false")
    assert not page.evaluate(busy)
    # A question open keeps the organizer's view; not a page that does not ask for it.
    page.evaluate("document.getElementById('q').open = true")
    assert page.evaluate(busy) and not page.evaluate("() => window.plain()")
    page.evaluate("document.getElementById('q').open = false")
    # A link within the page is no navigation; a link away is.
    page.evaluate("document.getElementById('here').click()")
    assert not page.evaluate(busy)
    page.evaluate(
        "document.addEventListener('click', (e) => e.preventDefault());"
        "document.getElementById('away').click()"
    )
    assert page.evaluate(busy) and page.evaluate("() => window.plain()")
