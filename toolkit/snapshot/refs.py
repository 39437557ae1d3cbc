"""Refs of one tab: short names (``e5``, ``f1e3``) for elements, that never lie.

The page keeps the identity: the extractor stores element <-> ref in a registry inside each
document (a WeakMap and a Map of WeakRefs under a non-enumerable, non-configurable global of
the isolated world webrefs' code runs in, see :mod:`.world`), and :func:`resolve_ref` asks that
registry for the element object, the ref passed as an argument. Nothing is looked up through an
attribute a page script could copy onto another element, and page scripts cannot reach the
registry (except on wrapped pages, which are read in the page's own world).

The Python side (:class:`RefBook`, one per tab) keeps what must outlive documents: the counter
of each frame prefix (never restarted, so a ref is never given to a different element, even
after navigation or a crash) and the frame <-> prefix map (prefixes never reused in a tab).
"""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from ..errors import (
    ActionTimeoutError,
    BrowserClosedError,
    InvalidTargetError,
    PageCrashedError,
    StaleRefError,
    UnknownRefError,
    translate_playwright_error,
)
from .world import World

if TYPE_CHECKING:
    import asyncio

    from playwright.async_api import Page

    from ..models import Node, PageTree
    from .script import QuickRead

__all__ = ["MAX_TARGET_CHARS", "REGISTRY_KEY", "RefBook", "finder", "parse_ref", "resolve_ref",
           "split_ref"]

REGISTRY_KEY = f"__webrefs_{secrets.token_hex(8)}"
"""Global name of the page-side registry in every document this process reads: random per
process, so a page cannot plant a fake registry under it before the first snapshot. (Hosts
that run extractor.js themselves get ``__webrefsRegistry`` unless they pass ``registryKey``.)"""

MAX_TARGET_CHARS = 200
"""Longest target string accepted."""

_REF_SHAPE = re.compile(
    r"^\s*\[?\s*(?:@|ref\s*[=:]\s*)?[\"']?(?P<ref>(?:f[1-9][0-9]{0,8})?e[1-9][0-9]{0,8})[\"']?\s*\]?\s*$",
    re.IGNORECASE,
)
_BARE = re.compile(r"^(?:f(?P<frame>[1-9][0-9]{0,8}))?e(?P<num>[1-9][0-9]{0,8})$")

_LOOKUP_JS = (
    "(root, [key, prefix, ref]) => { const reg = window[key];"
    " const book = reg && reg.books && reg.books.get(prefix);"
    " const w = book && book.byRef.get(ref); const el = w && w.deref();"
    " return el && el.isConnected ? el : null; }"
)
_LOOKUP_TIMEOUT_S = 5.0


def parse_ref(target: str) -> str | None:
    """The bare ref in ``e5``, ``@e5``, ``ref=e5``, ``[ref=e5]`` or ``f1e3``; ``None`` when
    the string is not ref-shaped (the caller then treats it as a description).

    Raises :class:`InvalidTargetError` for a non-string, empty or over-long target.
    """
    if not isinstance(target, str):
        raise InvalidTargetError(
            f"The target must be a string (a ref like 'e5' or a description), "
            f"got {type(target).__name__}."
        )
    if not target.strip():
        raise InvalidTargetError(
            "The target is empty.", hint="Pass a ref from the snapshot, like 'e5'."
        )
    if len(target) > MAX_TARGET_CHARS:
        raise InvalidTargetError(
            f"The target is {len(target)} characters long; at most {MAX_TARGET_CHARS} are "
            "accepted.",
            hint="Pass a ref from the snapshot, like 'e5', or a short description.",
        )
    m = _REF_SHAPE.match(target)
    return m.group("ref").lower() if m else None


