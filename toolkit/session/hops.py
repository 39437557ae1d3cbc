"""Chromium's own request interception for the safety policy: every request of a guarded
context, each redirect hop included, is paused inside Chromium and judged before it is sent.

Playwright's routing sees only the first request of a redirect chain (it lets every later hop
through itself), and a DevTools session on a page attaches too late for a popup's first
navigation (Playwright reports a popup only once that navigation has committed) and for the
first requests of a new out-of-process frame. So the interception is on the *browser* target:
one DevTools session per browser connection (:class:`HopStopper`), with the ``Fetch`` domain
enabled at the request stage for every URL, is in place for every target from its start.

Contract:

- Each :class:`HopOwner` (a context's guard) registers with the stopper of its browser
  (:func:`stopper_for`). While any owner is registered, every request of the browser process
  is paused; a request is failed (``Aborted`` for a tab's own page, so no error page replaces
  it; ``BlockedByClient`` otherwise) when an owner's policy refuses it, and continued
  otherwise. Requests of contexts nobody registered are continued unjudged.
- A request is matched to its context by the target that sent it (tab, out-of-process frame,
  or the frame of a worker): the event's frame id is a target id for a tab's page and an
  out-of-process frame; other frames are looked up in the frame trees of the owners' pages.
  A request that cannot be matched (a frame not found, a context not learned yet) is judged by
  every candidate owner and failed if any refuses it: the policy errs on refusing.
- Each decision is bounded in time (:data:`DECIDE_TIMEOUT_S`); a decision that fails or runs
  out of time fails the request when any owner has network rules on.
- A redirect hop (which Playwright's routing never sees) is also judged by what it does
  (:meth:`HopOwner.allow_hop`, :mod:`webrefs.session.effects`) by the owners that judge
  effects, within the same bound.
- When the last owner leaves, interception is switched off again.
- Responses of resource type ``Other`` (worker scripts have it) are paused too: one that may
  be a worker's script gets the side-door guard of its candidate owners in front of its code
  (:mod:`webrefs.session.sidedoors`); any other is continued.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from dataclasses import dataclass
from typing import Any, Protocol

from playwright.async_api import Browser, CDPSession
from playwright.async_api import Error as PlaywrightError

from ..safety.urls import Verdict
from .sidedoors import answer_worker_script, is_worker_script

__all__ = ["DECIDE_TIMEOUT_S", "HopOwner", "HopStopper", "stopper_for"]

DECIDE_TIMEOUT_S = 8.0
"""Longest a paused request waits for its verdict (a name lookup takes at most 3 s)."""
_SEND_TIMEOUT_S = 5.0
_MAX_CACHED = 5000


class HopOwner(Protocol):
    """What the stopper needs of a context's guard."""

    @property
    def context_id(self) -> str | None:
        """The DevTools id of the owner's browser context (``None`` until it is learned)."""

    @property
    def judging(self) -> bool:
        """Whether the owner's policy has network rules on."""

    async def judge(self, url: str, *, top_level: bool) -> Verdict:
        """The owner's verdict on ``url``."""

    def hop_refused(self, url: str, verdict: Verdict, kind: str, navigation: bool,
                    target_id: str | None) -> None:
        """Log a request the stopper failed (``target_id`` is the sending tab's, if known)."""

    async def frame_ids(self) -> set[str]:
        """Frame ids of the owner's pages (their in-process frames)."""

    @property
    def judges_effects(self) -> bool:
        """Whether the owner judges requests by what they do (redirect hops included)."""

    async def allow_hop(self, method: str, url: str, kind: str, top: bool, body: bytes | None,
                        content_type: str, target_id: str | None) -> bool:
        """Whether a redirect hop may be sent, judged by what it does (``False``: fail it)."""

    def worker_prelude(self) -> str | None:
        """The side-door guard its workers' scripts get first (``None``: none)."""


@dataclass(frozen=True)
class _Target:
    kind: str
    """DevTools target type: ``page``, ``iframe``, ``worker``, ..."""
    context_id: str


