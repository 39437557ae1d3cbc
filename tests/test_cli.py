"""The webrefs command line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from webrefs.cli import main


def test_doctor_reports_a_working_browser_and_tokenizer() -> None:
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        pytest.fail("TIKTOKEN_CACHE_DIR is not set: run the suite through '.ci/dev test'")
    proc = subprocess.run(
        [sys.executable, "-m", "webrefs.cli", "doctor"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "starts: yes" in proc.stdout
    assert "o200k_base: loads" in proc.stdout
    assert "playwright" in proc.stdout


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_demo_options_reach_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--help"])
    assert info.value.code == 0
    assert "--" in capsys.readouterr().out  # the demo's own options are listed
