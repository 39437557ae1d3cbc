"""Reading a live page: run the extractor in every frame and stitch one :class:`PageTree`.

Each frame (same-origin or cross-origin alike: Playwright reaches out-of-process frames) is
read by evaluating ``extractor.js`` in it; iframe nodes get their frame's tree as children,
with boxes moved into main-document coordinates. A frame that cannot be read becomes an iframe
node whose ``frame.error`` says why; only a failure of the main frame raises.

Which frames are read: a frame's content is shown only under its iframe's node, so a frame
whose iframe its parent's read left out (hidden, or outside ``root_selector``) is not read at
all. A frame of its parent's origin (or ``about:``/``data:`` and the like, which share its
parent's renderer) is read once its parent's read has shown where it hangs: its renderer
would run the two reads one after the other anyway. Such a frame that the last read showed is
read alongside its parent all the same (its read then waits in the renderer, not on the host's
round trips). A frame of another origin is read alongside its parent, since it most often has
a renderer process of its own. A frame read alongside is dropped at stitching when its iframe
turns out not to be shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from ..errors import (
    InvalidArgumentError,
    NoMatchError,
    SnapshotError,
    SnapshotFormatError,
    translate_playwright_error,
)
from ..models import FrameInfo, Node, PageTree
from .script import (
    QuickRead,
    answered_unchanged,
    is_rescrolled,
    is_retexted,
    load_frame_json,
    quick_read,
    rescrolled_since,
    retexted_since,
    stitched_from_dict,
    tree_from_dict,
    unchanged_since,
    watch_token,
    with_updates,
)
from .world import url_origin

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..models import DialogEvent
    from .refs import RefBook
    from .script import OpaqueSheets
    from .world import World

__all__ = ["ExtractLimits", "extract_page"]

_FRAME_KEY_JS = (
    # The key of an iframe element in its document's registry, made on first use (the same
    # get-or-create as extractor.js, so it can run before or after the parent frame's walk).
    "(el, K) => { let r = window[K];"
    " if (!r) { r = { books: new Map(), frames: new WeakMap(), frameNext: 1 };"
    " try { Object.defineProperty(window, K, { value: r }); } catch (e) { return null; } }"
    " let k = r.frames.get(el);"
    " if (k === undefined) { k = r.frameNext++; r.frames.set(el, k); } return k; }"
)
_MAX_NEW_REFS = 1_000_000
"""More new refs than this from one read means the output is not the extractor's."""
_MAX_TREE_DEPTH = 240
"""Deepest stitched tree (pydantic validates nested dicts up to ~250 levels)."""


@dataclass(frozen=True)
class ExtractLimits:
    """Caps passed to the extractor and time bounds of one extraction."""

    max_nodes: int = 5000
    """Emitted nodes per frame before the walk stops."""
    max_text_per_node: int = 200
    """Characters kept of a name, text or value."""
    max_attr: int = 150
    """Characters kept of an attribute value."""
    max_depth: int = 100
    """Deepest emitted depth in the main frame (deeper nodes are lifted)."""
    frame_max_depth: int = 60
    """Deepest emitted depth inside a child frame."""
    max_time_ms: int = 5000
    """The in-page walk of one frame stops after this long (reason ``maxTime``)."""
    main_timeout_s: float = 15.0
    """Bound on reading the main frame; past it the snapshot fails."""
    frame_timeout_s: float = 3.0
    """Bound on reading one child frame; past it the frame is reported unreadable. Reading
    a whole page (frames read after their parents included) takes at most
    ``main_timeout_s + frame_timeout_s`` and a frame's key lookup (6 s)."""
    cap_slack: int = 0
    """Characters the extractor keeps of a text past its cap (still reported as cut), so
    the host can process whole texts first (secrets are replaced before any cut) and cut
    them itself (the renderer caps what it shows)."""


DEFAULT_LIMITS = ExtractLimits()


