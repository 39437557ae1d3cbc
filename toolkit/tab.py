"""A tab: one Playwright page, its ref book, its last snapshot, and the lock that serializes
calls on it.

``TabCore`` is the async implementation and runs only on the Browser's loop. ``Tab`` is the
public object: every call exists as a blocking method and an ``a``-prefixed coroutine
(``tab.click(...)`` / ``await tab.aclick(...)``), both thin shells over the same core call.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from playwright.async_api import Dialog, Download, Page
from playwright.async_api import Error as PlaywrightError

from . import actions
from .actions.files import save_download
from .errors import (
    BrowserClosedError,
    PageCrashedError,
    TabClosedError,
    WebrefsError,
    translate_playwright_error,
)
from .models import ActionResult, DialogEvent, PageTree, Snapshot, TextResult
from .options import TabOptions, merge_options
from .refs import RefBook

if TYPE_CHECKING:
    from ._loop import Runner
    from .browser import BrowserCore

__all__ = ["Tab", "TabCore"]

T = TypeVar("T")

_DIALOG_TYPES = ("alert", "confirm", "prompt", "beforeunload")


class TabCore:
    """Async state of one tab. Only touched on the Browser's loop."""

    def __init__(self, browser: BrowserCore, page: Page, tab_id: str, options: TabOptions) -> None:
        self.browser = browser
        self.page = page
        self.id = tab_id
        self.options = options
        self.lock = asyncio.Lock()
        self.refs = RefBook()
        self.last_snapshot: Snapshot | None = None
        self.last_tree: PageTree | None = None
        self.dialog_log: list[DialogEvent] = []
        self.dialog_budget = options.max_dialogs
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
        folder: str | None = getattr(self.browser, "downloads_dir", None)
        entry: dict[str, Any] = {"name": download.suggested_filename[:200], "saved": None,
                                 "error": None}
        if len(self.downloads) < 100:
            self.downloads.append(entry)
        task = asyncio.ensure_future(save_download(download, folder, entry))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _on_dialog(self, dialog: Dialog) -> None:
        """Answer every dialog at once, so none ever blocks the page or a call."""
        kind = dialog.type if dialog.type in _DIALOG_TYPES else "alert"
        accept = self.options.dialogs == "accept" and self.dialog_budget > 0
        self.dialog_budget -= 1
        answer = self.options.prompt_text if (accept and kind == "prompt") else None
        if len(self.dialog_log) < 200:
            self.dialog_log.append(
                DialogEvent(
                    type=kind,
                    message=dialog.message[:500],
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
                hint="Launch a new Browser; this one cannot be used any more.",
            )
        if self.closed:
            raise TabClosedError(
                f"Tab {self.id} is closed.", hint="List the open tabs and switch to one."
            )

    async def _recover_from_crash(self) -> None:
        url = self.last_url
        dead = self.page
        page = await self.browser.new_page_for(self)
        self.page = page
        self.crashed = False
        self._watch(page)
        with contextlib.suppress(PlaywrightError):
            await dead.close()
        self.last_snapshot = None
        self.last_tree = None
        self.refs.forget_documents()
        raise PageCrashedError(
            f"The page in tab {self.id} crashed (it was at {url}).",
            hint="The tab now holds a fresh blank page: navigate again, then take a new snapshot.",
        )

    async def call(self, doing: str, fn: Callable[[], Awaitable[T]]) -> T:
        """Run ``fn`` with this tab's lock held, Playwright errors translated."""
        self._check_usable()
        async with self.lock:
            self._check_usable()
            if self.crashed:
                await self._recover_from_crash()
            try:
                return await fn()
            except WebrefsError:
                raise
            except PlaywrightError as exc:
                if self.crashed:
                    await self._recover_from_crash()
                if self.browser.dead:
                    self._check_usable()
                raise translate_playwright_error(exc, doing=doing) from None

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.browser.forget(self)
        with contextlib.suppress(PlaywrightError):
            await self.page.close()


class Tab:
    """A browser tab. Blocking methods and ``a``-prefixed coroutines do the same thing.

    Blocking methods work from any thread, including inside a running event loop (Jupyter);
    coroutines work from any event loop. Calls on one tab run one at a time.
    """

    def __init__(self, core: TabCore, runner: Runner) -> None:
        self._core = core
        self._runner = runner

    def __repr__(self) -> str:
        state = "closed" if self._core.closed else self._core.page.url
        return f"<Tab {self._core.id} {state}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tab) and other._core is self._core

    def __hash__(self) -> int:
        return hash(id(self._core))

    # -- plain properties (no browser I/O) ---------------------------------------------------
    @property
    def id(self) -> str:
        return self._core.id

    @property
    def url(self) -> str:
        return self._core.page.url

    @property
    def closed(self) -> bool:
        return self._core.closed

    @property
    def page(self) -> Page:
        """The underlying Playwright page (async API; use it on the browser's loop only)."""
        return self._core.page

    @property
    def options(self) -> TabOptions:
        return self._core.options

    @property
    def last_snapshot(self) -> Snapshot | None:
        return self._core.last_snapshot

    def configure(self, **changes: Any) -> TabOptions:
        """Replace some :class:`TabOptions` fields for this tab; returns the new options."""
        self._core.options = merge_options(self._core.options, changes)
        return self._core.options

    # -- thin shells ---------------------------------------------------------------------------
    @property
    def title(self) -> str:
        return self._runner.run(self._title())

    async def atitle(self) -> str:
        return await self._runner.arun(self._title())

    async def _title(self) -> str:
        return await self._core.call("reading the title", self._core.page.title)

    def activate(self) -> None:
        """Make this the browser's active tab (the one tools act on)."""
        self._runner.run(self._core.browser.activate(self._core))

    async def aactivate(self) -> None:
        await self._runner.arun(self._core.browser.activate(self._core))

    def close(self) -> None:
        self._runner.run(self._core.close())

    async def aclose(self) -> None:
        await self._runner.arun(self._core.close())

    def goto(self, url: str) -> ActionResult:
        return self._runner.run(actions.goto(self._core, url))

    async def agoto(self, url: str) -> ActionResult:
        return await self._runner.arun(actions.goto(self._core, url))

    def go_back(self) -> ActionResult:
        return self._runner.run(actions.go_back(self._core))

    async def ago_back(self) -> ActionResult:
        return await self._runner.arun(actions.go_back(self._core))

    def go_forward(self) -> ActionResult:
        return self._runner.run(actions.go_forward(self._core))

    async def ago_forward(self) -> ActionResult:
        return await self._runner.arun(actions.go_forward(self._core))

    def snapshot(self, **options: Any) -> Snapshot:
        """Extract and render the page. Keyword arguments override :class:`RenderOptions`."""
        return self._runner.run(actions.snapshot(self._core, options))

    async def asnapshot(self, **options: Any) -> Snapshot:
        return await self._runner.arun(actions.snapshot(self._core, options))

    def click(self, target: str, button: str = "left", double: bool = False) -> ActionResult:
        return self._runner.run(actions.click(self._core, target, button=button, double=double))

    async def aclick(self, target: str, button: str = "left", double: bool = False) -> ActionResult:
        return await self._runner.arun(
            actions.click(self._core, target, button=button, double=double)
        )

    def hover(self, target: str) -> ActionResult:
        return self._runner.run(actions.hover(self._core, target))

    async def ahover(self, target: str) -> ActionResult:
        return await self._runner.arun(actions.hover(self._core, target))

    def fill(self, target: str, value: str) -> ActionResult:
        return self._runner.run(actions.fill(self._core, target, value))

    async def afill(self, target: str, value: str) -> ActionResult:
        return await self._runner.arun(actions.fill(self._core, target, value))

    def select(self, target: str, values: str | Sequence[str]) -> ActionResult:
        return self._runner.run(actions.select(self._core, target, values))

    async def aselect(self, target: str, values: str | Sequence[str]) -> ActionResult:
        return await self._runner.arun(actions.select(self._core, target, values))

    def check(self, target: str, checked: bool = True) -> ActionResult:
        return self._runner.run(actions.check(self._core, target, checked))

    async def acheck(self, target: str, checked: bool = True) -> ActionResult:
        return await self._runner.arun(actions.check(self._core, target, checked))

    def scroll(
        self, direction: str = "down", amount: int | str | None = None, target: str | None = None
    ) -> ActionResult:
        return self._runner.run(actions.scroll(self._core, direction, amount, target))

    async def ascroll(
        self, direction: str = "down", amount: int | str | None = None, target: str | None = None
    ) -> ActionResult:
        return await self._runner.arun(actions.scroll(self._core, direction, amount, target))

    def press_key(self, key: str, target: str | None = None) -> ActionResult:
        return self._runner.run(actions.press_key(self._core, key, target))

    async def apress_key(self, key: str, target: str | None = None) -> ActionResult:
        return await self._runner.arun(actions.press_key(self._core, key, target))

    def get_text(self, target: str | None = None, max_length: int = 2000) -> TextResult:
        return self._runner.run(actions.get_text(self._core, target, max_length))

    async def aget_text(self, target: str | None = None, max_length: int = 2000) -> TextResult:
        return await self._runner.arun(actions.get_text(self._core, target, max_length))

    def wait_for(
        self, text: str | None = None, target: str | None = None, timeout_ms: int = 5000
    ) -> ActionResult:
        return self._runner.run(actions.wait_for(self._core, text, target, timeout_ms))

    async def await_for(
        self, text: str | None = None, target: str | None = None, timeout_ms: int = 5000
    ) -> ActionResult:
        return await self._runner.arun(actions.wait_for(self._core, text, target, timeout_ms))

    def upload(self, target: str, paths: str | Sequence[str]) -> ActionResult:
        return self._runner.run(actions.upload(self._core, target, paths))

    async def aupload(self, target: str, paths: str | Sequence[str]) -> ActionResult:
        return await self._runner.arun(actions.upload(self._core, target, paths))

    def screenshot(self, full_page: bool = False) -> bytes:
        """PNG of the viewport (or the whole page), for vision-capable models."""
        return self._runner.run(actions.screenshot(self._core, full_page))

    async def ascreenshot(self, full_page: bool = False) -> bytes:
        return await self._runner.arun(actions.screenshot(self._core, full_page))
