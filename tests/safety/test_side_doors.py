"""Side doors around the network policy. Workers of every kind (dedicated, shared, nested,
module, ``blob:`` and ``data:`` ones, a frame's, one made with a fresh frame's constructor, one
served as text/plain, a module worker whose ``data:`` import runs first) opening a WebSocket
or a WebTransport session, fetching, importing a script or listening to an event stream on an
origin the policy blocks; WebRTC (STUN and TURN) and WebTransport sending UDP to a port the
policy forbids; cloud metadata endpoints beyond 169.254.169.254.

The browser sits behind the recording proxy, so HTTP and WebSocket traffic to the blocked
server (another loopback port) shows there; UDP goes around any proxy, so the UDP tests
listen on a loopback port themselves and the page is told to reach exactly that port."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from webrefs import Browser, WebTools
from webrefs.safety import SafetyPolicy

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer
from tests.safety.conftest import ALIASES
from tests.safety.test_rules import METADATA_SPELLINGS

Make = Callable[..., WebTools]
UDP_HOST = "udp.safety.test"
"""The name UDP pages are told to reach (127.0.0.1, not through the proxy)."""


def _allow_only(site: SiteServer) -> SafetyPolicy:
    return SafetyPolicy(allowed_domains=(f"127.0.0.1:{site.port}",))


def _sent_to(proxy: RecordingProxy, port: int, since: int) -> list[str]:
    return [f"{s.method} {s.host}:{s.port} {s.target}" for s in proxy.seen[since:]
            if s.port == port]


def _log(tools: WebTools) -> str:
    return tools.call("web_get_text", {}).content


def _settle(tools: WebTools, *, ready: str = "ready", extra_s: float = 0.6,
            timeout_s: float = 4.0) -> str:
    """The page's log once it has changed from ``ready`` (and a little longer, for what a
    worker sends after it reports)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and ready in _log(tools):
        time.sleep(0.2)
    time.sleep(extra_s)
    return _log(tools)


# -- workers ------------------------------------------------------------------------------
SOCKET_MODES = ("worker-ws", "nested-ws", "module-ws", "shared-ws", "blob-ws", "blob-nested-ws",
                "data-ws", "frame-worker-ws", "plain-ws", "module-data-ws",
                "blob-module-data-ws", "iframe-ctor-ws", "poisoned-blob-ws", "proto-ws",
                "sandbox-ws", "sandbox-worker-ws")
REQUEST_MODES = ("worker-fetch", "worker-import", "worker-sse", "nested-fetch", "shared-fetch")


@pytest.mark.parametrize("mode", SOCKET_MODES + REQUEST_MODES)
def test_a_worker_reaches_no_blocked_origin(make_tools: Make, site: SiteServer,
                                            other_site: SiteServer, proxy: RecordingProxy,
                                            token: str, mode: str) -> None:
    tools = make_tools(_allow_only(site))
    target = f"127.0.0.1:{other_site.port}/safety/target.html?{token}"
    query = urlencode({"do": mode, "ws": f"ws://{target}", "http": f"http://{target}"})
    before = len(proxy.seen)
    out = tools.run("web_navigate", {"url": site.url(f"/safety/workers.html?{query}")})
    assert not out.is_error, out.content
    text = _settle(tools)
    assert _sent_to(proxy, other_site.port, before) == [], text
    assert "ready" not in text, text  # the worker ran and reported
    assert not any(w in text for w in ("socket open", "fetched", "imported", "unknown mode"))


@pytest.mark.parametrize("mode", ["worker-ws", "module-ws", "shared-ws", "blob-ws", "data-ws",
                                  "nested-ws", "module-data-ws", "blob-module-data-ws"])
def test_a_worker_socket_to_an_allowed_origin_still_connects(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str, mode: str) -> None:
    """The guard refuses what the policy refuses, not every socket, and leaves the workers
    it stands in front of working: a socket to an allowed host is opened (the test server
    answers it without upgrading, so it errors, after the proxy forwarded it)."""
    tools = make_tools(SafetyPolicy(allowed_domains=(f"127.0.0.1:{site.port}",
                                                     f"127.0.0.1:{other_site.port}")))
    target = f"127.0.0.1:{other_site.port}/safety/target.html?{token}"
    query = urlencode({"do": mode, "ws": f"ws://{target}", "http": f"http://{target}"})
    before = len(proxy.seen)
    tools.run("web_navigate", {"url": site.url(f"/safety/workers.html?{query}")})
    text = _settle(tools)
    assert "socket error" in text or "socket closed 1006" in text, text  # tried, not refused
    assert [s.method for s in proxy.seen[before:] if s.port == other_site.port] == ["CONNECT"]


