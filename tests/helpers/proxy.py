"""A recording proxy for tests: Chromium sends every request through it; it forwards only
requests for the test's own servers on 127.0.0.1 and records and refuses everything else.

It never opens a connection to anything but 127.0.0.1, and only to the ports it was given,
so a browser behind it cannot reach the internet even when a defect makes it try. Host names
listed in ``aliases`` (``a.hostile.test``) stand for 127.0.0.1, as the test's
``--host-resolver-rules`` map them.

::

    with RecordingProxy(ports={site.port}) as proxy:
        browser = Browser.launch(args=proxy.chromium_args())
        ...
        assert proxy.refused == []
"""

from __future__ import annotations

import base64
import contextlib
import socket
import socketserver
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

_LOOPBACK = "127.0.0.1"
_MAX_HEAD = 64 * 1024


@dataclass(frozen=True)
class Seen:
    """One request the browser sent through the proxy."""

    method: str
    host: str
    port: int
    target: str
    forwarded: bool


def _read_head(conn: socket.socket) -> tuple[bytes, bytes] | None:
    """The request head (up to the blank line) and what was read past it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > _MAX_HEAD:
            return None
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            chunk = src.recv(65536)
            if not chunk:
                break
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


class RecordingProxy:
    """An HTTP proxy on 127.0.0.1 that forwards only to ``ports`` on 127.0.0.1."""

    def __init__(self, ports: set[int], aliases: tuple[str, ...] = (),
                 credentials: tuple[str, str] | None = None) -> None:
        self.ports = set(ports)
        self.aliases = {a.lower() for a in aliases}
        self.credentials = credentials
        """``(user, password)`` every request must carry in ``Proxy-Authorization`` (Basic);
        without them the proxy answers 407 and forwards nothing."""
        self.challenged = 0
        """Requests answered 407 (no or wrong credentials)."""
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy._handle(self.request)

        self.server = socketserver.ThreadingTCPServer((_LOOPBACK, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # -- what the test reads --------------------------------------------------------------
    @property
    def refused(self) -> list[Seen]:
        """Requests for anything but the test's servers (none was forwarded)."""
        with self._lock:
            return [s for s in self.seen if not s.forwarded]

    def chromium_args(self) -> list[str]:
        """Flags that send all of Chromium's traffic, loopback included, through this proxy,
        with the alias host names mapped to loopback."""
        args = [f"--proxy-server=http://{_LOOPBACK}:{self.port}",
                "--proxy-bypass-list=<-loopback>"]
        if self.aliases:
            rules = ", ".join(f"MAP {a} {_LOOPBACK}" for a in sorted(self.aliases))
            args.append(f"--host-resolver-rules={rules}")
        return args

    # -- serving ----------------------------------------------------------------------------
    def _allowed(self, host: str, port: int) -> bool:
        host = host.strip("[]").lower()
        return (host in (_LOOPBACK, "localhost") or host in self.aliases) and port in self.ports

    def _record(self, method: str, host: str, port: int, target: str, forwarded: bool) -> None:
        with self._lock:
            if len(self.seen) < 10_000:
                self.seen.append(Seen(method, host, port, target[:300], forwarded))

    def _authorized(self, headers: list[str]) -> bool:
        if self.credentials is None:
            return True
        expected = "Basic " + base64.b64encode(":".join(self.credentials).encode()).decode()
        for h in headers:
            name, _, value = h.partition(":")
            if name.strip().lower() == "proxy-authorization":
                return value.strip() == expected
        return False

    @staticmethod
    def _connect_loopback(port: int) -> socket.socket:
        # the one place a connection is opened: always to 127.0.0.1
        return socket.create_connection((_LOOPBACK, port), timeout=30)

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        try:
            got = _read_head(conn)
            if got is None:
                return
            head, rest = got
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) != 3:
                return
            method, target, version = parts
            if not self._authorized(lines[1:]):
                with self._lock:
                    self.challenged += 1
                conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                             b'Proxy-Authenticate: Basic realm="test"\r\n'
                             b"Connection: close\r\nContent-Length: 0\r\n\r\n")
                return
            if method.upper() == "CONNECT":
                host, _, port_text = target.rpartition(":")
                port = int(port_text) if port_text.isdigit() else 443
                ok = self._allowed(host, port)
                self._record(method, host, port, target, ok)
                if not ok:
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                    return
                upstream = self._connect_loopback(port)
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    upstream.sendall(rest)
                t = threading.Thread(target=_pipe, args=(upstream, conn), daemon=True)
                t.start()
                _pipe(conn, upstream)
                t.join(30)
                return
            url = urlsplit(target)
            host = url.hostname or ""
            port = url.port or 80
            ok = url.scheme == "http" and self._allowed(host, port)
            self._record(method, host, port, target, ok)
            if not ok:
                body = b"refused by the test proxy"
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nConnection: close\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                return
            path = url.path or "/"
            if url.query:
                path += "?" + url.query
            headers = [h for h in lines[1:] if h.split(":", 1)[0].strip().lower()
                       not in ("connection", "proxy-connection", "keep-alive",
                               "proxy-authorization")]
            length = 0
            for h in headers:
                name, _, value = h.partition(":")
                if name.strip().lower() == "content-length" and value.strip().isdigit():
                    length = int(value.strip())
            body = rest
            while len(body) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                body += chunk
            upstream = self._connect_loopback(port)
            with upstream:
                request = "\r\n".join([f"{method} {path} {version}", *headers,
                                       "Connection: close", "", ""]).encode("latin-1")
                upstream.sendall(request + body[:length])
                while True:
                    chunk = upstream.recv(65536)
                    if not chunk:
                        break
                    conn.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
