"""Item 3: a ref belongs to the tab that produced it; a click that closes its own tab says so;
an active-tab switch is always reported to the model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from webrefs import Browser, WebTools
from webrefs.errors import WrongTabError

from tests.helpers.server import SiteServer

TOOLS = ["web_navigate", "web_snapshot", "web_click", "web_get_text", "web_tabs"]


def _close_extra_tabs(browser: Browser, keep: int) -> None:
    for t in browser.tabs[keep:]:
        t.close()


@pytest.fixture
def tools(browser: Browser) -> Iterator[WebTools]:
    before = len(browser.tabs)
    browser.new_tab()
    yield WebTools(browser, include=TOOLS)
    _close_extra_tabs(browser, before)


def _open_popup_and_approve(tools: WebTools, site: SiteServer) -> tuple[str, str]:
    """Opener -> snapshot -> popup -> snapshot -> Approve (the popup closes itself)."""
    tools.call("web_navigate", {"url": site.url("/hostile/opener.html")})
    opener = tools.call("web_snapshot", {}).content
    assert 'button "Delete account" [ref=e2]' in opener
    opened = tools.call("web_click", {"ref": "e1"}).content
    popup = tools.call("web_snapshot", {}).content
    assert 'button "Approve" [ref=e2]' in popup
    return opened, tools.call("web_click", {"ref": "e2"}).content


def test_ref_of_a_closed_popup_is_not_used_on_the_opener(tools: WebTools,
                                                          site: SiteServer) -> None:
    _open_popup_and_approve(tools, site)
    out = tools.run("web_click", {"ref": "e2"})  # e2 is "Delete account" on the opener
    assert out.is_error
    assert isinstance(out.artifact, WrongTabError)
    assert "[wrong_tab]" in out.content
    popup_id = out.artifact.ref_tab
    assert popup_id is not None and popup_id in out.content
    assert "closed" in out.content and "web_snapshot" in out.content
    text = tools.call("web_get_text", {}).content
    assert "Account active" in text and "Account deleted" not in text


def test_a_click_that_closes_its_own_tab_says_so_and_the_switch_is_reported(
        tools: WebTools, site: SiteServer) -> None:
    opened, approved = _open_popup_and_approve(tools, site)
    # the popup opening moved the tools to it: reported
    assert "active tab changed" in opened
    assert "closed its own tab" in approved
    assert "the tools now act on tab" in approved and "opener.html" in approved


def test_after_a_snapshot_of_the_new_tab_its_refs_work(tools: WebTools,
                                                       site: SiteServer) -> None:
    _open_popup_and_approve(tools, site)
    tools.call("web_snapshot", {})
    out = tools.call("web_click", {"ref": "e1"})  # "Review request" on the opener
    assert "Review request" in out.content
    tools.call("web_snapshot", {})  # the new popup
    assert "Approve" in tools.call("web_get_text", {}).content


def test_a_ref_after_switching_tabs_names_both_tabs(tools: WebTools, browser: Browser,
                                                    site: SiteServer) -> None:
    tools.call("web_navigate", {"url": site.url("/hostile/opener.html")})
    first = tools.current_tab().id
    tools.call("web_snapshot", {})
    second = browser.new_tab(site.url("/hostile/approve.html"))
    out = tools.run("web_click", {"ref": "e2"})
    assert isinstance(out.artifact, WrongTabError)
    assert f"tab {first}" in out.content and f"tab {second.id}" in out.content
    assert "web_tabs" in out.content  # the first tab is still open: switching back is offered
    assert second.title == "Approve request"  # nothing was clicked there
    assert "waiting" in tools.call("web_get_text", {}).content
