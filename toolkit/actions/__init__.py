"""Actions on a tab: resolve a target, act with real input, verify, report.

Each function takes a :class:`~webrefs.tab.TabCore` and runs on the Browser's loop.
"""

from __future__ import annotations

from .navigate import go_back, go_forward, goto
from .snapshot import snapshot
from .stubs import (
    check,
    click,
    fill,
    get_text,
    hover,
    press_key,
    screenshot,
    scroll,
    select,
    upload,
    wait_for,
)

__all__ = [
    "check",
    "click",
    "fill",
    "get_text",
    "go_back",
    "go_forward",
    "goto",
    "hover",
    "press_key",
    "screenshot",
    "scroll",
    "select",
    "snapshot",
    "upload",
    "wait_for",
]
