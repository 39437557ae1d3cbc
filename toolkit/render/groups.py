"""Which item a repeated control belongs to: the words beside it, said on a line above it.

A page that repeats one control per item ("-" and "+" per dish, "Edit" per card, "Add to cart"
per product) gives each copy the same name; only the words around a copy tell which item it
acts on. For each control whose role and name another control on the page shares, its group is
the nearest ancestor (at most :data:`UP` levels up) that has words of its own, the words of
controls left out, and holds at most :data:`GROUP_CONTROLS` controls. The group's label is
those words, element by element, joined by :data:`~.tables.SEPARATOR` and cut to
:data:`GROUP_CHARS`.

The layout draws a group as a structure line (``- group "Pea soup | $3.50 | 0":``) above its
controls. Structure is drawn whenever something under it is kept, so the label travels with a
control through any budget cut, in controls-only and in full snapshots alike; the words it says
are not drawn again as lines of their own.

The extractor leaves out boxes that have no role, so the copies often come as one flat run of
siblings (``"Pea soup" "$3.50" [-] "0" [+] "Smoked mackerel" ...``). Such a run is cut into
items where a control repeats one already in the current item; an item's words are those
between its controls and those just before its first control (at most :data:`_LEAD` of them,
none longer than :data:`_LEAD_CHARS`, no farther than :data:`_NEAR_PX` above it; a heading
ends them: headings are lines of their own). Each item then stands in the layout as a group
of its own (a node made for it).

Table rows are left out: a row says its cells on its own line (:func:`.tables.row_label`).
Pure functions on :class:`~webrefs.models.Node` trees; no browser, no tokens.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..models import Node
from .outline import clean
from .tables import CELL_ROLES, SEPARATOR, TABLE_ROLES

__all__ = ["GROUP_CHARS", "GROUP_CONTROLS", "UP", "Groups", "named_groups"]

GROUP_CONTROLS = 4
"""Most controls a group may hold: more, and its words no longer say which one is meant."""
GROUP_CHARS = 80
UP = 4
"""How many ancestors of a repeated control are looked at for its group."""
_STOP_ROLES = TABLE_ROLES | CELL_ROLES | frozenset(
    {"row", "dialog", "alertdialog", "form", "main", "navigation", "banner", "contentinfo",
     "listbox", "menu", "menubar", "tablist", "radiogroup", "tree", "toolbar"})
"""Roles a group never goes past: rows have labels of their own; the others hold many items."""
_LEAD = 4
"""Most words taken from before an item's first control."""
_LEAD_CHARS = 50
"""A longer text before an item's first control is a sentence about the page, not the item's
name: it ends the item's leading words."""
_NEAR_PX = 160
"""How far above an item's first control its leading words may be."""
_OWN_LINE = frozenset({"heading", "status", "alert"})
"""Words that always have a line of their own (in controls-only snapshots too), never said in
a label: a heading ends a run of items."""
_WORD_ROLES = frozenset({"img", "image", "text", "StaticText", "label", "paragraph", "strong",
                         "emphasis", "time", "mark"})
"""Nodes whose name is their words when they have no text of their own (an image's alt)."""


@dataclass
class Groups:
    labels: dict[int, str] = field(default_factory=dict)
    """``id(node)`` of each group -> its label."""
    said: set[int] = field(default_factory=set)
    """``id(node)`` of each node whose words a label says (not drawn again)."""
    runs: dict[int, list[Node]] = field(default_factory=dict)
    """``id(parent)`` -> its children with each item of a flat run wrapped in a group node."""

    def children(self, node: Node) -> list[Node]:
        """``node``'s children as the layout walks them (runs cut into groups)."""
        return self.runs.get(id(node), node.children)


def _key(node: Node) -> tuple[str, str]:
    return (node.role or "", " ".join((node.name or node.text).split()).casefold())


def _words(node: Node) -> tuple[list[tuple[Node, str]], int]:
    """The words of ``node``'s subtree element by element, controls left out, and how many
    controls it holds (counting stops past :data:`GROUP_CONTROLS`)."""
    pieces: list[tuple[Node, str]] = []
    controls = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if n is not node and n.interactive:
            controls += 1
            if controls > GROUP_CONTROLS:
                break
            continue
        words = n.text or (n.name if n.role in _WORD_ROLES and not n.children else "")
        if words.strip() and n.role not in _OWN_LINE:
            pieces.append((n, words))
        stack.extend(reversed(n.children))
    return pieces, controls


