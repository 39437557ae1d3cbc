"""A direct line to webrefs' world in a page's frames: the extractor called over DevTools.

The selector-engine way into webrefs' isolated world (:mod:`.world`) costs Playwright's whole
selector path on every call and hands the result back as the text of a detached element: on
a large page that is milliseconds more than the same JavaScript run by one DevTools
``Runtime.evaluate``, and on a small frame it is most of the read (a child frame of a few
elements, read and parsed: 6 to 11 ms through the engine, about 3 ms direct). So, once the
engine has run in a document (that is what defines the world), a :class:`DirectLine` finds
that same world among the page's execution contexts and calls the extractor there itself.
The registry is the same object either way, so refs do not
depend on which way a read went.

Finding the world: each frame has a *token*, a random name the host gives it (see
:class:`~.world.World`), and every engine read carries it; the engine keeps the latest on its
entry point (:data:`DIRECT_KEY`, an unguessable per-process name it defines in its world).
Alongside an engine read of a frame the line has not found, a ``Runtime.enable`` on the line's
own DevTools session lists the page's execution contexts (``Runtime.disable`` follows at once,
so no console traffic is kept); once the read is done, each isolated one is asked for its
token: one look finds every frame read so far. No page script can reach that world, so none
can pose as it. A frame in another renderer process (another origin, with site isolation) is
not among this page's contexts: DevTools gives it a target of its own, and a line of its own
(made by the world, looking on a session opened on that frame) finds its worlds there; the
page's line stops looking for it after a few misses. A frame of the page's renderer has no
target of its own: its own line finds it cannot open a session and is not used again (the
world makes a new one once the frame shows a document of another origin).
Looks run in the background and never delay a read.

The line also reads, once per document that names them, the style sheets of other origins
a page's world cannot read (:meth:`DirectLine.sheet_texts`, over the CSS domain, on only
while they are read): their rules then count for what a read around a change may skip.

Contract: :meth:`DirectLine.extract` returns the extractor's output, or ``None`` when the line
cannot serve this read (the frame's world not found yet, a new document, no DevTools); the
caller calls :meth:`DirectLine.look`, goes the engine's way, which is always correct, and
then calls :meth:`DirectLine.engine_ran`. A read that runs past its bound raises the builtin
:class:`TimeoutError`, as the engine's way does.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import secrets
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

if TYPE_CHECKING:
    from collections.abc import Collection

    from playwright.async_api import CDPSession, Frame

__all__ = ["DIRECT_KEY", "SHEETS_MAX", "SHEET_TEXT_MAX", "DirectLine"]

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
_TOKEN_JS = (
    f"(() => {{ const f = window[{json.dumps(DIRECT_KEY)}];"
    " return typeof f === 'function' && typeof f.token === 'string' ? f.token : null; })()"
)
_WAIT_FOR_LOOK_S = 0.05
"""Longest a read waits for a look under way for its frame before it goes the engine's way."""
SHEET_TEXT_MAX = 1_000_000
"""Longest style sheet text :meth:`DirectLine.sheet_texts` gives, and most characters it
gives in all for one call."""
_OFF_TIMEOUT_S = 1.0
"""Bound on turning the CSS and DOM domains off again after :meth:`DirectLine.sheet_texts`,
and on detaching a session dropped after an error."""
SHEETS_MAX = 32
"""Most style sheets :meth:`DirectLine.sheet_texts` reads in one call (the first asked)."""
_MISSES = 3
"""Looks that may miss a child frame before the line stops looking for it (its world is then
most likely in another renderer process); a top frame is always looked for again."""


