"""Reading the outline the tools return: each line's role, name, ref, states and depth.

Pure code: the reference policies see the page only through this text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["Item", "Outline", "parse"]

_LINE = re.compile(r'^(?P<mark>[+~]?)(?P<indent>\s*)-\s+(?P<role>[\w-]+)'
                   r'(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>[^\n]*)$')
_ATTR = re.compile(r'\[(?P<key>[\w-]+)(?:=(?P<value>"(?:[^"\\]|\\.)*"|[^\]]*))?\]')


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPED = re.compile(r"\\(.)")


def _unescape(text: str) -> str:
    """A quoted string of the outline as the page has it (``\\"``, ``\\\\``, ``\\n``,
    ``\\r``, ``\\t`` undone in one pass)."""
    return _ESCAPED.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


@dataclass(frozen=True)
class Item:
    """One outline line."""

    role: str
    name: str
    ref: str | None
    depth: int
    attrs: dict[str, str] = field(default_factory=dict)

    @property
    def value(self) -> str | None:
        return self.attrs.get("value")

    @property
    def options(self) -> tuple[str, ...]:
        raw = self.attrs.get("options")
        return tuple(raw.split("|")) if raw else ()

    def has(self, state: str) -> bool:
        """A state shown as ``[checked]``, ``[selected]``, ``[expanded]`` (not ``=false``)."""
        return state in self.attrs and self.attrs[state] not in ("false",)


class Outline:
    """The lines of one snapshot (or diff), in order."""

    def __init__(self, items: Iterable[Item]) -> None:
        self.items = list(items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def all(self, role: str | tuple[str, ...] | None = None, name: str | None = None, *,
            exact: bool = True, refs: bool = True) -> list[Item]:
        """Items with one of ``role`` whose name is ``name`` (case-sensitive; contains it
        with ``exact=False``, case-insensitive), with a ref unless ``refs`` is false."""
        roles = (role,) if isinstance(role, str) else role
        out = []
        for item in self.items:
            if refs and item.ref is None:
                continue
            if roles is not None and item.role not in roles:
                continue
            if name is not None:
                if exact and item.name != name:
                    continue
                if not exact and name.lower() not in item.name.lower():
                    continue
            out.append(item)
        return out

    def first(self, role: str | tuple[str, ...] | None = None, name: str | None = None, *,
              exact: bool = True) -> Item | None:
        found = self.all(role, name, exact=exact)
        return found[0] if found else None

    def texts(self) -> list[str]:
        """Every name, in order (text lines with or without refs)."""
        return [i.name for i in self.items if i.name]


def parse(text: str) -> Outline:
    """The outline lines of a tool result (other lines are left out)."""
    items = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        attrs: dict[str, str] = {}
        ref = None
        for a in _ATTR.finditer(m.group("rest")):
            key, value = a.group("key"), a.group("value")
            if value is not None and value.startswith('"'):
                value = _unescape(value[1:-1])
            if key == "ref":
                ref = value
            else:
                attrs[key] = value if value is not None else "true"
        items.append(Item(role=m.group("role"), name=_unescape(m.group("name") or ""), ref=ref,
                          depth=len(m.group("indent")) // 2, attrs=attrs))
    return Outline(items)
