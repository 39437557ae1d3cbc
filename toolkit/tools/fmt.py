"""The text a model reads back from a tool: short, factual, the same for every adapter.

Pure functions, no browser: action summaries with the optional snapshot or diff, text results,
tab lists, and argument/validation errors that name the argument.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from ..errors import WebrefsError, cap, elide
from ..models import ActionResult, TextResult
from ..quoting import quote
from ..render.answer import answer_text
from ..safety.fence import clean_line

__all__ = [
    "CHANGES",
    "NO_OTHER_CHANGE",
    "PAGE_NOW",
    "TabLine",
    "describe_validation_error",
    "format_action",
    "format_error",
    "format_tabs",
    "format_text",
    "format_validation_error",
    "page_text",
    "tool_list",
]


class TabLine(BaseModel):
    """One open tab, as listed by ``web_tabs`` (also the tool's artifact)."""

    id: str
    url: str
    title: str = ""
    active: bool = False


PAGE_NOW = "\n\nPage now:\n"
"""Comes before the page in an action's result (``after_action`` snapshot, or diff mode on a
new document)."""
CHANGES = "\n\nChanges since the last snapshot:\n"
"""Comes before the page's changes in an action's result (diff mode)."""
NO_OTHER_CHANGE = "Nothing else on the page changed."
"""Ends an action's result in diff mode when the page changed in no way its summary does not
say (the snapshot's changes would be empty)."""


def format_action(
    result: ActionResult, *, snapshot_text: str | None = None, diff: str | None = None,
    unchanged: bool = False,
) -> str:
    """One line of what happened and what the page said in answer (page strings quoted,
    at most 120 tokens: :func:`webrefs.render.answer.answer_text`), then the new snapshot or
    the diff when given, or :data:`NO_OTHER_CHANGE` with ``unchanged``."""
    text = result.summary().strip().replace(".; ", "; ")
    if text and text[-1] not in ".!?":
        text += "."
    said = answer_text(result.answer)
    if said:
        text = f"{text} {said}"
    if snapshot_text is not None:
        return f"{text}{PAGE_NOW}{snapshot_text}"
    if diff is not None:
        return f"{text}{CHANGES}{diff}"
    if unchanged:
        return f"{text} {NO_OTHER_CHANGE}"
    if result.navigated or result.new_tabs:
        return f"{text} Take a snapshot to see the page."
    return text


_HEADER_URL = re.compile(r"^(\[snapshot\]) url=(\S*) ")


def page_text(text: str, summary: str) -> str:
    """A snapshot's text as an action's result shows it after ``summary``: without the
    header's ``url=`` when the summary already names that address (``navigated to ...``)."""
    m = _HEADER_URL.match(text)
    if m is None or not re.search(rf"(?:^|\s){re.escape(m.group(2))}(?:[.;,]?(?:\s|$))",
                                  summary):
        return text
    return f"{m.group(1)} {text[m.end():]}"


def format_text(result: TextResult, fence: Callable[[str], str] | None = None) -> str:
    """Visible text, with a note when it was cut (the text fenced by ``fence``)."""
    where = f"element {result.ref}" if result.ref else f"the page's {result.source} content"
    head = f"Text of {where}"
    if result.truncated:
        head += f" (first {len(result.text)} of {result.total_length} characters)"
    body = result.text if result.text.strip() else "(no visible text)"
    if fence is not None and result.text.strip():
        body = fence(body)
    return f"{head}:\n{body}"


def format_tabs(tabs: Sequence[TabLine], *, note: str = "") -> str:
    """One line per tab: its id, whether it is active, its title (page text: cleaned as
    snapshots clean it, then quoted) and its URL."""
    lines = [note] if note else []
    if not tabs:
        lines.append("No tab is open.")
    for tab in tabs:
        mark = " (active)" if tab.active else ""
        title = clean_line(tab.title, 200)
        shown = quote(title, 200) if title else "(no title)"
        lines.append(f"{tab.id}{mark}: {shown} - {cap(clean_line(tab.url, 2000), 300)}")
    return "\n".join(lines)


MAX_TOOL_NAME_CHARS = 60
"""A tool name longer than this (no real one is) is elided when echoed."""


def _tool_name(tool: object) -> str:
    text = str(tool) if isinstance(tool, str) else repr(tool)
    return cap(text, MAX_TOOL_NAME_CHARS)


def format_error(tool: str, err: WebrefsError) -> str:
    """``[code] message hint`` prefixed with the tool's name (both bounded)."""
    return f"{_tool_name(tool)} failed: {err.for_model()}"


def _loc(loc: Sequence[Any]) -> str:
    text = ".".join(str(part) for part in loc) or "(arguments)"
    return cap(text, 60)


def describe_validation_error(exc: ValidationError) -> str:
    """Each bad argument and what was wrong with it, in one sentence."""
    problems: list[str] = []
    for err in exc.errors():
        name = _loc(err.get("loc", ()))
        kind = err.get("type", "")
        if kind == "missing":
            problems.append(f"argument '{name}' is required")
        elif kind == "extra_forbidden":
            problems.append(f"argument '{name}' is not accepted by this tool")
        else:
            got = err.get("input")
            shown = elide(got, 60)
            msg = cap(str(err.get("msg", "invalid")), 200)
            problems.append(f"argument '{name}': {msg} (got {shown})")
    more = len(problems) - 5
    listed = problems[:5] + ([f"{more} more problem(s)"] if more > 0 else [])
    return "Invalid arguments: " + "; ".join(listed) + "."


def format_validation_error(tool: str, exc: ValidationError) -> str:
    """The tool message for arguments that do not fit the tool's schema."""
    return f"{_tool_name(tool)} failed: [invalid_argument] {describe_validation_error(exc)}"


class _Described(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    def json_schema(self) -> dict[str, Any]: ...


def _type_of(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "|".join(repr(v) for v in prop["enum"])
    if "anyOf" in prop:
        kinds = [_type_of(p) for p in prop["anyOf"]]
        return " | ".join(k for k in kinds if k)
    kind = str(prop.get("type", "any"))
    if kind == "array":
        return f"list[{_type_of(prop.get('items', {}))}]"
    return {"string": "str", "integer": "int", "boolean": "bool", "null": "None"}.get(kind, kind)


def tool_list(specs: Sequence[_Described]) -> str:
    """``- name(arg: type = default, ...): description`` for each tool, for text prompts."""
    lines = []
    for spec in specs:
        schema = spec.json_schema()
        required = set(schema.get("required", []))
        args = []
        for arg, prop in schema.get("properties", {}).items():
            item = f"{arg}: {_type_of(prop)}"
            if arg not in required:
                item += f" = {json.dumps(prop.get('default'))}"
            args.append(item)
        lines.append(f"- {spec.name}({', '.join(args)}): {spec.description}")
    return "\n".join(lines)
