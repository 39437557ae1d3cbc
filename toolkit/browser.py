"""The public Browser: launch / connect / wrap, the tabs, and closing.

A :class:`Browser` is a thin front-end over a :class:`~webrefs.session.browsercore.BrowserCore`
and the :class:`~webrefs._loop.Runner` whose thread runs its event loop. Each coroutine has a
blocking twin made by :func:`~webrefs._loop.blocking`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

from playwright.async_api import Browser as PWBrowser
from playwright.async_api import BrowserContext, Page

from . import actions
from ._loop import Runner, blocking
from .errors import (
    BrowserClosedError,
    InvalidArgumentError,
    TabClosedError,
)
from .models import RequestRecord
from .options import TabOptions, merge_options
from .safety.policy import SafetyPolicy
from .session.browsercore import CONTEXT_FIELDS, SERVER_FIELDS, BrowserCore
from .session.launcher import BrowserOptions
from .session.tabcore import TabCore
from .snapshot.world import IsolationWarning
from .tab import Tab

__all__ = ["Browser"]


def _running_loop(method: str) -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise InvalidArgumentError(
            "Adopting Playwright objects needs the event loop they run on.",
            host_hint=f"Call Browser.{method}() inside that loop (in async code).") from None


def _warn_unless_isolated(core: BrowserCore, api: str) -> None:
    """Say so when this browser's pages are read in their own world (see
    :class:`~webrefs.IsolationWarning`)."""
    if core.world.isolated:
        return
    if api in ("wrap", "from_context", "from_browser"):
        why = ("webrefs can register its isolated reader only on a Playwright it starts "
               "itself; to have one, start the browser with --remote-debugging-port and use "
               "Browser.connect")
    else:
        why = "Playwright refused webrefs' isolated reader"
    warnings.warn(IsolationWarning(
        f"Browser.{api}: webrefs reads these pages in their own JavaScript world, where a page "
        f"can change what a snapshot shows ({why})."), stacklevel=4)


def _refuse_foreign(method: str, obj: object, kind: str) -> NoReturn:
    """Sync-API Playwright objects cannot be driven from webrefs' thread: say why, and how."""
    module = type(obj).__module__
    if module.startswith("playwright.sync_api") or module.startswith("playwright._impl._sync"):
        raise InvalidArgumentError(
            f"This {kind} comes from Playwright's sync API, whose objects can only be used "
            "from the thread (and greenlet) that made them, so webrefs cannot drive it.",
            host_hint="Use playwright.async_api and adopt the object inside its event loop, "
            "or launch the browser with args=['--remote-debugging-port=9222'] and call "
            "Browser.connect('http://127.0.0.1:9222') (from any thread: the sync API's "
            "browser and webrefs then share it).")
    raise InvalidArgumentError(
        f"Expected a Playwright {kind}, got {type(obj).__name__}.",
        host_hint=f"Browser.{method}() takes a playwright.async_api {kind}.")


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
        safety: SafetyPolicy | None = None,
        **more: Any,
    ) -> Browser:
        """Start an isolated Chromium (fresh temporary profile unless ``user_data_dir``).

        ``**more`` takes any :class:`BrowserOptions` field: ``proxy`` (a URL, credentials
        included), ``user_agent``, ``locale``, ``timezone_id``, ``device`` (a Playwright device
        name), ``extra_http_headers``, ``geolocation``, ``permissions``, ``storage_state``
        (a file from :meth:`save_storage_state`), ``args``, ``downloads_dir``, ...

        ``safety`` is the :class:`~webrefs.safety.SafetyPolicy` (default: ``SafetyPolicy()``)."""
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
        core = BrowserCore(tab_options or TabOptions(), safety)
        try:
            runner.run(core.launch(opts))
        except BaseException:
            runner.stop()
            raise
        _warn_unless_isolated(core, "launch")
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
        safety: SafetyPolicy | None = None,
        **more: Any,
    ) -> Browser:
        return await asyncio.to_thread(
            cls.launch, headless, executable_path, user_data_dir, viewport,
            options=options, tab_options=tab_options, safety=safety, **more,
        )

    @classmethod
    def connect(
        cls, endpoint: str, *, tab_options: TabOptions | None = None, timeout_ms: int = 30_000,
        safety: SafetyPolicy | None = None, protocol: str = "auto",
        options: BrowserOptions | None = None, **more: Any,
    ) -> Browser:
        """Attach to a running browser; closing detaches and leaves it running.

        ``endpoint`` is a CDP address (``http://127.0.0.1:9222`` or a
        ``ws://.../devtools/browser/...`` URL) or a Playwright server
        (``ws://127.0.0.1:3000/``, from ``playwright run-server``); ``protocol`` (``"cdp"``,
        ``"playwright"``) overrides the guess. ``**more`` takes the context fields of
        :class:`BrowserOptions` (``viewport``, ``user_agent``, ``locale``, ``timezone_id``,
        ``device``, ``extra_http_headers``, ``geolocation``, ``permissions``,
        ``storage_state``, ``proxy``, ``downloads_dir``) for the context made on connecting
        (a CDP browser that already has a context keeps it, and refuses them), and for a
        Playwright server ``headless``, ``executable_path`` and ``args`` of the browser it
        launches (the last two only when the server runs with ``--unsafe``)."""
        given = frozenset(k for k, v in more.items() if v is not None)
        if options is not None:
            defaults = BrowserOptions()
            given |= {f for f in CONTEXT_FIELDS | SERVER_FIELDS
                      if getattr(options, f) != getattr(defaults, f)}
        opts = merge_options(options or BrowserOptions(), more)
        runner = Runner()
        core = BrowserCore(tab_options or TabOptions(), safety)
        try:
            runner.run(core.connect(endpoint, timeout_ms, protocol=protocol, opts=opts,
                                    given=given))
        except BaseException:
            runner.stop()
            raise
        _warn_unless_isolated(core, "connect")
        return cls(core, runner)

    @classmethod
    async def aconnect(
        cls, endpoint: str, *, tab_options: TabOptions | None = None, timeout_ms: int = 30_000,
        safety: SafetyPolicy | None = None, protocol: str = "auto",
        options: BrowserOptions | None = None, **more: Any,
    ) -> Browser:
        return await asyncio.to_thread(
            functools.partial(cls.connect, endpoint, tab_options=tab_options,
                              timeout_ms=timeout_ms, safety=safety, protocol=protocol,
                              options=options, **more)
        )

    @classmethod
    def wrap(cls, page: Any, *, tab_options: TabOptions | None = None,
             safety: SafetyPolicy | None = None) -> Browser:
        """Adopt a Playwright **async** page the caller already has (its context's other
        pages become tabs too; ``page`` is the active one). Call it from the loop that page
        runs on; closing the Browser leaves the page and its browser open."""
        if not isinstance(page, Page):
            _refuse_foreign("wrap", page, "Page")
        return cls._adopting("wrap", tab_options, safety, lambda core: core.wrap(page))

    @classmethod
    def from_context(cls, context: Any, *, tab_options: TabOptions | None = None,
                     safety: SafetyPolicy | None = None) -> Browser:
        """Adopt a Playwright **async** ``BrowserContext`` the caller made (its pages become
        tabs; new tabs open in it). Call it from the loop the context runs on; closing the
        Browser leaves the context open. Sync-API objects are refused with the way round."""
        if not isinstance(context, BrowserContext):
            _refuse_foreign("from_context", context, "BrowserContext")
        return cls._adopting("from_context", tab_options, safety,
                             lambda core: core.wrap_context(context))

    @classmethod
    def _adopting(cls, api: str, tab_options: TabOptions | None, safety: SafetyPolicy | None,
                  adopt: Callable[[BrowserCore], None]) -> Browser:
        """A Browser on the caller's running loop whose engine ``adopt`` hands the caller's
        Playwright objects to."""
        runner = Runner(_running_loop(api))
        core = BrowserCore(tab_options or TabOptions(), safety)
        adopt(core)
        _warn_unless_isolated(core, api)
        return cls(core, runner)

    @classmethod
    async def afrom_browser(cls, browser: Any, *, tab_options: TabOptions | None = None,
                            safety: SafetyPolicy | None = None) -> Browser:
        """Adopt a Playwright **async** ``Browser``: its first context (one is made when it
        has none), as :meth:`from_context`. Closing leaves the browser open."""
        if not isinstance(browser, PWBrowser):
            _refuse_foreign("from_browser", browser, "Browser")
        contexts = browser.contexts
        context = contexts[0] if contexts else await browser.new_context()
        return cls.from_context(context, tab_options=tab_options, safety=safety)

    @classmethod
    def from_browser(cls, browser: Any, *, tab_options: TabOptions | None = None,
                     safety: SafetyPolicy | None = None) -> Browser:
        """:meth:`afrom_browser` for a browser that has a context already (making one needs
        ``await``)."""
        if not isinstance(browser, PWBrowser):
            _refuse_foreign("from_browser", browser, "Browser")
        if not browser.contexts:
            raise InvalidArgumentError(
                "This Playwright browser has no context to adopt.",
                host_hint="Use 'await Browser.afrom_browser(browser)', which makes one.")
        return cls.from_context(browser.contexts[0], tab_options=tab_options, safety=safety)

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
            raise TabClosedError("No tab is open.", host_hint="Open one with new_tab(url).")
        return self._tab(core)

    @property
    def isolated(self) -> bool:
        """Whether webrefs reads this browser's pages in a JavaScript world of its own, which
        no page script can reach (so no page can forge a snapshot or redirect a ref). True
        for browsers it launches or connects to; false for Playwright objects it adopts
        (``wrap``, ``from_context``, ``from_browser``), whose pages are read in their own
        world (an :class:`~webrefs.IsolationWarning` says so)."""
        return self._core.world.isolated

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

    @property
    def safety(self) -> SafetyPolicy:
        """The :class:`~webrefs.safety.SafetyPolicy` of this browser's context."""
        return self._core.safety

    def set_safety(self, policy: SafetyPolicy) -> None:
        """Use ``policy`` from now on (service-worker blocking is fixed when the context is
        made; every other rule applies at once)."""
        if not isinstance(policy, SafetyPolicy):
            raise InvalidArgumentError(f"Expected a SafetyPolicy, got {type(policy).__name__}.",
                                       host_hint="Browser.set_safety() takes a SafetyPolicy.")
        self._core.safety = policy

    @property
    def seed(self) -> int | None:
        """The seed of a context made with ``new_context(seed=...)``, else ``None``."""
        return self._core.seed

    @property
    def fence_key(self) -> str | None:
        """The secret the fence markers of tools on this context derive from, with
        :attr:`seed` (every context made by :meth:`new_context` has one; ``None`` for a
        launched or connected browser, whose tools draw a random marker). Keep it with a
        recording of model calls and pass it back to ``new_context(fence_key=...)`` to send
        the same prompts again."""
        return self._core.fence_key

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
        /,
        *,
        record_har: str | None = None,
        replay_har: str | None = None,
        seed: int | None = None,
        fence_key: str | None = None,
        clock_at: float | None = None,
        **more: Any,
    ) -> Browser:
        """A new isolated context of this browser (own cookies, storage, tabs), as a Browser
        that shares this one's process and loop; closing it closes only the context.

        ``record_har`` saves the context's traffic to that HAR file when it closes;
        ``replay_har`` answers requests from that HAR and aborts any it lacks (no network);
        ``seed`` makes ``Math.random`` on its pages deterministic. ``fence_key`` is the
        secret the page-content fence markers of its tools derive from, with the seed: a new
        random one when left out, so no page can predict a marker from a known seed; a
        recording passes its own back to replay the same prompts. ``clock_at`` (seconds
        since the epoch) gives its pages a controlled clock paused at that instant: ``Date``
        and page timers move only when :meth:`advance_clock` moves them (``performance.now``
        stays real), so time-driven pages are the same in every run. ``**more`` takes the
        context fields of :class:`BrowserOptions` (``viewport``, ``user_agent``, ``locale``,
        ``timezone_id``, ``device``, ``extra_http_headers``, ``geolocation``,
        ``permissions``, ``storage_state``, ``proxy``, ``downloads_dir``); the rest are
        this browser's."""
        given = frozenset(k for k, v in more.items() if v is not None)
        opts = merge_options(BrowserOptions(), more)
        core = await self._runner.arun(
            self._core.child(record_har=record_har, replay_har=replay_har, seed=seed,
                             fence_key=fence_key, clock_at=clock_at, opts=opts, given=given)
        )
        return Browser(core, self._runner, owns_runner=False)

    new_context = blocking(anew_context)

    @property
    def clocked(self) -> bool:
        """Whether this context's pages run on a controlled clock (``new_context(clock_at=)``)."""
        return self._core.clocked

    async def aadvance_clock(self, ms: float) -> None:
        """Move the controlled clock ``ms`` milliseconds forward, firing the page timers due
        on the way in order. Raises ``InvalidArgumentError`` on a context without one."""
        await self._runner.arun(self._core.advance_clock(ms))

    advance_clock = blocking(aadvance_clock)

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
                "A wrapped Browser is closed from its event loop.",
                host_hint="Use 'await browser.aclose()'.",
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
