"""A TCP relay on loopback that forwards to one loopback port and notes what its clients
sent, so a test can tell which of several browsers a run attached to.

Chromium answers ``/json/version`` with a WebSocket address built from the request's
``Host`` header, so a DevTools client that came in through the relay keeps using it: the
relay sees the protocol's WebSocket upgrade as well as the HTTP request.

::

    with Relay(chrome.port) as relay:
        Browser.connect(relay.endpoint)
        assert relay.upgrades() == 1
"""

from __future__ import annotations

import contextlib
import socket
import threading

__all__ = ["Relay"]


class Relay:
    """Accepts on ``127.0.0.1:<port>`` and forwards each connection to ``127.0.0.1:target``."""

    def __init__(self, target: int) -> None:
        self.target = target
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._lock = threading.Lock()
        self._sent: list[bytes] = []  # the first bytes of each client connection
        self._open: list[socket.socket] = []
        self._stopped = threading.Event()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connections(self) -> int:
        with self._lock:
            return len(self._sent)

    def upgrades(self) -> int:
        """How many WebSockets clients opened through the relay (a DevTools client's
        attachments)."""
        with self._lock:
            return sum(b"upgrade: websocket" in first.lower() for first in self._sent)

    def __enter__(self) -> Relay:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._server.close()
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._sent.append(b"")
                index = len(self._sent) - 1
                self._open += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, index),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, None),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, index: int | None) -> None:
        try:
            while data := src.recv(65536):
                if index is not None:
                    with self._lock:
                        if len(self._sent[index]) < 4096:
                            self._sent[index] += data[:4096]
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
