"""Actions written as JSON in a model's text reply, for models without native tool calling.

The format (taught by ``webrefs.prompts.action_format``) is a fenced ```json block holding
``{"tool": "web_click", "args": {"ref": "e5"}}`` or a list of such objects. The parser is
tolerant of what models actually write:

- several fenced blocks, with or without the ``json`` tag, or a bare object / list in the text;
- ``name`` / ``action`` / ``function`` for ``tool``, and ``arguments`` / ``parameters`` /
  ``input`` for ``args`` (also as a JSON string), or the arguments inline next to ``tool``;
- OpenAI's ``{"function": {"name": ..., "arguments": "..."}}`` and ``{"actions": [...]}``;
- trailing commas.

Nothing parseable raises :class:`~webrefs.errors.InvalidArgumentError` with the expected format.
Pure code: no browser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError

__all__ = ["ParsedAction", "has_action", "parse_actions"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_NAME_KEYS = ("tool", "name", "action", "tool_name", "function")
_ARGS_KEYS = ("args", "arguments", "parameters", "params", "input", "tool_input", "kwargs")
_EXAMPLE = '```json\n{"tool": "web_click", "args": {"ref": "e5"}}\n```'


@dataclass(frozen=True)
class ParsedAction:
    """One tool call read from text."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", text))


def _bare_json(text: str) -> list[Any]:
    """Every top-level JSON object or list found in free text, in order."""
    found: list[Any] = []
    decoder = json.JSONDecoder()
    cleaned = _TRAILING_COMMA.sub(r"\1", text)
    i = 0
    while i < len(cleaned):
        if cleaned[i] in "{[":
            try:
                value, end = decoder.raw_decode(cleaned, i)
            except json.JSONDecodeError:
                i += 1
                continue
            found.append(value)
            i = end
        else:
            i += 1
    return found


def _as_args(raw: Any, tool: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}
        try:
            raw = _loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidArgumentError(
                f"The arguments of {tool} are not valid JSON: {exc.msg} at position {exc.pos}."
            ) from None
    if not isinstance(raw, dict):
        raise InvalidArgumentError(
            f"The arguments of {tool} must be a JSON object, got {type(raw).__name__}."
        )
    return dict(raw)


def _action(obj: Any) -> list[ParsedAction]:
    """One JSON value -> zero or more actions."""
    if isinstance(obj, list):
        return [a for item in obj for a in _action(item)]
    if not isinstance(obj, dict):
        return []
    if isinstance(obj.get("actions"), list):
        return _action(obj["actions"])
    if isinstance(obj.get("tool_calls"), list):
        return _action(obj["tool_calls"])
    fn = obj.get("function")
    if isinstance(fn, dict) and "name" in fn:
        return _action(fn)
    name_key = next((k for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name_key is None:
        return []
    tool = str(obj[name_key]).strip()
    args_key = next((k for k in _ARGS_KEYS if k in obj), None)
    if args_key is not None:
        args = _as_args(obj[args_key], tool)
    else:
        args = {k: v for k, v in obj.items() if k != name_key and k not in ("id", "type")}
    return [ParsedAction(tool=tool, args=args)]


def _candidates(text: str) -> tuple[list[Any], list[str]]:
    """Parsed JSON values (fenced blocks first, else bare JSON) and parse errors seen."""
    values: list[Any] = []
    errors: list[str] = []
    for match in _FENCE.finditer(text):
        lang, body = match.group(1).lower(), match.group(2).strip()
        if lang not in ("", "json", "json5", "javascript", "js") or not body:
            continue
        try:
            values.append(_loads(body))
        except json.JSONDecodeError as exc:
            errors.append(f"a ```{lang or ''} block is not valid JSON ({exc.msg}, line "
                          f"{exc.lineno} column {exc.colno})")
            values.extend(_bare_json(body))
    if not values:
        values = _bare_json(text)
    return values, errors


def parse_actions(text: str, known: Collection[str] | None = None) -> list[ParsedAction]:
    """Every action in ``text``, in order. ``known`` (tool names) rejects unknown tools.

    Raises :class:`InvalidArgumentError` when no action can be read, naming the expected format.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(
            f"Expected the model's reply as text, got {type(text).__name__}."
        )
    values, errors = _candidates(text)
    actions = [a for value in values for a in _action(value)]
    if not actions:
        why = f" ({'; '.join(errors)})" if errors else ""
        raise InvalidArgumentError(
            f"No action could be read from the reply{why}.",
            hint=f"Write one JSON object in a fenced block, for example:\n{_EXAMPLE}",
        )
    if known is not None:
        for action in actions:
            if action.tool not in known:
                raise InvalidArgumentError(
                    f"Unknown tool {action.tool!r} in the reply.",
                    hint=f"Available tools: {', '.join(sorted(known))}.",
                )
    return actions


def has_action(text: str) -> bool:
    """Whether ``text`` holds at least one action (a plain-text reply is a final answer)."""
    try:
        parse_actions(text)
    except InvalidArgumentError:
        return False
    return True
