"""One episode: a task, a provider, a fresh browser context, the agent loop, the checks.

The agent loop is the LangChain adapter in LangChain's standard tool-calling graph
(``create_agent``) with the system prompt from ``webrefs.prompts``, the webrefs tools, and a
``final_answer`` tool that ends the episode. ``max_steps`` bounds the tool calls. The
episode's browser context is its own (cookies, storage, tabs), seeded, and closed at the end
(which writes its HAR when recording).

What can go wrong is told apart: the model failing the task (``failure``), the episode leaving
its recorded pages or its start page not loading (``invalid``), and the provider failing
(``error``: rate limits, timeouts, a crash). Only the first counts against the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from webrefs import Browser, Tab, WebrefsError
from webrefs.adapters.langchain import WebToolkit
from webrefs.models import RequestRecord
from webrefs.prompts import eval_finish, eval_tool
from webrefs.render.tokens import count_tokens

from ..baselines.offline_model import content_text
from ..models.providermodel import EpisodeModel
from ..models.providers import Provider
from ..models.recording import CassetteMode
from ..reports.results import Episode, Status, ToolCall
from ..suite.checks import CheckResult, check_all
from ..suite.inputs import read_har
from ..suite.tasks import LoadedSuite, Task
from .loop import CLOCK_START, EpisodeOptions, LoopResult, classify_error

__all__ = ["EpisodeOptions", "SetupFailed", "Starter", "final_answer_tool", "har_urls",
           "run_episode"]

MAX_OUTPUT_CHARS = 20_000
_ERROR_CODE = re.compile(r"\[([a-z_]+)\]")


class _AnswerArgs(BaseModel):
    answer: str = Field(description=eval_tool("final_answer")[1]["answer"])


def final_answer_tool() -> Any:
    """The ``final_answer`` tool: its argument is the episode's answer, and it ends the loop."""
    from langchain_core.tools import StructuredTool

    def final_answer(answer: str) -> str:
        return answer

    async def afinal_answer(answer: str) -> str:
        return answer

    return StructuredTool.from_function(
        func=final_answer, coroutine=afinal_answer, name="final_answer",
        description=eval_tool("final_answer")[0], args_schema=_AnswerArgs, return_direct=True,
    )


def _approve(_request: Any) -> bool:
    """The harness's consent: an eval site is a sandbox, so every action may run."""
    return True


def har_urls(path: Path) -> set[tuple[str, str]]:
    """``(method, url)`` of every request a HAR file answers; raises
    :class:`~webrefs.errors.InvalidArgumentError` for a file that is not a sound HAR."""
    data = read_har(path)
    return {(e["request"]["method"].upper(), e["request"]["url"])
            for e in data["log"]["entries"]}


def _trajectory(messages: list[Any]) -> tuple[list[ToolCall], str, int | None, int | None]:
    """Tool calls with what the model saw, the final answer, and reported token usage."""
    from langchain_core.messages import AIMessage, ToolMessage

    args_by_id: dict[str, dict[str, Any]] = {}
    calls: list[ToolCall] = []
    answer = ""
    prompt = completion = 0
    usage_known = False
    for msg in messages:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls:
                args_by_id[str(call.get("id"))] = dict(call.get("args") or {})
            usage = msg.usage_metadata
            if usage:
                usage_known = True
                prompt += int(usage.get("input_tokens", 0))
                completion += int(usage.get("output_tokens", 0))
            text = content_text(msg.content).strip()
            if text and not msg.tool_calls:
                answer = text
        elif isinstance(msg, ToolMessage):
            output = content_text(msg.content)
            args = args_by_id.get(str(msg.tool_call_id), {})
            if msg.name == "final_answer":
                answer = str(args.get("answer", output))
                continue
            error = None
            if msg.status == "error":
                found = _ERROR_CODE.search(output)
                error = found.group(1) if found else "error"
            decision = getattr(getattr(msg, "artifact", None), "safety", None)
            calls.append(ToolCall(
                tool=str(msg.name), args=args, output=output[:MAX_OUTPUT_CHARS], error=error,
                tokens=count_tokens(output),
                safety=f"{decision.level}:{decision.outcome}"
                if decision is not None and decision.level != "auto" else None,
            ))
    if not usage_known:
        return calls, answer, None, None
    return calls, answer, prompt, completion


