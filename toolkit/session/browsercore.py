"""The engine of a browser: Playwright's lifecycle (launch / connect / wrap), one context, its
tabs, and which tab is active.

``BrowserCore`` runs only on the Browser's loop; the public :class:`~webrefs.Browser` wraps
one. Tabs are adopted explicitly (new tab, popup, wrapped page); the active tab is tracked,
never guessed from the order of pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Browser as PWBrowser
from playwright.async_api import (
    BrowserContext,
    Frame,
    Page,
    Playwright,
    Request,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError

from ..errors import (
    BrowserClosedError,
    BrowserLaunchError,
    ConnectError,
    InvalidArgumentError,
    TabClosedError,
)
from ..models import RequestRecord
from ..options import TabOptions
from ..safety.fence import make_fence_key
from ..safety.policy import SafetyPolicy
from ..safety.secrets import all_secrets, redact
from ..safety.urls import Verdict, parse_resolver_rules
from ..snapshot.world import World, click_responder_js, register_engine
from .effects import EffectGate
from .guard import Blocked, NetworkGuard
from .launcher import (
    BrowserOptions,
    bundled_chromium,
    chromium_args,
    find_chromium,
    proxy_settings,
)
from .sidedoors import launch_flags
from .tabcore import TabCore

__all__ = ["CONTEXT_FIELDS", "SERVER_FIELDS", "BrowserCore", "Ownership", "connect_protocol",
           "server_launch_headers"]

CONTEXT_FIELDS = frozenset({
    "viewport", "user_agent", "locale", "timezone_id", "device", "extra_http_headers",
    "geolocation", "permissions", "storage_state", "proxy", "downloads_dir",
})
"""BrowserOptions fields that are settings of a context: they apply to a context made by
``connect()`` (when it makes one) and by ``new_context()``."""
SERVER_FIELDS = frozenset({"headless", "executable_path", "args"})
"""BrowserOptions fields a Playwright server launches its browser with (``connect()``)."""


def connect_protocol(endpoint: str, protocol: str = "auto") -> Literal["cdp", "playwright"]:
    """``cdp`` for an http(s):// address or a ws:// DevTools URL (``/devtools/browser/...``),
    ``playwright`` for another ws:// address (a Playwright server); ``protocol`` forces one."""
    if protocol in ("cdp", "playwright"):
        return protocol  # type: ignore[return-value]
    if protocol != "auto":
        raise InvalidArgumentError(
            f"protocol must be 'auto', 'cdp' or 'playwright', got {protocol[:40]!r}.")
    if endpoint.startswith(("http://", "https://")) or "/devtools/" in endpoint:
        return "cdp"
    return "playwright"


def server_launch_headers(opts: BrowserOptions, given: frozenset[str]) -> dict[str, str]:
    """The ``x-playwright-launch-options`` header asking a Playwright server to launch its
    browser headless or not, and (a server started with ``--unsafe`` allows it) with this
    binary and these flags."""
    launch: dict[str, Any] = {"headless": opts.headless}
    if "executable_path" in given and opts.executable_path:
        launch["executablePath"] = opts.executable_path
    if "args" in given and opts.args:
        launch["args"] = list(opts.args)
    return {"x-playwright-launch-options": json.dumps(launch)}

Ownership = Literal["launched", "connected", "wrapped", "context"]

MAX_REQUESTS = 5000
"""Requests kept in :attr:`BrowserCore.requests` (the oldest are dropped past this)."""
MAX_POST_DATA = 64 * 1024
CLOCK_TIMEOUT_S = 30.0
"""Longest a controlled clock's advance may take (it runs the page timers due)."""
GUARD_WAIT_S = 15.0
"""Longest a call on a wrapped context waits for its guard to be installed."""

# A deterministic Math.random (mulberry32) for pages of a seeded context.
_SEED_JS = """(() => { let a = %d >>> 0;
  Math.random = function () { a = (a + 0x6D2B79F5) >>> 0; let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; })();"""

