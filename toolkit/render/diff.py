"""What changed between two snapshots, by ref, in a few lines.

``diff_snapshots(before, after)`` compares two pages element by element (a ref's line,
whatever its position) and lists, within a token budget: changed and added elements in the
new page's order, each with its ref, under the line of the element holding it (``in form
"Checkout":``) unless that line is itself listed; then removed ones, named with their refs;
then one line counting the elements that did not change (``unchanged: 41 other elements``).
Lines without a ref (content, dialogs) are compared as a multiset of texts. Works on both
formats. Pure.

What is compared is the whole page, not what each snapshot's budget kept: snapshots made by
:func:`~webrefs.render` carry the tree they were rendered from (``Snapshot.source``), and both
trees are laid out with the ``after`` snapshot's options (interactive-only, compact, depth and
text caps) and every element of each is compared. An element one budget kept and the other cut
is on both pages, so it is not a change. Scope, viewport-only and the budget do not matter.
Only when a snapshot has no tree (one built from its text) are the snapshots' own lines
compared, and then an element cut by a budget reads as removed or added.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

from ..errors import InvalidArgumentError
from ..models import RenderedFrom, Snapshot
from .layout import CANDIDATE, DIALOG_ROLES, build_layout
from .outline import FORMATS, details, states
from .tokens import TokenCounter

__all__ = ["diff_snapshots", "page_lines", "ref_runs", "refs_in_runs", "snapshot_lines"]

_REF_PARTS = re.compile(r"^((?:f\d+)?e)(\d+)$")
_MAX_RUN = 100_000
"""Longest run :func:`refs_in_runs` spells out (a longer one is read as the text it is)."""
_REF_AT_END = re.compile(r" \[ref=((?:f\d+)?e\d+)\]:?$")
_MAX_TOKENS = re.compile(r" tokens=\d+/(\d+) ")
_URL = re.compile(r"^\[snapshot\] url=(\S*)")


def snapshot_lines(snap: Snapshot) -> tuple[dict[str, str], list[str], str]:
    """(ref -> its line, lines without a ref, url) of a snapshot; indentation and the
    trailing ``:`` are dropped so moves and new children are not changes."""
    by_ref: dict[str, str] = {}
    plain: list[str] = []
    text = snap.text
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {"nodes": []}
        for obj in doc.get("nodes", []):
            ref = obj.get("ref")
            body = json.dumps({k: v for k, v in obj.items() if k != "depth"},
                              ensure_ascii=False, separators=(",", ":"))
            if isinstance(ref, str):
                by_ref[ref] = body
            elif "more" not in obj:
                plain.append(body)
        return by_ref, plain, str(doc.get("url", snap.page.url))
    lines = text.split("\n")
    m = _URL.match(lines[0]) if lines else None
    url = m.group(1) if m else snap.page.url
    for raw in lines[1:]:
        line = raw.strip()
        if line.startswith("- ... "):
            continue
        line = line[2:] if line.startswith("- ") else line
        rm = _REF_AT_END.search(line)
        if rm:
            by_ref[rm.group(1)] = line.rstrip(":")
        else:
            plain.append(line.rstrip(":"))
    return by_ref, plain, url


def page_lines(tree_of: RenderedFrom, options: RenderedFrom, fmt: str
               ) -> tuple[dict[str, str], list[str]]:
    """(ref -> its line, lines without a ref) of every element of ``tree_of.tree``, laid out
    with ``options``' settings, in the line form of :func:`snapshot_lines`. No budget: an
    element is here whether or not a snapshot kept it. Lines without a ref are content and
    dialogs (other structure only when ``compact`` is off, as snapshots draw it then)."""
    by_ref: dict[str, str] = {}
    plain: list[str] = []
    for entry in _entries(tree_of, options, fmt):
        if entry.ref:
            by_ref[entry.ref] = entry.line
        else:
            plain.append(entry.line)
    return by_ref, plain


@dataclass(frozen=True)
class _Entry:
    """One element of a page in line form, with the line of the element holding it."""

    line: str
    ref: str | None
    parent: str | None
    """The line of the nearest element holding it (structure or control), ``None`` at the
    top level."""
    index: int
    """Its place in document order."""
    key: str = ""
    """What is compared: the line without the focus, which moves with every action and is
    said by the action's own result (empty: the line itself)."""

    @property
    def same(self) -> str:
        return self.key or self.line


