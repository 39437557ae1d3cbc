"""Reference policies for the MiniWoB++ tasks that drag with the mouse (``web_drag``). Like
every policy, they read the utterance and what the tools return."""

from __future__ import annotations

import re

from .families import goal_match, submit
from .outline import Item
from .policy import Play, Policy, act, look, stuck

__all__ = ["POLICIES"]

_OFFSETS = {"up": (0, -60), "down": (0, 60), "left": (-60, 0), "right": (60, 0)}


def _drag_onto(source: Item | None, dest: Item | None, what: str) -> Play:
    if source is None or source.ref is None or dest is None or dest.ref is None:
        raise stuck(f"the page shows no {what} to drag")
    yield from act("web_drag", ref=source.ref, to_ref=dest.ref)
    return None


_STEP_LIST = {"up": -1, "down": 1}
_STEP_GRID = {"up": -3, "down": 3, "left": -1, "right": 1}
_CELLS = {f"{row} {col}": 3 * r + c for r, row in enumerate(("top", "center", "bottom"))
          for c, col in enumerate(("left", "center", "right"))} | {"center": 4}


def _drag_to_place(goal: str, place: int | None, steps: dict[str, int], what: str) -> Play:
    """Drag the item the goal names to ``place`` (0-based), or by one step of ``steps``
    ("up by one"): drop it on the item now there."""
    name = goal_match(r"^Drag (.+?) (?:to the|(?:up|down|left|right) by one)", goal,
                      "the goal names no item").group(1)
    page = yield from look()
    items = page.all("listitem")
    source = page.first("listitem", name)
    if source is None:
        raise stuck(f"the {what} shows no item {name!r}")
    if place is None:
        way = goal_match(r"\b(up|down|left|right) by one", goal, "the goal names no place")
        place = items.index(source) + steps[way.group(1)]
    if not 0 <= place < len(items):
        raise stuck(f"there is no place {place + 1} in the {what} ({len(items)} items)")
    if items[place].ref != source.ref:
        yield from _drag_onto(source, items[place], f"item {name!r}")
    return None


def drag_items(goal: str) -> Play:
    """"Drag NAME to the 3rd position." or "Drag NAME up by one position." """
    m = re.search(r"to the (\d+)(?:st|nd|rd|th) position", goal)
    return (yield from _drag_to_place(goal, int(m.group(1)) - 1 if m else None, _STEP_LIST,
                                      "list"))


def drag_items_grid(goal: str) -> Play:
    """"Drag NAME to the bottom center." / "... to the center." / "... left by one." (three
    by three, in reading order)."""
    m = re.search(r"to the ((?:top|center|bottom) (?:left|center|right)|center)\.", goal)
    return (yield from _drag_to_place(goal, _CELLS[m.group(1)] if m else None, _STEP_GRID,
                                      "grid"))


def _number(item: Item) -> float:
    try:
        return float(item.name)
    except ValueError:
        raise stuck(f"the list item {item.name!r} is not a number") from None


def drag_sort_numbers(goal: str) -> Play:
    """Sort the list by dragging (selection sort: the smallest of the rest onto the first
    place of the rest), then Submit. "decreasing" sorts the other way."""
    down = "decreasing" in goal
    page = yield from look()
    count = len(page.all("listitem"))
    for place in range(count):
        items = page.all("listitem")
        rest = items[place:]
        if not rest:
            break
        best = (max if down else min)(rest, key=_number)
        if best.ref != rest[0].ref:
            yield from _drag_onto(best, rest[0], f"number {best.name!r}")
            page = yield from look()
    yield from submit(page)
    return None


def drag_by_offset(goal: str) -> Play:
    """"Drag the item down then press Submit.": the one shape, 60 px that way."""
    way = goal_match(r"\b(up|down|left|right)\b", goal, "the goal names no direction").group(1)
    page = yield from look()
    shape = next((i for i in page.all() if i.role != "button"), None)
    if shape is None or shape.ref is None:
        raise stuck("the page shows no shape to drag")
    dx, dy = _OFFSETS[way]
    yield from act("web_drag", ref=shape.ref, dx=dx, dy=dy)
    yield from submit(page)
    return None


def drag_box(goal: str) -> Play:
    """"Drag the smaller box so that it is completely inside the larger box.": the small box
    is the one named "s", the large one "L"."""
    page = yield from look()
    yield from _drag_onto(page.first(None, "s"), page.first(None, "L"), "box")
    yield from submit(page)
    return None


POLICIES: dict[str, Policy] = {
    "drag-items": drag_items,
    "drag-items-grid": drag_items_grid,
    "drag-sort-numbers": drag_sort_numbers,
    "drag-single-shape": drag_by_offset,
    "drag-circle": drag_by_offset,
    "drag-box": drag_box,
}
"""The reference policy of each of these tasks (by task name)."""
