"""Reference policies for MiniWoB++ tasks that pick by what the page shows rather than by a
name: a colour typed into the colour picker's own hex field (the goal's colour named, or
read from the swatch the goal shows) and a checkbox pattern copied from the example
picture. They read only the utterance and what the tools return (the outline, and
``web_screenshot``'s PNG with Pillow)."""

from __future__ import annotations

from typing import cast

from PIL import Image

from .families import goal_match, submit
from .policy import Play, Policy, act, look, stuck
from .seeing import CSS_COLOURS, RGB, screenshot

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


POLICIES: dict[str, Policy] = {
    "use-colorwheel": use_colorwheel,
    "use-colorwheel-2": use_colorwheel_2,
}
"""The reference policy of each of these tasks (by task name)."""
