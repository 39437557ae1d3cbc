"""The human provider: a person reads what the model would and types each action; the
episode is recorded and scored like any other and marked as a human baseline."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from webrefs.evals.baselines.human import ActionSyntaxError as SyntaxErr
from webrefs.evals.baselines.human import HumanChatModel, parse_action
from webrefs.evals.models.providers import resolve_provider

TOOLS = {
    "web_click": {"properties": {"ref": {"type": "string"}}, "required": ["ref"]},
    "web_fill": {"properties": {"ref": {"type": "string"}, "value": {"type": "string"}},
                 "required": ["ref", "value"]},
    "web_scroll": {"properties": {"ref": {"type": "string"},
                                  "pixels": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
                   "required": []},
    "final_answer": {"properties": {"answer": {"type": "string"}}, "required": ["answer"]},
}


def test_typed_calls_read_like_tool_calls() -> None:
    assert parse_action("web_click e5", TOOLS) == ("web_click", {"ref": "e5"})
    assert parse_action('web_fill e3 "two words"', TOOLS) == (
        "web_fill", {"ref": "e3", "value": "two words"})
    assert parse_action("web_fill value=x ref=e3", TOOLS) == (
        "web_fill", {"ref": "e3", "value": "x"})
    assert parse_action("web_scroll pixels=300", TOOLS) == ("web_scroll", {"pixels": 300})
    assert parse_action('{"name": "web_click", "arguments": {"ref": "e9"}}', TOOLS) == (
        "web_click", {"ref": "e9"})
    assert parse_action('final_answer "Built in 1887."', TOOLS) == (
        "final_answer", {"answer": "Built in 1887."})


@pytest.mark.parametrize(("line", "words"), [
    ("web_clik e5", "unknown tool 'web_clik'"),
    ("web_fill e3", "web_fill needs value"),
    ("web_click e1 e2", "at most 1 arguments"),
    ('{"name": "web_click", ', "not valid JSON"),
    ('{"arguments": {}}', '"name"'),
    ('web_fill e3 "open quote', "cannot read the line"),
    ("", "empty line"),
])
def test_malformed_lines_say_what_is_wrong(line: str, words: str) -> None:
    with pytest.raises(SyntaxErr) as err:
        parse_action(line, TOOLS)
    assert words in str(err.value)


def test_bad_lines_are_asked_again_and_stop_ends_the_episode() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_core.tools import tool

    @tool
    def web_click(ref: str) -> str:
        """Click the element with this ref."""
        return ref

    lines = iter(["web_click", "web_click e7", "stop"])
    out = io.StringIO()
    model = HumanChatModel(read=lambda: next(lines, None), out=out).bind_tools([web_click])
    messages = [SystemMessage("the system prompt"), HumanMessage("the goal")]
    reply = model.invoke(messages)
    assert reply.tool_calls[0]["name"] == "web_click"  # type: ignore[attr-defined]
    assert reply.tool_calls[0]["args"] == {"ref": "e7"}  # type: ignore[attr-defined]
    shown = out.getvalue()
    assert "the system prompt" in shown and "the goal" in shown and '"name": "web_click"' in shown
    assert "error: web_click needs ref" in shown
    again = model.invoke([*messages, reply])
    assert not again.tool_calls and out.getvalue().count("the system prompt") == 1  # type: ignore[attr-defined]


def test_the_human_provider_is_a_human_baseline() -> None:
    provider = resolve_provider("human")
    assert provider.human and not provider.baseline and "human baseline" in provider.label


def _run(tmp: Path, stdin: str, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webrefs.cli", "eval", "run", "--suite", "demo",
         "--provider", "human", "--out", str(tmp), *more],
        input=stdin, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


@pytest.mark.browser
def test_an_episode_typed_at_the_terminal_is_recorded_and_scored(tmp_path: Path) -> None:
    typed = "\n".join([
        "web_clik e1",
        '{"name": "web_navigate", "arguments": '
        '{"url": "http://demo.webrefs.test/article-veldmark.html"}}',
        "web_get_text",
        'final_answer "It was built in 1887."',
    ]) + "\n"
    proc = _run(tmp_path, typed)
    assert proc.returncode == 0, proc.stderr
    shown = proc.stdout
    assert shown.count("=== system prompt ===") == 1 and shown.count("=== tools ===") == 1
    assert "error: unknown tool 'web_clik'" in shown
    assert "=== tool result (web_get_text) ===" in shown and "1887" in shown
    results = json.loads((tmp_path / "results.json").read_text())
    summary = results["providers"]["human"]
    assert summary["human"] is True and summary["succeeded"] == 1
    (episode,) = results["episodes"]
    assert episode["status"] == "success"
    assert [c["tool"] for c in episode["trajectory"]][:2] == ["web_navigate", "web_get_text"]
    assert "human baseline" in (tmp_path / "report.md").read_text()


def test_the_human_provider_plays_one_episode_at_a_time(tmp_path: Path) -> None:
    proc = _run(tmp_path, "", "--workers", "2")
    assert proc.returncode != 0 and "one episode at a time" in proc.stderr + proc.stdout
