"""The header's language menu (WCAG 3.2.2, on input): an arrow key on the list only
moves the choice; Enter or the button switches, and the reloaded page gives the focus
back to the list. A choice made with the mouse (or a phone's picker) applies at once."""

from __future__ import annotations

import pytest

expect = pytest.importorskip("playwright.sync_api").expect


def test_arrow_keys_do_not_switch_the_language_and_enter_does(page, asgi_server):
    page.goto(asgi_server + "/")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    select = page.locator("#lang-select")
    select.focus()
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(700)  # a submit on change would be reloading the page by now
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    assert select.input_value() != "nl"  # the choice moved
    expect(page.locator(".lang-go")).to_be_visible()  # a button to press for it
    assert page.evaluate("document.activeElement.id") == "lang-select"
    chosen = select.input_value()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", chosen)
    # Back on the language list, so a keyboard user goes on where they were.
    expect(page.locator("#lang-select")).to_be_focused()
    assert not page.js_errors, page.js_errors


def test_the_button_switches_and_gives_the_focus_back(page, asgi_server):
    page.goto(asgi_server + "/")
    page.locator("#lang-select").focus()
    page.keyboard.press("ArrowDown")
    with page.expect_navigation():
        page.locator(".lang-go").click()
    assert page.locator("html").get_attribute("lang") != "nl"
    expect(page.locator("#lang-select")).to_be_focused()
    # Another page opened afterwards keeps the focus where a page starts.
    page.goto(asgi_server + "/")
    assert page.evaluate("document.activeElement === document.body")
    with page.expect_navigation():
        page.locator("#lang-select").select_option("nl")  # a pick from the list: at once
    expect(page.locator("html")).to_have_attribute("lang", "nl")
