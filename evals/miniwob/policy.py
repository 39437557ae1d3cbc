"""Reference policies for MiniWoB++ and the chat model that plays them.

A policy is a generator function of the goal (the task's utterance): it yields tool calls
``(tool, args)`` and is sent back the text each call returned, which it reads with
:func:`~.outline.parse`; what it returns is the final answer. It sees the page only through
the tools, like any model, and names targets by role and name (or by position among them,
when the page gives no names). A policy that cannot go on raises
:class:`~webrefs.evals.baselines.scripted.ScriptError`, which the harness reports as the reference's
failure, naming the step.

:class:`PolicyChatModel` plays a policy as a LangChain chat model (native tool calls, or the
JSON-in-markdown text actions); :func:`~.reference.reference_model` is the factory a
suite's ``{"policy": "webrefs.evals.miniwob.reference:reference_model"}`` names.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Generator
from typing import Any

from webrefs.errors import missing_extra

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
except ImportError as exc:  # pragma: no cover - the evals extra is installed with miniwob
    raise missing_extra("webrefs.evals.miniwob.policy", "langchain") from exc

from pydantic import PrivateAttr

from ..baselines.offline_model import OfflineChatModel, message_text
from ..baselines.scripted import ScriptError
from .outline import Item, Outline, parse

__all__ = [
    "Call",
    "Driver",
    "Play",
    "Policy",
    "PolicyChatModel",
    "Result",
    "act",
    "click",
    "fill",
    "look",
    "page_text",
    "read",
    "stuck",
]

Call = tuple[str, dict[str, Any]]
Play = Generator[Call, str, str | None]
"""What a policy is: yields calls, is sent their results, returns the answer (or None)."""
Policy = Callable[[str], Play]


class Result(str):
    """A tool's result as a policy is sent it: its text, and the PNG images that came with it
    (a screenshot's), decoded."""

    images: tuple[bytes, ...] = ()


def _with_images(text: str, content: Any) -> str:
    images = tuple(base64.b64decode(b["base64"]) for b in content
                   if isinstance(b, dict) and b.get("type") == "image" and "base64" in b) \
        if isinstance(content, list) else ()
    if not images:
        return text
    out = Result(text)
    out.images = images
    return out


def stuck(why: str) -> ScriptError:
    """The error a policy raises when the page does not show what it needs."""
    return ScriptError(why, hint="The page may differ from what the policy expects.")


def act(tool: str, **args: Any) -> Generator[Call, str, str]:
    """One call; gives back its result."""
    return (yield (tool, {k: v for k, v in args.items() if v is not None}))


def look(full: bool = False, scope: str | None = None) -> Generator[Call, str, Outline]:
    """A snapshot (``full``: text and headings too), parsed."""
    text = yield ("web_snapshot", {"interactive_only": not full,
                                   **({"scope": scope} if scope else {})})
    return parse(text)


def click(item: Item | None, what: str = "element") -> Generator[Call, str, str]:
    if item is None or item.ref is None:
        raise stuck(f"the page shows no {what} to click")
    return (yield ("web_click", {"ref": item.ref}))


def fill(item: Item | None, value: str, what: str = "text field") -> Generator[Call, str, str]:
    if item is None or item.ref is None:
        raise stuck(f"the page shows no {what} to fill")
    return (yield ("web_fill", {"ref": item.ref, "value": value}))


def page_text(result: str) -> str:
    """The text of a ``web_get_text`` result: without its header line and the markers that
    fence page content."""
    lines = result.splitlines()
    if lines and lines[0].startswith("Text of "):
        lines = lines[1:]
    return "\n".join(line for line in lines
                     if not (line.startswith("<<<") and line.endswith(">>>"))).strip()


def read(item: Item | None = None, max_length: int = 4000) -> Generator[Call, str, str]:
    """``web_get_text`` of an item (the page's main content without one): the text only."""
    args: dict[str, Any] = {"max_length": max_length}
    if item is not None and item.ref is not None:
        args["ref"] = item.ref
    return page_text((yield ("web_get_text", args)))


class Driver:
    """Steps a policy: ``next_call(result)`` gives the next call or ``None`` when done."""

    def __init__(self, policy: Policy, goal: str) -> None:
        self._play = policy(goal)
        self._started = False
        self.finished = False
        self.answer = "Done."

    def next_call(self, result: str | None) -> Call | None:
        if self.finished:
            return None
        try:
            if not self._started:
                self._started = True
                return next(self._play)
            return self._play.send(result or "")
        except StopIteration as stop:
            self.finished = True
            if stop.value:
                self.answer = str(stop.value)
            return None


class PolicyChatModel(OfflineChatModel):
    """A policy as a chat model: one tool call per turn, then the answer."""

    policy: Policy
    text_actions: bool = False
    _driver: Driver | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "webrefs-miniwob-reference"

    def _result(self, messages: list[BaseMessage]) -> str | None:
        """The newest tool result (a tool message, or a "Result of" turn in text mode)."""
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            return _with_images(message_text(last), last.content)
        if isinstance(last, HumanMessage) and message_text(last).startswith("Result of "):
            return message_text(last).split("\n", 1)[-1]
        return None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._driver is None:
            goal = self.goal_of(messages)
            self._driver = Driver(self.policy, goal)
        call = self._driver.next_call(self._result(messages))
        if call is None:
            message = AIMessage(content=self._driver.answer)
        elif self.text_actions:
            body = json.dumps({"tool": call[0], "args": call[1]})
            message = AIMessage(content=f"Next I call {call[0]}.\n```json\n{body}\n```")
        else:
            message = self.tool_call(*call)
        return ChatResult(generations=[ChatGeneration(message=message)])