@dataclass
class _FrameRead:
    frame: Frame
    prefix: str
    data: dict[str, Any] | None = None
    text: str | None = None
    """A child frame's output read into ``data`` (kept for its next read)."""
    quick: QuickRead | None = None
    """The output read straight into a tree (a page with one frame), instead of ``data``."""
    error: str | None = None
    key: int | None = None
    by_key: dict[int, dict[str, Any]] = field(default_factory=dict)
    """This frame's shown iframe nodes by registry key: nodes of ``data``, or for a quick
    read, stand-ins (``frame`` and ``attrs``) that :func:`_hang` puts back into its tree."""
    depths: dict[int, int] = field(default_factory=dict)
    """Depth of each of those iframe nodes in this frame's tree."""
    done: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once this frame has been read, skipped or given up on."""
    shown: bool = False
    """Its tree was hung under its iframe's node."""
    token: str | None = None
    """The watch token the document gave this read (main frame), if it can vouch for the next."""
    reused: bool = False
    """The document answered that nothing changed since the read of ``token``."""
    rescrolled: bool = False
    """The document answered that only its scroll changed since the last read: the kept
    tree, moved (see :func:`~.script.rescrolled_since`)."""
    retexted: bool = False
    """The document answered that only text was edited in place, or attributes changed,
    since the last read: the kept tree with the subtrees it walked again (see
    :func:`~.script.retexted_since`)."""


