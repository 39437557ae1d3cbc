"""The MiniWoB references that pick by what the page shows: the colour picker's field gets
the goal's colour, named or read from the swatch a screenshot shows. Pure: images drawn
here."""

from __future__ import annotations

from PIL import Image, ImageDraw
from webrefs.evals.miniwob.picking import find_swatch

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