class HopStopper:
    """The browser-level interception of one browser connection (see the module docstring)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.owners: list[HopOwner] = []
        self._session: CDPSession | None = None
        self._starting: asyncio.Future[None] | None = None
        self._enabled = False
        self._switching = asyncio.Lock()
        self._targets: dict[str, _Target | None] = {}
        """Target id → its type and context (``None``: the id is not a target's)."""
        self._frames: dict[str, str | None] = {}
        """Frame id of an in-process frame → the context id of the owner that has it
        (``None``: in no owner's pages when it was looked up)."""
        self._tasks: set[asyncio.Future[Any]] = set()

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the browser-level session (once; concurrent callers share it)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        session = await asyncio.wait_for(self.browser.new_browser_cdp_session(),
                                         _SEND_TIMEOUT_S)
        session.on("Fetch.requestPaused", self._on_paused)
        session.on("Target.targetCreated", self._on_target)
        session.on("Target.targetInfoChanged", self._on_target)
        session.on("Target.targetDestroyed", self._on_target_gone)
        await asyncio.wait_for(session.send("Target.setDiscoverTargets", {"discover": True}),
                               _SEND_TIMEOUT_S)
        self._session = session

    async def register(self, owner: HopOwner) -> None:
        """Judge ``owner``'s requests from now on (interception is on when this returns)."""
        await self.start()
        if owner not in self.owners:
            self.owners.append(owner)
        await self._switch()

    async def unregister(self, owner: HopOwner) -> None:
        """Stop judging ``owner``'s requests (interception goes off with the last owner)."""
        if owner in self.owners:
            self.owners.remove(owner)
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await self._switch()

    async def _switch(self) -> None:
        async with self._switching:
            want = bool(self.owners)
            if want == self._enabled or self._session is None:
                return
            if want:
                await asyncio.wait_for(self._session.send("Fetch.enable", {"patterns": [
                    {"urlPattern": "*", "requestStage": "Request"},
                    {"urlPattern": "*", "resourceType": "Other", "requestStage": "Response"},
                ]}), _SEND_TIMEOUT_S)
            else:
                await asyncio.wait_for(self._session.send("Fetch.disable"), _SEND_TIMEOUT_S)
            self._enabled = want

    # -- targets ----------------------------------------------------------------------------
    def _on_target(self, event: dict[str, Any]) -> None:
        info = event.get("targetInfo") or {}
        target_id = info.get("targetId")
        if isinstance(target_id, str):
            self._remember(target_id, info)

    def _on_target_gone(self, event: dict[str, Any]) -> None:
        self._targets.pop(str(event.get("targetId")), None)

    def _remember(self, target_id: str, info: dict[str, Any]) -> None:
        if len(self._targets) > _MAX_CACHED:
            self._targets.clear()
        context = info.get("browserContextId")
        self._targets[target_id] = (_Target(str(info.get("type", "")), context)
                                    if isinstance(context, str) else None)

    async def _target(self, frame_id: str) -> _Target | None:
        """The target whose id is ``frame_id`` (a tab's page or an out-of-process frame)."""
        if frame_id not in self._targets and self._session is not None:
            try:
                got = await asyncio.wait_for(self._session.send(
                    "Target.getTargetInfo", {"targetId": frame_id}), _SEND_TIMEOUT_S)
                self._remember(frame_id, got.get("targetInfo") or {})
            except PlaywrightError:  # not a target: an in-process frame
                self._targets[frame_id] = None
        return self._targets.get(frame_id)

    async def _frame_context(self, frame_id: str) -> str | None:
        """The context of an in-process frame, from the frame trees of the owners' pages."""
        if frame_id not in self._frames:
            if len(self._frames) > _MAX_CACHED:
                self._frames.clear()
            for owner in list(self.owners):
                context = owner.context_id
                if context is None:
                    continue
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    for frame in await owner.frame_ids():
                        self._frames[frame] = context
            self._frames.setdefault(frame_id, None)
        return self._frames.get(frame_id)

    # -- deciding ----------------------------------------------------------------------------
    def _on_paused(self, event: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self._decide(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, event: dict[str, Any]) -> None:
        request_id = event.get("requestId")
        session = self._session
        if session is None or not isinstance(request_id, str):
            return
        if "responseStatusCode" in event or "responseErrorReason" in event:
            await self._respond(session, event)
            return
        try:
            reason = await asyncio.wait_for(self._verdict(event), DECIDE_TIMEOUT_S)
        except Exception:  # whatever went wrong, err on refusing
            hop = bool(event.get("redirectedRequestId"))
            reason = "BlockedByClient" if any(
                o.judging or (hop and o.judges_effects) for o in self.owners) else None
        with contextlib.suppress(PlaywrightError, TimeoutError):
            if reason is None:
                await asyncio.wait_for(session.send(
                    "Fetch.continueRequest", {"requestId": request_id}), _SEND_TIMEOUT_S)
            else:
                await asyncio.wait_for(session.send(
                    "Fetch.failRequest", {"requestId": request_id, "errorReason": reason}),
                    _SEND_TIMEOUT_S)

    async def _verdict(self, event: dict[str, Any]) -> str | None:
        """``None`` to continue the paused request, else the error reason to fail it with."""
        owners = [o for o in self.owners if o.judging]
        hop = bool(event.get("redirectedRequestId"))
        if not owners and not hop:
            return None
        request = event.get("request") or {}
        url = str(request.get("url", ""))
        kind = str(event.get("resourceType", "other")).lower()
        frame_id = str(event.get("frameId") or "")
        if owners:
            candidates, top, target_id = await self._candidates(owners, frame_id, kind)
            for owner in candidates:
                verdict = await owner.judge(url, top_level=top)
                if not verdict.allowed:
                    owner.hop_refused(url, verdict, kind, top, target_id)
                    return "Aborted" if top else "BlockedByClient"
        if hop:  # Playwright's routing never sees a redirect hop: judge what it does here
            return await self._hop_effect(event, frame_id, kind)
        return None

    async def _hop_effect(self, event: dict[str, Any], frame_id: str, kind: str) -> str | None:
        """Fail a redirect hop an owner refuses by what it does (a GET that lands on
        ``.../delete``, a POST that a 307 re-sends to ``/pay``); ``None`` to continue it."""
        owners = [o for o in self.owners if o.judges_effects]
        if not owners:
            return None
        request = event.get("request") or {}
        headers = request.get("headers") or {}
        content_type = next((str(v) for k, v in headers.items()
                             if str(k).lower() == "content-type"), "")
        body = _post_data(request)
        candidates, top, target_id = await self._candidates(owners, frame_id, kind)
        for owner in candidates:
            if not await owner.allow_hop(str(request.get("method", "GET")),
                                         str(request.get("url", "")), kind, top, body,
                                         content_type, target_id):
                return "Aborted" if top else "BlockedByClient"
        return None

    async def _respond(self, session: CDPSession, event: dict[str, Any]) -> None:
        """A paused response: a worker's script of a judging owner gets the owners' side-door
        guard first; anything else goes on unchanged."""
        request_id = event["requestId"]
        try:
            preludes: list[str] = []
            owners = [o for o in self.owners if o.judging]
            if owners and is_worker_script(str(event.get("resourceType", "")),
                                           int(event.get("responseStatusCode") or 0),
                                           event.get("responseHeaders") or []):
                frame_id = str(event.get("frameId") or "")
                candidates, _top, _target = await asyncio.wait_for(
                    self._candidates(owners, frame_id, "other"), DECIDE_TIMEOUT_S)
                for owner in candidates:
                    prelude = owner.worker_prelude()
                    if prelude is not None and prelude not in preludes:
                        preludes.append(prelude)
            if preludes:
                await answer_worker_script(session, event, preludes)
                return
        except Exception:  # whatever went wrong, a worker must not run unguarded
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(session.send("Fetch.failRequest", {
                    "requestId": request_id, "errorReason": "BlockedByClient"}),
                    _SEND_TIMEOUT_S)
            return
        for method in ("Fetch.continueResponse", "Fetch.continueRequest"):
            try:  # a response that failed may not be continued as a response
                await asyncio.wait_for(session.send(method, {"requestId": request_id}),
                                       _SEND_TIMEOUT_S)
                return
            except (PlaywrightError, TimeoutError):
                continue

    async def _candidates(self, owners: list[HopOwner], frame_id: str,
                          kind: str) -> tuple[list[HopOwner], bool, str | None]:
        """The owners that may have sent a request of ``frame_id``, whether it loads a tab's
        own page, and the sending tab's target id when known."""
        target = await self._target(frame_id) if frame_id else None
        if target is not None:
            top = target.kind == "page" and kind == "document"
            mine = [o for o in owners if o.context_id == target.context_id]
            if not mine:  # a context nobody owns, unless an owner has not learned its id yet
                mine = [o for o in owners if o.context_id is None]
            return mine, top, frame_id if target.kind == "page" else None
        context = await self._frame_context(frame_id) if frame_id else None
        if context is not None:
            return [o for o in owners if o.context_id == context], False, None
        return owners, False, None  # not matched: every owner judges it


def _post_data(request: dict[str, Any]) -> bytes | None:
    """The body of a paused request (``postData``, else its ``postDataEntries``)."""
    text = request.get("postData")
    if isinstance(text, str):
        return text.encode("utf-8", "replace")
    entries = request.get("postDataEntries")
    if not isinstance(entries, list):
        return None
    out = b""
    for entry in entries:
        chunk = entry.get("bytes") if isinstance(entry, dict) else None
        if isinstance(chunk, str):
            with contextlib.suppress(ValueError):
                out += base64.b64decode(chunk)
    return out or None


_STOPPERS: dict[int, HopStopper] = {}


async def stopper_for(browser: Browser) -> HopStopper:
    """The (started) stopper of ``browser``'s connection, made on first use."""
    key = id(browser)
    stopper = _STOPPERS.get(key)
    if stopper is None or stopper.browser is not browser:
        stopper = HopStopper(browser)
        _STOPPERS[key] = stopper
        browser.on("disconnected", lambda _b: _forget(key, stopper))
    try:
        await stopper.start()
    except BaseException:
        _forget(key, stopper)
        raise
    return stopper


def _forget(key: int, stopper: HopStopper) -> None:
    if _STOPPERS.get(key) is stopper:
        del _STOPPERS[key]
