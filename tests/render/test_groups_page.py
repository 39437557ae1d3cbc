"""Repeated controls on a real page say which item they act on (issue 30, part 3): a menu of
dishes, each with "-" and "+" and its count, in a box that scrolls."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def test_each_dish_names_its_buttons_and_shows_its_count(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/names/order.html"))
    snap = tab.snapshot()
    lines = snap.text.splitlines()
    at = lines.index('- group "Lobscouse | $8.50 | 0":')
    minus, plus = lines[at + 1], lines[at + 2]
    assert minus.startswith('  - button "-" [ref=') and plus.startswith('  - button "+" [ref=')
    tab.click(plus.rsplit("[ref=", 1)[1].rstrip("]"))
    assert '- group "Lobscouse | $8.50 | 1":' in tab.snapshot().text


def test_a_tight_budget_keeps_each_kept_button_under_its_dish(
        tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/names/order.html"))
    for interactive_only in (True, False):
        lines = tab.snapshot(max_tokens=300, interactive_only=interactive_only).text.splitlines()
        buttons = [i for i, line in enumerate(lines) if line.lstrip().startswith(
            ('- button "-"', '- button "+"'))]
        assert buttons
        for i in buttons:
            assert lines[i].startswith("  - button")  # under a group line
            above = next(lines[j] for j in range(i, -1, -1) if lines[j].startswith("- group"))
            assert " | $" in above
