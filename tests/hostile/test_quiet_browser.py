"""Item 8: the browser webrefs launches sends no request the pages did not ask for (no
autofill queries, component or variations updates, safe browsing, sign-in or metrics)."""

from __future__ import annotations

import time

from webrefs import Browser

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer

QUIET_FOR_S = 6.0
"""How long the browser is watched after the pages are used (its services start early)."""


def test_no_request_leaves_for_a_host_the_pages_did_not_ask_for(site: SiteServer) -> None:
    with RecordingProxy({site.port}, aliases=("a.hostile.test",)) as proxy:
        browser = Browser.launch(args=tuple(proxy.chromium_args()))
        try:
            tab = browser.new_tab(f"http://a.hostile.test:{site.port}/hostile/signup.html")
            tab.snapshot()
            tab.fill("e1", "Ada Lovelace")
            tab.fill("e2", "ada@example.org")
            tab.fill("e3", "correct horse battery")
            tab.fill("e4", "1 Main Street")
            tab.click("e9")  # submits the form: autofill and password saving look at it
            tab.goto(site.url("/hostile/one.html"))
            snap = tab.snapshot()
            box = next(r for r, n in snap.refs.items() if n.role in ("searchbox", "textbox"))
            tab.fill(box, "anything")
            time.sleep(QUIET_FOR_S)
        finally:
            browser.close()
        asked = {("a.hostile.test", site.port), ("127.0.0.1", site.port)}
        forwarded = {(s.host, s.port) for s in proxy.seen if s.forwarded}
        assert forwarded == asked  # the proxy did carry the pages' own traffic
        refused = sorted({f"{s.method} {s.host}:{s.port}" for s in proxy.refused})
        assert refused == [], f"the browser called home: {refused}"