async def extract_page(
    page: Page,
    book: RefBook,
    *,
    dialogs: Sequence[DialogEvent] = (),
    content_refs: bool = False,
    root_selector: str | None = None,
    limits: ExtractLimits = DEFAULT_LIMITS,
) -> PageTree:
    """Read ``page`` (all frames) into a :class:`PageTree`, issuing refs from ``book`` (the
    page's tab's ref book); ``dialogs`` seen since the last action are listed in the tree.
    Call it with the tab's lock held (inside ``TabCore.call``)."""
    book.prune()
    main = page.main_frame
    frames = [f for f in page.frames if not f.is_detached()]
    if main not in frames:
        frames.insert(0, main)
    reads = [_FrameRead(f, book.prefix_for(f, main)) for f in frames]
    by_frame = {r.frame: r for r in reads}
    clock = asyncio.get_running_loop().time
    ends = clock() + limits.main_timeout_s + limits.frame_timeout_s
    # no frame read, however deep its frame, runs past this

    async def read(r: _FrameRead) -> None:
        is_main = r.frame is main
        opts = {
            "maxNodes": limits.max_nodes,
            "maxTextPerNode": limits.max_text_per_node,
            "maxAttr": limits.max_attr,
            "maxDepth": limits.max_depth if is_main else limits.frame_max_depth,
            "maxTimeMs": limits.max_time_ms,
            "contentRefs": content_refs,
            "prefix": r.prefix,
            "nextRef": book.next_number(r.prefix),
            "rootSelector": root_selector if is_main else None,
            "registryKey": book.registry_key,
            "capSlack": limits.cap_slack,
        }
        kept = book.kept.pop(r.frame, None)
        if is_main and r.frame in book.sheet_reads:
            sheets = await _sheets_read(book, r.frame)
            if sheets is not None:
                opts["sheetTexts"] = sheets
        if kept is not None:
            opts["since"] = kept[0]
            if not is_main:
                opts["partial"] = False  # (only the text of its output is kept)
        timeout = (limits.main_timeout_s if is_main
                   else min(limits.frame_timeout_s, ends - clock()))
        if timeout < 0.05:
            r.error = "not read: the snapshot's time bound was spent before its turn"
            return
        await _read_frame(r, book.world, opts, timeout, root_selector if is_main else None,
                          quick_ok=is_main, kept=kept)
        if not is_main and r.text is not None:
            book.unchanged_frame_reads += r.reused
            if r.token is not None:
                book.kept[r.frame] = (r.token, r.text)
        if is_main and r.quick is not None:
            if r.reused:
                book.unchanged_reads += 1
            elif r.rescrolled:
                book.rescrolled_reads += 1
            elif r.retexted:
                book.retexted_reads += 1
            else:
                book.full_reads += 1
            if r.token is not None:
                book.kept[r.frame] = (r.token, r.quick)
                if r.quick.opaque_sheets is not None:
                    _read_sheets(book, page, r.frame, r.quick.opaque_sheets)
        if r.quick is not None:
            book.advance(r.prefix, r.quick.next_ref)
            _index_hosts(r, r.quick)
        elif r.data is not None:
            book.advance(r.prefix, int(r.data.get("nextRef") or 1))
            _index(r.data["root"], r.by_key, r.depths)

    async def settle(r: _FrameRead) -> None:
        try:
            url = r.frame.url
            if r.frame is main:
                await read(r)
            elif not url or url.startswith("chrome-error:"):
                r.error = ("still loading (no document yet)" if not url
                           else "failed to load (the browser shows an error page)")
                r.key = await _frame_key(r, book)
            elif _apart(r.frame) or r.frame in book.frames_shown:
                _, r.key = await asyncio.gather(read(r), _frame_key(r, book))
            else:
                key = asyncio.ensure_future(_frame_key(r, book))
                above = r.frame.parent_frame
                parent = by_frame.get(above) if above is not None else None
                if parent is not None:
                    await parent.done.wait()
                r.key = await key
                if parent is not None and r.key is not None and r.key in parent.by_key:
                    await read(r)  # else its iframe is not shown: neither would its content be
        finally:
            r.done.set()

    if len(reads) == 1:
        await settle(reads[0])
    else:
        results = await asyncio.gather(*(settle(r) for r in reads), return_exceptions=True)
        for res in results:
            if isinstance(res, BaseException):
                raise res
    main_read = reads[0]
    quick, data = main_read.quick, main_read.data
    if (quick.root_missing if quick is not None else data is not None and data.get("rootMissing")):
        raise NoMatchError(
            f"root_selector {root_selector!r} matched nothing on the page.",
            hint="Check the selector, or take a snapshot of the whole page.",
        )
    if quick is not None and quick.hosts:
        inputs = _hang_inputs(reads, quick)
        last = book.hung
        if last is not None and last[0] == inputs:
            tree_model = _hung_again(reads, quick, last[1], last[2])
        else:
            tree_model = _hang(reads, quick, book.frame_trees)
            book.hung = (inputs, tree_model, frozenset(r.frame for r in reads if r.shown))
    elif quick is not None:  # no iframe shown: no frame to hang, those that failed listed
        tree_model = quick.tree
        failed = [FrameInfo(prefix=r.prefix, url=r.frame.url, name=r.frame.name, error=r.error)
                  for r in sorted(reads[1:], key=lambda r: _level(r.frame)) if r.error is not None]
        if failed:
            tree_model = tree_model.model_copy(update={"frames": failed})
    else:
        assert data is not None
        tree_model = tree_from_dict(_stitch(reads, data))
    book.frames_shown = {r.frame for r in reads if r.shown}
    if dialogs:
        tree_model = tree_model.model_copy(update={"dialogs": list(dialogs)})
    return tree_model


SHEETS_TIMEOUT_S = 2.0
"""Bound on reading a document's style sheets of other origins over DevTools."""


