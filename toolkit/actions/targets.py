"""From a ``target`` argument to an element: a ref (``e5``, ``f1e3``, ``@e5``, ``ref=e5``) or a
description matched against the latest snapshot.

A target string is only ever compared with refs the tab issued or with snapshot texts; it is
never put into a selector or a script.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from playwright.async_api import ElementHandle, Frame

from ..errors import (
    ActionTimeoutError,
    InvalidTargetError,
    StaleRefError,
    UnknownRefError,
    WebrefsError,
)
from ..quoting import named
from ..render.outline import safe_role
from ..snapshot.refs import finder, parse_ref, resolve_ref
from ..snapshot.world import Spot
from .describe import choose

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["RESOLVE_TIMEOUT_S", "PagePoint", "Target", "classify", "on_screen", "resolve"]

RESOLVE_TIMEOUT_S = 5.0
"""Longest wait for the page to hand over the element of a ref (a stuck page never does)."""

# Starts like a ref but has more after it: "e1'); alert(1)//" or 'e1"] , *[x="'. Such a string
# is an unknown ref, never a description (and never anything else).
# With an explicit marker (``@e1 ...``, ``ref=e1 ...``, ``[ref=e1 ...``) anything after it counts.
_REF_PREFIX = re.compile(
    r"^\s*(?:\[?\s*(?:@|ref\s*[=:]\s*)[\"']?(?:f\d+)?e\d+|(?:f\d+)?e\d+(?![\w ]))",
    re.IGNORECASE,
)


@dataclass
class Target:
    """An element an action will act on."""

    given: str
    """The target as the caller wrote it."""
    ref: str
    frame: Frame
    handle: ElementHandle
    matched_by: Literal["ref", "description", "point"]
    label: str = ""
    """Role and quoted name of the element in the snapshot (``button "Save"``, written by
    :func:`webrefs.quoting.named`), when known."""
    find: tuple[str, Any] | None = None
    """How webrefs' world finds the element again by its ref (``None``: only by handle)."""
    point: tuple[float, float] | None = None
    """For a target given as a point: that point in CSS pixels of the viewport, where the
    mouse goes (the element is the one under it)."""
    link: bool = False
    """For a target given as a point: the element under it is in a link."""

    @property
    def spot(self) -> Spot | ElementHandle:
        """What reads of the element take: a :class:`Spot` (one round trip, found by ref
        inside webrefs' world) when the finder is known, else the handle."""
        if self.find is None:
            return self.handle
        return Spot(self.frame, self.handle, self.find)


@dataclass(frozen=True)
class PagePoint:
    """A target given as a point of the page: CSS pixels of the main frame's document
    (``shown``: how the caller named it, for messages, such as ``(412, 230)`` of a
    screenshot)."""

    x: float
    y: float
    shown: str = ""

    def __str__(self) -> str:
        return self.shown or f"({round(self.x)}, {round(self.y)})"


# The main frame's scroll position and viewport size, read in webrefs' world.
_VIEW_JS = ("(root, a) => ({x: scrollX, y: scrollY, w: document.documentElement.clientWidth "
            "|| innerWidth, h: document.documentElement.clientHeight || innerHeight})")

# The element at a viewport point of this frame (inside open shadow roots), read in webrefs'
# world; its tag and, for an iframe, where its content starts in the frame's viewport.
_HIT_JS = """(root, p) => {
  let el = document.elementFromPoint(p[0], p[1]);
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(p[0], p[1]);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}"""
_FRAME_BOX_JS = """(el) => {
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  return {tag: el.tagName.toLowerCase(),
          x: r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0),
          y: r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0)};
}"""
# From the element hit to the nearest one holding a ref of webrefs' registry (the control a
# user means: the button around a label's text), or the element hit when none does.
_CLIMB_JS = """(el, key) => {
  const reg = window[key];
  const refOf = (e) => { if (!reg || !(reg.books instanceof Map)) return null;
    for (const b of reg.books.values()) { const r = b.byEl.get(e); if (r) return r; }
    return null; };
  for (let e = el; e; e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null) {
    if (e === document.body || e === document.documentElement) break;
    if (refOf(e)) return e;
  }
  return el;
}"""
_ABOUT_JS = """(el, key) => {
  const reg = window[key];
  let ref = null;
  if (reg && reg.books instanceof Map) {
    for (const b of reg.books.values()) { const r = b.byEl.get(el); if (r) { ref = r; break; } }
  }
  const link = !!(el.closest && el.closest('a[href], area[href], [role=link]'));
  return {ref, link, tag: el.tagName.toLowerCase()};
}"""
_MAX_FRAME_DEPTH = 5


async def on_screen(tab: TabCore, point: PagePoint) -> tuple[float, float]:
    """``point`` (document coordinates) in CSS pixels of the viewport now; an
    :class:`InvalidTargetError` when it is not on screen (the page scrolled since it was
    seen, or it lies past the page's edge)."""
    world = tab.refs.world
    view = await world.value(tab.page.main_frame, _VIEW_JS, None, RESOLVE_TIMEOUT_S)
    if not isinstance(view, dict):
        raise InvalidTargetError(f"The page did not say where {point} is on screen.")
    vx, vy = point.x - float(view["x"]), point.y - float(view["y"])
    if not (0 <= vx < float(view["w"]) and 0 <= vy < float(view["h"])):
        raise InvalidTargetError(
            f"The point {point} is not in the visible part of the page now (the page "
            "scrolled since that picture, or it shows more than the screen).",
            hint="Scroll there with web_scroll if needed, then take a new web_screenshot of "
            "the visible part and use a point of it.")
    return vx, vy


