"""Redirect hops to a URL the policy forbids are never sent: the first request is allowed (the
test server's own ``/__redirect``), only a later hop is not, and the forbidden server (or the
recording proxy, for a name it refuses) must record no request at all, for a tab's page, a
chain of hops, a popup's first request, a frame, an image, a fetch, a script, a worker's
fetch and a fetch of a frame on another site; and a hop to a private address when private
network blocking is on."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import quote

import pytest
from webrefs import WebTools
from webrefs.errors import NavigationBlockedError
from webrefs.safety import SafetyPolicy

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]
CANARY = "CANARY-BLOCKED-PAGE"


def _reached(proxy: RecordingProxy, token: str, *, port: int | None = None,
             host: str | None = None) -> list[str]:
    """Requests carrying ``token`` that were sent to the forbidden server (by port or host)."""
    return [f"{s.method} {s.host}:{s.port} {s.target}" for s in proxy.seen
            if token in s.target and (port is None or s.port == port)
            and (host is None or s.host == host)]


def _allow_only(site: SiteServer, *more: str) -> SafetyPolicy:
    return SafetyPolicy(allowed_domains=(f"127.0.0.1:{site.port}", *more))


def _open(tools: WebTools, site: SiteServer, to: str, frame: str = "") -> dict[str, str]:
    extra = f"&frame={quote(frame, safe='')}" if frame else ""
    out = tools.run("web_navigate", {"url": site.url(f"/safety/hops.html?to={quote(to, safe='')}"
                                                     f"{extra}")})
    assert not out.is_error, out.content
    snap = tools.call("web_snapshot", {}).artifact
    return {n.name: r for r, n in snap.refs.items()}


def _log(tools: WebTools) -> str:
    return tools.call("web_get_text", {}).content


def _wait_for(tools: WebTools, *words: str, timeout_s: float = 5.0) -> str:
    """The page's text once it holds one of ``words`` (or at the deadline)."""
    deadline = time.monotonic() + timeout_s
    text = _log(tools)
    while not any(w in text for w in words) and time.monotonic() < deadline:
        time.sleep(0.2)
        text = _log(tools)
    return text


def test_navigating_to_a_url_that_redirects_out_sends_no_hop(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str) -> None:
    tools = make_tools(_allow_only(site))
    target = other_site.url(f"/safety/target.html?{token}")
    out = tools.run("web_navigate", {"url": site.url(f"/__redirect?to={quote(target)}")})
    assert out.is_error and isinstance(out.artifact, NavigationBlockedError), out.content
    assert out.artifact.rule == "not-allowed-domain"
    assert _reached(proxy, token, port=other_site.port) == []
    assert CANARY not in tools.run("web_snapshot", {}).content


@pytest.mark.parametrize("control", ["Redirected page", "Redirect chain"])
def test_a_page_following_a_redirect_out_stays_and_sends_no_hop(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str, control: str) -> None:
    tools = make_tools(_allow_only(site))
    refs = _open(tools, site, other_site.url(f"/safety/target.html?{token}"))
    out = tools.run("web_click", {"ref": refs[control]})
    time.sleep(0.5)
    assert _reached(proxy, token, port=other_site.port) == []
    # the allowed hops were sent: the chain really went through the redirects
    hops = [s for s in proxy.seen if s.port == site.port and "__redirect" in s.target
            and token in s.target]
    assert len(hops) == (3 if control == "Redirect chain" else 1), hops
    assert tools.current_tab().url.startswith(site.url("/safety/hops.html")), out.content
    assert "safety policy blocks" in out.content, out.content
    assert CANARY not in tools.run("web_snapshot", {}).content


def test_a_popup_whose_first_request_redirects_out_sends_no_hop(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str) -> None:
    tools = make_tools(_allow_only(site))
    refs = _open(tools, site, other_site.url(f"/safety/target.html?{token}"))
    tools.run("web_click", {"ref": refs["Redirected popup"]})
    time.sleep(1.0)
    assert [s for s in proxy.seen if s.port == site.port and "__redirect" in s.target
            and token in s.target], "the popup's first request was not made"
    assert _reached(proxy, token, port=other_site.port) == []
    for tab in tools.browser.tabs:  # type: ignore[union-attr]
        assert not tab.url.startswith(other_site.origin), tab.url


@pytest.mark.parametrize(("control", "log"), [
    ("Redirected frame", None), ("Redirected image", "image failed"),
    ("Redirected fetch", "fetch failed"), ("Redirected script", "script failed"),
    ("Worker fetch", "worker fetch failed"),
])
def test_a_subresource_redirected_out_sends_no_hop(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str, control: str, log: str | None) -> None:
    tools = make_tools(_allow_only(site))
    refs = _open(tools, site, other_site.url(f"/safety/target.html?{token}"))
    tools.run("web_click", {"ref": refs[control]})
    if log is not None:
        text = _wait_for(tools, log)
    else:
        time.sleep(1.0)  # the frame's navigation and its hop
        text = ""
    assert [s for s in proxy.seen if s.port == site.port and "__redirect" in s.target
            and token in s.target], "the first request was not made"
    assert _reached(proxy, token, port=other_site.port) == []
    if log is not None:
        assert log in text, text
    assert CANARY not in tools.run("web_snapshot", {}).content