def split_ref(ref: str) -> tuple[str, int]:
    """``"f1e3"`` -> ``("f1", 3)``; ``"e5"`` -> ``("", 5)``. Raises InvalidTargetError."""
    m = _BARE.match(ref) if isinstance(ref, str) else None
    if not m:
        raise InvalidTargetError(
            f"{str(ref)[:60]!r} is not a ref.", hint="Refs look like 'e5' or 'f1e3'."
        )
    frame = m.group("frame")
    return (f"f{frame}" if frame else ""), int(m.group("num"))


class RefBook:
    """Per-tab ref state that outlives documents. Only touched on the Browser's loop."""

    def __init__(self, world: World | None = None) -> None:
        self.world = world if world is not None else World(None)
        """Where the extractor and the registry run for this tab's pages."""
        self.registry_key = REGISTRY_KEY
        """Global name of the page-side registry in every document this tab reads."""
        self._next: dict[str, int] = {"": 1}
        self._prefix_of: dict[Frame, str] = {}
        self._frame_of: dict[str, Frame] = {}
        self._frames_made = 0
        self.frame_keys: dict[Frame, int] = {}
        """Registry key of each child frame's iframe element in its parent document (stable
        for the frame's life: a moved iframe or a navigated parent makes new frames)."""
        self.frames_shown: set[Frame] = set()
        """Child frames whose content the last read of the page showed (the next read reads
        them alongside their parents, as they are most likely shown again)."""
        self.kept: dict[Frame, tuple[str, QuickRead | str]] = {}
        """Each frame's last read, by frame: the watch token its document gave it and what it
        was read into (the main frame: a ``QuickRead``; a child frame: the output's text), for
        a read that finds nothing changed. Clearing it makes the next read a full one."""
        self.sheet_reads: dict[Frame, asyncio.Future[dict[str, Any] | None]] = {}
        """Per frame, the reading over DevTools of style sheets of other origins its document
        could not read, started after a read that named them: its result (``sheetTexts``)
        goes to the frame's next read."""
        self.sheets_asked: set[tuple[str, str]] = set()
        """(document, sheet address) pairs already read over DevTools, found or not (each is
        asked for once); a document by the name it gives itself (``opaqueSheets``)."""
        self.frame_trees: dict[Frame, tuple[tuple[Any, ...], Node]] = {}
        """Per child frame of the main frame with no frame of its own shown, the tree last
        hung under its iframe and what it was made from (its output's text and its place):
        a read that finds the same takes that tree again."""
        self.hung: tuple[tuple[Any, ...], PageTree, frozenset[Frame]] | None = None
        """The last page read whose child frames were hung under their iframes: what they
        were hung from, the tree made and the frames it showed (a read with the very same
        inputs, as when no frame changed, takes that tree again instead of hanging them)."""
        self.unchanged_reads = 0
        """Reads of the main frame that the document answered as unchanged."""
        self.rescrolled_reads = 0
        """Reads of the main frame after its own scroll alone, which measured its boxes again
        instead of walking it."""
        self.retexted_reads = 0
        """Reads of the main frame after text was edited in place, or attributes changed,
        alone, which walked only the subtrees around the edits (and measured the other boxes
        again)."""
        self.full_reads = 0
        """Reads of the main frame that walked its document."""
        self.unchanged_frame_reads = 0
        """Reads of child frames that their documents answered as unchanged (a child frame
        is read in full otherwise)."""

    # -- frames ------------------------------------------------------------------------------
    def prefix_for(self, frame: Frame, main: Frame) -> str:
        """The prefix of ``frame`` ("" for the main frame), made on first sight."""
        if frame is main:
            return ""
        prefix = self._prefix_of.get(frame)
        if prefix is None:
            self._frames_made += 1
            prefix = f"f{self._frames_made}"
            self._prefix_of[frame] = prefix
            self._frame_of[prefix] = frame
            self._next[prefix] = 1
        return prefix

    def frame_for(self, prefix: str) -> Frame | None:
        """The live frame of a child prefix, or None when it is gone."""
        frame = self._frame_of.get(prefix)
        if frame is None or frame.is_detached():
            return None
        return frame

    def prune(self) -> None:
        """Forget detached frames (their prefixes and counters stay retired, never reused)."""
        for frame in [f for f in self._prefix_of if f.is_detached()]:
            prefix = self._prefix_of.pop(frame)
            self._frame_of.pop(prefix, None)
            self.frame_keys.pop(frame, None)
            self.frames_shown.discard(frame)
            self.kept.pop(frame, None)
            self.frame_trees.pop(frame, None)
            self.hung = None
            read = self.sheet_reads.pop(frame, None)
            if read is not None:
                read.cancel()

    def forget_documents(self) -> None:
        """The page was replaced (crash): drop frame objects; counters keep counting."""
        self._prefix_of.clear()
        self._frame_of.clear()
        self.frame_keys.clear()
        self.frames_shown.clear()
        self.kept.clear()
        self.frame_trees.clear()
        self.hung = None
        for read in self.sheet_reads.values():
            read.cancel()
        self.sheet_reads.clear()

    # -- counters ----------------------------------------------------------------------------
    def next_number(self, prefix: str) -> int:
        return self._next.get(prefix, 1)

    def advance(self, prefix: str, next_number: int) -> None:
        """Record that refs of ``prefix`` below ``next_number`` have been issued."""
        if next_number > self._next.get(prefix, 1):
            self._next[prefix] = next_number

    def was_issued(self, ref: str) -> bool:
        """Whether this tab ever issued ``ref`` (to any element, in any document)."""
        prefix, number = split_ref(ref)
        return prefix in self._next and number < self._next[prefix]

    def frame_prefixes(self) -> list[str]:
        return sorted(self._frame_of)


