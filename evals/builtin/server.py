"""The request handler of the builtin sites: one origin, each site under its own prefix.

``/shop/``, ``/mail/``, ``/admin/``, ``/travel/``, ``/table/``, ``/wiki/``, ``/account/`` and
``/widgets/`` are routed to their module's ``handle(request, session)``; what a module does not
answer is served from the static folder. ``GET /api/state`` is the session's state as JSON
(what success checks read); ``GET /api/sessions`` counts sessions (for tests).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..running.sites import SiteHandler
from . import account, admin, mail, shop, table, travel, widgets, wiki
from .core import Request, Response, Session, json_response, parse_form

__all__ = ["SITES", "BuiltinHandler"]

Handler = Callable[[Request, Session], Response | None]

SITES: dict[str, tuple[Handler, Callable[[Session], Any]]] = {
    "shop": (shop.handle, shop.state),
    "mail": (mail.handle, mail.state),
    "admin": (admin.handle, admin.state),
    "travel": (travel.handle, travel.state),
    "table": (table.handle, table.state),
    "wiki": (wiki.handle, wiki.state),
    "account": (account.handle, account.state),
    "widgets": (widgets.handle, widgets.state),
}
"""Each site's request handler and its state's maker, by path prefix."""

_SETUP = threading.Lock()
COOKIE = "wr_session"


class _Store:
    """The sessions of one server (one run)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.sessions: dict[str, Session] = {}
        self.ids = itertools.count(1)


def _store(server: Any) -> _Store:
    with _SETUP:
        store = getattr(server, "builtin_store", None)
        if store is None:
            store = _Store()
            server.builtin_store = store
        return store


class BuiltinHandler(SiteHandler):
    """Routes by prefix to the site modules; state per browser session, on the server."""

    _new_cookie: str | None = None

    def end_headers(self) -> None:
        if self._new_cookie is not None:
            self.send_header("Set-Cookie", f"{COOKIE}={self._new_cookie}; Path=/; SameSite=Lax")
            self._new_cookie = None
        super().end_headers()

    def _session(self, store: _Store) -> Session:
        cookies = self.headers.get("Cookie", "")
        for part in cookies.split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE and value in store.sessions:
                return store.sessions[value]
        sid = f"s{next(store.ids)}"
        store.sessions[sid] = Session(sid, store.sessions.get)
        self._new_cookie = sid
        return store.sessions[sid]

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        if path.endswith((".py", ".pyc")) or "__pycache__" in path:
            self._send(Response(404, b"Not found", "text/plain"))
            return
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        form: dict[str, list[str]] = {}
        body_json: Any = None
        if method == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            form, body_json = parse_form(body, self.headers.get("Content-Type", ""))
        store = _store(self.server)
        with store.lock:
            session = self._session(store)
            response: Response | None = None
            if path == "/api/state":
                response = json_response({name: make(session).to_json()
                                          for name, (_, make) in SITES.items()})
            elif path == "/api/sessions":
                response = json_response({"sessions": len(store.sessions)})
            else:
                prefix, _, rest = path.lstrip("/").partition("/")
                site = SITES.get(prefix)
                if site is not None:
                    request = Request(method, "/" + rest, query, form, body_json)
                    response = site[0](request, session)
        if response is not None:
            self._send(response, head=method == "HEAD")
        elif method == "POST":
            self._send(Response(405, b"Method not allowed", "text/plain"))
        elif method == "HEAD":
            super().do_HEAD()
        else:
            super().do_GET()

    def _send(self, response: Response, *, head: bool = False) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers:
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(response.body)
