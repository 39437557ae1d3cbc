"""One event loop per Browser, on its own thread, and the bridge to it from any caller.

Every Playwright call of a Browser runs on that Browser's loop. Sync callers (any thread,
including one inside a running loop such as a Jupyter cell) block on a future; async callers on
another loop await a wrapped future; async callers already on the loop await directly.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from .errors import BrowserClosedError, WebrefsError

T = TypeVar("T")

__all__ = ["Runner"]


class Runner:
    """Runs coroutines on one loop. Owns a thread when ``loop`` is not given."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._thread: threading.Thread | None = None
        if loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def serve() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            self._thread = threading.Thread(target=serve, name="webrefs-loop", daemon=True)
            self._thread.start()
            ready.wait()
        self.loop = loop
        self._stopped = False

    @property
    def owns_thread(self) -> bool:
        return self._thread is not None

    def _on_loop_thread(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and block until it finishes (sync callers)."""
        if self._stopped:
            coro.close()
            raise BrowserClosedError("This browser is closed.", hint="Launch a new Browser.")
        if self._on_loop_thread():
            coro.close()
            raise WebrefsError(
                "A blocking webrefs call was made from the event loop that drives the browser, "
                "which would deadlock.",
                hint="Inside async code use the 'a'-prefixed method, e.g. 'await tab.aclick(...)'.",
            )
        fut: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result()

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the loop from any loop (async callers)."""
        if self._stopped:
            coro.close()
            raise BrowserClosedError("This browser is closed.", hint="Launch a new Browser.")
        if self._on_loop_thread():
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        """Stop the owned loop thread (no-op for a borrowed loop). Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        if self._thread is None:
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)
            if not self._thread.is_alive():
                self.loop.close()
