"""Reference policies for MiniWoB++ tasks that need to see the page: colours and shapes
drawn without names. They read what ``web_screenshot`` returns, the PNG's pixels (Pillow),
and act on refs or on points of that image (``x, y`` in vision mode), nothing else."""

from __future__ import annotations

import io
from collections.abc import Generator

from PIL import Image

from .families import goal_match
from .outline import Item
from .policy import Call, Play, Policy, Result, click, look, stuck

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


def named_colour(pixel: RGB) -> str:
    """The CSS colour keyword nearest to ``pixel``."""
    return min(CSS_COLOURS, key=lambda n: sum((a - b) ** 2
                                               for a, b in zip(CSS_COLOURS[n], pixel)))


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
    count, colour = max(colours, key=lambda c: c[0])
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
        distance = sum((a - b) ** 2 for a, b in zip(colour, CSS_COLOURS[want]))
        if best is None or distance < best[0]:
            best = (distance, box)
    if best is None:
        raise stuck("the page shows no box large enough to be a choice")
    yield from click(best[1], f"{want} box")
    return None


POLICIES: dict[str, Policy] = {
    "click-color": click_color,
}
"""The reference policy of each of these tasks (by task name)."""


