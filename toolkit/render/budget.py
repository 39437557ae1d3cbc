"""Fitting an outline into a budget: admit candidates by priority, keep their ancestors as
structure, mark what was dropped, assemble in document order.

Candidates are admitted in one fixed priority order that does not depend on the budget, and
admission stops at the first candidate that does not fit. Each line is counted once (cached)
and costs are added up; the whole text is counted exactly once at the end, and if the sum
under-estimated (token merges across lines, markers), the last admitted candidates are taken
back one at a time until the exact count fits. Both steps only ever shorten a prefix of the
same order, so a larger budget always keeps a superset of what a smaller one kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..models import PageTree
from .layout import CANDIDATE, Item
from .outline import JsonFormat, TextFormat, details, states
from .tokens import TokenCounter

__all__ = ["Fit", "Fitter", "Limits"]

_MAX_MARKERS = 4
"""Markers per snapshot: up to three in place, and one closing ``elsewhere`` marker."""
_OWN_MARKER_MIN = 3
"""Groups with fewer dropped nodes are counted in the closing ``elsewhere`` marker."""
_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")

Format = TextFormat | JsonFormat


@dataclass(frozen=True)
class Limits:
    max_tokens: int
    max_chars: int
    max_nodes: int
    chars_set: bool = True
    """``max_chars`` was set by the host (else it follows the budget)."""
    nodes_set: bool = True
    """``max_nodes`` was set by the host (else it follows the budget)."""


@dataclass
class Fit:
    text: str
    tokens: int
    kept: int
    """How many candidates of the priority order were kept (a prefix)."""
    drawn: list[int]
    """Per item: 0 not drawn, 1 drawn as structure, 2 drawn in full."""
    reasons: list[str] = field(default_factory=list)
    dropped: int = 0


class Fitter:
    """One page, one format, one set of limits; ``fit`` may be asked for any prefix."""

    def __init__(self, tree: PageTree, items: Sequence[Item], order: Sequence[int],
                 outside: Sequence[int], fmt: Format, counter: TokenCounter, limits: Limits,
                 header: Callable[[int, int, bool], str], page_url: str, max_text: int,
                 cap: int, lead: Sequence[str] = (), tail: Sequence[str] = ()) -> None:
        self.tree = tree
        self.items = items
        self.order = order
        self.outside = outside
        """Candidates left out by ``viewport_only`` (reported, never admitted)."""
        self.fmt = fmt
        self.counter = counter
        self.limits = limits
        self.header = header
        self.page_url = page_url
        self.max_text = max_text
        self.cap = cap
        self.lead = list(lead)
        self.tail = list(tail)
        self.notes = self.lead + self.tail
        self.sep_chars = len(fmt.separator)
        # not a function of max_tokens: the room left for nodes must grow with the budget
        self.max_markers = max(2, min(_MAX_MARKERS, limits.max_chars // 1500))
        a = fmt.node(0, "link", "x", [], [], "e1", False)
        b = fmt.node(1, "link", "y", [], [], "e2", False)
        self.sep_tokens = max(0, counter.exact(a + fmt.separator + b) - counter.exact(a)
                              - counter.exact(b))
        self._full: dict[tuple[int, bool], str] = {}
        probe = fmt.marker(cap, 999, [("link", 999), ("button", 99)], 99,
                           "over the token budget; web_scroll down to see them", False)
        reserve_head = header(len(order), limits.max_tokens, False)
        note_tokens = sum(counter.count(n) + self.sep_tokens for n in self.notes)
        note_chars = sum(len(n) + self.sep_chars for n in self.notes)
        self.reserve_tokens = (counter.exact(reserve_head) + 2 + note_tokens
                               + self.max_markers * (counter.count(probe) + self.sep_tokens))
        self.reserve_chars = (len(reserve_head) + 1 + note_chars
                              + self.max_markers * (len(probe) + self.sep_chars))

    # -- lines -------------------------------------------------------------------------------
    def line(self, i: int, full: bool, children: bool) -> str:
        key = (i, children) if full else (-1 - i, True)
        s = self._full.get(key)
        if s is None:
            it = self.items[i]
            if full and it.kind == CANDIDATE:
                facts = details(it.node, it.role, self.page_url, self.max_text, it.hint)
                s = self.fmt.node(it.depth, it.role, it.name, states(it.node),
                                  facts + list(it.facts), it.ref, children)
            elif full:
                s = self.fmt.node(it.depth, it.role, it.label or it.name, it.flags, [], it.ref,
                                  children)
            else:
                s = self.fmt.node(it.depth, it.role, it.label, it.flags, [], it.ref, True)
            self._full[key] = s
        return s

    def _cost(self, s: str) -> tuple[int, int]:
        return self.counter.count(s) + self.sep_tokens, len(s) + self.sep_chars

    # -- admission ---------------------------------------------------------------------------
    def admit(self, upto: int | None = None) -> tuple[list[int], list[bool], int, str | None]:
        """Admit candidates in order until one does not fit (or ``upto`` are in).
        Returns (drawn, has_child, admitted, the limit that stopped it)."""
        items = self.items
        n = len(items)
        drawn = [0] * n
        has_child = [False] * n
        lim = self.limits
        tokens = self.reserve_tokens
        chars = self.reserve_chars
        nodes = 0
        stop: str | None = None
        count = 0
        for c in self.order:
            if upto is not None and count >= upto:
                break
            new: list[int] = []
            p = items[c].parent
            while p >= 0 and drawn[p] == 0:
                new.append(p)
                p = items[p].parent
            dt = dc = dn = 0
            for a in new:
                t, ch = self._cost(self.line(a, False, True))
                dt, dc, dn = dt + t, dc + ch, dn + 1
            if drawn[c] == 1:
                t1, c1 = self._cost(self.line(c, True, True))
                t0, c0 = self._cost(self.line(c, False, True))
                dt, dc = dt + t1 - t0, dc + c1 - c0
            else:
                t, ch = self._cost(self.line(c, True, False))
                dt, dc, dn = dt + t, dc + ch, dn + 1
            top = new[-1] if new else c
            tp = items[top].parent
            if tp >= 0 and drawn[tp] == 2 and not has_child[tp]:
                t1, c1 = self._cost(self.line(tp, True, True))
                t0, c0 = self._cost(self.line(tp, True, False))
                dt, dc = dt + t1 - t0, dc + c1 - c0
            if tokens + dt > lim.max_tokens:
                stop = "max_tokens"
            elif chars + dc > lim.max_chars:
                stop = "max_chars"
            elif nodes + dn > lim.max_nodes:
                stop = "max_nodes"
            if stop:
                break
            tokens, chars, nodes = tokens + dt, chars + dc, nodes + dn
            for a in new:
                drawn[a] = 1
                has_child[a] = True
            drawn[c] = 2
            if tp >= 0:
                has_child[tp] = True
            count += 1
        return drawn, has_child, count, stop

    # -- assembly ----------------------------------------------------------------------------
    def assemble(self, drawn: list[int], kept: int,
                 limit: str | None = None) -> tuple[list[str], int, int]:
        """Lines for a drawn set, markers in place; returns (lines, refs, dropped).
        ``limit`` is the limit that stopped admission (named in the markers)."""
        items = self.items
        n = len(items)
        nda = [-1] * n
        has_child = [False] * n
        for it in items:
            p = it.parent
            nda[it.idx] = p if (p < 0 or drawn[p]) else nda[p]
            if drawn[it.idx] and nda[it.idx] >= 0:
                has_child[nda[it.idx]] = True
        dropped = [c for c in self.order[kept:] if items[c].kind == CANDIDATE]
        dropped += self.outside
        outside = set(self.outside)
        groups: dict[int, list[int]] = {}
        for c in dropped:
            groups.setdefault(nda[c], []).append(c)
        ranked = sorted(groups, key=lambda g: (-len(groups[g]), g))
        if len(ranked) == 1:
            own = ranked
        else:  # a lone dropped node costs more to announce in place than to count at the end
            big = [g for g in ranked if len(groups[g]) >= _OWN_MARKER_MIN]
            fits = len(big) == len(ranked) and len(big) <= self.max_markers
            own = big if fits else big[: self.max_markers - 1]
        chosen = set(own)
        rest = [c for g in ranked if g not in chosen for c in groups[g]]
        entries: list[tuple[float, float, str]] = []
        for g in own:
            if g >= 0:
                has_child[g] = True
        refs = 0
        for it in items:
            state = drawn[it.idx]
            if state:
                line = self.line(it.idx, state == 2, has_child[it.idx] or state == 1)
                entries.append((it.idx, 0, line))
                if it.ref:
                    refs += 1
        for g in own:
            depth = min(items[g].depth + 1, self.cap) if g >= 0 else 0
            end = items[g].end if g >= 0 else n
            line = self._marker(groups[g], g, depth, outside, False, limit)
            entries.append((end - 0.5, -depth, line))
        if rest:
            entries.append((n + 1, 0, self._marker(rest, -1, 0, outside, True, limit)))
        entries.sort(key=lambda e: (e[0], e[1]))
        lines = self.lead + [e[2] for e in entries] + self.tail
        return lines, refs, len(dropped)

    def _marker(self, group: list[int], parent: int, depth: int, outside: set[int],
                elsewhere: bool, limit: str | None) -> str:
        items = self.items
        kinds = Counter(items[c].role for c in group)
        top = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
        other = len(group) - sum(k for _, k in top)
        return self.fmt.marker(depth, len(group), top, other,
                               self._hint(group, parent, outside, elsewhere, limit), elsewhere)

    def _hint(self, group: list[int], parent: int, outside: set[int], elsewhere: bool,
              limit: str | None) -> str:
        """Which limit cut ``group`` and a way around it through the tools' arguments."""
        if all(c in outside for c in group) or limit is None:
            return f"outside the viewport; {self._way(group, parent, True, elsewhere, limit)}"
        lim = self.limits
        if limit == "max_chars":
            what = ("over the token budget" if not lim.chars_set
                    else f"over the {lim.max_chars}-character cap")
        elif limit == "max_nodes":
            what = ("over the token budget" if not lim.nodes_set
                    else f"over the {lim.max_nodes}-line cap")
        else:
            what = "over the token budget"
        return f"{what}; {self._way(group, parent, False, elsewhere, limit)}"

    def _way(self, group: list[int], parent: int, scroll_only: bool, elsewhere: bool,
             limit: str | None) -> str:
        items = self.items
        tree = self.tree
        vh = tree.viewport.height or 720.0
        top, bottom = tree.scroll.y, tree.scroll.y + vh
        below = above = 0
        for c in group:
            box = items[c].node.box
            if box is None:
                continue
            mid = box.y + box.h / 2
            if mid > bottom:
                below += 1
            elif mid < top:
                above += 1
        direction = "down" if below >= above else "up"
        if scroll_only:
            return f"web_scroll {direction} to see them"
        if not elsewhere and parent >= 0:
            it = items[parent]
            if it.ref:
                return f"scope={it.ref} to see them"
            ident = it.node.attrs.get("id", "")
            if ident and _ID.fullmatch(ident):
                return f'scope="#{ident}" to see them'
        if below + above > len(group) // 2:
            return f"web_scroll {direction} to see them"
        if not any(items[c].interactive for c in group):
            return "web_get_text for the text"
        lim = self.limits
        host_cap = ((limit == "max_chars" and lim.chars_set)
                    or (limit == "max_nodes" and lim.nodes_set))
        if host_cap:  # a larger budget does not raise a cap the host set
            return "scope= a CSS selector shows one part"
        return f"max_tokens above {lim.max_tokens} shows them"

    # -- the whole fit -----------------------------------------------------------------------
    def fit(self) -> Fit:
        drawn, _, kept, stop = self.admit()
        reasons = [stop] if stop else []
        lim = self.limits
        while True:
            text, tokens = self._finish(drawn, kept, reasons[0] if reasons else None)
            if tokens <= lim.max_tokens and len(text) <= lim.max_chars:
                break
            if kept == 0:
                break
            reason = "max_tokens" if tokens > lim.max_tokens else "max_chars"
            if reason not in reasons:
                reasons.append(reason)
            kept -= 1
            drawn, _, kept, _ = self.admit(kept)
        dropped = sum(1 for c in self.order[kept:] if self.items[c].kind == CANDIDATE)
        dropped += len(self.outside)
        return Fit(text=text, tokens=tokens, kept=kept, drawn=drawn, reasons=reasons,
                   dropped=dropped)

    def _finish(self, drawn: list[int], kept: int, limit: str | None) -> tuple[str, int]:
        """Assemble with the exact token count in the header (a few passes to settle)."""
        claim = self.limits.max_tokens
        text = ""
        tokens = 0
        lines, refs, dropped = self.assemble(drawn, kept, limit)
        for _ in range(4):
            text = self.fmt.join(self.header(refs, claim, dropped > 0), lines)
            tokens = self.counter.exact(text)
            if tokens == claim:
                break
            claim = tokens
        return text, tokens
