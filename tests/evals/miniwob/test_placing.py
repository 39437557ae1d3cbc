"""The MiniWoB references that drag shapes into boxes (drag-shapes, drag-shapes-2): a shape's
kind and colour from its picture, the black boxes of the screen, a shape's picture found on
the screen though something now covers a corner of it, and shapes of one look dragged one
after another. Pure: pictures drawn here."""

from __future__ import annotations

from PIL import Image, ImageDraw
from webrefs.evals.miniwob.placing import boxes, find_like, free, shape_of, shown

from tests.evals.miniwob.test_seeing import play, shot, snap

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
COLOURS = {"red": (255, 0, 0), "yellow": (255, 255, 0), "black": BLACK, "aqua": (0, 255, 255),
           "green": (0, 128, 0)}


def draw_shape(draw: ImageDraw.ImageDraw, kind: str, x: float, y: float, colour: str,
               size: float = 17) -> None:
    """A shape centred on ``(x, y)``, as the page draws it."""
    h, fill = size / 2, COLOURS[colour]
    if kind == "rectangle":
        draw.rectangle((x - h, y - h, x + h - 1, y + h - 1), fill=fill)
    elif kind == "circle":
        draw.ellipse((x - h, y - h, x + h, y + h), fill=fill)
    else:
        draw.polygon([(x - h, y + h), (x, y - h), (x + h, y + h)], fill=fill)


def picture(kind: str, colour: str, size: int = 17) -> Image.Image:
    image = Image.new("RGB", (size, size), WHITE)
    draw_shape(ImageDraw.Draw(image), kind, size / 2, size / 2, colour)
    return image


def test_a_shapes_picture_says_its_kind_and_colour() -> None:
    for kind in ("rectangle", "circle", "triangle"):
        for colour in COLOURS:
            for size in (17, 18):  # a box of fractional size gives a margin of white
                got = shape_of(picture(kind, colour, size))
                assert (got.kind, got.colour) == (kind, colour), (kind, colour, size)


def screen(*shapes: tuple[str, str, int, int], two: bool = False) -> Image.Image:
    image = Image.new("RGB", (320, 240), (85, 85, 85))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 159, 209), fill=WHITE)
    for left in (4, 86) if two else (30,):
        draw.rectangle((left, 57, left + 70, 107), outline=BLACK, width=2)
    for kind, colour, x, y in shapes:
        draw_shape(draw, kind, x, y, colour)
    return image


def part_of(image: Image.Image, x: int, y: int) -> Image.Image:
    """The element's screenshot of the shape centred on ``(x, y)``."""
    return image.crop((x - 8, y - 8, x + 9, y + 9))


def test_the_black_boxes_are_found_left_to_right() -> None:
    image = screen(("rectangle", "black", 20, 150), two=True)
    assert boxes(image) == [(4, 57, 74, 107), (86, 57, 156, 107)]
    assert boxes(screen()) == [(30, 57, 100, 107)]


def test_a_picture_is_found_though_a_corner_of_it_is_covered_now() -> None:
    image = screen(("triangle", "yellow", 50, 170))
    part = part_of(image, 50, 170)
    ImageDraw.Draw(image).rectangle((55, 175, 120, 200), fill=(239, 239, 239))  # a button
    assert find_like(image, part) == (42, 162)
    assert find_like(image, picture("circle", "red")) is None


def test_drag_shapes_drags_each_chosen_shape_to_its_box_even_two_alike() -> None:
    shapes = [("circle", "red", 30, 150), ("triangle", "yellow", 90, 170),
              ("circle", "red", 130, 130)]
    page = snap(*(f"- text [ref=e{i}]" for i in range(2, 5)), '- button "Submit" [ref=e9]')
    before = screen(*shapes)
    parts = [shot(part_of(before, x, y)) for _, _, x, y in shapes]
    # two red circles look the same: the first found (the upper) goes first
    first_moved = screen(shapes[0], shapes[1], ("circle", "red", 65, 82))
    calls = play("drag-shapes", "Drag all circles into the black box.",
                 [page, *parts, shot(before), "dragged", shot(first_moved), "dragged",
                  "clicked"])
    drags = [a for t, a in calls if t == "web_drag"]
    # the second red circle is found where it is, not in the box where the first now is
    assert [(d["x"], d["y"]) for d in drags] == [(130, 130), (30, 150)]
    assert all((d["to_x"], d["to_y"]) == (65, 82) for d in drags)
    assert calls[-1] == ("web_click", {"ref": "e9"})


