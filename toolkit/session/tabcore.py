"""The engine of one tab: its Playwright page, ref book, last snapshot, dialog and download
handling, crash recovery, and the lock that serializes calls on it.

``TabCore`` runs only on the Browser's loop. Actions (:mod:`webrefs.actions`) take a
``TabCore``; the public :class:`~webrefs.Tab` front-end wraps one. The browser that owns a tab
is seen only through :class:`TabHost`, so this module does not import the browser engine.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol, TypeVar

from playwright.async_api import Dialog, Download, Page
from playwright.async_api import Error as PlaywrightError

from ..errors import (
    ActionTimeoutError,
    BrowserClosedError,
    PageCrashedError,
    TabClosedError,
    WebrefsError,
    translate_playwright_error,
)
from ..models import DialogEvent, PageTree, Snapshot
from ..options import TabOptions
from ..safety.policy import SafetyPolicy
from ..safety.secrets import all_secrets, redact
from ..safety.urls import Verdict
from ..snapshot.refs import RefBook
from ..snapshot.world import World
from .downloads import save_download
from .effects import EffectGate
from .guard import Blocked

__all__ = ["TabCore", "TabHost"]

T = TypeVar("T")

_DIALOG_TYPES = ("alert", "confirm", "prompt", "beforeunload")

CALL_GRACE_S = 30.0
"""Added to the tab's navigation timeout and readiness bound: the backstop of every call."""
TITLE_TIMEOUT_S = 2.0
"""Longest wait for a page's title (a page stuck in a loop never answers)."""
PROBE_TIMEOUT_S = 1.5
"""How long a page may take to answer a trivial script before it counts as stuck."""
CLOSE_TIMEOUT_S = 5.0
"""Longest wait for a page to close."""


class TabHost(Protocol):
    """What a tab needs of the browser engine that owns it."""

    dead: bool
    """The browser process exited or disconnected."""
    downloads_dir: str | None
    """Folder downloads are saved in; ``None`` means downloads are off."""
    opened_log: list[str]
    """Ids of tabs opened by pages (popups), in order; actions report the new ones."""
    tabs: list[TabCore]
    """The browser's open tabs, oldest first."""

    safety: SafetyPolicy
    """The safety policy of the tab's context."""
    effects: EffectGate
    """Judges the requests of the tab's context by what they do (actions open flights)."""

    @property
    def blocked(self) -> list[Blocked]:
        """Requests the policy refused, oldest first."""

    async def judge(self, url: str, *, top_level: bool = True) -> Verdict:
        """The policy's verdict on ``url``."""
    world: World
    """Where page-side code runs for this browser's pages (isolated when possible)."""

    def forget(self, core: TabCore) -> None:
        """The tab closed: stop tracking it."""

    async def new_page_for(self, core: TabCore | None) -> Page:
        """A fresh page in the same context, registered under ``core``."""

    async def activate(self, core: TabCore) -> None:
        """Make ``core`` the active tab."""

    async def guarded(self) -> None:
        """Wait (bounded) until the context's safety guard is in place."""


