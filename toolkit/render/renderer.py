"""``render(tree) -> Snapshot``: a page tree as budgeted text for a model. Pure.

No browser and no clock: the same tree and options give byte-identical output, so it works on
any :class:`~webrefs.models.PageTree`, whoever produced it. The exact tiktoken count of the
whole returned text is at most ``max_tokens`` and its length at most ``max_chars``.

Steps: classify the page; flatten the tree into items (:mod:`.layout`); score candidates with
the attention model (:mod:`.attention`); order them (focused element, open dialogs, the focused
form, then by score); fit the longest prefix of that order into the budget (:mod:`.budget`).
When not even one node fits, or the budget is tiny, the summary tier is returned instead.
"""

from __future__ import annotations

from typing import Any

from ..models import NodeRef, PageInfo, PageTree, RenderedFrom, Snapshot, SnapshotStats
from ..options import RenderOptions, merge_options
from .attention import Scorer
from .budget import Fit, Fitter, Limits
from .layout import CANDIDATE, STRUCTURE, Item, build_layout
from .outline import FORMATS, KEY_ATTRS, JsonFormat, TextFormat, clean, details, safe_url, states
from .pagetype import classify_page
from .summary import count_page, scroll_line, visible_text
from .tokens import TokenCounter, encoding_name

__all__ = ["CUTS", "SHORTENED_ONLY", "SUMMARY_BELOW", "max_chars", "max_nodes", "render"]

SUMMARY_BELOW = 300
"""Budgets (max_tokens) below this get the summary tier instead of an outline."""

CUTS: frozenset[str] = frozenset({"max_tokens", "max_chars", "max_nodes", "viewport_only"})
"""Renderer limits that leave nodes out of the outline; each cut is announced in place by a
marker naming the limit. Only these (and an extractor that stopped reading, see
``SHORTENED_ONLY``) make a snapshot ``truncated``."""

SHORTENED_ONLY: frozenset[str] = frozenset({"maxTextPerNode", "maxAttr", "maxOptions",
                                            "maxDepth"})
"""Extractor caps that lose no node: long texts, attributes and option lists end in ``…`` in
place (``web_get_text`` reads the text whole), and nesting past the depth cap is lifted, not
dropped. Like the renderer's own ``max_text_per_node`` and ``max_depth``, they are listed in
``truncation_reasons`` for hosts but do not make a snapshot ``truncated``: that flag means
nodes are missing, and every missing group has a marker saying which limit cut it."""

_UNREAD = {
    "maxNodes": "reading stopped at the node cap per frame",
    "maxVisited": "reading stopped at the cap on elements visited",
    "maxTime": "reading stopped at the time cap",
    "unknown": "reading stopped at a cap",
}

CHARS_PER_TOKEN = 8
"""``max_chars=None`` follows the budget at this many characters per token (outline text runs
about 4), so the token budget is the limit that bites."""


def max_chars(opts: RenderOptions) -> int:
    """The character cap in force: ``opts.max_chars``, or one that follows the budget."""
    if opts.max_chars is not None:
        return opts.max_chars
    return max(12_000, CHARS_PER_TOKEN * opts.max_tokens)


def max_nodes(opts: RenderOptions) -> int:
    """The node-line cap in force: ``opts.max_nodes``, or none of its own (every line costs
    at least one token, so the budget bounds the lines)."""
    return opts.max_nodes if opts.max_nodes is not None else opts.max_tokens

_counters: dict[str, TokenCounter] = {}
_CACHE_LIMIT = 200_000


def _counter(encoding: str) -> TokenCounter:
    name = encoding_name(encoding)
    counter = _counters.get(name)
    if counter is None:
        counter = _counters[name] = TokenCounter(name)
    else:
        counter.trim_cache(_CACHE_LIMIT)
    return counter


