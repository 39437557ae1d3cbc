"""The tool registry: every webrefs tool defined once, for every adapter.

A :class:`ToolSpec` is a name, the model-facing description (from ``webrefs.prompts``), a
pydantic argument model (:mod:`webrefs.toolargs`) and ONE async handler. :class:`WebTools`
binds the specs to a :class:`~webrefs.Browser` (tools act on its active tab) or to one
:class:`~webrefs.Tab`, and runs them by name::

    tools = WebTools(browser, after_action="diff")
    content, artifact = tools.call("web_snapshot", {})
    content, artifact = await tools.acall("web_click", {"ref": "e5"})

``content`` is short text for the model; ``artifact`` is the structured result for programs
(:class:`~webrefs.Snapshot`, :class:`~webrefs.ActionResult`, ...). ``call`` raises
:class:`~webrefs.WebrefsError`; adapters turn that into a tool message. Handlers run on the
Browser's event loop, one tool call at a time per registry, so parallel tool calls from an
agent framework (threads or tasks) never interleave an action with its follow-up snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from . import toolargs as A
from .errors import InvalidArgumentError, TabClosedError, WebrefsError
from .models import ActionResult
from .toolfmt import (
    TabLine,
    describe_validation_error,
    format_action,
    format_error,
    format_tabs,
    format_text,
    tool_list,
)
from .toolfmt import snapshot_diff as _diff

if TYPE_CHECKING:
    from ._loop import Runner
    from .browser import Browser
    from .tab import Tab

__all__ = [
    "DEFAULT_TOOLS",
    "NAVIGATION_TOOLS",
    "OPTIONAL_TOOLS",
    "TOOL_SPECS",
    "ToolContext",
    "ToolOptions",
    "ToolOutput",
    "ToolSpec",
    "WebTools",
]

AfterAction = Literal["none", "diff", "snapshot"]
T = TypeVar("T")


@dataclass(frozen=True)
class ToolOptions:
    """How a :class:`WebTools` registry behaves."""

    max_tokens: int = 3000
    """Token budget of snapshots the tools return (``web_snapshot`` may ask for another)."""
    include: tuple[str, ...] | None = None
    """Exactly these tools (``None``: the defaults). Names opt-in tools such as ``web_hover``."""
    exclude: tuple[str, ...] = ()
    """Tools removed from the selection."""
    after_action: AfterAction = "none"
    """What an action returns besides its one-line summary: nothing, the changes in the
    snapshot since the last one the tools returned, or the whole new snapshot."""
    allow_navigation: bool = True
    """Offer ``web_navigate`` and ``web_go_back``. Set False when the host controls where the
    browser goes."""
    vision: bool = False
    """Offer ``web_screenshot`` (for models that accept images)."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_tokens, int) or self.max_tokens < 50:
            raise InvalidArgumentError(
                f"max_tokens must be an integer >= 50, got {self.max_tokens!r}."
            )
        if self.after_action not in ("none", "diff", "snapshot"):
            raise InvalidArgumentError(
                f"after_action must be 'none', 'diff' or 'snapshot', got {self.after_action!r}."
            )
        for name in ("include", "exclude"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise InvalidArgumentError(f"{name} must be a list of tool names, not a string.")
            if value is not None:
                object.__setattr__(self, name, tuple(value))


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result: text for the model and a structured artifact for programs."""

    content: str
    artifact: Any
    images: tuple[bytes, ...] = ()
    """PNG images for models that accept them (``web_screenshot``)."""
    is_error: bool = False
    """The call failed; ``content`` says why (``artifact`` is the :class:`WebrefsError`)."""

    def __iter__(self) -> Iterator[Any]:
        """Unpacks as ``content, artifact``."""
        return iter((self.content, self.artifact))


Handler = Callable[["ToolContext", Any], Awaitable[ToolOutput]]
Kind = Literal["core", "navigation", "optional", "vision"]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: the single definition every adapter wraps."""

    name: str
    description: str
    args_model: type[BaseModel]
    handler: Handler = field(repr=False)
    kind: Kind = "core"

    def json_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments."""
        return self.args_model.model_json_schema()

    def parse_args(self, args: Mapping[str, Any] | None) -> BaseModel:
        """Validate ``args``; an :class:`InvalidArgumentError` names each bad argument."""
        try:
            return self.args_model.model_validate(dict(args or {}))
        except ValidationError as exc:
            raise InvalidArgumentError(
                describe_validation_error(exc), hint=f"Check the arguments of {self.name}."
            ) from None


class ToolContext:
    """What a handler may use: the tab to act on, the browser (when known), the options."""

    def __init__(self, registry: WebTools) -> None:
        self._registry = registry
        self.options = registry.options
        self.browser = registry.browser

    def tab(self) -> Tab:
        return self._registry.current_tab()

    def remember(self, tab: Tab, text: str) -> None:
        """The snapshot text the model last saw for ``tab`` (the baseline of diffs)."""
        self._registry._seen[tab.id] = text

    async def action_output(self, tab: Tab, result: ActionResult) -> ToolOutput:
        """Summary of ``result`` plus the snapshot or diff asked for by ``after_action``."""
        mode = self.options.after_action
        if mode == "none":
            return ToolOutput(format_action(result), result)
        if result.snapshot is not None:
            snap = result.snapshot
        else:
            try:
                snap = await tab.asnapshot(max_tokens=self.options.max_tokens)
            except WebrefsError as err:  # the action happened; say so, then why no snapshot
                note = f"\nThe snapshot after it failed: {err.for_model()}"
                return ToolOutput(format_action(result) + note, result)
        before = self._registry._seen.get(tab.id)
        self.remember(tab, snap.text)
        if mode == "snapshot" or before is None:
            return ToolOutput(format_action(result, snapshot_text=snap.text), result)
        diff = result.diff if result.diff is not None else _diff(before, snap.text)
        return ToolOutput(format_action(result, diff=diff), result)


# -- handlers: one per tool ------------------------------------------------------------------
async def _snapshot(ctx: ToolContext, a: A.SnapshotArgs) -> ToolOutput:
    tab = ctx.tab()
    snap = await tab.asnapshot(
        interactive_only=a.interactive_only,
        scope=a.scope,
        max_tokens=a.max_tokens or ctx.options.max_tokens,
    )
    ctx.remember(tab, snap.text)
    return ToolOutput(snap.text, snap)


async def _click(ctx: ToolContext, a: A.ClickArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.aclick(a.ref))


async def _fill(ctx: ToolContext, a: A.FillArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.afill(a.ref, a.value))


async def _select(ctx: ToolContext, a: A.SelectArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.aselect(a.ref, list(a.values)))


async def _check(ctx: ToolContext, a: A.CheckArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.acheck(a.ref, a.checked))


async def _scroll(ctx: ToolContext, a: A.ScrollArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.ascroll(a.direction, a.amount, a.ref))


async def _press_key(ctx: ToolContext, a: A.PressKeyArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.apress_key(a.key, a.ref))


async def _get_text(ctx: ToolContext, a: A.GetTextArgs) -> ToolOutput:
    result = await ctx.tab().aget_text(a.ref, a.max_length)
    return ToolOutput(format_text(result), result)


async def _navigate(ctx: ToolContext, a: A.NavigateArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.agoto(a.url))


async def _go_back(ctx: ToolContext, a: A.GoBackArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.ago_back())


async def _hover(ctx: ToolContext, a: A.HoverArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.ahover(a.ref))


async def _wait_for(ctx: ToolContext, a: A.WaitForArgs) -> ToolOutput:
    if (a.text is None) == (a.ref is None):
        raise InvalidArgumentError("web_wait_for needs exactly one of 'text' or 'ref'.")
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.await_for(a.text, a.ref, a.timeout_ms))


async def _upload(ctx: ToolContext, a: A.UploadArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.aupload(a.ref, list(a.paths)))


async def _tab_lines(browser: Browser) -> list[TabLine]:
    try:
        active_id: str | None = browser.active_tab.id
    except TabClosedError:
        active_id = None
    lines = []
    for tab in browser.tabs:
        try:
            title = await tab.atitle()
        except WebrefsError:
            title = ""
        lines.append(TabLine(id=tab.id, url=tab.url, title=title, active=tab.id == active_id))
    return lines


async def _tabs(ctx: ToolContext, a: A.TabsArgs) -> ToolOutput:
    browser = ctx.browser
    if browser is None:
        raise InvalidArgumentError("web_tabs is not available: these tools act on one tab.")
    note = ""
    if a.action != "list":
        if not a.tab_id:
            raise InvalidArgumentError(f"web_tabs action '{a.action}' needs a tab_id.",
                                       hint="Call web_tabs with action 'list' to see the ids.")
        if a.action == "switch":
            await browser.aswitch_tab(a.tab_id)
            note = f"Switched to tab {a.tab_id}; take a snapshot to see it."
        else:
            await browser.tab(a.tab_id).aclose()
            note = f"Closed tab {a.tab_id}."
    lines = await _tab_lines(browser)
    return ToolOutput(format_tabs(lines, note=note), lines)


async def _screenshot(ctx: ToolContext, a: A.ScreenshotArgs) -> ToolOutput:
    tab = ctx.tab()
    png = await tab.ascreenshot(a.full_page)
    part = "whole page" if a.full_page else "visible part"
    text = f"Screenshot of the {part} of {tab.url} ({len(png)} bytes, PNG) is attached."
    return ToolOutput(text, png, images=(png,))


def _spec(name: str, handler: Handler, kind: Kind = "core") -> ToolSpec:
    description = str(A.prompts().tool_description(name))
    return ToolSpec(name, description, A.ARGS_MODELS[name], handler, kind)


TOOL_SPECS: dict[str, ToolSpec] = {
    s.name: s
    for s in (
        _spec("web_snapshot", _snapshot),
        _spec("web_click", _click),
        _spec("web_fill", _fill),
        _spec("web_select", _select),
        _spec("web_check", _check),
        _spec("web_scroll", _scroll),
        _spec("web_press_key", _press_key),
        _spec("web_get_text", _get_text),
        _spec("web_navigate", _navigate, "navigation"),
        _spec("web_go_back", _go_back, "navigation"),
        _spec("web_hover", _hover, "optional"),
        _spec("web_wait_for", _wait_for, "optional"),
        _spec("web_upload", _upload, "optional"),
        _spec("web_tabs", _tabs, "optional"),
        _spec("web_screenshot", _screenshot, "vision"),
    )
}
"""Every tool, by name, in the order adapters list them."""

NAVIGATION_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind == "navigation")
OPTIONAL_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind in ("optional", "vision"))
DEFAULT_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind in ("core", "navigation"))


def _select_tools(options: ToolOptions, *, has_browser: bool) -> list[ToolSpec]:
    known = set(TOOL_SPECS)
    asked = set(options.include or ()) | set(options.exclude)
    unknown = sorted(asked - known)
    if unknown:
        raise InvalidArgumentError(
            f"Unknown tool name(s): {', '.join(unknown)}.", hint=f"Known: {', '.join(TOOL_SPECS)}."
        )
    if options.include is not None:
        chosen = set(options.include)
        blocked = sorted(chosen & set(NAVIGATION_TOOLS)) if not options.allow_navigation else []
        if blocked:
            raise InvalidArgumentError(
                f"{', '.join(blocked)} cannot be included with allow_navigation=False."
            )
    else:
        chosen = {n for n, s in TOOL_SPECS.items() if s.kind == "core"}
        if options.allow_navigation:
            chosen |= set(NAVIGATION_TOOLS)
    if options.vision:
        chosen.add("web_screenshot")
    if not has_browser:
        if options.include is not None and "web_tabs" in chosen:
            raise InvalidArgumentError("web_tabs needs a Browser; these tools act on one tab.")
        chosen.discard("web_tabs")
    chosen -= set(options.exclude)
    return [s for n, s in TOOL_SPECS.items() if n in chosen]


class WebTools:
    """The selected tools, bound to a Browser (acting on its active tab) or to one Tab."""

    def __init__(
        self,
        browser: Browser | None = None,
        *,
        tab: Tab | None = None,
        options: ToolOptions | None = None,
        **overrides: Any,
    ) -> None:
        if (browser is None) == (tab is None):
            raise InvalidArgumentError("WebTools needs a browser or a tab (exactly one).")
        from .options import merge_options

        for key in ("include", "exclude"):
            if isinstance(overrides.get(key), list):
                overrides[key] = tuple(overrides[key])
        self.options: ToolOptions = merge_options(options or ToolOptions(), overrides)
        self.browser = browser
        self._tab = tab
        self._runner: Runner = browser._runner if browser is not None else tab._runner  # type: ignore[union-attr]
        self.specs: list[ToolSpec] = _select_tools(self.options, has_browser=browser is not None)
        self._by_name = {s.name: s for s in self.specs}
        self._seen: dict[str, str] = {}
        self._lock: asyncio.Lock | None = None

    @classmethod
    def from_tab(cls, tab: Tab, **options: Any) -> WebTools:
        """Tools that always act on ``tab`` (``web_tabs`` is not offered)."""
        return cls(tab=tab, **options)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.specs]

    def spec(self, name: str) -> ToolSpec:
        try:
            return self._by_name[name]
        except KeyError:
            raise InvalidArgumentError(
                f"There is no tool named {name!r}.",
                hint=f"Available tools: {', '.join(self.names)}.",
            ) from None

    def current_tab(self) -> Tab:
        """The tab the tools act on now."""
        if self._tab is not None:
            return self._tab
        assert self.browser is not None
        return self.browser.active_tab

    # -- running -------------------------------------------------------------------------------
    async def _on_loop(self, name: str, args: Mapping[str, Any] | None) -> ToolOutput:
        spec = self.spec(name)
        parsed = spec.parse_args(args)
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            return await spec.handler(ToolContext(self), parsed)

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> ToolOutput:
        """Run tool ``name`` and block until done. Raises :class:`WebrefsError`."""
        return self._runner.run(self._on_loop(name, args))

    async def acall(self, name: str, args: Mapping[str, Any] | None = None) -> ToolOutput:
        """Run tool ``name`` from any event loop. Raises :class:`WebrefsError`."""
        return await self._runner.arun(self._on_loop(name, args))

    def run(self, name: str, args: Mapping[str, Any] | None = None) -> ToolOutput:
        """Like :meth:`call`, but a :class:`WebrefsError` comes back as an error output whose
        content is the tool message (what agent loops show the model)."""
        try:
            return self.call(name, args)
        except WebrefsError as err:
            return ToolOutput(format_error(name, err), err, is_error=True)

    async def arun(self, name: str, args: Mapping[str, Any] | None = None) -> ToolOutput:
        try:
            return await self.acall(name, args)
        except WebrefsError as err:
            return ToolOutput(format_error(name, err), err, is_error=True)

    # -- prompts -------------------------------------------------------------------------------
    def system_prompt(self, mode: str = "dom", *, tool_calling: bool = True) -> str:
        """The system prompt of ``mode`` (``dom`` or ``vision``) with the current page summary.
        ``tool_calling=False`` adds the JSON action format for models without tool calling."""
        return self._runner.run(self._system_prompt(mode, tool_calling))

    async def asystem_prompt(self, mode: str = "dom", *, tool_calling: bool = True) -> str:
        return await self._runner.arun(self._system_prompt(mode, tool_calling))

    async def _system_prompt(self, mode: str, tool_calling: bool) -> str:
        prompts = A.prompts()
        if mode not in prompts.SYSTEM_MODES:
            raise InvalidArgumentError(f"Unknown prompt mode {mode!r}; use 'dom' or 'vision'.")
        if mode == "vision" and "web_screenshot" not in self._by_name:
            raise InvalidArgumentError("The vision prompt needs the screenshot tool.",
                                       hint="Create the tools with vision=True.")
        page = await self.page_summary()
        fmt = None if tool_calling else prompts.action_format(tool_list(self.specs))
        text: str = prompts.render_system_prompt(
            mode, page=page, tools=self.names, action_format_text=fmt
        )
        return text

    async def page_summary(self) -> str:
        """A few lines on the active tab (title, URL, open tabs) for the system prompt."""
        try:
            tab = self.current_tab()
            title = await tab.atitle()
        except WebrefsError:
            return "No page is open yet."
        lines = [f"Active tab {tab.id}: {title or '(no title)'} - {tab.url}"]
        last = tab.last_snapshot
        if last is not None and last.page.page_type not in ("", "unknown"):
            lines.append(f"Page type: {last.page.page_type}.")
        if self.browser is not None:
            count = len(self.browser.tabs)
            if count > 1:
                lines.append(f"{count} tabs are open.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        where = f"tab {self._tab.id}" if self._tab is not None else "active tab"
        return f"<WebTools {len(self.specs)} tools on {where}>"
