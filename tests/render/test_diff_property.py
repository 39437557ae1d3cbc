"""Diffs compare pages, not budgets: for random page trees, an "action" that changes nothing
on the page (scrolls, moves focus without a shown state, resizes the viewport) gives an empty
diff whatever budgets the two snapshots were rendered with, and one real change is reported
once, at every budget."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webrefs import diff_snapshots, render
from webrefs.models import PageTree

_WORDS = ["Add", "River", "Sleeping", "bag", "cart", "Buy", "Gold", "Next", "Home", "Search",
          "Price", "Blue", "Tent", "Lamp", "Sort", "Help"]
_LEAF_ROLES = ["button", "link", "checkbox", "textbox", "heading", "paragraph", "listitem",
               None]
_BOX_ROLES = ["list", "navigation", "main", "form", "region", None]

_name = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4).map(" ".join)


@st.composite
def page(draw: st.DrawFn) -> dict[str, Any]:
    """A page tree as the extractor's JSON: nested boxes, leaves with refs, boxes laid out
    top to bottom."""
    counter = {"ref": 0, "y": 0}

    def leaf() -> dict[str, Any]:
        role = draw(st.sampled_from(_LEAF_ROLES))
        node: dict[str, Any] = {"tag": "div" if role is None else "span", "role": role}
        if role is None:
            node["text"] = draw(_name)
        else:
            node["name"] = draw(_name)
        if role in ("button", "link", "checkbox", "textbox"):
            counter["ref"] += 1
            node["ref"] = f"e{counter['ref']}"
            if role == "checkbox":
                node["states"] = {"checked": draw(st.booleans())}
            if role == "textbox" and draw(st.booleans()):
                node["value"] = draw(_name)
        if role == "heading":
            node["level"] = draw(st.integers(1, 3))
        counter["y"] += 40
        node["box"] = {"x": 10, "y": counter["y"], "w": 200, "h": 30}
        return node

    def box(depth: int) -> dict[str, Any]:
        role = draw(st.sampled_from(_BOX_ROLES))
        n = draw(st.integers(1, 8))
        children = [box(depth + 1) if depth < 3 and draw(st.integers(0, 3)) == 0 else leaf()
                    for _ in range(n)]
        return {"tag": "section", "role": role, "name": draw(st.sampled_from(["", "Shop"])),
                "children": children}

    body = [box(0) for _ in range(draw(st.integers(1, 6)))]
    return {"version": 1, "url": "https://shop.test/", "title": "Shop",
            "viewport": {"width": 1280, "height": 720}, "scroll": {"x": 0, "y": 0},
            "document": {"width": 1280, "height": counter["y"] + 100},
            "root": {"tag": "body", "children": body}}


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for c in node.get("children", []):
        out += _walk(c)
    return out


def _seen_from(d: dict[str, Any], scroll_y: int, focus: str | None) -> PageTree:
    """The same page read with another scroll position and focus: boxes, viewport flags and
    the focused ref move; nothing a snapshot line shows changes."""
    import copy

    d = copy.deepcopy(d)
    d["scroll"] = {"x": 0, "y": scroll_y}
    for n in _walk(d["root"]):
        box = n.get("box")
        if box:
            n["inViewport"] = scroll_y <= box["y"] < scroll_y + 720
    d["focusedRef"] = focus
    return PageTree.model_validate(d)


def _refs(d: dict[str, Any]) -> list[str]:
    return [n["ref"] for n in _walk(d["root"]) if n.get("ref")]


budgets = st.sampled_from([60, 200, 300, 350, 500, 800, 1500, 4000])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page(), budgets, budgets, st.integers(0, 3000), st.integers(0, 3000),
       st.sampled_from(["text", "json"]), st.booleans(), st.booleans(), st.data())
def test_nothing_changed_means_an_empty_diff_at_every_budget(
    d: dict[str, Any], b1: int, b2: int, y1: int, y2: int, fmt: str, interactive: bool,
    viewport_only: bool, data: st.DataObject,
) -> None:
    refs = _refs(d) or [None]
    f1 = data.draw(st.sampled_from(refs))
    f2 = data.draw(st.sampled_from(refs))
    opts = {"format": fmt, "interactive_only": interactive, "viewport_only": viewport_only}
    before = render(_seen_from(d, y1, f1), max_tokens=b1, **opts)
    after = render(_seen_from(d, y2, f2), max_tokens=b2, **opts)
    out = diff_snapshots(before, after, max_tokens=400)
    assert "changed=0 added=0 removed=0" in out.split("\n")[0], out
    assert out.endswith("(no change)")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page(), budgets, budgets, st.integers(0, 3000), st.data())
def test_one_removed_element_is_reported_once_at_every_budget(
    d: dict[str, Any], b1: int, b2: int, y: int, data: st.DataObject,
) -> None:
    refs = _refs(d)
    if not refs:
        return
    gone = data.draw(st.sampled_from(refs))
    before = render(_seen_from(d, y, None), max_tokens=b1)

    def drop(node: dict[str, Any]) -> None:
        node["children"] = [c for c in node.get("children", []) if c.get("ref") != gone]
        for c in node["children"]:
            drop(c)

    drop(d["root"])
    after = render(_seen_from(d, y, None), max_tokens=b2)
    head = diff_snapshots(before, after, max_tokens=4000).split("\n")
    assert "changed=0 added=0 removed=1" in head[0], head
    assert head[1] == f"- removed: {gone}", head
