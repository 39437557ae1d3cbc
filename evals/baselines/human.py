"""A person in the model's seat: the ``human`` provider.

:class:`HumanChatModel` shows on a terminal exactly what a model would read (the system prompt
and the tools once, then the goal and each tool result, as sent) and takes the next action
typed as a tool call:

- ``web_click e5``, ``web_fill e3 "some text"``: the tool's name, then its arguments in the
  order of its parameters (quoted as in a shell); ``name=value`` gives one by name;
- ``{"name": "web_click", "arguments": {"ref": "e5"}}``: the call as JSON;
- ``final_answer "the answer"`` ends the episode with that answer; ``stop`` (or the end of
  the input) ends it with none.

Input that is not a call of a known tool gets a one-line error and the prompt again; after
:data:`MAX_TRIES` bad lines in a row the episode stops. The episode is recorded and scored
like any other; its provider is marked ``human`` in the results and the reports.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any, Self

from webrefs.errors import missing_extra

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as exc:  # pragma: no cover - the evals extra pulls in langchain-core
    raise missing_extra("webrefs.evals.baselines.human", "langchain") from exc

from pydantic import PrivateAttr

from .offline_model import OfflineChatModel, message_text

__all__ = ["MAX_TRIES", "HumanChatModel", "parse_action"]

MAX_TRIES = 20
"""Bad lines in a row before the episode stops."""
STOP = "stop"


class ActionSyntaxError(ValueError):
    """A typed line that is not a call of a known tool (the message says why)."""


def parse_action(line: str, tools: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """``(tool name, arguments)`` of a typed line; ``tools`` maps each tool's name to its
    JSON Schema of parameters. Raises :class:`ActionSyntaxError` saying what is wrong."""
    line = line.strip()
    args: dict[str, Any] = {}
    if not line:
        raise ActionSyntaxError("empty line: type a tool call, final_answer \"...\" or stop")
    if line.startswith("{"):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ActionSyntaxError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ActionSyntaxError('JSON needs {"name": TOOL, "arguments": {...}}')
        given = data.get("arguments", data.get("args", {}))
        if not isinstance(given, dict):
            raise ActionSyntaxError('"arguments" must be an object')
        args, name = given, data["name"]
    else:
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise ActionSyntaxError(f"cannot read the line ({exc})") from None
        name, rest = words[0], words[1:]
        if name in tools:
            order = list(tools[name].get("properties", {}))
            for i, word in enumerate(rest):
                key, eq, value = word.partition("=")
                if eq and key in order:
                    args[key] = value
                elif i < len(order):
                    args[order[i]] = word
                else:
                    raise ActionSyntaxError(
                        f"{name} takes at most {len(order)} arguments "
                        f"({', '.join(order) or 'none'}), got {len(rest)}")
    if name not in tools:
        known = ", ".join(sorted(tools))
        raise ActionSyntaxError(f"unknown tool {name!r}; the tools are: {known}")
    schema = tools[name]
    props: dict[str, Any] = schema.get("properties", {})
    missing = [p for p in schema.get("required", []) if p not in args]
    if missing:
        raise ActionSyntaxError(f"{name} needs {', '.join(missing)} "
                                f"(its arguments, in order: {', '.join(props) or 'none'})")
    unknown = [k for k in args if k not in props]
    if unknown:
        raise ActionSyntaxError(f"{name} has no argument {unknown[0]!r} "
                                f"(it takes: {', '.join(props) or 'none'})")
    return name, {k: _typed(v, props[k]) for k, v in args.items()}


def _typed(value: Any, schema: dict[str, Any]) -> Any:
    """A typed word as the parameter's JSON type (numbers and booleans; text stays text)."""
    if not isinstance(value, str):
        return value
    kinds = {schema.get("type")} | {s.get("type") for s in schema.get("anyOf", [])}
    if kinds & {"integer", "number", "boolean", "array", "object"}:
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


class HumanChatModel(OfflineChatModel):
    """Plays the model from a terminal (see the module docstring). ``read`` gives the next
    typed line (``None`` at the end of the input), ``out`` is where the model's view is
    written; both default to the process's standard streams."""

    read: Callable[[], str | None] | None = None
    out: Any = None
    """A text stream (``None``: standard output)."""

    _tools: dict[str, dict[str, Any]] = PrivateAttr(default_factory=dict)
    _tool_text: list[str] = PrivateAttr(default_factory=list)
    _shown: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "webrefs-human"

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool], **kwargs: Any
    ) -> Self:
        """Keeps the tools as the model would get them, to show them and check calls."""
        for tool in tools:
            spec = convert_to_openai_tool(tool)["function"]
            self._tools[spec["name"]] = spec.get("parameters", {})
            self._tool_text.append(json.dumps(spec, ensure_ascii=False))
        return self

    def _write(self, text: str) -> None:
        stream = self.out or sys.stdout
        stream.write(text)
        stream.flush()

    def _line(self) -> str | None:
        self._write("action> ")
        if self.read is not None:
            return self.read()
        line = sys.stdin.readline()
        if line and not sys.stdin.isatty():
            self._write(line if line.endswith("\n") else line + "\n")  # piped: show it
        return line if line else None

    def _show(self, messages: Sequence[BaseMessage]) -> None:
        for message in messages[self._shown:]:
            if isinstance(message, SystemMessage):
                self._write(f"=== system prompt ===\n{message_text(message)}\n")
                if self._tool_text:
                    self._write("=== tools ===\n" + "\n".join(self._tool_text) + "\n")
            elif isinstance(message, ToolMessage):
                self._write(f"=== tool result ({message.name}) ===\n{message_text(message)}\n")
            elif isinstance(message, AIMessage):
                continue  # the person's own calls
            else:
                self._write(f"=== user ===\n{message_text(message)}\n")
        self._shown = len(messages)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._show(messages)
        for _ in range(MAX_TRIES):
            line = self._line()
            if line is None or line.strip() == STOP:
                return ChatResult(generations=[ChatGeneration(
                    message=AIMessage(content="(stopped by the person at the terminal)"))])
            try:
                name, args = parse_action(line, self._tools)
            except ActionSyntaxError as err:
                self._write(f"error: {err}\n")
                continue
            return ChatResult(generations=[ChatGeneration(message=self.tool_call(name, args))])
        self._write(f"error: {MAX_TRIES} lines in a row were not actions; stopping\n")
        return ChatResult(generations=[ChatGeneration(
            message=AIMessage(content="(stopped: no action was given)"))])
