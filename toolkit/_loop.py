"""One event loop per Browser, on its own thread, and the bridge to it from any caller.

Every Playwright call of a Browser runs on that Browser's loop. Sync callers (any thread,
including one inside a running loop such as a Jupyter cell) block on a future; async callers on
another loop await a wrapped future; async callers already on the loop await directly.

:func:`blocking` makes the blocking twin of an ``a``-prefixed coroutine method, so each call of
the public front-ends is written once (``click = blocking(aclick)``).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from .errors import BrowserClosedError, WebrefsError

T = TypeVar("T")
P = ParamSpec("P")

__all__ = ["Bound", "Runner", "blocking"]


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
                host_hint="Inside async code use the 'a'-prefixed method, e.g. "
                "'await tab.aclick(...)'.",
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
        # what is still running on the loop ends first (cancelled), so no caller on another
        # loop is left holding a future whose loop is closed (its cancellation would then fail)
        asyncio.run_coroutine_threadsafe(_drain_then_stop(self.loop), self.loop)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)
            if not self._thread.is_alive():
                self.loop.close()


async def _drain_then_stop(loop: asyncio.AbstractEventLoop, grace: float = 5.0) -> None:
    """Cancel every other task on ``loop``, give them ``grace`` seconds to end, stop it."""
    here = asyncio.current_task()
    pending = [t for t in asyncio.all_tasks(loop) if t is not here]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=grace)
    loop.stop()


class Bound(Protocol):
    """An object whose coroutines run on one :class:`Runner`'s loop."""

    @property
    def runner(self) -> Runner: ...


B = TypeVar("B", bound=Bound)


def blocking(
    method: Callable[Concatenate[B, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[B, P], T]:
    """The blocking twin of coroutine method ``aname``: named ``name``, same arguments and
    docstring, runs the coroutine on the object's loop and waits for it (any thread)."""

    @functools.wraps(method)
    def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.runner.run(method(self, *args, **kwargs))

    if method.__name__.startswith("a"):
        run.__name__ = method.__name__[1:]
        run.__qualname__ = method.__qualname__.rsplit(".", 1)[0] + "." + run.__name__
    return run
