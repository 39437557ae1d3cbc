"""The summary tier: what a page holds when not even a short outline fits.

Counts of buttons, inputs, links, selects, images and forms; the focused element; the scroll
position ("viewport shows 0-720 of 5400 px"); and the start of the visible text. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Node, PageTree
from .outline import clean

__all__ = ["PageCounts", "count_page", "scroll_line", "visible_text"]

_INPUT_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "slider", "checkbox", "radio",
                          "switch"})
_SELECT_ROLES = frozenset({"combobox", "listbox"})


@dataclass(frozen=True)
class PageCounts:
    buttons: int = 0
    inputs: int = 0
    links: int = 0
    selects: int = 0
    images: int = 0
    forms: int = 0

    def describe(self) -> str:
        parts = [(self.buttons, "button"), (self.inputs, "input"), (self.links, "link"),
                 (self.selects, "select"), (self.images, "image"), (self.forms, "form")]
        return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in parts)


def count_page(root: Node) -> PageCounts:
    buttons = inputs = links = selects = images = forms = 0
    stack = [root]
    while stack:
        n = stack.pop()
        role = n.role or ""
        if role == "button":
            buttons += 1
        elif role in _SELECT_ROLES or n.tag == "select":
            selects += 1
        elif role in _INPUT_ROLES or n.tag in ("input", "textarea"):
            inputs += 1
        elif role == "link":
            links += 1
        elif role in ("img", "image") or n.tag == "img":
            images += 1
        if role == "form" or n.tag == "form":
            forms += 1
        stack.extend(n.children)
    return PageCounts(buttons, inputs, links, selects, images, forms)


def visible_text(root: Node, limit: int = 500) -> str:
    """The page's text in document order, folded onto one line, at most ``limit`` chars."""
    chunks: list[str] = []
    size = 0
    stack = [root]
    while stack and size < limit * 2:
        n = stack.pop()
        own = n.text or (n.name if n.role in ("link", "button", "heading") and not n.children
                         else "")
        if own:
            chunks.append(own)
            size += len(own) + 1
        stack.extend(reversed(n.children))
    return clean(" ".join(chunks), limit)


def scroll_line(tree: PageTree) -> str:
    """``viewport shows 0-720 of 5400 px`` (vertical)."""
    top = max(0, round(tree.scroll.y))
    height = round(tree.viewport.height)
    total = max(round(tree.document.height), top + height)
    return f"viewport shows {top}-{top + height} of {total} px"