# A controlled clock (Playwright's clock API) fakes Date, timers and performance.now. The page's
# performance.now is kept real: webrefs' readiness monitor measures quiet windows with it, and
# with a paused clock every action would wait out its limit. The first script runs before the
# clock's and keeps the real one; the second puts it back once the clock is installed.
_KEEP_NOW_JS = """(() => { try { const p = performance, now = p.now.bind(p);
  Object.defineProperty(window, Symbol.for('webrefs.realNow'), {value: now});
} catch (e) {} })();"""
_REAL_NOW_JS = """(() => { try { const now = window[Symbol.for('webrefs.realNow')];
  if (typeof now === 'function') performance.now = now; } catch (e) {} })();"""


async def _add_responder(context: BrowserContext) -> None:
    with contextlib.suppress(PlaywrightError):
        await context.add_init_script(script=click_responder_js())


RESPOND_TIMEOUT_S = 2.0


async def _respond_in(page: Page) -> None:
    """The click-probe responder in the documents a page already shows (an init script runs
    only in later ones): it sees the click listeners the page adds from now on."""
    await asyncio.gather(*(_respond_in_frame(frame) for frame in page.frames))


async def _respond_in_frame(frame: Frame) -> None:
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await asyncio.wait_for(frame.evaluate(click_responder_js(early=False)),
                               RESPOND_TIMEOUT_S)


