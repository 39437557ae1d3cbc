"""The public tab: every call as an ``a``-prefixed coroutine and its blocking twin.

A :class:`Tab` is a thin front-end over a :class:`~webrefs.session.tabcore.TabCore` (the
engine) and the Browser's :class:`~webrefs._loop.Runner`. Each coroutine runs one action of
:mod:`webrefs.actions` on the Browser's loop; each blocking twin is made by
:func:`~webrefs._loop.blocking` from it, so ``tab.click(...)`` and ``await tab.aclick(...)`` are
one body. Blocking calls work from any thread (also inside a running loop, as in Jupyter);
coroutines work from any loop. Calls on one tab run one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playwright.async_api import Page

from . import actions
from ._loop import Runner, blocking
from .errors import InvalidArgumentError
from .models import ActionResult, PageTree, Screenshot, Snapshot, TextResult
from .options import TabOptions, merge_options
from .safety.policy import SafetyPolicy
from .session.tabcore import TabCore

__all__ = ["Tab"]


class Tab:
    """A browser tab. Blocking methods and ``a``-prefixed coroutines do the same thing."""

    def __init__(self, core: TabCore, runner: Runner) -> None:
        self._core = core
        self._runner = runner

    def __repr__(self) -> str:
        state = "closed" if self._core.closed else self._core.page.url
        return f"<Tab {self._core.id} {state}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tab) and other.core is self._core

    def __hash__(self) -> int:
        return hash(id(self._core))

    # -- plain properties (no browser I/O) ---------------------------------------------------
    @property
    def core(self) -> TabCore:
        """The engine behind this tab (for webrefs' own layers; runs on the browser's loop)."""
        return self._core

    @property
    def runner(self) -> Runner:
        """The bridge to the browser's event loop, which every call of this tab runs on."""
        return self._runner

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
    def safety(self) -> SafetyPolicy:
        """The :class:`~webrefs.safety.SafetyPolicy` of this tab's browser context."""
        return self._core.browser.safety

    def set_safety(self, policy: SafetyPolicy) -> None:
        """Use ``policy`` for this tab's whole browser context from now on."""
        if not isinstance(policy, SafetyPolicy):
            raise InvalidArgumentError(f"Expected a SafetyPolicy, got {type(policy).__name__}.",
                                       host_hint="Tab.set_safety() takes a SafetyPolicy.")
        self._core.browser.safety = policy

    @property
    def last_snapshot(self) -> Snapshot | None:
        return self._core.last_snapshot

    def configure(self, **changes: Any) -> TabOptions:
        """Replace some :class:`TabOptions` fields for this tab; returns the new options."""
        self._core.options = merge_options(self._core.options, changes)
        return self._core.options

    # -- calls: each coroutine once, its blocking twin made from it ----------------------------
    async def atitle(self) -> str:
        """The page title (bounded: a stuck page raises ActionTimeoutError within seconds)."""
        return await self._runner.arun(self._core.read_title())

    title = property(blocking(atitle))

    async def aactivate(self) -> None:
        """Make this the browser's active tab (the one tools act on)."""
        await self._runner.arun(self._core.browser.activate(self._core))

    activate = blocking(aactivate)

    async def aclose(self) -> None:
        """Close the tab; the most recently active open tab becomes active."""
        await self._runner.arun(self._core.close())

    close = blocking(aclose)

    async def agoto(self, url: str) -> ActionResult:
        """Navigate to ``url`` and wait for the page to settle."""
        return await self._runner.arun(actions.goto(self._core, url))

    goto = blocking(agoto)

    async def ago_back(self) -> ActionResult:
        """Go back one page in history."""
        return await self._runner.arun(actions.go_back(self._core))

    go_back = blocking(ago_back)

    async def ago_forward(self) -> ActionResult:
        """Go forward one page in history."""
        return await self._runner.arun(actions.go_forward(self._core))

    go_forward = blocking(ago_forward)

    async def areload(self) -> ActionResult:
        """Load the page again and wait for it to settle."""
        return await self._runner.arun(actions.reload(self._core))

    reload = blocking(areload)

    async def asnapshot(self, /, **options: Any) -> Snapshot:
        """Extract and render the page. Keyword arguments override :class:`RenderOptions`."""
        return await self._runner.arun(actions.snapshot(self._core, options))

    snapshot = blocking(asnapshot)

    async def aclick(self, target: str, button: str = "left", double: bool = False) -> ActionResult:
        """Click the element ``target`` (a ref such as ``e5``) with real mouse input."""
        return await self._runner.arun(
            actions.click(self._core, target, button=button, double=double)
        )

    click = blocking(aclick)

    async def aclick_at(self, x: float, y: float, button: str = "left", double: bool = False,
                        *, shown: str = "") -> ActionResult:
        """Click at ``(x, y)``, CSS pixels of the page (the main document; the point must be on
        screen), with real mouse input. The safety policy judges the element under the point
        as it judges a ref's. ``shown``: how results name the point (default ``(x, y)``)."""
        return await self._runner.arun(actions.click_at(
            self._core, actions.PagePoint(x, y, shown), button=button, double=double))

    click_at = blocking(aclick_at)

    async def adrag(self, target: str, to: str | None = None, dx: int | None = None,
                    dy: int | None = None) -> ActionResult:
        """Drag the element of ``target`` onto the element of ``to``, or by ``(dx, dy)`` CSS
        pixels, with real mouse input; the result says what moved."""
        return await self._runner.arun(actions.drag(self._core, target, to, dx, dy))

    drag = blocking(adrag)

    async def adrag_at(self, x: float, y: float, to_x: float, to_y: float, *,
                       shown: str = "", to_shown: str = "") -> ActionResult:
        """Drag from ``(x, y)`` to ``(to_x, to_y)``, CSS pixels of the page (both on screen),
        with real mouse input; the result says what moved."""
        return await self._runner.arun(actions.drag(
            self._core, actions.PagePoint(x, y, shown), actions.PagePoint(to_x, to_y, to_shown)))

    drag_at = blocking(adrag_at)

    async def ahover(self, target: str) -> ActionResult:
        """Move the mouse over ``target``."""
        return await self._runner.arun(actions.hover(self._core, target))

    hover = blocking(ahover)

    async def ahover_at(self, x: float, y: float, *, shown: str = "") -> ActionResult:
        """Move the mouse to ``(x, y)``, CSS pixels of the page (on screen)."""
        return await self._runner.arun(actions.hover_at(self._core,
                                                        actions.PagePoint(x, y, shown)))

    hover_at = blocking(ahover_at)

    async def afill(self, target: str, value: str) -> ActionResult:
        """Replace the text of field ``target`` with ``value``, typed as a user would."""
        return await self._runner.arun(actions.fill(self._core, target, value))

    fill = blocking(afill)

    async def aselect(self, target: str, values: str | Sequence[str]) -> ActionResult:
        """Select option(s) of ``target`` by label or value."""
        return await self._runner.arun(actions.select(self._core, target, values))

    select = blocking(aselect)

    async def acheck(self, target: str, checked: bool = True) -> ActionResult:
        """Check (or uncheck) a checkbox, radio button or switch."""
        return await self._runner.arun(actions.check(self._core, target, checked))

    check = blocking(acheck)

    async def ascroll(
        self, direction: str = "down", amount: int | str | None = None, target: str | None = None
    ) -> ActionResult:
        """Scroll the page, or the element ``target``, by a page or ``amount``."""
        return await self._runner.arun(actions.scroll(self._core, direction, amount, target))

    scroll = blocking(ascroll)

    async def apress_key(self, key: str, target: str | None = None) -> ActionResult:
        """Press ``key`` (``Enter``, ``Control+A``) in ``target`` or the focused element."""
        return await self._runner.arun(actions.press_key(self._core, key, target))

    press_key = blocking(apress_key)

    async def atype_text(self, text: str, target: str | None = None,
                    enter: bool = False) -> ActionResult:
        """Type ``text`` with real key events into ``target`` (focused first) or the focused
        element (a terminal, an editor, a canvas); then press Enter when ``enter``."""
        return await self._runner.arun(actions.type_text(self._core, text, target, enter))

    type_text = blocking(atype_text)

    async def aget_text(self, target: str | None = None, max_length: int = 2000) -> TextResult:
        """The readable text of the page's main content, or of ``target``."""
        return await self._runner.arun(actions.get_text(self._core, target, max_length))

    get_text = blocking(aget_text)

    async def await_for(
        self, text: str | None = None, target: str | None = None, timeout_ms: int = 5000,
        gone: bool = False, seconds: float | None = None,
    ) -> ActionResult:
        """Wait until ``text`` shows on the page or ``target`` is visible (``gone``: until it
        no longer does), or for ``seconds``; at most 30 s."""
        return await self._runner.arun(
            actions.wait_for(self._core, text, target, timeout_ms, gone, seconds))

    wait_for = blocking(await_for)

    async def aupload(self, target: str, paths: str | Sequence[str]) -> ActionResult:
        """Put files into a file input (or the file chooser ``target`` opens)."""
        return await self._runner.arun(actions.upload(self._core, target, paths))

    upload = blocking(aupload)

    async def ascreenshot(self, full_page: bool = False) -> bytes:
        """PNG of the viewport (or the whole page), for vision-capable models."""
        return await self._runner.arun(actions.screenshot(self._core, full_page))

    screenshot = blocking(ascreenshot)

    async def ascreenshot_marked(self, ref: str | None = None, *, marks: bool = True,
                                 full_page: bool = False, max_side: int | None = None,
                                 max_pixels: int | None = None) -> Screenshot:
        """The viewport (or the element of ``ref``, or the whole page) in CSS pixels, scaled
        to fit a model's image limits, with each ref it shows drawn as a labelled box
        (set-of-marks; ``marks=False`` for a plain image). Needs ``webrefs[vision]``."""
        return await self._runner.arun(actions.screenshot_marked(
            self._core, ref=ref, marks=marks, full_page=full_page, max_side=max_side,
            max_pixels=max_pixels))

    screenshot_marked = blocking(ascreenshot_marked)

    # -- for host programs (not model tools) ---------------------------------------------------
    async def aevaluate(self, expression: str, arg: Any = None, timeout_ms: int = 10_000) -> Any:
        """Run JavaScript on the page (``"document.title"``, ``"(x) => x + 1"`` with ``arg``)
        and return its JSON-able value, within ``timeout_ms``. For hosts; not a model tool."""
        return await self._runner.arun(actions.evaluate(self._core, expression, arg, timeout_ms))

    evaluate = blocking(aevaluate)

    async def aread_tree(self) -> PageTree:
        """The whole page as a :class:`PageTree` (every frame, no token budget)."""
        return await self._runner.arun(actions.read_tree(self._core))

    read_tree = blocking(aread_tree)
