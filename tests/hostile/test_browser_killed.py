"""Item 7: after the browser process is killed the model is told the browser closed (not that
a tab closed), without Python APIs in the text; the host gets the remedy."""

from __future__ import annotations

import contextlib
import os
import signal

from webrefs import Browser, WebTools
from webrefs.adapters.langchain import WebToolkit
from webrefs.errors import BrowserClosedError

from tests.helpers.procs import chromium_descendants, wait_until
from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer


def _kill(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_browser_is_reported_as_closed(proxy: RecordingProxy,
                                                site: SiteServer) -> None:
    before = chromium_descendants()
    browser = Browser.launch(args=tuple(proxy.chromium_args()))
    try:
        ours = chromium_descendants() - before  # only the processes of this browser
        assert ours
        tools = WebTools(browser, tools=["web_navigate", "web_snapshot", "web_click",
                                           "web_tabs", "web_get_text"])
        lc = {t.name: t for t in WebToolkit(browser=browser).get_tools()}
        tools.call("web_navigate", {"url": site.url("/hostile/hello.html")})
        tools.call("web_snapshot", {})
        _kill(ours)
        assert wait_until(lambda: browser.closed, timeout=10)
        for name, args in [("web_snapshot", {}), ("web_click", {"ref": "e1"}),
                           ("web_get_text", {}), ("web_tabs", {}),
                           ("web_navigate", {"url": site.url("/basic/one.html")})]:
            out = tools.run(name, args)
            assert out.is_error, (name, out.content)
            assert "[browser_closed]" in out.content and "[tab_closed]" not in out.content
            assert "browser closed" in out.content and "tell the user" in out.content
            for python_api in ("Browser", "launch", "new_tab(", "()"):
                assert python_api not in out.content, (python_api, out.content)
            assert isinstance(out.artifact, BrowserClosedError)
            assert out.artifact.host_hint and "Launch a new Browser" in out.artifact.host_hint
        message = lc["web_snapshot"].invoke({})
        assert "[browser_closed]" in message
        assert "No page is open" not in tools.system_prompt()
    finally:
        with contextlib.suppress(Exception):
            browser.close()
