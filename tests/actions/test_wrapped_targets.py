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
