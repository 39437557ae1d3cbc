"""A scripted LlamaIndex LLM, for running a webrefs agent offline (no API key).

It plays a task's reference solution
(:class:`webrefs.evals.baselines.scripted.ScriptedModel`): each turn it
reads the tool results it was sent, finds the refs it needs in the latest snapshot text, and
answers with the next tool call, then with the final answer. It speaks both ways LlamaIndex
agents talk to a model: native tool calls (``FunctionAgent``) and ReAct text
(``ReActAgent``, ``react=True``)::

    llm = ScriptedLLM(load_demo_task())
    agent = FunctionAgent(tools=WebToolSpec(browser=browser).to_tool_list(), llm=llm)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from webrefs.errors import missing_extra

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.evals.baselines.llamaindex_scripted", "llamaindex") from exc

from pydantic import PrivateAttr

from ..suite.tasks import Task
from .scripted import ScriptedModel

__all__ = ["ScriptedLLM"]

_OBSERVATION = "Observation:"


class ScriptedLLM(MockFunctionCallingLLM):
    """An LLM that solves ``task`` by its reference solution, one tool call per turn.

    ``seen`` records, per turn, the tool results the model was shown.
    """

    _script: ScriptedModel = PrivateAttr()
    _react: bool = PrivateAttr(default=False)
    _calls: int = PrivateAttr(default=0)
    _seen: list[list[str]] = PrivateAttr(default_factory=list)

    def __init__(self, task: Task, *, react: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._script = ScriptedModel(task)
        self._react = react
        self._calls = 0
        self._seen = []
        self.response_generator = self._respond

    @classmethod
    def class_name(cls) -> str:
        return "WebrefsScriptedLLM"

    @property
    def seen(self) -> list[list[str]]:
        return self._seen

    def _new_results(self, messages: Sequence[ChatMessage]) -> list[str]:
        """Tool results sent since the model's last turn, in order."""
        results: list[str] = []
        for message in reversed(messages):
            text = message.content or ""
            if message.role == MessageRole.TOOL:
                results.append(text)
            elif message.role == MessageRole.USER and text.startswith(_OBSERVATION):
                results.append(text[len(_OBSERVATION):].strip())
            elif message.role in (MessageRole.ASSISTANT, MessageRole.USER):
                break
        return results[::-1]

    def _respond(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        results = self._new_results(messages)
        self._seen.append(results)
        for text in results:
            self._script.observe(text)
        call = self._script.next_call()
        if call is None:
            answer = self._script.answer()
            if self._react:
                answer = f"Thought: I can answer without using any more tools.\nAnswer: {answer}"
            return ChatMessage(role=MessageRole.ASSISTANT, content=answer)
        name, args = call
        self._calls += 1
        if self._react:
            text = (f"Thought: I need to use a tool to help me answer the question.\n"
                    f"Action: {name}\nAction Input: {json.dumps(args)}")
            return ChatMessage(role=MessageRole.ASSISTANT, content=text)
        block = ToolCallBlock(tool_call_id=f"call_{self._calls}", tool_name=name, tool_kwargs=args)
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])
