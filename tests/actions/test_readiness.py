"""The readiness wait after an action: waits for async updates, never hangs."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from webrefs import Tab

from tests.helpers.actions import opened, ref, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def timing(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/timing.html"))


def out(tab: Tab) -> str:
    return text_of(tab, "out")


def test_click_waits_for_timer_update(timing: Tab) -> None:
    r = timing.click(ref(timing, "button", "Late update"))
    assert out(timing) == "late update"  # never returns before the 300 ms update lands
    assert r.readback["ready"] == "quiet" and r.mutations >= 1


def test_click_waits_for_fetch_update(timing: Tab) -> None:
    r = timing.click(ref(timing, "button", "Fetch"))
    assert out(timing) == "fetched"
    assert r.readback["ready"] == "quiet"


def test_static_click_uses_the_short_window(timing: Tab) -> None:
    r = timing.click(ref(timing, "button", "Nothing"))
    assert r.mutations == 0
    assert r.readback["ready"] == "quiet"
    # the short window applies: the wait did not need the 500 ms quiet window
    assert r.waited_ms < timing.options.quiet_ms + 4000


def test_long_polling_does_not_hang(timing: Tab) -> None:
    timing.configure(max_wait_ms=8000)
    r = timing.click(ref(timing, "button", "Long poll"))
    assert r.readback["ready"] == "quiet"  # the hanging request was given up on, not waited out
    assert out(timing) == "polling"


def test_a_save_slower_than_background_requests_is_waited_for(timing: Tab) -> None:
    """The action's own request (3 s) outlasts the patience given to requests in general:
    the result comes with its answer shown, and says nothing of an unanswered request."""
    timing.configure(max_wait_ms=9000)
    r = timing.click(ref(timing, "button", "Slow save"))
    assert out(timing) == "saved"
    assert r.readback["ready"] == "quiet" and "no reply" not in r.message
    assert "unanswered_requests" not in r.readback


def test_a_request_the_action_sent_that_stays_unanswered_is_named(timing: Tab) -> None:
    """Past its patience the wait ends, and the result says the page may still change."""
    timing.configure(max_wait_ms=9000)
    timing.runner.run(timing.page.evaluate("window.saveMs = 7000"))
    r = timing.click(ref(timing, "button", "Slow save"))
    assert out(timing) == "idle"
    assert r.readback["unanswered_requests"] == 1
    assert "a request the page sent in answer had no reply after 5 s" in r.message
    # the next action does not name it again: it was this click's
    r2 = timing.click(ref(timing, "button", "Nothing"))
    assert "no reply" not in r2.message


def test_page_that_never_goes_quiet_returns_at_max_wait(timing: Tab) -> None:
    timing.configure(max_wait_ms=1500)
    r = timing.click(ref(timing, "button", "Start ticker"))
    assert r.success
    assert r.readback["ready"] == "max_wait"
    assert "kept changing" in r.message


def test_busy_main_thread_does_not_hang(timing: Tab) -> None:
    timing.configure(max_wait_ms=1000, action_timeout_ms=1000)
    started = time.monotonic()
    try:
        r = timing.click(ref(timing, "button", "Busy"))
    except Exception as exc:  # a click whose handler blocks may also time out: both are bounded
        assert "ms" in str(exc)
    else:
        assert r.readback["ready"] in ("busy", "max_wait", "quiet")
    # the call came back while the page's 4 s busy loop may still be running
    assert time.monotonic() - started < 30


def test_css_animation_does_not_hang(timing: Tab) -> None:
    timing.configure(max_wait_ms=3000)
    r = timing.click(ref(timing, "button", "Nothing"))
    assert r.readback["ready"] == "quiet"


def test_zero_max_wait_skips_waiting(timing: Tab) -> None:
    timing.configure(max_wait_ms=0)
    r = timing.click(ref(timing, "button", "Nothing"))
    assert r.readback["ready"] == "no_wait"


def test_navigation_by_click_is_reported(timing: Tab) -> None:
    r = timing.click(ref(timing, "link", "Go to target"))
    assert r.navigated and r.url_after.endswith("/actions/target.html")
    assert r.url_before.endswith("/actions/timing.html")
    assert "Target page" in timing.title


class _Page:
    main_frame = None

    def is_closed(self) -> bool:
        return False


class _Tab:
    page = _Page()


def test_quiet_needs_the_page_to_have_rendered_once_since_the_action() -> None:
    """An observer of the page reports at a rendering update, which may come after the quiet
    window of a static action: the wait goes on until the page says it has rendered."""
    import asyncio
    from typing import Any

    from webrefs.actions.readiness import Readiness

    looks: list[str] = []

    class Watched(Readiness):
        async def poll(self, mode: str, budget_s: float) -> dict[str, Any] | None:
            looks.append(mode)
            painted = len(looks) >= 3
            return {"fresh": False, "mut": 0, "added": 0, "amb": 0, "sinceMut": 200.0,
                    "mutAfter": False, "timers": 0, "slowTimer": False, "opens": 0,
                    "readyState": "complete", "focused": None, "painted": painted}

    r = Watched(_Tab(), quiet_ms=500, max_wait_ms=5000)  # type: ignore[arg-type]
    report = asyncio.run(r.settle())
    assert report.reason == "quiet"
    assert len(looks) == 3  # not before the third look, the first after a rendering update


def test_a_request_the_page_started_counts_before_the_browser_reports_it() -> None:
    """The page's code calling fetch is seen in the page at once; the browser's report of the
    request reaches the waiter later. The page's count keeps the wait going meanwhile."""
    import asyncio
    from typing import Any

    from webrefs.actions.readiness import Readiness

    looks: list[int] = []

    class Watched(Readiness):
        async def poll(self, mode: str, budget_s: float) -> dict[str, Any] | None:
            fetching = 1 if len(looks) < 2 else 0
            looks.append(fetching)
            return {"fresh": False, "mut": 0, "added": 0, "amb": 0, "sinceMut": 900.0,
                    "mutAfter": False, "timers": 0, "slowTimer": False, "opens": 0,
                    "readyState": "complete", "focused": None, "painted": True,
                    "fetching": fetching}

    r = Watched(_Tab(), quiet_ms=100, max_wait_ms=5000)  # type: ignore[arg-type]
    report = asyncio.run(r.settle())
    assert report.reason == "quiet"
    assert looks[:3] == [1, 1, 0]  # it waited while the page's own count said one was running


