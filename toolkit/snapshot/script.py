"""The extractor script as a string, and parsing of its output, for any host.

A host that is not Playwright (a mobile WebView, a browser extension) evaluates
``(<extractor_script()>)({...options})`` in a frame and passes the returned string to
:func:`parse_snapshot_json`. The JSON format is documented at the top of the script.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from ..errors import SnapshotFormatError
from ..models import Box, ExtractStats, FrameInfo, Node, PageTree, Point, Size

_M = TypeVar("_M", bound=BaseModel)

__all__ = ["FORMAT_VERSION", "FrameHost", "HostUpdate", "QuickRead", "Stitched", "extractor_script",
           "parse_snapshot_json", "quick_read", "stitched_from_dict", "tree_from_dict"]

FORMAT_VERSION = 2
"""Version of the extractor's JSON format this package reads."""


@lru_cache(maxsize=1)
def extractor_script() -> str:
    """The extractor: a JavaScript function expression ``(opts) => string`` (doc comment first)."""
    return resources.files(__package__).joinpath("extractor.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def script_body() -> str:
    """The function expression without its leading doc comment and its comment lines (what
    is evaluated in every frame). A line whose text starts with ``//`` is a comment: the
    extractor has no string or template literal that spans lines."""
    text = extractor_script()
    start = text.find("*/")
    if text.lstrip().startswith("/*") and start >= 0:
        text = text[start + 2 :].strip()
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def load_frame_json(text: str) -> dict[str, Any]:
    """Decode one frame's output and check its version; the raw dict for stitching."""
    if not isinstance(text, str):
        raise SnapshotFormatError(
            f"The extractor output must be a JSON string, got {type(text).__name__}."
        )
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SnapshotFormatError(f"The extractor output is not valid JSON: {exc}.") from None
    if not isinstance(data, dict):
        raise SnapshotFormatError("The extractor output must be a JSON object.")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise SnapshotFormatError(
            f"The extractor output has format version {version!r}; this webrefs reads "
            f"version {FORMAT_VERSION}.",
            host_hint="Use the script from webrefs.extractor_script() of this same webrefs "
            "version.",
        )
    if not isinstance(data.get("root"), dict):
        raise SnapshotFormatError("The extractor output has no 'root' node object.")
    return data


def tree_from_dict(data: dict[str, Any]) -> PageTree:
    """Validate a (possibly stitched) extractor dict into a :class:`PageTree`."""
    return _validated(PageTree, data)


class HostUpdate(BaseModel):
    """What stitching gives one iframe node of a quick read: its frame, and the frame's tree
    when one is hung under it."""

    frame: FrameInfo
    children: list[Node] | None = None


class Stitched(BaseModel):
    """What stitching adds to a quick read's tree, validated in one go: its iframe nodes'
    updates (in the order given), the frames listed and the stats of all frames read."""

    model_config = ConfigDict(populate_by_name=True)

    hosts: list[HostUpdate]
    frames: list[FrameInfo]
    stats: ExtractStats


def stitched_from_dict(data: dict[str, Any]) -> Stitched:
    """Validate what stitching adds to a quick read's tree (see :class:`Stitched`)."""
    return _validated(Stitched, data)


def _validated(model: type[_M], data: dict[str, Any]) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise SnapshotFormatError(
            f"The extractor output does not match format version {FORMAT_VERSION}: "
            f"{first.get('msg', 'invalid')} at {where or 'top level'} "
            f"({exc.error_count()} error(s))."
        ) from None


def parse_snapshot_json(text: str) -> PageTree:
    """Build a :class:`PageTree` from one frame's extractor output, produced by any host.

    Raises :class:`~webrefs.errors.SnapshotFormatError` for malformed JSON, a wrong
    ``version`` or a shape that does not match the format.
    """
    return tree_from_dict(load_frame_json(text))


class OpaqueSheets(BaseModel):
    """Style sheets of other origins a document loaded and cannot read (see ``sheetTexts``
    in the extractor)."""

    model_config = ConfigDict(extra="forbid")
    doc: str
    """The document's own name for itself, which a ``sheetTexts`` must give back."""
    hrefs: list[str]


class _FrameOutput(PageTree):
    """One frame's output as it comes: a page tree plus what only the reader needs."""

    next_ref: StrictInt = Field(alias="nextRef")
    iframes: StrictInt = 0
    root_missing: bool = Field(False, alias="rootMissing")
    opaque_sheets: OpaqueSheets | None = Field(None, alias="opaqueSheets")


FrameHost = tuple[tuple[int, ...], int, float, float]
"""An iframe node of a quick read: its path from the root, registry key, ``cx`` and ``cy``."""


class QuickRead:
    """A frame's output read straight from its JSON text: the tree, the frame's ref counter
    after the read, whether ``rootSelector`` matched nothing, and where its iframe nodes are
    (``hosts``: path of child indexes from the root, registry key and content origin ``cx``,
    ``cy`` of each, in document order; the tree's iframe nodes hold no key or origin).
    ``fresh``: for a read that replaced parts of a kept one, the new subtrees (the rest was
    read before); ``None`` for a read whose every node is new. ``opaque_sheets``: the style
    sheets of other origins the document loaded and could not read (a full read's
    ``opaqueSheets``), for the host to read elsewhere and give back as ``sheetTexts``."""

    __slots__ = ("fresh", "hosts", "next_ref", "opaque_sheets", "root_missing", "tree")

    def __init__(self, tree: PageTree, next_ref: int, root_missing: bool,
                 hosts: list[FrameHost] | None = None, fresh: list[Node] | None = None,
                 opaque_sheets: OpaqueSheets | None = None) -> None:
        self.tree = tree
        self.next_ref = next_ref
        self.root_missing = root_missing
        self.hosts: list[FrameHost] = hosts or []
        self.fresh = fresh
        self.opaque_sheets = opaque_sheets


# An iframe node's frame object as the extractor writes it ({key, cx, cy}, in that order).
# No string value of the output can hold this unescaped, so only the nodes' own objects match.
_FRAME_RE = re.compile(r'"frame":\{"key":(\d+),"cx":(-?\d+(?:\.\d+)?),"cy":(-?\d+(?:\.\d+)?)\}')


def quick_read(text: object, *, frames_ok: bool = False) -> QuickRead | None:
    """One frame's output validated straight from its JSON text, with no dicts in between.
    ``None`` when the output does not validate, or holds iframe nodes and ``frames_ok`` is
    false (or their frame objects cannot be told apart): the general path then reads it,
    and says precisely what is wrong. ``frames_ok``: the caller hangs child frames under the
    iframe nodes itself, by :attr:`QuickRead.hosts`."""
    if not isinstance(text, str):
        return None
    try:
        out = _FrameOutput.model_validate_json(text)
    except ValidationError:
        return None
    if out.version != FORMAT_VERSION or (out.iframes and not frames_ok):
        return None
    hosts: list[FrameHost] = []
    if out.iframes:
        found = _FRAME_RE.findall(text)
        paths = _frame_paths(out.root)
        if not len(found) == len(paths) == out.iframes:
            return None
        hosts = [(path, int(key), float(cx), float(cy))
                 for path, (key, cx, cy) in zip(paths, found, strict=True)]
    tree = PageTree.model_construct(
        _fields_set=out.model_fields_set & set(PageTree.model_fields),
        **{name: getattr(out, name) for name in PageTree.model_fields})
    return QuickRead(tree, out.next_ref, out.root_missing, hosts,
                     opaque_sheets=out.opaque_sheets)


def _frame_paths(root: Node) -> list[tuple[int, ...]]:
    """Paths (child indexes from ``root``) of the nodes with a ``frame``, in document order."""
    paths: list[tuple[int, ...]] = []
    stack: list[tuple[Node, tuple[int, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if node.frame is not None:
            paths.append(path)
        kids = node.children
        for i in range(len(kids) - 1, -1, -1):
            stack.append((kids[i], (*path, i)))
    return paths


_UNCHANGED_HEAD = '{"version":2,"unchanged":'
_TOKEN = r"[A-Za-z0-9.]{1,60}"
"""What a watch token looks like (the extractor makes them)."""
_WATCH_RE = re.compile(rf',"watch":"({_TOKEN})"')


def watch_token(text: str) -> str | None:
    """The watch token at the end of a full read's output (the document can tell whether
    anything changed since), or ``None``."""
    found = _WATCH_RE.search(text, max(0, len(text) - 120))
    return found.group(1) if found else None


def answered_unchanged(text: object, token: str) -> float | None:
    """The in-page time of ``text`` when it is the extractor's answer that nothing changed
    since the read of ``token`` (``nan`` when it gives none); else ``None``."""
    if not isinstance(text, str) or not text.startswith(_UNCHANGED_HEAD) or len(text) > 200:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("unchanged") != token:
        return None
    ms = data.get("jsTimeMs")
    return float(ms) if isinstance(ms, (int, float)) and not isinstance(ms, bool) else math.nan


def unchanged_since(text: object, token: str, kept: QuickRead) -> QuickRead | None:
    """``kept`` again, with this read's in-page time, when ``text`` is the extractor's answer
    that nothing changed since the read of ``token``; else ``None``."""
    ms = answered_unchanged(text, token)
    if ms is None:
        return None
    stats = kept.tree.stats
    if not math.isnan(ms):
        stats = stats.model_copy(update={"js_time_ms": ms})
    tree = kept.tree.model_copy(update={"stats": stats})
    return QuickRead(tree, kept.next_ref, kept.root_missing, kept.hosts)


_RESCROLLED_HEAD = '{"version":2,"rescrolled":'


class _Rescrolled(BaseModel):
    """A read after the page's own scroll alone (see ``rescroll`` in the extractor)."""

    model_config = ConfigDict(extra="forbid")
    version: StrictInt
    rescrolled: str
    scroll: Point
    document: Size
    flips: list[list[StrictInt]]
    """Paths (child indexes from the root) of the nodes that came into or left the viewport."""
    boxes: list[tuple[list[StrictInt], Box]]
    """Path and new box of each node fixed to the viewport (so moved on the page)."""
    shifts: list[tuple[list[StrictInt], StrictInt, StrictInt]] = []
    """Path, ``dx`` and ``dy`` of each subtree whose every box moved by that much, alike."""
    js_time_ms: float = Field(alias="jsTimeMs")
    watch: str = Field(pattern=rf"^{_TOKEN}$")


def _answer(model: type[_M], text: object) -> _M | None:
    """A short answer of the extractor read into ``model``, or ``None`` if it is not one."""
    try:
        return model.model_validate_json(str(text))
    except ValidationError:
        return None


def is_rescrolled(text: object) -> bool:
    """Whether ``text`` is the extractor's answer for a read after the page's scroll alone
    (which only :func:`rescrolled_since` reads: it is no full output)."""
    return isinstance(text, str) and text.startswith(_RESCROLLED_HEAD)


def rescrolled_since(text: object, token: str, kept: QuickRead) -> tuple[QuickRead, str] | None:
    """``kept`` moved by the page's own scroll, and the document's new watch token, when
    ``text`` is the extractor's answer that only the page's scroll changed since the read of
    ``token``: the scroll offsets, the document's size, which nodes are in the viewport and
    the boxes of those fixed to it are this read's; every other field, and every ref, is
    ``kept``'s. ``None`` otherwise (a path that names no node included)."""
    out = _answer(_Rescrolled, text) if is_rescrolled(text) else None
    if out is None or out.version != FORMAT_VERSION or out.rescrolled != token:
        return None
    tree = kept.tree
    updates = _updates(tree.root, out.flips, [*((p, "box", b) for p, b in out.boxes),
                                              *_shifts(out.shifts)])
    if updates is None:
        return None
    stats = tree.stats.model_copy(update={"js_time_ms": out.js_time_ms})
    moved = tree.model_copy(update={
        "root": with_updates(tree.root, updates) if updates else tree.root,
        "scroll": out.scroll, "document": out.document, "stats": stats})
    return QuickRead(moved, kept.next_ref, kept.root_missing, kept.hosts), out.watch


_RETEXTED_HEAD = '{"version":2,"retexted":'


class _Retexted(BaseModel):
    """A read after text edited in place or attributes changed, alone (see ``reread`` in
    the extractor)."""

    model_config = ConfigDict(extra="forbid")
    version: StrictInt
    retexted: str
    nodes: list[tuple[list[StrictInt], Node]]
    """Path and new subtree of each node walked again."""
    splices: list[tuple[list[StrictInt], StrictInt, StrictInt, list[Node]]]
    """Path of a node, a range of its children and what takes their place: what an element
    that was walked but not emitted (a wrapper), or one now emitted otherwise, gives now,
    walked again. In the order they are applied; each range is in the children as the last
    read left them."""
    names: list[tuple[list[StrictInt], str]]
    """Path and new name of each node above them whose name (from its content) changed."""
    flips: list[list[StrictInt]]
    """Paths of the nodes that came into or left the viewport (moved by the edit)."""
    boxes: list[tuple[list[StrictInt], Box]]
    """Path and new box of each node the edit moved or resized, but those of ``shifts``."""
    shifts: list[tuple[list[StrictInt], StrictInt, StrictInt]] = []
    """Path, ``dx`` and ``dy`` of each subtree whose every kept box the edit moved by that
    much, alike (content put in or taken out moves all below it). The new subtrees of
    ``nodes`` and ``splices`` are this read's, and are not moved."""
    frames: list[tuple[list[StrictInt], StrictInt, StrictInt]] = []
    """Path and new content origin (``cx``, ``cy``) of each iframe node the edit moved."""
    hosted: list[tuple[list[StrictInt], StrictInt, StrictInt, StrictInt]] = []
    """Each iframe node in the new subtrees (``nodes`` and ``splices``): its path in the tree
    once the answer is applied, its registry key and its content origin (``cx``, ``cy``)."""
    document: Size
    focused_ref: str | None = Field(alias="focusedRef")
    """Ref of the focused element after the read (focus may have moved: see ``reread``)."""
    next_ref: StrictInt = Field(alias="nextRef")
    stats: ExtractStats
    js_time_ms: float = Field(alias="jsTimeMs")
    watch: str = Field(pattern=rf"^{_TOKEN}$")


def is_retexted(text: object) -> bool:
    """Whether ``text`` is the extractor's answer for a read after text edited in place or
    attributes changed, alone (which only :func:`retexted_since` reads: it is no full
    output)."""
    return isinstance(text, str) and text.startswith(_RETEXTED_HEAD)


Spliced = dict[tuple[int, ...], list[tuple[int, int, list[Node]]]]
"""Per node's path, ranges of its children and what takes their place, in the order applied
(see ``_Retexted.splices``)."""


def retexted_since(text: object, token: str, kept: QuickRead) -> tuple[QuickRead, str] | None:
    """``kept`` with the subtrees the document walked again after text was edited in place
    or attributes changed (see ``reread`` in the extractor), and the document's new watch
    token, when ``text`` is the extractor's answer for such a read since the read of
    ``token``: the new subtrees, the names above them, the boxes and
    viewport flags of the nodes the edit moved, the content origins of the iframes it moved,
    the iframes in the new subtrees, the document's size, the stats and the ref counter are
    this read's; every other node is ``kept``'s. ``None`` otherwise (a path that names no
    node, or one inside a new subtree, a moved origin of a path that holds no iframe, iframes
    listed that are not those of the new subtrees, or a ref counter that went back,
    included). Refs in the new subtrees are for the caller to check, as for a full read."""
    out = _answer(_Retexted, text) if is_retexted(text) else None
    if (out is None or out.version != FORMAT_VERSION or out.retexted != token
            or out.next_ref < kept.next_ref):
        return None
    tree = kept.tree
    spliced: Spliced = {}
    for path, start, end, new in out.splices:
        spliced.setdefault(tuple(path), []).append((start, end, new))
    updates = _updates(tree.root, out.flips, [
        *((p, "name", n) for p, n in out.names), *((p, "box", b) for p, b in out.boxes),
        *_shifts(out.shifts)],
        {tuple(path): node for path, node in out.nodes}, spliced)
    if updates is None:
        return None
    stats = out.stats.model_copy(update={"js_time_ms": out.js_time_ms})
    moved = tree.model_copy(update={
        "root": with_updates(tree.root, updates, spliced), "document": out.document,
        "focused_ref": out.focused_ref, "stats": stats})
    replaced = {tuple(path) for path, _ in out.nodes}
    stay = [h for h in kept.hosts if not _walked_again(h[0], replaced, spliced)]
    origins = {tuple(path): (float(cx), float(cy)) for path, cx, cy in out.frames}
    hosted = {tuple(path): (key, float(cx), float(cy)) for path, key, cx, cy in out.hosted}
    if (len(origins) != len(out.frames) or not origins.keys() <= {h[0] for h in stay}
            or len(hosted) != len(out.hosted)
            or hosted.keys() != _frames_in_new(out.nodes, spliced)):
        return None
    hosts = [(_moved_by(path, spliced), key, *origins.get(path, (cx, cy)))
             for path, key, cx, cy in stay]
    if hosted:
        hosts = sorted([*hosts, *((path, *at) for path, at in hosted.items())])
    fresh = [*(node for _, node in out.nodes), *(n for *_, new in out.splices for n in new)]
    return QuickRead(moved, out.next_ref, kept.root_missing, hosts, fresh), out.watch


def _shifts(shifts: list[tuple[list[int], int, int]]) -> list[tuple[list[int], str, Any]]:
    """An answer's moved subtrees as fields for :func:`_updates` (see :func:`with_updates`)."""
    return [(p, SHIFT, (dx, dy)) for p, dx, dy in shifts]


def _walked_again(path: tuple[int, ...], replaced: set[tuple[int, ...]],
                  spliced: Spliced) -> bool:
    """Whether the node at ``path`` is one of the nodes replaced, or under one, or in a
    spliced range (an iframe node there is answered again from the new subtree)."""
    for depth in range(len(path) + 1):
        here = path[:depth]
        if here in replaced:
            return True
        if depth < len(path) and any(s <= path[depth] < e for s, e, _ in spliced.get(here, ())):
            return True
    return False


def _frames_in_new(nodes: list[tuple[list[int], Node]],
                   spliced: Spliced) -> set[tuple[int, ...]]:
    """Paths, in the tree with the answer applied, of the iframe nodes inside the answer's
    new subtrees, found where each new subtree now is. A splice's nodes start at its
    range's start, moved by the splices of the same node applied after it (those before it
    in the node's children)."""
    found: set[tuple[int, ...]] = set()

    def under(base: tuple[int, ...], node: Node) -> None:
        if node.frame is not None or node.children:
            found.update((*base, *rel) for rel in _frame_paths(node))

    for path, node in nodes:
        under(_moved_by(tuple(path), spliced), node)
    for where, cuts in spliced.items():
        now = _moved_by(where, spliced)
        for k, (start, _end, new) in enumerate(cuts):
            first = start + sum(len(n) - (e - s) for s, e, n in cuts[k + 1:])
            for i, kid in enumerate(new):
                under((*now, first + i), kid)
    return found


def _moved_by(path: tuple[int, ...], spliced: Spliced) -> tuple[int, ...]:
    """Where the node at ``path`` is once ``spliced`` is applied (it is in no spliced range)."""
    if not spliced:
        return path
    return tuple(i + sum(len(new) - (e - s) for s, e, new in spliced.get(path[:d], ()) if e <= i)
                 for d, i in enumerate(path))


SHIFT = "shift"
"""The field of an update that moves every box of the node's subtree by ``(dx, dy)``."""


def _updates(root: Node, flips: list[list[int]], fields: list[tuple[list[int], str, Any]],
             replaced: dict[tuple[int, ...], Node] | None = None, spliced: Spliced | None = None,
             ) -> dict[tuple[int, ...], dict[str, Any] | Node] | None:
    """What :func:`with_updates` takes for an answer: the nodes at ``replaced``'s paths
    replaced, ``fields`` (path, field, value; :data:`SHIFT` moves a subtree's boxes) set,
    ``in_viewport`` turned over at ``flips``.
    ``None`` when a path names no node of ``root``, or one inside a replaced node or a
    spliced range, or when a spliced range is not among its node's children or overlaps
    another of them.

    The paths are taken in order, each from the nodes of the one before it that it shares
    a beginning with (an answer after content put in names every box below it: hundreds of
    paths into the same few subtrees)."""
    replaced = replaced or {}
    spliced = spliced or {}
    updates: dict[tuple[int, ...], dict[str, Any] | Node] = dict(replaced)
    entries = [*((tuple(p), "", None) for p in replaced), *((tuple(p), "", None) for p in spliced),
               *((tuple(p), "in_viewport", None) for p in flips),
               *((tuple(p), name, value) for p, name, value in fields)]
    entries.sort(key=lambda e: e[0])  # (stable: a field set twice keeps its last value)
    prev: tuple[int, ...] = ()
    nodes = [root]  # (the nodes along prev, from the root)
    for path, name, value in entries:
        shared = 0
        for a, b in zip(path, prev, strict=False):
            if a != b:
                break
            shared += 1
        del nodes[shared + 1:]
        node = nodes[-1]
        for depth in range(shared, len(path)):
            i = path[depth]
            here = path[:depth]
            if ((depth and here in replaced) or not 0 <= i < len(node.children)
                    or any(s <= i < e for s, e, _ in spliced.get(here, ()))):
                return None
            node = node.children[i]
            nodes.append(node)
        prev = path
        if path in spliced:
            ranges = sorted((s, e) for s, e, _ in spliced[path])
            if any(not 0 <= s <= e <= len(node.children) for s, e in ranges) or any(
                    a[1] > b[0] for a, b in pairwise(ranges)):
                return None
        if not name:
            continue  # (a replaced node's own path, or a spliced one's)
        update = updates.setdefault(path, {})
        if isinstance(update, Node):
            return None
        update[name] = not node.in_viewport if name == "in_viewport" else value
    return updates


class _Edits:
    """What :func:`with_updates` does to one node: its update, the edits below it by child
    index, and the ranges of its children replaced."""

    __slots__ = ("below", "cuts", "update")

    def __init__(self) -> None:
        self.update: dict[str, Any] | Node | None = None
        self.below: dict[int, _Edits] = {}
        self.cuts: list[tuple[int, int, list[Node]]] = []

    def at(self, path: tuple[int, ...]) -> _Edits:
        edits = self
        for i in path:
            edits = edits.below.get(i) or edits.below.setdefault(i, _Edits())
        return edits

    def apply(self, node: Node, dx: float = 0, dy: float = 0) -> Node:
        """``node`` with these edits, every box of its subtree moved by ``dx``, ``dy`` first
        (the new nodes of an update or a cut are taken as they are); ``node`` itself where
        nothing changes."""
        here = self.update
        if isinstance(here, Node):
            return here
        change = dict(here or {})
        moved = change.pop(SHIFT, None)
        if moved is not None:
            dx, dy = dx + moved[0], dy + moved[1]
        shifting = bool(dx or dy)
        if shifting and node.box is not None and "box" not in change:
            box = node.box
            change["box"] = Box(box.x + dx, box.y + dy, box.w, box.h)
        if self.below or self.cuts or (shifting and node.children):
            was = change.get("children", node.children)
            kids = list(was)
            if shifting:  # (every child moves, edited or not)
                for i, kid in enumerate(kids):
                    kids[i] = self.below.get(i, _UNEDITED).apply(kid, dx, dy)
            else:
                for i, sub in self.below.items():
                    kids[i] = sub.apply(kids[i])
            for start, end, new in self.cuts:
                kids[start:end] = new
            if self.below or self.cuts or any(a is not b for a, b in zip(kids, was, strict=True)):
                change["children"] = kids
        return node.model_copy(update=change) if change else node


_UNEDITED = _Edits()
"""No edits: what a node with none gives (moved along, where its parent moves)."""


def with_updates(node: Node, updates: Mapping[tuple[int, ...], dict[str, Any] | Node],
                 spliced: Spliced | None = None) -> Node:
    """``node`` with the fields of the nodes at ``updates``' paths (relative to it) replaced,
    or the nodes themselves where the update is a node, ranges of children replaced as
    ``spliced`` says (after the updates, which name children as they were), and every node
    above them copied: the rest of the tree is shared, not copied. A :data:`SHIFT` field
    ``(dx, dy)`` moves every box of that node's subtree by as much (but a box the updates
    set, and those of the nodes an update or a cut puts in)."""
    edits = _Edits()
    for path, update in updates.items():
        edits.at(path).update = update
    for path, cuts in (spliced or {}).items():
        edits.at(path).cuts.extend(cuts)
    return edits.apply(node)
