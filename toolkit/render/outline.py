"""Snapshot lines: escaping of page text and the formatting of one node, marker or header.

Everything here is pure string work. Page text can never forge structure: it is folded onto one
line (a form field's value keeps its whitespace, with line breaks and tabs written ``\n``,
``\r``, ``\t``), and quotes, backslashes and square brackets are escaped, so no page string
can end a quoted name, start a new outline line, or look like ``[ref=e1]``. The escaping is
:func:`webrefs.quoting.escape`, the one rule for page strings in everything a model reads.

Two formats share the same lines: ``text`` (an indented outline in the aria-snapshot style) and
``json`` (one JSON object per line inside a JSON document).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..models import Node
from ..quoting import escape

__all__ = [
    "FORMATS",
    "KEY_ATTRS",
    "clean",
    "clean_value",
    "escape",
    "is_ref",
    "plural",
    "quote",
    "safe_role",
    "safe_url",
]

_REF = re.compile(r"(?:f\d{1,6})?e\d{1,9}")
_ROLE = re.compile(r"[a-z][a-z0-9_-]{0,39}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_VALUE_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_NUMBER = re.compile(r"-?\d{1,15}(?:\.\d{1,6})?")
_FIELD_ROLES = frozenset({"slider", "spinbutton"})
_URL_ESCAPES = str.maketrans(
    {" ": "%20", '"': "%22", "[": "%5B", "]": "%5D", "\\": "%5C", "<": "%3C", ">": "%3E"}
)
ELLIPSIS = "…"

KEY_ATTRS: tuple[str, ...] = ("href", "placeholder", "type", "name", "id", "alt", "title", "src")
"""Attributes copied into ``NodeRef.attrs`` (when the extractor sent them)."""

_SHOWN_STATES: tuple[tuple[str, bool], ...] = (
    # (state, whether a false value is worth showing)
    ("checked", False), ("selected", False), ("pressed", True), ("expanded", True),
    ("disabled", False), ("readonly", False), ("required", False), ("invalid", False),
    ("focused", False), ("modal", False), ("scrolled-out", False),
)
_BARE_FACTS = frozenset({"level", "options", "type", "min", "max", "sort", "current", "rows"})
"""Facts printed unquoted (their values are numbers or known words)."""
_PLAIN_INPUT_TYPES = frozenset({"", "text", "search", "submit", "button", "checkbox", "radio"})


def is_ref(value: object) -> bool:
    """True for ref-shaped strings: ``e12`` or ``f1e3``."""
    return isinstance(value, str) and _REF.fullmatch(value) is not None


def clean(text: str | None, limit: int) -> str:
    """Page text folded onto one line (every kind of whitespace and line break becomes one
    space, control and bidi-override characters removed), cut to ``limit`` characters."""
    if not text:
        return ""
    if not text.isprintable():
        text = _CONTROL.sub(" ", text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return text


def clean_value(text: str | None, limit: int) -> str:
    """A form field's value as the field holds it (line breaks, tabs and runs of spaces kept;
    other control and bidi-override characters removed), cut to ``limit`` characters."""
    if not text:
        return ""
    if not text.isprintable():
        text = _VALUE_CONTROL.sub("", text)
    if len(text) > limit:
        text = text[: max(limit - 1, 0)] + ELLIPSIS
    return text


def quote(text: str | None, limit: int) -> str:
    """``"text"`` cleaned, cut and escaped; empty string when there is no text."""
    body = clean(text, limit)
    return f'"{escape(body)}"' if body else ""


_role_cache: dict[str, str] = {}


def safe_role(role: str | None, default: str = "generic") -> str:
    """A role as printed: lowercase letters only, so a page cannot inject through it."""
    if not role:
        return default
    known = _role_cache.get(role)
    if known is not None:
        return known or default
    checked = _safe_role(role)
    if len(_role_cache) < 10_000:
        _role_cache[role] = checked
    return checked or default


def _safe_role(role: str) -> str:
    if _ROLE.fullmatch(role):
        return role
    if role:
        low = role.strip().lower().split(" ")[0]
        if _ROLE.fullmatch(low):
            return low
    return ""


def safe_url(url: str, page_url: str = "", limit: int = 80) -> str:
    """A URL as printed: same-origin prefix removed, no spaces, quotes or brackets, cut."""
    url = clean(url, 2000)
    if page_url:
        origin = _origin(page_url)
        if origin and url.startswith(origin + "/"):
            url = url[len(origin):]
    url = url.translate(_URL_ESCAPES)
    if len(url) > limit:
        url = url[: limit - 1] + ELLIPSIS
    return url


def _origin(url: str) -> str:
    m = re.match(r"^([a-z][a-z0-9+.-]*://[^/?#]+)", url, re.IGNORECASE)
    return m.group(1) if m else ""


def plural(role: str, n: int) -> str:
    if n == 1:
        return role
    if role.endswith(("x", "s", "ch")):
        return role + "es"
    if role.endswith("y") and not role.endswith(("ay", "ey", "oy")):
        return role[:-1] + "ies"
    return role + "s"


def node_text(node: Node) -> str:
    """What a node says: its accessible name, else its own text."""
    return node.name or node.text


def states(node: Node) -> list[tuple[str, str | None]]:
    """Shown states as (name, value-or-None) pairs, in a fixed order."""
    out: list[tuple[str, str | None]] = []
    st = node.states
    if not st:
        return out
    for key, show_false in _SHOWN_STATES:
        if key not in st:
            continue
        value = st[key]
        if value is True:
            out.append((key, None))
        elif value is False:
            if show_false:
                out.append((key, "false"))
        else:
            out.append((key, clean(str(value), 20)))
    return out


def _bound(node: Node, aria: str, html: str, default: str) -> str:
    attrs = node.attrs
    raw = (attrs.get(aria) or attrs.get(html) or "").strip()
    if not raw and node.tag == "input" and attrs.get("type", "").lower() == "range":
        raw = default
    return raw if _NUMBER.fullmatch(raw) else ""


def details(node: Node, role: str, page_url: str, limit: int,
            hint: str = "") -> list[tuple[str, str]]:
    """Extra key/value facts shown on a full line: hint (a nameless control's), level, value,
    min and max (sliders, spinbuttons), options, placeholder..."""
    out: list[tuple[str, str]] = []
    if hint:
        out.append(("hint", clean(hint, min(limit, 60))))
    if node.level is not None:
        out.append(("level", str(node.level)))
    if node.value:
        out.append(("value", clean_value(node.value, limit)))
    elif node.options:
        chosen = [o.label or o.value for o in node.options if o.selected]
        if chosen:
            out.append(("value", clean(", ".join(chosen), limit)))
    if role in _FIELD_ROLES:
        low, high = (_bound(node, "aria-valuemin", "min", "0"),
                     _bound(node, "aria-valuemax", "max", "100"))
        if low:
            out.append(("min", low))
        if high:
            out.append(("max", high))
    if node.options:
        labels = [clean(o.label or o.value, 30) for o in node.options[:6]]
        more = "|…" if len(node.options) > 6 else ""
        out.append(("options", "|".join(labels) + more))
    attrs = node.attrs
    if attrs:
        ph = attrs.get("placeholder")
        if ph and ph != node.name:
            out.append(("placeholder", clean(ph, min(limit, 80))))
        typ = attrs.get("type", "").lower()
        if node.tag == "input" and typ not in _PLAIN_INPUT_TYPES:
            out.append(("type", safe_role(typ, "text")))
        href = attrs.get("href")
        if href and role == "link" and not node_text(node):
            out.append(("href", safe_url(href, page_url)))
    return out


class TextFormat:
    """The indented outline: ``- role "name" [state] [ref=e5]``."""

    name = "text"
    separator = "\n"

    def node(self, depth: int, role: str, name: str, states: Sequence[tuple[str, str | None]],
             facts: Sequence[tuple[str, str]], ref: str | None, children: bool) -> str:
        parts = ["  " * depth, "- ", role]
        if name:
            parts.append(f' "{escape(name)}"')
        for key, value in facts:
            if key in _BARE_FACTS:
                parts.append(f" [{key}={escape(value)}]")
            elif key == "href":
                parts.append(f" [href={value}]")
            else:
                parts.append(f' [{key}="{escape(value)}"]')
        for key, sv in states:
            parts.append(f" [{key}]" if sv is None else f" [{key}={escape(sv)}]")
        if ref:
            parts.append(f" [ref={ref}]")
        if children:
            parts.append(":")
        return "".join(parts)

    def marker(self, depth: int, count: int, kinds: Sequence[tuple[str, int]], other: int,
               hint: str, elsewhere: bool) -> str:
        where = " elsewhere" if elsewhere else ""
        if len(kinds) == 1 and not other:
            what = f"{count} more {plural(kinds[0][0], count)}{where}"
        else:
            bits = [f"{n} {plural(r, n)}" for r, n in kinds]
            if other:
                bits.append(f"{other} other")
            what = f"{count} more{where}: " + ", ".join(bits)
        return f"{'  ' * depth}- ... {what} ({hint})"

    def note(self, depth: int, label: str, body: str) -> str:
        if label == "...":
            return f"{'  ' * depth}- ... {body}"
        return f"{'  ' * depth}- {label}: {body}"

    def header(self, fields: Mapping[str, Any]) -> str:
        parts = ["[snapshot]", f"url={fields['url']}", f'title="{escape(fields["title"])}"']
        if fields["page"] != "unknown":  # (a label that says nothing is left out)
            parts.append(f"page={fields['page']}")
        parts += [f"refs={fields['refs']}", f"tokens={fields['tokens']}/{fields['max_tokens']}",
                  f"truncated={'true' if fields['truncated'] else 'false'}"]
        if fields.get("scope"):
            parts.append(f"scope={fields['scope']}")
        if fields.get("summary"):
            parts.append("summary=true")
        return " ".join(parts)

    def join(self, header: str, lines: Sequence[str]) -> str:
        return "\n".join([header, *lines])


class JsonFormat:
    """One JSON document: the header fields, then ``nodes``, one object per line."""

    name = "json"
    separator = ",\n"

    @staticmethod
    def _dump(obj: Any) -> str:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))

    def node(self, depth: int, role: str, name: str, states: Sequence[tuple[str, str | None]],
             facts: Sequence[tuple[str, str]], ref: str | None, children: bool) -> str:
        obj: dict[str, Any] = {"depth": depth, "role": role}
        if name:
            obj["name"] = name
        for key, value in facts:
            obj[key] = int(value) if key == "level" and value.isdigit() else value
        if states:
            obj["states"] = {k: (True if v is None else v) for k, v in states}
        if ref:
            obj["ref"] = ref
        return self._dump(obj)

    def marker(self, depth: int, count: int, kinds: Sequence[tuple[str, int]], other: int,
               hint: str, elsewhere: bool) -> str:
        obj: dict[str, Any] = {"depth": depth, "more": count, "kinds": dict(kinds)}
        if other:
            obj["kinds"]["other"] = other
        if elsewhere:
            obj["elsewhere"] = True
        obj["hint"] = hint
        return self._dump(obj)

    def note(self, depth: int, label: str, body: str) -> str:
        return self._dump({"depth": depth, "note": label, "text": body})

    def header(self, fields: Mapping[str, Any]) -> str:
        head = {k: v for k, v in fields.items() if v is not None}
        return self._dump(head)[:-1] + ',"nodes":['

    def join(self, header: str, lines: Sequence[str]) -> str:
        return header + "\n" + ",\n".join(lines) + "\n]}"


FORMATS: dict[str, TextFormat | JsonFormat] = {"text": TextFormat(), "json": JsonFormat()}
