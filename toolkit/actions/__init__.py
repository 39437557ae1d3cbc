"""Actions on a tab: resolve a target, act with real input, verify, report.

Each function takes a :class:`~webrefs.session.tabcore.TabCore` and runs on the Browser's loop.
"""

from __future__ import annotations

from .capture import screenshot, screenshot_marked
from .checking import check
from .drag import drag
from .files import upload
from .host import evaluate, read_tree
from .keys import press_key
from .navigate import go_back, go_forward, goto, reload
from .pointer import click, click_at, hover, hover_at
from .scrolling import scroll
from .selecting import select
from .snapshot import snapshot
from .targets import PagePoint
from .text import get_text, wait_for
from .textinput import fill
from .typing import type_text

__all__ = [
    "PagePoint",
    "check",
    "click",
    "click_at",
    "drag",
    "evaluate",
    "fill",
    "get_text",
    "go_back",
    "go_forward",
    "goto",
    "hover",
    "hover_at",
    "press_key",
    "read_tree",
    "reload",
    "screenshot",
    "screenshot_marked",
    "scroll",
    "select",
    "snapshot",
    "type_text",
    "upload",
    "wait_for",
]
