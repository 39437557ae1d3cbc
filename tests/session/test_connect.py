"""Browser configuration beyond launch(): a Playwright server, context options on connect()
and new_context(), adopting a caller's own Playwright objects (and refusing sync-API ones
with the way round), a persistent profile across launches, a proxy that needs credentials."""

from __future__ import annotations

import contextlib
import re
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from webrefs import Browser, IsolationWarning, WebTools
from webrefs.errors import InvalidArgumentError, WebrefsError
from webrefs.safety import SafetyPolicy
from webrefs.session.browsercore import connect_protocol, server_launch_headers
from webrefs.session.launcher import BrowserOptions, chromium_args, find_chromium
from webrefs.tools import DEFAULT_TOOLS

from tests.helpers.cdp import RawDevTools
from tests.helpers.debugged import DebuggedChromium
from tests.helpers.procs import end_group, start_group, wait_until
from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


# -- pure parts ------------------------------------------------------------------------------
def test_the_protocol_is_told_by_the_address() -> None:
    assert connect_protocol("http://127.0.0.1:9222") == "cdp"
    assert connect_protocol("ws://127.0.0.1:9222/devtools/browser/ab-12") == "cdp"
    assert connect_protocol("ws://127.0.0.1:3000/") == "playwright"
    assert connect_protocol("ws://127.0.0.1:3000/", "cdp") == "cdp"
    with pytest.raises(InvalidArgumentError, match="protocol"):
        connect_protocol("ws://x/", "grpc")


def test_a_server_is_asked_for_what_was_given() -> None:
    opts = BrowserOptions(executable_path="/bin/chromium", args=("--x",), headless=True)
    assert server_launch_headers(opts, frozenset()) == {
        "x-playwright-launch-options": '{"headless": true}'}
    given = frozenset({"executable_path", "args"})
    assert server_launch_headers(opts, given) == {
        "x-playwright-launch-options":
            '{"headless": true, "executablePath": "/bin/chromium", "args": ["--x"]}'}


# -- a Playwright server ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def playwright_server() -> Iterator[str]:
    """``playwright run-server`` on loopback (``--unsafe`` lets the client name the binary:
    this machine's Chromium, not a downloaded one)."""
    port = _free_port()
    # ``python -m playwright`` is a wrapper around a node process (which starts the
    # browsers): the whole group is ended, not only the wrapper
    proc = start_group([sys.executable, "-m", "playwright", "run-server", "--port", str(port),
                        "--host", "127.0.0.1", "--unsafe"])
    try:
        _wait_for_port(port)
        yield f"ws://127.0.0.1:{port}/"
    finally:
        end_group(proc)


def test_connect_to_a_playwright_server_with_context_options(
        playwright_server: str, site: SiteServer) -> None:
    b = Browser.connect(playwright_server, executable_path=find_chromium(),
                        args=tuple(chromium_args()), viewport=(800, 600), locale="de-DE")
    try:
        t = b.new_tab(site.url("/basic/one.html"))
        assert t.title == "Page one"
        assert t.evaluate("[innerWidth, navigator.language]") == [800, "de-DE"]
        assert 'title="Page one"' in t.snapshot().text
        other = b.new_context(user_agent="webrefs-test/1", viewport=(640, 480))
        try:
            o = other.new_tab(site.url("/basic/two.html"))
            assert o.evaluate("[navigator.userAgent, innerWidth]") == ["webrefs-test/1", 640]
        finally:
            other.close()
    finally:
        b.close()
    # the server outlives the connection and takes the next one
    again = Browser.connect(playwright_server, executable_path=find_chromium(),
                            args=tuple(chromium_args()))
    try:
        assert again.new_tab(site.url("/basic/two.html")).title == "Page two"
    finally:
        again.close()


def test_new_context_takes_context_options_only(browser: Browser, site: SiteServer) -> None:
    ctx = browser.new_context(locale="fr-FR", viewport=(500, 400),
                              extra_http_headers={"X-Test": "1"})
    try:
        t = ctx.new_tab(site.url("/basic/one.html"))
        assert t.evaluate("[navigator.language, innerWidth]") == ["fr-FR", 500]
    finally:
        ctx.close()
    with pytest.raises(InvalidArgumentError, match="headless"):
        browser.new_context(headless=False)


