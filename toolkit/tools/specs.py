"""Tool specs: the one definition of every webrefs tool, and its one async handler.

A :class:`ToolSpec` is a name, the model-facing description (from ``webrefs.prompts``), a
pydantic argument model (:mod:`webrefs.tools.args`), the handler, and its kind (core,
navigation, optional, vision). Handlers act through the public ``Tab`` coroutines and turn
what they get into a :class:`ToolOutput`; :class:`~webrefs.tools.WebTools` selects and runs
them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError

from ..errors import ActionTimeoutError, InvalidArgumentError, TabClosedError, WebrefsError
from ..models import Screenshot
from ..prompts import tool_description
from ..render.diff import diff_snapshots
from ..render.tokens import TokenCounter
from ..safety.fence import clean_line
from . import args as A
from .context import ToolContext, ToolOutput, same_document
from .fmt import TabLine, describe_validation_error, format_tabs, format_text

if TYPE_CHECKING:
    from ..browser import Browser
    from ..tab import Tab

__all__ = [
    "ALL_TOOLS",
    "CORE_TOOLS",
    "DEFAULT_TOOLS",
    "NAVIGATION_TOOLS",
    "OPTIONAL_TOOLS",
    "TOOL_GROUPS",
    "TOOL_HINTS",
    "TOOL_SPECS",
    "ToolHints",
    "ToolSpec",
]

Handler = Callable[["ToolContext", Any], Awaitable[ToolOutput]]
Kind = Literal["core", "navigation", "optional", "vision"]


@dataclass(frozen=True)
class ToolHints:
    """What a tool may do to the world, for hosts that gate tools (MCP's tool annotations,
    LangChain tool ``metadata``). Hints, not guarantees: the safety policy decides."""

    read_only: bool
    """It changes nothing on the page or anywhere else (reading, waiting)."""
    destructive: bool
    """It may do what cannot be undone (a click may pay, Enter may submit)."""
    idempotent: bool
    """Doing it twice with the same arguments does no more than doing it once."""
    open_world: bool = True
    """It reaches the web beyond the host (every browser tool may)."""

    def as_mcp(self) -> dict[str, bool]:
        """The MCP tool annotation names and values."""
        return {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}


_READ = ToolHints(read_only=True, destructive=False, idempotent=True)
_SET = ToolHints(read_only=False, destructive=False, idempotent=True)
_MOVE = ToolHints(read_only=False, destructive=False, idempotent=False)
_ACT = ToolHints(read_only=False, destructive=True, idempotent=False)

TOOL_HINTS: Mapping[str, ToolHints] = {
    "web_snapshot": _READ, "web_get_text": _READ, "web_wait_for": _READ,
    "web_screenshot": _READ,
    "web_click": _ACT, "web_press_key": _ACT, "web_type": _ACT, "web_drag": _ACT,
    "web_evaluate": _ACT, "web_tabs": _ACT,
    "web_fill": _SET, "web_select": _SET, "web_check": _SET, "web_hover": _SET,
    "web_upload": _SET, "web_navigate": _SET,
    "web_scroll": _MOVE, "web_go_back": _MOVE, "web_go_forward": _MOVE, "web_reload": _MOVE,
}
"""The hints of every tool, by name (one table for every adapter)."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool: the single definition every adapter wraps."""

    name: str
    description: str
    args_model: type[BaseModel]
    handler: Handler = field(repr=False)
    kind: Kind = "core"
    vision_args: type[BaseModel] | None = field(default=None, repr=False)
    """The argument model in vision mode, when it differs (pointer tools that also take a
    point of the latest screenshot)."""

    def for_vision(self) -> ToolSpec:
        """This tool as offered in vision mode (``vision=True``): its vision arguments and
        description, when it has them."""
        if self.vision_args is None:
            return self
        return replace(self, args_model=self.vision_args,
                       description=tool_description(self.name, vision=True))

    def for_after(self, after_action: str) -> ToolSpec:
        """This tool as offered when each action's result shows the page or its changes
        (``after_action`` ``diff`` or ``snapshot``): its description for that, when it has
        one (a vision description, more specific, is kept)."""
        if after_action == "none" or (self.vision_args is not None
                                      and self.args_model is self.vision_args):
            return self
        text = tool_description(self.name, after_action=after_action)
        return self if text == self.description else replace(self, description=text)

    @property
    def hints(self) -> ToolHints:
        """What the tool may do (:data:`TOOL_HINTS`)."""
        return TOOL_HINTS[self.name]

    def json_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments."""
        return self.args_model.model_json_schema()

    def parse_args(self, args: object) -> BaseModel:
        """Validate ``args``; an :class:`InvalidArgumentError` names each bad argument.

        ``args`` is an object of named arguments; one bare string stands for the tool's one
        required argument (or, when it has none, its first argument)."""
        if isinstance(args, str):
            args = self.single_argument(args)
        elif args is not None and not isinstance(args, Mapping):
            raise InvalidArgumentError(
                f"The arguments of {self.name} must be an object of named values, "
                f"not a {type(args).__name__}.",
                hint=f"Check the arguments of {self.name}.",
            )
        try:
            return self.args_model.model_validate(dict(args or {}))
        except ValidationError as exc:
            raise InvalidArgumentError(
                describe_validation_error(exc), hint=f"Check the arguments of {self.name}."
            ) from None

    def single_argument(self, value: str) -> dict[str, Any]:
        """The named arguments one bare value stands for."""
        fields = self.args_model.model_fields
        required = [n for n, f in fields.items() if f.is_required()]
        if len(required) == 1:
            return {required[0]: value}
        if not required:
            if not value.strip() or not fields:
                return {}
            return {next(iter(fields)): value}
        raise InvalidArgumentError(
            f"{self.name} needs {len(required)} arguments ({', '.join(required)}); one bare "
            "value cannot stand for them.",
            hint="Pass the arguments by name, as an object.",
        )


# -- handlers: one per tool ------------------------------------------------------------------
async def _snapshot(ctx: ToolContext, a: A.SnapshotArgs) -> ToolOutput:
    tab = ctx.tab()
    snap = await tab.asnapshot(
        interactive_only=a.interactive_only,
        scope=a.scope,
        max_tokens=a.max_tokens or ctx.options.max_tokens,
    )
    before = ctx.seen(tab)
    ctx.remember(tab, snap)
    shown = ctx.fenced(snap)
    if not a.changes_only:
        return ToolOutput(shown.text, shown)
    if before is None or not same_document(before, snap):
        return ToolOutput("No earlier snapshot of this page to compare with; the whole page:\n"
                          + shown.text, shown)
    diff = diff_snapshots(before, snap, max_tokens=a.max_tokens or ctx.options.max_tokens)
    return ToolOutput("Changes since your last snapshot of this page:\n" + ctx.fence(diff),
                      shown)


def _page_point(ctx: ToolContext, tab: Tab, x: int, y: int) -> tuple[float, float, str]:
    """Screenshot pixels ``(x, y)`` as a page point (CSS pixels of the main document) through
    the last screenshot the model saw of ``tab``, and how results name it."""
    shot = ctx.screen(tab)
    if shot is None:
        raise InvalidArgumentError(
            "x and y are pixels of a screenshot, and none has been taken of this tab yet.",
            hint="Call web_screenshot first, or give a ref.")
    if x >= shot.width or y >= shot.height:
        raise InvalidArgumentError(
            f"({x}, {y}) is outside the latest screenshot, which is {shot.width} x "
            f"{shot.height} pixels.", hint="Give a point inside the image.")
    px, py = shot.to_page(x + 0.5, y + 0.5)  # the middle of the image pixel
    return px, py, f"({x}, {y}) of the screenshot"


async def _click(ctx: ToolContext, a: A.ClickArgs | A.ClickPointArgs) -> ToolOutput:
    tab = ctx.tab()
    if a.ref is None:
        assert isinstance(a, A.ClickPointArgs) and a.x is not None and a.y is not None
        px, py, shown = _page_point(ctx, tab, a.x, a.y)
        return await ctx.action_output(tab, await tab.aclick_at(px, py, shown=shown))
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


async def _type(ctx: ToolContext, a: A.TypeArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.atype_text(a.text, a.ref, a.enter))


async def _get_text(ctx: ToolContext, a: A.GetTextArgs) -> ToolOutput:
    result = await ctx.tab().aget_text(a.ref, a.max_length)
    return ToolOutput(format_text(result, ctx.fence), result)


async def _navigate(ctx: ToolContext, a: A.NavigateArgs) -> ToolOutput:
    try:
        tab = ctx.tab()
    except TabClosedError:
        if ctx.browser is None:
            raise
        tab = await ctx.browser.anew_tab()  # no tab open yet: navigating opens one
    return await ctx.action_output(tab, await tab.agoto(a.url))


async def _go_back(ctx: ToolContext, a: A.GoBackArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.ago_back())


async def _go_forward(ctx: ToolContext, a: A.GoForwardArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.ago_forward())


async def _reload(ctx: ToolContext, a: A.ReloadArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.areload())


EVALUATE_MAX_TOKENS = 800
"""Most tokens of a ``web_evaluate`` value a model reads; a longer one is cut, and says so."""


async def _evaluate(ctx: ToolContext, a: A.EvaluateArgs) -> ToolOutput:
    tab = ctx.tab()
    value = await tab.aevaluate(a.expression)
    if value is None:
        return ToolOutput("The expression returned nothing (undefined or null).", value)
    text = json.dumps(value, ensure_ascii=False, default=str)
    counter = TokenCounter()
    shown = counter.head(text, EVALUATE_MAX_TOKENS)
    note = ""
    if shown != text:
        note = (f"\n(cut at {EVALUATE_MAX_TOKENS} tokens of {counter.exact(text)}: return a "
                "smaller part of it)")
    return ToolOutput(f"The expression returned (JSON):\n{ctx.fence(shown)}{note}", value)


async def _drag(ctx: ToolContext, a: A.DragArgs | A.DragPointArgs) -> ToolOutput:
    tab = ctx.tab()
    if a.ref is None:
        assert isinstance(a, A.DragPointArgs)
        assert None not in (a.x, a.y, a.to_x, a.to_y)
        x, y, shown = _page_point(ctx, tab, a.x or 0, a.y or 0)
        to_x, to_y, to_shown = _page_point(ctx, tab, a.to_x or 0, a.to_y or 0)
        return await ctx.action_output(
            tab, await tab.adrag_at(x, y, to_x, to_y, shown=shown, to_shown=to_shown))
    return await ctx.action_output(tab, await tab.adrag(a.ref, a.to_ref, a.dx, a.dy))


async def _hover(ctx: ToolContext, a: A.HoverArgs | A.HoverPointArgs) -> ToolOutput:
    tab = ctx.tab()
    if a.ref is None:
        assert isinstance(a, A.HoverPointArgs) and a.x is not None and a.y is not None
        px, py, shown = _page_point(ctx, tab, a.x, a.y)
        return await ctx.action_output(tab, await tab.ahover_at(px, py, shown=shown))
    return await ctx.action_output(tab, await tab.ahover(a.ref))


async def _wait_for(ctx: ToolContext, a: A.WaitForArgs) -> ToolOutput:
    if sum(x is not None for x in (a.text, a.ref, a.seconds)) != 1:
        raise InvalidArgumentError("web_wait_for needs exactly one of 'text', 'ref' or "
                                   "'seconds'.")
    if a.gone and a.seconds is not None:
        raise InvalidArgumentError("web_wait_for: 'gone' goes with 'text' or 'ref', not "
                                   "'seconds'.")
    tab = ctx.tab()
    return await ctx.action_output(
        tab, await tab.await_for(a.text, a.ref, a.timeout_ms, a.gone, a.seconds))


async def _upload(ctx: ToolContext, a: A.UploadArgs) -> ToolOutput:
    tab = ctx.tab()
    return await ctx.action_output(tab, await tab.aupload(a.ref, list(a.paths)))


async def _title(tab: Tab) -> str:
    try:
        return await tab.atitle()
    except ActionTimeoutError:
        return "(the page is not responding)"
    except WebrefsError:
        return ""


async def _tab_lines(browser: Browser) -> list[TabLine]:
    try:
        active_id: str | None = browser.active_tab.id
    except TabClosedError:
        active_id = None
    tabs = browser.tabs
    titles = await asyncio.gather(*(_title(tab) for tab in tabs))  # each bounded, in parallel
    # a title is page text: cleaned as snapshots clean it (no line or direction controls)
    return [TabLine(id=tab.id, url=tab.url, title=clean_line(title, 300),
                    active=tab.id == active_id)
            for tab, title in zip(tabs, titles, strict=True)]


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


MAX_LISTED_MARKS = 80
"""Most refs a screenshot's text lists by name (the image shows them all)."""


