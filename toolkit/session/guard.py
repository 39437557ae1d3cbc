"""The safety policy at the browser context: every request of the context (pages, iframes,
popups' first request, fetch/XHR, beacons, websockets) is judged by
:func:`webrefs.safety.urls.judge_url` before it leaves, at two places that both hold it:
Playwright's routing of the context (first requests and websockets) and Chromium's own
interception at the browser target (:mod:`webrefs.session.hops`), which also pauses every
redirect hop, so a hop to a forbidden URL is failed before it is sent. A top-level page that
still ends up somewhere forbidden (a ``blob:`` page; a hop the interception could not hold
because it could not be set up for this browser) is replaced by ``about:blank``. Every
refusal is logged in :attr:`NetworkGuard.blocked`. A request the network rules let through
is then judged by what it does (:attr:`NetworkGuard.effects`, :mod:`webrefs.session.effects`)
before it is sent.

A browser's *default* context, as Playwright hands it over when it attaches over CDP, is
shared: Playwright also reports there the pages of every browser context it did not make
itself (another client's contexts, incognito windows). The guard of such a context learns the
context's DevTools id from the browser (``Target.getBrowserContexts``) and tells pages of other
contexts apart (:meth:`NetworkGuard.belongs`): it neither judges, logs, nor moves them, and
Chromium's interception leaves their requests to whoever owns them. A request routed there
before Playwright has reported the page that sent it (a new page's first requests, whichever
client opened it) cannot be placed by the routing: the network rules leave it to Chromium's
interception, which places it by its target; without that interception it is judged.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Frame,
    Page,
    Request,
    Route,
    WebSocketRoute,
)
from playwright.async_api import Error as PlaywrightError

from ..safety.policy import SafetyPolicy
from ..safety.urls import Verdict, host_to_resolve, judge_url, map_host, parse_resolver_rules
from .effects import EffectGate
from .hops import HopStopper, stopper_for
from .sidedoors import SideDoors

__all__ = ["Blocked", "NetworkGuard"]

_NO_WORKERS_JS = """(() => { try {
  const c = globalThis.ServiceWorkerContainer;
  if (c && c.prototype) Object.defineProperty(c.prototype, 'register', {
    value: function () { return Promise.reject(new DOMException(
      'Service workers are blocked by the safety policy', 'SecurityError')); },
    configurable: false, writable: false });
} catch (e) {} })();"""
"""Refuses service worker registration in every frame (Playwright's ``service_workers=
'block'`` does not stop it in every Chromium)."""

RESOLVE_TIMEOUT_S = 3.0
ATTACH_TIMEOUT_S = 5.0
MAX_BLOCKED = 1000
SAFE_PAGE = "about:blank"


@dataclass(frozen=True)
class Blocked:
    """A request the policy refused."""

    url: str
    rule: str
    reason: str
    kind: str
    """Resource type: ``document``, ``fetch``, ``ping``, ``websocket``, ..."""
    navigation: bool
    """A top-level page (the tab stayed where it was, or was sent to ``about:blank``)."""
    tab: str | None
    """The tab whose page sent it, when known."""
    after: str = ""
    """Empty when it never left (routing or Chromium's interception held it: redirect hops
    included); ``redirect`` or ``commit`` when it was caught after it left (a redirect hop
    when the interception could not be set up; a page that committed)."""


class NetworkGuard:
    """Judges the requests of one browser context by a :class:`SafetyPolicy`."""

    def __init__(self, policy: SafetyPolicy, args: Sequence[str] = (),
                 tab_of: Callable[[Page], str | None] | None = None) -> None:
        self.policy = policy
        self.resolver_rules = parse_resolver_rules(args)
        self.blocked: list[Blocked] = []
        self._tab_of = tab_of or (lambda _page: None)
        self._cache: dict[str, list[str]] = {}
        self._pages: set[int] = set()
        self._tasks: set[asyncio.Future[Any]] = set()
        self.context_id: str | None = None
        """The DevTools id of the guarded context: from the browser for a default context,
        else from the first of its pages attached; never changed once known."""
        self.default_context = False
        """Whether the guarded context is a browser's default context (see the module
        docstring): its pages are checked for belonging to it."""
        self._other_contexts: set[str] = set()
        """Ids of the browser's other contexts, when the browser did not name its default."""
        self._page_contexts: dict[int, str] = {}
        """DevTools context id of each page attached (by ``id(page)``)."""
        self.stopper: HopStopper | None = None
        """Chromium's interception this guard is registered with (``None``: routing alone,
        redirect hops re-checked after they left)."""
        self._sessions: dict[int, CDPSession] = {}
        self._attaching: dict[int, asyncio.Future[None]] = {}
        self._target_pages: dict[str, Page] = {}
        self.effects: EffectGate | None = None
        """What judges a request by what it does once the network rules let it through
        (:mod:`webrefs.session.effects`; the request is failed when it says no)."""
        self.side_doors = SideDoors()
        """The guard of what the routing never sees (workers' sockets, WebTransport, WebRTC):
        :mod:`webrefs.session.sidedoors`."""

    @property
    def judging(self) -> bool:
        """Whether the policy has network rules on (requests are judged at all)."""
        return self.policy.network_rules

    def worker_prelude(self) -> str | None:
        """The side-door guard the context's workers' scripts get first."""
        return self.side_doors.prelude(self.policy)

    # -- judging ------------------------------------------------------------------------------
    async def judge(self, url: str, *, top_level: bool) -> Verdict:
        """The policy's verdict on ``url`` (resolving its host when the policy needs it)."""
        policy = self.policy
        host = host_to_resolve(url, policy)
        addresses = await self._resolve(host) if host else None
        return judge_url(url, policy, top_level=top_level, addresses=addresses)

    async def _resolve(self, host: str) -> list[str]:
        if host in self._cache:
            return self._cache[host]
        mapped = map_host(host, self.resolver_rules)
        if mapped == "~NOTFOUND":
            found: list[str] = []
        elif mapped:
            found = [mapped]
        else:
            try:
                infos = await asyncio.wait_for(
                    asyncio.get_running_loop().getaddrinfo(host, None), RESOLVE_TIMEOUT_S)
                found = sorted({str(info[4][0]) for info in infos})
            except (OSError, TimeoutError, UnicodeError):
                found = []
        if len(self._cache) > 1000:
            self._cache.clear()
        self._cache[host] = found
        return found

    def _note(self, url: str, verdict: Verdict, kind: str, navigation: bool,
              page: Page | None, after: str = "") -> None:
        tab = None
        if page is not None:
            with contextlib.suppress(Exception):
                tab = self._tab_of(page)
        if len(self.blocked) >= MAX_BLOCKED:
            del self.blocked[: MAX_BLOCKED // 2]
        self.blocked.append(Blocked(url[:2000], verdict.rule, verdict.reason, kind, navigation,
                                    tab, after))

    # -- installing ---------------------------------------------------------------------------
    async def install(self, context: BrowserContext, *, default_context: bool = False) -> None:
        """Route every request and websocket of ``context`` through the policy.
        ``default_context``: ``context`` is the browser's default context, which Playwright
        shares with the pages of contexts it did not make (see :meth:`belongs`)."""
        if default_context:
            self.default_context = True
            await self._learn_default_context(context)
        if self.policy.network_rules and self.policy.block_service_workers:
            await context.add_init_script(script=_NO_WORKERS_JS)
        await self.side_doors.install(context, self.policy)
        await context.route("**/*", self.handle_route)
        await context.route_web_socket("**/*", self._websocket)
        context.on("page", self.watch)
        context.on("request", self._on_request)
        for page in context.pages:
            self.watch(page)
        await self._intercept(context)

    async def _intercept(self, context: BrowserContext) -> None:
        """Register with Chromium's interception of this context's browser (all targets)."""
        browser = context.browser
        if browser is None:
            return
        with contextlib.suppress(PlaywrightError, TimeoutError):
            for page in context.pages[:1]:  # learn the context's id before any page request
                await self._attach(page)
        try:
            stopper = await stopper_for(browser)
            await stopper.register(self)
        except (PlaywrightError, TimeoutError):
            return  # routing alone; redirect hops are re-checked after they left
        self.stopper = stopper
        context.on("close", lambda _c: self._spawn(stopper.unregister(self)))

    async def _learn_default_context(self, context: BrowserContext) -> None:
        """The DevTools id of the browser's default context (Chromium names it; an older one
        lists only the others, and the id is then learned from the first page not of them)."""
        browser = context.browser
        if browser is None:
            return
        try:
            session = await asyncio.wait_for(browser.new_browser_cdp_session(),
                                             ATTACH_TIMEOUT_S)
            try:
                got = await asyncio.wait_for(session.send("Target.getBrowserContexts"),
                                             ATTACH_TIMEOUT_S)
            finally:
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(session.detach(), ATTACH_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):
            return  # pages then tell it; a page of another context may be taken for ours
        default = got.get("defaultBrowserContextId")
        if isinstance(default, str) and default:
            self.context_id = default
        else:
            self._other_contexts = {str(c) for c in got.get("browserContextIds") or []}

    async def belongs(self, page: Page) -> bool:
        """Whether ``page`` is of the guarded context. Always, except in a default context,
        where Playwright also reports other contexts' pages; there it is asked of the page
        (once, bounded), and a page that cannot be asked counts as the context's."""
        if not self.default_context:
            return True
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(self._attach(page), ATTACH_TIMEOUT_S)
        return not self.foreign(page)

    def foreign(self, page: Page) -> bool:
        """Whether ``page`` is known to be of another context than the guarded one."""
        known = self._page_contexts.get(id(page))
        return known is not None and self.context_id is not None and known != self.context_id

    async def _attach(self, page: Page) -> None:
        """A DevTools session on ``page`` (once): its target and context ids, its frames."""
        attaching = self._attaching.get(id(page))
        if attaching is None:
            attaching = asyncio.ensure_future(self._open_session(page))
            self._attaching[id(page)] = attaching
        await asyncio.shield(attaching)

    async def _open_session(self, page: Page) -> None:
        session = await asyncio.wait_for(page.context.new_cdp_session(page), ATTACH_TIMEOUT_S)
        got = await asyncio.wait_for(session.send("Target.getTargetInfo"), ATTACH_TIMEOUT_S)
        info = got.get("targetInfo") or {}
        context_id = info.get("browserContextId")
        if isinstance(context_id, str):
            self._page_contexts[id(page)] = context_id
            if self.context_id is None and context_id not in self._other_contexts:
                self.context_id = context_id
        if self.foreign(page):  # another client's page: not this guard's to watch
            self._unwatch(page)
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(session.detach(), ATTACH_TIMEOUT_S)
            return
        target = info.get("targetId")
        if isinstance(target, str):
            self._target_pages[target] = page
        if not page.is_closed():
            self._sessions[id(page)] = session

    async def _attach_quietly(self, page: Page) -> None:
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await self._attach(page)

    async def frame_ids(self) -> set[str]:
        """Frame ids of this context's pages (from each page's frame tree)."""
        found: set[str] = set()
        for key, session in list(self._sessions.items()):
            try:
                tree = await asyncio.wait_for(session.send("Page.getFrameTree"),
                                              ATTACH_TIMEOUT_S)
            except (PlaywrightError, TimeoutError):
                self._sessions.pop(key, None)  # the page is gone
                continue
            todo = [tree.get("frameTree") or {}]
            while todo:
                node = todo.pop()
                frame_id = (node.get("frame") or {}).get("id")
                if isinstance(frame_id, str):
                    found.add(frame_id)
                todo.extend(node.get("childFrames") or [])
        return found

    @property
    def judges_effects(self) -> bool:
        """Whether requests are judged by what they do (the policy classifies)."""
        return self.effects is not None and self.policy.classifies

    async def allow_hop(self, method: str, url: str, kind: str, top: bool, body: bytes | None,
                        content_type: str, target_id: str | None) -> bool:
        """Whether a redirect hop Chromium's interception holds may be sent, by what it
        does (:meth:`EffectGate.allow_hop`)."""
        if self.effects is None:
            return True
        page = self._target_pages.get(target_id) if target_id else None
        return await self.effects.allow_hop(method, url, kind, top, body, content_type, page)

    def hop_refused(self, url: str, verdict: Verdict, kind: str, navigation: bool,
                    target_id: str | None) -> None:
        """Log a request Chromium's interception failed before it was sent."""
        page = self._target_pages.get(target_id) if target_id else None
        self._note(url, verdict, kind, navigation, page)

    def watch(self, page: Page) -> None:
        """Re-check the top-level page of ``page`` after each navigation it commits."""
        if id(page) in self._pages:
            return
        self._pages.add(id(page))
        page.on("framenavigated", self._on_navigated)
        page.on("close", self._on_close)
        self._spawn(self._attach_quietly(page))

    def _on_close(self, page: Page) -> None:
        self._pages.discard(id(page))
        self._sessions.pop(id(page), None)
        self._attaching.pop(id(page), None)
        self._page_contexts.pop(id(page), None)
        for target, known in list(self._target_pages.items()):
            if known is page:
                del self._target_pages[target]

    def _unwatch(self, page: Page) -> None:
        """Stop re-checking ``page`` (a page of another context); what was learned of its
        context stays, so it is still told apart."""
        if id(page) in self._pages:
            self._pages.discard(id(page))
            page.remove_listener("framenavigated", self._on_navigated)
        self._sessions.pop(id(page), None)

    # -- handlers -----------------------------------------------------------------------------
    async def handle_route(self, route: Route) -> None:
        """What the context's routing calls for each request: let it go on, or fail it."""
        request = route.request
        try:
            top, page = _top_level(request)
            if page is not None and not await self.belongs(page):
                await route.fallback()  # another context's request: not this policy's
                return
            if self.policy.network_rules:
                verdict = await self.judge(request.url, top_level=top)
                if not verdict.allowed:
                    if page is None and self.default_context and self.stopper is not None:
                        # sent before Playwright reported its page: in a default context it
                        # may be another client's; Chromium's interception places it by the
                        # target that sent it, and refuses it if it is ours
                        await route.fallback()
                        return
                    self._note(request.url, verdict, request.resource_type, top, page)
                    # "aborted" cancels a page's navigation without an error page: the tab
                    # stays
                    await route.abort("aborted" if top else "blockedbyclient")
                    return
            if self.effects is not None and not await self.effects.allow(request, page):
                await route.abort("aborted" if top else "blockedbyclient")
                return
            await route.fallback()
        except PlaywrightError:
            pass  # the page or context went away meanwhile

    async def _websocket(self, ws: WebSocketRoute) -> None:
        try:
            verdict = await self.judge(ws.url, top_level=False)
            if verdict.allowed or not self.policy.network_rules:
                ws.connect_to_server()
                return
            self._note(ws.url, verdict, "websocket", False, None)
            await ws.close(code=1008, reason="blocked by the safety policy")
        except PlaywrightError:
            pass

    def _on_request(self, request: Request) -> None:
        """A redirect hop is not routed: when Chromium's interception is not there to hold it,
        judge it here (after it left), and stop a page that follows one."""
        if (self.stopper is not None or request.redirected_from is None
                or not self.policy.network_rules):
            return
        top, page = _top_level(request)
        self._spawn(self._check_redirect(request, top, page))

    async def _check_redirect(self, request: Request, top: bool, page: Page | None) -> None:
        if page is not None and not await self.belongs(page):
            return
        verdict = await self.judge(request.url, top_level=top)
        if verdict.allowed:
            return
        self._note(request.url, verdict, request.resource_type, top, page, after="redirect")
        if top and page is not None:
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(page.main_frame.evaluate("window.stop()"), 2.0)
            await self._leave(page, verdict)

    def _on_navigated(self, frame: Frame) -> None:
        if frame.parent_frame is not None or not self.policy.enabled:
            return
        url = frame.url
        if url.startswith(("about:", "chrome-error:")):
            return
        self._spawn(self._check_commit(frame.page, url))

    async def _check_commit(self, page: Page, url: str) -> None:
        if not await self.belongs(page):
            return
        verdict = await self.judge(url, top_level=True)
        if verdict.allowed:
            return
        if not any(b.url == url[:2000] and b.after for b in self.blocked[-5:]):
            self._note(url, verdict, "document", True, page, after="commit")
        await self._leave(page, verdict)

    async def _leave(self, page: Page, verdict: Verdict) -> None:
        """Send a page that reached a forbidden URL to the safe page."""
        if page.is_closed():
            return
        current = page.url
        if current.startswith(("about:", "chrome-error:")):
            return
        check = await self.judge(current, top_level=True)
        if check.allowed:
            return  # the window.stop() kept the page where it was
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(page.goto(SAFE_PAGE), 10.0)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self, timeout_s: float = 3.0) -> None:
        """Wait (bounded) for the re-checks under way (redirects, committed pages)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout_s)


def _top_level(request: Request) -> tuple[bool, Page | None]:
    """Whether ``request`` loads a tab's top-level page, and that page (when known)."""
    try:
        frame = request.frame
    except PlaywrightError:  # a service worker's request has no frame
        return False, None
    page = frame.page
    return request.is_navigation_request() and frame.parent_frame is None, page

