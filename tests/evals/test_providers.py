"""Real provider clients, recorded and replayed: a ChatOpenAI client against a local
OpenAI-compatible server of ours, cassettes with no credentials, a replay to the same
results with the server stopped, retries, the text-action fallback, clear provider errors.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from webrefs.errors import InvalidArgumentError
from webrefs.evals.models.prices import Price, episode_cost, load_prices
from webrefs.evals.models.providermodel import (
    MAX_RETRY_AFTER_S,
    EpisodeModel,
    as_text_conversation,
    is_transient,
    parse_text_reply,
    retry_after,
)
from webrefs.evals.models.providers import resolve_provider
from webrefs.evals.models.recording import provider_slug, scrub_request
from webrefs.evals.reports.results import Results
from webrefs.evals.running.episode import EpisodeOptions
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.suite.tasks import load_suite

from tests.helpers.openai_server import ScriptedOpenAIServer
from tests.helpers.paths import DATA, ROOT

MINI = str(DATA / "suites" / "mini.json")
TASKS = ("lantern-hours", "order-brass")
SECRET = "sk-test-NOT-A-REAL-KEY-0123456789abcdef"
KEYLIKE = re.compile(r"sk-[A-Za-z0-9_-]{16,}|(?i:bearer\s+[A-Za-z0-9._-]{12,})"
                     r"|(?i:\"?(authorization|x-api-key|api-key)\"?\s*[:=])")


def run(out: Path, **changes: Any) -> Results:
    return asyncio.run(run_suite(RunOptions(suite=MINI, out=out, tasks=TASKS, **changes)))


def same(a: Results, b: Results) -> None:
    """Field by field, timings aside."""
    def strip(r: Results) -> dict[str, Any]:
        data = json.loads(r.to_json())
        for e in data["episodes"]:
            e.pop("wall_s")
        return {"episodes": data["episodes"], "providers": data["providers"]}
    assert strip(a) == strip(b)


@pytest.mark.browser
@pytest.mark.slow
def test_chatopenai_recorded_then_replayed_with_the_server_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain_openai  # noqa: F401  (a test dependency: fails loudly when missing)

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    tasks = load_suite(MINI).suite.tasks
    with ScriptedOpenAIServer(tasks) as server:
        settings = {"base_url": server.base_url, "temperature": 0.0}
        recorded = run(tmp_path / "rec", providers=("openai:scripted-model",), record=True,
                       provider_settings=settings,
                       prices={"openai:scripted-model": Price(input=1.0, output=4.0)})
        asked = len(server.requests)
        system = server.requests[0]["messages"][0]["content"]
        auth = [h.get("Authorization", h.get("authorization", "")) for h in server.headers]
    # the prompt's tool list is the browser's: it names the tool that ends the episode too
    assert "call final_answer" in system, system
    assert all(SECRET in a for a in auth), "the client did not send the key (the test is void)"
    assert [e.status for e in recorded.episodes] == ["success", "success"]
    episode = recorded.episodes[0]
    assert episode.prompt_tokens and episode.completion_tokens  # the provider's own usage
    assert recorded.providers["openai:scripted-model"].tokens_per_success
    assert episode.cost_usd == round((episode.prompt_tokens * 1.0
                                      + episode.completion_tokens * 4.0) / 1e6, 6)
    assert recorded.providers["openai:scripted-model"].cost_per_success
    assert recorded.run.model_calls == "record"
    assert asked == sum(e.steps + 1 for e in recorded.episodes)  # one call per step + answer
    folder = tmp_path / "rec" / "cassettes" / provider_slug("openai:scripted-model")
    cassettes = sorted(folder.glob("*.yaml"))
    assert [c.stem for c in cassettes] == sorted(TASKS)
    pages = tmp_path / "rec" / "pages" / provider_slug("openai:scripted-model")
    assert sorted(p.stem for p in pages.glob("*.har")) == sorted(TASKS)
    for c in cassettes:
        text = c.read_text()
        assert SECRET not in text and not KEYLIKE.search(text), f"a credential in {c.name}"
        assert "/v1/chat/completions" in text
    # The server is stopped: only the cassettes can answer.
    replayed = run(tmp_path / "rep", providers=("openai:scripted-model",),
                   pages=tmp_path / "rec" / "pages", cassettes=tmp_path / "rec" / "cassettes",
                   provider_settings=settings,
                   prices={"openai:scripted-model": Price(input=1.0, output=4.0)})
    assert replayed.run.model_calls == "replay" and replayed.run.pages == "replay"
    # the run's fence key is kept with the recording, so the replay's prompts (fenced page
    # content included) are the recorded ones byte for byte
    assert (tmp_path / "rec" / "cassettes" / "fence.key").is_file()
    fenced = [c.output for e in replayed.episodes for c in e.trajectory
              if "<<<page content " in c.output]
    assert fenced
    same(recorded, replayed)


@pytest.mark.browser
@pytest.mark.slow
def test_a_changed_prompt_makes_the_replay_invalid(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with ScriptedOpenAIServer(load_suite(MINI).suite.tasks) as server:
        settings = {"base_url": server.base_url}
        run(tmp_path / "rec", providers=("openai:scripted-model",), record=True,
            provider_settings=settings)
    # Another budget changes what the model is shown, so the requests no longer match.
    replayed = run(tmp_path / "rep", providers=("openai:scripted-model",),
                   cassettes=tmp_path / "rec" / "cassettes", provider_settings=settings,
                   episode=EpisodeOptions(max_tokens=400))
    statuses = {e.task: (e.status, e.reason) for e in replayed.episodes}
    for status, reason in statuses.values():
        assert status == "invalid"
        # where it diverged and how (a smaller budget shows the pages otherwise), never the
        # HTTP client's "Connection error."
        assert "The replay diverged at model request 2: the result of step 1 differs" \
            in reason, reason
        assert "\n-" in reason and "\n+" in reason and "Connection error" not in reason
    summary = replayed.providers["openai:scripted-model"]
    assert summary.invalid == 2 and summary.failed == 0


@pytest.mark.browser
@pytest.mark.slow
def test_rate_limits_are_retried_then_reported_as_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    tasks = load_suite(MINI).suite.tasks
    with ScriptedOpenAIServer(tasks, fail_first=2, retry_after_ms=20) as server:
        ok = run(tmp_path / "a", providers=("openai:scripted-model",),
                 provider_settings={"base_url": server.base_url})
    assert [e.status for e in ok.episodes] == ["success", "success"]
    with ScriptedOpenAIServer(tasks, fail_first=1000) as server:
        bad = run(tmp_path / "b", providers=("openai:scripted-model",),
                  provider_settings={"base_url": server.base_url},
                  episode=EpisodeOptions(retries=1))
    for e in bad.episodes:
        assert e.status == "error"
        assert "The provider failed after 2 tries:" in e.reason
        assert "RateLimitError" in e.reason and "429" in e.reason
    summary = bad.providers["openai:scripted-model"]
    assert summary.errors == 2 and summary.success_rate is None


@pytest.mark.browser
@pytest.mark.slow
def test_text_actions_through_a_real_client(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with ScriptedOpenAIServer(load_suite(MINI).suite.tasks) as server:
        results = run(tmp_path, providers=("openai:scripted-model",),
                      provider_settings={"base_url": server.base_url, "text_actions": True})
        sent = server.requests
    assert [e.status for e in results.episodes] == ["success", "success"]
    assert all("tools" not in r for r in sent)  # no native tool calling was asked for
    system = sent[0]["messages"][0]["content"]
    assert "```json" in system  # the action format is in the system prompt
    assert results.providers["openai:scripted-model"].settings["text_actions"] is True


def test_text_replies_become_tool_calls_or_the_answer() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    tools = ["web_click", "web_fill", "final_answer"]
    call = parse_text_reply(AIMessage(content='I will click.\n```json\n{"tool": "web_click", '
                                              '"args": {"ref": "e5"}}\n```'), tools, 3)
    assert call.tool_calls == [{"name": "web_click", "args": {"ref": "e5"}, "id": "text_3_0",
                                "type": "tool_call"}]
    answer = parse_text_reply(AIMessage(content="The lantern burns 20 hours."), tools, 4)
    assert answer.tool_calls == [] and answer.content == "The lantern burns 20 hours."
    unknown = parse_text_reply(AIMessage(content='```json\n{"tool": "web_fly", "args": {}}\n```'),
                               tools, 5)
    assert "invalid action" in unknown.tool_calls[0]["args"]["answer"]
    talk = as_text_conversation([HumanMessage(content="goal"),
                                 AIMessage(content="x", tool_calls=[{"name": "web_click",
                                           "args": {}, "id": "1", "type": "tool_call"}]),
                                 ToolMessage(content="Clicked e5.", name="web_click",
                                             tool_call_id="1")])
    assert [type(m).__name__ for m in talk] == ["HumanMessage", "AIMessage", "HumanMessage"]
    assert talk[2].content == "Result of web_click:\nClicked e5."
    assert not talk[1].tool_calls


def test_transient_errors_are_told_apart() -> None:
    class RateLimitError(Exception):
        status_code = 429

    class BadRequestError(Exception):
        status_code = 400

    assert is_transient(RateLimitError()) and is_transient(TimeoutError())
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = RateLimitError()
    assert is_transient(wrapped)
    assert not is_transient(BadRequestError()) and not is_transient(ValueError("x"))


class _Answer:
    """What a provider's client keeps of a refused request: its headers."""

    def __init__(self, **headers: str) -> None:
        self.headers = httpx.Headers(headers)