# -- adopting the caller's Playwright objects ------------------------------------------------
async def test_from_context_and_from_browser_adopt_async_objects(site: SiteServer) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(executable_path=find_chromium(),
                                              args=chromium_args())
        try:
            context = await pw_browser.new_context()
            page = await context.new_page()
            await page.goto(site.url("/basic/one.html"))
            with pytest.warns(IsolationWarning, match="own JavaScript world"):
                b = Browser.from_context(context)
            assert not b.isolated  # no engine can be registered on the caller's Playwright
            assert [await t.atitle() for t in b.tabs] == ["Page one"]
            t2 = await b.anew_tab(site.url("/basic/two.html"))
            assert await t2.atitle() == "Page two" and len(context.pages) == 2
            await b.aclose()
            assert not page.is_closed(), "closing an adopted context closed the user's page"
            b2 = await Browser.afrom_browser(pw_browser)
            assert len(b2.tabs) == 2
            b3 = Browser.from_browser(pw_browser)
            assert len(b3.tabs) == 2
            await b2.aclose()
            await b3.aclose()
        finally:
            await pw_browser.close()


def test_sync_api_objects_are_refused_with_the_way_round(site: SiteServer) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        pw_browser = pw.chromium.launch(executable_path=find_chromium(), args=chromium_args())
        try:
            page = pw_browser.new_page()
            for adopt, obj in ((Browser.wrap, page), (Browser.from_context, page.context),
                               (Browser.from_browser, pw_browser)):
                with pytest.raises(InvalidArgumentError) as info:
                    adopt(obj)
                err = info.value
                assert "sync API" in err.message
                assert err.host_hint and "Browser.connect" in err.host_hint
                assert "remote-debugging-port" in err.host_hint
        finally:
            pw_browser.close()


# -- a persistent profile --------------------------------------------------------------------
def test_a_login_cookie_survives_a_relaunch_with_user_data_dir(
        site: SiteServer, tmp_path: Path) -> None:
    profile = str(tmp_path / "profile")
    with Browser.launch(user_data_dir=profile) as b:
        t = b.new_tab(site.url("/basic/one.html"))
        t.evaluate("document.cookie = 'session=ann; max-age=3600; path=/'")
        t.evaluate("localStorage.setItem('cart', '3')")
    with Browser.launch(user_data_dir=profile) as b:
        t = b.new_tab(site.url("/basic/one.html"))
        assert "session=ann" in t.evaluate("document.cookie")
        assert t.evaluate("localStorage.getItem('cart')") == "3"
    with Browser.launch() as fresh:  # a fresh profile has none of it
        t = fresh.new_tab(site.url("/basic/one.html"))
        assert "session=ann" not in t.evaluate("document.cookie")


# -- a proxy that needs credentials ----------------------------------------------------------
def test_a_proxy_with_credentials(site: SiteServer) -> None:
    with RecordingProxy(ports={site.port}, credentials=("ann", "s3cr:t")) as proxy:
        url = f"http://ann:s3cr%3At@127.0.0.1:{proxy.port}"
        with Browser.launch(proxy=url, args=["--proxy-bypass-list=<-loopback>"]) as b:
            t = b.new_tab(site.url("/basic/one.html"))
            assert t.title == "Page one"
        forwarded = [s for s in proxy.seen if s.forwarded]
        assert forwarded and all(s.port == site.port for s in forwarded)
        assert proxy.refused == []
        assert proxy.challenged >= 1  # the browser was asked, and answered
        before = proxy.challenged
        with Browser.launch(proxy=f"http://127.0.0.1:{proxy.port}",
                            args=["--proxy-bypass-list=<-loopback>"]) as b:
            t = b.new_tab()
            with contextlib.suppress(WebrefsError):  # no credentials: the proxy refuses
                t.goto(site.url("/basic/two.html"))
            assert t.title != "Page two"
        assert proxy.challenged > before


# -- attaching to a browser someone else started ---------------------------------------------
# A headless Chromium the test starts itself with a DevTools port, as a user starts their own
# browser, behind the test's recording proxy. frame.attach.test (a cross-site frame, its own
# renderer process) and forbidden.attach.test are mapped to loopback; the policy allows only
# 127.0.0.1 and the frame's host.
ATTACH_ALIASES = ("frame.attach.test", "forbidden.attach.test")
ATTACH_POLICY = SafetyPolicy(allowed_domains=("127.0.0.1", "frame.attach.test"))
EVERY_TOOL = (*DEFAULT_TOOLS, "web_tabs", "web_hover", "web_screenshot")


@pytest.fixture(scope="module")
def attach_proxy(site: SiteServer) -> Iterator[RecordingProxy]:
    with RecordingProxy({site.port}, aliases=ATTACH_ALIASES) as proxy:
        yield proxy