def render(tree: PageTree, options: RenderOptions | None = None, **overrides: Any) -> Snapshot:
    """Render ``tree`` as a :class:`Snapshot` within the limits of ``options``.

    Keyword arguments override fields of ``options`` (``render(tree, max_tokens=1000)``).
    """
    opts: RenderOptions = merge_options(options or RenderOptions(), overrides)
    counter = _counter(opts.encoding)
    fmt = FORMATS[opts.format]
    page_type = classify_page(tree)
    layout = build_layout(tree, interactive_only=opts.interactive_only, compact=opts.compact,
                          max_depth=opts.max_depth, max_text=opts.max_text_per_node,
                          scope=opts.scope)
    items = layout.items
    pool = [it for it in items if it.kind == CANDIDATE
            or (not opts.compact and it.kind == STRUCTURE and it.role != "generic")]
    scorer = Scorer(tree, (it.node for it in pool))
    for it in pool:
        it.score = scorer.score(it.node, it.role)
    outside: list[int] = []
    inside: list[Item] = []
    for it in pool:
        if opts.viewport_only and it.tier == 3 and not it.in_viewport:
            if it.kind == CANDIDATE:
                outside.append(it.idx)
        else:
            inside.append(it)
    inside.sort(key=lambda it: (it.tier, -it.score, it.idx))
    order = [it.idx for it in inside]

    extractor_reasons = [f"extractor.{r}" for r in tree.stats.truncated_reasons]
    if tree.stats.truncated and not extractor_reasons:
        extractor_reasons = ["extractor"]
    unread = [r for r in tree.stats.truncated_reasons if r not in SHORTENED_ONLY]
    if tree.stats.truncated and not tree.stats.truncated_reasons:
        unread = ["unknown"]
    url = safe_url(tree.url, limit=150)
    title = clean(tree.title, 80)
    scope = opts.scope if layout.scope_node is not None else None
    always_truncated = bool(unread)

    def header(refs: int, tokens: int, truncated: bool, summary: bool = False) -> str:
        return fmt.header({
            "url": url, "title": title, "page": page_type, "refs": refs, "tokens": tokens,
            "max_tokens": opts.max_tokens, "truncated": truncated or always_truncated,
            "scope": scope, "summary": True if summary else None,
        })

    lead = [fmt.note(0, f"dialog {d.type} ({d.handled})", f'"{_esc(fmt, d.message, 200)}"')
            for d in tree.dialogs]
    tail = []
    if unread:
        tail.append(fmt.note(0, "...", "the page has more than was read "
                             f"({_UNREAD.get(unread[0], _UNREAD['unknown'])}; "
                             "scope= a CSS selector reads one part)"))
    limits = Limits(opts.max_tokens, max_chars(opts), max_nodes(opts),
                    chars_set=opts.max_chars is not None, nodes_set=opts.max_nodes is not None)
    fitter = Fitter(tree, items, order, outside, fmt, counter, limits, header, tree.url,
                    opts.max_text_per_node, opts.max_depth - 1, lead, tail)

    reasons: list[str] = []
    fit: Fit | None = None
    summary_reasons = ["max_tokens"]
    if opts.max_tokens >= SUMMARY_BELOW or not order:
        fit = fitter.fit()
        if fit.kept == 0 and order:
            summary_reasons = fit.reasons or ["max_tokens"]
            fit = None
    if fit is None:
        text, tokens, refs_shown = _summary(tree, opts, fmt, counter, header, lead,
                                            items[order[0]] if order else None,
                                            summary_reasons[0])
        reasons = list(summary_reasons)
        drawn_refs = [items[order[0]]] if refs_shown and order else []
        nodes = len(drawn_refs)
    else:
        text, tokens = fit.text, fit.tokens
        reasons = list(fit.reasons)
        drawn_refs = [it for it in items if fit.drawn[it.idx] and it.ref]
        nodes = sum(1 for d in fit.drawn if d)
    if layout.depth_cut:
        reasons.append("max_depth")
    if outside:
        reasons.append("viewport_only")
    reasons += extractor_reasons
    refs = {it.ref: _node_ref(it) for it in drawn_refs if it.ref}
    truncated = (any(r in CUTS for r in reasons) or bool(unread)
                 or (fit is not None and fit.dropped > 0))
    stats = SnapshotStats(tokens=tokens, chars=len(text), nodes_emitted=nodes,
                          refs_emitted=len(refs), truncated=truncated,
                          truncation_reasons=reasons, extractor=tree.stats)
    page = PageInfo(url=tree.url, title=tree.title, page_type=page_type)
    source = RenderedFrom(tree=tree, interactive_only=opts.interactive_only,
                          compact=opts.compact, max_depth=opts.max_depth,
                          max_text_per_node=opts.max_text_per_node)
    return Snapshot(text=text, refs=refs, stats=stats, page=page, source=source)


