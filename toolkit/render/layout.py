"""From a page tree to a flat list of outline items, in document order.

Each item is a node that may become one outline line: a *candidate* (an element an agent acts
on, or content when content is asked for) or *structure* (landmarks, lists, tables, forms,
frames) drawn only around kept candidates. Wrappers with no role are folded away in compact
mode. Depth is capped at ``max_depth``: deeper structure is not drawn and deeper candidates are
lifted. A control with no name gets a hint: in interactive-only mode a form field (text
field, combobox, slider, spinbutton...) without a placeholder takes the nearest text
before it (after the control before it; headings, alerts and status lines, which that mode
shows, do not count), else the extractor's hint (an icon's class, an image file name, an
id). Pure: no browser, no tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UnknownRefError
from ..models import INTERACTIVE_ROLES, Node, PageTree
from .groups import named_groups
from .outline import clean, is_ref, safe_role
from .tables import CELL_ROLES, TABLE_ROLES, cell_text, current_of, row_label, sort_of, table_facts

__all__ = ["CONTENT_ROLES", "STRUCTURE_ROLES", "Item", "Layout", "build_layout"]

CANDIDATE = 1
STRUCTURE = 2

STRUCTURE_ROLES: frozenset[str] = frozenset(
    {
        "banner", "navigation", "main", "contentinfo", "complementary", "region", "search",
        "form", "dialog", "alertdialog", "list", "table", "grid", "treegrid", "tree", "menu",
        "menubar", "tablist", "toolbar", "radiogroup", "article", "feed", "tabpanel", "row",
        "iframe", "figure", "directory", "group",
    }
)
"""Roles drawn as structure around kept nodes (``group`` only when it has a name)."""

CONTENT_ROLES: frozenset[str] = frozenset(
    {
        "heading", "paragraph", "img", "image", "listitem", "cell", "columnheader",
        "rowheader", "blockquote", "code", "term", "definition", "caption", "math", "note",
        "status", "alert", "log", "timer", "tooltip", "text", "strong", "emphasis", "time",
        "mark", "meter", "progressbar", "figcaption", "label", "legend", "deletion",
        "insertion", "subscript", "superscript", "generic", "StaticText",
    }
)
"""Roles that are content: candidates when content is asked for and they carry text."""

CONTEXT_ROLES: frozenset[str] = frozenset({"heading", "alert", "status"})
"""Content kept (without ref) even in interactive-only mode: what the page says it is about,
and what it says went wrong."""

DIALOG_ROLES: frozenset[str] = frozenset({"dialog", "alertdialog"})

TEXT_BEFORE_ROLES: frozenset[str] = frozenset(
    {"textbox", "searchbox", "combobox", "listbox", "slider", "spinbutton"}
)
"""Fields whose label, when not tied to them, is usually the text just before them."""
HINT_CHARS = 60


@dataclass(slots=True)
class Item:
    idx: int
    """Position in document order (pre-order)."""
    node: Node
    role: str
    kind: int
    parent: int
    """Index of the nearest drawn-able ancestor item, -1 for the top level."""
    depth: int
    end: int = 0
    """One past the last item of this item's subtree (subtrees are contiguous)."""
    ref: str | None = None
    """Shown ref (only candidates that carry a valid ref, and not content in interactive mode)."""
    name: str = ""
    hint: str = ""
    """A nameless control's hint (text before a field, or the extractor's guess)."""
    label: str = ""
    """Name shown on this item's line when it is drawn as structure (a table row's cells)."""
    facts: tuple[tuple[str, str], ...] = ()
    """Key/value facts shown after the node's own (``sort``, ``current``, a table's
    ``columns`` and ``rows``)."""
    flags: tuple[tuple[str, str | None], ...] = ()
    """States shown on this item's line when it is drawn as structure (a selected row)."""
    frame: str | None = None
    tier: int = 3
    """0 focused element, 1 inside an open dialog, 2 in the focused element's form, 3 the rest."""
    interactive: bool = False
    in_viewport: bool = False
    lifted: bool = False
    score: float = 0.0