@pytest.fixture
def own_chrome(tmp_path: Path, attach_proxy: RecordingProxy) -> Iterator[
        Callable[..., DebuggedChromium]]:
    """``own_chrome(*urls)``: a Chromium with a DevTools port showing ``urls`` (ended with
    all its processes after the test)."""
    with contextlib.ExitStack() as stack:
        def start(*urls: str) -> DebuggedChromium:
            profile = tmp_path / f"profile{len(stack._exit_callbacks)}"
            return stack.enter_context(DebuggedChromium(
                profile, urls=list(urls), args=tuple(attach_proxy.chromium_args())))

        yield start


def _ref(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'- {role} "{re.escape(name)}"[^\n]*\[ref=(\w+)\]', snapshot)
    assert found, f"no {role} {name!r} in:\n{snapshot}"
    return found.group(1)


def _ok(tools: WebTools, name: str, args: dict[str, Any] | None = None) -> str:
    out = tools.run(name, args or {})
    assert not out.is_error, f"{name} {args}: {out.content}"
    return out.content


def _forbidden(site: SiteServer, path: str) -> str:
    return f"http://forbidden.attach.test:{site.port}{path}"


def _every_tool_on_the_desk(tools: WebTools, site: SiteServer) -> None:
    """Every tool on the active tab, which shows attach/desk.html, each checked by what it
    did to the page."""
    snap = _ok(tools, "web_snapshot")
    assert 'title="Attached desk"' in snap
    assert "Plain row" not in snap  # no listener yet: not a control
    _ok(tools, "web_fill", {"ref": _ref(snap, "textbox", "Name"), "value": "Ann"})
    _ok(tools, "web_select", {"ref": _ref(snap, "combobox", "Size"), "values": ["Large"]})
    _ok(tools, "web_check", {"ref": _ref(snap, "checkbox", "Gift wrap")})
    _ok(tools, "web_hover", {"ref": _ref(snap, "button", "Show summary")})
    _ok(tools, "web_click", {"ref": _ref(snap, "button", "Show summary")})
    assert "summary: Ann / l / gift" in _ok(tools, "web_get_text")
    _ok(tools, "web_press_key", {"key": "Enter", "ref": _ref(snap, "textbox", "Shortcut")})
    _ok(tools, "web_wait_for", {"text": "pressed Enter"})
    # the frame of another site, in its own renderer process
    _ok(tools, "web_click", {"ref": _ref(snap, "button", "Inner button")})
    assert "inner pressed" in _ok(tools, "web_snapshot", {"interactive_only": False})
    # a click listener the page adds now makes the row a control
    _ok(tools, "web_click", {"ref": _ref(snap, "button", "Arm the row")})
    row = _ref(_ok(tools, "web_snapshot"), "text", "Plain row")
    _ok(tools, "web_click", {"ref": row})
    assert "row pressed" in _ok(tools, "web_get_text")
    assert "Scrolled the page down" in _ok(tools, "web_scroll", {"direction": "down",
                                                                  "amount": 2000})
    _ok(tools, "web_click", {"ref": _ref(snap, "button", "Bottom button")})
    assert "bottom pressed" in _ok(tools, "web_get_text")
    shot = tools.run("web_screenshot", {})
    assert not shot.is_error and "PNG" in shot.content
    assert "basic/two.html" in _ok(tools, "web_click",
                                   {"ref": _ref(snap, "link", "Go to page two")})
    started = time.monotonic()
    back = _ok(tools, "web_go_back")  # the page comes back from the back-forward cache
    assert "Went back to" in back and "attach/desk.html" in back
    assert time.monotonic() - started < 10
    assert 'title="Attached desk"' in _ok(tools, "web_snapshot")
    assert "Opened" in _ok(tools, "web_navigate", {"url": site.url("/basic/one.html")})
    refused = tools.run("web_navigate", {"url": _forbidden(site, "/basic/two.html")})
    assert refused.is_error and "navigation_blocked" in refused.content
    assert "(active)" in _ok(tools, "web_tabs", {"action": "list"})


