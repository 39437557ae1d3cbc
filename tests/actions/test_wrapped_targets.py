"""Targets whose boxes mislead a click, and how the click still reaches them: a link that wraps
onto two lines (the centre of its bounding box can fall beside both line boxes, on its own
container: not a cover, the click aims at one of its own boxes), an icon that has no size
while its hover image loads (the press lands on its container: pressed again), and a control
hidden for a moment (waited for)."""

from __future__ import annotations

import pytest
from webrefs import Browser

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def test_a_link_wrapped_onto_two_lines_is_clicked(browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/actions/wrapped.html"))
        boxes = tab.evaluate(
            "() => { const a = document.getElementById('addr');"
            " const r = a.getBoundingClientRect();"
            " const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            " return [a.getClientRects().length, hit ? hit.id : null]; }")
        # the page is what the test is about: two line boxes, and the container under the
        # centre of the bounding box
        assert boxes == [2, "card"], boxes
        ref = next(r for r, n in tab.snapshot().refs.items() if n.name == "12 Long Road Westend")
        result = tab.click(ref)
        assert result.success, result.message
        assert "address opened" in tab.get_text().text
    finally:
        tab.close()


def test_an_icon_that_changes_as_the_pointer_arrives_is_pressed_again(
        browser: Browser, site: SiteServer) -> None:
    # the icon's hover image takes 300 ms to load and the icon has no size until then, so the
    # press right after the pointer arrives reaches the post around it: the click watches
    # where its press landed and presses the icon once more
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/actions/hover-swap.html"))
        line = next(x for x in tab.snapshot().text.splitlines() if '[hint="like"]' in x)
        ref = line.split("[ref=")[1].rstrip("]")
        result = tab.click(ref)
        assert result.success, result.message
        assert tab.evaluate("() => document.getElementById('likes').textContent") == "1"
        assert "pressed again" in result.message
        # the hover image is loaded now: a second click lands at once, and says nothing more
        again = tab.click(ref)
        assert "pressed again" not in again.message, again.message
        assert tab.evaluate("() => document.getElementById('likes').textContent") == "2"
    finally:
        tab.close()


def test_a_control_hidden_for_a_moment_is_waited_for(browser: Browser, site: SiteServer) -> None:
    # hidden at the moment of the click and shown again 200 ms later (a transition): the
    # click waits for it instead of refusing it as not visible
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/actions/hover-swap.html"))
        line = next(x for x in tab.snapshot().text.splitlines() if '[hint="like"]' in x)
        ref = line.split("[ref=")[1].rstrip("]")
        tab.evaluate("() => { const e = document.getElementById('like');"
                     " e.style.display = 'none';"
                     " setTimeout(() => { e.style.display = ''; }, 200); }")
        result = tab.click(ref)
        assert result.success, result.message
        assert tab.evaluate("() => document.getElementById('likes').textContent") == "1"
    finally:
        tab.close()
