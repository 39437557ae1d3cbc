"""Recorded model calls on MiniWoB++, as on the builtin suite: a real ChatOpenAI client
against a local OpenAI-compatible server that plays the reference policies, recorded, then
replayed with the server stopped to the same results (the seeded utterance and page make every
prompt byte-identical); a replay whose prompts differ (another seed) has no recording."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from webrefs.evals.miniwob.policy import Driver
from webrefs.evals.miniwob.reference import POLICIES
from webrefs.evals.reports.results import Results
from webrefs.evals.running.episode import EpisodeOptions
from webrefs.evals.running.runner import RunOptions, run_suite

from tests.helpers.openai_server import ScriptedOpenAIServer

pytest.importorskip("miniwob")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASKS = ("click-checkboxes", "enter-text")
MODEL = "openai:scripted-model"
SECRET = "sk-test-NOT-A-REAL-KEY-0123456789abcdef"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def task_of(goal: str) -> str:
    """The task an utterance is from (the tasks these tests run)."""
    if goal.startswith("Select "):
        return "click-checkboxes"
    if goal.startswith("Buy "):
        return "stock-market"
    if "terminal" in goal:
        return "terminal"
    return "enter-text"


class PolicyServer(ScriptedOpenAIServer):
    """Answers each request with the next call of the task's reference policy, the policy
    replayed over the conversation so far (stateless: the same conversation, the same
    reply). The task is told by its utterance."""

    def __init__(self) -> None:
        super().__init__([])

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = request["messages"]
        goal = next(_text(m) for m in messages if m["role"] == "user")
        task = task_of(goal)
        driver = Driver(POLICIES[task], goal)
        call = driver.next_call(None)
        for m in messages:
            if m["role"] == "tool":
                call = driver.next_call(_text(m))
        turn = sum(m["role"] == "assistant" for m in messages) + 1
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if call is None:
            message["content"] = driver.answer
        else:
            message["tool_calls"] = [{"id": f"call_{turn}", "type": "function", "function": {
                "name": call[0], "arguments": json.dumps(call[1])}}]
        return {"id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 0,
                "model": request.get("model", "scripted"),
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "stop" if call is None else "tool_calls"}],
                "usage": {"prompt_tokens": len(json.dumps(messages)) // 4,
                          "completion_tokens": 10, "total_tokens": 0}}


def run(out: Path, seed: int, **changes: Any) -> Results:
    changes.setdefault("tasks", TASKS)
    return asyncio.run(run_suite(RunOptions(
        suite="miniwob", providers=(MODEL,), out=out, workers=2,
        episode=EpisodeOptions(seed=seed, time_limit=False), **changes)))


def episodes(results: Results) -> list[dict[str, Any]]:
    """Everything of the episodes but times (the reward is time-discounted)."""
    data = json.loads(results.to_json())["episodes"]
    for e in data:
        e.pop("wall_s")
        for check in e["checks"]:
            assert check["type"] == "reward" and check["value"] > 0.9
            check.pop("value")
    return list(data)


@pytest.mark.timeout(300)
def test_miniwob_model_calls_replay_offline_with_the_same_prompts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain_openai  # noqa: F401  (a test dependency: fails loudly when missing)

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with PolicyServer() as server:
        settings = {"base_url": server.base_url, "temperature": 0.0}
        recorded = run(tmp_path / "rec", 3, record=True, provider_settings=settings)
        asked = list(server.requests)
    assert [e.status for e in recorded.episodes] == ["success", "success"]
    assert {e.goal.split()[0] for e in recorded.episodes} == {"Select", "Enter"}
    assert len(asked) == sum(e.steps + 1 for e in recorded.episodes)
    cassettes = tmp_path / "rec" / "cassettes"
    for cassette in cassettes.rglob("*.yaml"):
        assert SECRET not in cassette.read_text(encoding="utf-8")
    # The server is stopped: only the cassettes can answer, and they answer only requests
    # identical to the recorded ones, byte for byte.
    replayed = run(tmp_path / "rep", 3, cassettes=cassettes, provider_settings=settings)
    assert replayed.run.model_calls == "replay"
    assert episodes(replayed) == episodes(recorded)
    # Another seed: another utterance and page, so other prompts, which have no recording.
    other = run(tmp_path / "other", 4, cassettes=cassettes, provider_settings=settings)
    for e in other.episodes:
        assert e.status == "invalid", e.reason
        assert e.reason.startswith("The replay diverged at model request 1: "), e.reason


TIMED = ("stock-market", "terminal")
"""Pages that change on their own: a price every 100 ms, a blinking cursor."""


def exact(results: Results) -> list[dict[str, Any]]:
    """Everything of the episodes but the wall time: on the episode's clock even the
    time-discounted reward is the same in every run."""
    data = json.loads(results.to_json())["episodes"]
    for e in data:
        e.pop("wall_s")
    return list(data)


@pytest.mark.timeout(400)
def test_time_driven_pages_record_and_replay_to_equal_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """stock-market's price and terminal's cursor move on page timers; on the episode's clock
    they move by the same amount at every step, so the replay sends the recorded prompts byte
    for byte (before, the first snapshot of the replay already showed another price)."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with PolicyServer() as server:
        settings = {"base_url": server.base_url, "temperature": 0.0}
        recorded = run(tmp_path / "rec", 3, record=True, provider_settings=settings,
                       tasks=TIMED)
    assert {e.task: e.status for e in recorded.episodes} == dict.fromkeys(TIMED, "success")
    assert recorded.run.options["step_ms"] == 100
    stock = next(e for e in recorded.episodes if e.task == "stock-market")
    prices = {c.output for c in stock.trajectory if c.tool == "web_snapshot"}
    assert len(prices) > 5  # the page did move between looks
    replayed = run(tmp_path / "rep", 3, cassettes=tmp_path / "rec" / "cassettes",
                   provider_settings=settings, tasks=TIMED)
    assert replayed.run.model_calls == "replay"
    assert exact(replayed) == exact(recorded)
