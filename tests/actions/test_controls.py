"""Clicks on nested and script-bound controls, a click on a line that is not a control, and
web_fill on sliders and spinbuttons (issue 17), on tests/sites/extract/icons.html."""

from __future__ import annotations

import pytest
from webrefs import Tab
from webrefs.errors import InvalidArgumentError, NotActionableError

from tests.helpers.actions import js, opened, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def page(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/extract/icons.html"))


def line_ref(tab: Tab, piece: str, *, nth: int = 0) -> str:
    """The ref on the nth line of the latest snapshot that contains ``piece``."""
    snap = tab.last_snapshot or tab.snapshot()
    hits = [ln for ln in snap.text.splitlines() if piece in ln and "[ref=" in ln]
    assert len(hits) > nth, f"no line with {piece!r}:\n{snap.text}"
    return hits[nth].rsplit("[ref=", 1)[1].split("]")[0]


def test_click_on_an_icon_in_a_clickable_row_hits_the_icon(page: Tab) -> None:
    page.click(line_ref(page, '[hint="trash"]', nth=1))
    assert text_of(page, "log") == "trash trash2"
    page.click(line_ref(page, '"Alice Lunch on Friday"'))
    assert text_of(page, "log") == "open row1"


def test_sibling_controls_each_take_their_click(page: Tab) -> None:
    page.click(line_ref(page, 'text "Forward"'))
    assert text_of(page, "log") == "forward"
    page.click(line_ref(page, 'text "Reply"'))
    assert text_of(page, "log") == "reply"


def test_click_on_a_suggestion_item(page: Tab) -> None:
    page.click(line_ref(page, 'listitem "Banana"'))
    assert js(page, "() => document.getElementById('fruit').value") == "Banana"


def test_click_on_a_line_that_is_not_a_control_is_an_error(page: Tab) -> None:
    page.snapshot(interactive_only=False)
    with pytest.raises(NotActionableError) as err:
        page.click(line_ref(page, 'paragraph "Plain words"'))
    assert err.value.reason == "not_a_control"
    assert "not a control" in str(err.value) and err.value.result is not None
    assert err.value.result.success is False
    # content whose click the page does handle (a listener higher up) is no error
    r = page.click(line_ref(page, 'paragraph "Delegated text"'))
    assert r.success and text_of(page, "log") == "delegated"


def test_fill_sets_a_range_input(page: Tab) -> None:
    r = page.fill(line_ref(page, 'slider "Volume"'), "35")
    assert r.success and r.readback["value"] == "35"
    assert js(page, "() => document.getElementById('volume').value") == "35"
    assert 'slider "Volume" [value="35"] [min=0] [max=50]' in page.snapshot().text


def test_fill_moves_an_aria_slider_and_spinbutton_with_keys(page: Tab) -> None:
    r = page.fill(line_ref(page, '[hint="Rating"]'), "5")
    assert r.success and r.readback["value"] == "5"
    assert js(page, "() => document.getElementById('rating').getAttribute('aria-valuenow')") \
        == "5"
    page.fill(line_ref(page, 'spinbutton "Guests"'), "0")
    assert text_of(page, "guests") == "0"
    over = page.fill(line_ref(page, 'spinbutton "Guests"'), "12")
    assert over.success and over.readback["value"] == "9" and "closest" in over.message


def test_fill_on_a_slider_takes_a_number(page: Tab) -> None:
    with pytest.raises(InvalidArgumentError):
        page.fill(line_ref(page, 'slider "Volume"'), "loud")
