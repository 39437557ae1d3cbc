"""The navigation and network policy through the tool layer (what a model calls): schemes,
domains, user-info and look-alike hosts, odd address spellings, private names, and every way a
page leaves on its own. The browser sits behind the recording proxy; a blocked request must
never reach it, a redirect hop included (more hops in ``test_redirects.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from webrefs import WebTools
from webrefs.errors import NavigationBlockedError
from webrefs.safety import SafetyPolicy

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer
from tests.safety.conftest import hits

Make = Callable[..., WebTools]
CANARY = "CANARY-BLOCKED-PAGE"


def _page_text(tools: WebTools) -> str:
    out = tools.run("web_get_text", {})
    return out.content


SCHEMES = ("file:///etc/shadow", "file:///etc/", "FILE:///etc/passwd", "javascript:alert(1)",
           "data:text/html,<h1>hi</h1>", "blob:http://127.0.0.1/abc", "chrome://version",
           "chrome-extension://abc/page.html", "devtools://devtools/bundled/inspector.html",
           "view-source:http://127.0.0.1/", "about:config")


def test_blocked_schemes_name_the_rule(make_tools: Make) -> None:
    tools = make_tools()
    for url in SCHEMES:
        out = tools.run("web_navigate", {"url": url})
        assert out.is_error and isinstance(out.artifact, NavigationBlockedError), url
        assert out.artifact.rule == "scheme", url
        assert "[navigation_blocked]" in out.content and "rule scheme" in out.content
        assert "root:" not in _page_text(tools)


def test_http_https_and_about_blank_stay_allowed(make_tools: Make, site: SiteServer) -> None:
    tools = make_tools()
    assert not tools.run("web_navigate", {"url": "about:blank"}).is_error
    assert not tools.run("web_navigate", {"url": site.url("/safety/pay.html")}).is_error


METADATA = ("169.254.169.254", "2852039166", "0xa9fea9fe", "0251.0376.0251.0376",
            "169.254.43518", "0xa9.0xfe.0xa9.0xfe", "[::ffff:169.254.169.254]",
            "[::ffff:a9fe:a9fe]", "[fe80::1]", "metadata.google.internal")


def test_metadata_addresses_are_blocked_by_default(make_tools: Make,
                                                   proxy: RecordingProxy) -> None:
    tools = make_tools()
    before = len(proxy.seen)
    for host in METADATA:
        out = tools.run("web_navigate", {"url": f"http://{host}/latest/meta-data/"})
        assert out.is_error and out.artifact.rule == "link-local", (host, out.content)
    assert proxy.seen[before:] == []  # nothing was sent


def test_allowed_and_blocked_domains(make_tools: Make, site: SiteServer, proxy: RecordingProxy,
                                     token: str) -> None:
    p = site.port
    tools = make_tools(SafetyPolicy(allowed_domains=("a.safety.test",)))
    ok = tools.run("web_navigate", {"url": f"http://a.safety.test:{p}/safety/pay.html"})
    assert not ok.is_error, ok.content
    for url in (f"http://b.safety.test:{p}/safety/target.html?{token}",
                f"http://a.safety.test.b.safety.test:{p}/safety/target.html?{token}",
                f"http://a.safety.test@b.safety.test:{p}/safety/target.html?{token}",
                f"http://a.safety.test%40b.safety.test:{p}/safety/target.html?{token}",
                f"http://b.safety.test\\@a.safety.test:{p}/safety/target.html?{token}",
                f"http://127.0.0.1:{p}/safety/target.html?{token}"):
        out = tools.run("web_navigate", {"url": url})
        assert out.is_error and isinstance(out.artifact, NavigationBlockedError), url
        assert out.artifact.rule in ("not-allowed-domain", "invalid-host"), url
    # user-info is not the host: this one goes to a.safety.test, which is allowed
    real = tools.run("web_navigate", {"url": f"http://b.safety.test@a.safety.test:{p}/safety/"
                                             f"pay.html?{token}"})
    assert not real.is_error, real.content
    assert hits(proxy, f"?{token}") == [f"GET a.safety.test:{p} http://a.safety.test:{p}/safety/"
                                  f"pay.html?{token}"]

    blocked = make_tools(SafetyPolicy(blocked_domains=("*.safety.test",)))
    assert blocked.run("web_navigate", {"url": f"http://b.safety.test:{p}/"}).artifact.rule \
        == "blocked-domain"
    assert not blocked.run("web_navigate", {"url": site.url("/safety/pay.html")}).is_error


def _allow_only(site: SiteServer) -> SafetyPolicy:
    return SafetyPolicy(allowed_domains=(f"127.0.0.1:{site.port}",))


def _open_nav(tools: WebTools, site: SiteServer, target: str) -> dict[str, str]:
    from urllib.parse import quote

    tools.run("web_navigate", {"url": site.url(f"/safety/nav.html?to={quote(target)}")})
    snap = tools.call("web_snapshot", {}).artifact
    return {n.name: r for r, n in snap.refs.items()}


@pytest.mark.parametrize("control", ["Plain link", "New tab link", "Open popup",
                                     "Assign location", "Meta refresh"])
def test_page_initiated_navigation_to_a_blocked_origin_never_leaves(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str, control: str) -> None:
    tools = make_tools(_allow_only(site))
    refs = _open_nav(tools, site, other_site.url(f"/safety/target.html?{token}"))
    out = tools.run("web_click", {"ref": refs[control]})
    time.sleep(0.5)  # a meta refresh fires after the click's wait
    assert hits(proxy, f"?{token}") == []  # the blocked server was never asked
    for tab in tools.browser.tabs:  # type: ignore[union-attr]
        assert not tab.url.startswith(other_site.origin), tab.url
    assert CANARY not in tools.run("web_snapshot", {}).content
    if control != "Meta refresh":
        assert "safety policy blocks" in out.content, out.content


def test_redirect_out_of_the_allowlist_is_stopped_before_the_hop(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str) -> None:
    tools = make_tools(_allow_only(site))
    target = other_site.url(f"/safety/target.html?{token}")
    out = tools.run("web_navigate", {"url": site.url(f"/__redirect?to={target}")})
    assert out.is_error and isinstance(out.artifact, NavigationBlockedError), out.content
    assert out.artifact.rule == "not-allowed-domain"
    assert not tools.current_tab().url.startswith(other_site.origin)
    assert CANARY not in tools.run("web_snapshot", {}).content
    # the same through a link on the page
    refs = _open_nav(tools, site, target)
    out = tools.run("web_click", {"ref": refs["Redirect link"]})
    time.sleep(0.3)
    assert "safety policy blocks" in out.content, out.content
    assert tools.current_tab().url.startswith(site.url("/safety/nav.html"))
    assert CANARY not in tools.run("web_snapshot", {}).content
    # neither hop reached the blocked server
    assert [s for s in proxy.seen if s.port == other_site.port and token in s.target] == []


def test_a_page_never_stays_on_a_top_level_blob_page(make_tools: Make,
                                                     site: SiteServer) -> None:
    tools = make_tools()
    refs = _open_nav(tools, site, "/")
    out = tools.run("web_click", {"ref": refs["Blob page"]})
    time.sleep(1.0)  # a committed blob: page is replaced by about:blank meanwhile
    assert not tools.current_tab().url.startswith("blob:"), out.content
    assert "CANARY" not in tools.run("web_snapshot", {}).content


@pytest.mark.parametrize(("control", "log"), [
    ("Send beacon", None), ("Open socket", None), ("Fetch it", "fetch failed"),
    ("Load image", "image failed"), ("Start worker", "worker refused"),
])
def test_subresources_beacons_sockets_and_workers_to_a_blocked_origin_send_nothing(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str, control: str, log: str | None) -> None:
    tools = make_tools(_allow_only(site))
    refs = _open_nav(tools, site, other_site.url(f"/safety/target.html?{token}"))
    before = len(proxy.seen)
    tools.run("web_click", {"ref": refs[control]})
    time.sleep(0.5)
    sent = [s for s in proxy.seen[before:] if s.port == other_site.port]
    assert sent == [] and hits(proxy, f"?{token}") == []
    if log is not None:
        text = tools.call("web_get_text", {}).content
        assert log in text, text


def test_private_network_blocking_judges_every_spelling_and_resolved_names(
        make_tools: Make, site: SiteServer, other_site: SiteServer, proxy: RecordingProxy,
        token: str) -> None:
    tools = make_tools(SafetyPolicy(block_private_network=True,
                                    allowed_domains=(f"127.0.0.1:{site.port}", "*")))
    o = other_site.port
    before = len(proxy.seen)
    for host in (f"127.0.0.1:{o}", f"2130706433:{o}", f"0x7f000001:{o}", f"0177.0.0.1:{o}",
                 f"127.1:{o}", f"[::ffff:127.0.0.1]:{o}", f"[::1]:{o}", f"localhost:{o}",
                 f"private.safety.test:{site.port}", f"10.0.0.1:{o}", f"192.168.1.1:{o}",
                 f"172.16.0.1:{o}"):
        out = tools.run("web_navigate", {"url": f"http://{host}/safety/target.html?{token}"})
        assert out.is_error and out.artifact.rule == "private-network", (host, out.content)
    assert "resolves to 127.0.0.1" in tools.run(
        "web_navigate", {"url": f"http://private.safety.test:{site.port}/"}).content
    # the host named exactly in allowed_domains stays reachable; a page link to a private
    # name is stopped at the routing
    refs = _open_nav(tools, site, f"http://private.safety.test:{site.port}/safety/target.html?"
                                  f"{token}")
    tools.run("web_click", {"ref": refs["Plain link"]})
    assert proxy.seen[before + 0:] and hits(proxy, f"?{token}") == []
    assert not tools.current_tab().url.startswith("http://private.safety.test")


def test_private_network_is_off_by_default_so_local_apps_work(make_tools: Make,
                                                              other_site: SiteServer) -> None:
    tools = make_tools()
    out = tools.run("web_navigate", {"url": other_site.url("/safety/pay.html")})
    assert not out.is_error, out.content
