"""hot-cold's reference: the search keeps the points every answer allows and finds the spot
in few hovers, and the policy hovers, reads the page's answer and clicks where it is HOT.
Pure: the page is played here from the hidden spot."""

from __future__ import annotations

import math
import random
from typing import Any

from PIL import Image, ImageDraw
from webrefs.evals.miniwob.policy import Driver
from webrefs.evals.miniwob.reference import POLICIES
from webrefs.evals.miniwob.searching import band_of, keep, next_probe

from .test_seeing import shot, snap


def test_the_answers_are_the_pages_bands() -> None:
    assert [band_of(d) for d in (0, 4.9, 5, 9.9, 10, 39.9, 40, 300)] == [
        "HOT", "HOT", "WARM", "WARM", "COLD", "COLD", "ICE COLD", "ICE COLD"]


def test_an_answer_keeps_only_the_points_it_allows() -> None:
    points = [(x, 0) for x in range(60)]
    assert keep(points, (0, 0), "WARM", slack=0) == [(x, 0) for x in range(5, 10)]
    assert keep(points, (0, 0), "ICE COLD", slack=0) == [(x, 0) for x in range(40, 60)]


def test_next_probe_splits_the_candidates() -> None:
    candidates = [(x, y) for x in range(100) for y in range(100)]
    corner, middle = (0, 0), (50, 50)
    assert next_probe(candidates, [corner, middle]) == middle


def area_page() -> Image.Image:
    """The screen: the search area, a 156 x 127 box with a dark border, at (2, 52)."""
    image = Image.new("RGB", (300, 250), (255, 255, 255))
    ImageDraw.Draw(image).rectangle((2, 52, 157, 178), outline=(0, 0, 0))
    return image


def play_hot_cold(spot: tuple[int, int]) -> list[tuple[str, dict[str, Any]]]:
    whole = area_page()
    driver = Driver(POLICIES["hot-cold"], "Find and click on the HOT area.")
    calls: list[tuple[str, dict[str, Any]]] = []
    call = driver.next_call(None)
    at = (0, 0)
    while call is not None:
        calls.append(call)
        tool, args = call
        if tool == "web_snapshot" and args["interactive_only"]:
            result: str = snap('- text [hint="touch-area"] [ref=e1]',
                               '- text [hint="display"] [ref=e2]')
        elif tool == "web_screenshot":
            result = shot(whole.crop((2, 52, 158, 179)) if "ref" in args else whole)
        elif tool == "web_hover":
            at = (args["x"], args["y"])
            result = "Moved the mouse."
        elif tool == "web_snapshot":
            result = snap('- text [hint="touch-area"] [ref=e1]',
                          f'- text "{band_of(math.dist(at, spot))}" [ref=e2]')
        else:
            result = "Clicked."
        assert len(calls) < 60
        call = driver.next_call(result)
    return calls


def test_hot_cold_finds_the_spot_and_clicks_within_5px() -> None:
    rng = random.Random(7)
    for _ in range(6):
        spot = (rng.randint(7, 153), rng.randint(57, 170))
        calls = play_hot_cold(spot)
        tool, args = calls[-1]
        assert tool == "web_click" and math.dist((args["x"], args["y"]), spot) < 5
        assert sum(t == "web_hover" for t, _ in calls) <= 18
