"""LangChain tools for webrefs: a ``BaseToolkit`` over the one tool registry.

::

    from webrefs import Browser
    from webrefs.adapters.langchain import WebToolkit

    browser = Browser.launch()
    tools = WebToolkit(browser=browser).get_tools()     # BaseTool instances

Every tool has an ``args_schema``, a blocking ``_run`` and a native async ``_arun``, and answers
``(content, artifact)`` (``response_format="content_and_artifact"``): text for the model, and
the :class:`~webrefs.Snapshot` / :class:`~webrefs.ActionResult` for programs. Errors (a stale
ref, a blocked navigation, bad arguments) come back as tool messages, so a graph keeps going.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from functools import partial
from typing import Any, Literal

from webrefs.errors import missing_extra

try:
    from langchain_core.tools import BaseTool, BaseToolkit, ToolException
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.adapters.langchain", "langchain") from exc

from pydantic import ConfigDict, Field, PrivateAttr, SkipValidation
from webrefs import Browser, Tab
from webrefs.errors import WebrefsError
from webrefs.tools import ToolOutput, ToolSpec, WebTools
from webrefs.tools.fmt import format_error, format_validation_error

__all__ = ["WebTool", "WebToolkit"]


def _content(out: ToolOutput) -> str | list[str | dict[str, Any]]:
    """Text, or text plus image blocks when the tool returned images (web_screenshot)."""
    if not out.images:
        return out.content
    blocks: list[str | dict[str, Any]] = [{"type": "text", "text": out.content}]
    for png in out.images:
        blocks.append({"type": "image", "base64": base64.b64encode(png).decode("ascii"),
                       "mime_type": "image/png"})
    return blocks


class WebTool(BaseTool):
    """One webrefs tool as a LangChain tool. Built by :meth:`WebToolkit.get_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: Any = True
    webtools: SkipValidation[WebTools] = Field(exclude=True)
    """The registry this tool runs on."""

    @classmethod
    def from_spec(cls, spec: ToolSpec, webtools: WebTools) -> WebTool:
        return cls(
            name=spec.name,
            description=spec.description,
            args_schema=spec.args_model,
            webtools=webtools,
            handle_validation_error=partial(format_validation_error, spec.name),
        )

    def _run(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        try:
            out = self.webtools.call(self.name, _arguments(args, kwargs))
        except WebrefsError as err:
            raise ToolException(format_error(self.name, err)) from err
        return _content(out), out.artifact

    async def _arun(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        try:
            out = await self.webtools.acall(self.name, _arguments(args, kwargs))
        except WebrefsError as err:
            raise ToolException(format_error(self.name, err)) from err
        return _content(out), out.artifact


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the registry gets: the named arguments, or the one value given positionally
    (``tool.invoke("e5")``), which the registry matches to the tool's required argument."""
    if not args:
        return kwargs
    return args[0] if len(args) == 1 and not kwargs else args


class WebToolkit(BaseToolkit):
    """Browser tools for LangChain agents, acting on a Browser's active tab (or one Tab).

    ``tools`` is where the selection starts: ``"default"`` (core and navigation tools),
    ``"all"``, a group name of ``webrefs.tools.TOOL_GROUPS``, or an exact list of names;
    ``include`` adds tools (opt-in ones: ``web_hover``, ``web_wait_for``, ``web_upload``,
    ``web_tabs``, or the group ``"optional"``); ``exclude`` removes some; ``after_action``
    is ``"none"``, ``"diff"`` or ``"snapshot"``; ``allow_navigation=False`` drops
    ``web_navigate`` and ``web_go_back``; ``vision=True`` adds ``web_screenshot``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    browser: SkipValidation[Browser | None] = None
    """Tools act on this browser's active tab..."""
    tab: SkipValidation[Tab | None] = None
    """...or always on this tab (give one of the two)."""
    max_tokens: int = 3000
    tools: str | Sequence[str] = "default"
    include: Sequence[str] | None = None
    exclude: Sequence[str] | None = None
    after_action: Literal["none", "diff", "snapshot"] = "none"
    allow_navigation: bool = True
    vision: bool = False
    _webtools: WebTools = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._webtools = WebTools(
            self.browser,
            tab=self.tab,
            max_tokens=self.max_tokens,
            tools=self.tools if isinstance(self.tools, str) else tuple(self.tools),
            include=tuple(self.include) if self.include is not None else None,
            exclude=tuple(self.exclude or ()),
            after_action=self.after_action,
            allow_navigation=self.allow_navigation,
            vision=self.vision,
        )

    @classmethod
    def from_tab(cls, tab: Tab, **options: Any) -> WebToolkit:
        """Tools that always act on ``tab``."""
        return cls(tab=tab, **options)

    @property
    def webtools(self) -> WebTools:
        """The registry behind the tools (``call``/``acall`` by name, ``system_prompt``)."""
        return self._webtools

    def get_tools(self) -> list[BaseTool]:
        return [WebTool.from_spec(spec, self._webtools) for spec in self._webtools.specs]

    def system_prompt(self, mode: str = "dom", *, tool_calling: bool = True) -> str:
        """The system prompt (``dom`` or ``vision``) with a summary of the current page."""
        return self._webtools.system_prompt(mode, tool_calling=tool_calling)

    async def asystem_prompt(self, mode: str = "dom", *, tool_calling: bool = True) -> str:
        return await self._webtools.asystem_prompt(mode, tool_calling=tool_calling)