async def _resolve_point(tab: TabCore, point: PagePoint) -> Target:
    """The element under ``point``: the nearest element holding a ref around what the point
    hits (else the element hit), found in webrefs' world, iframes entered."""
    world = tab.refs.world
    vx, vy = await on_screen(tab, point)
    frame: Frame = tab.page.main_frame
    fx, fy = vx, vy
    hit: ElementHandle | None = None
    for _ in range(_MAX_FRAME_DEPTH):
        hit = await world.element(frame, _HIT_JS, [fx, fy], RESOLVE_TIMEOUT_S)
        if hit is None:
            break
        box = await world.value(hit, _FRAME_BOX_JS, None, RESOLVE_TIMEOUT_S)
        if not isinstance(box, dict) or box.get("tag") not in ("iframe", "frame"):
            break
        child = await hit.content_frame()
        if child is None:
            break
        frame, fx, fy = child, fx - float(box["x"]), fy - float(box["y"])
    if hit is None:
        raise InvalidTargetError(f"There is no element at {point}.",
                                 hint="Take a new web_screenshot and use a point of it.")
    element = await world.element(hit, _CLIMB_JS, tab.refs.registry_key, RESOLVE_TIMEOUT_S)
    element = element or hit
    about = await world.value(element, _ABOUT_JS, tab.refs.registry_key, RESOLVE_TIMEOUT_S)
    about = about if isinstance(about, dict) else {}
    ref = about.get("ref") if isinstance(about.get("ref"), str) else None
    if ref is not None and not tab.refs.was_issued(ref):
        ref = None
    label = f"<{safe_role(str(about.get('tag') or ''), '?')}>"
    if ref is not None and tab.last_snapshot is not None and ref in tab.last_snapshot.refs:
        node = tab.last_snapshot.refs[ref]
        label = named(node.role, node.name)
    return Target(str(point), ref or "", frame, element, "point", label,
                  finder(tab.refs, ref) if ref is not None else None, point=(vx, vy),
                  link=bool(about.get("link")))


def classify(target: object) -> tuple[Literal["ref", "description"], str]:
    """``("ref", "e5")`` or ``("description", "Search button")``; raises
    :class:`InvalidTargetError` (empty, too long, not a string) or :class:`UnknownRefError`
    (ref-like junk)."""
    if not isinstance(target, str):
        raise InvalidTargetError(
            f"A target must be a string such as 'e5', got {type(target).__name__}."
        )
    ref = parse_ref(target)
    if ref is not None:
        return "ref", ref
    if _REF_PREFIX.match(target):
        raise UnknownRefError(
            f"{target.strip()[:60]!r} is not a ref this tab issued.",
            hint="Use a ref exactly as the latest snapshot shows it, such as e5.",
        )
    return "description", target.strip()


async def resolve(tab: TabCore, target: object) -> Target:
    """The element ``target`` means on ``tab`` now; raises a :class:`TargetError` otherwise.

    A stale ref raises :class:`StaleRefError`; with ``TabOptions.resnapshot_on_stale`` the error
    carries a fresh snapshot (``err.snapshot``).
    """
    if isinstance(target, PagePoint):
        try:
            return await asyncio.wait_for(_resolve_point(tab, target), RESOLVE_TIMEOUT_S * 2)
        except TimeoutError:
            raise ActionTimeoutError(
                f"The page did not answer within {int(RESOLVE_TIMEOUT_S * 2)} s while finding "
                f"what is at {target} (its main thread may be stuck).",
                hint="Navigate to another page or close the tab.") from None
    kind, value = classify(target)
    label = ""
    if kind == "description":
        snap = tab.last_snapshot
        if snap is None:
            from .snapshot import take_snapshot

            snap = await take_snapshot(tab, {})
        winner = choose(value, snap.refs)
        ref, label = winner.ref, winner.label
    else:
        ref = value
        node = tab.last_snapshot.refs.get(ref) if tab.last_snapshot is not None else None
        if node is not None:
            label = named(node.role, node.name)
    try:
        frame, handle = await asyncio.wait_for(resolve_ref(tab.page, tab.refs, ref),
                                               RESOLVE_TIMEOUT_S)
    except TimeoutError:
        raise ActionTimeoutError(
            f"The page did not answer within {int(RESOLVE_TIMEOUT_S)} s while finding {ref} "
            "(its main thread may be stuck).",
            hint="Navigate to another page or close the tab.",
        ) from None
    except StaleRefError as err:
        if tab.options.resnapshot_on_stale and err.snapshot is None:
            err.snapshot = await _fresh_snapshot(tab)
            if err.snapshot is not None:
                err.hint = "A new snapshot is attached; use a ref from it."
        raise
    return Target(str(target), ref, frame, handle, kind, label, finder(tab.refs, ref))


async def _fresh_snapshot(tab: TabCore) -> object | None:
    from .snapshot import take_snapshot

    try:
        return await take_snapshot(tab, {})
    except WebrefsError:
        return None
