"""A local web server for tests: serves tests/sites/ on 127.0.0.1 at a free port.

Besides static files it has a few dynamic routes for timing cases:

- ``/__slow?ms=N`` answers after N milliseconds (capped at 30 s); with ``&type=js`` the answer
  is a script (a parser-blocking ``<script src>`` then holds the page's parsing that long);
  with ``&type=svg`` a 12 px square image; with ``&file=/path`` that file of tests/sites/ (a
  style sheet that arrives late).
- ``/__hang`` keeps the connection open without answering (long polling), up to 60 s.
- ``/__status?code=N`` answers with that HTTP status.
- ``/__echo`` answers a POST or GET with a small page showing the query and the body.
- ``/__redirect?to=URL`` answers 302 to that URL.
- ``/__effects/<any path>`` answers every method (GET, POST, PUT, PATCH, DELETE) with a small
  page showing the method, the path and the body: a stand-in server for pages whose forms and
  requests pay, delete or transfer.
"""

from __future__ import annotations

import html
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.helpers.paths import TESTS

SITES = TESTS / "sites"


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _send(self, code: int, body: str, ctype: str = "text/html; charset=utf-8") -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _dynamic(self, method: str) -> bool:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path == "/__slow":
            ms = min(int(query.get("ms", ["500"])[0]), 30_000)
            time.sleep(ms / 1000)
            if "file" in query:
                self.path = query["file"][0]
                super().do_GET()
            elif query.get("type") == ["js"]:
                self._send(200, f"window.waited = {ms};", "text/javascript")
            elif query.get("type") == ["svg"]:
                self._send(200, '<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12">'
                           '<rect width="12" height="12" fill="red"/></svg>', "image/svg+xml")
            else:
                self._send(200, f"<title>slow</title><p id=done>waited {ms} ms</p>")
            return True
        if parts.path == "/__redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", ["/"])[0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        if parts.path == "/__css":  # a style sheet importing the sheet at ?import=
            target = query.get("import", [""])[0].replace('"', "%22")
            self._send(200, f'@import url("{target}");\n', "text/css")
            return True
        if parts.path == "/__hang":
            time.sleep(60)
            return True
        if parts.path == "/__status":
            code = int(query.get("code", ["500"])[0])
            self._send(code, f"<title>status {code}</title><h1>Status {code}</h1>")
            return True
        if parts.path.startswith("/__effects/"):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode(errors="replace") if length else ""
            shown = html.escape(f"{method} {parts.path} {body}"[:2000])
            self._send(200, f"<title>done</title><main><h1>Done</h1><p id=echo>{shown}</p>"
                       "</main>")
            return True
        if parts.path == "/__echo":
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode(errors="replace") if length else ""
            shown = html.escape(f"{method} {parts.query} {body}")
            self._send(200, f"<title>echo</title><main><h1>Echo</h1><p id=echo>{shown}</p></main>")
            return True
        return False

    def do_GET(self) -> None:
        if not self._dynamic("GET"):
            super().do_GET()

    def do_POST(self) -> None:
        if not self._dynamic("POST"):
            self._send(405, "method not allowed", "text/plain")

    def _other(self) -> None:
        if not self._dynamic(self.command):
            self._send(405, "method not allowed", "text/plain")

    do_PUT = do_PATCH = do_DELETE = _other


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone before its answer (a tab closed while a slow resource was on its
        way) is no error of the server's; anything else is printed as before."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class SiteServer:
    """``with SiteServer() as s: s.url('/page.html')``"""

    def __init__(self, root: Path = SITES) -> None:
        handler = partial(_Handler, directory=str(root))
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str = "/") -> str:
        return self.origin + (path if path.startswith("/") else "/" + path)

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
