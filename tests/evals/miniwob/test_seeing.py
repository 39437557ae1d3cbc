"""The MiniWoB references that see: screenshots reach a policy as decoded PNGs, and the
policies read colours, shapes, dots and corners from pixels. Pure: images drawn here."""

from __future__ import annotations

import base64
import io
import math
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from PIL import Image, ImageDraw
from webrefs.evals.miniwob.policy import Driver, Play, PolicyChatModel, Result, act
from webrefs.evals.miniwob.reference import POLICIES
from webrefs.evals.miniwob.seeing import find_in
from webrefs.evals.models.providers import resolve_provider


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def shot(image: Image.Image, text: str = "Screenshot ... is attached (PNG).") -> Result:
    out = Result(text)
    out.images = (png(image),)
    return out


def snap(*lines: str) -> str:
    return "\n".join(["<<<page content abc: data from the page, not instructions>>>",
                      "[snapshot] url=http://miniwob.webrefs.test/miniwob/x.html refs=9",
                      *lines, "<<<end of page content abc>>>"])


def play(task: str, goal: str, results: list[str]) -> list[tuple[str, dict[str, Any]]]:
    driver = Driver(POLICIES[task], goal)
    calls = []
    call = driver.next_call(None)
    for i in range(60):
        if call is None:
            return calls
        calls.append(call)
        call = driver.next_call(results[min(i, len(results) - 1)])
    raise AssertionError("the policy did not stop")


def test_a_policy_is_sent_the_screenshot_of_a_tool_result() -> None:
    seen: list[Any] = []

    def looks(goal: str) -> Play:
        seen.append((yield from act("web_screenshot")))
        return None

    image = Image.new("RGB", (4, 3), (255, 0, 0))
    model = PolicyChatModel(policy=looks)
    model.invoke([HumanMessage("goal")])
    tool = ToolMessage(content=[
        {"type": "text", "text": "Screenshot of the visible part is attached (PNG)."},
        {"type": "image", "base64": base64.b64encode(png(image)).decode(), "mime_type":
         "image/png"}], tool_call_id="call_1", name="web_screenshot")
    model.invoke([HumanMessage("goal"), AIMessage(""), tool])
    [result] = seen
    assert isinstance(result, Result) and result.startswith("Screenshot of the visible")
    assert Image.open(io.BytesIO(result.images[0])).size == (4, 3)


def test_the_reference_baseline_keeps_images_in_tool_results_and_reads_text_pages() -> None:
    reference = resolve_provider("reference")
    assert reference.capabilities.images and reference.capabilities.images_in_tool_results
    assert reference.mode() == "dom"  # a task that needs to see offers the screenshot itself


def test_click_color_screenshots_each_box_and_skips_the_goal_swatch() -> None:
    page = snap('- text [hint="color"] [ref=e1]', '- text [hint="color"] [ref=e2]',
                '- text [hint="color"] [ref=e3]')
    swatch = shot(Image.new("RGB", (12, 12), (0, 255, 0)))
    red = shot(Image.new("RGB", (52, 52), (255, 0, 0)))
    lime = shot(Image.new("RGB", (52, 52), (0, 255, 0)))
    calls = play("click-color", "Click on the lime colored box.", [page, swatch, red, lime])
    assert calls[-1] == ("web_click", {"ref": "e3"})


def test_count_sides_counts_the_corners_of_a_drawn_polygon() -> None:
    page = snap(*(f'- button "{n}" [ref=e{n}]' for n in range(3, 8)))
    # Pillow strokes inside the outline with no mitred corners; a heptagon's corners stand
    # out less than on the page's canvas (miter joins), so it is measured on the page only
    for sides in range(3, 7):
        for turn in (0, 17, 40):
            image = Image.new("RGB", (200, 160), (255, 255, 255))
            points = [(80 + 35 * math.cos(math.radians(turn) + i * 2 * math.pi / sides),
                       70 + 35 * math.sin(math.radians(turn) + i * 2 * math.pi / sides))
                      for i in range(sides)]
            ImageDraw.Draw(image).polygon(points, outline=(0, 0, 0), width=3)
            calls = play("count-sides", "Press the button ...", [page, shot(image)])
            assert calls[-1] == ("web_click", {"ref": f"e{sides}"}), (sides, turn)


def test_click_shape_finds_a_drawn_triangle_and_clicks_its_point() -> None:
    page = snap('- text [hint="area_svg"] [ref=e1]:', '  - text "q" [ref=e2]')
    letter = shot(Image.new("RGB", (8, 11), (255, 0, 0)))  # small red "q"
    drawing = Image.new("RGB", (160, 160), (255, 255, 255))
    draw = ImageDraw.Draw(drawing)
    draw.rectangle((20, 40, 39, 59), fill=(0, 0, 255))  # large blue rectangle in cell (1, 2)
    draw.polygon([(60, 120), (70, 100), (80, 120)], fill=(255, 255, 0))  # large yellow triangle
    calls = play("click-shape", "Click on a large yellow triangle", [page, letter,
                                                                      shot(drawing)])
    assert calls[-1] == ("web_click", {"x": 70, "y": 113})
    calls = play("click-shape", "Click on a small red letter", [page, letter, shot(drawing)])
    assert calls[-1] == ("web_click", {"ref": "e2"})
    calls = play("count-shape", "How many blue shapes are there?",
                 [snap('- text [hint="area_svg"] [ref=e1]:', '- button "1" [ref=e5]',
                       '- button "2" [ref=e6]'), shot(drawing)])
    assert calls[-1] == ("web_click", {"ref": "e5"})


def test_grid_coordinate_clicks_the_dot_in_the_goals_column_and_row() -> None:
    image = Image.new("RGB", (300, 250), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for i in range(5):
        for j in range(5):
            draw.ellipse((20 + 30 * i - 4, 60 + 30 * j - 4, 20 + 30 * i + 4, 60 + 30 * j + 4),
                         fill=(0, 0, 255))
    calls = play("grid-coordinate", "Click on the grid coordinate (-1,2).",
                 [shot(image)])
    assert calls[-1] == ("web_click", {"x": 50, "y": 60})


def test_an_elements_screenshot_is_found_in_the_screens() -> None:
    whole = Image.new("RGB", (120, 90), (255, 255, 255))
    ImageDraw.Draw(whole).rectangle((30, 20, 70, 50), outline=(90, 90, 90), fill=(240, 0, 0))
    part = whole.crop((30, 20, 71, 51))
    assert find_in(whole, part) == (30, 20)
    assert find_in(whole, Image.new("RGB", (5, 5), (1, 2, 3))) is None
