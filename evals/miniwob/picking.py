"""Reference policies for MiniWoB++ tasks that pick by what the page shows rather than by a
name: a colour typed into the colour picker's own hex field (the goal's colour named, or
read from the swatch the goal shows), a checkbox pattern copied from the example picture,
and numbers clicked in order by the places they had before they were hidden. They read
only the utterance and what the tools return (the outline, and ``web_screenshot``'s PNG
with Pillow)."""

from __future__ import annotations

from typing import cast

from PIL import Image

from .families import goal_match, submit
from .policy import Play, Policy, act, look, stuck
from .seeing import CSS_COLOURS, RGB, find_in, screenshot

__all__ = ["POLICIES", "find_swatch"]

PICKER_COLOURS: dict[str, RGB] = {**CSS_COLOURS, "gold": (255, 215, 0)}
"""The colour keywords use-colorwheel's goals name, as RGB."""


def _hex(colour: RGB) -> str:
    return "".join(f"{c:02x}" for c in colour)


def _fill_picker(colour: RGB) -> Play:
    """Type ``colour`` into the colour picker's hex field, then Submit."""
    page = yield from look()
    field = page.first("textbox")
    if field is None or field.ref is None:
        raise stuck("the page shows no colour field")
    yield from act("web_fill", ref=field.ref, value=_hex(colour))
    yield from submit(page)
    return None


def use_colorwheel(goal: str) -> Play:
    """"Select aqua with the color picker and hit Submit.": the keyword's hex value."""
    name = goal_match(r"Select (\w+) with the colou?r picker", goal,
                      "the goal names no colour").group(1).lower()
    if name not in PICKER_COLOURS:
        raise stuck(f"the colour {name!r} is not a colour keyword")
    return (yield from _fill_picker(PICKER_COLOURS[name]))


def _dark(p: RGB) -> bool:
    return sum(p) < 150


def find_swatch(image: Image.Image, size: int = 12) -> RGB | None:
    """The colour inside the first ``size`` px square drawn with a dark one pixel border
    whose inside is one colour (the goal's swatch), scanning rows from the top."""
    w, h = image.size
    pixels = image.load()
    assert pixels is not None

    def data(x: int, y: int) -> RGB:
        return cast(RGB, pixels[x, y])

    last = size - 1
    for y in range(h - last):
        for x in range(w - last):
            if not _dark(data(x, y)):
                continue
            if not all(_dark(data(x + i, y)) and _dark(data(x + i, y + last))
                       and _dark(data(x, y + i)) and _dark(data(x + last, y + i))
                       for i in range(size)):
                continue
            inside = {data(x + i, y + j) for i in range(2, last - 1)
                      for j in range(2, last - 1)}
            if len(inside) == 1:
                return next(iter(inside))
    return None


def use_colorwheel_2(goal: str) -> Play:
    """"Select the following color [swatch] with the color picker and hit Submit.": the
    swatch's colour, read from a screenshot (a small square with a dark border)."""
    colour = find_swatch((yield from screenshot()))
    if colour is None:
        raise stuck("the screenshot shows no colour swatch")
    return (yield from _fill_picker(colour))


def _dark_boxes(image: Image.Image) -> list[tuple[int, int, int, int]]:
    """The bounding boxes of the connected runs (4 neighbours) of dark pixels of ``image``."""
    w, h = image.size
    pixels = image.load()
    assert pixels is not None
    seen = [[False] * w for _ in range(h)]
    boxes = []
    for y in range(h):
        for x in range(w):
            if seen[y][x] or not _dark(cast(RGB, pixels[x, y])):
                continue
            seen[y][x] = True
            todo = [(x, y)]
            x0, y0, x1, y1 = x, y, x, y
            while todo:
                px, py = todo.pop()
                x0, y0, x1, y1 = min(x0, px), min(y0, py), max(x1, px), max(y1, py)
                for nx, ny in ((px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1)):
                    if 0 <= nx < w and 0 <= ny < h and not seen[ny][nx] \
                            and _dark(cast(RGB, pixels[nx, ny])):
                        seen[ny][nx] = True
                        todo.append((nx, ny))
            boxes.append((x0, y0, x1, y1))
    return boxes


def _bands(lines: list[bool]) -> list[tuple[int, int]]:
    """The runs of false in ``lines`` (the rows or columns between grid lines): first, last."""
    out: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if not line and (i == 0 or lines[i - 1]):
            out.append((i, i))
        elif not line:
            out[-1] = (out[-1][0], i)
    return out