def _left_recording(requests: list[RequestRecord], recorded: set[tuple[str, str]]) -> str | None:
    for r in requests:
        if r.url.startswith(("data:", "about:", "blob:")):
            continue
        if (r.method.upper(), r.url) not in recorded:
            return f"left the recording: {r.method} {r.url[:200]}"
    return None


SETUP_TICK_MS = 50
"""While a task's setup runs on a controlled clock, the clock moves in steps of this much
(its page may wait on a timer for the page to be ready)."""
SETUP_GRACE_S = 3.0
"""Real time a setup is given before the clock first moves for it."""
SETUP_TICKS = 400
"""Most clock steps a setup may take (20 s of page time)."""


STALL_S = 4.0
"""A tool call still running after this much real time is waiting on page time (a timer the
action started, a text a page timer will show): the clock then moves :data:`STALL_MS`, and
again after each further ``STALL_S``. A call that waits on nothing timed returns well within
it, so the clock moves the same in every run."""
STALL_MS = 1000


def step_advance(options: EpisodeOptions, tool: str, args: dict[str, Any]) -> float:
    """Page time, in ms, that passes before a tool call: the step, plus the seconds of a
    ``web_wait_for`` that waits for time (its text waits see only the step: on a paused clock
    the page's timers do not move while it polls)."""
    extra = 0.0
    if tool == "web_wait_for" and args.get("seconds") is not None:
        try:
            extra = max(0.0, min(float(args["seconds"]), 30.0)) * 1000
        except (TypeError, ValueError):
            extra = 0.0
    return options.step_ms + extra


def _clock_middleware(ctx: Browser, options: EpisodeOptions, *, wall: bool = False) -> Any:
    """The middleware that moves the episode's clock before each tool call (see
    :func:`step_advance`) and while a call waits on page time (:data:`STALL_S`);
    ``final_answer`` ends the episode and moves nothing. With ``wall`` (a task keeping its
    own time limit) the real time since the previous call ended (the model thinking) passes
    on the page too, so the limit holds as on the machine's clock; such an episode does not
    replay exactly, one with the limit lifted does. Its ``start()`` marks when the task
    started."""
    from langchain.agents.middleware import AgentMiddleware

    class ClockStep(AgentMiddleware):
        since = time.monotonic()

        def start(self) -> None:
            self.since = time.monotonic()

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            call = request.tool_call
            name = str(call.get("name", ""))
            if name == "final_answer":
                return await handler(request)
            step = step_advance(options, name, dict(call.get("args") or {}))
            if wall:
                step += round((time.monotonic() - self.since) * 1000)
            with contextlib.suppress(WebrefsError):  # a closed context: the call says so
                await ctx.aadvance_clock(step)
            running = asyncio.ensure_future(handler(request))
            try:
                while True:  # a call still running after STALL_S waits on page time
                    done, _ = await asyncio.wait([running], timeout=STALL_S)
                    if done:
                        return running.result()
                    with contextlib.suppress(WebrefsError):
                        await ctx.aadvance_clock(STALL_MS)
            finally:
                running.cancel()  # the episode's time ran out: the call goes with it
                self.since = time.monotonic()

    return ClockStep()


Starter = Callable[[], Awaitable[Task]]
"""Starts the task on its page (its setup) and gives back the task with the goal to give."""


class SetupFailed(Exception):
    """The task's setup could not start it: the episode is invalid."""


