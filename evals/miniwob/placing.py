"""Reference policies for the MiniWoB++ tasks that drag shapes into boxes (drag-shapes,
drag-shapes-2). Each shape has a ref (a pointer cursor) but no name: a screenshot of its
element says its kind and colour; a screenshot of the screen says where the shapes and the
black boxes are, and each shape is dragged by points from its middle to a box's middle.
And daily-calendar, an event dragged across half-hour rows (refs, no names) whose
screenshots show no event over them.

Reading the pictures (:func:`shape_of`, :func:`boxes`, :func:`find_like`, :func:`free`) is
pure and tested on drawn images."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import cast

from PIL import Image

from ..baselines.scripted import ScriptError
from .families import goal_match, submit
from .policy import Call, Play, Policy, act, look, stuck
from .seeing import CSS_COLOURS, SHAPE_COLOURS, screenshot

__all__ = ["POLICIES", "Drawn", "boxes", "find_like", "free", "outside", "shape_of",
           "shown"]

RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Drawn:
    """What a screenshot of one shape's element shows."""

    kind: str
    """``rectangle``, ``circle`` or ``triangle``."""
    colour: str
    """One of :data:`~.seeing.SHAPE_COLOURS`."""


def _ink(pixel: RGB, colour: RGB) -> float:
    """How much of ``pixel`` is ``colour`` laid over white (0 to 1)."""
    far = sum((w - c) ** 2 for w, c in zip(WHITE, colour, strict=True))
    if far == 0:
        return 0.0
    t = sum((w - p) * (w - c) for w, p, c in zip(WHITE, pixel, colour, strict=True)) / far
    return min(1.0, max(0.0, t))


def shape_of(image: Image.Image) -> Drawn:
    """The kind and colour of the one shape ``image`` shows on white: its colour is the
    shape colour nearest its most common pixel that is not white; its kind is how much of
    its own bounding box it covers (a square all, a circle pi/4, a triangle half)."""
    image = image.convert("RGB")
    counts = [(n, cast(RGB, p)) for n, p in image.getcolors(image.width * image.height) or []
              if sum((255 - v) ** 2 for v in cast(RGB, p)) > 3000]
    if not counts:
        raise stuck("the shape's picture shows no colour")
    _, common = max(counts)
    name = min(SHAPE_COLOURS, key=lambda n: sum((a - b) ** 2 for a, b in
                                                 zip(CSS_COLOURS[n], common, strict=True)))
    colour = CSS_COLOURS[name]
    data = image.load()
    assert data is not None
    ink = {(x, y): _ink(cast(RGB, data[x, y]), colour)
           for y in range(image.height) for x in range(image.width)}
    seen = [xy for xy, t in ink.items() if t > 0.3]
    x0, x1 = min(x for x, _ in seen), max(x for x, _ in seen)
    y0, y1 = min(y for _, y in seen), max(y for _, y in seen)
    fill = sum(t for (x, y), t in ink.items() if x0 <= x <= x1 and y0 <= y <= y1) / (
        (x1 - x0 + 1) * (y1 - y0 + 1))
    kind = "rectangle" if fill > 0.86 else "circle" if fill > 0.62 else "triangle"
    return Drawn(kind, name)


def boxes(image: Image.Image, longest: int = 40) -> list[Box]:
    """The black boxes (outlines) of ``image``, left to right, as ``(left, top, right,
    bottom)``: runs of dark pixels at least ``longest`` long in a row are their top and
    bottom edges, gathered by where they start and end."""
    data = image.convert("RGB").load()
    assert data is not None
    edges: dict[tuple[int, int], list[int]] = {}
    for y in range(image.height):
        run = 0
        for x in range(image.width + 1):
            if x < image.width and sum(cast(RGB, data[x, y])) < 200:
                run += 1
                continue
            if run >= longest:
                key = next((k for k in edges if abs(k[0] - (x - run)) <= 2
                            and abs(k[1] - (x - 1)) <= 2), (x - run, x - 1))
                edges.setdefault(key, []).append(y)
            run = 0
    return sorted((left, min(ys), right, max(ys)) for (left, right), ys in edges.items()
                  if max(ys) - min(ys) >= 10)