class _Refused(Exception):
    status_code = 429

    def __init__(self, **headers: str) -> None:
        super().__init__("Rate limit reached")
        self.response = _Answer(**headers)


def test_the_wait_a_provider_asks_for_is_read_from_its_answer() -> None:
    assert retry_after(_Refused(**{"retry-after-ms": "250"})) == 0.25
    assert retry_after(_Refused(**{"Retry-After": "3"})) == 3.0
    # the milliseconds win; a date, a negative or a missing value asks nothing
    assert retry_after(_Refused(**{"retry-after-ms": "40", "retry-after": "1"})) == 0.04
    assert retry_after(_Refused(**{"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})) is None
    assert retry_after(_Refused(**{"retry-after": "-1"})) is None
    assert retry_after(_Refused()) is None and retry_after(ValueError("x")) is None
    assert retry_after(_Refused(**{"retry-after": "86400"})) == MAX_RETRY_AFTER_S
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = _Refused(**{"retry-after": "2"})
    assert retry_after(wrapped) == 2.0


def test_retries_wait_what_the_provider_asked_else_back_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    class Inner:
        def __init__(self, refusals: list[_Refused]) -> None:
            self.refusals = refusals

        async def ainvoke(self, messages: Any, stop: Any = None) -> AIMessage:
            if self.refusals:
                raise self.refusals.pop(0)
            return AIMessage(content="done")

    monkeypatch.setattr("webrefs.evals.models.providermodel.asyncio.sleep", sleep)
    refusals = [_Refused(**{"retry-after-ms": "20"}), _Refused(), _Refused(**{"retry-after": "5"})]
    model = EpisodeModel(inner=Inner(refusals), retries=3, backoff_s=1.5)
    reply = asyncio.run(model.ainvoke([HumanMessage(content="go")]))
    assert reply.content == "done"
    assert waits == [0.02, 1.5 * 2, 5.0]  # asked, backed off (second try), asked


def test_credentials_are_scrubbed_before_recording() -> None:
    class Request:
        def __init__(self) -> None:
            self.headers = {"Authorization": "Bearer sk-secret", "x-api-key": "k",
                            "Content-Type": "application/json", "Cookie": "a=b"}
            self.uri = "https://user:pw@api.test/v1/models?key=abc&alt=json"

    r = scrub_request(Request())
    assert r.headers == {"Content-Type": "application/json"}
    assert r.uri == "https://api.test/v1/models?key=REDACTED&alt=json"


def test_provider_errors_name_the_remedy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InvalidArgumentError, match="could not be created") as info:
        resolve_provider("openai:gpt-x")
    assert "OPENAI_API_KEY" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="pip install langchain-anthropic"):
        resolve_provider("anthropic:claude-test")  # its LangChain package is not installed
    with pytest.raises(InvalidArgumentError, match="Name a provider LangChain knows"):
        resolve_provider("no_such_vendor_xyz:model")
    text_only = resolve_provider("reference-text")
    assert text_only.baseline and text_only.text_actions
    assert "model-free baseline" in text_only.label


def cassette_leaks(root: Path) -> list[str]:
    """Cassettes under ``root`` holding anything key-like."""
    found = [p for p in root.rglob("*.yaml") if ".venv" not in p.parts
             and "node_modules" not in p.parts and "cassettes" in p.parts]
    return [str(p) for p in found if KEYLIKE.search(p.read_text(errors="replace"))]


def test_no_cassette_in_the_repository_holds_a_credential(tmp_path: Path) -> None:
    planted = tmp_path / "cassettes" / "openai_x" / "t.yaml"  # the scan itself can fail
    planted.parent.mkdir(parents=True)
    planted.write_text(f"headers:\n  authorization: [Bearer {SECRET}]\n")
    assert cassette_leaks(tmp_path) == [str(planted)]
    assert not cassette_leaks(ROOT), "credentials in the repository's cassettes"


@pytest.mark.browser
@pytest.mark.slow
def test_llamaindex_openai_like_recorded_then_replayed(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_index.llms.openai_like  # noqa: F401  (a test dependency)

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = "llamaindex:openai-like:scripted-model"
    with ScriptedOpenAIServer(load_suite(MINI).suite.tasks) as server:
        settings = {"base_url": server.base_url}
        recorded = run(tmp_path / "rec", providers=(provider,), record=True,
                       provider_settings=settings)
        asked = len(server.requests)
        system = server.requests[0]["messages"][0]["content"]
    assert asked > 0 and all("tools" in r for r in server.requests)  # native tool calls
    assert "call final_answer" in system, system
    assert [e.status for e in recorded.episodes] == ["success", "success"]
    assert recorded.episodes[0].prompt_tokens  # usage read from the raw responses
    assert [c.tool for c in recorded.episodes[0].trajectory][:2] == ["web_snapshot", "web_fill"]
    for c in (tmp_path / "rec" / "cassettes").rglob("*.yaml"):
        assert SECRET not in c.read_text()
    replayed = run(tmp_path / "rep", providers=(provider,), provider_settings=settings,
                   pages=tmp_path / "rec" / "pages", cassettes=tmp_path / "rec" / "cassettes")
    same(recorded, replayed)


def test_prices_are_the_users_and_never_guessed(tmp_path: Path) -> None:
    table = tmp_path / "prices.toml"
    table.write_text('["openai:m"]\ninput = 0.5\noutput = 2\n')
    prices = load_prices(table)
    assert prices == {"openai:m": Price(input=0.5, output=2.0)}
    assert episode_cost(prices["openai:m"], 1_000_000, 500_000) == 1.5
    assert episode_cost(None, 10, 10) is None  # no price: blank
    assert episode_cost(prices["openai:m"], None, None) is None  # no usage: blank
    table.write_text('["openai:m"]\ninput = "cheap"\n')
    with pytest.raises(InvalidArgumentError, match="needs numbers"):
        load_prices(table)
