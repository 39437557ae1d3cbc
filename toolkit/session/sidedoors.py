"""The side-door guard: the connections that pass neither Chromium's request interception
(:mod:`webrefs.session.hops`) nor Playwright's routing are judged where they are made.

A worker's WebSocket, a WebTransport session (QUIC over UDP) and WebRTC (UDP and TCP to any
address a page or its peer names) never appear as requests DevTools can hold, and
Playwright's WebSocket routing lives in frames only. So webrefs runs a guard of its own
(``sidedoors.js``) first in every realm of a guarded context:

- every frame, as an init script of the context (:class:`SideDoors`); it is replaced when the
  policy changes, and a document already open when the guard is installed gets it late;
- every worker loaded over the network (dedicated, shared, nested, module graphs, service
  workers): Chromium's interception pauses each response of resource type ``Other`` (worker
  scripts have that type) and :func:`answer_worker_script` puts the guard in front of its code
  (:func:`prefixed_script`): as statements, or, for a module worker (the creating realm's
  guard marks its URL's fragment with :data:`~webrefs.safety.pagerules.MODULE_MARK`), as an
  import of a ``data:`` module, since a module's static imports run before its first
  statement (a page whose CSP forbids ``data:`` scripts then gets no module worker);
- every ``blob:`` and ``data:`` worker: the guard of the realm that creates it puts itself in
  front of the worker's code.

The guard judges by :func:`webrefs.safety.pagerules.page_rules` (no resolver: a name only its
addresses could decide is refused there), throws a ``SecurityError`` for a refused WebSocket
or WebTransport URL, and makes ``RTCPeerConnection`` throw while the policy refuses WebRTC.
Refusals are the page's errors; they are not in :attr:`NetworkGuard.blocked`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import quote

from playwright.async_api import BrowserContext, CDPSession
from playwright.async_api import Error as PlaywrightError

from ..safety.pagerules import MODULE_MARK, page_rules
from ..safety.policy import SafetyPolicy

__all__ = ["SANDBOX_ISOLATION_FEATURE", "WEBRTC_LAUNCH_FLAG", "SideDoors",
           "answer_worker_script", "guard_source", "is_worker_script", "launch_flags",
           "module_import", "prefixed_script"]

WEBRTC_LAUNCH_FLAG = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"
"""Given to a browser webrefs launches while its policy refuses WebRTC: no UDP but through a
proxy that carries it. Chromium's headless shell and content shells read it; Chrome and
Chromium read their profile's preference instead, so the guard's refusal of
``RTCPeerConnection`` is what holds there."""
SANDBOX_ISOLATION_FEATURE = "IsolateSandboxedIframes"
"""Turned off in a browser webrefs launches while a network rule is on: with it, Chromium gives
a sandboxed ``srcdoc`` frame a process of its own, whose document runs before any init script
of the context (webrefs' guard and Playwright's WebSocket routing alike)."""


def launch_flags(policy: SafetyPolicy, given: Sequence[str] = ()) -> tuple[str, ...]:
    """Flags a browser launched under ``policy`` gets so the side-door guard holds in it (none
    the caller already set)."""
    if not policy.network_rules:
        return ()
    flags = [f"--disable-features={SANDBOX_ISOLATION_FEATURE}"]
    if policy.block_webrtc and not any(a.startswith(WEBRTC_LAUNCH_FLAG.split("=")[0])
                                       for a in given):
        flags.append(WEBRTC_LAUNCH_FLAG)
    return tuple(flags)

_NOT_SCRIPTS = re.compile(r"^(image|audio|video)/|^text/csv\b", re.IGNORECASE)
_PROLOGUE = re.compile(rb"""\A(\xef\xbb\xbf)?(\s*(["'])use strict\3\s*;?)?""")
_DROPPED = {"content-length", "content-encoding", "transfer-encoding"}
_SEND_TIMEOUT_S = 5.0


@cache
def _guard_js() -> str:
    return resources.files(__package__).joinpath("sidedoors.js").read_text(encoding="utf-8")


def guard_source(table: dict[str, Any]) -> str:
    """The guard as one expression: the function of ``sidedoors.js`` called with ``table``."""
    js = _guard_js().strip()
    start = js.index("(function webrefsSideDoors")
    return f"{js[start:]}({json.dumps(table)});"


def is_worker_script(resource_type: str, status: int, headers: Sequence[dict[str, str]]) -> bool:
    """Whether a paused response may be a worker's script (worker scripts have DevTools'
    resource type ``Other``; Chromium runs a classic worker from any MIME type but those it
    never runs as script: images, audio, video, CSV)."""
    if resource_type.lower() != "other" or not 200 <= status < 300:
        return False
    mime = next((h.get("value", "") for h in headers
                 if h.get("name", "").lower() == "content-type"), "")
    return not _NOT_SCRIPTS.search(mime.strip())


def module_import(source: str) -> str:
    """``source`` as a static import of a ``data:`` module (a module's first import runs
    before anything else of it)."""
    url = "data:text/javascript;charset=utf-8," + quote(source, safe="-_.!~*'()")
    return f"import {json.dumps(url)};"


def prefixed_script(body: bytes, preludes: Sequence[str], *, module: bool = False) -> bytes:
    """``body`` with ``preludes`` run first: after a byte-order mark and a ``"use strict"``
    directive that begin it (so the script keeps its mode), before anything else; for a
    module, as imports."""
    match = _PROLOGUE.match(body)
    cut = match.end() if match else 0
    head = body[:cut]
    if match and match.group(2) and not head.rstrip().endswith(b";"):
        head += b";"
    lines = [module_import(p) if module else p for p in preludes]
    return head + b"\n" + "".join(line + "\n" for line in lines).encode() + body[cut:]


async def answer_worker_script(session: CDPSession, event: dict[str, Any],
                               preludes: Sequence[str]) -> None:
    """Fulfil a response paused at Chromium's interception with ``preludes`` in front of its
    body (as imports when the request's fragment marks a module worker); a body that cannot
    be read fails the request (a worker without its guard must not run)."""
    request_id = event["requestId"]
    try:
        got = await asyncio.wait_for(session.send("Fetch.getResponseBody",
                                                  {"requestId": request_id}), _SEND_TIMEOUT_S)
    except (PlaywrightError, TimeoutError):
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(session.send("Fetch.failRequest", {
                "requestId": request_id, "errorReason": "BlockedByClient"}), _SEND_TIMEOUT_S)
        return
    raw = str(got.get("body", ""))
    body = base64.b64decode(raw) if got.get("base64Encoded") else raw.encode("utf-8")
    headers = [h for h in event.get("responseHeaders") or []
               if str(h.get("name", "")).lower() not in _DROPPED]
    fragment = str((event.get("request") or {}).get("urlFragment") or "")
    script = prefixed_script(body, preludes, module=MODULE_MARK in fragment)
    params: dict[str, Any] = {
        "requestId": request_id,
        "responseCode": int(event.get("responseStatusCode") or 200),
        "responseHeaders": headers,
        "body": base64.b64encode(script).decode("ascii"),
    }
    if event.get("responseStatusText"):
        params["responsePhrase"] = str(event["responseStatusText"])
    await asyncio.wait_for(session.send("Fetch.fulfillRequest", params), _SEND_TIMEOUT_S)


class SideDoors:
    """The guard of one browser context: its frames' init script (replaced when the policy
    changes) and the prelude its workers' scripts get."""

    def __init__(self) -> None:
        self._context: BrowserContext | None = None
        self._script: Any = None
        """What ``add_init_script`` returned for the current script (a disposable in
        Playwright versions that can remove one)."""
        self._installed: str | None = None
        """The table id of the frames' current script (``None``: none)."""
        self._sources: dict[str, str] = {}
        self._lock = asyncio.Lock()

    def prelude(self, policy: SafetyPolicy) -> str | None:
        """The guard for ``policy``'s workers, or ``None`` when it has no network rule."""
        if not policy.network_rules:
            return None
        table = page_rules(policy)
        source = self._sources.get(table["id"])
        if source is None:
            if len(self._sources) > 16:
                self._sources.clear()
            source = self._sources[table["id"]] = guard_source(table)
        return source

    async def install(self, context: BrowserContext, policy: SafetyPolicy) -> None:
        """Put the guard in every frame of ``context`` from now on (and, late, in the
        documents already open)."""
        self._context = context
        await self.apply(policy)
        source = self.prelude(policy)
        frames = [f for page in list(context.pages) for f in list(page.frames)]
        if source is None or not frames:
            return
        late = [asyncio.ensure_future(f.evaluate(source)) for f in frames]
        _done, pending = await asyncio.wait(late, timeout=_SEND_TIMEOUT_S)
        for task in pending:  # a page that does not answer keeps what it has
            task.cancel()
        for task in late:
            if not task.cancelled():
                task.exception()  # seen: a frame that went away is nothing to report

    async def apply(self, policy: SafetyPolicy) -> None:
        """Make the frames' init script the one of ``policy`` (new documents get it; the new
        script is added before the old one is removed, so no document goes without)."""
        context = self._context
        if context is None:
            return
        async with self._lock:
            source = self.prelude(policy)
            wanted = page_rules(policy)["id"] if source is not None else None
            if wanted == self._installed:
                return
            old = self._script
            self._script = None
            if source is not None:
                self._script = await context.add_init_script(script=source)
            self._installed = wanted
            close = getattr(old, "close", None)
            if close is not None:
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(close(), _SEND_TIMEOUT_S)
