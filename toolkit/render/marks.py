"""Set-of-marks: which refs a screenshot shows, where their boxes and labels go, how big the
image may be and what it costs a model. Pure: no browser, no image library.

A screenshot shows a *region* of the page: the viewport, or one element's box, in CSS pixels
of the main frame's document (the coordinates every :class:`~webrefs.models.Node` box is in).
The image is that region scaled by ``scale`` (image pixels per CSS pixel, below 1 when it was
downscaled to fit a provider's limits).

- :func:`fit_size` picks the image size: the region at one image pixel per CSS pixel, made
  smaller (never larger) until its longest side is at most ``MAX_SIDE`` and its area at most
  ``MAX_PIXELS``.
- :func:`marks_for` lists the refs to draw: nodes with a ref and a box that meets the region
  (for the viewport, only nodes the extractor found in the viewport; hidden elements are never
  in the tree), their boxes moved into image pixels and cut to the image.
- :func:`place_labels` puts each ref's label (a small box holding the ref) next to its box:
  inside the image always, on no other label where any free place exists, on the first free
  place of a fixed order (above the box's top-left corner, inside it, below it, to its
  right, to its left).
- :func:`image_tokens` estimates what an image of a size costs, per provider family
  (:data:`TOKEN_RULES` documents each formula).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..models import Node, PageTree

__all__ = [
    "LABEL_CHAR_W",
    "LABEL_H",
    "MAX_PIXELS",
    "MAX_SIDE",
    "TOKEN_RULES",
    "Mark",
    "Rect",
    "fit_size",
    "image_tokens",
    "marks_for",
    "place_labels",
]

MAX_SIDE = 1568
"""Longest image side sent to a model: Anthropic's documented limit before it scales an image
down (OpenAI's high detail fits 2048 first, so this fits both)."""
MAX_PIXELS = 1_150_000
"""Largest image area sent (about 1.15 megapixels, about 1,530 Anthropic tokens)."""
LABEL_CHAR_W = 7
"""Width of one label character in image pixels (the drawing's font is at most this wide)."""
LABEL_H = 14
"""Height of a label in image pixels."""
_LABEL_PAD = 3

Rect = tuple[float, float, float, float]
"""``(x, y, w, h)``."""


@dataclass(frozen=True)
class Mark:
    """One ref drawn on a screenshot, in image pixels."""

    ref: str
    box: Rect
    """The element's box, cut to the image."""
    label: Rect = (0.0, 0.0, 0.0, 0.0)
    """Where the label holding the ref is drawn (set by :func:`place_labels`)."""


def fit_size(width: float, height: float, *, max_side: int = MAX_SIDE,
             max_pixels: int = MAX_PIXELS) -> tuple[int, int, float]:
    """``(image width, image height, scale)`` for a region of ``width`` x ``height`` CSS
    pixels: scale 1 when it fits, else the largest scale below 1 that fits both limits."""
    w, h = max(float(width), 1.0), max(float(height), 1.0)
    scale = min(1.0, max_side / max(w, h), math.sqrt(max_pixels / (w * h)))
    return max(1, math.floor(w * scale)), max(1, math.floor(h * scale)), scale


def _nodes(root: Node) -> Iterable[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def marks_for(tree: PageTree, region: Rect, scale: float, *,
              viewport: bool = True) -> list[Mark]:
    """The refs the image of ``region`` (CSS pixels of the main document) shows, in document
    order, boxes in image pixels cut to the image. ``viewport``: the region is the viewport,
    so a node counts only when the extractor found it in the viewport."""
    rx, ry, rw, rh = region
    out: list[Mark] = []
    seen: set[str] = set()
    for node in _nodes(tree.root):
        if node.ref is None or node.box is None or node.ref in seen:
            continue
        if viewport and not node.in_viewport:
            continue
        x, y, w, h = node.box
        if w <= 0 or h <= 0:
            continue
        left, top = max(x, rx), max(y, ry)
        right, bottom = min(x + w, rx + rw), min(y + h, ry + rh)
        if right - left < 1 or bottom - top < 1:
            continue
        seen.add(node.ref)
        out.append(Mark(node.ref, ((left - rx) * scale, (top - ry) * scale,
                                   (right - left) * scale, (bottom - top) * scale)))
    return out


def label_size(ref: str) -> tuple[float, float]:
    """Width and height of the label of ``ref`` in image pixels."""
    return len(ref) * LABEL_CHAR_W + 2 * _LABEL_PAD, float(LABEL_H)


def _overlap(a: Rect, b: Rect) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _inside(r: Rect, width: float, height: float) -> Rect:
    x = min(max(r[0], 0.0), max(width - r[2], 0.0))
    y = min(max(r[1], 0.0), max(height - r[3], 0.0))
    return (x, y, r[2], r[3])


def _candidates(box: Rect, lw: float, lh: float) -> list[Rect]:
    x, y, w, h = box
    return [
        (x, y - lh, lw, lh),              # above the top-left corner
        (x, y, lw, lh),                   # inside, top-left
        (x, y + h, lw, lh),               # below the bottom-left corner
        (x + w - lw, y - lh, lw, lh),     # above the top-right corner
        (x + w, y, lw, lh),               # right of the box
        (x - lw, y, lw, lh),              # left of the box
        (x + w - lw, y + h, lw, lh),      # below the bottom-right corner
        (x + w - lw, y + h - lh, lw, lh),  # inside, bottom-right
    ]


def place_labels(marks: Sequence[Mark], width: float, height: float) -> list[Mark]:
    """``marks`` with their labels placed in an image of ``width`` x ``height``: every label
    inside the image; each on the first candidate place that covers no label placed before
    it, else on the candidate covering the least label area. Marks are placed top to bottom,
    left to right, and returned in the order given."""
    order = sorted(range(len(marks)), key=lambda i: (marks[i].box[1], marks[i].box[0]))
    placed: list[Rect] = []
    labels: dict[int, Rect] = {}
    for i in order:
        lw, lh = label_size(marks[i].ref)
        best: Rect | None = None
        best_cost = math.inf
        for cand in _candidates(marks[i].box, lw, lh):
            spot = _inside(cand, width, height)
            cost = sum(_overlap(spot, other) for other in placed)
            if cost < best_cost:
                best, best_cost = spot, cost
            if cost == 0:
                break
        assert best is not None
        placed.append(best)
        labels[i] = best
    return [Mark(m.ref, m.box, labels[i]) for i, m in enumerate(marks)]


TOKEN_RULES: dict[str, str] = {
    "anthropic": "ceil(width * height / 750), after the long side is fit to 1568 px",
    "openai": "85 + 170 per 512 px tile, after fitting in 2048 x 2048 and the short side "
              "to at most 768 px (high detail, GPT-4o family)",
    "google": "258 when both sides are at most 384 px, else 258 per 768 x 768 tile",
}
"""The formula of :func:`image_tokens` per provider family, as each provider documents it."""


def image_tokens(width: int, height: int) -> dict[str, int]:
    """Estimated input tokens of one image of ``width`` x ``height`` pixels, per provider
    family (see :data:`TOKEN_RULES`)."""
    w, h = max(int(width), 1), max(int(height), 1)
    # Anthropic
    s = min(1.0, 1568 / max(w, h))
    aw, ah = w * s, h * s
    anthropic = math.ceil(aw * ah / 750)
    # OpenAI, high detail
    s = min(1.0, 2048 / max(w, h))
    ow, oh = w * s, h * s
    s = min(1.0, 768 / min(ow, oh))
    ow, oh = ow * s, oh * s
    openai = 85 + 170 * math.ceil(ow / 512) * math.ceil(oh / 512)
    # Google (Gemini)
    google = 258 if w <= 384 and h <= 384 else 258 * math.ceil(w / 768) * math.ceil(h / 768)
    return {"anthropic": anthropic, "openai": openai, "google": google}
