"""Items 1 and 2: a page cannot forge the snapshot, redirect a ref or break the reader by
replacing built-ins, because webrefs' page-side code runs in its own JavaScript world.

Pages read in the page's own world (``Browser.wrap`` of a user's page, where no isolated world
can be set up) still cannot make a child frame name another frame's refs: each frame's output
is checked against the refs that frame may give.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from webrefs import Browser, Tab, WebTools
from webrefs.snapshot.extract import _foreign_ref

from tests.helpers.server import SiteServer

TOOLS = ["web_navigate", "web_snapshot", "web_click", "web_get_text", "web_scroll"]


@pytest.fixture
def tools(browser: Browser) -> Iterator[WebTools]:
    tab = browser.new_tab()
    yield WebTools(browser, include=TOOLS)
    if not tab.closed:
        tab.close()


def _ref(snapshot: str, role: str, name: str) -> str:
    m = re.search(rf'- {role} "{re.escape(name)}" \[ref=(\w+)\]', snapshot)
    assert m, f"no {role} {name!r} in:\n{snapshot}"
    return m.group(1)


def test_replaced_builtins_neither_forge_the_snapshot_nor_break_refs(
        tools: WebTools, site: SiteServer) -> None:
    tools.call("web_navigate", {"url": site.url("/hostile/patched.html")})
    snap = tools.call("web_snapshot", {}).content
    assert "FORGED" not in snap and "Forged" not in snap and 'title="Order"' in snap
    total, details = _ref(snap, "button", "Show total"), _ref(snap, "button", "Show details")
    assert total != details
    out = tools.run("web_click", {"ref": details})
    assert not out.is_error, out.content
    text = tools.call("web_get_text", {}).content
    assert "details shown" in text and "total shown" not in text


def test_scroll_reads_true_positions_on_a_page_that_replaced_builtins(
        tools: WebTools, site: SiteServer) -> None:
    tools.call("web_navigate", {"url": site.url("/hostile/patched.html")})
    page = tools.run("web_scroll", {"direction": "down"})
    assert not page.is_error, page.content
    assert "Scrolled the page down" in page.content
    snap = tools.call("web_snapshot", {"interactive_only": False}).content
    late = _ref(snap, "button", "Late button")
    boxed = tools.run("web_scroll", {"direction": "down", "ref": late})
    assert not boxed.is_error, boxed.content
    assert "<div>" in boxed.content and "Scrolled" in boxed.content


def test_a_cross_site_frame_cannot_rename_its_button_into_a_top_page_ref(
        tools: WebTools, site: SiteServer, other_site: SiteServer) -> None:
    url = site.url("/hostile/checkout.html") + f"#b.hostile.test:{other_site.port}"
    tools.call("web_navigate", {"url": url})
    snap = tools.call("web_snapshot", {"interactive_only": False}).content
    top = _ref(snap, "button", "Continue")
    assert "Cancel order" not in snap  # the ad's rewrite never reaches the model
    close = _ref(snap, "button", "Close ad")
    assert close.startswith("f") and close != top
    tools.call("web_click", {"ref": close})
    assert "open" in tools.call("web_get_text", {}).content  # the top page was not pressed


async def test_in_the_pages_own_world_a_frame_naming_a_top_page_ref_is_refused(
        site: SiteServer, other_site: SiteServer) -> None:
    """A wrapped page is read in its own world, so the ad's rewrite does run: its output,
    naming ref e1 of the top page, is refused and the frame is reported unreadable (to the
    host; the model sees no line of it)."""
    from playwright.async_api import async_playwright
    from webrefs.session.launcher import chromium_args, find_chromium

    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_args())
        try:
            page = await pw_browser.new_page()
            url = site.url("/hostile/checkout.html") + f"#127.0.0.1:{other_site.port}"
            await page.goto(url)
            await page.frame_locator("#ad").locator("#close").wait_for()
            b = Browser.wrap(page)
            assert not b.active_tab.core.refs.world.isolated
            tools = WebTools(b, include=TOOLS)
            snap = (await tools.arun("web_snapshot", {"interactive_only": False})).content
            assert "Cancel order" not in snap
            tree = await b.active_tab.aread_tree()
            assert [f.error for f in tree.frames] == [
                "unreadable output: The output names ref 'e1', which is not this frame's to give."]
            out = await tools.arun("web_click", {"ref": _ref(snap, "button", "Continue")})
            assert not out.is_error, out.content
            assert "continued" in (await tools.arun("web_get_text", {})).content
            await b.aclose()
        finally:
            await pw_browser.close()


async def test_a_page_that_replaced_json_stringify_in_its_own_world_breaks_no_action(
        site: SiteServer) -> None:
    """The readiness monitor runs in the page's world; where the page replaced
    ``JSON.stringify`` before webrefs could keep the original (a wrapped page, a page open
    before webrefs attached), it answers what the page likes, and the action still works."""
    from playwright.async_api import async_playwright
    from webrefs.session.launcher import chromium_args, find_chromium

    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_args())
        try:
            page = await pw_browser.new_page()
            await page.goto(site.url("/hostile/late-patch.html"))
            b = Browser.wrap(page)
            tools = WebTools(b, include=TOOLS)
            snap = (await tools.arun("web_snapshot", {})).content
            # the button keeps the focus after the click: the monitor names it, quoted with
            # the page's JSON.stringify
            out = await tools.arun("web_click", {"ref": _ref(snap, "button", "Patch now")})
            assert not out.is_error, out.content
            assert await page.text_content("#state") == "patched"
            await b.aclose()
        finally:
            await pw_browser.close()


@pytest.mark.parametrize(("data", "prefix", "start", "bad"), [
    ({"nextRef": 3, "root": {"ref": "f1e1", "children": [{"ref": "f1e2"}]}}, "f1", 1, None),
    ({"nextRef": 3, "root": {"children": [{"ref": "e1"}]}}, "f1", 1, "e1"),  # a top-page ref
    ({"nextRef": 3, "root": {"children": [{"ref": "f2e1"}]}}, "f1", 1, "f2e1"),  # a sibling's
    ({"nextRef": 3, "root": {"children": [{"ref": "f1e7"}]}}, "f1", 1, "f1e7"),  # past its count
    ({"nextRef": 3, "root": {"children": [{"ref": "f1e01"}]}}, "f1", 1, "f1e01"),
    ({"nextRef": 3, "root": {"children": [{"ref": "f12e1"}]}}, "f1", 1, "f12e1"),
    ({"nextRef": 3, "root": {}, "focusedRef": "e2"}, "f1", 1, "e2"),
    ({"nextRef": 3, "root": {"children": [{"ref": "f1e1"}]}}, "", 1, "f1e1"),  # main: no prefix
    ({"nextRef": 0, "root": {}}, "", 5, "nextRef=0"),  # a counter running backwards
    ({"nextRef": True, "root": {}}, "", 1, "nextRef=True"),
])
def test_foreign_refs_in_a_frames_output_are_found(
        data: dict[str, object], prefix: str, start: int, bad: str | None) -> None:
    assert _foreign_ref(data, prefix, start) == bad


def test_a_click_handler_set_from_script_is_seen_from_webrefs_world(
        tools: WebTools, site: SiteServer) -> None:
    """``el.onclick = fn`` set by the page reads as a non-function object from another world;
    the extractor must still count it as a click handler."""
    tools.call("web_navigate", {"url": site.url("/hostile/patched.html")})
    tools.call("web_navigate", {"url": site.url("/hostile/scripted-click.html")})
    snap = tools.call("web_snapshot", {}).content
    ref = _ref(snap, "text", "Open the drawer")
    tools.call("web_click", {"ref": ref})
    assert "drawer open" in tools.call("web_get_text", {}).content


def test_the_safety_rules_read_the_page_text_a_page_hides_from_its_own_world(
        browser: Browser, site: SiteServer) -> None:
    """The page text the sensitive-action rules read comes from webrefs' world, so replacing
    ``innerText`` in the page's world does not hide a warning from them."""
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/hostile/masked-warning.html"))
        ref = next(r for r, n in tab.snapshot().refs.items() if n.name == "OK")
        result = tab.click(ref)
        assert result.safety is not None
        assert any("irreversible" in reason for reason in result.safety.reasons), result.safety
    finally:
        tab.close()


