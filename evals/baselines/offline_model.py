"""The shell every offline chat model of the harness shares (the heuristic, the scripted
reference, the MiniWoB policies): a LangChain chat model that needs no key and answers each
turn with one tool call or with text.

Subclasses write only ``_generate``; this gives them what each would otherwise repeat:
``bind_tools`` that changes nothing (they know their tools), tool-call messages with ids
``call_1``, ``call_2``... in turn order, the goal, the tool results sent since their last
turn, and the text of a message.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, Self

from webrefs.errors import missing_extra

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_core.tools import BaseTool
except ImportError as exc:  # pragma: no cover - the evals extra pulls in langchain-core
    raise missing_extra("webrefs.evals.baselines.offline_model", "langchain") from exc

from pydantic import ConfigDict, PrivateAttr

__all__ = ["OfflineChatModel", "content_text", "message_text"]


def content_text(content: Any) -> str:
    """The text of a message's content (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p)
                         for p in content)
    return str(content)


def message_text(message: BaseMessage) -> str:
    """The text of a message (a string, or a list of text parts)."""
    return content_text(message.content)


class OfflineChatModel(BaseChatModel):
    """Base of the harness's offline chat models (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    _ids: Any = PrivateAttr(default_factory=lambda: itertools.count(1))

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool], **kwargs: Any
    ) -> Self:
        """The model knows its tools; binding changes nothing."""
        return self

    def tool_call(self, name: str, args: dict[str, Any]) -> AIMessage:
        """An assistant turn calling ``name`` with ``args`` (the next call id)."""
        return AIMessage(content="", tool_calls=[{
            "name": name, "args": args, "id": f"call_{next(self._ids)}", "type": "tool_call"}])

    @staticmethod
    def goal_of(messages: Sequence[BaseMessage]) -> str:
        """The goal: the text of the first user message ('' when there is none)."""
        return next((message_text(m) for m in messages if isinstance(m, HumanMessage)), "")

    @staticmethod
    def new_tool_results(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
        """Tool results sent since the model's last turn, oldest first."""
        results: list[ToolMessage] = []
        for message in reversed(messages):
            if isinstance(message, ToolMessage):
                results.append(message)
            elif isinstance(message, AIMessage):
                break
        return results[::-1]