# -- UDP: WebRTC and WebTransport -----------------------------------------------------------
class UdpListener:
    """A UDP port on 127.0.0.1 that records every datagram it receives."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port: int = self.sock.getsockname()[1]
        self.got: list[tuple[Any, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data, peer = self.sock.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            self.got.append((peer, len(data)))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def udp() -> Iterator[UdpListener]:
    listener = UdpListener()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def udp_browser(proxy: RecordingProxy) -> Iterator[Browser]:
    """A browser behind the proxy that may also gather loopback candidates, so a WebRTC leak
    to the loopback listener shows even on a machine whose only interface is loopback, and
    that reaches :data:`UDP_HOST` (mapped to 127.0.0.1) without the proxy: Chromium refuses
    WebTransport through an HTTP proxy, and a browser without one would send it."""
    args = [a for a in proxy.chromium_args() if not a.startswith(("--proxy-bypass-list=",
                                                                   "--host-resolver-rules="))]
    rules = ", ".join(f"MAP {a} 127.0.0.1" for a in (*ALIASES, UDP_HOST))
    b = Browser.launch(args=(*args, f"--proxy-bypass-list=<-loopback>;{UDP_HOST}",
                             f"--host-resolver-rules={rules}",
                             "--allow-loopback-in-peer-connection"))
    yield b
    b.close()


@pytest.fixture
def udp_tools(udp_browser: Browser) -> Iterator[Make]:
    contexts: list[Browser] = []

    def make(policy: SafetyPolicy) -> WebTools:
        ctx = udp_browser.new_context()
        contexts.append(ctx)
        return WebTools(ctx, safety=policy)

    yield make
    for ctx in contexts:
        with contextlib.suppress(Exception):
            ctx.close()


def _open_rtc(tools: WebTools, site: SiteServer, mode: str, target: str) -> str:
    query = urlencode({"do": mode, "udp": target})
    out = tools.run("web_navigate", {"url": site.url(f"/safety/rtc.html?{query}")})
    assert not out.is_error, out.content
    return _settle(tools, extra_s=1.5)


UDP_MODES = ("rtc", "rtc-turn", "rtc-webkit", "rtc-proto", "rtc-iframe", "rtc-popup",
             "rtc-sandbox", "rtc-data-iframe", "wt", "wt-iframe")


@pytest.mark.parametrize("mode", UDP_MODES)
def test_no_udp_reaches_a_forbidden_port_under_a_policy(udp_tools: Make, site: SiteServer,
                                                        udp: UdpListener, mode: str) -> None:
    tools = udp_tools(_allow_only(site))
    # STUN and TURN servers are reached by address (WebRTC does not read Chromium's resolver
    # rules); WebTransport by the name the browser reaches without the proxy
    host = UDP_HOST if mode.startswith("wt") else "127.0.0.1"
    text = _open_rtc(tools, site, mode, f"{host}:{udp.port}")
    assert udp.got == [], text
    assert "ready" not in text and "unknown mode" not in text, text


def test_no_udp_reaches_a_forbidden_port_from_a_worker(udp_tools: Make, site: SiteServer,
                                                       udp: UdpListener) -> None:
    tools = udp_tools(_allow_only(site))
    query = urlencode({"do": "worker-wt", "wt": f"https://{UDP_HOST}:{udp.port}/side"})
    tools.run("web_navigate", {"url": site.url(f"/safety/workers.html?{query}")})
    text = _settle(tools, extra_s=1.5)
    assert udp.got == [], text
    assert "ready" not in text and "transport open" not in text, text


def test_webrtc_is_refused_under_the_default_policy_too(udp_tools: Make, site: SiteServer,
                                                        udp: UdpListener) -> None:
    """Any network rule is enough (the default blocks link-local addresses): WebRTC would
    reach whatever address a page names."""
    tools = udp_tools(SafetyPolicy())
    text = _open_rtc(tools, site, "rtc", f"127.0.0.1:{udp.port}")
    assert udp.got == [] and "refused" in text, text


def test_the_udp_tests_can_see_a_leak(udp_tools: Make, site: SiteServer,
                                      udp: UdpListener) -> None:
    """With the policy off (and with WebRTC allowed, for WebTransport to an allowed port),
    the same pages do send UDP to the listener: the tests above would see a leak."""
    tools = udp_tools(SafetyPolicy.off())
    text = _open_rtc(tools, site, "rtc", f"127.0.0.1:{udp.port}")
    assert "gathered" in text and udp.got, text
    udp.got.clear()
    allowed = udp_tools(SafetyPolicy(allowed_domains=(f"127.0.0.1:{site.port}",
                                                      f"{UDP_HOST}:{udp.port}")))
    text = _open_rtc(allowed, site, "wt", f"{UDP_HOST}:{udp.port}")
    deadline = time.monotonic() + 3
    while not udp.got and time.monotonic() < deadline:
        time.sleep(0.1)
    assert udp.got, text


# -- cloud metadata -------------------------------------------------------------------------
def test_metadata_endpoints_beyond_link_local_are_never_asked(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy) -> None:
    tools = make_tools()
    before = len(proxy.seen)
    for spellings in METADATA_SPELLINGS.values():
        for spelling in spellings:
            out = tools.run("web_navigate", {"url": f"http://{spelling}/latest/meta-data/"})
            assert out.is_error and out.artifact.rule == "link-local", (spelling, out.content)
    assert proxy.seen[before:] == []
    # nor does a page's fetch, image or socket reach them
    for spelling in ("100.100.100.200", "[fd00:ec2::254]", "[fd20:ce::254]", "192.0.0.192"):
        from urllib.parse import quote

        tools.run("web_navigate",
                  {"url": site.url(f"/safety/nav.html?to={quote(f'http://{spelling}/x')}")})
        refs = {n.name: r for r, n in tools.call("web_snapshot", {}).artifact.refs.items()}
        for control in ("Fetch it", "Load image", "Open socket", "Send beacon"):
            tools.run("web_click", {"ref": refs[control]})
    time.sleep(0.5)
    assert [s for s in proxy.seen[before:] if s.port != site.port] == []


# -- a browser webrefs did not launch -------------------------------------------------------
async def test_a_wrapped_page_gets_the_guard_without_launch_flags(
        site: SiteServer, other_site: SiteServer, proxy: RecordingProxy, udp: UdpListener,
        token: str) -> None:
    """A user's own Playwright browser (none of webrefs' launch flags), its page adopted with
    ``Browser.wrap``: WebRTC, WebTransport and a worker's socket are refused in it all the
    same; the user's other context, which webrefs does not guard, is left alone (and shows
    the leak the guard stops)."""
    from playwright.async_api import async_playwright
    from webrefs.session.launcher import chromium_args, find_chromium

    args = [a for a in proxy.chromium_args() if not a.startswith(("--proxy-bypass-list=",
                                                                   "--host-resolver-rules="))]
    rules = ", ".join(f"MAP {a} 127.0.0.1" for a in (*ALIASES, UDP_HOST))
    args += [f"--proxy-bypass-list=<-loopback>;{UDP_HOST}", f"--host-resolver-rules={rules}",
             "--allow-loopback-in-peer-connection"]
    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(executable_path=find_chromium(),
                                              args=chromium_args(tuple(args)))
        try:
            page = await pw_browser.new_page()
            await page.goto(site.url("/safety/pay.html"))
            b = Browser.wrap(page, safety=_allow_only(site))
            tools = WebTools(b)

            async def log_after(url: str) -> str:
                out = await tools.arun("web_navigate", {"url": url})
                assert not out.is_error, out.content
                for _ in range(25):
                    text = (await tools.acall("web_get_text", {})).content
                    if "ready" not in text:
                        break
                    await asyncio.sleep(0.2)
                await asyncio.sleep(1.5)
                return (await tools.acall("web_get_text", {})).content

            for mode, host in (("rtc", "127.0.0.1"), ("wt", UDP_HOST)):
                query = urlencode({"do": mode, "udp": f"{host}:{udp.port}"})
                text = await log_after(site.url(f"/safety/rtc.html?{query}"))
                assert udp.got == [] and "refused" in text, (mode, text)
            target = f"127.0.0.1:{other_site.port}/safety/target.html?{token}"
            before = len(proxy.seen)
            query = urlencode({"do": "worker-ws", "ws": f"ws://{target}"})
            text = await log_after(site.url(f"/safety/workers.html?{query}"))
            assert "refused SecurityError" in text, text  # the worker's WebSocket threw
            assert _sent_to(proxy, other_site.port, before) == []
            own = await pw_browser.new_page()  # another context, not webrefs'
            query = urlencode({"do": "rtc", "udp": f"127.0.0.1:{udp.port}"})
            await own.goto(site.url(f"/safety/rtc.html?{query}"))
            for _ in range(30):
                if udp.got:
                    break
                await asyncio.sleep(0.1)
            assert udp.got
            await b.aclose()
        finally:
            await pw_browser.close()
