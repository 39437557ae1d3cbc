"""Process helpers for tests: which Chromium processes descend from this test process, and
starting and ending the processes a test starts itself, children included.

A test that starts a program (a Chromium with a debugging port, ``playwright run-server``)
starts it with :func:`start_group`, in a process group of its own, and ends it with
:func:`end_group`: the whole group and every descendant, so a wrapper's child (the node
process behind ``python -m playwright``, Chromium's renderers) never outlives the test.

Every process this test run starts carries :data:`TAG_VAR` in its environment (set by
``tests/conftest.py``, inherited by children and grandchildren). A process that carries this
run's tag and is no longer below the test process was left behind: its starter ended and it
did not (:func:`strays`); ``tests/conftest.py`` fails the test after which one is found.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

TAG_VAR = "WEBREFS_TEST_RUN"
"""Environment variable naming the test run that started a process."""


@dataclass(frozen=True)
class _Proc:
    state: str
    ppid: int
    pgrp: int
    started: int
    """Clock ticks since boot."""


def _stat(pid: int) -> _Proc | None:
    """What ``/proc/PID/stat`` says of ``pid`` (``None`` when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces; the fields follow it.
    rest = stat.rsplit(")", 1)[-1].split()
    try:
        return _Proc(rest[0], int(rest[1]), int(rest[2]), int(rest[19]))
    except (IndexError, ValueError):
        return None


def _table() -> dict[int, _Proc]:
    table: dict[int, _Proc] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (proc := _stat(int(entry))) is not None:
            table[int(entry)] = proc
    return table


def _children(table: dict[int, _Proc] | None = None) -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for pid, proc in (table if table is not None else _table()).items():
        if proc.state != "Z":
            tree.setdefault(proc.ppid, []).append(pid)
    return tree


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, which only waits to be reaped, does not)."""
    stat = _stat(pid)
    return stat is not None and stat.state not in ("Z", "X")


def cmdline(pid: int) -> str:
    """The command line of a process, arguments joined by spaces ("" when it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(root: int | None = None, table: dict[int, _Proc] | None = None) -> set[int]:
    """Live (non-zombie) processes below ``root`` (default: this process)."""
    tree = _children(table)
    found: set[int] = set()
    stack = [root or os.getpid()]
    while stack:
        for child in tree.get(stack.pop(), []):
            found.add(child)
            stack.append(child)
    return found


def browsers_started(before: set[int]) -> set[int]:
    """The Chromium processes below this process that were not in ``before`` and whose
    parent is no Chromium: the main processes of browsers started since (a browser already
    running may start processes of its own meanwhile, a spare renderer; those are below it)."""
    table = _table()
    found = set()
    for pid in chromium_descendants() - before:
        proc = table.get(pid)
        if proc is not None and not is_chromium(proc.ppid):
            found.add(pid)
    return found


def is_chromium(pid: int) -> bool:
    cmd = cmdline(pid).lower()
    return "chrom" in cmd.split(" ", 1)[0] or "headless_shell" in cmd


def chromium_descendants(root: int | None = None) -> set[int]:
    """Live (non-zombie) Chromium/Chrome processes below ``root`` (default: this process)."""
    return {pid for pid in descendants(root) if is_chromium(pid)}


def wait_until(check: Callable[[], T], timeout: float = 5.0, interval: float = 0.05) -> T:
    """Poll ``check`` until it returns something truthy or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


# -- processes a test starts -----------------------------------------------------------------
def start_group(cmd: Sequence[str], **popen: Any) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in a new session (so a process group) of its own, output discarded
    unless ``popen`` says otherwise; end it with :func:`end_group`."""
    popen.setdefault("stdout", subprocess.DEVNULL)
    popen.setdefault("stderr", subprocess.DEVNULL)
    return subprocess.Popen(list(cmd), start_new_session=True, **popen)


def end_group(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """End ``proc``, its process group and every descendant (asked with SIGTERM, then
    killed), reap it, and raise ``AssertionError`` if any of them still runs after that."""
    pgid = proc.pid  # start_group made it the leader of its own group
    tree = descendants(proc.pid)  # before anything ends: orphans lose their place in it
    members = {proc.pid, *tree}

    def signal_all(sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
        for pid in list(members) + sorted(descendants(proc.pid) - members):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    if proc.poll() is None:
        signal_all(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)
    members |= descendants(proc.pid)
    signal_all(signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)

    def gone() -> bool:
        return not any(alive(pid) for pid in members) and not _group_alive(pgid)

    assert wait_until(gone, timeout=grace), (
        f"processes still run after ending {cmdline(proc.pid) or proc.args!r}: "
        f"{[(pid, cmdline(pid)[:120]) for pid in sorted(members) if alive(pid)]}")


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # signal 0 also reaches zombies: only a live member counts
    return any(p.pgrp == pgid and p.state not in ("Z", "X") for p in _table().values())


# -- processes left behind -------------------------------------------------------------------
@dataclass(frozen=True)
class Stray:
    """A process of this test run that is no longer below the test process."""

    pid: int
    command: str


def _tag_of(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            env = fh.read()
    except OSError:
        return None
    key = TAG_VAR.encode() + b"="
    for item in env.split(b"\0"):
        if item.startswith(key):
            return item[len(key):].decode(errors="replace")
    return None


_ME = _stat(os.getpid())
_ME_STARTED = _ME.started if _ME is not None else 0


def strays(tag: str) -> list[Stray]:
    """Live processes carrying ``tag`` in :data:`TAG_VAR` that are neither this process nor
    below it: a test started them (or a program a test started did), and whatever started
    them has ended without ending them. (Only processes started after this one are read: no
    other can carry its tag.)"""
    me = os.getpid()
    table = _table()
    mine = descendants(me, table) | {me}
    found: list[Stray] = []
    for pid, proc in table.items():
        if pid in mine or proc.started < _ME_STARTED or proc.state in ("Z", "X"):
            continue
        if _tag_of(pid) == tag:
            command = cmdline(pid)
            if not _daemon_by_design(command):
                found.append(Stray(pid, command[:200]))
    return found


def _daemon_by_design(command: str) -> bool:
    """Chromium's crash handler leaves its browser's tree on purpose (it detaches itself at
    start, to outlive a crash) and ends a moment after its browser does."""
    program = command.split(" ", 1)[0]
    return program.endswith("/chrome_crashpad_handler") or program == "chrome_crashpad_handler"


def end_strays(found: list[Stray]) -> None:
    """Kill processes :func:`strays` found (so one test's leak does not fail the next)."""
    for stray in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(stray.pid, signal.SIGKILL)