def test_drag_shapes_2_sends_the_chosen_colour_left_and_the_rest_right() -> None:
    shapes = [("rectangle", "green", 30, 150), ("triangle", "aqua", 90, 170)]
    page = snap("- text [ref=e2]", "- text [ref=e3]", '- button "Submit" [ref=e9]')
    image = screen(*shapes, two=True)
    calls = play("drag-shapes-2", "Drag all aqua shapes into the left box, and everything "
                 "else into the right box.",
                 [page, *(shot(part_of(image, x, y)) for _, _, x, y in shapes), shot(image),
                  "dragged", shot(image), "dragged", "clicked"])
    drags = [(a["x"], a["y"], a["to_x"], a["to_y"]) for t, a in calls if t == "web_drag"]
    assert drags == [(30, 150, 121, 82), (90, 170, 39, 82)]


def row(colour: tuple[int, int, int] | None = None) -> Image.Image:
    """A half-hour row's picture: the calendar's grey with its dotted line, or an event over
    it (its colour, a black border and a word)."""
    image = Image.new("RGB", (109, 20), (247, 247, 247))
    draw = ImageDraw.Draw(image)
    draw.line([(0, 0), (108, 0)], fill=(181, 181, 181))
    if colour is not None:
        draw.rectangle((0, 0, 100, 19), fill=colour, outline=BLACK)
        draw.text((10, 4), "Party", fill=BLACK)
    return image


def calendar_page() -> str:
    lines = []
    for hour in range(24):
        lines.append(f'- text "{hour % 12 or 12}{"am" if hour < 12 else "pm"}" '
                     f"[ref=e{100 + 3 * hour}]")
        lines += [f'- text [hint="half-hour"] [ref=e{101 + 3 * hour + i}]' for i in (0, 1)]
    return snap(*lines)


def test_daily_calendar_drags_across_the_first_free_rows_of_the_window() -> None:
    green = (135, 247, 118)
    # 8AM-12PM is rows 16..23; rows 16 and 17 have an event over them
    calls = play("daily-calendar", 'Create a 60 mins event named "Gym", between 8AM and '
                 "12PM.", [calendar_page(), shot(row(green)), shot(row(green)), shot(row()),
                           shot(row()), "dragged",
                           snap('- textbox "Event name" [ref=e7]', '- button "Create" [ref=e8]'),
                           "filled", "clicked"])
    shots = [a["ref"] for t, a in calls if t == "web_screenshot"]
    assert shots == ["e125", "e126", "e128", "e129"]  # rows 16, 17, 18, 19: each once
    assert ("web_drag", {"ref": "e128", "to_ref": "e129"}) in calls
    assert calls[-2:] == [("web_fill", {"ref": "e7", "value": "Gym"}),
                          ("web_click", {"ref": "e8"})]


def test_a_half_hour_event_is_a_drag_within_its_row_and_a_hidden_row_is_scrolled_to() -> None:
    calls = play("daily-calendar", 'Create a 0.5 hours event named "Food", between 4PM and '
                 "8PM.", [calendar_page(), "web_screenshot failed: [error] no picture",
                          "scrolled", shot(row()), "dragged",
                          snap('- textbox "Event name" [ref=e7]', '- button "Create" [ref=e8]'),
                          "filled", "clicked"])
    assert calls[1:5] == [("web_screenshot", {"marks": False, "ref": "e149"}),
                          ("web_scroll", {"direction": "down", "ref": "e149"}),
                          ("web_screenshot", {"marks": False, "ref": "e149"}),
                          ("web_drag", {"ref": "e149", "dx": 0, "dy": 1})]


def test_a_row_is_free_by_its_middle_not_by_its_edges() -> None:
    green = (135, 247, 118)
    assert not free(row(green))
    edge = row()
    ImageDraw.Draw(edge).rectangle((0, 0, 100, 4), fill=green)  # an event's last pixels
    assert free(edge)
    middle = row()
    ImageDraw.Draw(middle).rectangle((0, 6, 100, 19), fill=green)  # an event starting
    assert not free(middle)


def test_a_row_scrolled_out_of_the_calendar_is_scrolled_to_before_it_is_judged() -> None:
    behind = Image.new("RGB", (109, 20), (85, 85, 85))  # the page behind the calendar's box
    assert shown(row()) and shown(row((135, 247, 118))) and not shown(behind)
    calls = play("daily-calendar", 'Create a 0.5 hours event named "Food", between 4PM and '
                 "8PM.", [calendar_page(), shot(behind), "scrolled", shot(row()), "dragged",
                          snap('- textbox "Event name" [ref=e7]', '- button "Create" [ref=e8]'),
                          "filled", "clicked"])
    assert calls[2] == ("web_scroll", {"direction": "down", "ref": "e149"})
