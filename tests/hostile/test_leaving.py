"""Issue 29 item 5 (first bullet): a page that asks to confirm every way out
(tests/sites/hostile/trap.html, a ``beforeunload`` handler) cannot keep the agent. Leaving it
the agent asked for (web_navigate, web_go_back, a link it clicked, closing its tab) happens,
and the result says the page asked and leaving was confirmed; a button whose script navigates
is not a request to leave, so its prompt is answered no and the result says how to leave.

The page's prompt only shows once the page has had a user gesture: each test types into its
field first, as an agent filling a form would.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from webrefs import Browser, WebTools

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser

ASKED = "the page asked to confirm leaving it, and leaving was confirmed"
BOUND_S = 10.0
"""Each way out must take well under this (the trap made web_go_back wait 30 s)."""


@pytest.fixture
def trapped(browser: Browser, site: SiteServer) -> Iterator[tuple[WebTools, dict[str, str]]]:
    """Tools on the trap page (come from hello.html, so there is a way back), its field
    typed into; the refs by name."""
    ctx = browser.new_context()
    tools = WebTools(ctx, tools="all")
    tools.call("web_navigate", {"url": site.url("/hostile/hello.html")})
    tools.call("web_navigate", {"url": site.url("/hostile/trap.html")})
    # a stuck navigation fails in seconds, not the default 30 s
    tools.current_tab().configure(navigation_timeout_ms=6000)
    snap = tools.call("web_snapshot", {}).artifact
    refs = {node.name: ref for ref, node in snap.refs.items()}
    tools.call("web_fill", {"ref": refs["Note"], "value": "half-written"})  # a user gesture
    yield tools, refs
    ctx.close()


def _timed(tools: WebTools, name: str, args: dict[str, object]) -> tuple[str, bool, float]:
    started = time.monotonic()
    out = tools.run(name, args)
    return out.content, out.is_error, time.monotonic() - started


def test_web_navigate_leaves_a_page_that_asks(trapped: tuple[WebTools, dict[str, str]],
                                               site: SiteServer) -> None:
    tools, _ = trapped
    target = site.url("/hostile/one.html")
    text, failed, took = _timed(tools, "web_navigate", {"url": target})
    assert not failed, text
    assert ASKED in text and took < BOUND_S
    assert tools.current_tab().url == target


def test_web_go_back_leaves_a_page_that_asks(trapped: tuple[WebTools, dict[str, str]],
                                             site: SiteServer) -> None:
    tools, _ = trapped
    text, failed, took = _timed(tools, "web_go_back", {})
    assert not failed, text
    assert ASKED in text and took < BOUND_S
    assert tools.current_tab().url == site.url("/hostile/hello.html")


def test_a_clicked_link_leaves_a_page_that_asks(trapped: tuple[WebTools, dict[str, str]],
                                               site: SiteServer) -> None:
    tools, refs = trapped
    text, failed, took = _timed(tools, "web_click", {"ref": refs["Elsewhere"]})
    assert not failed, text
    assert ASKED in text and "navigated to" in text and took < BOUND_S
    assert tools.current_tab().url == site.url("/hostile/hello.html")


def test_closing_the_tab_of_a_page_that_asks(trapped: tuple[WebTools, dict[str, str]],
                                            site: SiteServer) -> None:
    tools, _ = trapped
    trap = tools.current_tab().id
    assert tools.browser is not None
    tools.browser.new_tab(site.url("/hostile/hello.html"))
    text, failed, took = _timed(tools, "web_tabs", {"action": "close", "tab_id": trap})
    assert not failed and f"Closed tab {trap}." in text and took < BOUND_S
    assert trap not in [t.id for t in tools.browser.tabs]


def test_a_script_that_navigates_is_not_asked_to_leave(
        trapped: tuple[WebTools, dict[str, str]], site: SiteServer) -> None:
    tools, refs = trapped
    text, failed, _ = _timed(tools, "web_click", {"ref": refs["Go by script"]})
    assert not failed, text
    assert "answered no, so the tab stayed (web_navigate or web_go_back leave it)" in text
    assert tools.current_tab().url == site.url("/hostile/trap.html")
    # and the way out it names works
    text, failed, _ = _timed(tools, "web_go_back", {})
    assert not failed and ASKED in text


def test_web_reload_leaves_a_page_that_asks(trapped: tuple[WebTools, dict[str, str]],
                                            site: SiteServer) -> None:
    tools, _ = trapped
    text, failed, took = _timed(tools, "web_reload", {})
    assert not failed, text
    assert ASKED in text and took < BOUND_S
    assert tools.current_tab().url == site.url("/hostile/trap.html")
