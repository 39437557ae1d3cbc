"""What the builtin sites share: requests, responses, per-browser sessions, page layout.

Every browser context gets its own session (a ``wr_session`` cookie set on its first request),
and all server-side state (carts, orders, mail, settings) lives in that session, on the
server object, never in module globals: two episodes of one run, or two tests, never see each
other's state. ``GET /api/state`` returns the session's state as JSON, which is what the
suite's success checks read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qs, urlencode

__all__ = ["Request", "Response", "Session", "SiteState", "h", "html_page", "json_response",
           "redirect", "text_response"]


def h(value: object) -> str:
    """HTML-escaped text."""
    return escape(str(value), quote=True)


@dataclass
class Request:
    """One request, parsed."""

    method: str
    path: str
    """The path without the site prefix (``/cart`` of ``/shop/cart``); ``/`` for the home."""
    query: dict[str, str]
    form: dict[str, list[str]]
    body_json: Any = None

    def arg(self, name: str, default: str = "") -> str:
        """A form field (POST) or query parameter, stripped; the last value wins."""
        values = self.form.get(name)
        if values:
            return values[-1].strip()
        return self.query.get(name, default).strip()

    def args(self, name: str) -> list[str]:
        return [v.strip() for v in self.form.get(name, [])]


@dataclass
class Response:
    status: int
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)


def html_page(title: str, body: str, *, site: str = "", nav: str = "", status: int = 200,
              script: str = "") -> Response:
    """A full HTML page with the shared style sheet."""
    head = f"<title>{h(title)}</title>" + (f"<script>{script}</script>" if script else "")
    header = (f'<header><a class="brand" href="/{site}/">{h(site_title(site))}</a>'
              f"{nav}</header>") if site else ""
    text = ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<link rel="stylesheet" href="/static/base.css">'
            f"{head}</head><body>{header}<main>{body}</main></body></html>\n")
    return Response(status, text.encode())


_TITLES = {"shop": "Tidewater Outfitters", "mail": "Quaymail", "admin": "Gullhouse Admin",
           "travel": "Northwind Air", "table": "Dockside Inventory", "wiki": "Portlow Wiki",
           "account": "Harbour ID", "widgets": "Widget Pier"}


def site_title(site: str) -> str:
    return _TITLES.get(site, site)


def json_response(value: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(value, sort_keys=True).encode(),
                    "application/json; charset=utf-8")


def text_response(text: str, status: int = 200) -> Response:
    return Response(status, text.encode(), "text/plain; charset=utf-8")


def redirect(location: str, params: dict[str, str] | None = None) -> Response:
    if params:
        location += "?" + urlencode(params)
    return Response(303, b"", headers=[("Location", location)])


def parse_form(body: bytes, content_type: str) -> tuple[dict[str, list[str]], Any]:
    """Fields of a URL-encoded body, or a JSON body."""
    text = body.decode("utf-8", "replace")
    if "json" in content_type:
        try:
            return {}, json.loads(text or "null")
        except json.JSONDecodeError:
            return {}, None
    return parse_qs(text, keep_blank_values=True), None


class SiteState(Protocol):
    def to_json(self) -> Any: ...


S = TypeVar("S", bound=SiteState)


class Session:
    """The server-side state of one browser context, one object per site."""

    def __init__(self, sid: str, lookup: Callable[[str], Session | None] | None = None) -> None:
        self.sid = sid
        self._states: dict[str, Any] = {}
        self._lookup = lookup

    def find(self, sid: str) -> Session | None:
        """Another session of the same server by its id (for tokens handed to frames)."""
        if sid == self.sid:
            return self
        return self._lookup(sid) if self._lookup is not None else None

    def get(self, key: str, make: Callable[[], S]) -> S:
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = make()
        return state

    def to_json(self) -> dict[str, Any]:
        return {k: v.to_json() for k, v in sorted(self._states.items())}
