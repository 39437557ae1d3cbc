"""A bare DevTools client for tests: one WebSocket to a browser, standard library only.

It stands for "some other automation client" attaching to a browser webrefs is attached to
(a debugger, a script of the user's): it speaks the DevTools protocol with no Playwright in
between, so what it leaves behind is what Chromium keeps, not what a client library undoes.

::

    with RawDevTools(ws_url) as cdp:
        targets = cdp.send("Target.getTargets")["targetInfos"]
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import struct
from typing import Any
from urllib.parse import urlsplit

__all__ = ["RawDevTools"]


class RawDevTools:
    """A DevTools connection over a WebSocket (``ws://host:port/devtools/browser/...``)."""

    def __init__(self, ws_url: str, timeout: float = 15.0) -> None:
        parts = urlsplit(ws_url)
        if parts.hostname not in ("127.0.0.1", "localhost"):
            raise ValueError("tests talk to loopback only")
        self._sock = socket.create_connection((parts.hostname, parts.port or 80),
                                              timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self._sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self._sock.recv(1)
            if not chunk:
                raise ConnectionError("the browser closed the DevTools socket")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"no WebSocket upgrade: {head[:200]!r}")
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        """Events received while waiting for answers, oldest first."""

    # -- frames -----------------------------------------------------------------------------
    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self._sock.sendall(head + mask + masked)

    def _read_exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self._sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the browser closed the DevTools socket")
            data += chunk
        return data

    def _read_message(self) -> str:
        parts: list[bytes] = []
        while True:
            first, second = self._read_exactly(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._read_exactly(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._read_exactly(8))
            payload = self._read_exactly(size)
            if opcode == 0x8:
                raise ConnectionError("the browser closed the DevTools socket")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts).decode()

    # -- messages ---------------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None,
             session_id: str | None = None) -> dict[str, Any]:
        """Send one command and return its result (raises ``RuntimeError`` on an error)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        self._send_frame(0x1, json.dumps(message).encode())
        while True:
            got = json.loads(self._read_message())
            if got.get("id") == self._next_id:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                result: dict[str, Any] = got.get("result", {})
                return result
            self.events.append(got)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send_frame(0x8, struct.pack("!H", 1000))
        self._sock.close()

    def __enter__(self) -> RawDevTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
