"""Argument checks shared by the actions: value caps, clamped timeouts, upload paths, scroll
amounts and key names. Pure logic, no browser."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidArgumentError

__all__ = [
    "HARD_VALUE_CAP",
    "MAX_TIMEOUT_MS",
    "MIN_TIMEOUT_MS",
    "ScrollAmount",
    "check_upload_paths",
    "check_value",
    "clamp_ms",
    "normalize_key",
    "parse_scroll",
]

MIN_TIMEOUT_MS = 100
"""Smallest timeout any action uses: ``0`` never means "wait forever"."""
MAX_TIMEOUT_MS = 60_000
"""Largest timeout any action uses."""
HARD_VALUE_CAP = 1_000_000
"""No fill value longer than this, whatever the tab options say."""


def clamp_ms(value: object, *, default: int, low: int = MIN_TIMEOUT_MS,
             high: int = MAX_TIMEOUT_MS, name: str = "timeout_ms") -> int:
    """A timeout in milliseconds, clamped to ``low..high``; ``None`` gives ``default``.

    ``0`` and negative values become ``low``: no value ever means "forever".
    """
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgumentError(f"{name} must be a number of milliseconds, got {value!r}.")
    if value != value:  # NaN
        raise InvalidArgumentError(f"{name} must be a number of milliseconds, got NaN.")
    return int(min(max(value, low), high))


def check_value(value: object, max_chars: int) -> str:
    """A text value for fill/type: a string no longer than the cap."""
    if not isinstance(value, str):
        raise InvalidArgumentError(f"The value must be a string, got {type(value).__name__}.")
    cap = min(max_chars, HARD_VALUE_CAP)
    if len(value) > cap:
        raise InvalidArgumentError(
            f"The value is {len(value)} characters long; the limit is {cap}.",
            hint="Fill a shorter text.",
            host_hint="Raise TabOptions.max_value_chars to allow longer values.",
        )
    return value


def check_upload_paths(paths: str | Sequence[str], roots: Sequence[str]) -> list[str]:
    """Resolve upload paths; each must be an existing file inside one of ``roots``.

    Symbolic links and ``..`` are resolved before the check, so neither can escape a root.
    """
    if isinstance(paths, str | os.PathLike):
        items = [paths]
    elif isinstance(paths, Sequence) and paths:
        items = list(paths)
    else:
        raise InvalidArgumentError("upload needs a file path or a non-empty list of paths.")
    if not roots:
        raise InvalidArgumentError(
            "Uploads are disabled: no folder is allowed.",
            hint="Uploading files is not possible here; tell the user.",
            host_hint="Set TabOptions.upload_roots to the folders files may be uploaded from.",
        )
    resolved_roots = [Path(r).expanduser().resolve() for r in roots]
    out: list[str] = []
    for raw in items:
        if not isinstance(raw, str | os.PathLike) or not str(raw).strip():
            raise InvalidArgumentError(f"Not a file path: {raw!r}.")
        path = Path(raw).expanduser().resolve()
        if not any(path == root or root in path.parents for root in resolved_roots):
            raise InvalidArgumentError(
                f"{str(raw)[:200]!r} is outside the folders uploads may come from.",
                hint="Allowed: " + ", ".join(str(r) for r in resolved_roots) + ".",
            )
        if not path.is_file():
            raise InvalidArgumentError(f"{str(raw)[:200]!r} is not an existing file.")
        out.append(str(path))
    return out


@dataclass(frozen=True)
class ScrollAmount:
    """How far to scroll: ``pixels`` or a number of ``screens`` (viewport heights/widths)."""

    pixels: int | None = None
    """Exact distance in CSS pixels."""
    screens: float | None = None
    """Distance in viewports (of the scrolled element)."""


_DIRECTIONS = ("up", "down", "left", "right")
_AMOUNT = re.compile(
    r"^\s*(?P<num>\d+(?:\.\d+)?)?\s*(?P<unit>px|pixels?|screens?|pages?|viewports?)?\s*$", re.I
)


def parse_scroll(direction: object, amount: object) -> tuple[str, ScrollAmount]:
    """Check a scroll direction and amount (``None`` = one screen; ``300`` or ``"300px"`` =
    pixels; ``"2 screens"``, ``"page"``, ``"half"`` = screens)."""
    if not isinstance(direction, str) or direction.strip().lower() not in _DIRECTIONS:
        raise InvalidArgumentError(
            f"Scroll direction must be one of {', '.join(_DIRECTIONS)}, got {direction!r}."
        )
    d = direction.strip().lower()
    if amount is None:
        return d, ScrollAmount(screens=0.9)
    if isinstance(amount, bool):
        raise InvalidArgumentError(f"Bad scroll amount {amount!r}.")
    if isinstance(amount, int | float):
        if not 0 < amount <= 1_000_000:
            raise InvalidArgumentError(f"Scroll amount must be 1..1000000 pixels, got {amount}.")
        return d, ScrollAmount(pixels=int(amount))
    if isinstance(amount, str):
        text = amount.strip().lower()
        if text in ("half", "half screen", "half page"):
            return d, ScrollAmount(screens=0.5)
        if text in ("end", "bottom", "top", "start", "all"):
            return d, ScrollAmount(pixels=1_000_000)
        m = _AMOUNT.match(text)
        if m and (m.group("num") or m.group("unit")):
            num = float(m.group("num") or 1)
            unit = (m.group("unit") or "px").lower()
            if num <= 0:
                raise InvalidArgumentError(f"Scroll amount must be positive, got {amount!r}.")
            if unit.startswith("p") and unit not in ("page", "pages"):
                return d, ScrollAmount(pixels=int(min(num, 1_000_000)))
            return d, ScrollAmount(screens=min(num, 100.0))
    raise InvalidArgumentError(
        f"Bad scroll amount {amount!r}.",
        hint="Use pixels (300 or '300px'), screens ('1 screen', '2 screens', 'half') or 'end'.",
    )


_MODIFIERS = {
    "control": "Control", "ctrl": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt",
    "meta": "Meta", "cmd": "Meta", "command": "Meta", "super": "Meta", "win": "Meta",
    "controlormeta": "ControlOrMeta",
}
_NAMED = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "escape": "Escape", "esc": "Escape",
    "backspace": "Backspace", "delete": "Delete", "del": "Delete", "space": "Space",
    "arrowup": "ArrowUp", "up": "ArrowUp", "arrowdown": "ArrowDown", "down": "ArrowDown",
    "arrowleft": "ArrowLeft", "left": "ArrowLeft", "arrowright": "ArrowRight",
    "right": "ArrowRight", "home": "Home", "end": "End", "pageup": "PageUp",
    "pagedown": "PageDown", "insert": "Insert", "capslock": "CapsLock",
    "contextmenu": "ContextMenu",
    **{f"f{i}": f"F{i}" for i in range(1, 13)},
}


def normalize_key(key: object) -> str:
    """A key or combination in Playwright's form (``Control+A``, ``Shift+Tab``, ``Enter``).

    Accepts common aliases (ctrl, cmd, esc, return) and any case; rejects anything else."""
    if not isinstance(key, str) or not key.strip() or len(key) > 60:
        raise InvalidArgumentError(f"Not a key: {key!r}.", hint="Examples: Enter, Control+A.")
    text = key.strip()
    parts = [p.strip() for p in (text.split("+") if text != "+" else [text])]
    if text.endswith("++"):  # "Control++" means Control and the plus key
        parts = [*[p.strip() for p in text[:-2].split("+")], "+"]
    *mods, last = parts
    out: list[str] = []
    for m in mods:
        name = _MODIFIERS.get(m.lower())
        if name is None:
            raise InvalidArgumentError(
                f"{m!r} is not a modifier in {key!r}.",
                hint="Modifiers: Control, Shift, Alt, Meta, ControlOrMeta.",
            )
        if name not in out:
            out.append(name)
    if not last:
        raise InvalidArgumentError(f"{key!r} has no key after its modifiers.")
    if len(last) == 1:
        final = last
    elif last.lower() in _NAMED:
        final = _NAMED[last.lower()]
    elif last.lower() in _MODIFIERS and not mods:
        final = _MODIFIERS[last.lower()]
    else:
        raise InvalidArgumentError(
            f"Unknown key {last!r} in {key!r}.",
            hint="Use one character or a key name such as Enter, Tab, Escape, ArrowDown, F5.",
        )
    return "+".join([*out, final])
