"""Serving a suite's site locally under its fixed origin.

A site's files are served by a small HTTP server on 127.0.0.1 at a free port; the browser
maps the site's fixed host (``demo.webrefs.test``) to that port with Chromium's
host-resolver rules, and resolves every other host name to nothing. Pages, and therefore
snapshots and model prompts, are byte-identical from run to run whatever the port.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["host_resolver_rules", "origin_host", "serve_folder"]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[int]:
    """Serve ``folder`` on 127.0.0.1 at a free port; yields the port."""
    handler = partial(_QuietHandler, directory=str(folder))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="webrefs-site", daemon=True)
    thread.start()
    try:
        yield int(httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def origin_host(origin: str) -> str:
    """``demo.webrefs.test`` of ``http://demo.webrefs.test``."""
    host = urlsplit(origin).hostname
    if not host:
        raise ValueError(f"not an origin: {origin!r}")
    return host


def host_resolver_rules(ports: Mapping[str, int]) -> str:
    """Chromium's ``--host-resolver-rules`` value: each site host to its local port, every
    other host name to nothing (loopback addresses still work)."""
    rules = [f"MAP {host} 127.0.0.1:{port}" for host, port in sorted(ports.items())]
    rules += ["MAP * ~NOTFOUND", "EXCLUDE 127.0.0.1", "EXCLUDE localhost"]
    return ", ".join(rules)