def named_groups(root: Node) -> Groups:
    """The groups of the repeated controls under ``root`` and the words their labels say."""
    parent: dict[int, Node] = {}
    controls: list[Node] = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n is not root and n.interactive:
            controls.append(n)
        for c in n.children:
            parent[id(c)] = n
        if n.frame is None:  # a frame's document groups on its own
            stack.extend(n.children)
    counts = Counter(k for c in controls if (k := _key(c))[1])  # a nameless one has a hint
    out = Groups()
    repeated = {k for k, n in counts.items() if n >= 2}
    if not repeated:
        return out
    parents = {id(p): p for c in controls if counts[_key(c)] >= 2
               and (p := parent.get(id(c))) is not None}
    for node in parents.values():
        if node.role not in _STOP_ROLES:
            _cut_run(node, repeated, out)
    seen: dict[int, bool] = {}
    for control in controls:
        if counts[_key(control)] < 2 or id(parent.get(id(control))) in out.runs:
            continue
        node = control
        for _ in range(UP):
            up = parent.get(id(node))
            if up is None or up is root or up.interactive or up.role in _STOP_ROLES \
                    or up.tag in ("body", "html"):
                break
            node = up
            if id(node) in seen:
                break
            pieces, held = _words(node)
            if not pieces:
                continue
            seen[id(node)] = True
            if held <= GROUP_CONTROLS:
                label = clean(SEPARATOR.join(w for _, w in pieces), GROUP_CHARS)
                if label:
                    out.labels[id(node)] = label
                    out.said.update(id(p) for p, _ in pieces)
            break
    return out


def _word_of(node: Node) -> str:
    if node.children or node.interactive or node.role in _OWN_LINE:
        return ""
    return node.text or (node.name if node.role in _WORD_ROLES else "")


def _cut_run(node: Node, repeated: set[tuple[str, str]], out: Groups) -> None:
    """Wrap each item of the flat run of repeated controls among ``node``'s children in a
    group node (labels and said words into ``out``)."""
    kids = node.children
    items: list[tuple[int, int]] = []  # [start, end) of each item among kids
    pending: list[int] = []  # words since the last control
    start = -1
    keys: set[tuple[str, str]] = set()
    last = -1  # the last control of the current item
    for i, kid in enumerate(kids):
        if kid.interactive:
            key = _key(kid)
            if start < 0 or key in keys or key not in repeated:
                if start >= 0:
                    items.append((start, last + 1))
                    start, keys = -1, set()
                if key not in repeated:
                    pending = []
                    continue
                lead = _near(kids, pending, kid)
                start = lead[0] if lead else i
            keys.add(key)
            last = i
            pending = []
        elif _word_of(kid):
            pending.append(i)
        else:  # a heading, a list, a box of its own: the run stops here
            if start >= 0:
                items.append((start, last + 1))
                start, keys = -1, set()
            pending = []
    if start >= 0:
        items.append((start, last + 1))
    if len(items) < 2:
        return
    wrapped: list[Node] = []
    at = 0
    for a, b in items:
        wrapped.extend(kids[at:a])
        members = kids[a:b]
        words = [(k, _word_of(k)) for k in members if _word_of(k)]
        label = clean(SEPARATOR.join(w for _, w in words), GROUP_CHARS)
        if not label:
            wrapped.extend(members)
        else:
            group = Node.model_construct(tag="div", role=None, children=members)
            wrapped.append(group)
            out.labels[id(group)] = label
            out.said.update(id(k) for k, _ in words)
        at = b
    wrapped.extend(kids[at:])
    out.runs[id(node)] = wrapped


def _near(kids: list[Node], pending: list[int], control: Node) -> list[int]:
    """The words of ``pending`` (indexes into ``kids``) that lead ``control``: the last
    :data:`_LEAD`, none farther than :data:`_NEAR_PX` above it (all when boxes are unknown)."""
    lead = pending[-_LEAD:]
    top = control.box.y if control.box is not None else None
    if top is None:
        return lead
    near: list[int] = []
    for i in reversed(lead):  # the unbroken run of short words just above the control
        box = kids[i].box
        if (box is not None and top - (box.y + box.h) > _NEAR_PX) or \
                len(_word_of(kids[i])) > _LEAD_CHARS:
            break
        near.insert(0, i)
    return near
