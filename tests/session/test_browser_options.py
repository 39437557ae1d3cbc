"""Browser options through Browser.launch(): identity, emulation, headers, location,
storage state. A local server on 127.0.0.1 records the headers it receives and sets a cookie."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from webrefs import Browser
from webrefs.errors import InvalidArgumentError
from webrefs.session.launcher import proxy_settings

from tests.helpers.paths import TESTS

PAGE = (TESTS / "sites" / "config" / "identity.html").read_bytes()


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).seen.append({k.lower(): v for k, v in self.headers.items()})
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if self.path.startswith("/login"):
            self.send_header("Set-Cookie", "session=s3cret; Path=/; Max-Age=3600")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, str]]]]:
    handler = type("Recorder", (_Recorder,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler.seen
    server.shutdown()
    server.server_close()


_READ = """() => ({ua: navigator.userAgent, lang: navigator.language,
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone, width: innerWidth,
  touch: navigator.maxTouchPoints, cookie: document.cookie})"""


def test_identity_locale_timezone_headers(recorder: tuple[str, list[dict[str, str]]]) -> None:
    origin, seen = recorder
    with Browser.launch(user_agent="webrefs-test-agent/1.0", locale="de-DE",
                        timezone_id="Asia/Tokyo", viewport=(900, 700),
                        extra_http_headers={"X-Webrefs-Test": "yes"}) as browser:
        tab = browser.new_tab(origin + "/")
        page = tab.evaluate(_READ)
    assert page["ua"] == "webrefs-test-agent/1.0"
    assert page["lang"] == "de-DE"
    assert page["tz"] == "Asia/Tokyo"
    assert page["width"] == 900
    first = seen[0]
    assert first["user-agent"] == "webrefs-test-agent/1.0"
    assert first["x-webrefs-test"] == "yes"
    assert first["accept-language"].startswith("de-DE")


def test_device_emulation_and_override(recorder: tuple[str, list[dict[str, str]]]) -> None:
    origin, _seen = recorder
    with Browser.launch(device="Pixel 7") as browser:
        page = browser.new_tab(origin + "/").evaluate(_READ)
    assert "Android" in page["ua"] and page["width"] == 412 and page["touch"] > 0
    with Browser.launch(device="Pixel 7", user_agent="mine/2") as browser:
        page = browser.new_tab(origin + "/").evaluate(_READ)
    assert page["ua"] == "mine/2" and page["width"] == 412
    with pytest.raises(InvalidArgumentError, match="Unknown device") as info:
        Browser.launch(device="Pixel 700")
    assert "Pixel 7" in str(info.value)


def test_geolocation_with_permission(recorder: tuple[str, list[dict[str, str]]]) -> None:
    origin, _seen = recorder
    with Browser.launch(geolocation=(52.52, 13.405), permissions=("geolocation",)) as browser:
        tab = browser.new_tab(origin + "/")
        where = tab.evaluate("""() => new Promise((ok, no) =>
            navigator.geolocation.getCurrentPosition(
              p => ok([p.coords.latitude, p.coords.longitude]), e => no(e.message)))""")
    assert where == [52.52, 13.405]


def test_storage_state_round_trip(recorder: tuple[str, list[dict[str, str]]],
                                  tmp_path: Path) -> None:
    origin, seen = recorder
    state = tmp_path / "state.json"
    with Browser.launch() as browser:
        browser.new_tab(origin + "/login")
        browser.active_tab.evaluate("() => localStorage.setItem('who', 'ada')")
        returned = browser.save_storage_state(str(state))
    saved = json.loads(state.read_text())
    assert [c["name"] for c in saved["cookies"]] == ["session"] == [
        c["name"] for c in returned["cookies"]]
    with Browser.launch(storage_state=str(state)) as browser:
        tab = browser.new_tab(origin + "/account")
        assert tab.evaluate("() => localStorage.getItem('who')") == "ada"
        assert tab.evaluate("() => document.cookie") == "session=s3cret"
    assert seen[-1].get("cookie") == "session=s3cret"
    with Browser.launch() as browser:  # a fresh browser has none of it
        browser.new_tab(origin + "/account")
    assert "cookie" not in seen[-1]
    with pytest.raises(InvalidArgumentError, match="not a file"):
        Browser.launch(storage_state=str(tmp_path / "missing.json"))
    with pytest.raises(InvalidArgumentError, match="user_data_dir"):
        Browser.launch(storage_state=str(state), user_data_dir=str(tmp_path / "profile"))


def test_proxy_settings_take_credentials_out_of_the_url() -> None:
    assert proxy_settings("http://ann:p%40ss@127.0.0.1:3128") == {
        "server": "http://127.0.0.1:3128", "username": "ann", "password": "p@ss"}
    assert proxy_settings("socks5://127.0.0.1:1080") == {"server": "socks5://127.0.0.1:1080"}
    assert proxy_settings("127.0.0.1:8080") == {"server": "http://127.0.0.1:8080"}
    assert proxy_settings({"server": "http://p:1", "bypass": "localhost"})["bypass"] == "localhost"
    with pytest.raises(InvalidArgumentError):
        proxy_settings({"username": "x"})