async def _screenshot(ctx: ToolContext, a: A.ScreenshotArgs) -> ToolOutput:
    tab = ctx.tab()
    shot = await tab.ascreenshot_marked(a.ref, marks=a.marks, full_page=a.full_page)
    ctx.saw_screen(tab, shot)
    return ToolOutput(format_screenshot(shot, a.ref, a.full_page,
                                        coordinates=ctx.options.vision), shot,
                      images=(shot.png,))


def format_screenshot(shot: Screenshot, ref: str | None, full_page: bool, *,
                      coordinates: bool) -> str:
    """What the model reads beside a screenshot: what it shows, its size and cost, the refs
    drawn on it."""
    part = (f"the element {ref}" if ref else "the whole page" if full_page
            else "the visible part")
    tokens = shot.tokens
    cost = ", ".join(f"{tokens[k]} {name}" for k, name in
                     (("anthropic", "Anthropic"), ("openai", "OpenAI"), ("google", "Gemini"))
                     if k in tokens)
    lines = [f"Screenshot of {part} of {clean_line(shot.url, 200)} is attached (PNG): "
             f"{shot.width} x {shot.height} pixels, about {cost} image tokens."]
    if shot.scale < 0.995:
        lines.append(f"It is scaled down to {shot.scale:.2f} of the page's size.")
    if shot.marks:
        refs = [m.ref for m in shot.marks]
        shown = ", ".join(refs[:MAX_LISTED_MARKS])
        more = f" and {len(refs) - MAX_LISTED_MARKS} more" if len(refs) > MAX_LISTED_MARKS else ""
        lines.append(f"{len(refs)} elements are drawn as coloured boxes, each labelled with its "
                     f"ref: {shown}{more}. Act on them by ref.")
    else:
        lines.append("No elements are marked on it.")
    if coordinates:
        lines.append("x and y of web_click, web_hover and web_drag are pixels of this image.")
    return "\n".join(lines)


