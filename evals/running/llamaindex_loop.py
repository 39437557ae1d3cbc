"""The LlamaIndex agent loop of an episode: the LlamaIndex adapter (``WebToolSpec``) in a
``FunctionAgent`` with the same system prompt, tools and ``final_answer`` tool as the
LangChain loop, so evals exercise both adapters.

A provider of kind ``llamaindex`` makes a LlamaIndex function-calling LLM per task. Recorded
model calls work as for LangChain providers, with one difference: LlamaIndex's client is not
wrapped call by call, so the episode's whole loop runs inside its cassette, and such episodes
run one at a time while cassettes are in use. Retries are the client's own (``max_retries``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from webrefs import Browser
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.errors import missing_extra
from webrefs.prompts import eval_finish, eval_tool
from webrefs.render.tokens import count_tokens

from ..models.providers import Provider
from ..models.recording import CassetteMode, cassette, model_io_lock
from ..reports.results import Status, ToolCall
from ..suite.tasks import Task
from .loop import EpisodeOptions, LoopResult, classify_error

try:
    from llama_index.core.agent.workflow import AgentOutput, FunctionAgent, ToolCallResult
    from llama_index.core.tools import FunctionTool
except ImportError as exc:  # pragma: no cover - the llamaindex extra
    raise missing_extra("webrefs.evals.running.llamaindex_loop", "llamaindex") from exc

__all__ = ["llamaindex_loop"]

MAX_OUTPUT_CHARS = 20_000


def _final_answer_tool() -> FunctionTool:
    description, args = eval_tool("final_answer")

    async def final_answer(answer: str) -> str:
        return answer

    final_answer.__doc__ = f"{description}\n\nanswer: {args['answer']}"
    return FunctionTool.from_defaults(async_fn=final_answer, name="final_answer",
                                      description=description, return_direct=True)


def _usage(raw: Any) -> tuple[int, int] | None:
    """Prompt and completion tokens a provider reported in a raw response, if any."""
    usage = raw.get("usage") if isinstance(raw, dict) else getattr(raw, "usage", None)
    if usage is None:
        return None
    get = usage.get if isinstance(usage, dict) else (lambda k, d=None: getattr(usage, k, d))
    prompt, completion = get("prompt_tokens", None), get("completion_tokens", None)
    if prompt is None or completion is None:
        return None
    return int(prompt), int(completion)


async def llamaindex_loop(ctx: Browser, task: Task, provider: Provider,
                          options: EpisodeOptions,
                          calls: Path | None, calls_mode: CassetteMode | None, *,
                          start: Callable[[], Awaitable[Task]] | None = None) -> LoopResult:
    """Run the task in a ``FunctionAgent``; see the module docstring. ``start`` (the task's
    setup) runs once the agent is built and gives the task with its goal."""
    spec = WebToolSpec(browser=ctx, max_tokens=options.max_tokens,
                       after_action=options.after_action,
                       tools=list(options.include) if options.include is not None else "default",
                       include=list(task.tools) or None)
    system = f"{await spec.asystem_prompt()}\n\n{eval_finish()}"
    llm = provider.make_model(task)
    agent = FunctionAgent(tools=[*spec.to_tool_list(), _final_answer_tool()], llm=llm,
                          system_prompt=system, streaming=False)
    max_steps = options.max_steps or task.max_steps
    if start is not None:
        task = await start()
    steps: list[ToolCall] = []
    answer = ""
    usage: list[tuple[int, int] | None] = []
    status: Status = "failure"
    reason = ""

    async def drive() -> None:
        nonlocal answer
        handler = agent.run(user_msg=task.goal, max_iterations=max_steps + 1)
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                output = str(event.tool_output.content)
                if event.tool_name == "final_answer":
                    answer = str(event.tool_kwargs.get("answer", output))
                    continue
                error = None
                if event.tool_output.is_error:
                    error = output.split("]", 1)[0].split("[")[-1] if "[" in output else "error"
                steps.append(ToolCall(tool=event.tool_name, args=dict(event.tool_kwargs),
                                      output=output[:MAX_OUTPUT_CHARS], error=error,
                                      tokens=count_tokens(output)))
            elif isinstance(event, AgentOutput):
                usage.append(_usage(event.raw))
                text = event.response.content or ""
                if text and not event.tool_calls:
                    answer = text
        await handler

    recorded = calls is not None and calls_mode is not None
    try:
        if recorded:
            assert calls is not None and calls_mode is not None
            async with model_io_lock():
                with cassette(calls, calls_mode):
                    await asyncio.wait_for(drive(), timeout=options.timeout_s)
        else:
            await asyncio.wait_for(drive(), timeout=options.timeout_s)
    except Exception as exc:
        status, reason = classify_error(exc, options, max_steps)
    known = [u for u in usage if u is not None]
    prompt = sum(u[0] for u in known) if known and len(known) == len(usage) else None
    completion = sum(u[1] for u in known) if prompt is not None else None
    return LoopResult(status=status, reason=reason, steps=steps, answer=answer,
                      prompt_tokens=prompt, completion_tokens=completion, system=system)
