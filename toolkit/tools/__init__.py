"""The tool layer: every webrefs tool defined once, for every adapter.

- :mod:`.specs`: one :class:`ToolSpec` per tool (name, description, argument model, handler);
- :mod:`.args`: the pydantic argument models (the public contract of each tool);
- :mod:`.context`: :class:`ToolOutput` and the :class:`ToolContext` handlers work with;
- :mod:`.registry`: :class:`WebTools`, which selects tools and runs them by name;
- :mod:`.options`: :class:`ToolOptions`;
- :mod:`.fmt`: the text a model reads for results and errors;
- :mod:`.actionparse`: actions written as JSON in a model's text, for models without tool calling.

Handlers use only the public :class:`~webrefs.Tab` / :class:`~webrefs.Browser` coroutines.
"""

from __future__ import annotations

from .context import ToolContext, ToolOutput
from .options import ToolOptions
from .registry import WebTools
from .specs import DEFAULT_TOOLS, NAVIGATION_TOOLS, OPTIONAL_TOOLS, TOOL_SPECS, ToolSpec

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
