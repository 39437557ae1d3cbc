"""The public Browser: launch / connect / wrap, the tabs, and closing.

A :class:`Browser` is a thin front-end over a :class:`~webrefs.session.browsercore.BrowserCore`
and the :class:`~webrefs._loop.Runner` whose thread runs its event loop. Each coroutine has a
blocking twin made by :func:`~webrefs._loop.blocking`.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from playwright.async_api import Page

from . import actions
from ._loop import Runner, blocking
from .errors import (
    BrowserClosedError,
    InvalidArgumentError,
    TabClosedError,
)
from .models import RequestRecord
from .options import TabOptions, merge_options
from .session.browsercore import BrowserCore
from .session.launcher import BrowserOptions
from .session.tabcore import TabCore
from .tab import Tab

__all__ = ["Browser"]


class Browser:
    """A browser an agent drives. Create with :meth:`launch`, :meth:`connect` or :meth:`wrap`.

    Blocking methods work from any thread (also inside a running loop); ``a``-prefixed
    coroutines work from any loop. Use as a context manager (``with`` or ``async with``).
    """

    def __init__(self, core: BrowserCore, runner: Runner, *, owns_runner: bool = True) -> None:
        self._core = core
        self._runner = runner
        self._owns_runner = owns_runner and runner.owns_thread
        self._tabs: dict[int, Tab] = {}

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def launch(
        cls,
        headless: bool = True,
        executable_path: str | None = None,
        user_data_dir: str | None = None,
        viewport: tuple[int, int] = (1280, 720),
        *,
        options: BrowserOptions | None = None,
        tab_options: TabOptions | None = None,
        **more: Any,
    ) -> Browser:
        """Start an isolated Chromium (fresh temporary profile unless ``user_data_dir``).

        ``**more`` takes any :class:`BrowserOptions` field: ``proxy`` (a URL, credentials
        included), ``user_agent``, ``locale``, ``timezone_id``, ``device`` (a Playwright device
        name), ``extra_http_headers``, ``geolocation``, ``permissions``, ``storage_state``
        (a file from :meth:`save_storage_state`), ``args``, ``downloads_dir``, ..."""
        opts = merge_options(
            options or BrowserOptions(),
            {
                "headless": headless,
                "executable_path": executable_path,
                "user_data_dir": user_data_dir,
                "viewport": tuple(viewport),
                **more,
            },
        )
        runner = Runner()
        core = BrowserCore(tab_options or TabOptions())
        try:
            runner.run(core.launch(opts))
        except BaseException:
            runner.stop()
            raise
        return cls(core, runner)

    @classmethod
    async def alaunch(
        cls,
        headless: bool = True,
        executable_path: str | None = None,
        user_data_dir: str | None = None,
        viewport: tuple[int, int] = (1280, 720),
        *,
        options: BrowserOptions | None = None,
        tab_options: TabOptions | None = None,
        **more: Any,
    ) -> Browser:
        return await asyncio.to_thread(
            cls.launch, headless, executable_path, user_data_dir, viewport,
            options=options, tab_options=tab_options, **more,
        )

    @classmethod
    def connect(
        cls, endpoint: str, *, tab_options: TabOptions | None = None, timeout_ms: int = 30_000
    ) -> Browser:
        """Attach to a running Chromium over CDP; closing detaches and leaves it running."""
        runner = Runner()
        core = BrowserCore(tab_options or TabOptions())
        try:
            runner.run(core.connect(endpoint, timeout_ms))
        except BaseException:
            runner.stop()
            raise
        return cls(core, runner)

    @classmethod
    async def aconnect(
        cls, endpoint: str, *, tab_options: TabOptions | None = None, timeout_ms: int = 30_000
    ) -> Browser:
        return await asyncio.to_thread(
            cls.connect, endpoint, tab_options=tab_options, timeout_ms=timeout_ms
        )

    @classmethod
    def wrap(cls, page: Any, *, tab_options: TabOptions | None = None) -> Browser:
        """Adopt a Playwright **async** page the caller already has. Call it from the loop
        that page runs on; closing the Browser leaves the page and its browser open."""
        if not isinstance(page, Page):
            raise InvalidArgumentError(
                "Browser.wrap() takes a page from playwright.async_api; a sync-API page is bound "
                "to its own thread.",
                hint="Use async Playwright, or start Chrome with --remote-debugging-port and "
                "call Browser.connect().",
            )
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise InvalidArgumentError(
                "Browser.wrap() must be called inside the event loop that runs the page."
            ) from None
        runner = Runner(loop)
        core = BrowserCore(tab_options or TabOptions())
        core.wrap(page)
        return cls(core, runner)

    # -- tabs ---------------------------------------------------------------------------------
    def _tab(self, core: TabCore) -> Tab:
        tab = self._tabs.get(id(core))
        if tab is None or tab.core is not core:
            tab = Tab(core, self._runner)
            self._tabs[id(core)] = tab
        return tab

    @property
    def tabs(self) -> list[Tab]:
        """Open tabs, in the order they were opened."""
        return [self._tab(c) for c in list(self._core.tabs)]

    @property
    def active_tab(self) -> Tab:
        """The tab tools act on: the last one opened, switched to, or opened by a page."""
        core = self._core.active
        if core is None:
            raise TabClosedError("No tab is open.", hint="Open one with new_tab(url).")
        return self._tab(core)

    @property
    def core(self) -> BrowserCore:
        """The engine behind this browser (for webrefs' own layers; runs on its loop)."""
        return self._core

    @property
    def version(self) -> str:
        """The browser's version string (``"?"`` when it cannot be known)."""
        pw = self._core.pw_browser
        return pw.version if pw is not None else "?"

    @property
    def runner(self) -> Runner:
        """The bridge to this browser's event loop, which every call runs on."""
        return self._runner

    @property
    def closed(self) -> bool:
        return self._core.dead

    @property
    def tab_options(self) -> TabOptions:
        return self._core.tab_options

    def tab(self, key: str | int) -> Tab:
        """An open tab by id (``'t2'``) or index."""
        return self._tab(self._core.find(key))

    async def _new_tab(self, url: str | None) -> TabCore:
        core = await self._core.new_tab()
        if url:
            await actions.goto(core, url)
        return core

    async def anew_tab(self, url: str | None = None) -> Tab:
        """Open a tab (at ``url`` when given) and make it the active one."""
        return self._tab(await self._runner.arun(self._new_tab(url)))

    new_tab = blocking(anew_tab)

    async def aswitch_tab(self, key: str | int | Tab) -> Tab:
        """Make a tab (by id ``'t2'``, index or :class:`Tab`) the active one."""
        core = key.core if isinstance(key, Tab) else self._core.find(key)
        await self._runner.arun(self._core.activate(core))
        return self._tab(core)

    switch_tab = blocking(aswitch_tab)

    async def asave_storage_state(self, path: str | None = None) -> dict[str, Any]:
        """The cookies and local storage of this browser's context, written to ``path`` when
        given; ``Browser.launch(storage_state=path)`` starts from it (log in once, reuse)."""
        return await self._runner.arun(self._core.save_storage_state(path))

    save_storage_state = blocking(asave_storage_state)

    @property
    def requests(self) -> list[RequestRecord]:
        """Requests this browser's pages sent, oldest first (bounded; for hosts and audits)."""
        return list(self._core.requests)

    # -- more contexts ------------------------------------------------------------------------
    async def anew_context(
        self,
        *,
        record_har: str | None = None,
        replay_har: str | None = None,
        seed: int | None = None,
    ) -> Browser:
        """A new isolated context of this browser (own cookies, storage, tabs), as a Browser
        that shares this one's process and loop; closing it closes only the context.

        ``record_har`` saves the context's traffic to that HAR file when it closes;
        ``replay_har`` answers requests from that HAR and aborts any it lacks (no network);
        ``seed`` makes ``Math.random`` on its pages deterministic."""
        core = await self._runner.arun(
            self._core.child(record_har=record_har, replay_har=replay_har, seed=seed)
        )
        return Browser(core, self._runner, owns_runner=False)

    new_context = blocking(anew_context)

    # -- closing ------------------------------------------------------------------------------
    def close(self) -> None:
        """Close a launched browser (and remove its temporary profile), or just the context of
        one made by :meth:`new_context`; detach from a connected one."""
        if self._owns_runner:
            with contextlib.suppress(BrowserClosedError):
                self._runner.run(self._core.close())
            self._runner.stop()
        elif self._core.ownership == "context":
            with contextlib.suppress(BrowserClosedError):
                self._runner.run(self._core.close())
        else:
            raise InvalidArgumentError(
                "A wrapped Browser is closed from its event loop.", hint="Use 'await aclose()'."
            )

    async def aclose(self) -> None:
        if self._owns_runner:
            await asyncio.to_thread(self.close)
        elif self._core.ownership == "context":
            with contextlib.suppress(BrowserClosedError):
                await self._runner.arun(self._core.close())
        else:
            self._core.dead = True

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = "closed" if self._core.dead else f"{len(self._core.tabs)} tab(s)"
        return f"<Browser {self._core.ownership} {state}>"
