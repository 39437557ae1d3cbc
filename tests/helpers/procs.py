"""Process helpers for tests: which Chromium processes descend from this test process."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces; ppid follows it.
        rest = stat.rsplit(")", 1)[-1].split()
        if len(rest) > 2 and rest[0] != "Z":
            tree.setdefault(int(rest[1]), []).append(int(entry))
    return tree


def cmdline(pid: int) -> str:
    """The command line of a process, arguments joined by spaces ("" when it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def chromium_descendants(root: int | None = None) -> set[int]:
    """Live (non-zombie) Chromium/Chrome processes below ``root`` (default: this process)."""
    tree = _children()
    found: set[int] = set()
    stack = [root or os.getpid()]
    while stack:
        pid = stack.pop()
        for child in tree.get(pid, []):
            stack.append(child)
            cmd = cmdline(child).lower()
            if "chrom" in cmd.split(" ", 1)[0] or "headless_shell" in cmd:
                found.add(child)
    return found


def wait_until(check: Callable[[], T], timeout: float = 5.0, interval: float = 0.05) -> T:
    """Poll ``check`` until it returns something truthy or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)
