"""A scripted LangChain chat model, for running a webrefs agent offline (no API key).

It plays a task's reference solution
(:class:`webrefs.evals.baselines.scripted.ScriptedModel`): each turn it
reads the tool messages it was sent, finds the refs it needs in the latest snapshot text, and
answers with an ``AIMessage`` carrying the next tool call, then with the final answer. Use it
in place of a real model in quick starts, examples and tests::

    model = ScriptedChatModel(task=load_demo_task())
    agent = create_agent(model, WebToolkit(browser=browser).get_tools())
"""

from __future__ import annotations

from typing import Any

from webrefs.errors import missing_extra

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.evals.baselines.langchain_scripted", "langchain") from exc

from pydantic import Field, PrivateAttr

from ..suite.tasks import Task
from .offline_model import OfflineChatModel, message_text
from .scripted import ScriptedModel

__all__ = ["ScriptedChatModel", "TextScriptedChatModel"]


class ScriptedChatModel(OfflineChatModel):
    """A chat model that solves ``task`` by its reference solution, one tool call per turn.

    ``seen`` records, per turn, the tool results the model was shown (what a real model
    would have read).
    """

    task: Task
    seen: list[list[str]] = Field(default_factory=list)
    _script: ScriptedModel = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._script = ScriptedModel(self.task)

    @property
    def _llm_type(self) -> str:
        return "webrefs-scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        results = [message_text(m) for m in self.new_tool_results(messages)]
        self.seen.append(results)
        for text in results:
            self._script.observe(text)
        call = self._script.next_call()
        message = (AIMessage(content=self._script.answer()) if call is None
                   else self.tool_call(*call))
        return ChatResult(generations=[ChatGeneration(message=message)])


class TextScriptedChatModel(BaseChatModel):
    """The reference solution written the way a model without tool calling writes it: each
    turn is text with one fenced JSON action (the format in ``webrefs.prompts``), and tool
    results arrive as user turns ("Result of web_snapshot: ..."). Used to prove the
    JSON-in-markdown fallback offline (it has no tool calling: binding tools is refused)."""

    task: Task
    _script: ScriptedModel = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._script = ScriptedModel(self.task)

    @property
    def _llm_type(self) -> str:
        return "webrefs-scripted-text"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        results: list[str] = []
        for message in reversed(messages):
            if isinstance(message, AIMessage):
                break
            text = message_text(message)
            if isinstance(message, HumanMessage) and text.startswith("Result of "):
                results.append(text.split("\n", 1)[-1])
        for text in reversed(results):
            self._script.observe(text)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(
            content=self._script.reply(None)))])