class DirectLine:
    """The direct way to the worlds of one DevTools target's frames: a page's (one line per
    page) or a frame's in a renderer process of its own (one line per such frame), made by
    :class:`~.world.World`.

    Only touched on the browser's loop. Holds a DevTools session of its own, opened on first
    use (again after one that failed), and no reference to the page or its frames (the world
    keeps lines by page and by frame, weakly).
    """

    def __init__(self) -> None:
        self._session: CDPSession | None = None
        self._contexts: dict[str, int] = {}
        """Execution context of each frame token found."""
        self._wanted: set[str] = set()
        """Tokens of frames the engine has read and no look has found yet."""
        self._probing: set[str] = set()
        """Tokens the look under way is asking the contexts for."""
        self._misses: dict[str, int] = {}
        self._finding: asyncio.Future[None] | None = None
        self._ran = asyncio.Event()
        """Set when an engine read announced to :meth:`look` is done."""
        self._usable = True
        self._opening = asyncio.Lock()
        """Held while the session is being opened (a look and a sheet reading may both)."""
        self.reads = 0
        """Reads this line served (for tests and benchmarks)."""

    @property
    def usable(self) -> bool:
        """Whether the line may still serve reads (``False`` once its target turned out to
        have no DevTools session of its own)."""
        return self._usable

    async def extract(self, token: str, opts: dict[str, Any], timeout_s: float) -> str | None:
        """The extractor's output for the frame with ``token``, or ``None`` when the line
        cannot serve this read (then call :meth:`look`, go the engine's way and call
        :meth:`engine_ran`)."""
        context = self._contexts.get(token)
        finding = self._finding
        if context is None and finding is not None and not finding.done() and (
                token in self._wanted or token in self._probing):
            # its engine read is done and a look for it under way: worth a short wait, as an
            # engine read costs more (a small page: about 10 ms against 5)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(finding), _WAIT_FOR_LOOK_S)
            context = self._contexts.get(token)
        session = self._session
        if session is None or context is None:
            return None
        expression = f"{_PACK_JS}(window[{json.dumps(DIRECT_KEY)}]({json.dumps(opts)}))"
        try:
            async with asyncio.timeout(timeout_s):  # no task of its own, unlike wait_for
                got = await session.send("Runtime.evaluate", {
                    "expression": expression, "contextId": context, "returnByValue": True})
        except PlaywrightError:
            # most often a new document (its world is new); the engine's way answers this read
            self._forget(token, context)
            return None
        value = (got.get("result") or {}).get("value")
        if "exceptionDetails" in got or not isinstance(value, str):
            self._forget(token, context)
            return None
        if not value.startswith("{"):  # base64 (see _PACK_JS)
            try:
                value = base64.b64decode(value, validate=True).decode("utf-8")
            except ValueError:
                self._forget(token, context)
                return None
        self.reads += 1
        return value

    async def sheet_texts(self, target: Page | Frame, hrefs: Collection[str],
                          timeout_s: float) -> dict[str, str] | None:
        """The text of each style sheet of ``target``'s documents (the line's) loaded from an
        address in ``hrefs`` (the first such sheet's), as DevTools reads it (a page's world
        cannot read a sheet of another origin): those read before the browser stopped
        answering or the time ran out. ``None`` when the line has no DevTools session on
        ``target`` and cannot open one (ask again later). At most
        :data:`SHEETS_MAX` sheets and :data:`SHEET_TEXT_MAX` characters in all are given. The
        CSS domain is on only while they are read."""
        wanted = set(list(hrefs)[:SHEETS_MAX])
        deadline = asyncio.get_running_loop().time() + timeout_s  # (one bound for all of it)
        try:
            async with asyncio.timeout_at(deadline):
                session = await self._session_on(target)
        except (PlaywrightError, TimeoutError):
            return None
        if session is None:
            return None
        ids: dict[str, str] = {}

        def added(event: dict[str, Any]) -> None:
            header = event.get("header")
            if isinstance(header, dict):
                url, sheet = header.get("sourceURL"), header.get("styleSheetId")
                if url in wanted and isinstance(sheet, str):
                    ids.setdefault(url, sheet)

        texts: dict[str, str] = {}
        room = SHEET_TEXT_MAX
        session.on("CSS.styleSheetAdded", added)
        try:
            async with asyncio.timeout_at(deadline):
                await session.send("DOM.enable")
                await session.send("CSS.enable")  # lists every sheet before it answers
                for url, sheet in list(ids.items()):  # (more may come meanwhile)
                    got = await session.send("CSS.getStyleSheetText", {"styleSheetId": sheet})
                    text = got.get("text")
                    if isinstance(text, str) and len(text) <= room:
                        texts[url] = text
                        room -= len(text)
        except (PlaywrightError, TimeoutError):
            pass  # (what was read by then is given)
        finally:
            session.remove_listener("CSS.styleSheetAdded", added)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_OFF_TIMEOUT_S):
                    for method in ("CSS.disable", "DOM.disable"):
                        with contextlib.suppress(PlaywrightError):
                            await session.send(method)
        return texts

    def look(self, target: Page | Frame, token: str, *, top: bool) -> None:
        """An engine read of the frame with ``token``, one of ``target``'s (the line's page,
        or its own frame), is about to start (``top``: the target's top frame): unless that
        frame's world is found already, or has been looked for in vain, start a look alongside
        it (the target's contexts are listed meanwhile and asked for their tokens once
        :meth:`engine_ran` says the read is done)."""
        if not self._wants(token, top):
            return
        if self._finding is None or self._finding.done():
            self._ran.clear()
            self._finding = asyncio.ensure_future(self._find_quietly(target))

    def engine_ran(self, token: str, *, top: bool) -> None:
        """The engine read announced to :meth:`look` is done (its world now holds the token)."""
        if self._wants(token, top):
            self._wanted.add(token)
        self._ran.set()

    def _wants(self, token: str, top: bool) -> bool:
        return self._usable and token not in self._contexts and (
            top or self._misses.get(token, 0) < _MISSES)

    def _forget(self, token: str, context: int) -> None:
        if self._contexts.get(token) == context:
            del self._contexts[token]

    async def _find_quietly(self, target: Page | Frame) -> None:
        try:
            while True:
                contexts = await asyncio.wait_for(self._list(target), _FIND_TIMEOUT_S)
                if contexts is None:
                    return
                await asyncio.wait_for(self._ran.wait(), _FIND_TIMEOUT_S)
                self._ran.clear()
                wanted, self._wanted = self._wanted, set()
                if wanted:
                    self._probing = wanted
                    try:
                        found = await asyncio.wait_for(self._probe(contexts), _FIND_TIMEOUT_S)
                    finally:
                        self._probing = set()
                    self._contexts.update(found)
                    for token in wanted - found.keys():
                        self._misses[token] = self._misses.get(token, 0) + 1
                if not self._wanted:  # else reads that ended meanwhile get a look of their own
                    return
        except PlaywrightError:
            # closed or crashed, or a frame's target gone (the frame moved into its page's
            # renderer): the next look opens a new session, if the target still has one
            self._wanted.clear()
            self._contexts.clear()  # (ids of the old session's contexts)
            self._misses.clear()
            dropped, self._session = self._session, None
            if dropped is not None:
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    async with asyncio.timeout(_OFF_TIMEOUT_S):
                        await dropped.detach()  # (most often gone already)
        except TimeoutError:
            self._wanted.clear()  # busy: looked for again after a read

    async def _session_on(self, target: Page | Frame) -> CDPSession | None:
        """The line's DevTools session, opened on ``target`` if it has none (one opening at a
        time); ``None`` when ``target`` is gone, or has no DevTools target of its own (a
        frame of its page's renderer) or none at all (the engine's way only from then
        on)."""
        if isinstance(target, Page):
            page, gone = target, target.is_closed()
        else:
            page = target.page
            gone = page.is_closed() or target.is_detached()
        if gone:
            return None
        async with self._opening:
            if self._session is None and self._usable:
                try:
                    self._session = await page.context.new_cdp_session(target)
                except PlaywrightError as exc:
                    if "closed" in str(exc).lower():
                        raise
                    self._usable = False
        return self._session

    async def _list(self, target: Page | Frame) -> list[int] | None:
        """The isolated execution contexts of ``target``; ``None`` where the line has no
        session on it (see :meth:`_session_on`)."""
        session = await self._session_on(target)
        if session is None:
            return None
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
        return [c["id"] for c in contexts
                if isinstance(c.get("id"), int)
                and not (c.get("auxData") or {}).get("isDefault", True)]

    async def _probe(self, isolated: list[int]) -> dict[str, int]:
        """The token of each listed context that holds the engine's entry point."""
        session = self._session
        if session is None:
            return {}
        answers = await asyncio.gather(*(
            session.send("Runtime.evaluate", {
                "expression": _TOKEN_JS, "contextId": cid, "returnByValue": True})
            for cid in isolated), return_exceptions=True)
        found: dict[str, int] = {}
        for cid, answer in zip(isolated, answers, strict=True):
            if isinstance(answer, dict):
                token = (answer.get("result") or {}).get("value")
                if isinstance(token, str):
                    found[token] = cid
        return found