def finder(book: RefBook, ref: str) -> tuple[str, list[str]]:
    """How webrefs' world finds the element of ``ref`` again (for :class:`~.world.Spot`):
    the registry lookup :func:`resolve_ref` uses, as a function source and its argument."""
    prefix, _ = split_ref(ref)
    return _LOOKUP_JS, [book.registry_key, prefix, ref]


async def resolve_ref(page: Page, book: RefBook, ref: str) -> tuple[Frame, ElementHandle]:
    """The frame and a handle of the element ``ref`` names, still connected.

    Call it with the tab's lock held (inside ``TabCore.call``); ``book`` is the ref book of
    ``page``'s tab. Raises :class:`UnknownRefError`
    for a ref this tab never issued, :class:`StaleRefError` when its element, frame or
    document is gone, :class:`InvalidTargetError` when ``ref`` is not ref-shaped.
    """
    bare = parse_ref(ref)
    if bare is None:
        raise InvalidTargetError(
            f"{ref[:60]!r} is not a ref.", hint="Refs look like 'e5' or 'f1e3' in the snapshot."
        )
    if not book.was_issued(bare):
        raise UnknownRefError(
            f"Ref {bare} was never issued in this tab.",
            hint="Use a ref from the latest snapshot, or take a snapshot first.",
        )
    prefix, _ = split_ref(bare)
    frame = page.main_frame if prefix == "" else book.frame_for(prefix)
    stale = StaleRefError(
        f"Ref {bare} points to an element that is no longer on the page.",
        hint="The page changed; take a new snapshot and use a current ref.",
        ref=bare,
    )
    if frame is None or frame.is_detached():
        raise stale
    try:
        element = await book.world.element(
            frame, _LOOKUP_JS, [book.registry_key, prefix, bare], _LOOKUP_TIMEOUT_S)
    except TimeoutError:
        raise ActionTimeoutError(
            f"The page did not answer while finding ref {bare} (its main thread may be busy).",
            hint="Wait and try again, or navigate away with web_navigate.",
        ) from None
    except PlaywrightError as exc:
        error = translate_playwright_error(exc, doing=f"finding ref {bare}")
        if isinstance(error, BrowserClosedError | PageCrashedError):
            raise error from None
        raise stale from None  # the frame navigated or went away while asking
    if element is None:
        raise stale
    return frame, element
