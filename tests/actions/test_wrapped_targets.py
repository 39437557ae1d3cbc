"""A link that wraps onto two lines: the centre of its bounding box can fall beside both of
its line boxes, on its own container. That is not a cover: the click aims at one of the
element's own boxes and reaches it."""

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
