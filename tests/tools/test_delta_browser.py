"""Deltas with refs on a real page: after_action="diff" sends the whole page after a
navigation and, on the same page, only what changed since the outline the model last saw
(each change with its ref under the line holding it, removed refs named, the rest counted);
web_snapshot changes_only gives the same view on request."""

from __future__ import annotations

import re

import pytest
from webrefs import Browser
from webrefs.evals.baselines.scripted import find_ref
from webrefs.tools import WebTools

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser

_FENCE = re.compile(r"^<<<.*>>>$")


def _body(out: str, head: str) -> list[str]:
    """The lines after ``head`` (a diff or snapshot header prefix), fence lines left out."""
    lines = [ln for ln in out.split("\n") if not _FENCE.match(ln)]
    start = next(i for i, ln in enumerate(lines) if ln.startswith(head))
    return lines[start:]


def test_a_change_on_the_page_gives_its_changes_with_refs(
        browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/render/delta.html"))
        tools = WebTools(tab=tab, after_action="diff")
        first = tools.call("web_snapshot").content
        name = find_ref(first, ["textbox"], "Name")
        add = find_ref(first, ["button"], "Add member")
        ada = find_ref(first, ["button"], "Remove Ada")
        grace = find_ref(first, ["button"], "Remove Grace")
        assert name and add and ada and grace

        tools.call("web_fill", {"ref": name, "value": "Hopper"})
        out = tools.call("web_click", {"ref": add}).content
        assert "Changes since the last snapshot:" in out and "Page now:" not in out, out
        diff = _body(out, "[diff] ")
        assert "navigated" not in diff[0]
        # the button renamed (the focus it took is not a change: the result says it)
        assert "changed=1 added=1 removed=1" in diff[0], out
        # the added button with its ref (the unnamed list holding it is no context line)
        added = next(i for i, ln in enumerate(diff) if '+ button "Remove Hopper"' in ln)
        assert re.search(r"\[ref=e\d+\]$", diff[added]), out
        assert diff[added].startswith("+ ") and diff[added - 1] != "in list:", out
        # the renamed button keeps its ref; the removed one is named by its ref
        assert any(ln.lstrip().startswith('~ button "Add another member"')
                   and f"[ref={add}]" in ln
                   for ln in diff), out
        assert f"- removed: {ada}" in diff, out
        assert not any(grace in ln for ln in diff), out  # unchanged: not listed
        unchanged = diff[-1]
        assert re.fullmatch(r"unchanged: \d+ other elements", unchanged), out
        assert int(unchanged.split()[1]) >= 8
    finally:
        tab.close()


def test_a_navigation_gives_the_whole_new_page(browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/render/delta.html"))
        tools = WebTools(tab=tab, after_action="diff")
        products = find_ref(tools.call("web_snapshot").content, ["link"], "Products")
        assert products
        out = tools.call("web_click", {"ref": products}).content
        assert "Page now:" in out and "[diff]" not in out, out  # a new document: whole page
        page = _body(out, "[snapshot] ")
        # the summary names the new address, so the page's header does not repeat it
        assert "navigated to " in out and "products.html" in out.split("\n")[0], out
        assert page[0].startswith("[snapshot] title=") and "url=" not in page[0], out
        assert "Changes since" not in out
    finally:
        tab.close()


def test_web_snapshot_changes_only(browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/render/delta.html"))
        tools = WebTools(tab=tab)  # after_action="none": the model sees only what it asks for
        out = tools.call("web_snapshot", {"changes_only": True}).content
        assert out.startswith("No earlier snapshot of this page to compare with")
        assert "[snapshot] url=" in out and "[diff]" not in out
        add = find_ref(out, ["button"], "Add member")
        assert add
        tools.call("web_click", {"ref": add})
        out = tools.call("web_snapshot", {"changes_only": True}).content
        assert out.startswith("Changes since your last snapshot of this page:"), out
        diff = _body(out, "[diff] ")
        assert "changed=1 added=1 removed=1" in diff[0], out
        assert any('+ button "Remove Nobody"' in ln for ln in diff), out
        out = tools.call("web_snapshot", {"changes_only": True}).content
        assert _body(out, "[diff] ")[1:] == ["(no change)"], out
        # another document: no earlier snapshot of it, so the whole page
        tab.goto(site.url("/render/products.html"))
        out = tools.call("web_snapshot", {"changes_only": True}).content
        assert out.startswith("No earlier snapshot of this page"), out
    finally:
        tab.close()


def test_a_change_longer_than_the_page_gives_the_page(browser: Browser,
                                                       site: SiteServer) -> None:
    """Everything on the page drawn anew (same document): listing every element as added
    and every old ref as removed would cost more than the page, so the page is sent."""
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/render/delta-swap.html"))
        tools = WebTools(tab=tab, after_action="diff")
        swap = find_ref(tools.call("web_snapshot").content, ["button"], "Show departures")
        assert swap
        out = tools.call("web_click", {"ref": swap}).content
        assert "Page now:" in out and "Changes since" not in out, out
        page = _body(out, "[snapshot] ")
        assert any('button "Board Norma at gate 17"' in ln for ln in page), out
        assert not any("Aurora" in ln for ln in page), out
    finally:
        tab.close()
