"""screenshot: a PNG of the viewport or the whole page, for vision-capable models; and the
marked screenshot (set-of-marks) of :func:`screenshot_marked`.

A marked screenshot reads the page (a snapshot, so the boxes and refs are current), takes the
image of the viewport, one ref's element box (the element scrolled into view first, in every
box that scrolls it) or the whole page in CSS pixels (whatever the
device scale factor), scales it to fit a provider's limits (:func:`webrefs.render.marks.fit_size`)
and draws each ref the image shows as a labelled box (:mod:`webrefs.render.marks` places them,
:mod:`webrefs.render.picture` draws them, in a worker thread). The :class:`Screenshot` it
returns says what part of the page the image shows and at what scale, which is how a point of
the image is mapped back to the page.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..errors import StaleRefError, UnknownRefError
from ..models import Node, PageTree, ScreenMark, Screenshot
from ..render.marks import Rect, fit_size, image_tokens, marks_for, place_labels
from ..render.picture import draw, require_pillow
from ..snapshot.refs import parse_ref
from .perform import timeout_ms
from .snapshot import take_snapshot
from .targets import resolve

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["screenshot", "screenshot_marked"]

FRONT_TIMEOUT_S = 5.0


async def _png(tab: TabCore, *, full_page: bool = False, clip: Rect | None = None,
               css: bool = False) -> bytes:
    # Chromium paints only the tab in front of its window: a screenshot of another waits
    # for a frame that never comes. In a browser webrefs shares with its user or another
    # client, another tab may have been brought forward: the tab is brought forward first.
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await asyncio.wait_for(tab.page.bring_to_front(), FRONT_TIMEOUT_S)
    extra = {}
    if clip is not None:
        extra["clip"] = {"x": clip[0], "y": clip[1], "width": clip[2], "height": clip[3]}
    return await tab.page.screenshot(
        full_page=bool(full_page), type="png", timeout=max(timeout_ms(tab), 10_000),
        animations="disabled", caret="initial", scale="css" if css else "device",
        **extra,  # type: ignore[arg-type]
    )


async def screenshot(tab: TabCore, full_page: bool = False) -> bytes:
    """PNG bytes of the viewport, or of the whole page with ``full_page=True``."""

    async def run() -> bytes:
        return await _png(tab, full_page=full_page)

    return await tab.call("taking a screenshot", run)


async def _into_view(tab: TabCore, ref: str) -> None:
    """Scroll ``ref``'s element into view, in every box that scrolls it (as a user scrolls to
    look at it): a picture cut from the whole page shows only what the page draws, and an
    element scrolled out of its box is not drawn where its box is. A ref that resolves to no
    element is left to :func:`_region`, which says so."""
    try:
        target = await resolve(tab, ref)
    except (StaleRefError, UnknownRefError):
        return
    if target.handle is not None:
        with contextlib.suppress(PlaywrightError):
            await target.handle.scroll_into_view_if_needed(timeout=timeout_ms(tab))


def _node_of(tree: PageTree, ref: str) -> Node | None:
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if node.ref == ref:
            return node
        stack.extend(node.children)
    return None


def _region(tree: PageTree, ref: str | None, full_page: bool) -> tuple[Rect, bool]:
    """The part of the page to show, in CSS pixels of the main document, and whether it is
    the viewport."""
    if ref is not None:
        bare = parse_ref(ref)
        node = _node_of(tree, bare) if bare is not None else None
        if node is None or node.box is None or node.box.w <= 0 or node.box.h <= 0:
            raise (StaleRefError if bare is not None else UnknownRefError)(
                f"{ref[:40]} is not an element shown on the page now, so it has no picture.",
                hint="Take a web_snapshot and use a ref from it, or leave out ref for the "
                "whole screen.")
        box = node.box
        return (float(box.x), float(box.y), float(box.w), float(box.h)), False
    if full_page:
        return (0.0, 0.0, max(tree.document.width, tree.viewport.width),
                max(tree.document.height, tree.viewport.height)), False
    return (tree.scroll.x, tree.scroll.y, tree.viewport.width, tree.viewport.height), True


async def screenshot_marked(tab: TabCore, *, ref: str | None = None, marks: bool = True,
                            full_page: bool = False, max_side: int | None = None,
                            max_pixels: int | None = None) -> Screenshot:
    """The viewport (or the element of ``ref``, or the whole page) as a :class:`Screenshot`,
    scaled to fit ``max_side`` and ``max_pixels`` (defaults: ``webrefs.render.marks``), with
    every ref it shows drawn as a labelled box unless ``marks=False``."""
    require_pillow()

    async def run() -> Screenshot:
        if ref is not None:
            await _into_view(tab, ref)
        snap = await take_snapshot(tab, {})
        assert snap.source is not None
        tree = snap.source.tree
        region, viewport = _region(tree, ref, full_page)
        if viewport:
            png = await _png(tab, css=True)
        elif full_page and ref is None:
            png = await _png(tab, full_page=True, css=True)
        else:  # an element: its box in document coordinates, from the whole page
            png = await _png(tab, full_page=True, clip=region, css=True)
        limits = {k: v for k, v in (("max_side", max_side), ("max_pixels", max_pixels))
                  if v is not None}
        width, height, scale = fit_size(region[2], region[3], **limits)
        drawn = []
        if marks:
            found = marks_for(tree, region, scale, viewport=viewport)
            seen = await _seen(tab, tree, region) if viewport else None
            if seen is not None:  # main-frame refs hidden under others or clipped: no mark
                found = [m for m in found if m.ref.startswith("f") or m.ref in seen]
            drawn = place_labels(found, width, height)
        image = await asyncio.to_thread(draw, png, (width, height), drawn)
        return Screenshot(
            url=tree.url or tab.page.url, width=width, height=height, scale=scale,
            region=region, viewport=viewport, tokens=image_tokens(width, height), png=image,
            marks=[ScreenMark(ref=m.ref, box=_ints(m.box), label=_ints(m.label))
                   for m in drawn])

    return await tab.call("taking a screenshot", run)


# Which of the given main-frame refs a user can see at their box (viewport coordinates):
# the element, or something inside it, is on top at one of five points of the box (its
# centre and four points inward of its corners), found in webrefs' world, into open shadow
# roots. An element clipped by a scrolled box or covered by another is not seen; one that
# takes no pointer events cannot be tested and is kept.
_SEEN_JS = """(root, a) => {
  const [key, items] = a, reg = window[key];
  const book = reg && reg.books && reg.books.get('');
  const top = (x, y) => { let el = document.elementFromPoint(x, y);
    while (el && el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break; el = inner; }
    return el; };
  const within = (el, host) => { for (let e = el; e; e = e.parentElement ||
      (e.getRootNode && e.getRootNode().host) || null) if (e === host) return true;
    return false; };
  const seen = [];
  for (const [ref, x, y, w, h] of items) {
    const wr = book && book.byRef.get(ref), el = wr && wr.deref();
    if (!el) continue;
    // what takes no pointer events cannot be hit tested: kept
    if (getComputedStyle(el).pointerEvents === 'none') { seen.push(ref); continue; }
    const pts = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
    if (pts.some(([fx, fy]) => { const hit = top(x + w * fx, y + h * fy);
        return hit && within(hit, el); }))
      seen.push(ref);
  }
  return seen;
}"""


async def _seen(tab: TabCore, tree: PageTree, region: Rect) -> set[str] | None:
    """The main-frame refs of ``tree`` in ``region`` that a user can see on screen now;
    ``None`` when the page cannot say (every ref in the region is then kept)."""
    items = []
    for m in marks_for(tree, region, 1.0):
        if parse_ref(m.ref) == m.ref and not m.ref.startswith("f"):
            x, y, w, h = m.box  # relative to the region, which is the viewport here
            items.append([m.ref, x, y, w, h])
    if not items:
        return set()
    try:
        got = await tab.refs.world.value(tab.page.main_frame, _SEEN_JS,
                                         [tab.refs.registry_key, items], 5.0)
    except (PlaywrightError, TimeoutError, ValueError):
        return None
    return {r for r in got if isinstance(r, str)} if isinstance(got, list) else None


def _ints(r: Rect) -> tuple[int, int, int, int]:
    return (round(r[0]), round(r[1]), round(r[2]), round(r[3]))
