"""The MiniWoB references that draw on a figure (right-angle, bisect-angle, draw-line): dots
found in a screenshot though lines cross them, the point or line the goal asks for, and a
click corrected by where the page drew its dot. Pure: figures drawn here."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw
from webrefs.evals.miniwob.drawing import Box, dots, right_angle_point

from tests.evals.miniwob.test_seeing import play, shot, snap

BLACK, BLUE, PURPLE = (0, 0, 0), (0, 0, 255), (128, 0, 128)
PAGE = snap('- text [hint="black-circle"] [ref=e2]', '- button "Submit" [ref=e3]')


def figure(blue: tuple[int, int], *black: tuple[int, int]) -> Image.Image:
    """Dots of radius 3.5 and the black lines from the blue one to each black one, drawn
    over them, as the page draws its figure."""
    image = Image.new("RGB", (150, 130), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for (x, y), colour in [(blue, BLUE), *((b, BLACK) for b in black)]:
        draw.ellipse((x - 3.5, y - 3.5, x + 3.5, y + 3.5), fill=colour)
    for b in black:
        draw.line([blue, b], fill=BLACK, width=1)
    return image


def angle(at: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    turn = (math.atan2(a[1] - at[1], a[0] - at[0]) - math.atan2(b[1] - at[1], b[0] - at[0]))
    return abs((math.degrees(turn) + 180) % 360 - 180)


def clicked(calls: list[tuple[str, dict[str, int]]]) -> tuple[int, int]:
    points = [(a["x"], a["y"]) for tool, a in calls if tool == "web_click" and "x" in a]
    return points[-1]


def test_dots_are_found_where_lines_cross_them_and_lines_are_not_dots() -> None:
    image = figure((60, 40), (20, 100), (120, 110))
    image_draw = ImageDraw.Draw(image)
    image_draw.line([(0, 60), (149, 64)], fill=BLACK, width=1)  # a lone line, no dot
    found = sorted(dots(image, lambda p: sum(p) < 200))
    assert len(found) == 2
    assert all(math.dist(f, e) < 0.8 for f, e in zip(found, [(20, 100), (120, 110)],
                                                       strict=True))
    # the black lines cut the blue dot: its solid middle breaks, its pixels still show it
    [blue] = dots(image, lambda p: p[2] > 180 and p[0] < 90, solid=False)
    assert math.dist(blue, (60, 40)) < 1


def test_right_angle_clicks_on_the_perpendicular_and_then_submits() -> None:
    for vertex, other in [((60, 40), (20, 100)), ((135, 125), (10, 10)), ((8, 60), (100, 62))]:
        image = figure(vertex, other)
        calls = play("right-angle", "Add a third point to create a right angle, then press "
                     "submit.", [PAGE, shot(image), "clicked", shot(image), "clicked"])
        point = clicked(calls)
        assert abs(angle(vertex, other, point) - 90) < 3, (vertex, other, point)
        assert 3 <= point[0] <= 146 and 3 <= point[1] <= 124  # in the figure, above Submit
        assert math.dist(point, vertex) > 15
        assert calls[-1] == ("web_click", {"ref": "e3"})


def test_bisect_angle_clicks_on_the_bisector() -> None:
    for vertex, a, b in [((60, 40), (20, 100), (120, 110)), ((75, 65), (10, 65), (140, 60)),
                         ((130, 20), (20, 20), (130, 120))]:
        image = figure(vertex, a, b)
        calls = play("bisect-angle", "Create a line that bisects the angle evenly in two, "
                     "then press submit.",
                     [PAGE, shot(image), "clicked", shot(image), "clicked"])
        point = clicked(calls)
        assert abs(angle(vertex, a, point) - angle(vertex, b, point)) < 3, (vertex, point)
        assert angle(vertex, a, point) < angle(vertex, a, b)


def test_a_click_drawn_off_its_point_is_made_again_as_far_the_other_way() -> None:
    vertex, other = (60, 40), (20, 100)
    image = figure(vertex, other)
    target = right_angle_point(vertex, other, Box(3, 3, 146, 124))
    after = image.copy()
    x, y = round(target[0]) + 2, round(target[1]) + 2  # the page draws 2 px right and down
    ImageDraw.Draw(after).ellipse((x - 3, y - 3, x + 3, y + 3), fill=BLUE)
    calls = play("right-angle", "Add a third point ...",
                 [PAGE, shot(image), "clicked", shot(after), "clicked"])
    first, second = [(a["x"], a["y"]) for t, a in calls if t == "web_click" and "x" in a]
    assert (second[0] - first[0], second[1] - first[1]) in {(-2, -2), (-1, -2), (-2, -1)}


def test_draw_line_drags_straight_across_the_dot_within_the_figure() -> None:
    page = snap("- text [ref=e2]", '- button "Submit" [ref=e3]')
    for dot, way in [((30, 90), "vertical"), ((130, 35), "horizontal")]:
        image = Image.new("RGB", (152, 112), (255, 255, 255))
        ImageDraw.Draw(image).ellipse((dot[0] - 4, dot[1] - 4, dot[0] + 4, dot[1] + 4),
                                      fill=PURPLE)
        calls = play("draw-line", f"Draw a {way} line that runs through the dot, then press "
                     "submit.", [page, shot(image), "dragged", "clicked"])
        [drag] = [a for t, a in calls if t == "web_drag"]
        along, across = ("y", "x") if way == "vertical" else ("x", "y")
        assert abs(drag[across] - dot[0 if across == "x" else 1]) <= 1
        assert drag[across] == drag[f"to_{across}"]
        assert drag[along] < dot[0 if along == "x" else 1] < drag[f"to_{along}"]
        assert drag[f"to_{along}"] - drag[along] >= 40
        assert min(drag.values()) > 0 and drag["to_x"] < 152 and drag["to_y"] < 112
        assert calls[-1] == ("web_click", {"ref": "e3"})
