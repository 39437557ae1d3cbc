"""Reference policies for the MiniWoB++ tasks that draw on a figure of dots and lines: a
point clicked to make an angle (right-angle, bisect-angle) and a line dragged through a dot
(draw-line). They read the figure's screenshot (``web_screenshot`` of its element, a PNG
read with Pillow) and click or drag at points of that image, nothing else.

The geometry (:func:`dots`, :func:`right_angle_point`, :func:`bisector_point`,
:func:`line_through`) is pure and tested on drawn images."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import cast

from PIL import Image

from .families import goal_match, submit
from .outline import Item, Outline
from .policy import Call, Play, Policy, act, look, stuck
from .seeing import screenshot

__all__ = ["POLICIES", "Box", "bisector_point", "dots", "line_through", "right_angle_point"]

RGB = tuple[int, int, int]
Point = tuple[float, float]


def _black(p: RGB) -> bool:
    return sum(p) < 200


def _blue(p: RGB) -> bool:
    return p[2] > 180 and p[0] < 90 and p[1] < 90


def _purple(p: RGB) -> bool:
    return p[0] > 90 and p[2] > 90 and p[1] < 70 and abs(p[0] - p[2]) < 60


def dots(image: Image.Image, hit: Callable[[RGB], bool], *, solid: bool = True
         ) -> list[Point]:
    """The centres of the filled dots of a colour in ``image``. ``solid``: runs of pixels
    whose whole 3 x 3 neighbourhood is that colour (a one-pixel line of the colour has none);
    else runs of pixels of the colour joined across gaps of up to two pixels (a line of
    another colour drawn over a dot), of at least 12 pixels."""
    data = image.convert("RGB").load()
    assert data is not None
    w, h = image.size
    on = {(x, y) for y in range(h) for x in range(w) if hit(cast(RGB, data[x, y]))}
    if solid:
        on = {(x, y) for x, y in on
              if all((x + i, y + j) in on for i in (-1, 0, 1) for j in (-1, 0, 1))}
    reach = 1 if solid else 2
    near = [(i, j) for i in range(-reach, reach + 1) for j in range(-reach, reach + 1)]
    found: list[Point] = []
    while on:
        todo = [on.pop()]
        run: list[tuple[int, int]] = []
        while todo:
            x, y = todo.pop()
            run.append((x, y))
            for n in ((x + i, y + j) for i, j in near):
                if n in on:
                    on.remove(n)
                    todo.append(n)
        if solid or len(run) >= 12:
            found.append((sum(x for x, _ in run) / len(run) + 0.5,
                          sum(y for _, y in run) / len(run) + 0.5))
    return found


@dataclass(frozen=True)
class Box:
    """Where points may go: ``left <= x <= right``, ``top <= y <= bottom``."""

    left: float
    top: float
    right: float
    bottom: float

    def room(self, start: Point, way: Point) -> float:
        """How far from ``start`` along the unit vector ``way`` the box goes."""
        far = math.inf
        for s, d, lo, hi in ((start[0], way[0], self.left, self.right),
                             (start[1], way[1], self.top, self.bottom)):
            if d > 1e-9:
                far = min(far, (hi - s) / d)
            elif d < -1e-9:
                far = min(far, (lo - s) / d)
        return max(far, 0.0)


def _unit(x: float, y: float) -> Point:
    n = math.hypot(x, y)
    if n == 0:
        raise stuck("two points of the figure are at the same place")
    return x / n, y / n


def _along(start: Point, way: Point, box: Box, most: float) -> Point:
    d = min(most, box.room(start, way))
    return start[0] + way[0] * d, start[1] + way[1] * d


def right_angle_point(vertex: Point, other: Point, box: Box, most: float = 50) -> Point:
    """A point that makes a right angle at ``vertex`` with ``other``: on the perpendicular
    to ``vertex``-``other`` through ``vertex``, on the side with more room in ``box``, at
    most ``most`` away."""
    ux, uy = _unit(other[0] - vertex[0], other[1] - vertex[1])
    way = max(((-uy, ux), (uy, -ux)), key=lambda w: min(most, box.room(vertex, w)))
    return _along(vertex, way, box, most)


def bisector_point(vertex: Point, a: Point, b: Point, box: Box, most: float = 50) -> Point:
    """A point on the ray that halves the angle ``a``-``vertex``-``b``, in ``box``."""
    ax, ay = _unit(a[0] - vertex[0], a[1] - vertex[1])
    bx, by = _unit(b[0] - vertex[0], b[1] - vertex[1])
    if math.hypot(ax + bx, ay + by) < 1e-6:  # a straight angle: either perpendicular
        return right_angle_point(vertex, a, box, most)
    return _along(vertex, _unit(ax + bx, ay + by), box, most)


def line_through(dot: Point, vertical: bool, box: Box, half: float = 45
                 ) -> tuple[Point, Point]:
    """The ends of a horizontal (or vertical) line through ``dot``, ``half`` each way, kept
    in ``box``."""
    x, y = dot
    if vertical:
        return (x, max(box.top, y - half)), (x, min(box.bottom, y + half))
    return (max(box.left, x - half), y), (min(box.right, x + half), y)


def _figure(page: Outline) -> Item:
    figure = next((i for i in page.all() if i.role != "button" and not i.name and i.ref),
                  None)
    if figure is None:
        raise stuck("the page shows no figure")
    return figure


def _inside(image: Image.Image) -> Box:
    """Points inside a figure's picture (the Submit button overlaps its last rows)."""
    return Box(3, 3, image.width - 4, image.height - 6)


