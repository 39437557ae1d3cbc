"""LlamaIndex tools for webrefs: a ``BaseToolSpec`` over the one tool registry.

::

    from webrefs import Browser
    from webrefs.adapters.llamaindex import WebToolSpec

    browser = Browser.launch()
    tools = WebToolSpec(browser=browser).to_tool_list()     # FunctionTool instances

Each tool has a blocking and an async function (``tool.fn`` / ``tool.async_fn``), the same
name, description and argument schema as the LangChain tools, and returns a ``ToolOutput``
whose content is the text for the model and whose ``raw_output`` is the structured result
(:class:`~webrefs.Snapshot`, :class:`~webrefs.ActionResult`, ...). Errors come back as
``is_error`` outputs whose content tells the model what to do, so an agent keeps going.

LlamaIndex agents take a system prompt once, when they are built, and it would go stale at the
agent's first navigation; so give them ``await spec.asystem_prompt(page_state=False)``, which
leaves the page out and tells the model to read it with ``web_snapshot``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from webrefs.errors import missing_extra

try:
    from llama_index.core.base.llms.types import ImageBlock, TextBlock
    from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput
    from llama_index.core.tools.tool_spec.base import BaseToolSpec
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.adapters.llamaindex", "llamaindex") from exc

from webrefs import Browser, SafetyPolicy, Tab
from webrefs.tools import ToolOutput as WebOutput
from webrefs.tools import ToolSpec, WebTools

__all__ = ["WebFunctionTool", "WebToolSpec"]


class WebFunctionTool(FunctionTool):
    """A FunctionTool whose output keeps the webrefs artifact as ``raw_output``."""

    def _output(self, out: WebOutput, kwargs: dict[str, Any]) -> ToolOutput:
        blocks: list[Any] = [TextBlock(text=out.content)]
        blocks += [ImageBlock(image=png, image_mimetype="image/png") for png in out.images]
        return ToolOutput(
            blocks=blocks,
            tool_name=self.metadata.get_name(),
            raw_input={"args": (), "kwargs": kwargs},
            raw_output=out.artifact,
            is_error=out.is_error,
        )

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return self._output(self.fn(*args, **kwargs), kwargs)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return self._output(await self.async_fn(*args, **kwargs), kwargs)


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The named arguments, or the one value given positionally (``tool.call("e5")``), which
    the registry matches to the tool's required argument."""
    if not args:
        return kwargs
    return args[0] if len(args) == 1 and not kwargs else args


def _make_tool(
    spec: ToolSpec, webtools: WebTools, metadata: ToolMetadata | None = None
) -> WebFunctionTool:
    name = spec.name

    def run(*args: Any, **kwargs: Any) -> WebOutput:
        return webtools.run(name, _arguments(args, kwargs))

    async def arun(*args: Any, **kwargs: Any) -> WebOutput:
        return await webtools.arun(name, _arguments(args, kwargs))

    run.__name__ = arun.__name__ = name
    run.__doc__ = arun.__doc__ = spec.description
    if metadata is None:
        metadata = ToolMetadata(name=name, description=spec.description,
                                fn_schema=spec.args_model)
    return WebFunctionTool(fn=run, async_fn=arun, metadata=metadata)


class WebToolSpec(BaseToolSpec):
    """Browser tools for LlamaIndex agents, acting on a Browser's active tab (or one Tab).

    Options are those of the LangChain ``WebToolkit``: ``max_tokens``, ``tools`` (where the
    selection starts: ``"default"``, ``"all"``, a group name or an exact list), ``include``
    (tools added), ``exclude``, ``after_action``, ``allow_navigation``, ``vision``;
    ``safety`` is a ``webrefs.SafetyPolicy`` for the browser (default: the one it has).
    """

    def __init__(
        self,
        browser: Browser | None = None,
        *,
        tab: Tab | None = None,
        max_tokens: int = 3000,
        tools: str | Sequence[str] = "default",
        include: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        after_action: Literal["none", "diff", "snapshot"] = "none",
        allow_navigation: bool = True,
        vision: bool = False,
        safety: SafetyPolicy | None = None,
    ) -> None:
        self.webtools = WebTools(
            browser,
            tab=tab,
            safety=safety,
            max_tokens=max_tokens,
            tools=tools if isinstance(tools, str) else tuple(tools),
            include=tuple(include) if include is not None else None,
            exclude=tuple(exclude or ()),
            after_action=after_action,
            allow_navigation=allow_navigation,
            vision=vision,
        )
        self.spec_functions = list(self.webtools.names)

    @classmethod
    def from_tab(cls, tab: Tab, **options: Any) -> WebToolSpec:
        """Tools that always act on ``tab``."""
        return cls(tab=tab, **options)

    def to_tool_list(  # type: ignore[override]
        self,
        spec_functions: Sequence[str] | None = None,
        func_to_metadata_mapping: dict[str, ToolMetadata] | None = None,
    ) -> list[FunctionTool]:
        """One FunctionTool per selected tool (or per name in ``spec_functions``)."""
        names = list(spec_functions or self.spec_functions)
        tools: list[FunctionTool] = []
        for entry in names:
            name = entry if isinstance(entry, str) else entry[0]
            spec = self.webtools.spec(name)
            metadata = (func_to_metadata_mapping or {}).get(name)
            tools.append(_make_tool(spec, self.webtools, metadata))
        return tools

    def system_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                      page_state: bool = True) -> str:
        """The system prompt (``dom`` or ``vision``) with a summary of the current page as it
        is now. An agent keeps its system prompt for the whole run, so pass
        ``page_state=False`` for one: the summary would be wrong after the first navigation."""
        return self.webtools.system_prompt(mode, tool_calling=tool_calling,
                                           page_state=page_state)

    async def asystem_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                             page_state: bool = True) -> str:
        return await self.webtools.asystem_prompt(mode, tool_calling=tool_calling,
                                                  page_state=page_state)
