"""The tool layer: every webrefs tool defined once, for every adapter.

- :mod:`.specs`: one :class:`ToolSpec` per tool (name, description, argument model, handler);
- :mod:`.args`: the pydantic argument models (the public contract of each tool);
- :mod:`.context`: :class:`ToolOutput` and the :class:`ToolContext` handlers work with;
- :mod:`.registry`: :class:`WebTools`, which selects tools and runs them by name;

Which tools are offered: ``tools`` is where the selection starts (``"default"``: core and
navigation; ``"all"``; a group name; or an exact list), ``include`` adds tools, ``exclude``
removes them, ``vision=True`` adds the screenshot (and points of it as targets of
``web_click``, ``web_hover`` and ``web_drag``), ``allow_navigation=False`` drops
navigation. The groups (``TOOL_GROUPS``): ``core`` (snapshot, click, fill, select, check,
scroll, press key, get text), ``navigation`` (navigate, go back), ``optional`` (hover, wait
for, upload, tabs, screenshot), ``vision`` (screenshot), ``default`` and ``all``. Any name
list may use a group name for its tools::

    WebTools(browser, include=["web_hover"])             # the defaults plus hover
    WebTools(browser, tools=["web_snapshot", "web_click"])   # exactly these two
    WebTools(browser, tools="all", exclude=["navigation"])
- :mod:`.options`: :class:`ToolOptions`;
- :mod:`.fmt`: the text a model reads for results and errors;
- :mod:`.actionparse`: actions written as JSON in a model's text, for models without tool calling.
- :mod:`.outputs`: the structured result of each tool as JSON, and its schema (MCP's
  ``structuredContent`` and ``outputSchema``).
- :mod:`.capabilities`: what each provider family's chat API accepts (tool calls, images,
  images in tool results), for adapters and the eval harness.
- :mod:`.placement`: where a tool result's images go for one model (kept, moved after the tool
  results, left out), and the notes the model reads; each adapter applies it to its messages.

Handlers use only the public :class:`~webrefs.Tab` / :class:`~webrefs.Browser` coroutines.
"""

from __future__ import annotations

from .capabilities import Capabilities, capabilities
from .context import ToolContext, ToolOutput
from .options import ToolOptions
from .registry import WebTools, select_tools
from .specs import (
    ALL_TOOLS,
    CORE_TOOLS,
    DEFAULT_TOOLS,
    NAVIGATION_TOOLS,
    OPTIONAL_TOOLS,
    TOOL_GROUPS,
    TOOL_HINTS,
    TOOL_SPECS,
    ToolHints,
    ToolSpec,
)

__all__ = [
    "ALL_TOOLS",
    "CORE_TOOLS",
    "DEFAULT_TOOLS",
    "NAVIGATION_TOOLS",
    "OPTIONAL_TOOLS",
    "TOOL_GROUPS",
    "TOOL_HINTS",
    "TOOL_SPECS",
    "Capabilities",
    "ToolContext",
    "ToolHints",
    "ToolOptions",
    "ToolOutput",
    "ToolSpec",
    "WebTools",
    "capabilities",
    "select_tools",
]