def test_a_fetch_of_a_frame_on_another_site_redirected_out_sends_no_hop(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str) -> None:
    """The frame is on an allowed name of another site, so Chromium runs it in its own
    process (an out-of-process frame, a target of its own)."""
    frame_origin = f"http://a.safety.test:{site.port}"
    tools = make_tools(_allow_only(site, f"a.safety.test:{site.port}"))
    refs = _open(tools, site, other_site.url(f"/safety/target.html?{token}"), frame_origin)
    tools.run("web_click", {"ref": refs["Cross-site frame fetch"]})
    deadline = time.monotonic() + 5.0
    frame_hops: list[object] = []
    while not frame_hops and time.monotonic() < deadline:
        time.sleep(0.2)
        frame_hops = [s for s in proxy.seen if s.host == "a.safety.test"
                      and "__redirect" in s.target and token in s.target]
    assert frame_hops, "the frame's fetch was not made"
    time.sleep(0.5)
    assert _reached(proxy, token, port=other_site.port) == []


def test_a_redirect_to_a_private_address_sends_no_hop(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    tools = make_tools(SafetyPolicy(block_private_network=True,
                                    allowed_domains=(f"127.0.0.1:{site.port}", "*")))
    private = f"http://private.safety.test:{site.port}/safety/target.html?{token}"
    out = tools.run("web_navigate", {"url": site.url(f"/__redirect?to={quote(private)}")})
    assert out.is_error and isinstance(out.artifact, NavigationBlockedError), out.content
    assert out.artifact.rule == "private-network"
    refs = _open(tools, site, private)
    for control in ("Redirected page", "Redirected fetch", "Redirected image"):
        tools.run("web_click", {"ref": refs[control]})
    time.sleep(0.5)
    assert _reached(proxy, token, host="private.safety.test") == []


def test_redirects_within_the_policy_still_work(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    tools = make_tools(_allow_only(site))
    allowed = site.url(f"/safety/target.html?{token}")
    out = tools.run("web_navigate", {"url": site.url(f"/__redirect?to={quote(allowed)}")})
    assert not out.is_error, out.content
    assert CANARY in tools.run("web_snapshot", {}).content
    refs = _open(tools, site, allowed)
    tools.run("web_click", {"ref": refs["Redirected fetch"]})
    assert "fetched" in _wait_for(tools, "fetched", "fetch failed")


def test_the_policy_off_lets_redirects_through(make_tools: Make, site: SiteServer,
                                               other_site: SiteServer, proxy: RecordingProxy,
                                               token: str) -> None:
    """Another context of the same browser with the policy off is not held by the first's
    interception (both share the browser's interception)."""
    make_tools(_allow_only(site)).run("web_navigate", {"url": site.url("/safety/pay.html")})
    tools = make_tools(SafetyPolicy.off())
    target = other_site.url(f"/safety/target.html?{token}")
    out = tools.run("web_navigate", {"url": site.url(f"/__redirect?to={quote(target)}")})
    assert not out.is_error, out.content
    assert CANARY in tools.run("web_snapshot", {}).content
    assert _reached(proxy, token, port=other_site.port)


async def test_a_wrapped_page_gets_the_same_interception(
        site: SiteServer, other_site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    """A user's own Playwright page, adopted with ``Browser.wrap``: its hop is never sent;
    the user's other context in the same browser, which webrefs does not guard, is left
    alone."""
    from playwright.async_api import async_playwright
    from webrefs import Browser
    from webrefs.session.launcher import chromium_args, find_chromium

    target = other_site.url(f"/safety/target.html?{token}")
    via = site.url(f"/__redirect?to={quote(target)}")
    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(
            executable_path=find_chromium(), args=chromium_args(tuple(proxy.chromium_args())))
        try:
            page = await pw_browser.new_page()
            await page.goto(site.url("/safety/pay.html"))
            b = Browser.wrap(page, safety=_allow_only(site))
            tools = WebTools(b)
            out = await tools.arun("web_navigate", {"url": via})
            assert out.is_error and isinstance(out.artifact, NavigationBlockedError), out.content
            assert _reached(proxy, token, port=other_site.port) == []
            own = await pw_browser.new_page()  # another context, not webrefs'
            await own.goto(via)
            assert CANARY in await own.content()
            assert len(_reached(proxy, token, port=other_site.port)) == 1
            await b.aclose()
        finally:
            await pw_browser.close()
