"""The chat model an episode talks to: a provider's model with the harness's duties around it.

:class:`EpisodeModel` wraps any LangChain chat model and adds, per call:

- **recorded calls**: the call runs inside the task's cassette (record or replay), with model
  calls of the process serialized while one is in use (:mod:`.recording`);
- **bounded retries**: rate limits, overload, timeouts and connection errors are retried a
  bounded number of times, then raised as :class:`ProviderError` (the episode is an
  ``error``, not a failure). Between tries the harness waits what the provider's answer asks
  (``retry-after-ms``, or ``retry-after`` in seconds; at most :data:`MAX_RETRY_AFTER_S`),
  else an exponential backoff;
- **the JSON-in-markdown fallback** for models without tool calling: the conversation is
  rewritten as plain text (tool results become user turns), the action format from
  ``webrefs.prompts`` is in the system prompt, and the model's fenced JSON actions are parsed
  (:mod:`webrefs.tools.actionparse`) into tool calls for the agent loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from webrefs.errors import WebrefsError, missing_extra
from webrefs.tools.actionparse import has_action, parse_actions

from ..baselines.offline_model import content_text
from ..suite.redact import redact_urls
from .recording import CassetteMode, ReplayMiss, cassette, divergence, model_io_lock

try:
    from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
except ImportError as exc:  # pragma: no cover - the evals extra pulls in langchain-core
    raise missing_extra("webrefs.evals.models.providermodel", "langchain") from exc

from pydantic import ConfigDict, Field

__all__ = ["MAX_RETRY_AFTER_S", "EpisodeModel", "ProviderError", "is_transient", "retry_after"]

_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
_TRANSIENT_NAMES = ("RateLimit", "Timeout", "APIConnectionError", "ServiceUnavailable",
                    "Overloaded", "InternalServerError", "ConnectError", "ReadTimeout",
                    "RemoteProtocolError", "ResourceExhausted")


class ProviderError(WebrefsError):
    """The provider kept failing (rate limit, overload, timeout) or failed outright."""

    code = "provider_error"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _replay_miss(exc: BaseException) -> bool:
    return any(type(e).__name__ == "CannotOverwriteExistingCassetteException"
               for e in _chain(exc))


MAX_RETRY_AFTER_S = 60.0
"""Longest wait a provider's ``retry-after`` is taken at (a longer one is waited this long)."""


def retry_after(exc: BaseException) -> float | None:
    """The wait in seconds the provider's answer asked for (its ``retry-after-ms`` header,
    else a ``retry-after`` given in seconds), at most :data:`MAX_RETRY_AFTER_S`; ``None`` when
    it asked none (or gave a date)."""
    for e in _chain(exc):
        headers = getattr(getattr(e, "response", None), "headers", None)
        if headers is None or not hasattr(headers, "get"):
            continue
        for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
            raw = headers.get(name)
            try:
                wait = float(str(raw).strip()) / scale
            except ValueError:
                continue
            if not math.isnan(wait) and wait >= 0:
                return min(wait, MAX_RETRY_AFTER_S)
    return None


def is_transient(exc: BaseException) -> bool:
    """Whether an error is worth retrying: rate limits, overload, timeouts, lost connections."""
    for e in _chain(exc):
        status = getattr(e, "status_code", None) or getattr(e, "status", None)
        if isinstance(status, int) and status in _TRANSIENT_STATUS:
            return True
        if isinstance(e, TimeoutError | ConnectionError):
            return True
        if any(part in type(e).__name__ for part in _TRANSIENT_NAMES):
            return True
    return False


