"""A live builtin-site server per test, and a small HTTP client with its own cookie jar (one
client is one browser session)."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from webrefs.evals.builtin.server import BuiltinHandler
from webrefs.evals.running.sites import serve_folder
from webrefs.evals.suite.tasks import load_suite

WWW = Path(load_suite("builtin").site_dir or ".")


@dataclass
class Reply:
    status: int
    url: str
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


class Client:
    """One browser session against the server: cookies kept, redirects followed."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def _open(self, request: urllib.request.Request) -> Reply:
        try:
            with self.opener.open(request, timeout=10) as resp:
                return Reply(resp.status, resp.url, resp.read().decode())
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.url or "", err.read().decode())

    def get(self, path: str, **query: str) -> Reply:
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        return self._open(urllib.request.Request(url))

    def post(self, path: str, form: dict[str, str] | None = None, *,
             json_body: Any = None) -> Reply:
        if json_body is not None:
            data = json.dumps(json_body).encode()
            headers = {"Content-Type": "application/json"}
        else:
            data = urllib.parse.urlencode(form or {}).encode()
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return self._open(urllib.request.Request(self.base + path, data=data, headers=headers,
                                                 method="POST"))

    def state(self) -> Any:
        return self.get("/api/state").json()


@pytest.fixture
def port() -> Iterator[int]:
    with serve_folder(WWW, BuiltinHandler) as p:
        yield p


@pytest.fixture
def client(port: int) -> Client:
    return Client(port)
