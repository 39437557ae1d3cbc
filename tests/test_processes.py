"""The process helpers the tests rely on to leave nothing running: a process group ended with
every descendant, and a process of this run found once its starter has ended without it."""

from __future__ import annotations

import os
import sys

from tests.helpers.procs import (
    TAG_VAR,
    alive,
    descendants,
    end_group,
    end_strays,
    start_group,
    strays,
    wait_until,
)

# A wrapper that starts a long-lived child and then waits, as ``python -m playwright
# run-server`` waits on its node process.
_WRAPPER = ("import subprocess, sys, time; "
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
            "time.sleep(120)")
# A starter that leaves its child running and ends at once.
_DESERTER = ("import subprocess, sys; "
             "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])")


def test_ending_a_group_ends_the_child_a_wrapper_started() -> None:
    proc = start_group([sys.executable, "-c", _WRAPPER])
    try:
        children = wait_until(lambda: descendants(proc.pid), timeout=10)
        assert children, "the wrapper started no child"
    finally:
        end_group(proc)
    assert not [pid for pid in children if alive(pid)]


def test_a_process_whose_starter_ended_is_a_stray_of_this_run() -> None:
    tag = os.environ[TAG_VAR]  # this run's, set by conftest: every process started carries it
    before = {s.pid for s in strays(tag)}
    proc = start_group([sys.executable, "-c", _DESERTER])
    proc.wait(timeout=30)
    found = wait_until(lambda: [s for s in strays(tag) if s.pid not in before], timeout=10)
    try:
        assert len(found) == 1 and "time.sleep(120)" in found[0].command
    finally:
        end_strays(found)
    assert wait_until(lambda: not any(alive(s.pid) for s in found), timeout=10)