_SHAPES = {"rectangles": "rectangle", "circles": "circle", "triangles": "triangle"}


def _goes_left(goal: str) -> tuple[str, str]:
    """What the goal sends into the (left or only) box: ``("kind", k)`` or
    ``("colour", c)``."""
    m = goal_match(r"^Drag all (\w+)(?: shapes)? into the", goal, "the goal names no shapes")
    word = m.group(1).lower()
    if word in _SHAPES:
        return "kind", _SHAPES[word]
    if word in SHAPE_COLOURS:
        return "colour", word
    raise stuck(f"the goal names {word!r}, which is no shape or shape colour")


def drag_shapes(goal: str) -> Play:
    """"Drag all circles into the black box." / "Drag all red shapes into the left box, and
    everything else into the right box.": every shape screenshot, found in a screenshot of
    the screen, and the chosen ones (the others too, when there is a right box) dragged by
    points to the middle of their box; then Submit."""
    by, want = _goes_left(goal)
    both = "everything else" in goal
    page = yield from look()
    items = [i for i in page.all() if i.role != "button" and not i.name and i.ref]
    if not items:
        raise stuck("the page shows no shapes")
    parts: list[tuple[Drawn, Image.Image]] = []
    for item in items:
        assert item.ref is not None
        part = yield from screenshot(item.ref)
        parts.append((shape_of(part), part))
    found: list[Box] | None = None
    for drawn, part in parts:
        chosen = (drawn.kind if by == "kind" else drawn.colour) == want
        if not chosen and not both:
            continue
        whole = yield from screenshot()  # the drag's points are of this one
        if found is None:
            found = boxes(whole)
            if len(found) != (2 if both else 1):
                raise stuck(f"the screen shows {len(found)} black boxes, not "
                            f"{2 if both else 1}")
        yield from _drag(whole, part, found, found[0 if chosen else 1])
    yield from submit(page)
    return None


def outside(whole: Image.Image, found: list[Box]) -> Image.Image:
    """``whole`` with the inside of each box painted white: shapes already dropped there
    are not found again (two shapes of one kind and colour look the same)."""
    image = whole.copy()
    for left, top, right, bottom in found:
        image.paste(WHITE, (left + 3, top + 3, right - 2, bottom - 2))
    return image