async def _langchain_loop(ctx: Browser, task: Task, provider: Provider, options: EpisodeOptions,
                          calls: Path | None, calls_mode: CassetteMode | None,
                          start: Starter) -> LoopResult:
    """The LangChain adapter in ``create_agent``'s tool-calling loop. The agent is built
    first, then ``start`` starts the task, so a task's own timer measures the agent only."""
    from langchain.agents import create_agent

    mode = provider.mode(options.mode)
    # vision and hybrid: screenshots with marks, points as targets; so for a task that
    # needs to see (its tools name web_screenshot), whatever the mode
    vision = mode != "dom" or "web_screenshot" in task.tools
    toolkit = WebToolkit(browser=ctx, max_tokens=options.max_tokens,
                         after_action=options.after_action,
                         tools=list(options.include) if options.include is not None else "default",
                         include=list(task.tools) or None, vision=vision,
                         exclude=["web_snapshot"] if mode == "vision" else None)
    tools = [*toolkit.get_tools(), final_answer_tool()]
    system = await toolkit.asystem_prompt("vision" if vision else "dom",
                                          tool_calling=not provider.text_actions)
    if not provider.text_actions:  # the prompt's tool list is the browser's: name the way out
        system = f"{system}\n\n{eval_finish()}"
    model: Any = provider.make_model(task)
    if not provider.baseline or provider.text_actions or calls_mode is not None:
        model = EpisodeModel(inner=model, text_actions=provider.text_actions,
                             cassette_path=calls if calls_mode else None,
                             cassette_mode=calls_mode, retries=options.retries)
    # a screenshot goes where the provider's API takes images (webrefs.tools.capabilities)
    middleware: list[Any] = [toolkit.image_placement(provider.capabilities)] if vision else []
    clock = _clock_middleware(ctx, options, wall=options.time_limit and task.setup is not None)
    if ctx.clocked:
        middleware.append(clock)
    agent: Any = create_agent(model, tools, system_prompt=system, middleware=middleware)
    max_steps = options.max_steps or task.max_steps
    task = await start()
    clock.start()
    status: Status = "failure"
    reason = ""
    messages: list[Any] = []

    async def drive() -> None:  # stream, so the steps before a failure are kept
        async for state in agent.astream({"messages": [("user", task.goal)]},
                                         config={"recursion_limit": 2 * max_steps + 2},
                                         stream_mode="values"):
            messages[:] = list(state.get("messages", []))

    try:
        await asyncio.wait_for(drive(), timeout=options.timeout_s)
    except Exception as exc:
        status, reason = classify_error(exc, options, max_steps)
    steps, answer, prompt_tokens, completion_tokens = _trajectory(messages)
    return LoopResult(status=status, reason=reason, steps=steps, answer=answer,
                      prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      system=system)


async def _start(ctx: Browser, task: Task, options: EpisodeOptions) -> Task:
    """Run the task's setup in its start page; the task with the goal it gave. Raises
    :class:`SetupFailed`."""
    if task.setup is None:
        return task
    try:
        setup = asyncio.ensure_future(ctx.active_tab.aevaluate(
            task.setup.script, {"seed": options.seed, "time_limit": options.time_limit}))
        ticks = 0
        while ctx.clocked and not setup.done() and ticks < SETUP_TICKS:
            # a setup that needs no timer finishes in the first grace, with no time moved
            await asyncio.wait([setup], timeout=SETUP_GRACE_S if ticks == 0 else 0.02)
            if not setup.done():
                await ctx.aadvance_clock(SETUP_TICK_MS)
                ticks += 1
        given = await setup
    except WebrefsError as err:
        raise SetupFailed(f"the setup failed: {err.message[:300]}") from None
    if not task.setup.goal:
        return task
    if not isinstance(given, str) or not given.strip():
        raise SetupFailed(f"the setup gave no goal ({given!r:.80})")
    return task.model_copy(update={"goal": given.strip()})


async def _final_tab(ctx: Browser) -> Tab | None:
    try:
        return ctx.active_tab
    except WebrefsError:
        return None


