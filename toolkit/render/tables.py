"""Tables in the outline: what a row says, what a table holds, which way a column is sorted.

Pure functions on :class:`~webrefs.models.Node` trees; no browser, no tokens.

- :func:`cell_text`: a cell's words, its controls left out (they have lines of their own), its
  pieces (an unread badge apart from the sender, two lines of a cell) joined by ``" · "``.
- :func:`row_label`: a row's cell texts joined by ``" | "`` (empty cells left out), cut, so a
  row of buttons still says which item it is: ``row "T-501 | Marlinspike | 21"``.
- :func:`table_facts`: for a table with no control in it, its column headers and its number of
  data rows, for the one line that stands for it in controls-only mode; ``None`` when it holds
  a control (then its rows are drawn around their controls) or no data row.
- :func:`sort_of`: a column or row header's ``aria-sort`` when it says a direction.
- :func:`current_of`: an ``aria-current`` that says something (not ``false``).
"""

from __future__ import annotations

import re

from ..models import INTERACTIVE_ROLES, Node
from .outline import clean

__all__ = ["CELL_ROLES", "SEPARATOR", "TABLE_ROLES", "cell_text", "current_of", "row_label",
           "sort_of", "table_facts"]

TABLE_ROLES: frozenset[str] = frozenset({"table", "grid", "treegrid"})
CELL_ROLES: frozenset[str] = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
SEPARATOR = " | "
"""Between the cells of a row, in the outline and in ``web_get_text``."""

PIECES = " · "
"""Between the pieces of one cell (a badge and the name beside it, two lines in one cell)."""
ROW_CHARS = 90
"""Longest row label (a compact identifier, not the whole row)."""
_CELL_CHARS = 40
_COLUMNS = 8
"""Column headers listed on a table's line (more end in ``|…``)."""
_COLUMN_CHARS = 24
_WORD = re.compile(r"[a-z]{1,12}")
_SORTS = frozenset({"ascending", "descending", "other"})


def _is_control(node: Node) -> bool:
    return node.clickable or node.role in INTERACTIVE_ROLES


def cell_text(cell: Node, limit: int = _CELL_CHARS) -> str:
    """The words of ``cell`` and of what is in it, controls left out, on one line."""
    if cell.name and not any(_is_control(n) for n in _walk(cell, skip_root=True)):
        return clean(cell.name, limit)
    parts: list[str] = []
    stack = [cell]
    while stack:
        n = stack.pop()
        if n is not cell and _is_control(n):
            continue
        if n.text:
            parts.append(n.text)
        elif n is not cell and n.name and not n.children:
            parts.append(n.name)
        stack.extend(reversed(n.children))
    return clean(PIECES.join(parts), limit)


def _cells(row: Node) -> list[Node]:
    """The cells of ``row`` (through wrappers that have no role)."""
    out: list[Node] = []
    stack = list(reversed(row.children))
    while stack:
        n = stack.pop()
        if n.role in CELL_ROLES:
            out.append(n)
        elif not n.role:
            stack.extend(reversed(n.children))
    return out


def row_label(row: Node, limit: int = ROW_CHARS) -> str:
    """The texts of ``row``'s cells joined by :data:`SEPARATOR`, empty ones left out; ``""``
    for a row of column headers (the columns are not an item)."""
    cells = _cells(row)
    if all(c.role == "columnheader" for c in cells):
        return ""
    texts = [t for t in (cell_text(c) for c in cells) if t]
    return clean(SEPARATOR.join(texts), limit)


def _rows(table: Node) -> list[Node]:
    """The rows of ``table``, not those of a table nested in it."""
    out: list[Node] = []
    stack = list(reversed(table.children))
    while stack:
        n = stack.pop()
        if n.role == "row":
            out.append(n)
        elif n.role not in TABLE_ROLES:
            stack.extend(reversed(n.children))
    return out


def table_facts(table: Node) -> list[tuple[str, str]] | None:
    """``[("columns", "Name|Email"), ("rows", "12")]`` for a table without controls (columns
    left out when it has no header row); ``None`` when a control is in it or it has no data
    row."""
    if any(_is_control(n) for n in _walk(table, skip_root=False)):
        return None
    heads: list[str] = []
    data = 0
    for row in _rows(table):
        cells = _cells(row)
        if cells and not heads and all(c.role == "columnheader" for c in cells):
            heads = [cell_text(c, _COLUMN_CHARS) for c in cells]
        elif cells:
            data += 1
    if not data:
        return None  # nothing to read: no line for it
    facts: list[tuple[str, str]] = []
    if any(heads):
        shown = [h.replace("|", "/") for h in heads[:_COLUMNS]]
        more = "|…" if len(heads) > _COLUMNS else ""
        facts.append(("columns", "|".join(shown) + more))
    facts.append(("rows", str(data)))
    return facts


def sort_of(node: Node) -> str:
    """``ascending``, ``descending`` or ``other`` from a header's ``aria-sort``; else ``""``."""
    if node.role not in ("columnheader", "rowheader") or not node.attrs:
        return ""
    value = node.attrs.get("aria-sort", "").strip().lower()
    return value if value in _SORTS else ""


def current_of(node: Node) -> str:
    """``aria-current`` as shown: ``""`` when absent or false, else its value (``page``,
    ``step``, ``true``...; ``true`` for anything that is not one short word)."""
    if not node.attrs:
        return ""
    value = node.attrs.get("aria-current", "").strip().lower()
    if value in ("", "false"):
        return ""
    return value if _WORD.fullmatch(value) else "true"


def _walk(node: Node, *, skip_root: bool) -> list[Node]:
    out: list[Node] = []
    stack = list(reversed(node.children)) if skip_root else [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n.children))
    return out
