"""SVG that acts: shapes and titles with their own handlers get refs (a pie menu's slices),
and a click reaches a shape whose centre is a hole (a ring), on pages on 127.0.0.1."""

from __future__ import annotations

import pytest
from webrefs import Tab, WebTools

from tests.helpers.actions import ref, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def pie(tab: Tab, site) -> WebTools:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/svg.html"))
    tools = WebTools.from_tab(tab)
    tools.call("web_snapshot", {})
    return tools


def test_svg_slices_with_handlers_get_refs_and_take_clicks(pie: WebTools) -> None:
    tab = pie.current_tab()
    snap = pie.call("web_snapshot", {}).content
    for name in ("North", "East", "South", "West"):
        assert f'"{name}" [ref=' in snap, snap
    assert "Q1 120" not in snap  # a chart without handlers stays one picture, not controls
    assert snap.count("[ref=") == 5, snap  # the four titles and the ring: no nameless shapes
    out = pie.run("web_click", {"ref": ref(tab, "text", "South")})
    assert not out.is_error, out.content
    assert text_of(tab, "picked") == "Picked South"


def test_a_click_reaches_a_ring_whose_centre_is_a_hole(pie: WebTools) -> None:
    tab = pie.current_tab()
    out = pie.run("web_click", {"ref": ref(tab, "button", "Ring")})
    assert not out.is_error, out.content
    assert text_of(tab, "picked") == "Picked Ring"
