"""Attention model: how much a node matters to an agent looking at the page now.

``score = 0.35 position + 0.25 area + 0.15 font size + 0.25 semantic``, each term in 0..1:

- position: distance of the node's centre from the viewport's centre, in half-viewports.
  Inside the viewport the term falls from 1 (centre) to 0.5 (edge); beyond it, it decays with
  the distance, so the first screen is always favoured over the rest of the page.
- area: the node's share of the viewport (square root, so small controls still count; a
  quarter of the screen or more scores 1).
- font size: relative to the largest font size among the scored nodes.
- semantic: a fixed weight per role: interactive above content above structure.

Pure arithmetic on the boxes the extractor measured; no browser.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..models import Box, Node, PageTree

__all__ = ["WEIGHTS", "Scorer", "score_node", "semantic_weight"]

WEIGHTS: dict[str, float] = {"position": 0.35, "area": 0.25, "font": 0.15, "semantic": 0.25}

_SEMANTIC: dict[str, float] = {
    # interactive: what an agent acts on
    "searchbox": 1.0, "textbox": 1.0, "combobox": 0.95, "button": 0.9, "checkbox": 0.88,
    "radio": 0.88, "switch": 0.88, "slider": 0.85, "spinbutton": 0.85, "listbox": 0.85,
    "link": 0.8, "tab": 0.8, "menuitem": 0.78, "menuitemcheckbox": 0.78,
    "menuitemradio": 0.78, "treeitem": 0.75, "option": 0.72, "gridcell": 0.7,
    # content: what the page says
    "alert": 0.7, "heading": 0.62, "status": 0.6, "img": 0.45, "image": 0.45,
    "paragraph": 0.45, "cell": 0.42, "columnheader": 0.45, "rowheader": 0.45,
    "listitem": 0.42, "text": 0.4, "blockquote": 0.4, "code": 0.4,
}
_W_POSITION, _W_AREA = WEIGHTS["position"], WEIGHTS["area"]
_W_FONT, _W_SEMANTIC = WEIGHTS["font"], WEIGHTS["semantic"]
_CLICKABLE = 0.7
"""Clickable by cursor or handler but with no interactive role."""
_CONTENT_DEFAULT = 0.38
_STRUCTURE = 0.15

_DEFAULT_VIEWPORT = (1280.0, 720.0)


def semantic_weight(node: Node, role: str) -> float:
    w = _SEMANTIC.get(role)
    if w is not None:
        return w
    if node.clickable:
        return _CLICKABLE
    if node.text or node.name:
        return _CONTENT_DEFAULT
    return _STRUCTURE


class Scorer:
    """Scores nodes of one page (viewport, scroll and largest font size fixed)."""

    def __init__(self, tree: PageTree, nodes: Iterable[Node] = ()) -> None:
        vw = tree.viewport.width or _DEFAULT_VIEWPORT[0]
        vh = tree.viewport.height or _DEFAULT_VIEWPORT[1]
        self.vw, self.vh = vw, vh
        self.cx = tree.scroll.x + vw / 2
        self.cy = tree.scroll.y + vh / 2
        self.area_full = vw * vh / 4
        self.max_font = max((n.font_size for n in nodes if n.font_size > 0), default=16.0)

    def position(self, box: Box | None) -> float:
        if box is None:
            return 0.0
        dx = abs(box.x + box.w / 2 - self.cx) / (self.vw / 2)
        dy = abs(box.y + box.h / 2 - self.cy) / (self.vh / 2)
        d = math.hypot(dx, dy) / math.sqrt(2)
        if d <= 1.0:
            return 1.0 - 0.5 * d
        return 0.5 / d

    def area(self, box: Box | None) -> float:
        if box is None or box.w <= 0 or box.h <= 0:
            return 0.0
        return min(1.0, math.sqrt(box.w * box.h / self.area_full))

    def font(self, node: Node) -> float:
        return min(1.0, max(0.0, node.font_size / self.max_font))

    def score(self, node: Node, role: str) -> float:
        box = node.box
        sem = _SEMANTIC.get(role)
        if sem is None:
            sem = semantic_weight(node, role)
        font = node.font_size / self.max_font
        font = 1.0 if font > 1.0 else (0.0 if font < 0.0 else font)
        total = _W_FONT * font + _W_SEMANTIC * sem
        if box is not None:
            total += _W_POSITION * self.position(box) + _W_AREA * self.area(box)
        return total


def score_node(tree: PageTree, node: Node, role: str | None = None) -> float:
    """Score one node of ``tree`` (largest font taken over the whole tree)."""
    return Scorer(tree, _walk(tree.root)).score(node, role or node.role or "")


def _walk(node: Node) -> Iterable[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)