def _entries(tree_of: RenderedFrom, options: RenderedFrom, fmt: str) -> list[_Entry]:
    tree = tree_of.tree
    out = FORMATS[fmt]
    layout = build_layout(tree, interactive_only=options.interactive_only,
                          compact=options.compact, max_depth=options.max_depth,
                          max_text=options.max_text_per_node)
    items = layout.items

    def strip(line: str) -> str:
        # the line form of snapshot_lines: no depth key (json), no "- " (text)
        return "{" + line[len('{"depth":0,'):] if fmt == "json" else line[2:]

    def holder(i: int) -> str:
        it = items[i]
        if it.kind == CANDIDATE:
            return strip(out.node(0, it.role, it.name, states(it.node), [], it.ref, False))
        return strip(out.node(0, it.role, it.label or it.name, it.flags, [], None, False))

    entries: list[_Entry] = []
    for it in items:
        if it.kind == CANDIDATE:
            shown = states(it.node)
            facts = details(it.node, it.role, tree.url, options.max_text_per_node,
                            it.hint) + list(it.facts)
            line = out.node(0, it.role, it.name, shown, facts, it.ref, False)
            unfocused = [st for st in shown if st[0] != "focused"]
            key = (out.node(0, it.role, it.name, unfocused, facts, it.ref, False)
                   if len(unfocused) != len(shown) else line)
        elif it.role in DIALOG_ROLES or (not options.compact and it.role != "generic"):
            line = key = out.node(0, it.role, it.name, [], [], None, False)
        else:
            continue
        parent = holder(it.parent) if it.parent >= 0 else None
        entries.append(_Entry(strip(line), it.ref, parent, it.idx, strip(key)))
    return entries


