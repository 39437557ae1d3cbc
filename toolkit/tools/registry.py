"""The tool registry: every webrefs tool defined once, for every adapter.

Every tool is one :class:`~webrefs.tools.specs.ToolSpec` (name, description from
``webrefs.prompts``, pydantic argument model, ONE async handler). :class:`WebTools` binds the
specs to a :class:`~webrefs.Browser` (tools act on its active tab) or to one
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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import prompts
from ..errors import InvalidArgumentError, WebrefsError
from ..models import Snapshot
from ..options import merge_options
from .context import ToolContext, ToolOutput
from .fmt import format_error, tool_list
from .options import ToolOptions
from .specs import NAVIGATION_TOOLS, TOOL_SPECS, ToolSpec

if TYPE_CHECKING:
    from .._loop import Runner
    from ..browser import Browser
    from ..tab import Tab

__all__ = ["WebTools"]


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
        for key in ("include", "exclude"):
            if isinstance(overrides.get(key), list):
                overrides[key] = tuple(overrides[key])
        self.options: ToolOptions = merge_options(options or ToolOptions(), overrides)
        self.browser = browser
        self._tab = tab
        bound: Browser | Tab = browser if browser is not None else tab  # type: ignore[assignment]
        self._runner: Runner = bound.runner
        self.specs: list[ToolSpec] = _select_tools(self.options, has_browser=browser is not None)
        self._by_name = {s.name: s for s in self.specs}
        self._seen: dict[str, Snapshot] = {}
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
            context = ToolContext(self.options, self.browser, self.current_tab, self._seen)
            return await spec.handler(context, parsed)

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
        if mode not in prompts.SYSTEM_MODES:
            raise InvalidArgumentError(f"Unknown prompt mode {mode!r}; use 'dom' or 'vision'.")
        if mode == "vision" and "web_screenshot" not in self._by_name:
            raise InvalidArgumentError("The vision prompt needs the screenshot tool.",
                                       hint="Create the tools with vision=True.")
        page = await self.page_summary()
        fmt = None if tool_calling else prompts.action_format(tool_list(self.specs))
        text = prompts.render_system_prompt(
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
