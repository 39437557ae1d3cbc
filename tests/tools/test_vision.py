"""Vision mode on a real Chromium, pages on 127.0.0.1: web_screenshot draws a labelled box
for every ref on screen and none for hidden ones, and web_click, web_hover and web_drag take
points of that image (downscaling, device scale and scroll included)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image
from webrefs import Browser, WebTools
from webrefs.models import Screenshot
from webrefs.render.picture import MARK_COLOURS

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


@pytest.fixture
def context(browser: Browser) -> Iterator[Browser]:
    ctx = browser.new_context()
    yield ctx
    ctx.close()


def _vision(ctx: Browser, site: SiteServer, page: str = "/vision/canvas.html") -> WebTools:
    tools = WebTools(ctx, vision=True, include=["web_hover", "web_drag"])
    out = tools.run("web_navigate", {"url": site.url(page)})
    assert not out.is_error, out.content
    return tools


def _shot(tools: WebTools, **args: object) -> Screenshot:
    out = tools.run("web_screenshot", dict(args))
    assert not out.is_error, out.content
    assert isinstance(out.artifact, Screenshot) and out.images == (out.artifact.png,)
    return out.artifact


def _image(shot: Screenshot) -> Image.Image:
    image = Image.open(io.BytesIO(shot.png)).convert("RGB")
    assert image.size == (shot.width, shot.height)
    return image


def _red_dots(image: Image.Image) -> list[tuple[float, float]]:
    """Centres of the red dots the canvas drew, found in the image, left to right."""
    w, h = image.size
    px = image.load()
    assert px is not None
    groups: list[list[tuple[int, int]]] = []
    for y in range(h):
        for x in range(w):
            r, g, b = px[x, y]
            if r > 235 and g < 40 and b < 40:  # the dots' red, not a mark's
                for group in groups:
                    gx, gy = group[0]
                    if abs(gx - x) < 30 and abs(gy - y) < 30:
                        group.append((x, y))
                        break
                else:
                    groups.append([(x, y)])
    centres = [(sum(p[0] for p in g) / len(g), sum(p[1] for p in g) / len(g))
               for g in groups if len(g) > 3]
    return sorted(centres)


DOTS = [(90, 70), (300, 420), (455, 140)]
"""Where canvas.html draws its dots (canvas pixels), left to right."""


def _click_dots(tools: WebTools, shot: Screenshot) -> list[list[float]]:
    tab = tools.current_tab()
    dots = _red_dots(_image(shot))
    visible = [d for d in DOTS if tab.evaluate(
        f"(() => {{ const r = document.getElementById('pad').getBoundingClientRect();"
        f" return r.top + {d[1]} >= 0 && r.top + {d[1]} < innerHeight; }})()")]
    assert len(dots) == len(visible) >= 2, (dots, visible)
    for x, y in dots:
        out = tools.run("web_click", {"x": round(x), "y": round(y)})
        assert not out.is_error, out.content
        assert "of the screenshot on e" in out.content, out.content
    clicks = tab.evaluate("window.clicks")
    assert len(clicks) == len(visible)
    for (cx, cy), (ex, ey) in zip(clicks, visible, strict=True):
        tolerance = 2 + 1 / shot.scale  # one image pixel is 1/scale page pixels
        assert abs(cx - ex) <= tolerance and abs(cy - ey) <= tolerance, (clicks, visible)
    return list(clicks)


def test_marks_are_drawn_for_every_ref_on_screen_and_none_for_hidden_ones(
        context: Browser, site: SiteServer) -> None:
    tools = _vision(context, site)
    snap = tools.call("web_snapshot", {}).artifact
    shot = _shot(tools)
    tab = tools.current_tab()
    on_screen = {r for r, n in snap.refs.items()
                 if n.name in ("OK", "", "In the box", "Also in the box")}
    far = next(r for r, n in snap.refs.items() if n.name == "Far below")
    hidden = {r for r, n in snap.refs.items()
              if n.name in ("Scrolled away", "Further away", "Under the cover")}
    assert len(hidden) == 3  # in the outline, but not seen: clipped by their box, covered
    assert {m.ref for m in shot.marks} == on_screen and len(on_screen) == 4
    assert far not in {m.ref for m in shot.marks}
    assert not any(n.name in ("Hidden", "Invisible") for n in snap.refs.values())
    image = _image(shot)
    for i, mark in enumerate(shot.marks):  # each box is outlined in its colour in the image
        x, y, w, h = mark.box
        assert image.getpixel((x + w // 2, y + h - 1)) == MARK_COLOURS[i], mark
        lx, ly, lw, lh = mark.label
        assert lx >= 0 and ly >= 0 and lx + lw <= shot.width and ly + lh <= shot.height
    out = tools.run("web_screenshot", {})
    assert "4 elements are drawn" in out.content and f"{shot.width} x {shot.height}" in out.content
    assert "Anthropic" in out.content and "OpenAI" in out.content
    # scrolled to the end: only the far button is on screen and marked
    tab.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert [m.ref for m in _shot(tools).marks] == [far]
    # a plain screenshot has no marks, and draws none
    tab.evaluate("window.scrollTo(0, 0)")
    plain = _shot(tools, marks=False)
    assert plain.marks == [] and MARK_COLOURS[0] not in {
        c for _, c in _image(plain).getcolors(maxcolors=1 << 24) or []}


def test_a_screenshot_of_one_element(context: Browser, site: SiteServer) -> None:
    tools = _vision(context, site)
    snap = tools.call("web_snapshot", {}).artifact
    ok = next(r for r, n in snap.refs.items() if n.name == "OK")
    shot = _shot(tools, ref=ok)
    assert not shot.viewport and shot.width < 100 and shot.height < 40
    assert [m.ref for m in shot.marks] == [ok]
    out = tools.run("web_screenshot", {"ref": "e999"})
    assert out.is_error and "e999" in out.content


def test_coordinate_clicks_land_within_two_pixels(context: Browser, site: SiteServer) -> None:
    tools = _vision(context, site)
    shot = _shot(tools)
    assert shot.scale == 1.0
    _click_dots(tools, shot)


def test_coordinate_clicks_at_device_scale_two(browser: Browser, site: SiteServer) -> None:
    ctx = browser.new_context(device="Desktop Chrome HiDPI")
    try:
        tools = _vision(ctx, site)
        assert tools.current_tab().evaluate("devicePixelRatio") == 2
        shot = _shot(tools)
        assert (shot.width, shot.height) == (1280, 720)  # CSS pixels, not device pixels
        _click_dots(tools, shot)
    finally:
        ctx.close()


def test_coordinate_clicks_on_a_scrolled_page(context: Browser, site: SiteServer) -> None:
    tools = _vision(context, site)
    tools.current_tab().evaluate("window.scrollTo(0, 130)")
    shot = _shot(tools)
    assert shot.region[1] == 130
    _click_dots(tools, shot)
    # the page scrolls after the picture: a point of it that left the screen is refused
    tools.current_tab().evaluate("window.scrollTo(0, 1000)")
    out = tools.run("web_click", {"x": 10, "y": 10})
    assert out.is_error and "not in the visible part" in out.content
    assert "web_screenshot" in out.content


def test_coordinate_clicks_at_device_scale_two_on_a_scrolled_page(
        browser: Browser, site: SiteServer) -> None:
    ctx = browser.new_context(device="Desktop Chrome HiDPI")
    try:
        tools = _vision(ctx, site)
        tools.current_tab().evaluate("window.scrollTo(0, 130)")
        shot = _shot(tools)
        assert shot.region[1] == 130 and shot.scale == 1.0
        _click_dots(tools, shot)
    finally:
        ctx.close()


def test_coordinate_clicks_through_a_downscaled_image(browser: Browser,
                                                      site: SiteServer) -> None:
    ctx = browser.new_context(viewport=(2400, 1400))
    try:
        tools = _vision(ctx, site)
        shot = _shot(tools)
        assert shot.scale < 0.7 and shot.width * shot.height <= 1_150_000
        assert "scaled down" in tools.run("web_screenshot", {}).content
        _click_dots(tools, tools.run("web_screenshot", {}).artifact)
    finally:
        ctx.close()


def test_hover_and_drag_by_points(context: Browser, site: SiteServer) -> None:
    tools = _vision(context, site)
    shot = _shot(tools)
    (x1, y1), (x2, y2) = _red_dots(_image(shot))[:2]
    out = tools.run("web_hover", {"x": round(x1), "y": round(y1)})
    assert not out.is_error, out.content
    tab = tools.current_tab()
    last = tab.evaluate("window.moves[window.moves.length - 1]")
    assert abs(last[0] - 90) <= 2 and abs(last[1] - 70) <= 2
    out = tools.run("web_drag", {"x": round(x1), "y": round(y1), "to_x": round(x2),
                                 "to_y": round(y2)})
    assert not out.is_error, out.content
    assert "the drag had no effect" not in out.content  # a canvas changes no element
    assert "new web_screenshot" in out.content
    ((fx, fy), (tx, ty)), = tab.evaluate("window.drags")
    assert abs(fx - 90) <= 2 and abs(fy - 70) <= 2 and abs(tx - 300) <= 2 and abs(ty - 420) <= 2


def test_coordinates_are_offered_only_in_vision_mode(context: Browser, site: SiteServer) -> None:
    plain = WebTools(context, include=["web_hover", "web_drag"])
    for name in ("web_click", "web_hover", "web_drag"):
        assert "x" not in plain.spec(name).json_schema()["properties"]
    vision = WebTools(context, include=["web_hover", "web_drag"], vision=True)
    for name in ("web_click", "web_hover", "web_drag"):
        schema = vision.spec(name).json_schema()
        assert {"x", "y"} <= set(schema["properties"]), name
        assert "web_screenshot" in vision.spec(name).description
    assert {"to_x", "to_y"} <= set(vision.spec("web_drag").json_schema()["properties"])
    out = plain.run("web_click", {"x": 5, "y": 5})
    assert out.is_error and "[invalid_argument]" in out.content


def test_bad_points_get_clear_errors(context: Browser, site: SiteServer) -> None:
    tools = _vision(context, site)
    out = tools.run("web_click", {"x": 5, "y": 5})
    assert out.is_error and "web_screenshot first" in out.content
    for bad in ({"x": 5}, {"ref": "e1", "x": 5, "y": 5}, {}):
        out = tools.run("web_click", bad)
        assert out.is_error and "[invalid_argument]" in out.content, bad
    shot = _shot(tools)
    out = tools.run("web_click", {"x": shot.width + 5, "y": 5})
    assert out.is_error and "outside the latest screenshot" in out.content
    out = tools.run("web_drag", {"x": 5, "y": 5, "to_ref": "e1"})
    assert out.is_error and "[invalid_argument]" in out.content


def test_a_screenshot_of_an_element_scrolled_out_of_its_box(context: Browser,
                                                            site: SiteServer) -> None:
    """An element scrolled out of view inside a scrolling box is brought into view first:
    the picture shows it, not what the page draws where its box would be."""
    tools = _vision(context, site, "/vision/scrollbox.html")
    snap = tools.call("web_snapshot", {"interactive_only": False}).artifact
    night = next(r for r, n in snap.refs.items() if n.name == "Night shift")
    shot = _shot(tools, ref=night, marks=False)
    image = _image(shot)
    assert image.getpixel((4, image.height // 2)) == (255, 0, 0), image.getpixel(
        (4, image.height // 2))