def _read_sheets(book: RefBook, page: Page, frame: Frame, sheets: OpaqueSheets) -> None:
    """Start reading over DevTools, alongside what comes next, the style sheets of other
    origins that ``frame``'s document loaded and could not read, each once per document;
    the frame's next read takes them (see :func:`_sheets_read`)."""
    asked = [h for h in sheets.hrefs if (sheets.doc, h) not in book.sheets_asked]
    if not asked or frame in book.sheet_reads:
        return
    if len(book.sheets_asked) > 10_000:
        book.sheets_asked.clear()
    book.sheets_asked.update((sheets.doc, h) for h in asked)

    async def read() -> dict[str, Any] | None:
        texts = await book.world.sheet_texts(page, asked, SHEETS_TIMEOUT_S)
        if texts is None:  # (no DevTools session yet: asked again after a later read)
            book.sheets_asked.difference_update((sheets.doc, h) for h in asked)
        return {"doc": sheets.doc, "texts": texts} if texts else None

    book.sheet_reads[frame] = asyncio.ensure_future(read())


async def _sheets_read(book: RefBook, frame: Frame) -> dict[str, Any] | None:
    """What the reading started by :func:`_read_sheets` for ``frame`` gave (``sheetTexts``
    for its next read, which its document alone takes), waited for while it runs (within its
    own bound); ``None`` when it found nothing."""
    return await book.sheet_reads.pop(frame)


async def _read_frame(
    r: _FrameRead, world: World, opts: dict[str, Any], timeout: float,
    root_selector: str | None, quick_ok: bool = False,
    kept: tuple[str, QuickRead | str] | None = None,
) -> None:
    """Run the extractor in one frame; child frame failures are kept in ``r.error``.
    ``quick_ok``: the main frame's output is read straight into a tree (its iframe nodes are
    rebuilt once the frames under them are read, see :func:`_hang`); a child frame's is read
    into dicts, which stitching changes in place (so what is kept of it is its text, read
    again when its document answers that nothing changed)."""
    is_main = r.frame.parent_frame is None
    try:
        text = await world.extract(r.frame, opts, timeout)
        ms = None
        token, last = kept if kept is not None else ("", None)
        if isinstance(last, str):
            ms = answered_unchanged(text, token)
            if ms is not None:
                text, r.reused = last, True
        elif last is not None:
            same = unchanged_since(text, token, last)
            if same is not None:
                r.quick, r.token, r.reused = same, token, True
                return
            if is_rescrolled(text):
                moved = rescrolled_since(text, token, last)
                if moved is not None:
                    (r.quick, r.token), r.rescrolled = moved, True
                    return
                # an answer that does not fit what is kept: walk it all
                text = await world.extract(r.frame, {**opts, "since": None}, timeout)
            elif is_retexted(text):
                edited = retexted_since(text, token, last)
                if edited is not None and _foreign_ref_in(
                        edited[0], r.prefix, int(opts["nextRef"])) is None:
                    (r.quick, r.token), r.retexted = edited, True
                    return
                text = await world.extract(r.frame, {**opts, "since": None}, timeout)
        quick = quick_read(text, frames_ok=True) if quick_ok else None
        if quick is not None or not is_main:
            r.token = watch_token(text) if isinstance(text, str) else None
        data = load_frame_json(text) if quick is None else None
        if data is not None and not is_main:
            stats = data.get("stats")
            if ms is not None and not math.isnan(ms) and isinstance(stats, dict):
                stats["jsTimeMs"] = ms  # (this read's, not the kept one's)
        start = int(opts["nextRef"])
        if r.reused:
            foreign = None  # (the kept text's refs were checked when it was read)
        elif quick is not None:
            foreign = _foreign_ref_in(quick, r.prefix, start)
        else:
            foreign = _foreign_ref(data or {}, r.prefix, start)
        if foreign is not None:
            raise SnapshotFormatError(
                f"The output names ref {foreign[:40]!r}, which is not this frame's to give.")
        r.quick, r.data = quick, data
        if data is not None and not is_main:
            r.text = text  # (kept for the next read: only an output whose refs passed)
    except TimeoutError:
        if is_main:
            raise SnapshotError(
                f"Reading the page timed out after {timeout:g} s.",
                hint="The page may be busy running scripts; wait and try again.",
            ) from None
        r.error = f"timed out after {timeout:g} s (still loading or busy)"
    except PlaywrightError as exc:
        if is_main:
            message = str(exc)
            bad_selector = "SyntaxError" in message or "not a valid" in message
            if root_selector is not None and bad_selector:
                raise InvalidArgumentError(
                    f"root_selector {root_selector[:100]!r} is not a valid CSS selector."
                ) from None
            raise translate_playwright_error(exc, doing="reading the page") from None
        r.error = _frame_error(exc)
    except SnapshotFormatError as exc:
        if is_main:
            raise
        r.error = f"unreadable output: {exc.message}"


