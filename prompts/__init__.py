"""webrefs.prompts: every word webrefs says to a model, as package data.

- ``tools.toml``: the description of each tool and of each of its arguments (the single source
  for the LangChain and LlamaIndex adapters); a few tools also have a ``vision_description``
  and an ``after_sentence`` (swapped in when the tools' ``after_action`` shows the page after
  actions).
- ``system_dom.md`` / ``system_vision.md``: system prompt templates (``$tools``, ``$page``;
  the dom one also ``$refs`` and ``$after``).
- ``after_action.toml``: what the dom prompt says of refs and of an action's result, per
  ``after_action`` mode of the tools (``none``, ``diff``, ``snapshot``).
- ``action_format.md``: how a model without native tool calling writes actions (``$tool_list``).
- ``evals.toml``: the tools the eval harness adds (``final_answer``), in the same shape as
  ``tools.toml``, and the line it adds to a tool-calling episode's system prompt.

The files are read once and cached; the functions below return plain strings.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from string import Template
from typing import Any

__all__ = [
    "AFTER_ACTION_MODES",
    "PAGE_STATE_LEFT_OUT",
    "SYSTEM_MODES",
    "action_format",
    "arg_description",
    "eval_finish",
    "eval_tool",
    "render_system_prompt",
    "system_template",
    "tool_description",
    "tool_names",
]

SYSTEM_MODES = ("dom", "vision")
AFTER_ACTION_MODES = ("none", "diff", "snapshot")
"""The ``after_action`` modes :func:`render_system_prompt` words step 3 of the dom prompt for."""

PAGE_STATE_LEFT_OUT = ("Not listed here, because it changes as you work: call web_snapshot "
                       "to see the current page.")
"""The browser state of a system prompt made once, for the whole run."""
"""Modes of :func:`system_template`."""


def _read(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


@cache
def _tools() -> dict[str, Any]:
    return tomllib.loads(_read("tools.toml"))


def tool_names() -> list[str]:
    """Every tool that has words in ``tools.toml``, in file order."""
    return list(_tools())


def _entry(tool: str) -> dict[str, Any]:
    try:
        entry: dict[str, Any] = _tools()[tool]
    except KeyError:
        raise KeyError(f"No description for tool {tool!r} in webrefs/prompts/tools.toml; "
                       f"known: {', '.join(tool_names())}.") from None
    return entry


def tool_description(tool: str, vision: bool = False, after_action: str = "none") -> str:
    """The model-facing description of ``tool``; with ``vision``, the one of its vision mode
    (``vision_description``: it also takes screenshot coordinates) when it has one; else,
    with an ``after_action`` other than ``none`` (each action's result shows the page or its
    changes), with its ``after_sentence`` (the sentence on reading the page again, and the one
    that takes its place) applied when it has one."""
    entry = _entry(tool)
    text = " ".join(str(entry.get("vision_description") if vision else None
                        or entry["description"]).split())
    swap = entry.get("after_sentence")
    if swap and after_action != "none" and not (vision and "vision_description" in entry):
        old, new = (" ".join(str(x).split()) for x in swap)
        if old not in text:
            raise KeyError(f"after_sentence of {tool!r} in tools.toml is not in its description.")
        text = text.replace(old, new)
    return text


def arg_description(tool: str, arg: str) -> str:
    """The model-facing description of argument ``arg`` of ``tool``."""
    args: dict[str, str] = _entry(tool).get("args", {})
    if arg not in args:
        raise KeyError(f"No description for argument {arg!r} of {tool!r} in tools.toml.")
    return " ".join(str(args[arg]).split())


@cache
def system_template(mode: str = "dom") -> Template:
    """The system prompt template of ``mode`` (``dom`` or ``vision``)."""
    if mode not in SYSTEM_MODES:
        raise ValueError(f"Unknown system prompt mode {mode!r}; use one of {SYSTEM_MODES}.")
    return Template(_read(f"system_{mode}.md"))


@cache
def _after_action() -> dict[str, Any]:
    return tomllib.loads(_read("after_action.toml"))


def _step(text: str) -> str:
    """A step's text, its lines after the first indented under the step's number."""
    return "\n   ".join(" ".join(line.split()) for line in text.strip().splitlines())


def render_system_prompt(
    mode: str = "dom",
    *,
    page: str,
    tools: list[str],
    action_format_text: str | None = None,
    after_action: str = "none",
) -> str:
    """Fill a system prompt template. ``action_format_text`` is appended for models without
    native tool calling. ``after_action`` is the tools' mode (:data:`AFTER_ACTION_MODES`):
    what the dom prompt says an action's result shows, and so when to call web_snapshot."""
    if after_action not in AFTER_ACTION_MODES:
        raise ValueError(f"Unknown after_action {after_action!r}; use one of "
                         f"{AFTER_ACTION_MODES}.")
    words = _after_action()[after_action]
    text = system_template(mode).substitute(page=page.strip(), tools=", ".join(tools),
                                            refs=_step(words["refs"]),
                                            after=_step(words["after"]))
    if action_format_text:
        text = text.rstrip() + "\n\n" + action_format_text.strip()
    return text.rstrip() + "\n"


def action_format(tool_list: str) -> str:
    """Instructions for writing actions as JSON in markdown, with ``tool_list`` filled in."""
    return Template(_read("action_format.md")).substitute(tool_list=tool_list.strip())


@cache
def _eval_tools() -> dict[str, Any]:
    return tomllib.loads(_read("evals.toml"))


def eval_finish() -> str:
    """The line the eval harness adds to a tool-calling episode's system prompt: how to end."""
    return " ".join(str(_eval_tools()["system"]["finish"]).split())


def eval_tool(tool: str) -> tuple[str, dict[str, str]]:
    """Description and argument descriptions of a tool the eval harness adds."""
    try:
        entry: dict[str, Any] = _eval_tools()[tool]
    except KeyError:
        raise KeyError(f"No words for eval tool {tool!r} in webrefs/prompts/evals.toml.") from None
    args = {k: " ".join(str(v).split()) for k, v in entry.get("args", {}).items()}
    return " ".join(str(entry["description"]).split()), args