def _click_at(target: Point, figure: Item, hit: Callable[[RGB], bool],
              before: list[Point]) -> Generator[Call, str, None]:
    """Click ``target`` (a point of the figure's last screenshot), then look where the page
    drew the new dot; when it is off, click again as far the other way."""
    x, y = round(target[0]), round(target[1])
    yield from act("web_click", x=x, y=y)
    assert figure.ref is not None
    after = yield from screenshot(figure.ref)
    new = [d for d in dots(after, hit)
           if all(math.dist(d, old) > 5 for old in before)]
    if len(new) == 1:
        ox, oy = new[0][0] - target[0], new[0][1] - target[1]
        if 1.5 <= math.hypot(ox, oy) <= 15:
            yield from act("web_click", x=round(target[0] - ox), y=round(target[1] - oy))


def _place_third_point(blacks: int,
                       where: Callable[[Point, list[Point], Box], Point]) -> Play:
    """The figure's screenshot with ``blacks`` black dots and one blue one (the vertex); a
    click at ``where(blue, black, inside)``, corrected, then Submit."""
    page = yield from look()
    figure = _figure(page)
    assert figure.ref is not None
    image = yield from screenshot(figure.ref)
    black, blue = dots(image, _black), dots(image, _blue, solid=False)
    if len(black) != blacks or len(blue) != 1:
        raise stuck(f"the figure shows {len(black)} black and {len(blue)} blue dots, not "
                    f"{blacks} and 1")
    target = where(blue[0], black, _inside(image))
    yield from _click_at(target, figure, _blue, blue)
    yield from submit(page)
    return None


def right_angle(goal: str) -> Play:
    """"Add a third point to create a right angle, then press submit.": the black dot and the
    blue one (the vertex) of the figure's screenshot; a click on the perpendicular through
    the blue one."""
    return (yield from _place_third_point(
        1, lambda blue, black, inside: right_angle_point(blue, black[0], inside)))


def bisect_angle(goal: str) -> Play:
    """"Create a line that bisects the angle evenly in two, then press submit.": the blue
    vertex and the two black dots of the figure's screenshot; a click on the bisector."""
    return (yield from _place_third_point(
        2, lambda blue, black, inside: bisector_point(blue, black[0], black[1], inside)))


def draw_line(goal: str) -> Play:
    """"Draw a horizontal line that runs through the dot, then press submit.": the purple dot
    of the figure's screenshot; a drag by points across it."""
    vertical = goal_match(r"Draw an? (horizontal|vertical) line", goal,
                          "the goal names no direction").group(1) == "vertical"
    page = yield from look()
    figure = _figure(page)
    assert figure.ref is not None
    image = yield from screenshot(figure.ref)
    found = dots(image, _purple)
    if len(found) != 1:
        raise stuck(f"the figure shows {len(found)} dots, not 1")
    (x0, y0), (x1, y1) = line_through(found[0], vertical,
                                      Box(3, 3, image.width - 4, image.height - 4))
    yield from act("web_drag", x=round(x0), y=round(y0), to_x=round(x1), to_y=round(y1))
    yield from submit(page)
    return None


POLICIES: dict[str, Policy] = {
    "right-angle": right_angle,
    "bisect-angle": bisect_angle,
    "draw-line": draw_line,
}
"""The reference policy of each of these tasks (by task name)."""