def _foreign_ref(data: dict[str, Any], prefix: str, start: int) -> str | None:
    """A ref in one frame's output that this frame could not have issued (another frame's
    prefix, a number past its own counter), or ``None`` when every ref is its own. A frame's
    page cannot make its refs name elements of another frame."""
    end = data.get("nextRef")
    if type(end) is not int or not start <= end <= start + _MAX_NEW_REFS:
        return f"nextRef={str(end)[:20]}"
    focused = data.get("focusedRef")
    refs = [focused] if focused is not None else []
    stack = [data.get("root")]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if "ref" in node:
            refs.append(node["ref"])
        stack.extend(node.get("children") or ())
    return _first_foreign(refs, prefix, end)


def _foreign_ref_in(quick: QuickRead, prefix: str, start: int) -> str | None:
    """:func:`_foreign_ref` for an output already read into a tree: in its new subtrees
    alone where it replaced parts of a kept read (whose refs were checked when read)."""
    tree, end = quick.tree, quick.next_ref
    if not start <= end <= start + _MAX_NEW_REFS:
        return f"nextRef={end}"
    refs: list[object] = [tree.focused_ref] if tree.focused_ref is not None else []
    stack = [tree.root] if quick.fresh is None else list(quick.fresh)
    while stack:
        node = stack.pop()
        if node.ref is not None:
            refs.append(node.ref)
        stack.extend(node.children)
    return _first_foreign(refs, prefix, end)


def _first_foreign(refs: list[Any], prefix: str, end: int) -> str | None:
    for ref in refs:
        if not isinstance(ref, str) or not ref.startswith(prefix):
            return str(ref)
        number = ref[len(prefix):]
        if not (number.startswith("e") and number[1:].isdigit() and number[1:2] != "0"
                and int(number[1:]) < end):
            return ref
    return None


def _apart(frame: Frame) -> bool:
    """Whether a child frame's document is of another origin than its parent's, and so most
    likely in a renderer process of its own (site isolation): worth reading alongside its
    parent. ``about:``, ``data:``, ``blob:`` and ``srcdoc`` documents share their parent's."""
    parent = frame.parent_frame
    mine = url_origin(frame.url)
    return mine is not None and (parent is None or mine != url_origin(parent.url))


def _frame_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = text.lower()
    if "detached" in low:
        return "detached while reading"
    if "context was destroyed" in low or "navigat" in low:
        return "navigated while reading (still loading)"
    return f"could not be read: {text[:160]}"


async def _frame_key(r: _FrameRead, book: RefBook) -> int | None:
    """Which iframe element of the parent document holds this frame (registry key); asked
    once per frame, then remembered by the tab's ref book."""
    known = book.frame_keys.get(r.frame)
    if known is not None:
        return known
    key = await _ask_frame_key(r, book.world, book.registry_key)
    if key is not None:
        book.frame_keys[r.frame] = key
    return key


async def _ask_frame_key(r: _FrameRead, world: World, registry_key: str) -> int | None:
    try:
        element = await asyncio.wait_for(r.frame.frame_element(), 3.0)
    except (PlaywrightError, TimeoutError):
        return None
    try:
        key = await world.value(element, _FRAME_KEY_JS, registry_key, 3.0)
    except (PlaywrightError, TimeoutError, ValueError):
        key = None
    finally:
        with contextlib.suppress(PlaywrightError):
            await element.dispose()
    return key if isinstance(key, int) else None


