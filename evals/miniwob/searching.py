"""The reference policy of MiniWoB++'s hot-cold: a search by pointer. Hovering over the
search area makes the page say how near the hidden spot is (HOT under 5 px, WARM under 10,
COLD under 40, ICE COLD beyond); the policy keeps the points of the area every answer so far
allows, hovers at the point that splits them best, and clicks where the page says HOT. It
reads the outline, ``web_screenshot``'s PNG (where the area is) and acts by points.

The search itself (:func:`bands`, :func:`keep`, :func:`next_probe`) is pure."""

from __future__ import annotations

import math

from .outline import parse
from .policy import Play, Policy, act, look, stuck
from .seeing import find_in, screenshot

__all__ = ["BANDS", "POLICIES", "band_of", "keep", "next_probe"]

Point = tuple[int, int]

BANDS: dict[str, tuple[float, float]] = {"HOT": (0, 5), "WARM": (5, 10), "COLD": (10, 40),
                                         "ICE COLD": (40, math.inf)}
"""What each answer says of the distance to the hidden spot: at least, under (px)."""


def band_of(distance: float) -> str:
    """The answer the page gives at ``distance`` from the spot."""
    return next(name for name, (low, high) in BANDS.items() if low <= distance < high)


def keep(candidates: list[Point], probe: Point, answer: str, slack: float = 1.0
         ) -> list[Point]:
    """The candidates the answer at ``probe`` allows (``slack`` px either side of its band,
    for rounding of the pointer's position)."""
    low, high = BANDS[answer]
    return [c for c in candidates
            if low - slack <= math.dist(c, probe) < high + slack]


def next_probe(candidates: list[Point], probes: list[Point], sample: int = 150) -> Point:
    """Of ``probes``, the one whose answers would split ``candidates`` best (the least sum
    of squared part sizes, over an even sample of at most ``sample`` candidates)."""
    some = candidates[::max(1, len(candidates) // sample)]
    edges = [high * high for _, high in BANDS.values()][:-1]  # 25, 100, 1600

    def spread(probe: Point) -> int:
        px, py = probe
        parts = [0] * len(BANDS)
        for cx, cy in some:
            d2 = (cx - px) ** 2 + (cy - py) ** 2
            parts[sum(d2 >= e for e in edges)] += 1
        return sum(n * n for n in parts)

    return min(probes, key=spread)


def _grid(x0: int, y0: int, x1: int, y1: int, step: int) -> list[Point]:
    return [(x, y) for y in range(y0, y1 + 1, step) for x in range(x0, x1 + 1, step)]


def _answer(text: str) -> str | None:
    """The hot/cold word a snapshot shows, if any (the longest match first)."""
    names = {i.name.strip().upper() for i in parse(text)}
    return next((b for b in sorted(BANDS, key=len, reverse=True) if b in names), None)


def hot_cold(goal: str) -> Play:
    """"Find and click on the HOT area.": the search area is the page's nameless box (its
    screenshot found in the screen's says where); hover, read the answer, narrow, repeat."""
    page = yield from look()
    area = next((i for i in page.all() if not i.name), None)
    if area is None or area.ref is None:
        raise stuck("the page shows no search area")
    part = yield from screenshot(area.ref)
    at = find_in((yield from screenshot()), part)
    if at is None:
        raise stuck("the search area's picture is not in the screenshot")
    x0, y0 = at[0] + 2, at[1] + 2  # inside its border
    x1, y1 = at[0] + part.width - 3, at[1] + part.height - 3
    candidates = _grid(x0, y0, x1, y1, 1)
    probes = _grid(x0, y0, x1, y1, 5)
    for _ in range(18):
        probe = next_probe(candidates, probes + candidates[::max(1, len(candidates) // 60)])
        yield from act("web_hover", x=probe[0], y=probe[1])
        answer = _answer((yield from act("web_snapshot", interactive_only=False)))
        if answer is None:
            raise stuck("the page gave no hot/cold answer")
        if answer == "HOT":
            yield from act("web_click", x=probe[0], y=probe[1])
            return None
        candidates = keep(candidates, probe, answer)
        if not candidates:
            raise stuck("no point of the area fits the answers")
        cx = round(sum(c[0] for c in candidates) / len(candidates))
        cy = round(sum(c[1] for c in candidates) / len(candidates))
        if max(math.dist(c, (cx, cy)) for c in candidates) < 4:
            yield from act("web_click", x=cx, y=cy)
            return None
        probes = [p for p in probes if p != probe]
    raise stuck("the search did not find the HOT area")


POLICIES: dict[str, Policy] = {"hot-cold": hot_cold}
"""The reference policy of this task (by task name)."""