@dataclass
class Layout:
    items: list[Item] = field(default_factory=list)
    depth_cut: bool = False
    """Structure below ``max_depth`` was not drawn (some nodes were lifted)."""
    scope_node: Node | None = None


def _find(node: Node, ref: str) -> Node | None:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.ref == ref:
            return n
        stack.extend(reversed(n.children))
    return None


def scope_root(tree: PageTree, scope: str | None) -> Node:
    """The node to render: the whole page, or the subtree of a ref given as ``scope``."""
    if scope and is_ref(scope):
        found = _find(tree.root, scope)
        if found is None:
            raise UnknownRefError(
                f"scope={scope} is not on this page.",
                hint="Take a new snapshot and use a ref from it, or pass a CSS selector.",
            )
        return found
    return tree.root


def build_layout(tree: PageTree, *, interactive_only: bool, compact: bool, max_depth: int,
                 max_text: int, scope: str | None = None) -> Layout:
    """Flatten ``tree`` (or the ``scope`` ref's subtree) into items in document order."""
    root = scope_root(tree, scope)
    layout = Layout(scope_node=root if root is not tree.root else None)
    items = layout.items
    cap = max_depth - 1
    focused = tree.focused_ref
    groups = named_groups(root)
    before = [""]  # the latest text since the latest control, in document order
    heading = [""]  # the latest heading's text, in document order

    def visit(node: Node, parent: int, depth: int, frame: str | None, tier: int,
              sort: str = "", in_table: bool = False) -> None:
        role_raw = node.role
        role = safe_role(role_raw, "") if role_raw else ""
        framed = node.frame
        if framed is not None:
            role = "iframe"
        elif not role and node.tag == "form":
            role = "form"
        interactive = node.clickable or role_raw in INTERACTIVE_ROLES
        text = node.name or node.text
        hint = ""
        if interactive:
            if not text:
                if interactive_only and role in TEXT_BEFORE_ROLES and not (
                        node.attrs and node.attrs.get("placeholder")):
                    hint = before[0]
                hint = clean(hint or node.hint, HINT_CHARS)
            before[0] = ""
        elif role not in CONTEXT_ROLES and (node.text or (node.name and role in CONTENT_ROLES)):
            before[0] = node.text or node.name
        if role == "heading" and text:
            heading[0] = text
        kind = 0
        facts: list[tuple[str, str]] = []
        leaf = False  # its children are summed up on its own line
        if role in TABLE_ROLES:
            in_table = True
            summed = table_facts(node) if interactive_only else None
            if summed is not None:
                facts, leaf = summed, True
                text = node.name or heading[0]
                before[0] = ""
        elif not interactive_only and not text and role in CELL_ROLES and node.children and not any(
                c.clickable or c.role in INTERACTIVE_ROLES for c in _below(node)):
            text = cell_text(node, max_text)  # one cell, one line
            leaf = bool(text)
        header_sort = sort_of(node)
        if header_sort:
            sort = header_sort
        grouped = groups.labels.get(id(node), "")
        if grouped and not interactive and not leaf:
            kind = STRUCTURE  # a repeated control's group: its words on its own line
            role = role or "group"
        elif leaf or interactive:
            kind = CANDIDATE
        elif role in STRUCTURE_ROLES and (role != "group" or node.name):
            kind = STRUCTURE
        elif text and (role in CONTEXT_ROLES or (not interactive_only
                                                  and (not role or role in CONTENT_ROLES))):
            kind = CANDIDATE
        elif not compact and node is not tree.root:
            kind = STRUCTURE
        my_tier = tier
        st = node.states
        ref = node.ref
        is_focus = bool(ref and ref == focused) or bool(st and st.get("focused") is True)
        if role in DIALOG_ROLES or (st and st.get("modal") is True):
            my_tier = min(my_tier, 1)
        child_frame = framed.prefix if framed is not None else frame
        children = [] if leaf else groups.children(node)
        if kind == 0 or (kind == STRUCTURE and depth >= cap):
            if kind and children:
                layout.depth_cut = True
            for child in children:
                visit(child, parent, depth, child_frame, my_tier, sort, in_table)
            return
        if kind == CANDIDATE and not interactive and id(node) in groups.said:
            for child in children:  # its words are on its group's line
                visit(child, parent, depth, child_frame, my_tier, sort, in_table)
            return
        if kind == CANDIDATE and not interactive_only and text and not leaf:
            # a control's label is said once: on the control's line, not again as text
            if interactive and _said_by(items, text, interactive=False):
                items.pop()
            elif not interactive and role in LABEL_TEXT_ROLES and not node.children and \
                    _said_by(items, text, interactive=True):
                return
        idx = len(items)
        show_ref = ref if (kind == CANDIDATE and ref and is_ref(ref)
                           and (interactive or leaf or not interactive_only)) else None
        if kind == STRUCTURE and role in TABLE_ROLES and ref and is_ref(ref):
            show_ref = ref  # a table drawn around its controls: web_get_text reads it whole
        if kind == CANDIDATE and (interactive or header_sort) and sort:
            facts.append(("sort", sort))
        current = current_of(node)
        if current:
            facts.append(("current", current))
        label = ""
        flags: list[tuple[str, str | None]] = []
        if grouped:
            label = grouped
        elif role in TABLE_ROLES and not leaf:
            label = clean(node.name, 60)
        elif role == "row" and in_table:
            if interactive_only:
                label = row_label(node)
                if kind == CANDIDATE:
                    text = label
            elif kind == CANDIDATE:
                text = ""  # its cells have lines of their own
            if node.states.get("selected") is True:
                flags.append(("selected", None))
            if current:
                flags.append(("current", current))
        lifted = depth > cap
        item = Item(
            idx=idx, node=node, role=role or ("text" if kind == CANDIDATE else "generic"),
            kind=kind, parent=parent, depth=cap if lifted else depth, ref=show_ref,
            name=clean(text, max_text) if kind == CANDIDATE else clean(node.name, 60),
            hint=hint, frame=frame, tier=0 if is_focus and kind == CANDIDATE else my_tier,
            interactive=interactive, in_viewport=node.in_viewport, lifted=lifted,
            label=label, facts=tuple(facts), flags=tuple(flags),
        )
        items.append(item)
        if lifted:
            layout.depth_cut = True
        if depth < cap:
            for child in children:
                visit(child, idx, depth + 1, child_frame, my_tier, sort, in_table)
        else:
            for child in children:
                visit(child, parent, depth, child_frame, my_tier, sort, in_table)
        item.end = len(items)

    for child in groups.children(root) if root is tree.root else [root]:
        visit(child, -1, 0, None, 3)
    _mark_focused_form(items)
    return layout