def _index(node: dict[str, Any], by_key: dict[int, dict[str, Any]], depths: dict[int, int]) -> None:
    """Map frame keys to iframe nodes (iteratively) and note their depth."""
    stack: list[tuple[dict[str, Any], int]] = [(node, 0)]
    while stack:
        n, d = stack.pop()
        frame = n.get("frame")
        if frame is not None and isinstance(frame.get("key"), int):
            by_key[frame["key"]] = n
            depths[frame["key"]] = d
        for child in n.get("children") or ():
            stack.append((child, d + 1))


def _index_hosts(r: _FrameRead, quick: QuickRead) -> None:
    """:func:`_index` for a quick read: a stand-in dict for each iframe node, which
    :func:`_stitch` fills in as it does a node of ``data``."""
    for path, key, cx, cy in quick.hosts:
        node = quick.tree.root
        for i in path:
            node = node.children[i]
        r.by_key[key] = {"frame": {"key": key, "cx": cx, "cy": cy}, "attrs": node.attrs}
        r.depths[key] = len(path)


FrameTrees = dict[Frame, tuple[tuple[Any, ...], Node]]
"""Per child frame, the tree last hung for it and what it was made from (see :func:`_hang`)."""


def _hang(reads: list[_FrameRead], quick: QuickRead, trees: FrameTrees) -> PageTree:
    """The main frame's quick read with the child frames stitched under its iframe nodes:
    :func:`_stitch` works on the stand-ins and child frames' dicts, then each iframe node of
    the tree (and the nodes above it) is rebuilt with what its stand-in got.

    A frame under the main frame with no frame of its own shown, whose document answered
    that nothing changed, takes the tree hung for it last time, kept in ``trees``, when its
    place (its offset on the page and the viewport its boxes are tested against) is the same
    too: it is neither moved nor validated again (a full read reuses nothing). ``trees`` is
    updated with the trees hung now."""
    tree, stand_ins = quick.tree, reads[0].by_key
    main = reads[0].frame
    plugged: dict[int, Node] = {}  # (a stand-in, by id: the tree it takes again)
    made: dict[int, tuple[Frame, tuple[Any, ...]]] = {}

    def hung_before(r: _FrameRead, host: dict[str, Any], place: tuple[Any, ...]) -> bool:
        if r.by_key or r.frame.parent_frame is not main:
            return False
        inputs = (r.text, place)
        last = trees.get(r.frame)
        if r.reused and last is not None and last[0] == inputs:
            plugged[id(host)] = last[1]
            return True
        made[id(host)] = (r.frame, inputs)
        return False

    stitched = _stitch(reads, {
        "scroll": tree.scroll.model_dump(), "viewport": tree.viewport.model_dump(),
        "stats": tree.stats.model_dump(by_alias=True), "focusedRef": tree.focused_ref,
        "iframes": len(quick.hosts)}, hung_before)
    # the stand-ins' frame and hung tree (a stand-in has children only when a frame hangs)
    ins = [stand_ins[key] for _path, key, _cx, _cy in quick.hosts]
    hosts = [{k: host[k] for k in ("frame", "children") if k in host} for host in ins]
    parts = stitched_from_dict({"hosts": hosts, "frames": stitched["frames"],
                                "stats": stitched["stats"]})
    updates: dict[tuple[int, ...], dict[str, Any]] = {}
    for (path, *_), stand_in, host in zip(quick.hosts, ins, parts.hosts, strict=True):
        kids = [plugged[id(stand_in)]] if id(stand_in) in plugged else host.children
        if id(stand_in) in made and kids:
            frame, inputs = made[id(stand_in)]
            trees[frame] = (inputs, kids[0])
        updates[tuple(path)] = ({"frame": host.frame} if kids is None
                                else {"frame": host.frame, "children": kids})
    return tree.model_copy(update={
        "root": with_updates(tree.root, updates), "stats": parts.stats,
        "frames": parts.frames, "focused_ref": stitched["focusedRef"]})