def _guard_holds(browser: Browser, tools: WebTools, site: SiteServer,
                 proxy: RecordingProxy) -> None:
    """The policy holds on the active tab: a page's fetch and a redirect hop to a forbidden
    host are refused before they leave (the proxy never sees them)."""
    _ok(tools, "web_navigate", {"url": site.url("/basic/one.html")})
    fetched = browser.active_tab.evaluate(
        f"fetch({_forbidden(site, '/basic/two.html?via=fetch')!r})"
        ".then(r => 'sent ' + r.status, e => 'refused')")
    assert fetched == "refused"
    hop = tools.run("web_navigate", {"url": site.url(
        "/__redirect?to=" + _forbidden(site, "/basic/two.html?via=redirect"))})
    assert hop.is_error and "navigation_blocked" in hop.content, hop.content
    assert not [s for s in proxy.seen
                if s.host == "forbidden.attach.test" and "via=" in s.target], proxy.seen


def _not_forged(tools: WebTools, site: SiteServer) -> None:
    """A page that replaced the built-ins a reader leans on neither forges the snapshot nor
    redirects a ref: it is read in webrefs' own world."""
    snap = _ok(tools, "web_snapshot")
    assert "FORGED" not in snap and 'title="Order"' in snap
    _ok(tools, "web_click", {"ref": _ref(snap, "button", "Show details")})
    text = _ok(tools, "web_get_text")
    assert "details shown" in text and "total shown" not in text


def test_every_tool_works_on_tabs_of_an_attached_browsers_own_context(
        own_chrome: Callable[..., DebuggedChromium], site: SiteServer,
        attach_proxy: RecordingProxy) -> None:
    chrome = own_chrome()
    with Browser.connect(chrome.endpoint, safety=ATTACH_POLICY) as browser:
        assert browser.isolated
        tab = browser.new_tab(site.url("/attach/desk.html"))
        # a popup of webrefs' tab is its new active tab
        opened = browser.active_tab.click(
            _ref(tab.snapshot().text, "link", "Open page one aside"))
        assert opened.new_tabs and browser.active_tab.url.endswith("/basic/one.html")
        browser.active_tab.close()
        assert browser.active_tab == tab
        with RawDevTools(chrome.ws_url) as cdp:  # the tab is in the browser's own context
            default = cdp.send("Target.getBrowserContexts")["defaultBrowserContextId"]
            targets = cdp.send("Target.getTargets")["targetInfos"]
        (mine,) = [t for t in targets if t["url"] == tab.url]
        assert mine["browserContextId"] == default
        tools = WebTools(browser, tools=list(EVERY_TOOL), safety=ATTACH_POLICY)
        _every_tool_on_the_desk(tools, site)
        _guard_holds(browser, tools, site, attach_proxy)
        _ok(tools, "web_navigate", {"url": site.url("/hostile/patched.html")})
        _not_forged(tools, site)
    assert chrome.running(), "closing an attached Browser ended the user's browser"


def test_pages_open_before_attaching_are_tabs_and_every_tool_works_on_them(
        own_chrome: Callable[..., DebuggedChromium], site: SiteServer,
        attach_proxy: RecordingProxy) -> None:
    chrome = own_chrome(site.url("/attach/desk.html"), site.url("/hostile/patched.html"))
    assert wait_until(lambda: len(chrome.pages()) == 2, timeout=10)
    with Browser.connect(chrome.endpoint, safety=ATTACH_POLICY) as browser:
        tools = WebTools(browser, tools=list(EVERY_TOOL), safety=ATTACH_POLICY)
        listing = _ok(tools, "web_tabs", {"action": "list"})
        desk = re.search(r"(t\d+)[^\n]*attach/desk\.html", listing)
        patched = re.search(r"(t\d+)[^\n]*hostile/patched\.html", listing)
        assert desk and patched and len(browser.tabs) == 2, listing
        # the page replaced its built-ins before webrefs attached
        _ok(tools, "web_tabs", {"action": "switch", "tab_id": patched.group(1)})
        _not_forged(tools, site)
        _ok(tools, "web_tabs", {"action": "switch", "tab_id": desk.group(1)})
        _every_tool_on_the_desk(tools, site)
        _guard_holds(browser, tools, site, attach_proxy)