def as_text_conversation(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The conversation for a model without tool calling: its own actions as the text it
    wrote, tool results as user turns."""
    out: list[BaseMessage] = []
    for m in messages:
        if isinstance(m, ToolMessage):
            out.append(HumanMessage(content=f"Result of {m.name}:\n{content_text(m.content)}"))
        elif isinstance(m, AIMessage):
            out.append(AIMessage(content=content_text(m.content)))
        else:
            out.append(m)
    return out


def parse_text_reply(reply: AIMessage, tools: Sequence[str], turn: int) -> AIMessage:
    """The model's text with its fenced JSON actions as tool calls (none: a final answer)."""
    text = content_text(reply.content)
    if not has_action(text):
        return AIMessage(content=text, usage_metadata=reply.usage_metadata)  # the answer
    try:
        actions = parse_actions(text, known=list(tools)) if tools else []
    except WebrefsError as err:
        # An unparsable action is the model's mistake: show it the error as a tool result.
        return AIMessage(content=text, tool_calls=[{
            "name": "final_answer" if "final_answer" in tools else tools[0],
            "args": {"answer": f"(invalid action: {err.message})"},
            "id": f"text_{turn}_0", "type": "tool_call"}],
            usage_metadata=reply.usage_metadata)
    calls = [{"name": a.tool, "args": dict(a.args), "id": f"text_{turn}_{i}",
              "type": "tool_call"} for i, a in enumerate(actions)]
    return AIMessage(content=text, tool_calls=calls, usage_metadata=reply.usage_metadata)


class EpisodeModel(BaseChatModel):
    """A provider's chat model inside one episode (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Any
    """The provider's chat model (after ``bind_tools`` when it calls tools natively)."""
    text_actions: bool = False
    """Use the JSON-in-markdown fallback instead of native tool calling."""
    tool_names: list[str] = Field(default_factory=list)
    cassette_path: Path | None = None
    cassette_mode: CassetteMode | None = None
    retries: int = 3
    backoff_s: float = 1.0

    @property
    def _llm_type(self) -> str:
        return "webrefs-episode"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> EpisodeModel:
        names = [str(getattr(t, "name", None) or getattr(t, "__name__", "")) for t in tools]
        if self.text_actions:
            return self.model_copy(update={"tool_names": names})
        return self.model_copy(update={"inner": self.inner.bind_tools(tools, **kwargs),
                                       "tool_names": names})

    @contextlib.contextmanager
    def _recorded(self) -> Iterator[None]:
        if self.cassette_path is None or self.cassette_mode is None:
            yield
            return
        with cassette(self.cassette_path, self.cassette_mode):
            yield

    def _diverged(self, messages: list[BaseMessage]) -> ReplayMiss:
        """The replay miss of this request: the step whose observation first differs from
        the recording, with the differing lines (see :func:`.recording.divergence`)."""
        turn = sum(isinstance(m, AIMessage) for m in messages) + 1
        shown = [content_text(m.content) for m in messages if not isinstance(m, AIMessage)]
        told = divergence(self.cassette_path, turn, shown) if self.cassette_path else None
        name = self.cassette_path.name if self.cassette_path else "the cassette"
        return ReplayMiss(
            told or f"Model request {turn} has no recording in {name}.",
            hint="The prompt changed since the recording (another webrefs version, options, "
                 "or pages); record this provider again.",
        )

    async def _call(self, messages: list[BaseMessage], stop: list[str] | None) -> AIMessage:
        sent = as_text_conversation(messages) if self.text_actions else messages
        attempt = 0
        while True:
            try:
                if self.cassette_path is not None:
                    async with model_io_lock():
                        with self._recorded():
                            reply = await self.inner.ainvoke(sent, stop=stop)
                else:
                    reply = await self.inner.ainvoke(sent, stop=stop)
                break
            except ReplayMiss:
                raise self._diverged(messages) from None
            except WebrefsError:  # ours (a script error): not the provider's
                raise
            except Exception as exc:
                if _replay_miss(exc):
                    raise self._diverged(messages) from None
                if not is_transient(exc) or attempt >= self.retries:
                    tries = f" after {attempt + 1} tries" if attempt else ""
                    raise ProviderError(
                        f"The provider failed{tries}: {type(exc).__name__}: "
                        f"{redact_urls(' '.join(str(exc).split()))[:300]}",
                        hint="Check the provider's key, quota and status; run again later.",
                    ) from None
                asked = retry_after(exc)
                await asyncio.sleep(asked if asked is not None else self.backoff_s * (2 ** attempt))
                attempt += 1
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=content_text(getattr(reply, "content", reply)))
        if self.text_actions:
            turn = sum(isinstance(m, AIMessage) for m in messages) + 1
            return parse_text_reply(reply, self.tool_names, turn)
        return reply

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=await self._call(messages, stop))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = asyncio.run(self._call(messages, stop))
        return ChatResult(generations=[ChatGeneration(message=message)])


def describe_call(message: AIMessage) -> str:
    """One line for logs: the tool calls of a reply."""
    return ", ".join(f"{c['name']}({json.dumps(c['args'])})" for c in message.tool_calls)
