"""The MiniWoB references that pick by what the page shows: the colour picker's field gets
the goal's colour, named or read from the swatch a screenshot shows. Pure: images drawn
here."""

from __future__ import annotations

from PIL import Image, ImageDraw
from webrefs.evals.miniwob.picking import find_swatch, read_pattern, squares

from .test_seeing import play, shot, snap

PICKER = snap('- textbox [ref=e1] [value="ab2567"]', '- button "Submit" [ref=e2]')


def query(colour: tuple[int, int, int]) -> Image.Image:
    """A goal line as use-colorwheel-2 draws it: words, then the swatch, on yellow."""
    image = Image.new("RGB", (160, 80), (255, 255, 0))
    draw = ImageDraw.Draw(image)
    draw.text((3, 3), "Select the following color", fill=(0, 0, 0))
    draw.rectangle((40, 14, 51, 25), outline=(0, 0, 0), fill=colour)
    draw.rectangle((0, 50, 160, 80), fill=(255, 255, 255))
    return image


def test_the_swatch_colour_is_read_inside_its_border() -> None:
    assert find_swatch(query((18, 200, 77))) == (18, 200, 77)
    assert find_swatch(query((10, 12, 9))) == (10, 12, 9)  # nearly as dark as the border
    assert find_swatch(Image.new("RGB", (40, 40), (255, 255, 255))) is None


def test_use_colorwheel_types_the_named_colour() -> None:
    calls = play("use-colorwheel", "Select gold with the color picker and hit Submit.",
                 [PICKER, "ok"])
    assert calls[1] == ("web_fill", {"ref": "e1", "value": "ffd700"})
    assert calls[-1] == ("web_click", {"ref": "e2"})


def test_use_colorwheel_2_types_the_swatch_colour() -> None:
    calls = play("use-colorwheel-2",
                 "Select the following color with the color picker and hit Submit.",
                 [shot(query((0x3c, 0x9e, 0x01))), PICKER, "ok"])
    assert calls[0] == ("web_screenshot", {"marks": False})
    assert ("web_fill", {"ref": "e1", "value": "3c9e01"}) in calls


THREE = ("0110", "1001", "0001", "0110", "0001", "1001", "0110")


def example(rows: tuple[str, ...], margin: int = 0) -> Image.Image:
    """A page with number-checkboxes' example: 4 by 7 cells, 12 px, white (checked) or grey,
    between 3 px dark lines; ``margin`` more dark rows below the grid."""
    image = Image.new("RGB", (200, 160), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    x0, y0 = 120, 10
    draw.rectangle((x0, y0, x0 + 4 * 15 + 3, y0 + 7 * 15 + 3 + margin), fill=(40, 40, 40))
    for r, row in enumerate(rows):
        for c, on in enumerate(row):
            x, y = x0 + 3 + 15 * c, y0 + 3 + 15 * r
            draw.rectangle((x, y, x + 11, y + 11),
                           fill=(255, 255, 255) if on == "1" else (110, 110, 110))
    draw.text((5, 5), "Submit", fill=(0, 0, 0))
    return image


def test_the_example_pattern_is_read_cell_by_cell() -> None:
    want = [c == "1" for row in THREE for c in row]
    assert read_pattern(example(THREE)) == want
    assert read_pattern(example(THREE, margin=12)) == want  # a dark border below the cells
    assert read_pattern(example(THREE[:6])) is None  # six rows are not the example
    assert read_pattern(Image.new("RGB", (50, 50), (255, 255, 255))) is None


def test_number_checkboxes_checks_the_example_cells() -> None:
    page = snap(*[f"- checkbox [ref=e{i + 1}]" for i in range(28)],
                '- button "Submit" [ref=e29]')
    calls = play("number-checkboxes", 'Draw the number "3" in the checkboxes using the '
                 "example on the right and press Submit when finished.",
                 [page, shot(example(THREE)), "ok"])
    clicked = [args["ref"] for tool, args in calls if tool == "web_click"]
    assert clicked == [f"e{i + 1}" for i, c in enumerate("".join(THREE)) if c == "1"] + ["e29"]


def test_dark_squares_are_found_by_size() -> None:
    image = Image.new("RGB", (120, 80), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle((10, 10, 29, 29), fill=(0, 0, 0))  # 20 px square
    draw.rectangle((50, 10, 59, 19), fill=(0, 0, 0))  # too small
    draw.rectangle((70, 40, 109, 59), fill=(0, 0, 0))  # not square
    assert squares(image) == [(19.5, 19.5)]


def test_ascending_numbers_clicks_the_squares_where_the_numbers_were() -> None:
    places = {2: (100, 30), 3: (20, 120), 4: (140, 140), 5: (60, 60)}
    whole = Image.new("RGB", (200, 200), (255, 255, 255))
    draw = ImageDraw.Draw(whole)
    for n, (x, y) in places.items():  # each number drawn unlike the others
        draw.rectangle((x, y, x + 9, y + 14), fill=(n * 40, 0, 255 - n * 40))
    after = Image.new("RGB", (200, 200), (255, 255, 255))
    draw = ImageDraw.Draw(after)
    for x, y in places.values():  # squares a little off the numbers' places
        draw.rectangle((x - 4, y - 1, x + 15, y + 18), fill=(0, 0, 0))
    page = snap(*[f'- text "{n}" [ref=e{n}]' for n in range(1, 6)])
    parts = [shot(whole.crop((x, y, x + 10, y + 15))) for x, y in places.values()]
    calls = play("ascending-numbers", "Click on the numbers in ascending order.",
                 [page, shot(whole), *parts, "Clicked e1.", shot(after), "ok"])
    assert calls[6] == ("web_click", {"ref": "e1"})
    points = [(a["x"], a["y"]) for t, a in calls[8:]]
    assert points == [(round(x + 5.5), round(y + 8.5)) for x, y in places.values()]