def _another_playwright_comes_and_goes(chrome: DebuggedChromium, browser: Browser,
                                       site: SiteServer) -> None:
    """A second Playwright attaches: it reads and fills the page webrefs shows (its own
    utility world in the same frames), opens a page in a context of its own and one in the
    browser's own context, routes that context, and leaves."""
    from playwright.sync_api import sync_playwright

    before = [t.id for t in browser.tabs]
    active = browser.active_tab.id
    with sync_playwright() as pw:
        other = pw.chromium.connect_over_cdp(chrome.endpoint)
        shared = other.contexts[0]
        (desk,) = [p for p in shared.pages if p.url.endswith("/attach/desk.html")]
        assert desk.locator("h1").text_content() == "Attached desk"
        desk.locator("#name").fill("from the other client")
        own = other.new_context().new_page()
        # its own context is not webrefs' to guard: it goes where webrefs' policy would not
        own.goto(_forbidden(site, "/basic/one.html"))
        assert own.title() == "Page one"
        left_open = shared.new_page()
        left_open.goto(site.url("/basic/two.html"))
        shared.route("**/*", lambda route: route.continue_())
        # a page of another context is no tab of webrefs', and a page its tabs did not open
        # does not take the active tab from it
        assert wait_until(lambda: len(browser.tabs) == len(before) + 1, timeout=5)
        time.sleep(0.5)  # time for a wrong adoption to show
        assert [t.id for t in browser.tabs][:-1] == before
        assert browser.tabs[-1].url.endswith("/basic/two.html")
        assert browser.active_tab.id == active
        other.close()


def _a_raw_client_comes_and_goes(chrome: DebuggedChromium) -> None:
    """A bare DevTools client attaches to the page webrefs shows, evaluates there, makes an
    isolated world with the name Playwright gives its own, opens a page in a context of its
    own, switches interception on for the whole browser, and leaves."""
    with RawDevTools(chrome.ws_url) as cdp:
        targets = cdp.send("Target.getTargets")["targetInfos"]
        (desk,) = [t for t in targets if t["url"].endswith("/attach/desk.html")]
        session = cdp.send("Target.attachToTarget",
                           {"targetId": desk["targetId"], "flatten": True})["sessionId"]
        cdp.send("Runtime.enable", session_id=session)
        got = cdp.send("Runtime.evaluate", {"expression": "document.title",
                                            "returnByValue": True}, session_id=session)
        assert got["result"]["value"] == "Attached desk"
        cdp.send("Page.createIsolatedWorld", {"frameId": desk["targetId"],
                                              "worldName": "__playwright_utility_world__"},
                 session_id=session)
        context = cdp.send("Target.createBrowserContext")["browserContextId"]
        cdp.send("Target.createTarget", {"url": "about:blank", "browserContextId": context})
        cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})


def test_every_tool_works_after_other_clients_attached_and_left(
        own_chrome: Callable[..., DebuggedChromium], site: SiteServer,
        attach_proxy: RecordingProxy) -> None:
    chrome = own_chrome(site.url("/attach/desk.html"))
    with Browser.connect(chrome.endpoint, safety=ATTACH_POLICY) as browser:
        tools = WebTools(browser, tools=list(EVERY_TOOL), safety=ATTACH_POLICY)
        assert 'title="Attached desk"' in _ok(tools, "web_snapshot")
        _another_playwright_comes_and_goes(chrome, browser, site)
        _a_raw_client_comes_and_goes(chrome)
        # the tab it had: the policy holds (the last page Playwright reported here was the
        # raw client's, of its own context), and every tool works
        (desk,) = [t for t in browser.tabs if t.url.endswith("/attach/desk.html")]
        assert browser.active_tab == desk
        _guard_holds(browser, tools, site, attach_proxy)
        _ok(tools, "web_navigate", {"url": site.url("/attach/desk.html")})
        _every_tool_on_the_desk(tools, site)
        # and a new tab: the policy holds there, and its pages are read in webrefs' world
        browser.new_tab(site.url("/basic/one.html"))
        _guard_holds(browser, tools, site, attach_proxy)
        _ok(tools, "web_navigate", {"url": site.url("/hostile/patched.html")})
        _not_forged(tools, site)


def test_a_page_open_before_attaching_is_read_in_full_every_time(
        own_chrome: Callable[..., DebuggedChromium], site: SiteServer) -> None:
    """Its document was running before webrefs' page-world script came, so that script may
    have missed what changes the page unseen (a style rule changed through a reference taken
    before): the page never vouches that nothing changed. A page opened after attaching
    does."""
    from tests.helpers.extracting import extract

    url = site.url("/extract/incremental.html")
    chrome = own_chrome(url)
    assert wait_until(lambda: len(chrome.pages()) == 1, timeout=10)
    with Browser.connect(chrome.endpoint, safety=ATTACH_POLICY) as browser:
        old = browser.tabs[0]
        extract(old)
        extract(old)
        assert old.core.refs.unchanged_reads == 0 and not old.core.refs.kept
        new = browser.new_tab(url)
        extract(new)
        extract(new)
        assert new.core.refs.unchanged_reads == 1
