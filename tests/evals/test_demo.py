"""`webrefs demo`: the bundled site, the packaged task, and the scripted agent loop."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from importlib import resources

import pytest
from webrefs.errors import WebrefsError
from webrefs.evals.demo import demo_site, load_demo_task, main

from tests.helpers.paths import ROOT


def test_demo_task_is_package_data() -> None:
    raw = json.loads(resources.files("webrefs.evals").joinpath("suites/demo.json").read_text())
    task = load_demo_task()
    assert task.id == raw["tasks"][0]["id"]
    assert [s.tool for s in task.reference_calls][:3] == ["web_snapshot", "web_fill", "web_click"]
    with pytest.raises(WebrefsError, match="no-such-task"):
        load_demo_task("no-such-task")


def test_demo_site_serves_the_bundled_pages() -> None:
    with demo_site() as base:
        assert base.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(base + "index.html", timeout=5) as response:
            assert b'type="search"' in response.read()
        with urllib.request.urlopen(base + "article-veldmark.html", timeout=5) as response:
            assert b"built\n    in 1887" in response.read()


@pytest.mark.browser
def test_demo_solves_the_task_and_prints_each_call(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--after-action", "diff", "--lines", "12"]) == 0
    text = capsys.readouterr().out
    assert "[1] model -> web_snapshot({})" in text
    assert '"value": "lighthouse"' in text and "web_fill" in text
    assert "model saw (ok" in text and '- searchbox "Search articles"' in text
    # --after-action diff: the fill changed nothing else; the search's result was the page
    assert "Nothing else on the page changed." in text
    assert "Page now:" in text
    assert "more lines)" in text  # --lines cut the long results
    assert "web_get_text" in text
    assert "answer:    Veldmark Lighthouse was built in 1887." in text
    # no snapshot asked for after the search: its result carried the page
    assert "result:    solved with 5 tool calls" in text


def test_demo_rejects_unknown_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--after-action", "sometimes"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.parametrize("example", ["langchain_agent.py", "llamaindex_agent.py"])
def test_examples_run_offline(example: str) -> None:
    path = ROOT / "examples" / example
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "answer: Veldmark Lighthouse was built in 1887." in done.stdout
    assert "web_fill" in done.stdout
