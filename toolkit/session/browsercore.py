"""The engine of a browser: Playwright's lifecycle (launch / connect / wrap), one context, its
tabs, and which tab is active.

``BrowserCore`` runs only on the Browser's loop; the public :class:`~webrefs.Browser` wraps
one. Tabs are adopted explicitly (new tab, popup, wrapped page); the active tab is tracked,
never guessed from the order of pages.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Browser as PWBrowser
from playwright.async_api import BrowserContext, Page, Playwright, Request, async_playwright
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
from .launcher import (
    BrowserOptions,
    bundled_chromium,
    chromium_args,
    find_chromium,
    proxy_settings,
)
from .tabcore import TabCore

__all__ = ["BrowserCore", "Ownership"]

Ownership = Literal["launched", "connected", "wrapped", "context"]

MAX_REQUESTS = 5000
"""Requests kept in :attr:`BrowserCore.requests` (the oldest are dropped past this)."""
MAX_POST_DATA = 64 * 1024

# A deterministic Math.random (mulberry32) for pages of a seeded context.
_SEED_JS = """(() => { let a = %d >>> 0;
  Math.random = function () { a = (a + 0x6D2B79F5) >>> 0; let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; })();"""


class BrowserCore:
    """Async state of a browser: one context, its tabs, and which tab is active."""

    def __init__(self, tab_options: TabOptions) -> None:
        self.tab_options = tab_options
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

    # -- starting ----------------------------------------------------------------------------
    async def launch(self, opts: BrowserOptions) -> None:
        self.playwright = await async_playwright().start()
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
        args = chromium_args(opts.args)
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
                    hint="Write one with Browser.save_storage_state(path) first.")
            out["storage_state"] = opts.storage_state
        return out

    async def save_storage_state(self, path: str | None) -> dict[str, Any]:
        """Cookies and local storage of this context (written to ``path`` when given)."""
        self._check_alive()
        assert self.context is not None
        state: dict[str, Any] = dict(await self.context.storage_state(path=path))
        return state

    async def connect(self, endpoint: str, timeout_ms: int) -> None:
        if not endpoint.startswith(("http://", "https://", "ws://", "wss://")):
            raise InvalidArgumentError(
                f"Cannot connect to {endpoint!r}: use an http:// CDP address such as "
                "http://127.0.0.1:9222 or a ws:// DevTools URL."
            )
        self.playwright = await async_playwright().start()
        try:
            self.pw_browser = await self.playwright.chromium.connect_over_cdp(
                endpoint, timeout=timeout_ms
            )
        except PlaywrightError as exc:
            await self._stop_playwright()
            first = str(exc).strip().splitlines()[0]
            raise ConnectError(
                f"Could not attach to a browser at {endpoint}: {first}",
                hint="Start Chrome with --remote-debugging-port=9222 and try again.",
            ) from None
        contexts = self.pw_browser.contexts
        self.context = contexts[0] if contexts else await self.pw_browser.new_context()
        self.ownership = "connected"
        self.adopt_context()

    async def child(
        self,
        *,
        record_har: str | None = None,
        replay_har: str | None = None,
        seed: int | None = None,
    ) -> BrowserCore:
        """A new, isolated context of this browser (its own cookies, storage and tabs).

        ``record_har`` writes the context's traffic to that HAR file when it closes;
        ``replay_har`` answers every request from that HAR and aborts what it lacks;
        ``seed`` makes ``Math.random`` deterministic on every page."""
        self._check_alive()
        if self.pw_browser is None:
            raise InvalidArgumentError(
                "This browser has no browser process to open another context in.",
                hint="Use a Browser from launch() or connect().",
            )
        child = BrowserCore(self.tab_options)
        child.playwright = None  # the parent owns Playwright and the process
        child.pw_browser = self.pw_browser
        child.downloads_dir = self.downloads_dir
        child.context_options = dict(self.context_options)
        opts = dict(self.context_options)
        if record_har:
            opts["record_har_path"] = record_har
            opts["record_har_content"] = "embed"
        try:
            context = await self.pw_browser.new_context(**opts)
            if replay_har:
                await context.route_from_har(replay_har, not_found="abort")
            if seed is not None:
                await context.add_init_script(script=_SEED_JS % (int(seed) & 0xFFFFFFFF))
        except PlaywrightError as exc:
            self.dead = self.dead or not self.pw_browser.is_connected()
            raise BrowserClosedError(
                f"Could not open a browser context: {str(exc).splitlines()[0][:200]}",
                host_hint="Launch a new Browser if this one has exited.",
            ) from None
        child.context = context
        child.ownership = "context"
        child.adopt_context()
        return child

    def wrap(self, page: Page) -> None:
        self.context = page.context
        self.pw_browser = self.context.browser
        self.ownership = "wrapped"
        self._adopt(page, popup=False)
        self.adopt_context()

    def adopt_context(self) -> None:
        """Track the context's pages (existing ones and popups) and its lifecycle events."""
        assert self.context is not None
        self.context.on("page", self._on_page)
        for page in self.context.pages:
            self._adopt(page, popup=False)
        if self.pw_browser is not None:
            self.pw_browser.on("disconnected", self._on_disconnected)
        self.context.on("close", lambda _ctx: self._on_disconnected(None))
        self.context.on("request", self._on_request)

    def _on_request(self, request: Request) -> None:
        try:
            body = request.post_data
        except (PlaywrightError, UnicodeDecodeError, ValueError):
            body = None  # a binary body
        if body is not None and len(body) > MAX_POST_DATA:
            body = body[:MAX_POST_DATA]
        self.requests.append(RequestRecord(method=request.method, url=request.url,
                                           resource_type=request.resource_type,
                                           post_data=body))
        if len(self.requests) > MAX_REQUESTS:
            del self.requests[: len(self.requests) - MAX_REQUESTS]

    def _on_disconnected(self, _browser: Any) -> None:
        self.dead = True

    def _on_page(self, page: Page) -> None:
        if self._creating:
            return  # new_tab() adopts its own page
        self._adopt(page, popup=True)

    def _adopt(self, page: Page, *, popup: bool) -> TabCore:
        known = self._by_page.get(id(page))
        if known is not None:
            return known
        core = TabCore(self, page, f"t{self._next_tab}", self.tab_options)
        self._next_tab += 1
        self._by_page[id(page)] = core
        self.tabs.append(core)
        if popup:
            self.opened_log.append(core.id)
        if popup or self.active is None:
            self._make_active(core)
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
