"""The episode harness: a task's setup (and its timer) starts only once the agent is built,
the goal the setup gave is kept per episode, a task can ask for optional tools, and a tool
layer that cannot be built (a tokenizer that does not load) is an episode error, not the end
of the run."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from webrefs.errors import TokenizerError
from webrefs.evals.miniwob.policy import Play, PolicyChatModel, act, click, look
from webrefs.evals.models.providers import Provider
from webrefs.evals.reports.results import Results
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.running.sites import SiteHandler
from webrefs.evals.suite.tasks import load_suite

from tests.helpers.paths import ROOT

pytestmark = [pytest.mark.browser]

SETUP = """async ({seed}) => {
  await fetch('/started');
  return 'Press the button (episode ' + seed + ').';
}"""


class LoggingHandler(SiteHandler):
    """The harness site; ``GET /started`` (the setup) is logged where the test reads it."""

    events: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        if self.path == "/started":
            LoggingHandler.events.append("setup")
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture
def events() -> Iterator[list[str]]:
    LoggingHandler.events.clear()
    yield LoggingHandler.events
    LoggingHandler.events.clear()


def suite_file(tmp: Path, **task: Any) -> str:
    """A one-task suite on (a copy of) the harness site, its setup giving the goal; its
    handler is this module's, so runs trust its code (``allow_code``)."""
    if not (tmp / "site").exists():
        shutil.copytree(ROOT / "tests" / "sites" / "harness", tmp / "site")
    data = {
        "schema": 1, "name": "harness",
        "site": {"folder": "site", "origin": "http://harness.webrefs.test",
                 "handler": f"{__name__}:LoggingHandler"},
        "tasks": [{"id": "press", "start_url": "/index.html", "goal": "Described by the setup.",
                   "setup": {"script": SETUP, "goal": True},
                   "success": [{"type": "text", "contains": "Pressed"}],
                   "reference": [{"tool": "web_snapshot"}, {"answer": "Done."}], **task}],
    }
    path = tmp / "harness.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def press(goal: str) -> Play:
    page = yield from look()
    yield from click(page.first("button", "Press"), "Press button")
    return None


def hover_then_press(goal: str) -> Play:
    page = yield from look()
    yield from act("web_hover", ref=page.first("button", "Press").ref)  # type: ignore[union-attr]
    yield from click(page.first("button", "Press"), "Press button")
    return None


def provider(policy: Any, made: list[str] | None = None) -> Provider:
    def make(task: Any) -> PolicyChatModel:
        if made is not None:
            made.append("agent built")
        return PolicyChatModel(policy=policy)

    return Provider(name="scripted", label="a scripted policy", baseline=True, make_model=make)


def run(suite: str, out: Path, prov: Provider, **changes: Any) -> Results:
    return asyncio.run(run_suite(RunOptions(suite=suite, providers=(prov,), out=out,
                                            allow_code=True, **changes)))


def test_the_setup_runs_after_the_agent_is_built_and_its_goal_is_kept(
        tmp_path: Path, events: list[str]) -> None:
    from webrefs.evals.running.episode import EpisodeOptions

    results = run(suite_file(tmp_path), tmp_path / "out", provider(press, events),
                  episode=EpisodeOptions(seed=7))
    assert events == ["agent built", "setup"]  # a page's timer measures the agent only
    [episode] = results.episodes
    assert episode.status == "success", episode.reason
    assert episode.goal == "Press the button (episode 7)."
    saved = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert saved["episodes"][0]["goal"] == "Press the button (episode 7)."


def test_a_task_can_ask_for_optional_tools(tmp_path: Path, events: list[str]) -> None:
    plain = run(suite_file(tmp_path), tmp_path / "plain", provider(hover_then_press))
    hover = plain.episodes[0].trajectory[1]
    assert hover.tool == "web_hover" and hover.error is not None  # not offered by default
    (tmp_path / "harness.json").unlink()
    offered = run(suite_file(tmp_path, tools=["web_hover"]), tmp_path / "tools",
                  provider(hover_then_press))
    [episode] = offered.episodes
    assert episode.status == "success" and episode.tool_errors == {}
    assert episode.trajectory[1].tool == "web_hover"
    assert episode.trajectory[1].output.startswith("Hovered")


def test_unknown_task_tools_are_refused_when_the_suite_loads(tmp_path: Path) -> None:
    from webrefs.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="unknown tool"):
        load_suite(suite_file(tmp_path, tools=["web_teleport"]))


def test_a_tokenizer_that_cannot_load_is_an_episode_error_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events: list[str]) -> None:
    import tiktoken
    from webrefs.render import tokens

    def unavailable(name: str) -> None:
        raise OSError("the encoding is not in the cache and there is no network")

    monkeypatch.setattr(tiktoken, "get_encoding", unavailable)
    monkeypatch.setattr(tokens, "_encoders", {})
    with pytest.raises(TokenizerError):  # the condition is real: the tools cannot be built
        tokens.get_encoding("o200k_base")
    second = Provider(name="scripted-2", label="the same policy again", baseline=True,
                      make_model=lambda task: PolicyChatModel(policy=press))
    results = asyncio.run(run_suite(RunOptions(
        suite=suite_file(tmp_path), providers=(provider(press), second), out=tmp_path / "out",
        workers=1, allow_code=True)))
    assert [(e.provider, e.status) for e in results.episodes] == [("scripted", "error"),
                                                                  ("scripted-2", "error")]
    for episode in results.episodes:
        assert episode.reason.startswith("TokenizerError: The tiktoken encoding"), episode.reason
    assert results.run.finished and not results.run.interrupted
    assert (tmp_path / "out" / "results.json").is_file()
