"""Item 4: a page stuck in ``while(true){}`` or an alert storm never hangs a call, never lets
a raw exception out, and can always be navigated away from or closed within seconds."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from webrefs import Browser, Tab, WebTools
from webrefs.adapters.langchain import WebToolkit
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.errors import ActionTimeoutError, WebrefsError

from tests.helpers.server import SiteServer

T = TypeVar("T")
BOUND_S = 15.0
"""Generous bound for "returns within seconds" on a stuck page."""
TOOLS = ["web_navigate", "web_go_back", "web_snapshot", "web_click", "web_get_text", "web_tabs"]


def bounded(fn: Callable[[], T]) -> T:
    started = time.monotonic()
    value = fn()
    took = time.monotonic() - started
    assert took < BOUND_S, f"took {took:.1f} s"
    return value


def _stuck_tab(browser: Browser, site: SiteServer, page: str) -> Tab:
    tab = browser.new_tab()
    tab.configure(max_wait_ms=1000)
    # opened by Playwright's own goto, which returns at load: these tests start from a tab
    # that is already stuck (webrefs' goto onto a page that locks while it waits is
    # test_a_click_on_a_stuck_page_is_bounded's), and every second of it spins a core
    tab.runner.run(tab.core.page.goto(site.url(f"/hostile/{page}"), wait_until="load"))
    time.sleep(0.3)  # the page locks its main thread 100 ms after load
    return tab


@pytest.fixture(params=["spin.html", "alerts.html"])
def stuck(request: pytest.FixtureRequest, browser: Browser, site: SiteServer) -> Iterator[Tab]:
    before = len(browser.tabs)
    tab = _stuck_tab(browser, site, request.param)
    yield tab
    for t in browser.tabs[before:]:
        t.close()


def test_reading_a_stuck_page_returns_a_typed_error(stuck: Tab) -> None:
    tools = WebTools(tab=stuck, include=TOOLS[1:5])
    out = bounded(lambda: tools.run("web_get_text", {}))
    assert out.is_error and isinstance(out.artifact, WebrefsError)
    snap = bounded(lambda: tools.run("web_snapshot", {}))
    assert snap.is_error and "not responding" in snap.content


def test_adapters_report_a_stuck_page_as_a_tool_message(stuck: Tab) -> None:
    lc = {t.name: t for t in WebToolkit.from_tab(stuck).get_tools()}
    message = bounded(lambda: lc["web_get_text"].invoke({}))
    assert isinstance(message, str) and "web_get_text failed" in message
    li = {t.metadata.get_name(): t for t in WebToolSpec.from_tab(stuck).to_tool_list()}
    output: Any = bounded(lambda: li["web_get_text"].call())
    assert output.is_error and "web_get_text failed" in output.content


def test_title_tabs_and_prompt_are_bounded(stuck: Tab, browser: Browser) -> None:
    browser.switch_tab(stuck)
    try:
        title = bounded(lambda: stuck.title)
    except ActionTimeoutError:
        pass
    else:  # a page blocked in an alert may still give its title (or none) at once
        assert title in ("Stuck page", "Alert storm", "")
    tools = WebTools(browser, include=TOOLS)
    listing = bounded(lambda: tools.run("web_tabs", {}))
    assert not listing.is_error and stuck.id in listing.content
    prompt = bounded(lambda: tools.system_prompt())
    assert f"Active tab {stuck.id}" in prompt


def test_a_stuck_tab_can_be_navigated_away_from(stuck: Tab, browser: Browser,
                                                site: SiteServer) -> None:
    browser.switch_tab(stuck)
    tools = WebTools(browser, include=TOOLS)
    out = bounded(lambda: tools.run("web_navigate", {"url": site.url("/basic/one.html")}))
    assert not out.is_error, out.content
    assert "fresh page" in out.content
    assert "Page one" in bounded(lambda: tools.run("web_get_text", {})).content


def test_going_back_from_a_stuck_tab_is_a_typed_error(stuck: Tab) -> None:
    tools = WebTools(tab=stuck, include=TOOLS[:5])
    out = bounded(lambda: tools.run("web_go_back", {}))
    assert out.is_error and "not responding" in out.content


def test_a_stuck_tab_can_be_closed(stuck: Tab, browser: Browser) -> None:
    tools = WebTools(browser, include=TOOLS)
    out = bounded(lambda: tools.run("web_tabs", {"action": "close", "tab_id": stuck.id}))
    assert not out.is_error and f"Closed tab {stuck.id}" in out.content
    assert stuck.closed


def test_a_click_on_a_stuck_page_is_bounded(browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.configure(max_wait_ms=1000)
        tab.goto(site.url("/hostile/spin.html"))
        tab.snapshot()  # may beat the loop (100 ms after load) or not
    except WebrefsError:
        pass
    time.sleep(0.5)
    try:
        with pytest.raises(WebrefsError):
            bounded(lambda: tab.click("e1"))
    finally:
        tab.close()


def test_a_stuck_frame_of_another_site_costs_one_frame_bound(
        browser: Browser, site: SiteServer) -> None:
    # The frame (another site: a renderer of its own) locks up; the frame nested in it waits
    # for its read, which times out. The snapshot still comes back with the page, once the
    # frame's bound (and its nested frame's key lookup) has run out, and says what was lost.
    tab = browser.new_tab()
    try:
        child = f"http://a.hostile.test:{site.port}/hostile/spin-framed.html"
        tab.goto(site.url("/extract/cross.html#" + child))
        deadline = time.monotonic() + 10
        while not any(f.url == child for f in tab.page.frames):
            assert time.monotonic() < deadline, "the frame did not load"
            time.sleep(0.05)
        time.sleep(0.5)  # it locks 100 ms after load
        snap = bounded(lambda: tab.snapshot(interactive_only=False))
        assert "Host button" in snap.text
        assert "Spinning frame button" not in snap.text and "Nested button" not in snap.text
        assert snap.source is not None
        assert any(f.url == child and f.error for f in snap.source.tree.frames)
    finally:
        tab.close()
