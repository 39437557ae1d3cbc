"""A direct line to webrefs' world in a page's main frame: the extractor called over DevTools.

The selector-engine way into webrefs' isolated world (:mod:`.world`) costs Playwright's whole
selector path on every call and hands the result back as the text of a detached element: on
a large page that is milliseconds more than the same JavaScript run by one DevTools
``Runtime.evaluate``. So, once the engine has run in a document (that is what defines the
world), a :class:`DirectLine` finds that same world among the page's execution contexts and
calls the extractor there itself. The registry is the same object either way, so refs do not
depend on which way a read went.

Finding the world: a ``Runtime.enable`` on the line's own DevTools session lists the page's
execution contexts, and ``Runtime.disable`` follows at once (no console traffic is kept). The
world is the isolated context of the top frame that holds the engine's entry point
(:data:`DIRECT_KEY`, an unguessable per-process name defined there by the engine); no page
script can reach that world, so none can pose as it. Finding runs in the background, begun
alongside a read that goes the engine's way (the contexts are listed meanwhile, and probed
once that read is done), and never delays a read.

Contract: :meth:`DirectLine.extract` returns the extractor's output, or ``None`` when the line
cannot serve this read (no world found yet, a new document, no DevTools); the caller then goes
the engine's way, which is always correct, and the line looks again. A read that runs past its
bound raises the builtin :class:`TimeoutError`, as the engine's way does.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import secrets
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

__all__ = ["DIRECT_KEY", "DirectLine"]

DIRECT_KEY = f"__webrefs_x_{secrets.token_hex(8)}"
"""Global of webrefs' world (never of the page's) holding the extractor's entry point."""

_FIND_TIMEOUT_S = 3.0
"""Bound on finding the world (a few DevTools round trips)."""

_PACK_JS = (
    # The output travels as base64 of its UTF-8 where the world can make it: DevTools messages
    # escape every quote of JSON text and every character past ASCII, which costs more on the
    # way out than a third more characters that need no escaping (one page's 194 KB: 14 ms as
    # JSON text, 10 ms as base64 with the encoding). JSON text begins with "{", base64 never.
    "((s) => typeof s === 'string' && typeof Uint8Array.prototype.toBase64 === 'function'"
    " ? new TextEncoder().encode(s).toBase64() : s)"
)
_IS_OURS_JS = f"window.top === window && typeof window[{json.dumps(DIRECT_KEY)}] === 'function'"


class DirectLine:
    """The direct way to one page's top-frame world (one per page, made by :class:`World`).

    Only touched on the browser's loop. Holds a DevTools session of its own, opened on first
    use, and no reference to the page (the world keeps lines by page, weakly).
    """

    def __init__(self) -> None:
        self._session: CDPSession | None = None
        self._context: int | None = None
        self._finding: asyncio.Future[None] | None = None
        self._engine_ran = asyncio.Event()
        self._usable = True
        self.reads = 0
        """Reads this line served (for tests and benchmarks)."""

    async def extract(self, opts: dict[str, Any], timeout_s: float) -> str | None:
        """The extractor's output for the top frame, or ``None`` when the line cannot serve
        this read (then call :meth:`look`, go the engine's way, and call :meth:`engine_ran`)."""
        session, context = self._session, self._context
        if session is None or context is None:
            return None
        expression = f"{_PACK_JS}(window[{json.dumps(DIRECT_KEY)}]({json.dumps(opts)}))"
        try:
            got = await asyncio.wait_for(
                session.send("Runtime.evaluate", {
                    "expression": expression, "contextId": context, "returnByValue": True,
                }), timeout_s)
        except PlaywrightError:
            # most often a new document (its world is new); the engine's way answers this read
            self._context = None
            return None
        value = (got.get("result") or {}).get("value")
        if "exceptionDetails" in got or not isinstance(value, str):
            self._context = None
            return None
        if not value.startswith("{"):  # base64 (see _PACK_JS)
            try:
                value = base64.b64decode(value, validate=True).decode("utf-8")
            except ValueError:
                self._context = None
                return None
        self.reads += 1
        return value

    def look(self, page: Page) -> None:
        """Start finding ``page``'s world, alongside a read that goes the engine's way: the
        page's contexts are listed at once, and probed once :meth:`engine_ran` says the
        engine has been in this document (which defines its entry point)."""
        if not self._usable or self._context is not None:
            return
        if self._finding is not None and not self._finding.done():
            return
        self._engine_ran.clear()
        self._finding = asyncio.ensure_future(self._find_quietly(page))

    def engine_ran(self) -> None:
        """The engine has just read the page's current document."""
        self._engine_ran.set()

    async def _find_quietly(self, page: Page) -> None:
        try:
            await asyncio.wait_for(self._find(page), _FIND_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):
            self._context = None  # closed, crashed or busy: looked for again after a read

    async def _find(self, page: Page) -> None:
        if page.is_closed():
            return
        if self._session is None:
            try:
                self._session = await page.context.new_cdp_session(page)
            except PlaywrightError as exc:
                if "closed" in str(exc).lower():
                    raise
                self._usable = False  # no DevTools here: the engine's way only
                return
        session = self._session
        contexts: list[dict[str, Any]] = []

        def seen(event: dict[str, Any]) -> None:
            context = event.get("context")
            if isinstance(context, dict):
                contexts.append(context)

        session.on("Runtime.executionContextCreated", seen)
        try:
            await session.send("Runtime.enable")  # lists every context before it answers
        finally:
            session.remove_listener("Runtime.executionContextCreated", seen)
            with contextlib.suppress(PlaywrightError):
                await session.send("Runtime.disable")
        isolated = [c["id"] for c in contexts
                    if isinstance(c.get("id"), int)
                    and not (c.get("auxData") or {}).get("isDefault", True)]
        await self._engine_ran.wait()
        answers = await asyncio.gather(*(
            session.send("Runtime.evaluate", {
                "expression": _IS_OURS_JS, "contextId": cid, "returnByValue": True})
            for cid in isolated), return_exceptions=True)
        for cid, answer in zip(isolated, answers, strict=True):
            if isinstance(answer, dict) and (answer.get("result") or {}).get("value") is True:
                self._context = cid
                return