HangInputs = tuple[Any, ...]
"""What :func:`_hang` makes a tree of (see :func:`_hang_inputs`)."""


def _hang_inputs(reads: list[_FrameRead], quick: QuickRead) -> HangInputs:
    """All that :func:`_hang` reads to make its tree, for telling whether it would make the
    same tree as last time: the main frame's tree (its root by identity: a read that found
    nothing changed keeps it; every other field by value, the in-page time aside), where its
    iframes are, and each child frame's read (its output's text, error, iframe and
    document)."""
    tree = quick.tree
    stats = tree.stats.model_copy(update={"js_time_ms": 0.0})  # (this read's is put in after)
    return (_Same(tree.root), tree.url, tree.title, tree.scroll, tree.viewport, tree.document,
            stats, tree.focused_ref, tuple(quick.hosts),
            tuple((r.frame, r.prefix, r.text, r.error, r.key, r.frame.url, r.frame.name)
                  for r in reads[1:]))


class _Same:
    """Equal to another only when it holds the very same object."""

    __slots__ = ("held",)

    def __init__(self, held: object) -> None:
        self.held = held

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.held is self.held

    def __hash__(self) -> int:
        return id(self.held)


def _hung_again(reads: list[_FrameRead], quick: QuickRead, last: PageTree,
                shown: frozenset[Frame]) -> PageTree:
    """The tree :func:`_hang` made last time from the same inputs, with this read's in-page
    time (the main frame's and each child frame's shown under it), the frames it showed
    marked as shown."""
    ms = quick.tree.stats.js_time_ms
    for r in reads[1:]:
        r.shown = r.frame in shown
        stats = r.data.get("stats") if r.shown and r.data is not None else None
        if isinstance(stats, dict) and type(stats.get("jsTimeMs")) in (int, float):
            ms += stats["jsTimeMs"]
    return last.model_copy(update={"stats": last.stats.model_copy(update={"js_time_ms": ms})})


