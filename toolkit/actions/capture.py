"""screenshot: a PNG of the viewport or the whole page, for vision-capable models; and the
marked screenshot (set-of-marks) of :func:`screenshot_marked`.

A marked screenshot reads the page (a snapshot, so the boxes and refs are current), takes the
image of the viewport, one ref's element box or the whole page in CSS pixels (whatever the
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
        drawn = (place_labels(marks_for(tree, region, scale, viewport=viewport), width, height)
                 if marks else [])
        image = await asyncio.to_thread(draw, png, (width, height), drawn)
        return Screenshot(
            url=tree.url or tab.page.url, width=width, height=height, scale=scale,
            region=region, viewport=viewport, tokens=image_tokens(width, height), png=image,
            marks=[ScreenMark(ref=m.ref, box=_ints(m.box), label=_ints(m.label))
                   for m in drawn])

    return await tab.call("taking a screenshot", run)


def _ints(r: Rect) -> tuple[int, int, int, int]:
    return (round(r[0]), round(r[1]), round(r[2]), round(r[3]))
