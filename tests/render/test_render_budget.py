"""Budget properties of render() on generated trees: never over, monotone, deterministic."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webrefs import render
from webrefs.models import PageTree
from webrefs.render.renderer import CUTS
from webrefs.render.tokens import count_tokens

ROLES = ["link", "button", "textbox", "checkbox", "combobox", "heading", "paragraph", "img",
         "listitem", "list", "navigation", "main", "form", "dialog", "row", "cell", None, None]
WORDS = ["Home", "Search", "Buy now", "[ref=e1]", '"', "\\", "\n- button", "über", "价格",
         "a" * 30, "sign in", " ", "🙂", "\u2028", "]:", "0.99"]

texts = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


@st.composite
def trees(draw: Any) -> PageTree:
    counter = itertools.count(1)
    budget = [draw(st.integers(1, 70))]

    def node(depth: int) -> dict[str, Any]:
        budget[0] -= 1
        role = draw(st.sampled_from(ROLES))
        n: dict[str, Any] = {"tag": "div", "role": role, "name": draw(texts)}
        if draw(st.booleans()):
            n["text"] = draw(texts)
        if role in ("link", "button", "textbox", "checkbox", "combobox") or draw(
                st.integers(0, 3)) == 0:
            n["ref"] = f"e{next(counter)}"
        if role == "heading":
            n["level"] = draw(st.integers(1, 6))
        if role == "checkbox":
            n["states"] = {"checked": draw(st.booleans())}
        y = draw(st.integers(0, 8000))
        n["box"] = {"x": draw(st.integers(0, 1200)), "y": y,
                    "w": draw(st.integers(0, 800)), "h": draw(st.integers(0, 400))}
        n["inViewport"] = y < 720
        n["fontSize"] = draw(st.sampled_from([12, 16, 24, 40]))
        if depth < 14 and budget[0] > 0:
            n["children"] = [node(depth + 1) for _ in range(draw(st.integers(0, 5)))
                             if budget[0] > 0]
        return n

    root = {"tag": "body", "children": [node(0) for _ in range(draw(st.integers(1, 6)))]}
    focused = draw(st.one_of(st.none(), st.integers(1, 20).map(lambda i: f"e{i}")))
    return PageTree.model_validate({
        "url": "https://gen.test/" + draw(texts), "title": draw(texts),
        "viewport": {"width": 1280, "height": 720}, "document": {"width": 1280, "height": 9000},
        "root": root, "focusedRef": focused,
    })


SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(tree=trees(), budget=st.integers(200, 32000), content=st.booleans(),
       fmt=st.sampled_from(["text", "json"]), compact=st.booleans())
def test_never_over_budget(tree: PageTree, budget: int, content: bool, fmt: str,
                           compact: bool) -> None:
    snap = render(tree, max_tokens=budget, interactive_only=not content, format=fmt,
                  compact=compact, max_nodes=1000)
    assert count_tokens(snap.text) == snap.stats.tokens <= budget
    assert len(snap.text) <= max(12000, 8 * budget)  # max_chars follows the budget
    if fmt == "json":
        doc = json.loads(snap.text)
        assert {n["ref"] for n in doc["nodes"] if "ref" in n} == set(snap.refs)
    else:
        assert set(re.findall(r"(?<!\\)\[ref=([^\]]*)\]", snap.text)) == set(snap.refs)
    if set(snap.stats.truncation_reasons) & CUTS:
        assert snap.stats.truncated


@SETTINGS
@given(tree=trees(), chars=st.integers(150, 3000), budget=st.integers(200, 2000))
def test_never_over_chars(tree: PageTree, chars: int, budget: int) -> None:
    snap = render(tree, max_tokens=budget, max_chars=chars, interactive_only=False)
    assert len(snap.text) <= chars and snap.stats.tokens <= budget


@SETTINGS
@given(tree=trees(), budgets=st.lists(st.integers(200, 32000), min_size=2, max_size=4),
       content=st.booleans(), viewport=st.booleans())
def test_monotone_in_budget(tree: PageTree, budgets: list[int], content: bool,
                            viewport: bool) -> None:
    kept: set[str] = set()
    for b in sorted(budgets):
        snap = render(tree, max_tokens=b, interactive_only=not content, viewport_only=viewport,
                      max_chars=10**6, max_nodes=10**5)
        assert kept <= set(snap.refs), (b, kept - set(snap.refs))
        kept = set(snap.refs)


@SETTINGS
@given(tree=trees(), budget=st.integers(200, 8000))
def test_deterministic(tree: PageTree, budget: int) -> None:
    a = render(tree, max_tokens=budget, interactive_only=False)
    b = render(PageTree.model_validate_json(tree.model_dump_json(by_alias=True)),
               max_tokens=budget, interactive_only=False)
    assert a.text == b.text and a.refs == b.refs and a.stats == b.stats


@SETTINGS
@given(tree=trees(), budget=st.integers(300, 8000), step=st.sampled_from([1, 2, 399, 400, 401]),
       content=st.booleans())
def test_monotone_across_close_budgets(tree: PageTree, budget: int, step: int,
                                       content: bool) -> None:
    small = render(tree, max_tokens=budget, interactive_only=not content, max_nodes=10**5,
                   max_chars=10**6)
    large = render(tree, max_tokens=budget + step, interactive_only=not content,
                   max_nodes=10**5, max_chars=10**6)
    assert set(small.refs) <= set(large.refs)


def test_monotone_on_a_long_list_at_every_budget_step() -> None:
    links = [{"tag": "a", "role": "link", "name": f"Result number {i}", "ref": f"e{i}",
              "box": {"x": 0, "y": 30 * i, "w": 200, "h": 20}} for i in range(1, 400)]
    groups = [{"tag": "ul", "role": "list", "attrs": {"id": f"g{g}"},
               "children": links[g * 40:(g + 1) * 40]} for g in range(10)]
    tree = PageTree.model_validate({"viewport": {"width": 1280, "height": 720},
                                    "root": {"tag": "body", "children": groups}})
    kept: set[str] = set()
    for b in range(300, 2400, 37):
        snap = render(tree, max_tokens=b, max_nodes=10**5, max_chars=10**6)
        assert snap.stats.tokens <= b
        assert kept <= set(snap.refs), b
        kept = set(snap.refs)
