"""A Chromium a test starts itself with a DevTools port, as a user starts their own browser
to attach webrefs to it.

The port is Chromium's own choice (``--remote-debugging-port=0``), read back from
``DevToolsActivePort`` in its profile folder, so no two tests race for a port. The browser
runs in a process group of its own and is ended with all its processes (see
:func:`tests.helpers.procs.end_group`).

::

    with DebuggedChromium(tmp_path, urls=[site.url("/basic/one.html")]) as chrome:
        browser = Browser.connect(chrome.endpoint)
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from webrefs.session.launcher import chromium_args, find_chromium

from .procs import end_group, start_group, wait_until

__all__ = ["DebuggedChromium"]


class DebuggedChromium:
    """Headless Chromium with ``--remote-debugging-port``; the first of ``urls`` opens at
    start and the others as new tabs once it runs (headless Chromium takes one page on its
    command line)."""

    def __init__(self, profile: Path, *, urls: tuple[str, ...] | list[str] = (),
                 args: tuple[str, ...] | list[str] = (), timeout: float = 30.0) -> None:
        self.profile = Path(profile)
        self.profile.mkdir(parents=True, exist_ok=True)
        self.urls = list(urls) or ["about:blank"]
        self.args = list(args)
        self.timeout = timeout
        self.port = 0
        self.ws_url = ""
        """The browser target's DevTools WebSocket (``ws://127.0.0.1:PORT/devtools/...``)."""
        self.proc: Any = None

    @property
    def endpoint(self) -> str:
        """The address ``Browser.connect`` takes (``http://127.0.0.1:PORT``)."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> DebuggedChromium:
        active = self.profile / "DevToolsActivePort"
        active.unlink(missing_ok=True)
        self.log = self.profile.parent / f"{self.profile.name}.log"
        with open(self.log, "wb") as log:  # the child keeps its own copy of the handle
            self.proc = start_group([
                find_chromium(), "--headless", "--remote-debugging-port=0",
                f"--user-data-dir={self.profile}",
                *chromium_args(tuple(self.args)), self.urls[0]], stderr=log)
        try:
            def port() -> int:
                assert self.proc.poll() is None, (
                    f"Chromium exited at start: {self.log.read_text(errors='replace')[-500:]}")
                try:
                    first = active.read_text().split("\n", 1)[0].strip()
                except OSError:
                    return 0
                return int(first) if first.isdigit() else 0

            self.port = wait_until(port, timeout=self.timeout, interval=0.1)
            assert self.port, "Chromium never wrote DevToolsActivePort"
            self.ws_url = self.version()["webSocketDebuggerUrl"]
            for url in self.urls[1:]:
                self.open(url)
        except BaseException:
            end_group(self.proc)
            raise
        return self

    def version(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.endpoint}/json/version", timeout=5) as got:
            found: dict[str, Any] = json.load(got)
        return found

    def open(self, url: str) -> dict[str, Any]:
        """Open ``url`` in a new tab the way a user would, outside any automation client
        (DevTools' ``PUT /json/new``); the new target as DevTools lists it."""
        request = urllib.request.Request(f"{self.endpoint}/json/new?{url}", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as got:
            found: dict[str, Any] = json.load(got)
        return found

    def pages(self) -> list[dict[str, Any]]:
        """The browser's page targets as DevTools lists them (``/json/list``)."""
        with urllib.request.urlopen(f"{self.endpoint}/json/list", timeout=5) as got:
            found: list[dict[str, Any]] = json.load(got)
        return [t for t in found if t.get("type") == "page"]

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            end_group(self.proc)
