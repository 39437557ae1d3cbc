"""Bad input to ``webrefs mcp``: an unknown tool, arguments of the wrong shape, a huge
argument, a client that goes away in the middle of a call. Each gets a tool error or a
protocol error, or ends the server cleanly; never a crashed server, a traceback, or a
browser left running."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.procs import chromium_descendants, wait_until
from tests.helpers.server import SiteServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

HUGE = 5_000_000
"""A 5 MB argument."""


class RawClient:
    """``webrefs mcp`` over stdio, spoken to line by line (JSON-RPC), so that anything can be
    sent, including what no SDK client would send."""

    def __init__(self, errlog: Path) -> None:
        self.errlog = errlog
        with errlog.open("w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "webrefs.cli", "mcp"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, env=dict(os.environ), text=True)
        self.ids = 0
        self.send({"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        assert "result" in self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def next_id(self) -> int:
        self.ids += 1
        return self.ids

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((message if isinstance(message, str) else json.dumps(message))
                              + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60.0) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        assert line, f"the server closed its output: {self.errlog.read_text()}"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def call(self, name: Any, arguments: Any) -> dict[str, Any]:
        ident = self.next_id()
        self.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})
        answer = self.receive()
        assert answer is not None and answer["id"] == ident, answer
        return answer

    def close(self) -> int:
        """Close stdin as a client that goes does; the server's exit code."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def tool_error(answer: dict[str, Any]) -> str:
    result = answer.get("result")
    assert result is not None and result["isError"] is True, answer
    text: str = result["content"][0]["text"]
    return text


def clean(log: Path) -> None:
    text = log.read_text()
    assert "stopped (the client closed the connection); the browser is closed" in text, text
    assert "Traceback" not in text, text


def test_bad_calls_are_errors_and_the_server_goes_on(tmp_path: Path, site: SiteServer) -> None:
    client = RawClient(tmp_path / "err.txt")
    try:
        assert "There is no tool named 'web_fly'" in tool_error(client.call("web_fly", {}))
        long_name = tool_error(client.call("x" * 100_000, {}))
        assert "There is no tool named" in long_name and len(long_name) < 2000
        # arguments that are not an object: the protocol's own error, the server goes on
        for arguments in (["e1"], "e1", 5):
            answer = client.call("web_click", arguments)
            assert answer.get("error", {}).get("code") == -32602, answer
        assert tool_error(client.call("web_click", {"ref": {"deep": [[[[1]]]]}})).startswith(
            "web_click failed: [invalid_argument]")
        assert "'max_tokens'" in tool_error(client.call("web_snapshot", {"max_tokens": "lots"}))
        # a message that is not JSON at all is dropped (the SDK's choice), not fatal
        client.send("{not json")
        # huge arguments: refused with the limit named, quickly, and nothing was typed
        nav = client.call("web_navigate", {"url": site.url("/mcp/whoami.html")})
        assert nav["result"]["isError"] is False, nav
        huge_url = tool_error(client.call("web_navigate",
                                          {"url": site.url("/") + "a" * HUGE}))
        assert "[invalid_argument]" in huge_url and "8192" in huge_url and len(huge_url) < 2000
        snap = client.call("web_snapshot", {})["result"]["content"][0]["text"]
        code = next(line for line in snap.splitlines() if 'textbox "Code"' in line)
        ref = code.split("[ref=")[1].split("]")[0]
        started = time.monotonic()
        huge_fill = tool_error(client.call("web_fill", {"ref": ref, "value": "x" * HUGE}))
        assert "[invalid_argument]" in huge_fill and len(huge_fill) < 2000
        assert time.monotonic() - started < 30
        page = client.call("web_get_text", {})["result"]["content"][0]["text"]
        assert "length=0" in page  # nothing was typed
        # and the server still works
        assert client.call("web_snapshot", {})["result"]["isError"] is False
    finally:
        code = client.close()
    assert code == 0
    clean(tmp_path / "err.txt")


def test_a_client_that_goes_mid_call_ends_the_server_cleanly(tmp_path: Path,
                                                             site: SiteServer) -> None:
    """The client closes its side while a call waits on a page that never answers: the
    server ends at once (it does not wait the call out), closes the browser, and leaves no
    Chromium behind."""
    client = RawClient(tmp_path / "err.txt")
    nav = client.call("web_navigate", {"url": site.url("/mcp/whoami.html")})
    assert nav["result"]["isError"] is False, nav
    browsers = chromium_descendants(client.proc.pid)
    assert browsers
    client.send({"jsonrpc": "2.0", "id": client.next_id(), "method": "tools/call",
                 "params": {"name": "web_navigate", "arguments": {"url": site.url("/__hang")}}})
    time.sleep(1.0)  # the call is under way
    assert client.receive(timeout=0.1) is None
    started = time.monotonic()
    code = client.close()
    assert code == 0 and time.monotonic() - started < 20
    clean(tmp_path / "err.txt")
    assert wait_until(lambda: not any(_alive(pid) for pid in browsers), timeout=10)


def test_a_cancelled_call_leaves_the_server_working(tmp_path: Path, site: SiteServer) -> None:
    """The client gives up on a call (``notifications/cancelled``): the server keeps
    serving, and the next call is answered."""
    client = RawClient(tmp_path / "err.txt")
    try:
        client.call("web_navigate", {"url": site.url("/mcp/whoami.html")})
        ident = client.next_id()
        client.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {
            "name": "web_wait_for", "arguments": {"seconds": 20}}})
        time.sleep(0.5)
        client.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": ident, "reason": "the user stopped it"}})
        started = time.monotonic()
        answer = client.call("web_get_text", {})
        # answered without waiting the 20 s out, whether the cancelled call's answer (an
        # error, if one is sent) came first or not
        while answer.get("id") != client.ids:
            answer = client.receive() or {}
        assert "Who am I" in answer["result"]["content"][0]["text"]
        assert time.monotonic() - started < 15
    finally:
        code = client.close()
    assert code == 0
    clean(tmp_path / "err.txt")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not running
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


async def test_http_client_gone_mid_call_and_a_huge_body(tmp_path: Path,
                                                         site: SiteServer) -> None:
    """Over HTTP: a 5 MB request is refused before it reaches a tool, a client that drops
    its connection in the middle of a call leaves the server serving others, and SIGTERM
    then ends it with the browser closed."""
    import anyio
    from mcp.client import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    from tests.adapters.test_mcp import http_server, text

    log = tmp_path / "err.txt"
    async with http_server(log) as (url, proc):
        async with (streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            await session.call_tool("web_navigate", {"url": site.url("/mcp/whoami.html")})
            with pytest.raises(MCPError):  # the SDK refuses a body over 4 MB (HTTP 413)
                await session.call_tool("web_fill", {"ref": "e1", "value": "x" * HUGE})
            # the session still works after the refused body
            assert "Who am I" in text(await session.call_tool("web_get_text", {}))

        with anyio.move_on_after(2.0):  # a client that drops its connection mid-call
            async with (streamable_http_client(url) as (read, write),
                        ClientSession(read, write) as gone):
                await gone.initialize()
                await gone.call_tool("web_navigate", {"url": site.url("/__hang")})
        async with (streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as after):
            await after.initialize()
            nav = await after.call_tool("web_navigate", {"url": site.url("/mcp/whoami.html")})
            assert not nav.is_error, text(nav)
        assert proc.poll() is None
    assert not chromium_descendants(proc.pid)  # http_server checked the exit code and log