def _spec(name: str, handler: Handler, kind: Kind = "core") -> ToolSpec:
    description = tool_description(name)
    return ToolSpec(name, description, A.ARGS_MODELS[name], handler, kind,
                    vision_args=A.VISION_ARGS_MODELS.get(name))


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
        _spec("web_type", _type),
        _spec("web_get_text", _get_text),
        _spec("web_wait_for", _wait_for),
        _spec("web_navigate", _navigate, "navigation"),
        _spec("web_go_back", _go_back, "navigation"),
        _spec("web_go_forward", _go_forward, "navigation"),
        _spec("web_reload", _reload, "navigation"),
        _spec("web_hover", _hover, "optional"),
        _spec("web_drag", _drag, "optional"),
        _spec("web_upload", _upload, "optional"),
        _spec("web_tabs", _tabs, "optional"),
        _spec("web_screenshot", _screenshot, "vision"),
        _spec("web_evaluate", _evaluate, "optional"),
    )
}
"""Every tool, by name, in the order adapters list them."""

CORE_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind == "core")
"""Reading and acting on the page: always offered unless excluded."""
NAVIGATION_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind == "navigation")
"""Going elsewhere (``web_navigate``, ``web_go_back``, ``web_go_forward``, ``web_reload``);
dropped by ``allow_navigation=False``."""
OPTIONAL_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind in ("optional", "vision"))
"""Opt-in tools: hover, drag, upload, tabs, a script's value (``web_evaluate``, which the user
confirms on every call), and the screenshot (``vision=True``)."""
DEFAULT_TOOLS = tuple(n for n, s in TOOL_SPECS.items() if s.kind in ("core", "navigation"))
"""What ``tools="default"`` offers: core and navigation."""
ALL_TOOLS = tuple(TOOL_SPECS)
"""Every tool (``tools="all"``)."""
TOOL_GROUPS: Mapping[str, tuple[str, ...]] = {
    "core": CORE_TOOLS,
    "navigation": NAVIGATION_TOOLS,
    "optional": OPTIONAL_TOOLS,
    "vision": tuple(n for n, s in TOOL_SPECS.items() if s.kind == "vision"),
    "default": DEFAULT_TOOLS,
    "all": ALL_TOOLS,
}
"""Named groups of tools. Wherever tool names are taken (``tools``, ``include``,
``exclude``), a group name stands for its tools."""
