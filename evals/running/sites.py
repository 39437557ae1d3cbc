"""Serving a suite's site locally under its fixed origin.

A site's files are served by a small HTTP server on 127.0.0.1 at a free port; the browser
maps the site's fixed host (``demo.webrefs.test``) to that port with Chromium's
host-resolver rules, and resolves every other host name to nothing. Pages, and therefore
snapshots and model prompts, are byte-identical from run to run whatever the port.

A site with server-side behaviour names a :class:`SiteHandler` subclass (``Site.handler``,
``module:Class``): it serves the folder's static files like the plain handler and adds its
own routes (``do_POST``, sessions, validation); it is webrefs' own or in the suite's
folder, unless the run trusts the suite's code (:mod:`.codescope`). One server instance
serves one run; a handler keeps state on its server (``self.server``), never in globals, so
runs and tests do not share it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webrefs.errors import InvalidArgumentError

from ..suite.codescope import CodeScope
from ..suite.inputs import inside

__all__ = ["SiteHandler", "host_resolver_rules", "load_handler", "origin_host", "serve_folder"]


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves a site's static files, quietly and uncached; subclass it for server-side
    behaviour. A file is served only when it is in the served folder with every link
    followed (a link in the site that leads out of it is not found)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def send_head(self) -> Any:
        if not inside(self.translate_path(self.path), self.directory):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()


def load_handler(spec: str | None, code: CodeScope | None = None) -> type[SiteHandler]:
    """The handler class named ``module:Class`` (the static handler for ``None``), imported
    only when ``code`` allows it (webrefs' own modules when ``code`` is ``None``). Raises
    :class:`~webrefs.errors.InvalidArgumentError`."""
    if spec is None:
        return SiteHandler
    found = (code or CodeScope()).load(spec, "site.handler")
    if not (isinstance(found, type) and issubclass(found, SiteHandler)):
        raise InvalidArgumentError(f"site.handler {spec!r} is not a SiteHandler subclass.")
    return found


@contextlib.contextmanager
def serve_folder(folder: Path, handler_class: type[SiteHandler] = SiteHandler) -> Iterator[int]:
    """Serve ``folder`` on 127.0.0.1 at a free port with ``handler_class``; yields the port."""
    handler = partial(handler_class, directory=str(folder))
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
