"""Clicks on elements hidden inside scrolling boxes (nested, sideways, under a sticky header)
reach them: every scrolling ancestor is scrolled before the hit test, so "covered" is said
only when something really covers the element; ``web_scroll`` with the ref of such an element
brings it into view."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from webrefs import Browser, WebTools

from tests.helpers.server import SiteServer

TOOLS = ["web_navigate", "web_snapshot", "web_click", "web_get_text", "web_scroll"]


@pytest.fixture
def tools(browser: Browser, site: SiteServer) -> Iterator[WebTools]:
    tab = browser.new_tab()
    t = WebTools(browser, include=TOOLS)
    t.call("web_navigate", {"url": site.url("/actions/scrollboxes.html")})
    yield t
    tab.close()


def _ref(tools: WebTools, name: str) -> str:
    snap = tools.call("web_snapshot", {"max_tokens": 4000}).content
    m = re.search(rf'- button "{re.escape(name)}" \[ref=(\w+)\]', snap)
    assert m, snap
    return m.group(1)


@pytest.mark.parametrize(("name", "state"), [
    ("Book flight for $80", "booked low"),      # low in a scrolling box
    ("Book flight for $65", "booked deep"),     # in a box inside a box
    ("Friday seat", "booked friday"),           # sideways in a horizontal box
])
def test_click_reaches_an_element_hidden_in_scrolling_boxes(
        tools: WebTools, name: str, state: str) -> None:
    ref = _ref(tools, name)
    out = tools.run("web_click", {"ref": ref})
    assert not out.is_error, out.content
    assert "covered" not in out.content
    assert state in tools.call("web_get_text", {}).content


def test_scroll_with_the_ref_of_a_hidden_element_brings_it_into_view(tools: WebTools) -> None:
    tab = tools.browser.active_tab
    ref = _ref(tools, "Book flight for $65")
    shown = "(() => { const b = [...document.querySelectorAll('button')][0];" \
            " const r = b.getBoundingClientRect(), x = r.left + r.width / 2," \
            " y = r.top + r.height / 2; return document.elementFromPoint(x, y) === b; })()"
    assert tab.evaluate(shown) is False
    out = tools.run("web_scroll", {"direction": "down", "ref": ref})
    assert not out.is_error, out.content
    assert "into view" in out.content
    assert tab.evaluate(shown) is True
    # once in view, scrolling with its ref scrolls the box it is in, as before: it is left
    # hidden below when scrolling up (not brought back against the direction asked) ...
    again = tools.run("web_scroll", {"direction": "up", "ref": ref, "amount": 120})
    assert "into view" not in again.content and "Scrolled <div> up" in again.content
    assert tab.evaluate(shown) is False
    # ... and revealed again when scrolling towards it
    down = tools.run("web_scroll", {"direction": "down", "ref": ref})
    assert "into view" in down.content and tab.evaluate(shown) is True


def test_a_real_overlay_is_still_reported_as_covering(tools: WebTools) -> None:
    tab = tools.browser.active_tab
    ref = _ref(tools, "Book flight for $80")
    tab.evaluate("""(() => { const o = document.createElement('div');
        o.id = 'veil'; o.textContent = 'Please wait';
        o.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:9';
        document.body.appendChild(o); })()""")
    out = tools.run("web_click", {"ref": ref})
    assert out.is_error and "covered" in out.content and "Please wait" in out.content
    assert "nothing booked" in tools.call("web_get_text", {}).content


def test_what_a_box_scrolled_out_of_view_holds_is_kept_and_marked(
        browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        t = WebTools(browser, include=TOOLS)
        t.call("web_navigate", {"url": site.url("/actions/scrolled-menu.html")})
        full = t.call("web_snapshot", {"interactive_only": False}).content
        assert 'heading "Starters" [level=2] [scrolled-out]' in full, full
        assert 'button "Add Garlic bread" [scrolled-out] [ref=' in full, full
        text = t.call("web_get_text", {}).content
        assert "Starters" in text and "Garlic bread" in text, text
        # text hidden by design (far above the page) stays out, in the box and outside it
        for out in (full, text):
            assert "order everything" not in out and "card number" not in out
        ref = re.search(r'button "Add Garlic bread" \[scrolled-out\] \[ref=(\w+)\]', full)
        assert ref, full
        assert not t.run("web_click", {"ref": ref.group(1)}).is_error  # one scroll away
        assert tab.evaluate("document.getElementById('order').textContent") == \
            "Add Garlic bread"
    finally:
        tab.close()
