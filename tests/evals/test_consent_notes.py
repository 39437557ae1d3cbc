"""In an eval run the harness, not a person, approves sensitive actions, and the results say
so; travel's "Confirm booking" is a purchase like the shop's checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.browser
def test_the_harness_approves_a_booking_and_says_it_did(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "webrefs.cli", "eval", "run", "--suite", "builtin",
         "--provider", "reference", "--task", "travel-book-cheapest", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.returncode == 0, proc.stderr
    (episode,) = json.loads((tmp_path / "results.json").read_text())["episodes"]
    assert episode["status"] == "success"
    booking = next(c for c in episode["trajectory"] if c["tool"] == "web_click"
                   and "Confirm booking" in (c["output"] or ""))
    assert booking["safety"] == "confirm:approved"
    assert "(confirmed by the eval harness)" in booking["output"]
    assert not any("by the user" in (c["output"] or "") for c in episode["trajectory"])
