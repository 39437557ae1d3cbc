"""scroll (page, element, infinite feed), get_text (element, main content, hidden text,
truncation) and wait_for."""

from __future__ import annotations

import pytest
from webrefs import Tab
from webrefs.actions.text import TRUNCATION_MARK
from webrefs.errors import ActionTimeoutError, InvalidArgumentError, NotActionableError

from tests.helpers.actions import js, opened, ref

pytestmark = pytest.mark.browser


@pytest.fixture
def scrolling(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/scroll.html"))


def test_scroll_page_by_pixels_and_screens(scrolling: Tab) -> None:
    r = scrolling.scroll("down", 200)
    assert r.readback["y"] == 200 and r.readback["moved_px"] == 200
    r = scrolling.scroll("up", "1 screen")
    assert r.readback["y"] == 0
    r = scrolling.scroll("up")
    assert r.readback["moved_px"] == 0 and "already at the start" in r.message


def test_scroll_element(scrolling: Tab) -> None:
    box = ref(scrolling, "button", "Inside box")  # scrolls its scrollable container
    r = scrolling.scroll("down", 50, target=box)
    assert r.readback["y"] == 50
    assert js(scrolling, "() => document.getElementById('box').scrollTop") == 50
    assert js(scrolling, "() => scrollY") == 0
    r = scrolling.scroll("down", "end", target=box)
    assert r.readback["at_end"] is True


def test_scroll_element_sideways(scrolling: Tab) -> None:
    wide = ref(scrolling, "button", "Wide inside")
    r = scrolling.scroll("right", 120, target=wide)
    assert r.readback["x"] == 120
    assert js(scrolling, "() => document.getElementById('wide').scrollLeft") == 120
    r = scrolling.scroll("left", "1 screen", target=wide)
    assert r.readback["x"] == 0 and r.readback["at_end"] is True


def test_infinite_scroll_counts_new_items(scrolling: Tab) -> None:
    r = scrolling.scroll("down", "end")
    assert r.readback["content_grew"] is True
    assert r.readback["new_items"] == 10
    assert "New content appeared (the page grew by " in r.message


def test_scroll_bad_arguments(scrolling: Tab) -> None:
    for direction, amount in (("sideways", None), ("down", -5), ("down", "lots"), ("up", True)):
        with pytest.raises(InvalidArgumentError):
            scrolling.scroll(direction, amount)  # type: ignore[arg-type]


def test_scroll_target_that_cannot_scroll(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/target.html"))
    with pytest.raises(NotActionableError) as info:
        tab.scroll("down", 100, target=ref(tab, "link", "Back"))
    assert info.value.reason == "not_scrollable"


@pytest.fixture
def reading(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/text.html"))


def test_get_text_main_content_excludes_hidden_text(reading: Tab) -> None:
    t = reading.get_text(max_length=100_000)
    assert t.source == "main"
    assert "First paragraph of the story." in t.text and "Second paragraph" in t.text
    assert "HIDDEN" not in t.text
    assert "Footer links" not in t.text and "About" not in t.text
    assert t.text.index("First") < t.text.index("Second")
    assert not t.truncated and t.total_length == len(t.text)


def test_get_text_truncates_with_marker(reading: Tab) -> None:
    t = reading.get_text(max_length=200)
    assert t.truncated and t.total_length > 5000
    assert t.text.endswith(TRUNCATION_MARK.format(shown=len(t.text.split("\n[")[0]),
                                                  total=t.total_length))
    with pytest.raises(InvalidArgumentError):
        reading.get_text(max_length=0)


def test_get_text_of_element(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/hazards.html"))
    t = tab.get_text(ref(tab, "button", "Victim"))
    assert t.text == "Victim" and t.source == "element" and t.ref is not None


def test_wait_for_text_and_timeout(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/timing.html"))
    js(tab, "() => setTimeout(() => {"
            " document.getElementById('out').textContent = 'Ready now'; }, 300)")
    r = tab.wait_for(text="ready NOW", timeout_ms=5000)
    assert r.readback["found"] is True
    with pytest.raises(ActionTimeoutError):
        tab.wait_for(text="never there", timeout_ms=300)
    # 0 is clamped to a minimum, never "forever"
    r = tab.wait_for(target=ref(tab, "button", "Nothing"), timeout_ms=0)
    assert r.success


def test_a_feed_that_loads_when_its_end_is_seen_is_waited_for(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    # the page learns that its end came into view at the next rendering update after the
    # scroll (an IntersectionObserver), then fetches: every scroll waits for that answer
    opened(tab, site.url("/actions/observed-feed.html"))
    for _ in range(3):
        r = tab.scroll("down", "end")
        assert r.readback["new_items"] == 10, r.message


def test_a_feed_whose_first_items_load_as_it_opens_counts_every_item_a_scroll_loads(
        tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    # the page grows its list once on its own right before the scroll (its first page of
    # items arriving): one growth is no rhythm, so the items the scroll loads are all its own
    opened(tab, site.url("/actions/observed-feed.html"))
    tab.evaluate("() => add(10)")
    r = tab.scroll("down", "end")
    assert r.readback["new_items"] == 10, r.message
