"""Browser configuration beyond launch(): a Playwright server, context options on connect()
and new_context(), adopting a caller's own Playwright objects (and refusing sync-API ones
with the way round), a persistent profile across launches, a proxy that needs credentials."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from webrefs import Browser
from webrefs.errors import InvalidArgumentError, WebrefsError
from webrefs.session.browsercore import connect_protocol, server_launch_headers
from webrefs.session.launcher import BrowserOptions, chromium_args, find_chromium

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
    proc = subprocess.Popen(
        [sys.executable, "-m", "playwright", "run-server", "--port", str(port),
         "--host", "127.0.0.1", "--unsafe"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port)
        yield f"ws://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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
            b = Browser.from_context(context)
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
