"""``webrefs eval`` as a user runs it: exit codes, messages (never a traceback), Ctrl-C."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import DATA
from tests.helpers.procs import chromium_descendants, end_group, start_group

MINI = str(DATA / "suites" / "mini.json")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def webrefs(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webrefs.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_schema_prints_the_json_schema() -> None:
    proc = webrefs("eval", "schema")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["title"] == "webrefs eval suite"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "run", "--provider", "nope"], "Unknown provider 'nope'"),
        (["eval", "run", "--suite", "no-such-suite"], "neither a builtin suite nor a file"),
        (["eval", "run", "--shard", "3/2"], "Shard 3/2 is not valid"),
        (["eval", "run", "--suite", MINI, "--task", "nope"], "Unknown task id(s): nope"),
        (["eval", "validate", str(DATA / "trees" / "shop.json")], "does not follow the task"),
        (["eval", "compare", "/nonexistent/a.json", "/nonexistent/b.json"],
         "Cannot read results"),
    ],
)
def test_bad_input_is_one_message_and_exit_2(args: list[str], message: str,
                                             tmp_path: Path) -> None:
    if args[:2] == ["eval", "run"]:
        args = [*args, "--out", str(tmp_path)]
    proc = webrefs(*args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.browser
def test_validate_names_the_failing_step_of_each_task() -> None:
    proc = webrefs("eval", "validate", MINI)
    assert proc.returncode == 1
    out = proc.stdout
    assert "suite mini: 5 task(s), format valid" in out
    assert "ok   lantern-hours" in out and "ok   order-brass" in out
    assert ("FAIL broken-reference (1 steps): the reference could not go on: Step 2 "
            "(web_click) needs a link named 'Careers'") in out
    assert "FAIL wrong-answer" in out
    assert "2 of 5 reference solution(s) failed" in out


@pytest.mark.browser
def test_validate_passes_the_demo_suite() -> None:
    proc = webrefs("eval", "validate", "demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all 1 reference solutions pass" in proc.stdout


@pytest.mark.browser
def test_run_writes_results_and_reports(tmp_path: Path) -> None:
    proc = webrefs("eval", "run", "--suite", MINI, "--task", "newsletter", "--out", str(tmp_path),
                   "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "[1/1] reference newsletter: success" in proc.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["providers"]["reference"]["succeeded"] == 1
    assert f"results: {tmp_path / 'results.json'}" in proc.stdout


@pytest.mark.browser
def test_ctrl_c_keeps_what_finished_and_resume_finishes(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "webrefs.cli", "eval", "run", "--suite", MINI, "--out",
           str(tmp_path), "--quiet"]
    # Ctrl-C must reach it even when the suite itself was started in the background by a
    # shell, whose children inherit an ignored SIGINT (Python then installs no handler)
    proc = start_group(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       preexec_fn=_default_sigint)
    results = tmp_path / "results.json"
    deadline = time.monotonic() + 120
    try:
        while True:  # wait for the first finished episode, then interrupt
            assert time.monotonic() < deadline, "no episode finished"
            assert proc.poll() is None, "the run ended before it could be interrupted"
            if results.exists() and json.loads(results.read_text())["episodes"]:
                break
            time.sleep(0.1)
        # frozen first, so the episodes left cannot all finish before the interrupt lands
        # (each takes a fraction of a second), then interrupted and let go
        proc.send_signal(signal.SIGSTOP)
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGCONT)
        _out, err = proc.communicate(timeout=60)
    finally:
        end_group(proc)  # the run's browsers too, when it did not end them itself
    assert proc.returncode == 130, err
    assert "interrupted: the finished episodes are kept" in err
    assert "Traceback" not in err
    kept = json.loads(results.read_text())
    assert 1 <= len(kept["episodes"]) < 5
    assert kept["run"]["interrupted"] is True
    again = webrefs("eval", "run", "--suite", MINI, "--out", str(tmp_path), "--resume",
                    "--quiet")
    assert again.returncode == 0, again.stderr
    ran = [line for line in again.stderr.splitlines() if line.startswith("[")]
    assert len(ran) == 5 - len(kept["episodes"])
    assert len(json.loads(results.read_text())["episodes"]) == 5


@pytest.mark.browser
def test_a_browser_killed_mid_run_is_one_message_and_keeps_what_finished(
        tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "webrefs.cli", "eval", "run", "--suite", MINI, "--out",
           str(tmp_path), "--quiet"]
    proc = start_group(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = tmp_path / "results.json"
    deadline = time.monotonic() + 120
    try:
        while True:
            assert time.monotonic() < deadline, "no episode finished"
            assert proc.poll() is None, "the run ended before the browser could be killed"
            if results.exists() and json.loads(results.read_text())["episodes"]:
                break
            time.sleep(0.1)
        killed = 0
        for pid in chromium_descendants(proc.pid):
            # (a renderer may end between the listing and the kill: a context closed)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        assert killed, "no browser process of the run was found to kill"
        _out, err = proc.communicate(timeout=120)
    finally:
        end_group(proc)  # the run's browsers too, when it did not end them itself
    assert proc.returncode == 1, err
    assert "The browser closed during the run" in err and "--resume" in err
    assert "Traceback" not in err
    kept = json.loads(results.read_text())
    assert kept["run"]["interrupted"] is True
    assert 1 <= len(kept["episodes"]) < 5


@pytest.mark.browser
def test_validate_fails_a_reference_whose_step_errs_even_if_the_checks_pass(
        tmp_path: Path) -> None:
    shutil.copytree(DATA / "suites" / "mini-site", tmp_path / "site")
    suite = {
        "schema": 1, "name": "erring",
        "site": {"folder": "site", "origin": "http://erring.webrefs.test"},
        "tasks": [{
            "id": "fill-a-link", "start_url": "/about.html", "goal": "Say hello.",
            "success": [{"type": "answer", "contains": "hello"}],
            "reference": [
                {"tool": "web_snapshot"},
                {"tool": "web_fill", "target": {"role": "link", "name": "Back to the shop"},
                 "args": {"value": "x"}},
                {"answer": "hello"},
            ],
        }],
    }
    path = tmp_path / "erring.json"
    path.write_text(json.dumps(suite))
    proc = webrefs("eval", "validate", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL fill-a-link (2 steps): step 2 (web_fill) failed with [" in proc.stdout


@pytest.mark.browser
def test_a_run_folder_with_recordings_is_replayed_unless_live(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rec = webrefs("eval", "record", "--suite", MINI, "--task", "newsletter", "--out", str(out),
                  "--quiet")
    assert rec.returncode == 0, rec.stderr
    assert (out / "pages" / "newsletter.har").is_file()
    again = webrefs("eval", "run", "--suite", MINI, "--task", "newsletter", "--out", str(out),
                    "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "results.json").read_text())["run"]["pages"] == "replay"
    assert "pages replayed" in again.stdout and "success" in again.stderr
    live = webrefs("eval", "run", "--suite", MINI, "--task", "newsletter", "--out", str(out),
                   "--quiet", "--live")
    assert live.returncode == 0, live.stderr
    assert json.loads((out / "results.json").read_text())["run"]["pages"] == "live"
    assert "pages live" in live.stdout
