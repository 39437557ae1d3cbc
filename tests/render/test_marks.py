"""Set-of-marks without a browser: image size, which refs are marked, where labels go, image
token estimates, and the drawing itself (Pillow)."""

from __future__ import annotations

import io
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from webrefs.models import PageTree
from webrefs.render.marks import (
    MAX_PIXELS,
    MAX_SIDE,
    Mark,
    fit_size,
    image_tokens,
    marks_for,
    place_labels,
)
from webrefs.render.picture import MARK_COLOURS, draw


def _tree(*nodes: dict[str, object], scroll: tuple[float, float] = (0, 0)) -> PageTree:
    return PageTree.model_validate({
        "viewport": {"width": 800, "height": 600}, "scroll": {"x": scroll[0], "y": scroll[1]},
        "document": {"width": 800, "height": 3000},
        "root": {"tag": "body", "children": list(nodes)}})


def test_fit_size_keeps_small_regions_and_shrinks_large_ones() -> None:
    assert fit_size(1280, 720) == (1280, 720, 1.0)
    w, h, s = fit_size(2560, 1440)
    assert w <= MAX_SIDE and h <= MAX_SIDE and w * h <= MAX_PIXELS and s < 1
    assert abs(w / h - 2560 / 1440) < 0.01
    w, h, s = fit_size(400, 5000)  # a tall element: its long side bounds it
    assert h == MAX_SIDE and w == int(400 * s)


def test_marks_only_for_refs_shown_in_the_region() -> None:
    tree = _tree(
        {"tag": "button", "role": "button", "ref": "e1", "box": [10, 10, 50, 20],
         "inViewport": True},
        {"tag": "button", "role": "button", "ref": "e2", "box": [10, 900, 50, 20],
         "inViewport": False},                                   # below the fold
        {"tag": "div", "ref": "e3", "box": [0, 0, 0, 0], "inViewport": True},  # no size
        {"tag": "p", "text": "no ref", "box": [0, 40, 100, 20], "inViewport": True},
        {"tag": "div", "children": [
            {"tag": "a", "role": "link", "ref": "e4", "box": [780, 590, 100, 40],
             "inViewport": True}]},                              # half out: cut to the image
    )
    marks = marks_for(tree, (0, 0, 800, 600), 0.5)
    assert [m.ref for m in marks] == ["e1", "e4"]
    assert marks[0].box == (5, 5, 25, 10)
    assert marks[1].box == (390, 295, 10, 5)
    # an element's picture: boxes relative to it, the viewport flag not needed
    inside = marks_for(tree, (0, 880, 200, 100), 1.0, viewport=False)
    assert [m.ref for m in inside] == ["e2"] and inside[0].box == (10, 20, 50, 20)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return (min(a[0] + a[2], b[0] + b[2]) > max(a[0], b[0])
            and min(a[1] + a[3], b[1] + b[3]) > max(a[1], b[1]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 760), st.integers(0, 560), st.integers(4, 200),
                          st.integers(4, 120)), min_size=1, max_size=25))
def test_labels_stay_inside_the_image_and_apart_when_there_is_room(
        boxes: list[tuple[int, int, int, int]]) -> None:
    marks = [Mark(f"e{i + 1}", (float(x), float(y), float(min(w, 800 - x)),
                                float(min(h, 600 - y)))) for i, (x, y, w, h) in enumerate(boxes)]
    placed = place_labels(marks, 800, 600)
    assert [m.ref for m in placed] == [m.ref for m in marks]
    for m in placed:
        x, y, w, h = m.label
        assert x >= 0 and y >= 0 and x + w <= 800 and y + h <= 600
    # boxes far apart (a grid) always get labels that do not overlap
    grid = [Mark(f"e{i}", (float(40 + 90 * (i % 8)), float(40 + 60 * (i // 8)), 60.0, 30.0))
            for i in range(1, 41)]
    labels = [m.label for m in place_labels(grid, 800, 600)]
    assert not any(_overlap(a, b) for a, b in itertools.combinations(labels, 2))


def test_labels_of_touching_boxes_are_moved_apart() -> None:
    # a row of small buttons side by side: the first choice (above each) would overlap
    row = [Mark(f"e{i}", (float(100 + 14 * i), 100.0, 14.0, 14.0)) for i in range(10, 16)]
    labels = [m.label for m in place_labels(row, 800, 600)]
    assert not any(_overlap(a, b) for a, b in itertools.combinations(labels, 2))


@pytest.mark.parametrize(("size", "expected"), [
    ((1024, 1024), {"anthropic": 1399, "openai": 765, "google": 516 * 2}),
    ((1280, 720), {"anthropic": 1229, "openai": 1105, "google": 516}),
    ((300, 200), {"anthropic": 80, "openai": 255, "google": 258}),
    ((3000, 1000), {"anthropic": 1093, "openai": 1445, "google": 258 * 8}),
])
def test_image_tokens_follow_each_providers_formula(size: tuple[int, int],
                                                   expected: dict[str, int]) -> None:
    assert image_tokens(*size) == expected


def _png(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (255, 255, 255)).save(out, format="PNG")
    return out.getvalue()


def test_draw_scales_and_draws_each_mark_with_its_label() -> None:
    marks = place_labels([Mark("e1", (20.0, 40.0, 100.0, 50.0)),
                          Mark("e2", (200.0, 200.0, 60.0, 30.0))], 400, 300)
    png = draw(_png(800, 600), (400, 300), marks)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (400, 300)
    for i, m in enumerate(marks):
        x, y, w, h = m.box
        assert image.getpixel((int(x + w / 2), int(y))) == MARK_COLOURS[i]  # its outline
        assert image.getpixel((int(x + w / 2), int(y + h / 2))) == (255, 255, 255)  # not filled
        lx, ly, lw, lh = m.label
        label = [image.getpixel((int(lx + dx), int(ly + dy)))
                 for dx in range(int(lw)) for dy in range(int(lh))]
        assert MARK_COLOURS[i] in label  # filled
        assert any(sum(p) > 600 for p in label)  # with light text on it
    plain = Image.open(io.BytesIO(draw(_png(800, 600), (400, 300), []))).convert("RGB")
    assert [c for _, c in plain.getcolors() or []] == [(255, 255, 255)]