def test_the_page_side_count_sees_a_fetch_the_action_started(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    opened(tab, site.url("/actions/observed-feed.html"))
    tab.evaluate("() => { window.addEventListener('keydown', () => "
                 "fetch('/__slow?ms=4000').catch(() => {})); }")
    r = tab.press_key("x")
    # the request runs past the patience for requests: the wait ends, the page still counts it
    assert r.readback["ready"] == "quiet"
    started = tab.evaluate("() => window[Symbol.for('webrefs.readiness.v2')].fetchNext")
    assert started == 1


def test_every_field_the_monitor_answers_is_kept_by_the_check() -> None:
    """The monitor's answer is checked field by field (a page may replace JSON.stringify);
    a field the check does not know is dropped, and the wait then never sees it."""
    import re

    from webrefs.actions import readiness

    source = readiness._monitor_js()
    start = source.index("const out = [")
    fields = set(re.findall(r"\['(\w+)',", source[start:source.index("];", start)]))
    assert len(fields) >= 15
    assert fields <= readiness._FLAGS | readiness._NUMBERS | readiness._TEXTS, \
        fields - (readiness._FLAGS | readiness._NUMBERS | readiness._TEXTS)
    sample = {"painted": False, "fetching": 2, "ambAdded": 3, "unanswered": 1, "mut": True,
              "readyState": 4, "other": 1}
    assert readiness._checked_state(sample) == {"painted": False, "fetching": 2, "ambAdded": 3,
                                                "unanswered": 1}


def test_a_page_that_breaks_playwrights_evaluate_is_still_waited_for(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    """A page that replaces the array iterator breaks every Playwright ``evaluate`` in its
    own world (the helper Playwright runs there spreads its arguments). The monitor is polled
    without that helper, so each wait still ends when the page is quiet, not at its bound,
    and a change the action started is waited for."""
    first = tab.goto(site.url("/hostile/iterator.html"))
    with pytest.raises(PlaywrightError):  # the page does break Playwright's way in
        tab.runner.run(tab.core.page.evaluate("1"))
    assert first.readback["ready"] == "quiet", first.message
    r = tab.click(ref(tab, "button", "Save"))
    assert r.readback["ready"] == "quiet", r.message
    assert "saved" in tab.get_text().text and r.mutations >= 1  # read in webrefs' world