def read_pattern(image: Image.Image, cols: int = 4, rows: int = 7) -> list[bool] | None:
    """The example of number-checkboxes in a screenshot: a grid of ``cols`` by ``rows``
    cells drawn in dark lines (the largest dark run taller than wide), each cell white
    (checked) or grey; the cells' states in reading order, or None when the grid does not
    have that many cells."""
    grids = [b for b in _dark_boxes(image) if b[3] - b[1] > b[2] - b[0] >= 4 * cols]
    if not grids:
        return None
    x0, y0, x1, y1 = max(grids, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
    grid = image.crop((x0, y0, x1 + 1, y1 + 1))
    pixels = grid.load()
    assert pixels is not None
    w, h = grid.size

    def dark(x: int, y: int) -> bool:
        return _dark(cast(RGB, pixels[x, y]))

    row_bands = _bands([sum(dark(x, y) for x in range(w)) > 0.9 * w for y in range(h)])
    col_bands = _bands([sum(dark(x, y) for y in range(h)) > 0.9 * h for x in range(w)])
    if len(row_bands) != rows or len(col_bands) != cols:
        return None
    return [sum(cast(RGB, pixels[(c0 + c1) // 2, (r0 + r1) // 2])) > 600
            for r0, r1 in row_bands for c0, c1 in col_bands]


def number_checkboxes(goal: str) -> Play:
    """"Draw the number "3" in the checkboxes using the example on the right and press
    Submit when finished.": the example picture's white cells, read from a screenshot, are
    the checkboxes to check (four to a row, in reading order)."""
    page = yield from look()
    boxes = page.all("checkbox")
    pattern = read_pattern((yield from screenshot()))
    if pattern is None:
        raise stuck("the screenshot shows no example")
    if len(boxes) != len(pattern):
        raise stuck(f"the page shows {len(boxes)} checkboxes, not {len(pattern)}")
    for box, on in zip(boxes, pattern, strict=True):
        if on != box.has("checked"):
            yield from act("web_click", ref=box.ref)
    yield from submit(page)
    return None


def squares(image: Image.Image, low: int = 14, high: int = 26) -> list[tuple[float, float]]:
    """The centres of the dark squares of ``image`` between ``low`` and ``high`` px across."""
    return [((x0 + x1) / 2, (y0 + y1) / 2) for x0, y0, x1, y1 in _dark_boxes(image)
            if low <= x1 - x0 + 1 <= high and low <= y1 - y0 + 1 <= high
            and abs((x1 - x0) - (y1 - y0)) <= 3]


def ascending_numbers(goal: str) -> Play:
    """"Click on the numbers in ascending order.": the numbers' places are read first (each
    number's own screenshot found in one of the screen), then 1 is clicked, which hides the
    rest behind dark squares; each square is clicked by point in the order of the number
    whose place is nearest."""
    page = yield from look()
    numbers = sorted((i for i in page.all() if i.name.strip().isdigit()),
                     key=lambda i: int(i.name))
    if not numbers or numbers[0].name.strip() != "1":
        raise stuck("the page shows no numbers from 1")
    whole = yield from screenshot()
    places: list[tuple[int, float, float]] = []
    for item in numbers[1:]:
        assert item.ref is not None
        part = yield from screenshot(item.ref)
        at = find_in(whole, part)
        if at is None:
            raise stuck(f"the number {item.name}'s picture is not in the screenshot")
        places.append((int(item.name), at[0] + part.width / 2, at[1] + part.height / 2))
    yield from act("web_click", ref=numbers[0].ref)
    found = squares((yield from screenshot()))
    if len(found) != len(places):
        raise stuck(f"the screenshot shows {len(found)} squares, not {len(places)}")
    for _, x, y in places:
        sx, sy = min(found, key=lambda s: (s[0] - x) ** 2 + (s[1] - y) ** 2)
        yield from act("web_click", x=round(sx), y=round(sy))
    return None


POLICIES: dict[str, Policy] = {
    "ascending-numbers": ascending_numbers,
    "number-checkboxes": number_checkboxes,
    "use-colorwheel": use_colorwheel,
    "use-colorwheel-2": use_colorwheel_2,
}
"""The reference policy of each of these tasks (by task name)."""
