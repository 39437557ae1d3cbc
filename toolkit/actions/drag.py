"""drag: press on an element, move the mouse in steps, release, with trusted mouse input, so
HTML5 drag and drop (``draggable``, ``dragstart``/``drop``) and pointer-event libraries
(sliders, sortable lists, canvases) both see a real drag.

The drag goes from a ref's element to another ref's element (to its centre) or by an offset
in CSS pixels from the source's centre. Both ends must be visible and enabled; the source is
scrolled into view first and the pointer goes to the destination in :data:`STEPS` moves. Over
a destination element it is released a few pixels past its centre, in the
direction of travel (:func:`drop_point`): a sortable list swaps two items only once the
pointer is past the other's middle, as a person's drag is.

What moved is read back after the page settles, in webrefs' own world: the source's place
among its siblings (and the new order of their first words when it changed), its position,
and its value when it has one (a slider's ``aria-valuenow`` or a range input's value). A drag
after which none of that changed and nothing on the page changed says so in its result; it is
not reported as a move."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError, NotActionableError, WebrefsError
from ..models import ActionResult
from ..quoting import quote
from .dom import run_js
from .perform import Outcome, perform, timeout_ms
from .pointer import ready_for_pointer
from .targets import PagePoint, Target, on_screen, resolve

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["MAX_OFFSET_PX", "STEPS", "drag", "drop_point", "moved_words"]

STEPS = 12
"""Mouse moves between press and release (libraries start a drag after a few pixels)."""
PAST_CENTRE_PX = 6
"""How far past a destination's centre a drag onto it is released (at most a quarter of its
size): enough to be past its middle, little enough to stay well inside a drop box."""
MAX_OFFSET_PX = 5000
"""Largest offset a drag by offset takes, in CSS pixels, each way."""

# The source's place, read in webrefs' world: index among its shown siblings, the first words
# of each (at most 12), its page position, and its value when it has one.
_PLACE_JS = """(el) => {
  const p = el.parentElement;
  const shown = (e) => e.getClientRects().length > 0;
  const sibs = p ? Array.from(p.children).filter(shown) : [el];
  const words = (e) => String(e.innerText || e.textContent || '').trim().split(/\\s+/)
    .slice(0, 4).join(' ').slice(0, 30);
  const r = el.getBoundingClientRect();
  let value = el.getAttribute('aria-valuenow');
  if (value === null && el.tagName === 'INPUT' && el.type === 'range') value = el.value;
  if (value === null) {
    const s = el.closest('[role=slider]') || el.querySelector('[role=slider]');
    if (s) value = s.getAttribute('aria-valuenow');
  }
  return {index: sibs.indexOf(el) + 1, count: sibs.length,
          order: sibs.length <= 12 ? sibs.map(words) : null,
          x: Math.round(r.left + r.width / 2 + scrollX),
          y: Math.round(r.top + r.height / 2 + scrollY), value};
}"""


def _name(t: Target) -> str:
    if t.point is not None:
        what = f"{t.ref} ({t.label})" if t.ref else t.label
        return f"{t.given} on {what}"
    return f"{t.ref} ({t.label})" if t.label else t.ref


async def _place(tab: TabCore, t: Target) -> dict[str, Any] | None:
    """Where the source is now (``None`` when it can no longer be read)."""
    try:
        got = await run_js(t.spot, _PLACE_JS, world=tab.refs.world)
    except (WebrefsError, TimeoutError):
        return None
    return got if isinstance(got, dict) else None


async def _centre(t: Target, what: str) -> tuple[float, float]:
    box = await t.handle.bounding_box()
    if box is None or box["width"] <= 0 or box["height"] <= 0:
        raise NotActionableError(f"Cannot drag {what} {_name(t)}: it has no box on screen.",
                                 hint="Scroll to it or open what contains it, then take a new "
                                 "snapshot.", reason="not_visible")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def _drop_point(dest: Target, sx: float, sy: float) -> tuple[float, float]:
    """Where to release over ``dest``: just past its centre in the direction of travel from
    ``(sx, sy)`` (:data:`PAST_CENTRE_PX`; sortable lists swap two items only once the pointer
    is past the middle of the other)."""
    box = await dest.handle.bounding_box()
    cx, cy = await _centre(dest, "onto")
    if box is None:
        return cx, cy
    return drop_point((box["x"], box["y"], box["width"], box["height"]), sx, sy)


def drop_point(box: tuple[float, float, float, float], sx: float,
               sy: float) -> tuple[float, float]:
    """The release point over ``box`` (x, y, width, height) for a drag from ``(sx, sy)``
    (pure; see :func:`_drop_point`)."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2

    def on(c: float, s: float, size: float) -> float:
        if abs(c - s) < 2:
            return c
        past = min(size / 4, PAST_CENTRE_PX)
        return c + (past if c > s else -past)

    return on(cx, sx, w), on(cy, sy, h)