def diff_snapshots(before: Snapshot | None, after: Snapshot, *, max_tokens: int | None = None,
                   encoding: str = "o200k_base", said: str = "", acted: str | None = None) -> str:
    """A compact diff of ``after`` against ``before`` (the whole ``after`` text when there is
    no ``before``). At most ``max_tokens`` tokens (default: the budget ``after`` was rendered
    with, else 3000); lines that do not fit are counted in a last line.

    ``said`` is what the model is shown with the diff (an action's summary) and ``acted`` the
    ref the action worked on: a line without a ref that ``said`` quotes whole (``status
    "Saved."``, and the old text of its kind in its place), the change of ``acted`` to the
    value ``said`` quotes (a fill's new value, a check's ``[checked]``), and the radios of its
    group that a checked radio unchecked are not repeated; when that leaves nothing, the diff
    says ``(no other change)``."""
    if max_tokens is None:
        m = _MAX_TOKENS.search(after.text.split("\n", 1)[0])
        max_tokens = int(m.group(1)) if m else 3000
    if max_tokens < 1:
        raise InvalidArgumentError("diff_snapshots needs max_tokens >= 1.")
    counter = TokenCounter(encoding)
    if before is None:
        return counter.head(after.text, max_tokens)
    _, _, old_url = snapshot_lines(before)
    if before.source is not None and after.source is not None:
        fmt = "json" if after.text.startswith("{") else "text"
        old = _entries(before.source, after.source, fmt)
        new = _entries(after.source, after.source, fmt)
        new_url = after.source.tree.url or after.page.url
    else:
        old_refs, old_plain, _ = snapshot_lines(before)
        new_refs, new_plain, new_url = snapshot_lines(after)
        old = [_Entry(line, r, None, i, _unfocused(line))
               for i, (r, line) in enumerate(old_refs.items())]
        old += [_Entry(line, None, None, len(old) + i) for i, line in enumerate(old_plain)]
        new = [_Entry(line, r, None, i, _unfocused(line))
               for i, (r, line) in enumerate(new_refs.items())]
        new += [_Entry(line, None, None, len(new) + i) for i, line in enumerate(new_plain)]

    old_by_ref = {e.ref: e for e in old if e.ref}
    new_refs_set = {e.ref for e in new if e.ref}
    plus = Counter(e.line for e in new if not e.ref) - Counter(e.line for e in old if not e.ref)
    minus = Counter(e.line for e in old if not e.ref) - Counter(e.line for e in new if not e.ref)
    shown: list[tuple[str, _Entry]] = []  # ("~" | "+", entry), in the new page's order
    unchanged = 0
    picked = next((e for e in new if e.ref and e.ref == acted), None)
    if picked is None or _role(picked.line) != "radio" or "Checked" not in said:
        picked = None  # else: a radio the action checked (its group's others unchecked)
    told = 0  # changes the model was told of in ``said``, not repeated
    said_new: list[_Entry] = []  # added lines without a ref that ``said`` quotes
    for e in new:
        if e.ref:
            was = old_by_ref.get(e.ref)
            if was is None:
                shown.append(("+", e))
            elif was.same == e.same:
                unchanged += 1
            elif e.ref == acted and _told_change(was.same, e.same, said):
                told += 1
            elif picked is not None and e.parent == picked.parent and _role(e.line) == "radio" \
                    and _unchecked_only(was.same, e.same):
                told += 1  # the radio the checked one replaced
            else:
                shown.append(("~", e))
        elif plus[e.line] > 0:
            plus[e.line] -= 1
            if said and e.line in said:
                told += 1
                said_new.append(e)
            else:
                shown.append(("+", e))
        else:
            unchanged += 1
    removed = [e for e in old if e.ref and e.ref not in new_refs_set]
    for e in old:
        if not e.ref and minus[e.line] > 0:
            minus[e.line] -= 1
            replaced = next((n for n in said_new if _same_place(n, e)), None)
            if replaced is not None:  # the text the summary quotes took its place
                said_new.remove(replaced)
                told += 1
            else:
                removed.append(e)
    changed = sum(1 for mark, _ in shown if mark == "~")

    head = "[diff]"
    if new_url != old_url:  # on the same page the address is known already
        head += f" url={new_url} (navigated from {old_url})"
    head += f" changed={changed} added={len(shown) - changed} removed={len(removed)}"
    body: list[tuple[str, int]] = []  # (line, how many changes it lists)
    listed = {e.line for _, e in shown}
    indents: dict[str, str] = {}  # a listed line -> its indent (what it holds goes under it)
    context: str | None = None
    for mark, e in shown:
        if e.parent is not None and e.parent in indents:  # under a listed line
            indent = indents[e.parent] + "  "
        elif e.parent is not None and e.parent not in listed and _says_where(e.parent):
            if e.parent != context:
                body.append((f"in {e.parent}:", 0))
                context = e.parent
            indent = "  "
        else:
            context, indent = None, ""
        indents[e.line] = indent
        if mark == "~":
            old_line = old_by_ref[e.ref].line if e.ref else ""
            body.append((f"{indent}~ {e.line}  (was: {_was(old_line, e.line)})", 1))
        else:
            body.append((f"{indent}+ {e.line}", 1))
    gone = [e.ref for e in removed if e.ref]
    if gone:  # the model holds their lines: the refs say which
        body.append(("- removed: " + ref_runs(gone), len(gone)))
    body += [(f"- {e.line}", 1) for e in removed if not e.ref]
    if not body:
        body = [("(no other change)" if told else "(no change)", 0)]
    tail = f"unchanged: {unchanged} other element{'s' if unchanged != 1 else ''}"
    if shown or removed:
        body.append((tail, 0))
    used = counter.exact(head) + 1
    out = [head]
    for i, (line, _) in enumerate(body):
        cost = counter.count(line) + 1
        reserve = 0 if i == len(body) - 1 else 16
        if used + cost + reserve > max_tokens:
            more = sum(n for _, n in body[i:])
            if more:
                out.append(f"... {more} more changes (web_snapshot to see the page)")
            break
        out.append(line)
        used += cost
    text = "\n".join(out)
    while counter.exact(text) > max_tokens and len(out) > 1:
        out.pop(-2 if len(out) > 2 else -1)
        text = "\n".join(out)
    return counter.head(text, max_tokens)


def ref_runs(refs: list[str]) -> str:
    """Refs in the order given, three or more that follow one another in one frame
    (``e11, e12, e13``) written as their first and last (``e11 to e13``): every ref between
    the two is in ``refs``."""
    out: list[str] = []
    i = 0
    while i < len(refs):
        m = _REF_PARTS.match(refs[i])
        j = i
        if m is not None:
            prefix, first = m.group(1), int(m.group(2))
            while j + 1 < len(refs) and refs[j + 1] == f"{prefix}{first + j + 1 - i}":
                j += 1
        if j - i >= 2:
            out.append(f"{refs[i]} to {refs[j]}")
        else:
            out += refs[i:j + 1]
        i = j + 1
    return ", ".join(out)


