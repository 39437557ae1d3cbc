"""What changed between two snapshots, by ref, in a few lines.

``diff_snapshots(before, after)`` compares two pages element by element (a ref's line,
whatever its position) and lists changed lines first, then added, then removed, within a token
budget. Lines without a ref (content, dialogs) are compared as a multiset of texts. Works on
both formats. Pure.

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

from ..errors import InvalidArgumentError
from ..models import RenderedFrom, Snapshot
from .layout import CANDIDATE, DIALOG_ROLES, build_layout
from .outline import FORMATS, details, states
from .tokens import TokenCounter

__all__ = ["diff_snapshots", "page_lines", "snapshot_lines"]

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
    tree = tree_of.tree
    out = FORMATS[fmt]
    layout = build_layout(tree, interactive_only=options.interactive_only,
                          compact=options.compact, max_depth=options.max_depth,
                          max_text=options.max_text_per_node)
    by_ref: dict[str, str] = {}
    plain: list[str] = []
    for it in layout.items:
        if it.kind == CANDIDATE:
            line = out.node(0, it.role, it.name, states(it.node),
                            details(it.node, it.role, tree.url, options.max_text_per_node,
                                    it.hint) + list(it.facts),
                            it.ref, False)
        elif it.role in DIALOG_ROLES or (not options.compact and it.role != "generic"):
            line = out.node(0, it.role, it.name, [], [], None, False)
        else:
            continue
        # the line form of snapshot_lines: no depth key (json), no "- " (text)
        line = "{" + line[len('{"depth":0,'):] if fmt == "json" else line[2:]
        if it.ref:
            by_ref[it.ref] = line
        else:
            plain.append(line)
    return by_ref, plain


def diff_snapshots(before: Snapshot | None, after: Snapshot, *, max_tokens: int | None = None,
                   encoding: str = "o200k_base") -> str:
    """A compact diff of ``after`` against ``before`` (the whole ``after`` text when there is
    no ``before``). At most ``max_tokens`` tokens (default: the budget ``after`` was rendered
    with, else 3000); lines that do not fit are counted in a last line."""
    if max_tokens is None:
        m = _MAX_TOKENS.search(after.text.split("\n", 1)[0])
        max_tokens = int(m.group(1)) if m else 3000
    if max_tokens < 1:
        raise InvalidArgumentError("diff_snapshots needs max_tokens >= 1.")
    counter = TokenCounter(encoding)
    if before is None:
        return counter.head(after.text, max_tokens)
    old_refs, old_plain, old_url = snapshot_lines(before)
    new_refs, new_plain, new_url = snapshot_lines(after)
    if before.source is not None and after.source is not None:
        fmt = "json" if after.text.startswith("{") else "text"
        old_refs, old_plain = page_lines(before.source, after.source, fmt)
        new_refs, new_plain = page_lines(after.source, after.source, fmt)
    changed = [(r, old_refs[r], line) for r, line in new_refs.items()
               if r in old_refs and old_refs[r] != line]
    added = [line for r, line in new_refs.items() if r not in old_refs]
    removed = [line for r, line in old_refs.items() if r not in new_refs]
    plus = Counter(new_plain) - Counter(old_plain)
    minus = Counter(old_plain) - Counter(new_plain)
    added += [line for line in new_plain if plus[line] > 0 and not _take(plus, line)]
    removed += [line for line in old_plain if minus[line] > 0 and not _take(minus, line)]

    head = f"[diff] url={new_url}"
    if new_url != old_url:
        head += f" (navigated from {old_url})"
    head += f" changed={len(changed)} added={len(added)} removed={len(removed)}"
    body: list[str] = []
    for _, old, new in changed:
        body.append(f"~ {new}  (was: {old})")
    body += [f"+ {line}" for line in added]
    body += [f"- {line}" for line in removed]
    if not body:
        body = ["(no change)"]
    used = counter.exact(head) + 1
    out = [head]
    for i, line in enumerate(body):
        cost = counter.count(line) + 1
        reserve = 0 if i == len(body) - 1 else 16
        if used + cost + reserve > max_tokens:
            out.append(f"... {len(body) - i} more changes (web_snapshot to see the page)")
            break
        out.append(line)
        used += cost
    text = "\n".join(out)
    while counter.exact(text) > max_tokens and len(out) > 1:
        out.pop(-2 if len(out) > 2 else -1)
        text = "\n".join(out)
    return counter.head(text, max_tokens)


def _take(counts: Counter[str], line: str) -> bool:
    """Consume one occurrence; returns False so it can sit in a comprehension filter."""
    counts[line] -= 1
    return False