def find_like(whole: Image.Image, part: Image.Image, differ: float = 0.15
              ) -> tuple[int, int] | None:
    """Where ``part`` (a screenshot of one element) looks most like ``whole`` (one of the
    screen, same scale): its top left pixel, among the places whose pixel under ``part``'s
    middle is the same; at most ``differ`` of its pixels may differ (something drawn over a
    corner of it since, as a button's focus), else ``None``."""
    w, h = part.size
    a, b = whole.convert("RGB").load(), part.convert("RGB").load()
    assert a is not None and b is not None
    mid = b[w // 2, h // 2]
    limit = int(differ * w * h)
    best: tuple[int, tuple[int, int]] | None = None
    for y in range(h // 2, whole.height - (h - h // 2) + 1):
        for x in range(w // 2, whole.width - (w - w // 2) + 1):
            if a[x, y] != mid:
                continue
            x0, y0, bad = x - w // 2, y - h // 2, 0
            for j in range(h):
                for i in range(w):
                    p, q = cast(RGB, a[x0 + i, y0 + j]), cast(RGB, b[i, j])
                    if abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 40:
                        bad += 1
                if bad > limit:
                    break
            if bad <= limit and (best is None or bad < best[0]):
                best = (bad, (x0, y0))
    return best[1] if best else None


def _drag(whole: Image.Image, part: Image.Image, found: list[Box], box: Box
          ) -> Generator[Call, str, None]:
    at = find_like(outside(whole, found), part)
    if at is None:
        raise stuck("a shape's picture is not in the screenshot of the screen")
    x, y = at[0] + part.width // 2, at[1] + part.height // 2
    yield from act("web_drag", x=x, y=y, to_x=(box[0] + box[2]) // 2,
                   to_y=(box[1] + box[3]) // 2)


_HOURS = {"8AM": 16, "12PM": 24, "4PM": 32, "8PM": 40}
_LENGTHS = {"30 mins": 1, "0.5 hours": 1, "60 mins": 2, "1 hour": 2, "90 mins": 3,
            "1.5 hours": 3}


def free(image: Image.Image) -> bool:
    """Whether a half-hour row's picture shows no event over its middle (where a drag
    presses): events are coloured (green, blue, red, yellow), the calendar is grey, lines
    and text dark or grey; at most a fifth of the middle third's pixels may be coloured (an
    event may cover the row's edge and leave its middle free)."""
    w, h = image.size
    band = image.convert("RGB").crop((0, h // 3, w, max(h // 3 + 1, 2 * h // 3)))
    coloured = sum(n for n, p in band.getcolors(band.width * band.height) or []
                   if max(cast(RGB, p)) - min(cast(RGB, p)) > 30)
    return coloured <= 0.2 * band.width * band.height


def shown(image: Image.Image) -> bool:
    """Whether a row's picture shows the calendar (light: its grey or an event's pastel)
    rather than what is behind the calendar's box where the row is scrolled out of it."""
    image = image.convert("RGB")
    light = sum(n for n, p in image.getcolors(image.width * image.height) or []
                if max(cast(RGB, p)) >= 200)
    return light >= 0.5 * image.width * image.height


def _row_picture(ref: str) -> Generator[Call, str, Image.Image]:
    """A row's screenshot; a row scrolled out of the calendar's box (no picture, or one of
    what is behind the box) is scrolled into view first."""
    try:
        image = yield from screenshot(ref)
        if shown(image):
            return image
    except ScriptError:  # no picture at all
        pass
    yield from act("web_scroll", direction="down", ref=ref)
    return (yield from screenshot(ref))


def daily_calendar(goal: str) -> Play:
    """"Create a 30 mins event named "Gym", between 4PM and 8PM.": the half-hour rows of the
    outline (nameless, ``hint="half-hour"``, in order from midnight); the first run of the
    goal's length inside the window whose rows' screenshots show no event over them is
    dragged down from its first row to its last; then the new event's name is filled in and
    Create pressed."""
    m = goal_match(r"Create an? (.+?) event named \"(.+?)\", between (\w+) and (\w+)\.",
                   goal, "the goal names no event")
    length, name = _LENGTHS.get(m.group(1)), m.group(2)
    start, end = _HOURS.get(m.group(3).upper()), _HOURS.get(m.group(4).upper())
    if length is None or start is None or end is None:
        raise stuck(f"the goal's length or hours are not known: {m.group(0)!r}")
    page = yield from look(full=True)
    rows = [i for i in page.all() if i.attrs.get("hint") == "half-hour" and i.ref]
    if len(rows) != 48:
        raise stuck(f"the calendar shows {len(rows)} half-hour rows, not 48")
    seen: dict[int, bool] = {}
    for first in range(start, end - length + 1):
        for at in range(first, first + length):
            if at not in seen:
                ref = rows[at].ref
                assert ref is not None
                seen[at] = free((yield from _row_picture(ref)))
        if all(seen[at] for at in range(first, first + length)):
            top, last = rows[first].ref, rows[first + length - 1].ref
            if length == 1:  # within its row: a pixel down
                yield from act("web_drag", ref=top, dx=0, dy=1)
            else:
                yield from act("web_drag", ref=top, to_ref=last)
            form = yield from look()
            field = form.first("textbox")
            if field is None or field.ref is None:
                raise stuck("no form to name the event came")
            yield from act("web_fill", ref=field.ref, value=name)
            yield from submit(form, "Create")
            return None
    raise stuck("the window has no free run of half-hours of that length")


POLICIES: dict[str, Policy] = {
    "daily-calendar": daily_calendar,
    "drag-shapes": drag_shapes,
    "drag-shapes-2": drag_shapes,
}
"""The reference policy of each of these tasks (by task name)."""