def refs_in_runs(text: str) -> list[str]:
    """The refs :func:`ref_runs` wrote as ``text``, each run spelled out again."""
    refs: list[str] = []
    for part in text.split(","):
        part = part.strip()
        first, _, last = part.partition(" to ")
        a, b = _REF_PARTS.match(first), _REF_PARTS.match(last)
        if (a is not None and b is not None and a.group(1) == b.group(1)
                and 0 < int(b.group(2)) - int(a.group(2)) <= _MAX_RUN):
            refs += [f"{a.group(1)}{n}" for n in range(int(a.group(2)), int(b.group(2)) + 1)]
        elif part:
            refs.append(part)
    return refs


def _unfocused(line: str) -> str:
    """A line of a snapshot's own text without its focus state."""
    return line.replace(" [focused]", "").replace(',"focused":true', "")


_PART = re.compile(r'\[(?:[^\]"]|"(?:[^"\\]|\\.)*")*\]|"(?:[^"\\]|\\.)*"|\S+')
"""The parts of a text line: the role, the quoted name, each ``[fact]``."""
_VALUE = re.compile(r'^\[value=("(?:[^"\\]|\\.)*")\]$')
_WHERE_ONLY = frozenset({"main", "banner", "contentinfo", "navigation", "search",
                         "complementary", "region", "generic", "list", "listitem", "group",
                         "article", "section", "row", "rowgroup", "cell", "gridcell"})
"""Holders that say little without a name: their ``in ...:`` line is left out."""


def _parts(line: str) -> list[str]:
    """A text line's parts without its ref and focus (``[]`` for a json line)."""
    if line.startswith("{"):
        return []
    return [p for p in _PART.findall(_REF_AT_END.sub("", line)) if p != "[focused]"]


def _was(old: str, new: str) -> str:
    """What an element's line was, as far as it differs from its new line: the old name and
    facts the new line lacks, ``not [fact]`` for facts it gained (the whole old line when
    the role changed, and in json)."""
    before, after = _parts(old), _parts(new)
    if not before or not after or before[0] != after[0]:
        return old if old.startswith("{") else _REF_AT_END.sub("", old)
    lost = [p for p in before[1:] if p not in after]
    kinds = {_kind(p) for p in before}
    gained = [f"not {p}" for p in after[1:]
              if p not in before and p.startswith("[") and _kind(p) not in kinds]
    return ", ".join(lost + gained) or _REF_AT_END.sub("", old)


def _same_place(new: _Entry, old: _Entry) -> bool:
    """Whether two lines without a ref are of one role in one holder (a status whose text
    changed reads as one removed and one added line)."""
    return new.parent == old.parent and _role(new.line) == _role(old.line)


def _role(line: str) -> str:
    if line.startswith("{"):
        return str(json.loads(line).get("role", ""))
    return line.split(" ", 1)[0]


def _unchecked_only(old: str, new: str) -> bool:
    """Whether the only change from line ``old`` to ``new`` is a lost ``[checked]``."""
    before, after = _parts(old), _parts(new)
    return bool(before) and [p for p in before if p not in after] == ["[checked]"] \
        and all(p in before for p in after)


def _kind(part: str) -> str:
    """A fact's kind (``[value=`` of ``[value="x"]``; a bare fact is its own kind)."""
    return part.split("=", 1)[0].rstrip("]")


def _told_change(old: str, new: str, said: str) -> bool:
    """Whether ``said`` tells the change of an element from line ``old`` to ``new``: the same
    role and name, and every fact that changed is a new value ``said`` quotes, or a
    ``[checked]`` that ``said`` reports as checked or unchecked."""
    before, after = _parts(old), _parts(new)
    if not before or not after or not said:
        return False
    keep = [p for p in after if not p.startswith("[")]
    if [p for p in before if not p.startswith("[")] != keep:
        return False
    gained = [p for p in after if p not in before]
    lost = [p for p in before if p not in after]
    checked = "Checked" in said or "Unchecked" in said
    for part in gained:
        value = _VALUE.match(part)
        if not (value and value.group(1) in said) and not (part == "[checked]" and checked):
            return False
    for part in lost:  # an old value the new one replaced, or a [checked] said
        if not _VALUE.match(part) and not (part == "[checked]" and checked):
            return False
    return bool(gained or lost)


def _says_where(holder: str) -> bool:
    """Whether an ``in <holder>:`` line tells the model where a change is: a holder with a
    name or ref, or one of a kind that says something by itself (a form, a dialog)."""
    if holder.startswith("{"):
        return True
    role = holder.split(" ", 1)[0]
    return " " in holder or role not in _WHERE_ONLY