def _esc(fmt: TextFormat | JsonFormat, text: str, limit: int) -> str:
    body = clean(text, limit)
    if isinstance(fmt, TextFormat):
        from .outline import escape

        return escape(body)
    return body


def _node_ref(it: Item) -> NodeRef:
    node = it.node
    attrs = {k: node.attrs[k][:300] for k in KEY_ATTRS if k in node.attrs}
    return NodeRef(ref=it.ref or "", role=it.role, name=clean(node.name, 200), tag=node.tag,
                   attrs=attrs, text=clean(node.text, 100), frame=it.frame)


def _summary(tree: PageTree, opts: RenderOptions, fmt: TextFormat | JsonFormat,
             counter: TokenCounter, header: Any, lead: list[str],
             first: Item | None, limit: str) -> tuple[str, int, bool]:
    """The summary tier, fitted to the budget. Returns (text, tokens, focused ref shown)."""
    root = tree.root
    focus_line: str | None = None
    if first is not None and first.tier == 0:
        line = fmt.node(0, first.role, first.name, states(first.node),
                        details(first.node, first.role, tree.url, opts.max_text_per_node,
                                first.hint),
                        first.ref, False)
        focus_line = ("- focused: " + line[2:]) if isinstance(fmt, TextFormat) else line
    fixed: list[tuple[str, bool]] = [(ln, False) for ln in lead]
    if focus_line:
        fixed.append((focus_line, True))
    fixed.append((fmt.note(0, "summary", count_page(root).describe()), False))
    fixed.append((fmt.note(0, "scroll", scroll_line(tree)), False))
    char_cap = max_chars(opts)
    if limit == "max_tokens":
        way = f"over the token budget; max_tokens above {opts.max_tokens} shows the outline"
    else:
        cap_now = char_cap if limit == "max_chars" else max_nodes(opts)
        what = "character" if limit == "max_chars" else "line"
        way = f"over the {cap_now}-{what} cap; scope= a ref or CSS selector shows one part"
    fixed.append((fmt.note(0, "...", f"{way}, web_get_text the text"), False))
    body = visible_text(root, 500)
    claim = opts.max_tokens
    text = ""
    for _ in range(4):
        head = header(1 if focus_line else 0, claim, True, summary=True)
        used = counter.exact(head) + 1
        chars = len(head) + 1
        lines: list[str] = []
        shown = False
        for line, is_focus in fixed:
            t = counter.count(line) + 1
            if used + t > opts.max_tokens or chars + len(line) + 1 > char_cap:
                break
            used, chars = used + t, chars + len(line) + 1
            lines.append(line)
            shown = shown or is_focus
        if not shown and focus_line:
            head = header(0, claim, True, summary=True)
        room = opts.max_tokens - used - 8
        if body and room > 4:
            cut = counter.head(body, room)
            cut = cut[: max(0, char_cap - chars - 20)]
            if cut:
                text_line = fmt.note(0, "text", f'"{_esc(fmt, cut, 600)}"')
                lines.append(text_line)
        text = fmt.join(head, lines)
        while counter.exact(text) > opts.max_tokens or len(text) > char_cap:
            if len(lines) > 0 and lines[-1].startswith(("- text", '{"depth":0,"note":"text"')):
                lines.pop()
            elif lines:
                dropped = lines.pop()
                if dropped == focus_line:
                    shown = False
            else:
                text = counter.head(text, opts.max_tokens)[: char_cap]
                break
            text = fmt.join(head, lines)
        tokens = counter.exact(text)
        if tokens == claim:
            break
        claim = tokens
    return text, counter.exact(text), shown