def moved_words(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """What the drag changed about the source, in words (pure; ``""``: nothing seen)."""
    if before is None:
        return ""
    if after is None:
        return "The dragged element was replaced or removed by the page."
    parts: list[str] = []
    if before.get("order") != after.get("order") and after.get("order"):
        order = ", ".join(quote(str(w), 30) for w in after["order"])
        parts.append(f"It is now item {after['index']} of {after['count']}; the order is now "
                     f"{order}.")
    elif (before.get("index"), before.get("count")) != (after.get("index"), after.get("count")):
        parts.append(f"It is now item {after['index']} of {after['count']}.")
    dx = int(after.get("x", 0)) - int(before.get("x", 0))
    dy = int(after.get("y", 0)) - int(before.get("y", 0))
    if not parts and (abs(dx) > 1 or abs(dy) > 1):
        parts.append(f"It moved by {dx:+d}, {dy:+d} px.")
    if before.get("value") != after.get("value") and after.get("value") is not None:
        parts.append(f"Its value is now {quote(str(after['value']), 40)}.")
    return " ".join(parts)


async def drag(tab: TabCore, target: str | PagePoint, to: str | PagePoint | None = None,
               dx: int | None = None, dy: int | None = None) -> ActionResult:
    """Drag ``target``'s element (or from a point of the page) to ``to``'s element (or to a
    point), or by ``(dx, dy)`` CSS pixels. Points are CSS pixels of the main document and
    must be on screen; a drag from a point starts exactly there."""
    if (to is None) == (dx is None and dy is None):
        raise InvalidArgumentError("Give a drag either a destination ref or an offset (dx, dy), "
                                   "not both and not neither.",
                                   hint="web_drag takes to_ref, or dx and dy.")
    offset = (int(dx or 0), int(dy or 0))
    if to is None and (max(abs(offset[0]), abs(offset[1])) > MAX_OFFSET_PX or offset == (0, 0)):
        raise InvalidArgumentError(f"The offset must be non-zero and at most {MAX_OFFSET_PX} px "
                                   "each way.", hint="Give dx and dy in CSS pixels.")

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        if t.point is None:
            await ready_for_pointer(tab, t, "drag", refuse_disabled=True)
        dest = await resolve(tab, to) if isinstance(to, str) else None
        if dest is not None:
            await ready_for_pointer(tab, dest, "drag onto", refuse_disabled=False)
        before = await _place(tab, t)
        limit = timeout_ms(tab)
        if t.point is not None:
            sx, sy = t.point
        else:
            await t.handle.scroll_into_view_if_needed(timeout=limit)
            sx, sy = await _centre(t, "from")
        mouse = tab.page.mouse
        await mouse.move(sx, sy)
        await mouse.down()
        try:
            await mouse.move(sx + 3, sy + 3)  # a first small move starts HTML5 drags
            if dest is not None:
                await dest.handle.scroll_into_view_if_needed(timeout=limit)
                tx, ty = await _drop_point(dest, sx, sy)
            elif isinstance(to, PagePoint):
                tx, ty = await on_screen(tab, to)
            else:
                tx, ty = sx + offset[0], sy + offset[1]
            await mouse.move(tx, ty, steps=STEPS)
        finally:
            await mouse.up()
        if dest is not None:
            where = f" onto {_name(dest)}"
        elif isinstance(to, PagePoint):
            where = f" to {to}"
        else:
            where = f" by {offset[0]:+d}, {offset[1]:+d} px"
        outcome = Outcome(f"Dragged {_name(t)}{where}.")

        async def verify() -> None:
            after = await _place(tab, t)
            words = moved_words(before, after)
            seen = outcome.settled
            changed = seen is None or bool(seen.mutations or seen.navigated)
            if words:
                outcome.message += f" {words}"
            elif not changed and t.point is not None:
                # a drawing surface (a canvas) changes no element: nothing to read back
                outcome.message += (" No element on the page changed; what a drawing shows "
                                    "is seen in a new web_screenshot.")
            elif not changed:
                outcome.message += " Nothing on the page changed: the drag had no effect."
            outcome.readback.update({"before": before, "after": after})

        outcome.verify = verify
        return outcome

    doing = f"dragging from {target}" if isinstance(target, PagePoint) else \
        f"dragging {str(target)[:60]}"
    return await perform(tab, "drag", target, act, doing=doing)