def test_a_page_that_replaced_builtins_is_seen_to_settle(tab: Tab, site: SiteServer) -> None:
    """The readiness monitor runs in the page's world (it must see the page's timers). Its
    answer is one string written by hand, so a page that replaces ``Object.keys`` (which
    Playwright's serializer uses on an object) or ``JSON.stringify`` cannot make every action
    wait out the whole wait limit."""
    tab.configure(max_wait_ms=3000)
    opened = tab.goto(site.url("/hostile/patched.html"))
    assert "wait limit" not in opened.message, opened.message
    ref = next(r for r, n in tab.snapshot().refs.items() if n.name == "Show details")
    clicked = tab.click(ref)
    assert clicked.success and "wait limit" not in clicked.message, clicked.message
    assert clicked.mutations > 0  # the monitor's counts are read, not lost


def _node(ref: str | None, *kids: dict[str, object]) -> dict[str, object]:
    return {"tag": "div", **({"ref": ref} if ref else {}), "children": list(kids)}


@pytest.mark.parametrize(("root", "focused", "end", "prefix", "start", "bad"), [
    (_node(None, _node("f1e1"), _node("f1e2")), None, 3, "f1", 1, None),
    (_node(None, _node("e1")), None, 3, "f1", 1, "e1"),
    (_node(None, _node(None, _node("f2e1"))), None, 3, "f1", 1, "f2e1"),
    (_node(None, _node("f1e7")), None, 3, "f1", 1, "f1e7"),
    (_node(None, _node("f1e01")), None, 3, "f1", 1, "f1e01"),
    (_node(None), "e2", 3, "f1", 1, "e2"),
    (_node("e4"), None, 5, "", 5, None),  # below this read's start is fine: an older ref
    (_node(None), None, 0, "", 5, "nextRef=0"),
    (_node(None), None, 5 + 1_000_001, "", 5, "nextRef=1000006"),
])
def test_foreign_refs_in_a_frames_tree_are_found_as_in_its_json(
        root: dict[str, object], focused: str | None, end: int, prefix: str, start: int,
        bad: str | None) -> None:
    """The quick path (a page with one frame, read straight into a tree) checks refs on the
    tree; it must find exactly what the check on the raw output finds."""
    from webrefs.models import PageTree
    from webrefs.snapshot.extract import _foreign_ref_in
    from webrefs.snapshot.script import QuickRead

    data = {"nextRef": end, "root": root, "focusedRef": focused}
    tree = PageTree.model_validate({"root": root, "focusedRef": focused})
    assert _foreign_ref(data, prefix, start) == bad
    assert _foreign_ref_in(QuickRead(tree, end, False), prefix, start) == bad
    # (a read that replaced parts of a kept one: its new subtrees are what is checked)
    assert _foreign_ref_in(QuickRead(tree, end, False, fresh=[tree.root]), prefix, start) == bad