LABEL_TEXT_ROLES: frozenset[str] = frozenset({"text", "label", "generic", "StaticText", ""})
"""Roles of a plain text line that may be a control's label said again."""


def _same_words(a: str, b: str) -> bool:
    def norm(s: str) -> str:
        return " ".join(s.split()).casefold().rstrip(":*").strip()
    return bool(norm(a)) and norm(a) == norm(b)


def _said_by(items: list[Item], text: str, *, interactive: bool) -> bool:
    """Whether the last item is a line saying ``text``: a control (``interactive``) or a plain
    text leaf, right before in document order."""
    if not items:
        return False
    last = items[-1]
    if last.kind != CANDIDATE or last.interactive != interactive:
        return False
    if not interactive and (last.role not in LABEL_TEXT_ROLES or last.node.children):
        return False
    return _same_words(last.name, text)


def _below(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.children)
    return out


def _frame_of(node: Node, current: str | None) -> str | None:
    if node.frame is not None:
        return node.frame.prefix
    return current


def _mark_focused_form(items: list[Item]) -> None:
    """Candidates in the form around the focused element go to tier 2."""
    focus = next((it for it in items if it.tier == 0), None)
    if focus is None:
        return
    form: Item | None = None
    p = focus.parent
    while p >= 0:
        anc = items[p]
        if anc.role == "form" or anc.node.tag == "form":
            form = anc
            break
        p = anc.parent
    if form is None:
        return
    for it in items[form.idx + 1: form.end]:
        if it.kind == CANDIDATE and it.tier > 2:
            it.tier = 2