async def run_episode(
    browser: Browser,
    loaded: LoadedSuite,
    task: Task,
    provider: Provider,
    options: EpisodeOptions,
    *,
    record_har: Path | None = None,
    replay_har: Path | None = None,
    calls: Path | None = None,
    calls_mode: CassetteMode | None = None,
    fence_key: str | None = None,
) -> Episode:
    """Run ``task`` with ``provider`` in a fresh context of ``browser``; never raises for
    what an episode can do wrong (it is in the returned :class:`Episode`).

    ``calls`` is the task's cassette of model calls, recorded or replayed (``calls_mode``).
    ``fence_key`` is the run's secret the fence markers derive from, with the seed (a new one
    for this episode's context when ``None``)."""
    started = time.monotonic()
    base = Episode(task=task.id, provider=provider.name, status="error", tags=list(task.tags))
    recorded: set[tuple[str, str]] | None = None
    if replay_har is not None:
        if not replay_har.is_file():
            return base.model_copy(update={
                "status": "invalid", "reason": f"no recording of this task ({replay_har.name})"})
        try:
            recorded = har_urls(replay_har)
        except WebrefsError as err:
            return base.model_copy(update={"status": "invalid", "reason": err.message})
    if calls_mode == "replay" and (calls is None or not calls.is_file()):
        return base.model_copy(update={
            "status": "invalid", "reason": "no recorded model calls for this task"})
    if calls_mode == "record" and calls is not None and calls.exists():
        calls.unlink()  # a fresh recording, not one appended to an old run
    try:
        ctx = await browser.anew_context(
            record_har=str(record_har) if record_har else None,
            replay_har=str(replay_har) if replay_har else None,
            seed=options.seed,
            fence_key=fence_key,
            # LlamaIndex's loop has no hook before a tool call: its pages keep real time
            clock_at=CLOCK_START if options.step_ms > 0 and provider.kind != "llamaindex"
            else None,
        )
    except WebrefsError as err:
        return base.model_copy(update={"reason": f"no browser context: {err.message[:300]}"})
    # the sandbox approves every sensitive action; each decision is in the trajectory
    ctx.set_safety(replace(ctx.safety, consent=_approve, consent_by="the eval harness"))
    try:
        try:
            await ctx.anew_tab(loaded.start_url(task))
        except WebrefsError as err:
            reason = f"the start page did not load: {err.message[:300]}"
            if recorded is not None:
                reason = _left_recording(ctx.requests, recorded) or reason
            return base.model_copy(update={"status": "invalid", "reason": reason,
                                           "wall_s": round(time.monotonic() - started, 2)})
        given_task = task

        async def start() -> Task:
            """The task's setup, run once the agent is built (a page's timer starts here)."""
            nonlocal given_task
            given_task = await _start(ctx, task, options)
            return given_task

        try:
            if provider.kind == "llamaindex":
                from .llamaindex_loop import llamaindex_loop

                loop = await llamaindex_loop(ctx, task, provider, options, calls, calls_mode,
                                             start=start)
            else:
                loop = await _langchain_loop(ctx, task, provider, options, calls, calls_mode,
                                             start)
        except SetupFailed as not_started:
            return base.model_copy(update={
                "status": "invalid", "reason": str(not_started), "goal": given_task.goal,
                "wall_s": round(time.monotonic() - started, 2)})
        except WebrefsError as err:  # the tools could not be built (a tokenizer, a closed tab)
            return base.model_copy(update={
                "reason": f"{type(err).__name__}: {err.message[:300]}", "goal": given_task.goal,
                "wall_s": round(time.monotonic() - started, 2)})
        task = given_task
        status, reason, steps, answer = loop.status, loop.reason, loop.steps, loop.answer
        tab = await _final_tab(ctx)
        checks: list[CheckResult] = []
        if status == "failure" and not reason:
            checks = await check_all(task.success, tab=tab, answer=answer,
                                     requests=ctx.requests)
            failed = [c for c in checks if not c.ok]
            if failed:
                reason = "; ".join(c.why for c in failed)
            else:
                status = "success"
        if recorded is not None:
            left = _left_recording(ctx.requests, recorded)
            if left is not None:
                status, reason = "invalid", left
        errors = Counter(c.error for c in steps if c.error)
        return Episode(
            task=task.id, provider=provider.name, status=status, goal=task.goal,
            reason=reason, steps=len(steps), answer=answer[:2000], checks=checks,
            tool_errors=dict(sorted(errors.items())), prompt_tokens=loop.prompt_tokens,
            completion_tokens=loop.completion_tokens,
            observation_tokens=sum(c.tokens for c in steps),
            system_prompt_tokens=count_tokens(loop.system),
            wall_s=round(time.monotonic() - started, 2),
            final_url=tab.url if tab is not None else "",
            trajectory=steps, tags=list(task.tags),
        )
    finally:
        await ctx.aclose()
