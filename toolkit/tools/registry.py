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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import (
    ActionTimeoutError,
    BrowserClosedError,
    InvalidArgumentError,
    TabClosedError,
    WebrefsError,
    WrongTabError,
    elide,
    redacting,
)
from ..options import RenderOptions, merge_options
from ..prompts import PAGE_STATE_LEFT_OUT, SYSTEM_MODES, action_format, render_system_prompt
from ..quoting import quote
from ..render.picture import require_pillow
from ..render.tokens import require_encodings
from ..safety.consent import MODEL_CALL
from ..safety.fence import clean_line, make_marker
from ..safety.policy import SafetyPolicy
from ..safety.secrets import Redactor, all_secrets, redactor
from .context import ModelView, ToolContext, ToolOutput
from .fmt import format_error, tool_list
from .options import ToolOptions
from .specs import NAVIGATION_TOOLS, TOOL_GROUPS, TOOL_SPECS, ToolSpec

if TYPE_CHECKING:
    from .._loop import Runner
    from ..browser import Browser
    from ..tab import Tab

__all__ = ["WebTools", "select_tools"]

DIFF_ENCODING = "o200k_base"
"""The encoding action diffs are counted with (``diff_snapshots``' default)."""


def _expand(names: str | tuple[str, ...], field: str) -> list[str]:
    """Tool names, with group names (``TOOL_GROUPS``) replaced by their tools."""
    items = (names,) if isinstance(names, str) else names
    out: list[str] = []
    unknown: list[str] = []
    for item in items:
        if isinstance(item, str) and item in TOOL_GROUPS:
            out.extend(TOOL_GROUPS[item])
        elif isinstance(item, str) and item in TOOL_SPECS:
            out.append(item)
        else:
            unknown.append(item)
    if unknown:
        shown = ", ".join(elide(n, 60) for n in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise InvalidArgumentError(
            f"Unknown tool name(s) in {field}: {shown}{more}.",
            hint=f"Known: {', '.join(TOOL_SPECS)}; groups: {', '.join(TOOL_GROUPS)}.",
        )
    return out


def select_tools(options: ToolOptions, *, has_browser: bool = True) -> list[ToolSpec]:
    """``tools`` (a group, or an exact list), plus ``include``, plus the screenshot tool with
    ``vision``, minus ``exclude``. Tools named one by one that the setup cannot offer (a
    navigation tool with ``allow_navigation=False``, ``web_tabs`` without a Browser) are an
    error; a group just leaves them out."""
    base = _expand(options.tools, "tools")
    added = _expand(options.include or (), "include")
    removed = set(_expand(options.exclude, "exclude"))
    named: set[str] = set()  # asked for one by one, not through a group
    if not isinstance(options.tools, str):
        named |= {n for n in options.tools if n in TOOL_SPECS}
    named |= {n for n in options.include or () if n in TOOL_SPECS}
    named -= removed
    chosen = set(base) | set(added)
    if options.vision:
        chosen.add("web_screenshot")
    if not options.allow_navigation:
        blocked = sorted(named & set(NAVIGATION_TOOLS))
        if blocked:
            raise InvalidArgumentError(
                f"{', '.join(blocked)} cannot be offered with allow_navigation=False."
            )
        chosen -= set(NAVIGATION_TOOLS)
    if not has_browser:
        if "web_tabs" in named:
            raise InvalidArgumentError("web_tabs needs a Browser; these tools act on one tab.")
        chosen.discard("web_tabs")
    chosen -= removed
    return [(s.for_vision() if options.vision else s).for_after(options.after_action)
            for n, s in TOOL_SPECS.items() if n in chosen]


def _render_encoding(bound: object) -> str:
    """The encoding snapshots of ``bound`` (a Browser or a Tab) are counted with."""
    options = getattr(bound, "tab_options", None) or getattr(bound, "options", None)
    render = getattr(options, "render", None)
    encoding = getattr(render, "encoding", None)
    return encoding if isinstance(encoding, str) else RenderOptions().encoding


_DEFAULT_SAFETY = SafetyPolicy()


class WebTools:
    """The selected tools, bound to a Browser (acting on its active tab) or to one Tab."""

    def __init__(
        self,
        browser: Browser | None = None,
        *,
        tab: Tab | None = None,
        options: ToolOptions | None = None,
        safety: SafetyPolicy | None = None,
        **overrides: Any,
    ) -> None:
        if (browser is None) == (tab is None):
            raise InvalidArgumentError("WebTools needs a browser or a tab (exactly one).")
        if safety is not None:
            if browser is not None:
                browser.set_safety(safety)  # the policy of the browser the tools drive
            elif tab is not None:
                tab.set_safety(safety)  # its browser context's policy
        for key in ("tools", "include", "exclude"):
            if isinstance(overrides.get(key), list):
                overrides[key] = tuple(overrides[key])
        self.options: ToolOptions = merge_options(options or ToolOptions(), overrides)
        self.browser = browser
        self._tab = tab
        bound: Browser | Tab = browser if browser is not None else tab  # type: ignore[assignment]
        self._runner: Runner = bound.runner
        self.specs: list[ToolSpec] = select_tools(self.options, has_browser=browser is not None)
        # Every snapshot and diff counts tokens: a tokenizer that cannot load is the host's
        # problem, so it fails here, once, and never reaches the model as a tool error.
        require_encodings(_render_encoding(bound), DIFF_ENCODING)
        if any(s.name == "web_screenshot" for s in self.specs):
            require_pillow()  # the screenshot draws with Pillow: the host's problem, here
        self._by_name = {s.name: s for s in self.specs}
        self._view = ModelView()
        # random, or from the context's seed and its secret key (never the seed alone)
        self._view.marker = (make_marker(browser.seed, browser.fence_key)
                             if browser is not None else make_marker())
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
        except (KeyError, TypeError):
            raise InvalidArgumentError(
                f"There is no tool named {elide(name, 60)}.",
                hint=f"Available tools: {', '.join(self.names)}.",
            ) from None

    def current_tab(self) -> Tab:
        """The tab the tools act on now."""
        if self._tab is not None:
            return self._tab
        assert self.browser is not None
        self._check_browser()
        try:
            return self.browser.active_tab
        except TabClosedError:
            raise TabClosedError(
                "No tab is open.", hint="Open a page with web_navigate."
            ) from None

    def _check_browser(self) -> None:
        if self.browser is not None and self.browser.closed:
            raise BrowserClosedError(
                "The browser has closed (its process exited or was disconnected).",
                host_hint="Launch a new Browser and create new tools on it.",
            )

    # -- which tab the model's refs belong to ----------------------------------------------------
    def _active_id(self) -> str | None:
        if self.browser is None:
            return self._tab.id if self._tab is not None else None
        try:
            return self.browser.active_tab.id
        except WebrefsError:
            return None

    def _check_target_tab(self, parsed: Any) -> None:
        """A ref (or description) is read on one tab; acting with it on another is refused."""
        target = getattr(parsed, "ref", None)
        source = self._view.refs_tab
        if target is None or source is None or self.browser is None:
            return
        current = self.current_tab()
        if current.id == source:
            return
        open_ids = {t.id for t in self.browser.tabs}
        where = f"tab {source}" + ("" if source in open_ids else ", which has closed since")
        back = f", or switch back to {source} with web_tabs" if source in open_ids else ""
        raise WrongTabError(
            f"{elide(target, 40)} was read on {where}; the tools now act on tab "
            f"{current.id} ({elide(current.url, 120)}), so it was not used there.",
            hint=f"Take a web_snapshot of tab {current.id} and use a ref from it{back}.",
            ref_tab=source,
            current_tab=current.id,
        )

    def _switch_note(self, name: str) -> str:
        """What to tell the model when the active tab is not the one it was last told about."""
        if self.browser is None or self.browser.closed:
            return ""
        now = self._active_id()
        before, told = self._view.active_tab, self._view.told
        self._view.active_tab, self._view.told = now, True
        if not told or now == before or name == "web_tabs":
            return ""  # web_tabs lists the tabs and marks the active one itself
        open_ids = {t.id for t in self.browser.tabs}
        if now is None:
            return (f"Note: tab {before} closed and no tab is open now; web_navigate opens "
                    "a page.")
        url = elide(self.browser.active_tab.url, 120)
        if before is not None and before not in open_ids:
            why = f"tab {before} closed, so the tools now act on tab {now} ({url})"
        else:
            why = f"the active tab changed from {before} to {now} ({url}); the tools act on it"
        return (f"Note: {why}. Refs from another tab do not apply here: take a web_snapshot "
                "before acting.")

    # -- running -------------------------------------------------------------------------------
    async def _on_loop(self, name: str, args: object) -> ToolOutput:
        secrets = self._redactor()
        try:
            # every cut made during the call replaces secrets first (errors.redacting), and
            # what leaves it, output or error, is redacted whole, once, here
            with redacting(secrets or None):
                out = await self._run_locked(name, args)
        except WebrefsError as exc:
            raise self._redact_error(exc, secrets) from None
        return self._redacted(out, secrets)

    async def _run_locked(self, name: str, args: object) -> ToolOutput:
        spec = self.spec(name)
        parsed = spec.parse_args(args)
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            model_call = MODEL_CALL.set(True)  # the safety gate applies to the model's calls
            try:
                self._check_browser()
                self._check_target_tab(parsed)
                context = ToolContext(self.options, self.browser, self.current_tab, self._view)
                out = await spec.handler(context, parsed)
            except TimeoutError:
                err: WebrefsError = ActionTimeoutError(
                    f"{name} gave up: the page did not answer in time.",
                    hint="Navigate to another page or close the tab.",
                )
                raise self._noted(name, err) from None
            except TabClosedError as exc:
                if self.browser is not None and not self.browser.tabs:
                    await asyncio.sleep(0.2)  # a killed browser closes its pages first
                    self._check_browser()
                raise self._noted(name, exc) from None
            except WebrefsError as exc:
                raise self._noted(name, exc) from None
            finally:
                MODEL_CALL.reset(model_call)
            note = self._switch_note(name)
            if note:
                out = replace(out, content=f"{out.content}\n\n{note}")
            return out

    # -- secrets never leave ---------------------------------------------------------------------
    @property
    def safety(self) -> SafetyPolicy:
        """The safety policy of the browser (or tab) the tools drive."""
        bound: Any = self.browser if self.browser is not None else self._tab
        policy = getattr(bound, "safety", None)
        return policy if isinstance(policy, SafetyPolicy) else _DEFAULT_SAFETY

    def _redactor(self) -> Redactor | None:
        """The redactor of the policy's secrets (``None`` when there are none)."""
        policy = self.safety
        if not (policy.enabled and policy.sensitive_data):
            return None
        return redactor(all_secrets(policy)) or None

    @staticmethod
    def _redacted(out: ToolOutput, secrets: Redactor | None) -> ToolOutput:
        """``out`` with every secret value replaced by its placeholder (text and artifact;
        an image cannot be redacted)."""
        if secrets is None:
            return out
        content, artifact = secrets(out.content), secrets.data(out.artifact)
        if content is out.content and artifact is out.artifact:
            return out
        return replace(out, content=content, artifact=artifact)

    @staticmethod
    def _redact_error(err: WebrefsError, secrets: Redactor | None) -> WebrefsError:
        """``err`` with every secret replaced in all it carries (message, hints, the partial
        result, an attached snapshot, a consent request, ...)."""
        if secrets is None:
            return err
        for key, value in list(vars(err).items()):
            cleaned = secrets.data(value)
            if cleaned is not value:
                setattr(err, key, cleaned)
        err.args = tuple(secrets.data(list(err.args)))
        return err

    def _noted(self, name: str, err: WebrefsError) -> WebrefsError:
        """``err`` with the note on an active-tab switch, when there was one."""
        if isinstance(err, BrowserClosedError):
            return err
        note = self._switch_note(name)
        if note:
            err.message = f"{err.message} {note}"
        return err

    def call(self, name: str, args: Mapping[str, Any] | str | None = None) -> ToolOutput:
        """Run tool ``name`` and block until done. Raises :class:`WebrefsError`.

        ``args`` is an object of named arguments, or one bare value for a tool whose one
        required argument it is (``call("web_click", "e5")``)."""
        return self._runner.run(self._on_loop(name, args))

    async def acall(self, name: str, args: Mapping[str, Any] | str | None = None) -> ToolOutput:
        """Run tool ``name`` from any event loop. Raises :class:`WebrefsError`."""
        return await self._runner.arun(self._on_loop(name, args))

    def run(self, name: str, args: Mapping[str, Any] | str | None = None) -> ToolOutput:
        """Like :meth:`call`, but a :class:`WebrefsError` comes back as an error output whose
        content is the tool message (what agent loops show the model)."""
        try:
            return self.call(name, args)
        except WebrefsError as err:
            return ToolOutput(format_error(name, err), err, is_error=True)

    async def arun(self, name: str, args: Mapping[str, Any] | str | None = None) -> ToolOutput:
        try:
            return await self.acall(name, args)
        except WebrefsError as err:
            return ToolOutput(format_error(name, err), err, is_error=True)

    # -- prompts -------------------------------------------------------------------------------
    def system_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                      page_state: bool = True) -> str:
        """The system prompt of ``mode`` (``dom`` or ``vision``) with the current page summary.
        ``tool_calling=False`` adds the JSON action format for models without tool calling.
        The page summary is true when the prompt is made, not after the next navigation: build
        the prompt before every model call (the LangChain adapter's ``live_prompt``
        middleware does), or pass ``page_state=False`` to leave the page out of a prompt that
        is made once."""
        return self._runner.run(self._system_prompt(mode, tool_calling, page_state))

    async def asystem_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                             page_state: bool = True) -> str:
        return await self._runner.arun(self._system_prompt(mode, tool_calling, page_state))

    async def _system_prompt(self, mode: str, tool_calling: bool, page_state: bool) -> str:
        secrets = self._redactor()
        with redacting(secrets or None):
            text = await self._make_system_prompt(mode, tool_calling, page_state)
        return secrets(text) if secrets is not None else text

    async def _make_system_prompt(self, mode: str, tool_calling: bool, page_state: bool) -> str:
        if mode not in SYSTEM_MODES:
            raise InvalidArgumentError(f"Unknown prompt mode {mode!r}; use 'dom' or 'vision'.")
        if mode == "vision" and "web_screenshot" not in self._by_name:
            raise InvalidArgumentError("The vision prompt needs the screenshot tool.",
                                       host_hint="Create the tools with vision=True.")
        page = await self.page_summary() if page_state else PAGE_STATE_LEFT_OUT
        fmt = None if tool_calling else action_format(tool_list(self.specs))
        text = render_system_prompt(
            mode, page=page, tools=self.names, action_format_text=fmt,
            after_action=self.options.after_action,
        )
        return text

    async def page_summary(self) -> str:
        """A few lines on the active tab (title, URL, open tabs) for the system prompt."""
        secrets = self._redactor()
        with redacting(secrets or None):
            text = await self._page_summary()
        return secrets(text) if secrets is not None else text

    async def _page_summary(self) -> str:
        if self.browser is not None and self.browser.closed:
            return "The browser has closed; no page can be used."
        try:
            tab = self.current_tab()
        except WebrefsError:
            return "No page is open yet."
        try:
            title = await tab.atitle()
        except ActionTimeoutError:
            shown = "(the page is not responding)"
        except WebrefsError:
            return "No page is open yet."
        else:  # page text: one clean line, quoted as every page string is (cut after the
            # secrets are replaced: see _system_prompt)
            shown = quote(clean_line(title, 200), 200) if title else "(no title)"
        url = clean_line(tab.url, 200)
        lines = [f"Active tab {tab.id}: {shown} - {url}"]
        last = tab.last_snapshot
        if last is not None and last.page.page_type not in ("", "unknown"):
            lines.append(f"Page type: {last.page.page_type}.")
        if self.browser is not None:
            count = len(self.browser.tabs)
            if count > 1:
                lines.append(f"{count} tabs are open.")
        self._view.active_tab, self._view.told = tab.id, True
        return "\n".join(lines)

    def __repr__(self) -> str:
        where = f"tab {self._tab.id}" if self._tab is not None else "active tab"
        return f"<WebTools {len(self.specs)} tools on {where}>"
