"""Reference policies for MiniWoB++ tasks that need to see the page: colours and shapes
drawn without names. They read what ``web_screenshot`` returns, the PNG's pixels (Pillow),
and act on refs or on points of that image (``x, y`` in vision mode), nothing else."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, cast

from PIL import Image

from .families import goal_match, submit
from .outline import Item, Outline
from .policy import Call, Play, Policy, Result, act, click, look, stuck

__all__ = ["POLICIES", "named_colour", "screenshot"]

RGB = tuple[int, int, int]

CSS_COLOURS: dict[str, RGB] = {
    "red": (255, 0, 0), "blue": (0, 0, 255), "olive": (128, 128, 0), "lime": (0, 255, 0),
    "black": (0, 0, 0), "white": (255, 255, 255), "grey": (128, 128, 128),
    "gray": (128, 128, 128), "purple": (128, 0, 128), "orange": (255, 165, 0),
    "yellow": (255, 255, 0), "cyan": (0, 255, 255), "pink": (255, 192, 203),
    "magenta": (255, 0, 255), "green": (0, 128, 0), "aqua": (0, 255, 255),
    "fuchsia": (255, 0, 255), "maroon": (128, 0, 0), "navy": (0, 0, 128),
    "teal": (0, 128, 128), "silver": (192, 192, 192),
}
"""The CSS colour keywords the tasks name, as RGB."""


def _dist2(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """The squared distance of two colours."""
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def _pixels(image: Image.Image) -> Callable[[int, int], RGB]:
    """The colour of a pixel of an RGB image."""
    data = image.load()
    assert data is not None

    def at(x: int, y: int) -> RGB:
        return cast(RGB, data[x, y])

    return at


def named_colour(pixel: RGB) -> str:
    """The CSS colour keyword nearest to ``pixel``."""
    return min(CSS_COLOURS, key=lambda n: _dist2(CSS_COLOURS[n], pixel))


def screenshot(ref: str | None = None, *, marks: bool = False
               ) -> Generator[Call, str, Image.Image]:
    """``web_screenshot`` (of ``ref``'s element, or the visible part), as an RGB image."""
    result = yield ("web_screenshot", {"marks": marks, **({"ref": ref} if ref else {})})
    images = result.images if isinstance(result, Result) else ()
    if not images:
        raise stuck("web_screenshot returned no image")
    return Image.open(io.BytesIO(images[0])).convert("RGB")


def _centre_colour(image: Image.Image) -> RGB:
    """The colour most of the middle of ``image`` has (its border left out)."""
    w, h = image.size
    box = image.crop((w // 4, h // 4, max(w // 4 + 1, 3 * w // 4), max(h // 4 + 1, 3 * h // 4)))
    colours = box.getcolors(box.width * box.height) or []
    _, colour = max(colours, key=lambda c: c[0])
    return colour  # type: ignore[return-value]


def click_color(goal: str) -> Play:
    """"Click on the red colored box.": the nameless boxes are screenshot one by one; of
    those larger than the goal's own swatch, the one whose middle is nearest to that colour is
    clicked."""
    want = goal_match(r"Click on the (.+?) colou?red box", goal, "the goal names no colour"
                      ).group(1).strip().lower()
    if want not in CSS_COLOURS:
        raise stuck(f"the colour {want!r} is not a CSS colour keyword")
    page = yield from look()
    boxes = [i for i in page.all() if not i.name and i.ref is not None]
    if not boxes:
        raise stuck("the page shows no nameless box")
    best: tuple[int, Item] | None = None
    for box in boxes:
        assert box.ref is not None
        image = yield from screenshot(box.ref)
        if min(image.size) < 20:  # the goal's own swatch, beside its words
            continue
        colour = _centre_colour(image)
        distance = _dist2(colour, CSS_COLOURS[want])
        if best is None or distance < best[0]:
            best = (distance, box)
    if best is None:
        raise stuck("the page shows no box large enough to be a choice")
    yield from click(best[1], f"{want} box")
    return None


SHAPE_COLOURS = ("red", "green", "blue", "aqua", "black", "magenta", "yellow")
"""The colours MiniWoB++'s shapes are drawn in."""


@dataclass(frozen=True)
class Shape:
    """What a screenshot of one shape, letter or digit shows."""

    item: Item
    large: bool
    colour: str
    text: str
    """The letter or digit, or ``circle``, ``rectangle``, ``triangle``."""
    kind: str
    """``letter``, ``digit`` or ``shape``."""

    def matches(self, words: list[str]) -> bool:
        """Whether it is what a description says ("large red circle", "small item",
        "blue digit", "q")."""
        rest = list(words)
        if rest and rest[0] in ("large", "small") and (rest.pop(0) == "large") != self.large:
            return False
        if rest and rest[0] in SHAPE_COLOURS and rest.pop(0) != self.colour:
            return False
        what = " ".join(rest)
        return what in ("item", "") or what in (self.text, self.kind)


def _palette_counts(image: Image.Image) -> dict[str, int]:
    """How many pixels of ``image`` are (nearly) each shape colour."""
    counts = dict.fromkeys(SHAPE_COLOURS, 0)
    for n, pixel in image.getcolors(image.width * image.height) or []:
        for name in SHAPE_COLOURS:
            if _dist2(CSS_COLOURS[name], cast(RGB, pixel)) < 2000:
                counts[name] += n
    return counts


def look_at(item: Item) -> Generator[Call, str, Shape]:
    """A letter or digit's size and colour, from a screenshot of its element (its text is
    its name)."""
    if item.ref is None:
        raise stuck("the letter has no ref")
    image = yield from screenshot(item.ref)
    counts = _palette_counts(image)
    colour = max(counts, key=lambda c: counts[c])
    name = item.name.strip()
    return Shape(item, image.size[1] >= 17, colour, name,
                 "digit" if name.isdigit() else "letter")


CELL = 20
"""MiniWoB++ draws its shapes on a grid of 20 px cells, each centred in its cell, 20 px
(large) or 10 px (small) across."""


def _inside(kind: str, size: int, x: float, y: float) -> float:
    """How far the point is inside the shape of ``kind`` and ``size`` centred in a cell
    (negative: outside)."""
    c, h = CELL / 2, size / 2
    if kind == "rectangle":
        return min(h - abs(x - c), h - abs(y - c))
    if kind == "circle":
        return h - math.hypot(x - c, y - c)
    # triangle: apex at the top middle, base along the bottom
    left = (2 * (x - (c - h)) + (y - (c + h))) / 5 ** 0.5
    right = (2 * ((c + h) - x) + (y - (c + h))) / 5 ** 0.5
    return min((c + h) - y, left, right)


def _cell_shape(pixels: Callable[[int, int], bool]) -> tuple[str, int] | None:
    """The shape a cell holds (kind, size), when its pixels of one colour fit one exactly."""
    for size in (CELL, CELL // 2):
        for kind in ("rectangle", "circle", "triangle"):
            inside = outside = hits_in = hits_out = 0
            for y in range(CELL):
                for x in range(CELL):
                    d = _inside(kind, size, x + 0.5, y + 0.5)
                    if d > 1.5:
                        inside += 1
                        hits_in += pixels(x, y)
                    elif d < -1.5 and _inside("rectangle", size + 6, x + 0.5, y + 0.5) > 0:
                        outside += 1
                        hits_out += pixels(x, y)
            if inside and hits_in >= 0.97 * inside and hits_out <= 0.1 * max(outside, 1):
                return kind, size
    return None


@dataclass(frozen=True)
class Drawn:
    """A shape found in a screenshot of the drawing: where (pixels of that image)."""

    shape: Shape
    x: int
    y: int


def drawn_shapes(area: Item) -> Generator[Call, str, list[Drawn]]:
    """The rectangles, circles and triangles of the drawing, from one screenshot of it (the
    last one taken, so its pixels are points to click)."""
    if area.ref is None:
        raise stuck("the drawing has no ref")
    image = yield from screenshot(area.ref)
    found: list[Drawn] = []
    for row in range(image.height // CELL):
        for col in range(image.width // CELL):
            cell = image.crop((col * CELL, row * CELL, (col + 1) * CELL, (row + 1) * CELL))
            counts = _palette_counts(cell)
            colour = max(counts, key=lambda c: counts[c])
            if counts[colour] < 20:
                continue
            want = CSS_COLOURS[colour]
            px = _pixels(cell)

            def near(x: int, y: int, px: Any = px, want: RGB = want) -> bool:
                return _dist2(px(x, y), want) < 2000

            fits = _cell_shape(near)
            if fits is not None:
                kind, size = fits
                found.append(Drawn(Shape(area, size == CELL, colour, kind, "shape"),
                                   col * CELL + CELL // 2,
                                   row * CELL + CELL // 2 + (size // 6 if kind == "triangle"
                                                              else 0)))
    return found


def _drawing(page: Outline) -> Item:
    area = next((i for i in page.all() if i.attrs.get("hint") == "area_svg"), None)
    if area is None:
        raise stuck("the page shows no drawing (area_svg)")
    return area


def _letters(page: Outline) -> Generator[Call, str, list[Shape]]:
    seen: list[Shape] = []
    for item in page.all():
        if item.role != "button" and item.ref is not None and item.name.strip():
            seen.append((yield from look_at(item)))
    return seen


def click_shape(goal: str) -> Play:
    """"Click on a large red circle" (or "small item", "blue digit", "q"): the first shape
    whose screenshot matches."""
    words = goal_match(r"Click on an? (.+?)\.?$", goal, "the goal names no shape"
                       ).group(1).split()
    page = yield from look()
    for letter in (yield from _letters(page)):
        if letter.matches(words):
            yield from click(letter.item, "letter")
            return None
    for drawn in (yield from drawn_shapes(_drawing(page))):
        if drawn.shape.matches(words):
            yield from act("web_click", x=drawn.x, y=drawn.y)
            return None
    raise stuck(f"no shape on the page is a {' '.join(words)}")


def count_shape(goal: str) -> Play:
    """"How many large red items are there?": count the shapes that match, click the
    button with that number."""
    words = goal_match(r"How many (.+?)s are there", goal, "the goal names no shape"
                       ).group(1).split()
    page = yield from look()
    letters = yield from _letters(page)
    drawn = yield from drawn_shapes(_drawing(page))
    count = sum(s.matches(words) for s in [*letters, *(d.shape for d in drawn)])
    yield from click(page.first("button", str(count)), f"button {count}")
    return None


def _ink(image: Image.Image, near: RGB | None = None) -> tuple[int, tuple[int, int, int, int]]:
    """How many pixels of ``image`` are ``near`` that colour (any but white when ``None``),
    and their bounding box."""
    px = _pixels(image)
    count, x0, y0, x1, y1 = 0, image.width, image.height, -1, -1
    for y in range(image.height):
        for x in range(image.width):
            p = px(x, y)
            hit = (_dist2(p, near) < 2000 if near is not None
                   else sum(p) < 600)
            if hit:
                count += 1
                x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
    return count, (x0, y0, x1, y1)


def identify_shape(goal: str) -> Play:
    """"Click the button that best describes the figure below.": a figure with a name is a
    letter or a digit; a nameless one is a rectangle, circle or triangle by how much of its
    box its colour fills (1, pi/4, 1/2)."""
    page = yield from look()
    text = next((i.name.strip() for i in page.all() if i.role != "button" and i.name.strip()),
                None)
    if text:
        answer = "Number" if text.isdigit() else "Letter"
    else:  # the figure's own element (a pointer cursor gives it a ref)
        figure = next((i for i in page.all() if i.role != "button"), None)
        if figure is None or figure.ref is None:
            raise stuck("the page shows no figure")
        image = yield from screenshot(figure.ref)
        counts = _palette_counts(image)
        colour = max(counts, key=lambda c: counts[c])
        count, (x0, y0, x1, y1) = _ink(image, CSS_COLOURS[colour])
        if count == 0:
            raise stuck("the drawing shows no figure")
        fill = count / ((x1 - x0 + 1) * (y1 - y0 + 1))
        answer = "Rectangle" if fill > 0.88 else "Circle" if fill > 0.64 else "Triangle"
    yield from click(page.first("button", answer), f"button {answer!r}")
    return None


def _blobs(image: Image.Image) -> list[tuple[int, int, int, int]]:
    """The bounding boxes of the connected runs of dark pixels of ``image``."""
    px = _pixels(image)
    w, h = image.size
    dark = {(x, y) for y in range(h) for x in range(w) if sum(px(x, y)) < 600}
    boxes: list[tuple[int, int, int, int]] = []
    while dark:
        todo = [dark.pop()]
        x0, y0 = x1, y1 = todo[0]
        while todo:
            x, y = todo.pop()
            x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
            for n in ((x + i, y + j) for i in (-1, 0, 1) for j in (-1, 0, 1)):
                if n in dark:
                    dark.remove(n)
                    todo.append(n)
        boxes.append((x0, y0, x1, y1))
    return boxes


def circle_center(goal: str) -> Play:
    """"Find and click on the center of the circle, then press submit.": the middle of the
    circle's outline in the drawing's screenshot, clicked by point."""
    page = yield from look()
    area = next((i for i in page.all() if i.role != "button"), None)
    if area is None or area.ref is None:
        raise stuck("the page shows no drawing")
    image = yield from screenshot(area.ref)
    # the Submit button's border reaches into the drawing's box and may cover the circle's
    # bottom: keep the rows above the first long straight dark line
    px = _pixels(image)
    for y in range(image.height):
        run = longest = 0
        for x in range(image.width):
            run = run + 1 if sum(px(x, y)) < 600 else 0
            longest = max(longest, run)
        if longest >= 50:
            image = image.crop((0, 0, image.width, y))
            break
    blobs = _blobs(image)
    if not blobs:
        raise stuck("the drawing shows no circle")
    x0, y0, x1, _ = max(blobs, key=lambda b: b[2] - b[0])  # its widest row is above the line
    yield from act("web_click", x=(x0 + x1) // 2, y=y0 + (x1 - x0) // 2)
    yield from submit(page)
    return None


def find_midpoint(goal: str) -> Play:
    """"Find and click on the shortest mid-point between the two points, then press
    submit.": the two small dark dots of the drawing's screenshot, the point half way."""
    page = yield from look()
    area = next((i for i in page.all() if i.role != "button"), None)
    if area is None or area.ref is None:
        raise stuck("the page shows no drawing")
    dots = [b for b in _blobs((yield from screenshot(area.ref)))
            if b[2] - b[0] <= 10 and b[3] - b[1] <= 10]
    if len(dots) != 2:
        raise stuck(f"the drawing shows {len(dots)} dots, not 2")
    (a0, a1, a2, a3), (b0, b1, b2, b3) = dots
    yield from act("web_click", x=(a0 + a2 + b0 + b2) // 4, y=(a1 + a3 + b1 + b3) // 4)
    yield from submit(page)
    return None


def _hue(colour: RGB) -> str:
    r, g, b = colour
    return "red" if r >= max(g, b) else "green" if g >= b else "blue"


def click_shades(goal: str) -> Play:
    """"Select all the shades of red and press Submit.": each nameless swatch is screenshot;
    those whose strongest channel is that colour are clicked."""
    want = goal_match(r"shades of (red|green|blue)", goal, "the goal names no colour").group(1)
    page = yield from look()
    swatches = [i for i in page.all() if i.role != "button" and not i.name and i.ref]
    if not swatches:
        raise stuck("the page shows no swatches")
    chosen: list[Item] = []
    for swatch in swatches:
        assert swatch.ref is not None
        if _hue(_centre_colour((yield from screenshot(swatch.ref)))) == want:
            chosen.append(swatch)
    for swatch in chosen:
        yield from click(swatch, "swatch")
    yield from submit(page)
    return None


def _runs(image: Image.Image, hit: Callable[[RGB], bool]) -> list[list[tuple[int, int]]]:
    """The connected runs (8 neighbours) of the pixels of ``image`` where ``hit`` holds."""
    px = _pixels(image)
    w, h = image.size
    left = {(x, y) for y in range(h) for x in range(w) if hit(px(x, y))}
    runs: list[list[tuple[int, int]]] = []
    while left:
        todo = [left.pop()]
        run: list[tuple[int, int]] = []
        while todo:
            x, y = todo.pop()
            run.append((x, y))
            for n in ((x + i, y + j) for i in (-1, 0, 1) for j in (-1, 0, 1)):
                if n in left:
                    left.remove(n)
                    todo.append(n)
        runs.append(run)
    return runs


def visual_addition(goal: str) -> Play:
    """"Type the total number of blocks into the textbox and press Submit.": the light blue
    squares of a screenshot, counted (the sum is all of them)."""
    page = yield from look()
    block = (127, 176, 255)
    runs = _runs((yield from screenshot()),
                 lambda p: _dist2(p, block) < 300)
    count = sum(len(r) >= 30 for r in runs)
    field = page.first("textbox")
    if field is None or field.ref is None:
        raise stuck("the page shows no text field")
    yield from act("web_fill", ref=field.ref, value=str(count))
    yield from submit(page)
    return None


def count_corners(outline: list[tuple[int, int]]) -> int:
    """The corners of a closed outline (its pixels): where its distance from its centre
    peaks, counted once around it."""
    cx = sum(x for x, _ in outline) / len(outline)
    cy = sum(y for _, y in outline) / len(outline)
    bins = [0.0] * 72  # 5 degrees each
    for x, y in outline:
        k = int((math.degrees(math.atan2(y - cy, x - cx)) + 360) % 360 // 5) % 72
        bins[k] = max(bins[k], math.hypot(x - cx, y - cy))
    high, low = max(bins), min(b for b in bins if b > 0)
    up, down = low + 0.7 * (high - low), low + 0.3 * (high - low)
    start = min(range(72), key=lambda i: bins[i] if bins[i] > 0 else high)  # below: a side
    corners, above = 0, False
    for i in range(72):  # around once from a side's middle, counting rises (hysteresis)
        b = bins[(start + i) % 72]
        if not above and b > up:
            corners, above = corners + 1, True
        elif above and 0 < b < down:
            above = False
    return corners or 1


def count_sides(goal: str) -> Play:
    """"Press the button that correctly denotes how many sides the shape has.": the largest
    dark run of a screenshot is the polygon's outline; its corners are where its distance
    from its centre peaks, counted around it."""
    page = yield from look()
    runs = _runs((yield from screenshot()), lambda p: sum(p) < 200)
    if not runs:
        raise stuck("the screenshot shows no shape")
    outline = max(runs, key=len)
    corners = count_corners(outline)
    yield from click(page.first("button", str(corners)), f"button {corners}")
    return None


def grid_coordinate(goal: str) -> Play:
    """"Click on the grid coordinate (-1,2).": the 25 blue dots of a screenshot,
    five columns from x = -2 to 2 and five rows from y = 2 down to -2, clicked by point."""
    m = goal_match(r"\((-?\d+),\s*(-?\d+)\)", goal, "the goal names no coordinate")
    gx, gy = int(m.group(1)), int(m.group(2))
    dots = [(sum(x for x, _ in r) / len(r), sum(y for _, y in r) / len(r))
            for r in _runs((yield from screenshot()),
                           lambda p: p[2] > 200 and p[0] < 80 and p[1] < 80) if len(r) >= 8]
    xs = sorted({round(x) for x, _ in dots})
    ys = sorted({round(y) for _, y in dots})
    if not dots:
        raise stuck("the grid shows no dots")
    col = xs[0] + (xs[-1] - xs[0]) * (gx + 2) / 4
    row = ys[0] + (ys[-1] - ys[0]) * (2 - gy) / 4
    x, y = min(dots, key=lambda d: (d[0] - col) ** 2 + (d[1] - row) ** 2)
    yield from act("web_click", x=round(x), y=round(y))
    return None


def find_in(whole: Image.Image, part: Image.Image) -> tuple[int, int] | None:
    """Where ``part`` (a screenshot of one element) is in ``whole`` (one of the screen, same
    scale): its top left pixel, found by its rows' bytes."""
    w, h = part.size
    rows = [part.crop((0, y, w, y + 1)).tobytes() for y in range(h)]
    for y in range(whole.height - h + 1):
        line = whole.crop((0, y, whole.width, y + 1)).tobytes()
        start = line.find(rows[0])
        while start >= 0:
            if start % 3 == 0:
                x = start // 3
                if all(whole.crop((x, y + i, x + w, y + i + 1)).tobytes() == rows[i]
                       for i in range(1, h)):
                    return x, y
            start = line.find(rows[0], start + 1)
    return None


def resize_textarea(goal: str) -> Play:
    """"Resize the textarea so that the width is larger than its initial size then press
    Submit.": a drag by points of a screenshot of the screen from the text area's bottom
    right corner (its resize handle; the text area's own screenshot, found in it, says where)
    20 px out, or in, on both axes."""
    larger = goal_match(r"is (larger|smaller) than", goal, "the goal names no direction"
                        ).group(1) == "larger"
    page = yield from look()
    field = page.first("textbox")
    if field is None or field.ref is None:
        raise stuck("the page shows no text area")
    part = yield from screenshot(field.ref)
    whole = yield from screenshot()  # the drag goes out of the text area: points of this
    at = find_in(whole, part)
    if at is None:
        raise stuck("the text area's picture is not in the screenshot")
    w, h = part.size
    x, y = at[0] + w - 3, at[1] + h - 3
    step = 20 if larger else -20
    yield from act("web_drag", x=x, y=y, to_x=x + step, to_y=y + step)
    yield from submit(page)
    return None


POLICIES: dict[str, Policy] = {
    "resize-textarea": resize_textarea,
    "visual-addition": visual_addition,
    "count-sides": count_sides,
    "grid-coordinate": grid_coordinate,
    "find-midpoint": find_midpoint,
    "click-shades": click_shades,
    "identify-shape": identify_shape,
    "circle-center": circle_center,
    "click-color": click_color,
    "click-shape": click_shape,
    "count-shape": count_shape,
}
"""The reference policy of each of these tasks (by task name)."""


