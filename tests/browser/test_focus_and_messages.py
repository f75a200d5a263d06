"""Keyboard and screen-reader users: the focus ring stands out on the dark greens (the
header, the felt), and a page's messages (refused, saved) are in a live region that
reads them out, an error as an alert."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import sign_up
from tests.browser.test_table_a11y import _open_table

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db

RING_JS = """() => {
  const el = document.activeElement, css = getComputedStyle(el);
  let bg = el.parentElement;
  while (bg && ["rgba(0, 0, 0, 0)", "transparent"].includes(getComputedStyle(bg).backgroundColor)
         && !getComputedStyle(bg).backgroundImage.includes("gradient")) bg = bg.parentElement;
  const b = getComputedStyle(bg);
  return {ring: css.outlineColor, style: css.outlineStyle, bg: b.backgroundColor,
          image: b.backgroundImage, tag: el.tagName, text: el.textContent.trim().slice(0, 30)};
}"""


def _luminance(color: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", color)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _backgrounds(found: dict) -> list[str]:
    """The colours behind the ring: a plain background, or every stop of a gradient."""
    if "gradient" in found["image"]:
        return re.findall(r"rgba?\([^)]*\)", found["image"])
    return [found["bg"]]


def _tab_until(page, selector: str, limit: int = 40) -> dict:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => !!document.activeElement.closest({selector!r})"):
            return page.evaluate(RING_JS)
    raise AssertionError(f"Tab never reached {selector}")


def test_the_focus_ring_stands_out_on_the_header_and_the_felt(page, asgi_server):
    base = asgi_server
    page.goto(base + "/")
    found = _tab_until(page, ".site-header")
    assert found["style"] == "solid"
    for bg in _backgrounds(found):  # WCAG 1.4.11: 3:1 for a focus indicator
        assert _contrast(found["ring"], bg) >= 3, (found, bg)
    _open_table(page, base)
    # The felt's own buttons (trump, mee/tegen) show only on the player's turn to choose:
    # one of the same kind stands in, focused from the keyboard.
    page.evaluate("""() => {
      const panel = document.getElementById("choices");
      panel.hidden = false;
      const probe = document.createElement("button");
      probe.id = "probe"; probe.textContent = "♥";
      panel.append(probe);
    }""")
    page.keyboard.press("Tab")
    page.focus("#probe")
    found = page.evaluate(RING_JS)
    assert found["text"] == "♥"
    for bg in _backgrounds(found):
        assert _contrast(found["ring"], bg) >= 3, (found, bg)


def test_a_refused_form_says_so_in_an_alert_the_screen_reader_reads(page, asgi_server):
    base = asgi_server
    sign_up(page, base, "focus-messages")
    page.goto(base + "/clubs/")
    # The browser's own check would stop an empty name: a name of spaces gets to the server.
    page.fill("form[action$='/clubs/new/'] input[name=name]", "   ")
    page.locator("form[action$='/clubs/new/'] button").click()
    alert = page.locator("[role=status] > .t-messages li > [role=alert]")
    expect(alert).to_have_count(1)
    expect(alert).not_to_be_empty()  # put back after the load: read out as a change


def test_the_trump_is_said_by_name_not_only_by_its_symbol(page, asgi_server):
    """Once trump is chosen the dealer's line shows the symbol and, for a screen reader,
    the suit's name (the move log's line is written by the same code)."""
    from tests.browser.test_table_a11y import _act

    _open_table(page, asgi_server)
    for _ in range(6):  # the dealer (a bot, or we) chooses trump within our first moves
        if page.locator(".choice-text").count():
            break
        _act(page)
    choice = page.locator(".choice-text").first
    expect(choice).to_be_visible()
    text = choice.text_content()
    if "Zonder troef" not in text and "zonder troef" not in text:
        assert re.search(r"Troef [♠♥♦♣](Schoppen|Harten|Ruiten|Klaveren)", text), text
        assert choice.locator("[aria-hidden=true]").text_content() in "♠♥♦♣"
        # The move log's line of the choice (when it was made live) reads the same.
        log = page.locator("#sr-log").text_content()
        if "Troef" in log:
            assert re.search(r"Troef [♠♥♦♣] (Schoppen|Harten|Ruiten|Klaveren)", log), log