class TabCore:
    """Async state of one tab. Only touched on the Browser's loop."""

    def __init__(self, browser: TabHost, page: Page, tab_id: str, options: TabOptions) -> None:
        self.browser = browser
        self.page = page
        self.id = tab_id
        self.options = options
        self.lock = asyncio.Lock()
        self.refs = RefBook(browser.world)
        self.last_snapshot: Snapshot | None = None
        self.last_tree: PageTree | None = None
        self.dialog_log: list[DialogEvent] = []
        self.dialog_budget = options.max_dialogs
        self._leaving = 0
        self.crashed = False
        self.closed = False
        self.last_url = page.url
        self._pending: set[asyncio.Future[None]] = set()
        self.downloads: list[dict[str, Any]] = []
        """Downloads started by the page: name, saved path (or None) and error."""
        self._watch(page)

    # -- page events -------------------------------------------------------------------------
    def _watch(self, page: Page) -> None:
        page.on("crash", self._on_crash)
        page.on("close", self._on_close)
        page.on("dialog", self._on_dialog)
        page.on("framenavigated", self._on_navigated)
        page.on("download", self._on_download)

    def _on_crash(self, _page: Page) -> None:
        self.crashed = True

    def _on_close(self, page: Page) -> None:
        if page is self.page and not self.crashed:
            self.closed = True
            self.browser.forget(self)

    def _on_navigated(self, frame: Any) -> None:
        if frame == self.page.main_frame:
            self.last_url = frame.url

    def _on_download(self, download: Download) -> None:
        """Save into the browser's downloads folder (sanitized name), or cancel when off."""
        folder = self.browser.downloads_dir
        entry: dict[str, Any] = {"name": self._kept(download.suggested_filename, 200),
                                 "saved": None,
                                 "error": None}
        if len(self.downloads) < 100:
            self.downloads.append(entry)
        task = asyncio.ensure_future(save_download(download, folder, entry))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    @contextlib.contextmanager
    def leaving(self) -> Iterator[None]:
        """While inside, the page is being left because the agent asked to leave it (a
        navigation, going back or forward, a link it clicked): a ``beforeunload`` prompt
        ("leave this page?") is accepted whatever ``TabOptions.dialogs`` says, and logged as
        accepted, so a page cannot keep the agent by asking."""
        self._leaving += 1
        try:
            yield
        finally:
            self._leaving -= 1

    def _kept(self, text: str, limit: int) -> str:
        """Page text kept for a later report, cut to ``limit`` after the policy's secrets are
        replaced (a cut never leaves part of one)."""
        policy = self.browser.safety
        if policy.enabled and policy.sensitive_data:
            text = redact(text, all_secrets(policy))
        return text[:limit]

    def _on_dialog(self, dialog: Dialog) -> None:
        """Answer every dialog at once, so none ever blocks the page or a call."""
        kind = dialog.type if dialog.type in _DIALOG_TYPES else "alert"
        leave = kind == "beforeunload" and self._leaving > 0
        accept = leave or (self.options.dialogs == "accept" and self.dialog_budget > 0)
        self.dialog_budget -= 1
        answer = self.options.prompt_text if (accept and kind == "prompt") else None
        if len(self.dialog_log) < 200:
            self.dialog_log.append(
                DialogEvent(
                    type=kind,
                    message=self._kept(dialog.message, 500),
                    handled="accepted" if accept else "dismissed",
                    answer=answer,
                )
            )

        async def answer_it() -> None:
            try:
                if accept:
                    await dialog.accept(answer or "")
                else:
                    await dialog.dismiss()
            except PlaywrightError:
                pass  # the page went away with its dialog

        task = asyncio.ensure_future(answer_it())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def take_dialogs(self) -> list[DialogEvent]:
        """Dialogs seen since the last call, and reset the storm budget."""
        seen, self.dialog_log = self.dialog_log, []
        self.dialog_budget = self.options.max_dialogs
        return seen

    # -- running calls -----------------------------------------------------------------------
    def _check_usable(self) -> None:
        if self.browser.dead:
            raise BrowserClosedError(
                "The browser process has exited or disconnected.",
                host_hint="Launch a new Browser; this one cannot be used any more.",
            )
        if self.closed:
            raise TabClosedError(
                f"Tab {self.id} is closed.", hint="List the open tabs and switch to one."
            )

    async def _recover_from_crash(self) -> None:
        url = self.last_url
        await self._replace_page()
        raise PageCrashedError(
            f"The page in tab {self.id} crashed (it was at {url}).",
            hint="The tab now holds a fresh blank page: navigate again, then take a new snapshot.",
        )

    async def _replace_page(self) -> None:
        """Put a fresh blank page (a new renderer) in this tab and drop the old one."""
        dead = self.page
        page = await self.browser.new_page_for(self)
        self.page = page
        self.crashed = False
        self._watch(page)
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(dead.close(), CLOSE_TIMEOUT_S)
        self.last_snapshot = None
        self.last_tree = None
        self.refs.forget_documents()

    def call_limit_s(self) -> float:
        """The bound of one call on this tab: navigation timeout + readiness bound + grace."""
        nav = max(int(self.options.navigation_timeout_ms or 0), 1000)
        wait = max(int(self.options.max_wait_ms or 0), 0)
        act = max(int(self.options.action_timeout_ms or 0), 500)
        return (min(nav, 300_000) + min(wait, 60_000) + min(act, 60_000)) / 1000 + CALL_GRACE_S

    async def _gone(self, doing: str) -> WebrefsError | None:
        """The error for a call whose page went away: the browser closed, or the tab did."""
        if not (self.browser.dead or self.closed or self.page.is_closed()):
            return None
        if not self.browser.dead:
            await asyncio.sleep(0.2)  # a killed browser closes its pages before it disconnects
        if self.browser.dead:
            return BrowserClosedError(
                f"The browser process exited or disconnected while {doing}.",
                host_hint="Launch a new Browser; this one cannot be used any more.",
            )
        return TabClosedError(
            f"Tab {self.id} closed while {doing}.",
            hint="List the open tabs with web_tabs and take a snapshot of the active one.",
        )

    async def call(self, doing: str, fn: Callable[[], Awaitable[T]], *,
                   limit_s: float | None = None) -> T:
        """Run ``fn`` with this tab's lock held, Playwright errors translated, and the whole
        call bounded (``limit_s``, default :meth:`call_limit_s`): a page that never answers
        ends in :class:`ActionTimeoutError`, never in a hang or a raw exception."""
        self._check_usable()
        bound = limit_s if limit_s is not None else self.call_limit_s()
        try:
            async with asyncio.timeout(bound):
                async with self.lock:
                    self._check_usable()
                    await self.browser.guarded()
                    if self.crashed:
                        await self._recover_from_crash()
                    try:
                        return await fn()
                    except WebrefsError:
                        raise
                    except PlaywrightError as exc:
                        if self.crashed:
                            await self._recover_from_crash()
                        gone = await self._gone(doing)
                        if gone is not None:
                            raise gone from None
                        raise translate_playwright_error(exc, doing=doing) from None
        except TimeoutError:
            gone = await self._gone(doing)
            if gone is not None:
                raise gone from None
            raise ActionTimeoutError(
                f"The page in tab {self.id} did not answer in time while {doing} "
                "(its main thread may be stuck).",
                hint="Navigate to another page or close the tab; the tab then gets a fresh "
                "page if this one stays stuck.",
            ) from None

    # -- bounded reads and rescue --------------------------------------------------------------
    async def read_title(self) -> str:
        """The page title, within :data:`TITLE_TIMEOUT_S` (else :class:`ActionTimeoutError`)."""

        async def title() -> str:
            return await self.page.title()

        return await self.call("reading the title", title, limit_s=TITLE_TIMEOUT_S)

    async def responsive(self) -> bool:
        """Whether the page answers a trivial script within :data:`PROBE_TIMEOUT_S`."""
        try:
            await asyncio.wait_for(self.page.main_frame.evaluate("1"), PROBE_TIMEOUT_S)
        except TimeoutError:
            return False
        except PlaywrightError:
            return True  # navigating or closing: not stuck; the caller's own call will tell
        return True

    async def unstick(self) -> bool:
        """If the page does not answer (a script stuck in a loop, a dialog storm), give the tab
        a fresh page in a new renderer, so it can be navigated. Returns whether it did.
        Takes the lock; bounded."""

        async def run() -> bool:
            if self.page.is_closed() or await self.responsive():
                return False
            await self._replace_page()
            return True

        return await self.call("checking that the page answers", run,
                               limit_s=PROBE_TIMEOUT_S + 2 * CLOSE_TIMEOUT_S + 5)

    async def close(self) -> None:
        """Close the tab, within :data:`CLOSE_TIMEOUT_S` even when its page is stuck."""
        if self.closed:
            return
        self.closed = True
        self.browser.forget(self)
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(self.page.close(), CLOSE_TIMEOUT_S)
