"""How a page string is written inside webrefs' own text: one rule for every place a model
reads one (snapshot lines and header, action results, error messages, tab lists, the system
prompt).

A page string (an accessible name, an option label, a title, a dialog's message, a value the
page put in a field) is data, so inside webrefs' sentences it is always written by
:func:`quote`: in double quotes, with nothing in it able to end the quotes, start a new line
or pass for a ref. Backslashes, double quotes and square brackets get a backslash in front;
line feeds, carriage returns and tabs are written ``\\n``, ``\\r``, ``\\t``; every other
control character and every line or paragraph separator (``U+0085``, ``U+2028``, ``U+2029``,
...) is written ``\\xNN`` or ``\\uNNNN``. Invisible and direction-changing characters
(:data:`INVISIBLE`) are removed, as snapshots remove them. :func:`escape` is the escaping
alone, for text already put in quotes (the snapshot outline's names and values).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["INVISIBLE", "escape", "named", "quote", "redacted", "redacting"]

INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]")
"""Zero-width, joiner, bidi embedding/override/isolate, variation-selector and tag
characters: a sighted reader never sees them; they hide or reorder text for a model."""

_ESCAPES: dict[int, str] = {ord("\\"): "\\\\", ord('"'): '\\"', ord("["): "\\[",
                            ord("]"): "\\]", ord("\n"): "\\n", ord("\r"): "\\r",
                            ord("\t"): "\\t"}
for _code in [*range(0x00, 0x20), *range(0x7F, 0xA0)]:
    _ESCAPES.setdefault(_code, f"\\x{_code:02x}")
for _code in (0x2028, 0x2029):
    _ESCAPES[_code] = f"\\u{_code:04x}"
_TABLE = str.maketrans(_ESCAPES)
_NEEDS = re.compile("[\\\\\"\\[\\]\x00-\x1f\x7f-\x9f\u2028\u2029]")
ELLIPSIS = "…"

_REDACTOR: ContextVar[Callable[[str], str] | None] = ContextVar("webrefs_redactor",
                                                                default=None)


@contextmanager
def redacting(redactor: Callable[[str], str] | None) -> Iterator[None]:
    """While the block runs (and in every task it starts), :func:`redacted` applies
    ``redactor``: the tool registry installs the redactor of the policy's secrets around each
    tool call, so every cut made on the way (:func:`quote`; ``cap``, ``elide`` and ``clip``
    of :mod:`webrefs.errors`; the safety layer's ``clean_line``) replaces a secret before it
    cuts and never leaves part of one."""
    token = _REDACTOR.set(redactor)
    try:
        yield
    finally:
        _REDACTOR.reset(token)


def redacted(text: str) -> str:
    """``text`` with the secrets of the call running now replaced (see :func:`redacting`);
    unchanged outside such a call."""
    redactor = _REDACTOR.get()
    return redactor(text) if redactor is not None and text else text


def escape(text: str) -> str:
    """``text`` with backslashes, double quotes and square brackets backslash-escaped, and
    every line break, tab, other control character and line or paragraph separator written
    as an escape (``\\n``, ``\\t``, ``\\x0b``, ``\\u2028``), so it stays inside its quotes and
    on its line."""
    return text.translate(_TABLE) if _NEEDS.search(text) else text


def quote(text: str | None, limit: int = 200) -> str:
    """``"text"``: a page string as webrefs writes it inside its own sentences (invisible
    characters removed, the running call's secrets replaced (:func:`redacted`), cut to
    ``limit`` characters ending in ``…``, then :func:`escape`)."""
    body = INVISIBLE.sub("", redacted(text or ""))
    if len(body) > limit:
        body = body[: max(limit - 1, 0)] + ELLIPSIS
    return f'"{escape(body)}"'


def named(role: str, name: str | None, limit: int = 60) -> str:
    """An element as results and errors name it: ``button "Save"``, or the role alone when
    it has no name. ``role`` must already be a safe role word (the snapshot's)."""
    if not name or not INVISIBLE.sub("", name).strip():
        return role
    return f"{role} {quote(name.strip(), limit)}"
