"""Drawing a screenshot for a model: downscaled to the size :func:`~.marks.fit_size` chose,
each :class:`~.marks.Mark` drawn as a coloured outline with its ref on a filled label. Pure
(bytes in, bytes out) and needs Pillow, the ``webrefs[vision]`` extra:
:func:`require_pillow` raises the one clear ImportError naming the pip command."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from ..errors import missing_extra
from .marks import LABEL_H, Mark

__all__ = ["MARK_COLOURS", "draw", "pillow_available", "require_pillow"]

MARK_COLOURS = (
    (230, 25, 75), (0, 130, 200), (60, 160, 60), (145, 30, 180), (245, 130, 48),
    (0, 128, 128), (200, 40, 200), (128, 0, 0), (0, 0, 128), (170, 110, 40),
)
"""Outline and label colours, taken in turn (dark enough for white text)."""


def pillow_available() -> bool:
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


def require_pillow() -> None:
    """Raise the ImportError naming ``pip install 'webrefs[vision]'`` when Pillow is missing."""
    try:
        import PIL.Image  # noqa: F401
    except ImportError as exc:
        raise missing_extra("web_screenshot (images for models)", "vision") from exc


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # an old Pillow or one built without FreeType
        return ImageFont.load_default()


def draw(png: bytes, size: tuple[int, int], marks: Sequence[Mark]) -> bytes:
    """``png`` scaled to ``size`` (when it is not that size) with ``marks`` drawn on it, as
    PNG bytes."""
    require_pillow()
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGB")
    if image.size != tuple(size):
        image = image.resize(size, Image.Resampling.LANCZOS)
    if marks:
        pen = ImageDraw.Draw(image)
        font = _font(LABEL_H - 3)
        for i, mark in enumerate(marks):
            colour = MARK_COLOURS[i % len(MARK_COLOURS)]
            x, y, w, h = mark.box
            pen.rectangle((x, y, x + max(w, 1) - 1, y + max(h, 1) - 1), outline=colour, width=2)
            lx, ly, lw, lh = mark.label
            pen.rectangle((lx, ly, lx + lw - 1, ly + lh - 1), fill=colour)
            pen.text((lx + 3, ly + 1), mark.ref, fill=(255, 255, 255), font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()