class BrowserCore:
    """Async state of a browser: one context, its tabs, and which tab is active."""

    def __init__(self, tab_options: TabOptions, safety: SafetyPolicy | None = None) -> None:
        self.tab_options = tab_options
        self.guard = NetworkGuard(safety or SafetyPolicy(), tab_of=self._tab_id_of)
        """The safety policy at this context's routing (requests judged, refusals logged)."""
        self.effects = EffectGate(lambda: self.safety, self._tab_id_of, lambda: self.world)
        """Requests judged by what they do, charged to the action in flight."""
        self.guard.effects = self.effects
        self._guarding: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop this engine runs on (known once it has a context)."""
        self.seed: int | None = None
        """The seed of a seeded context (fence markers derive from it and ``fence_key``),
        else ``None``."""
        self.clocked = False
        """Whether this context's pages run on a controlled clock (:meth:`advance_clock`)."""
        self.fence_key: str | None = None
        """The secret fence markers of this context's tools derive from (with ``seed``): set
        for every context made by :meth:`child`; ``None`` (a random marker per tool set)
        otherwise."""
        self.playwright: Playwright | None = None
        self.pw_browser: PWBrowser | None = None
        self.context: BrowserContext | None = None
        self.ownership: Ownership = "launched"
        self.tabs: list[TabCore] = []
        self.active: TabCore | None = None
        self._recent: list[TabCore] = []
        self._by_page: dict[int, TabCore] = {}
        self._next_tab = 1
        self._creating = 0
        self.opened_log: list[str] = []
        """Ids of tabs opened by pages (popups), in order; actions report the new ones."""
        self.dead = False
        self.downloads_dir: str | None = None
        """Folder downloads are saved in (sanitized names); ``None`` means downloads are off."""
        self.context_options: dict[str, Any] = {}
        """What new contexts of this browser are made with (viewport, downloads)."""
        self.requests: list[RequestRecord] = []
        """Requests sent by this context's pages, oldest first (at most ``MAX_REQUESTS``)."""
        self.shared = False
        """Whether the context is one webrefs did not make and others also open pages in
        (a browser's own context on ``connect``): only pages its tabs open become active."""
        self._tasks: set[asyncio.Future[None]] = set()
        self.world = World(None)
        self._responder: asyncio.Future[None] | None = None
        """Adding the click-probe responder to the context (see ``webrefs.snapshot.world``)."""
        """Where page-side code runs: isolated once the engine is registered on a Playwright
        this browser started; the page's main world for wrapped pages."""

    # -- starting ----------------------------------------------------------------------------
    async def _start_playwright(self, *, register: bool = True) -> Playwright:
        self.playwright = await async_playwright().start()
        if register:
            self.world = World(await register_engine(self.playwright))
        return self.playwright

    async def launch(self, opts: BrowserOptions) -> None:
        await self._start_playwright()
        assert self.playwright is not None
        try:
            executable = find_chromium(
                opts.executable_path,
                bundled=None if opts.executable_path else bundled_chromium(self.playwright),
            )
        except BaseException:
            await self._stop_playwright()
            raise
        self.downloads_dir = opts.downloads_dir
        chromium = self.playwright.chromium
        args = chromium_args((*opts.args, *launch_flags(self.safety, tuple(opts.args))))
        self.guard.resolver_rules = parse_resolver_rules(args)
        width, height = opts.viewport
        common: dict[str, Any] = {
            "executable_path": executable,
            "headless": opts.headless,
            "args": args,
            "timeout": opts.timeout_ms,
            "env": opts.env or None,
        }
        context_opts: dict[str, Any] = {
            "viewport": {"width": width, "height": height},
            "accept_downloads": opts.downloads_dir is not None,
        }
        try:
            context_opts.update(self._emulation(opts))
        except BaseException:
            await self._stop_playwright()
            raise
        common["proxy"] = proxy_settings(opts.proxy)
        if self.safety.network_rules and self.safety.block_service_workers:
            context_opts["service_workers"] = "block"  # a worker's fetches are not routed
        self.context_options = context_opts
        try:
            if opts.user_data_dir:
                self.context = await chromium.launch_persistent_context(
                    opts.user_data_dir, **common, **context_opts
                )
                self.pw_browser = self.context.browser
            else:
                # Playwright gives launch() a fresh temporary profile and removes it on close.
                self.pw_browser = await chromium.launch(
                    **common, downloads_path=opts.downloads_dir
                )
                self.context = await self.pw_browser.new_context(**context_opts)
        except PlaywrightError as exc:
            await self._stop_playwright()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            raise BrowserLaunchError(
                f"Chromium at {executable} did not start: {first}",
                hint="Run 'webrefs doctor' to see which browser is used and why it fails.",
            ) from None
        self.ownership = "launched"
        self.adopt_context()
        await self.guard.install(self.context)

    def _emulation(self, opts: BrowserOptions) -> dict[str, Any]:
        """Context options for device emulation, identity, headers, location and stored state."""
        out: dict[str, Any] = {}
        if opts.device is not None:
            assert self.playwright is not None
            descriptor = self.playwright.devices.get(opts.device)
            if descriptor is None:
                near = [n for n in self.playwright.devices if opts.device.lower() in n.lower()]
                raise InvalidArgumentError(
                    f"Unknown device {opts.device[:80]!r}.",
                    hint=f"Use a name from Playwright's device list, e.g. "
                    f"{', '.join(repr(n) for n in (near or ['iPhone 13', 'Pixel 7'])[:5])}.",
                )
            out.update({k: v for k, v in descriptor.items() if k != "default_browser_type"})
        named = {"user_agent": opts.user_agent, "locale": opts.locale,
                 "timezone_id": opts.timezone_id,
                 "extra_http_headers": dict(opts.extra_http_headers)
                 if opts.extra_http_headers else None}
        out.update({k: v for k, v in named.items() if v is not None})
        if opts.geolocation is not None:
            latitude, longitude = opts.geolocation
            out["geolocation"] = {"latitude": float(latitude), "longitude": float(longitude)}
        if opts.permissions:
            out["permissions"] = list(opts.permissions)
        if opts.storage_state is not None:
            if opts.user_data_dir:
                raise InvalidArgumentError(
                    "storage_state cannot be used with user_data_dir: a profile keeps its own "
                    "cookies and storage.", hint="Give one of the two.")
            if not Path(opts.storage_state).is_file():
                raise InvalidArgumentError(
                    f"storage_state {opts.storage_state[:200]!r} is not a file.",
                    host_hint="Write one with Browser.save_storage_state(path) first.")
            out["storage_state"] = opts.storage_state
        return out

    async def save_storage_state(self, path: str | None) -> dict[str, Any]:
        """Cookies and local storage of this context (written to ``path`` when given)."""
        self._check_alive()
        assert self.context is not None
        state: dict[str, Any] = dict(await self.context.storage_state(path=path))
        return state

    async def connect(self, endpoint: str, timeout_ms: int, *, protocol: str = "auto",
                      opts: BrowserOptions | None = None,
                      given: frozenset[str] = frozenset()) -> None:
        """Attach over CDP or to a Playwright server (:func:`connect_protocol`). ``opts`` are
        the context options of the context made here (``given`` names the fields the caller
        set); a Playwright server also gets ``headless``, ``executable_path`` and ``args``."""
        if not endpoint.startswith(("http://", "https://", "ws://", "wss://")):
            raise InvalidArgumentError(
                f"Cannot connect to {endpoint[:100]!r}: use an http:// CDP address such as "
                "http://127.0.0.1:9222, a ws:// DevTools URL, or a Playwright server's ws:// "
                "address."
            )
        kind = connect_protocol(endpoint, protocol)
        opts = opts or BrowserOptions()
        playwright = await self._start_playwright(register=False)
        try:
            if kind == "cdp":
                self.pw_browser = await playwright.chromium.connect_over_cdp(
                    endpoint, timeout=timeout_ms
                )
            else:
                self.pw_browser = await playwright.chromium.connect(
                    endpoint, timeout=timeout_ms, headers=server_launch_headers(opts, given)
                )
        except PlaywrightError as exc:
            await self._stop_playwright()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            raise ConnectError(
                f"Could not attach to a browser at {endpoint[:200]}: {first[:300]}",
                hint=("Start Chrome with --remote-debugging-port=9222 and try again."
                      if kind == "cdp" else
                      "Start one with 'playwright run-server --port 3000' and try again."),
            ) from None
        try:
            context_opts = self.context_overrides(opts, given)
            contexts = self.pw_browser.contexts
            if contexts and context_opts:
                raise InvalidArgumentError(
                    "This browser already has a context, whose settings cannot change: "
                    f"{', '.join(sorted(given & CONTEXT_FIELDS))} cannot apply to it.",
                    host_hint="Open a context with these settings with "
                    "browser.new_context(...), or connect without them.")
            self.downloads_dir = opts.downloads_dir
            if self.safety.network_rules and self.safety.block_service_workers:
                context_opts["service_workers"] = "block"
            self.context_options = context_opts
            # Registered now, not before connecting: Playwright sends an engine to the
            # contexts it knows when it is registered and puts it in the options of contexts
            # made later, and the context a browser already had is neither.
            self.world = World(await register_engine(playwright))
            self.context = contexts[0] if contexts else await self.pw_browser.new_context(
                **context_opts)
        except BaseException:
            await self._stop_playwright()
            raise
        self.ownership = "connected"
        if not contexts:
            self.adopt_context()
            await self.guard.install(self.context)
            return
        # The browser's own context: others (its user, other clients) open pages in it too.
        self.shared = True
        self.adopt_context(pages=False)
        await self.guard.install(self.context, default_context=kind == "cdp")
        found = [page for page in self.context.pages
                 if await self.guard.belongs(page) and not page.is_closed()]
        for page in found:
            self._adopt(page, popup=False)
            self._spawn(_respond_in(page))

    def context_overrides(self, opts: BrowserOptions, given: frozenset[str]) -> dict[str, Any]:
        """Playwright context options for the context-level fields of ``opts`` named in
        ``given`` (viewport, identity, emulation, headers, proxy, stored state, downloads)."""
        unknown = sorted(given - CONTEXT_FIELDS - SERVER_FIELDS - {"timeout_ms"})
        if unknown:
            raise InvalidArgumentError(
                f"{', '.join(unknown)} cannot be set here; they belong to a browser webrefs "
                "launches.", host_hint="These are options of Browser.launch.")
        out: dict[str, Any] = {}
        if "viewport" in given:
            width, height = opts.viewport
            out["viewport"] = {"width": width, "height": height}
        if "downloads_dir" in given and opts.downloads_dir is not None:
            out["accept_downloads"] = True
        if "proxy" in given:
            out["proxy"] = proxy_settings(opts.proxy)
        out.update(self._emulation(opts))
        return out

    async def child(
        self,
        *,
        record_har: str | None = None,
        replay_har: str | None = None,
        seed: int | None = None,
        fence_key: str | None = None,
        clock_at: float | None = None,
        opts: BrowserOptions | None = None,
        given: frozenset[str] = frozenset(),
    ) -> BrowserCore:
        """A new, isolated context of this browser (its own cookies, storage and tabs).

        ``record_har`` writes the context's traffic to that HAR file when it closes;
        ``replay_har`` answers every request from that HAR and aborts what it lacks;
        ``seed`` makes ``Math.random`` deterministic on every page; ``fence_key`` is the
        secret the fence markers of its tools derive from, with the seed (a new random one
        when not given); ``clock_at`` (seconds since the epoch) installs a controlled clock
        on its pages, paused at that instant (:meth:`advance_clock` moves it); the fields of
        ``opts`` named in ``given`` replace this context's
        settings (see :meth:`context_overrides`)."""
        self._check_alive()
        if fence_key is not None and (not isinstance(fence_key, str)
                                      or not 8 <= len(fence_key) <= 200):
            raise InvalidArgumentError(
                "fence_key must be a string of 8 to 200 characters.",
                host_hint="Pass the key a recording kept, or leave it out for a new one.")
        if given - CONTEXT_FIELDS:
            raise InvalidArgumentError(
                f"{', '.join(sorted(given - CONTEXT_FIELDS))} cannot be set for one context; "
                "the browser process has them.",
                host_hint="Pass them to Browser.launch.")
        overrides = self.context_overrides(opts or BrowserOptions(), given)
        if self.pw_browser is None:
            raise InvalidArgumentError(
                "This browser has no browser process to open another context in.",
                host_hint="Use a Browser from launch() or connect().",
            )
        child = BrowserCore(self.tab_options, self.safety)
        child.fence_key = fence_key if fence_key is not None else make_fence_key()
        child.guard.resolver_rules = list(self.guard.resolver_rules)
        child.playwright = None  # the parent owns Playwright and the process
        child.world = self.world
        child.pw_browser = self.pw_browser
        child.downloads_dir = self.downloads_dir
        child.context_options = {**self.context_options, **overrides}
        new_opts = dict(child.context_options)
        if record_har:
            new_opts["record_har_path"] = record_har
            new_opts["record_har_content"] = "embed"
        try:
            context = await self.pw_browser.new_context(**new_opts)
            if replay_har:
                await context.route_from_har(replay_har, not_found="abort")
            if seed is not None:
                await context.add_init_script(script=_SEED_JS % (int(seed) & 0xFFFFFFFF))
                child.seed = int(seed)
            if clock_at is not None:
                await context.add_init_script(script=_KEEP_NOW_JS)
                await context.clock.install(time=float(clock_at))
                await context.clock.pause_at(float(clock_at))
                await context.add_init_script(script=_REAL_NOW_JS)
                child.clocked = True
        except PlaywrightError as exc:
            self.dead = self.dead or not self.pw_browser.is_connected()
            raise BrowserClosedError(
                f"Could not open a browser context: {str(exc).splitlines()[0][:200]}",
                host_hint="Launch a new Browser if this one has exited.",
            ) from None
        child.context = context
        child.ownership = "context"
        child.adopt_context()
        try:
            await child.guard.install(context)
        except PlaywrightError as exc:
            raise BrowserClosedError(
                f"Could not open a browser context: {str(exc).splitlines()[0][:200]}",
                host_hint="Launch a new Browser if this one has exited.",
            ) from None
        return child

    async def advance_clock(self, ms: float) -> None:
        """Move a controlled clock ``ms`` forward, firing the page timers due on the way, in
        order (Playwright's ``run_for``). Raises :class:`InvalidArgumentError` on a context
        without one, :class:`BrowserClosedError` when the context is gone."""
        if not self.clocked or self.context is None:
            raise InvalidArgumentError(
                "This context has no controlled clock.",
                host_hint="Make the context with Browser.new_context(clock_at=...).")
        try:
            await asyncio.wait_for(self.context.clock.run_for(max(0, int(ms))), CLOCK_TIMEOUT_S)
        except TimeoutError:
            raise BrowserClosedError(
                f"The page clock did not advance within {CLOCK_TIMEOUT_S:.0f} s.",
                host_hint="A page script may be stuck; close this context.") from None
        except PlaywrightError as exc:
            raise BrowserClosedError(
                f"Could not advance the page clock: {str(exc).splitlines()[0][:200]}",
                host_hint="The context has closed.") from None

    def wrap(self, page: Page) -> None:
        self.wrap_context(page.context, page)

    def wrap_context(self, context: BrowserContext, page: Page | None = None) -> None:
        """Adopt a context the caller made (and ``page`` of it first, as the active tab)."""
        self.context = context
        self.pw_browser = self.context.browser
        self.ownership = "wrapped"
        if page is not None:
            self._adopt(page, popup=False)
        self.adopt_context()
        task = asyncio.ensure_future(self.guard.install(self.context))
        task.add_done_callback(self._guard_installed)
        self._guarding = task  # every tab call waits for it (guarded)

    async def guarded(self) -> None:
        """Wait (bounded) until the guard of a wrapped context is in place: Chromium's
        interception of redirect hops must be on before a call's first request starts."""
        task = self._guarding
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), GUARD_WAIT_S)

    def _guard_installed(self, task: asyncio.Future[None]) -> None:
        """A guard install that failed because the context closed first is nothing to report
        (the context has no pages left to guard); any other failure stays loud."""
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None or self.dead:
            return
        if isinstance(exc, PlaywrightError) and "closed" in str(exc).lower():
            return
        task.get_loop().call_exception_handler({
            "message": "webrefs could not install its safety policy on an adopted context",
            "exception": exc,
        })

    def adopt_context(self, *, pages: bool = True) -> None:
        """Track the context's pages (existing ones unless ``pages`` is false, and popups)
        and its lifecycle events."""
        assert self.context is not None
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        self.context.on("page", self._on_page)
        for page in self.context.pages if pages else ():
            self._adopt(page, popup=False)
        if self.pw_browser is not None:
            self.pw_browser.on("disconnected", self._on_disconnected)
        self.context.on("close", lambda _ctx: self._on_disconnected(None))
        self.context.on("request", self._on_request)
        if self.world.isolated:
            # scheduled now, so it is sent before any page of this context is opened
            self._responder = asyncio.ensure_future(_add_responder(self.context))

    def _on_request(self, request: Request) -> None:
        if self.shared:
            with contextlib.suppress(PlaywrightError):
                if self.guard.foreign(request.frame.page):
                    return  # a page of another context
        try:
            body = request.post_data
        except (PlaywrightError, UnicodeDecodeError, ValueError):
            body = None  # a binary body
        if body is not None and len(body) > MAX_POST_DATA:
            body = body[:MAX_POST_DATA]
        url = request.url
        secrets = all_secrets(self.safety) if self.safety.sensitive_data else {}
        if secrets:  # the request log never holds a secret's value
            url = redact(url, secrets)
            body = redact(body, secrets) if body else body
        self.requests.append(RequestRecord(method=request.method, url=url,
                                           resource_type=request.resource_type,
                                           post_data=body))
        if len(self.requests) > MAX_REQUESTS:
            del self.requests[: len(self.requests) - MAX_REQUESTS]

    # -- safety -----------------------------------------------------------------------------
    @property
    def safety(self) -> SafetyPolicy:
        """The safety policy of this context."""
        return self.guard.policy

    @safety.setter
    def safety(self, policy: SafetyPolicy) -> None:
        self.guard.policy = policy
        self._side_doors_follow(policy)

    def _side_doors_follow(self, policy: SafetyPolicy) -> None:
        """Give the context's frames the side-door guard of ``policy``; every tab call waits
        for it (:meth:`guarded`), so the next page is judged by the new policy."""
        if self.context is None or self.dead:
            return
        loop = self._loop

        def start() -> None:
            earlier = self._guarding

            async def follow() -> None:
                if earlier is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(earlier)
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await self.guard.side_doors.apply(policy)

            self._guarding = asyncio.ensure_future(follow())

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            if running is not None:
                start()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(start)

    @property
    def blocked(self) -> list[Blocked]:
        """Requests the policy refused, oldest first (bounded)."""
        return self.guard.blocked

    async def judge(self, url: str, *, top_level: bool = True) -> Verdict:
        """The policy's verdict on ``url`` (its host resolved when the policy needs it)."""
        return await self.guard.judge(url, top_level=top_level)

    def _tab_id_of(self, page: Page) -> str | None:
        core = self._by_page.get(id(page))
        return core.id if core is not None else None

    def _on_disconnected(self, _browser: Any) -> None:
        self.dead = True

    def _on_page(self, page: Page) -> None:
        if self._creating:
            return  # new_tab() adopts its own page
        if not self.shared:
            self._adopt(page, popup=True)
            return
        self._spawn(self._adopt_shared(page))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _adopt_shared(self, page: Page) -> None:
        """A page that appeared in a shared context: a tab when it is of this context (not
        another one Playwright reports here), made active only when one of this browser's
        tabs opened it (a page its user or another client opened is listed, not switched
        to)."""
        try:
            if not await self.guard.belongs(page) or page.is_closed():
                return
            opener = await page.opener()
        except PlaywrightError:
            return
        self._adopt(page, popup=opener is not None and id(opener) in self._by_page)

    def _adopt(self, page: Page, *, popup: bool) -> TabCore:
        known = self._by_page.get(id(page))
        if known is not None:
            return known
        core = TabCore(self, page, f"t{self._next_tab}", self.tab_options)
        self._next_tab += 1
        self._by_page[id(page)] = core
        if popup:
            self.opened_log.append(core.id)
        if popup or self.active is None:
            # before it is listed: the host's thread, which may read the list at any moment,
            # never sees a listed popup that is not the active tab yet
            self._make_active(core)
        self.tabs.append(core)
        return core

    def _make_active(self, core: TabCore) -> None:
        self.active = core
        if core in self._recent:
            self._recent.remove(core)
        self._recent.append(core)

    def forget(self, core: TabCore) -> None:
        """A tab closed: drop it, and fall back to the most recently active open tab."""
        self._by_page.pop(id(core.page), None)
        if core in self.tabs:
            self.tabs.remove(core)
        if core in self._recent:
            self._recent.remove(core)
        if self.active is core:
            self.active = self._recent[-1] if self._recent else None

    # -- tabs ---------------------------------------------------------------------------------
    def _check_alive(self) -> None:
        if self.dead:
            raise BrowserClosedError(
                "The browser process has exited or disconnected.",
                hint="Launch a new Browser; this one cannot be used any more.",
            )

    async def new_page_for(self, core: TabCore | None) -> Page:
        """A fresh page in this context; registered under ``core`` when given."""
        self._check_alive()
        assert self.context is not None
        self._creating += 1
        try:
            page = await self.context.new_page()
        except PlaywrightError as exc:
            self.dead = self.dead or not (self.pw_browser and self.pw_browser.is_connected())
            raise BrowserClosedError(
                f"Could not open a page: {str(exc).splitlines()[0]}",
                hint="Launch a new Browser if this one has exited.",
            ) from None
        finally:
            self._creating -= 1
        if core is not None:
            self._by_page.pop(id(core.page), None)
            self._by_page[id(page)] = core
        return page

    async def new_tab(self) -> TabCore:
        """A new blank tab, made active (the front-end navigates it)."""
        page = await self.new_page_for(None)
        core = self._adopt(page, popup=False)
        self._make_active(core)
        return core

    async def activate(self, core: TabCore) -> None:
        if core.closed or core not in self.tabs:
            raise TabClosedError(f"Tab {core.id} is closed.", hint="List the open tabs.")
        self._make_active(core)
        with contextlib.suppress(PlaywrightError):
            await core.page.bring_to_front()

    def find(self, key: str | int) -> TabCore:
        """A tab by id (``t2``) or position in :attr:`tabs`."""
        if isinstance(key, int):
            if 0 <= key < len(self.tabs):
                return self.tabs[key]
        else:
            for core in self.tabs:
                if core.id == key:
                    return core
        known = ", ".join(c.id for c in self.tabs) or "none"
        raise TabClosedError(f"No open tab {key!r}.", hint=f"Open tabs: {known}.")

    # -- closing ------------------------------------------------------------------------------
    async def close(self) -> None:
        if self.ownership == "context":
            try:
                if not self.dead and self.context is not None:
                    await asyncio.wait_for(self.context.close(), 15)
            except (PlaywrightError, TimeoutError):
                pass
            finally:
                self.dead = True
            return
        try:
            if self.ownership == "launched" and not self.dead:
                if self.context is not None:
                    await asyncio.wait_for(self.context.close(), 15)
                if self.pw_browser is not None:
                    await asyncio.wait_for(self.pw_browser.close(), 15)
        except (PlaywrightError, TimeoutError):
            pass
        finally:
            self.dead = True
            await self._stop_playwright()

    async def _stop_playwright(self) -> None:
        if self.playwright is not None:
            pw, self.playwright = self.playwright, None
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(pw.stop(), 15)
