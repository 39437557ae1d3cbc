"""web_drag: real mouse input (press, moves in steps, release) that HTML5 drag and drop and
pointer-event widgets both see, with what moved read back, on pages on 127.0.0.1."""

from __future__ import annotations

import pytest
from webrefs import Tab, WebTools
from webrefs.actions.drag import moved_words

from tests.helpers.actions import ref

pytestmark = pytest.mark.browser


@pytest.fixture
def dragging(tab: Tab, site) -> WebTools:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/drag.html"))
    tools = WebTools.from_tab(tab, include=["web_drag"])
    tools.call("web_snapshot", {})
    return tools


def _order(tab: Tab) -> list[str]:
    return list(tab.evaluate("[...document.querySelectorAll('#list li')].map(l => l.textContent)"))


def test_drag_reorders_an_html5_sortable_list(dragging: WebTools) -> None:
    tab = dragging.current_tab()
    out = dragging.run("web_drag", {"ref": ref(tab, "listitem", "Delta"),
                                    "to_ref": ref(tab, "listitem", "Alpha")})
    assert not out.is_error, out.content
    assert _order(tab) == ["Delta", "Alpha", "Bravo", "Charlie"]  # the page saw a real drop
    assert "It is now item 1 of 4" in out.content, out.content
    assert '"Delta", "Alpha", "Bravo", "Charlie"' in out.content


def test_drag_by_offset_moves_a_pointer_events_slider(dragging: WebTools) -> None:
    tab = dragging.current_tab()
    out = dragging.run("web_drag", {"ref": ref(tab, "slider", "Volume"), "dx": 140, "dy": 0})
    assert not out.is_error, out.content
    value = int(tab.evaluate("document.getElementById('thumb').getAttribute('aria-valuenow')"))
    assert 45 <= value <= 55, value  # 140 px of a 280 px track
    assert f'Its value is now "{value}"' in out.content and "moved by +14" in out.content


def test_a_drag_that_changes_nothing_says_so(dragging: WebTools) -> None:
    tab = dragging.current_tab()
    out = dragging.run("web_drag", {"ref": ref(tab, "button", "Pinned note"), "dx": 0,
                                    "dy": 80})
    assert not out.is_error, out.content
    assert "Nothing on the page changed: the drag had no effect." in out.content


def test_drag_arguments_are_checked(dragging: WebTools) -> None:
    tab = dragging.current_tab()
    alpha = ref(tab, "listitem", "Alpha")
    for bad in ({"ref": alpha}, {"ref": alpha, "to_ref": alpha, "dx": 5},
                {"ref": alpha, "dx": 99999, "dy": 0}, {"to_ref": alpha}):
        out = dragging.run("web_drag", bad)
        assert out.is_error and "[invalid_argument]" in out.content, out.content
    stale = dragging.run("web_drag", {"ref": "e999", "dx": 5, "dy": 5})
    assert stale.is_error and "e999" in stale.content


def test_moved_words_is_pure_and_plain() -> None:
    before = {"index": 4, "count": 4, "order": ["A", "B"], "x": 10, "y": 10, "value": None}
    assert moved_words(before, dict(before)) == ""
    assert "moved by +30, +0 px" in moved_words(before, {**before, "x": 40})
    assert moved_words(before, None).startswith("The dragged element was replaced")
    assert 'the order is now "B", "A"' in moved_words(before, {**before, "index": 1,
                                                                  "order": ["B", "A"]})