def _tree_depth(node: dict[str, Any]) -> int:
    deepest = 0
    stack: list[tuple[dict[str, Any], int]] = [(node, 0)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        for child in n.get("children") or ():
            stack.append((child, d + 1))
    return deepest


def _shift(
    node: dict[str, Any], dx: float, dy: float, view: tuple[float, float, float, float]
) -> None:
    """Move boxes of a child frame's tree into main-document coordinates."""
    left, top, right, bottom = view
    stack = [node]
    while stack:
        n = stack.pop()
        box = n.get("box")
        if (isinstance(box, list) and len(box) == 4
                and all(type(v) in (int, float) for v in box)):  # else validation says so
            x, y = box[0] + dx, box[1] + dy
            box[0], box[1] = x, y
            if n.get("inViewport") and not (
                x < right and y < bottom and x + box[2] > left and y + box[3] > top
            ):
                n["inViewport"] = False
        frame = n.get("frame")
        if frame is not None and "cx" in frame:
            frame["cx"] += dx
            frame["cy"] += dy
        stack.extend(n.get("children") or ())


HungBefore = Callable[[_FrameRead, dict[str, Any], tuple[Any, ...]], bool]
"""Whether a child frame's tree is had already for its place (its read, its iframe node, and
its offset, the viewport and its depth): stitching then leaves that node's children to the
caller."""


def _stitch(reads: list[_FrameRead], main_data: dict[str, Any],
            hung_before: HungBefore | None = None) -> dict[str, Any]:
    """Hang every readable child frame under its iframe node; aggregate stats. A frame
    ``hung_before`` says is had already is placed, counted and listed, but its tree is not
    moved, nor put under its node."""
    by_frame: dict[Frame, _FrameRead] = {r.frame: r for r in reads}
    depth_of: dict[Frame, dict[int, int]] = {}
    base_depth: dict[Frame, int] = {reads[0].frame: 0}
    offsets: dict[Frame, tuple[float, float]] = {reads[0].frame: (0.0, 0.0)}
    scroll = main_data.get("scroll") or {}
    viewport = main_data.get("viewport") or {}
    sx, sy = float(scroll.get("x", 0)), float(scroll.get("y", 0))
    view = (sx, sy, sx + float(viewport.get("width", 0)), sy + float(viewport.get("height", 0)))
    if len(reads) == 1 and not main_data.get("iframes"):
        return main_data  # no frames: nothing to stitch
    for r in reads:
        depth_of[r.frame] = r.depths
    stats = dict(main_data.get("stats") or {})
    reasons = list(stats.get("truncatedReasons") or [])
    frames_info: list[dict[str, Any]] = []
    focused = main_data.get("focusedRef")
    frames_read = 1
    used: set[int] = set()
    # parents before children: sort by nesting level
    ordered = sorted(reads[1:], key=lambda r: _level(r.frame))
    for r in ordered:
        parent = r.frame.parent_frame
        parent_read = by_frame.get(parent) if parent is not None else None
        info: dict[str, Any] = {"prefix": r.prefix, "url": r.frame.url, "name": r.frame.name,
                                "error": r.error}
        host = None
        if parent_read is not None and r.key is not None and parent in base_depth:
            host = parent_read.by_key.get(r.key)
        if host is None or parent is None or r.key is None:
            if r.error is not None:
                frames_info.append(info)
            continue  # hidden iframe (or not emitted): its content is not shown either
        used.add(id(host))
        host_depth = base_depth[parent] + depth_of.get(parent, {}).get(r.key, 0)
        if r.data is not None:
            child_root = r.data["root"]
            pdx, pdy = offsets[parent]
            frame_js = host.get("frame") or {}
            cscroll = r.data.get("scroll") or {}
            dx = pdx + float(frame_js.get("cx", 0)) - float(cscroll.get("x", 0))
            dy = pdy + float(frame_js.get("cy", 0)) - float(cscroll.get("y", 0))
            had = hung_before is not None and hung_before(r, host, (dx, dy, view, host_depth))
            if not had and host_depth + 1 + _tree_depth(child_root) > _MAX_TREE_DEPTH:
                info["error"] = "nested too deeply to include"
            else:
                if not had:
                    _shift(child_root, dx, dy, view)
                    host["children"] = [child_root]
                offsets[r.frame] = (dx, dy)
                r.shown = True
                base_depth[r.frame] = host_depth + 1
                frames_read += 1
                cstats = r.data.get("stats") or {}
                for k in ("domNodes", "visitedNodes", "emittedNodes", "skippedHidden", "jsTimeMs"):
                    stats[k] = stats.get(k, 0) + cstats.get(k, 0)
                for reason in cstats.get("truncatedReasons") or ():
                    if reason not in reasons:
                        reasons.append(reason)
                if focused is None and r.data.get("focusedRef"):
                    focused = r.data["focusedRef"]
        host["frame"] = info
        frames_info.append(info)
    for r in reads:
        for node in r.by_key.values():
            if id(node) not in used:
                attrs = node.get("attrs") or {}
                node["frame"] = {"prefix": None, "url": attrs.get("src", ""), "name": "",
                                 "error": "no document could be read in this frame"}
    stats["truncatedReasons"] = reasons
    stats["truncated"] = bool(reasons)
    stats["frames"] = frames_read
    tree = dict(main_data)
    tree["stats"] = stats
    tree["frames"] = frames_info
    tree["focusedRef"] = focused
    return tree


def _level(frame: Frame) -> int:
    level = 0
    parent = frame.parent_frame
    while parent is not None:
        level += 1
        parent = parent.parent_frame
    return level
