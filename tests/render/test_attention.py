"""Attention model: position, area, font size and role weights."""

from __future__ import annotations

from webrefs.models import Node, PageTree
from webrefs.render.attention import WEIGHTS, Scorer, score_node, semantic_weight


def tree(*children: dict[str, object], scroll_y: float = 0) -> PageTree:
    return PageTree.model_validate({
        "viewport": {"width": 1000, "height": 800}, "scroll": {"x": 0, "y": scroll_y},
        "root": {"tag": "body", "children": list(children)},
    })


def node(y: float, w: float = 100, h: float = 20, role: str = "button",
         font: float = 16) -> Node:
    return Node.model_validate({"tag": "x", "role": role, "name": "n", "fontSize": font,
                                "box": {"x": 450, "y": y, "w": w, "h": h}})


def test_weights_sum_to_one() -> None:
    assert abs(sum(WEIGHTS.values()) - 1.0) < 1e-9
    assert WEIGHTS == {"position": 0.35, "area": 0.25, "font": 0.15, "semantic": 0.25}


def test_position_favours_the_first_screen_and_the_centre() -> None:
    s = Scorer(tree())
    centre = s.position(node(390).box)
    edge = s.position(node(780).box)
    below = s.position(node(2000).box)
    far = s.position(node(8000).box)
    assert centre > edge >= 0.5 > below > far > 0
    assert s.position(None) == 0.0
    scrolled = Scorer(tree(scroll_y=1600))
    assert scrolled.position(node(1990).box) > scrolled.position(node(390).box)


def test_area_and_font_terms() -> None:
    s = Scorer(tree(), [node(0, font=32), node(0, font=16)])
    assert s.area(node(0, w=500, h=400).box) == 1.0
    assert 0 < s.area(node(0, w=100, h=20).box) < 0.2
    assert s.font(node(0, font=32)) == 1.0 and s.font(node(0, font=16)) == 0.5


def test_semantic_interactive_above_content_above_structure() -> None:
    n = Node(tag="div")
    assert semantic_weight(n, "textbox") > semantic_weight(n, "link")
    assert semantic_weight(n, "link") > semantic_weight(n, "heading")
    assert semantic_weight(n, "heading") > semantic_weight(n, "paragraph")
    assert semantic_weight(Node(tag="div", text="hi"), "") > semantic_weight(n, "navigation")
    assert semantic_weight(Node(tag="div", clickable=True), "") > semantic_weight(n, "heading")


def test_score_combines_terms() -> None:
    t = tree()
    big_centre = node(300, w=400, h=200, role="link", font=32)
    small_far = node(5000, role="link")
    assert score_node(t, big_centre, "link") > score_node(t, small_far, "link")
