"""Tables keep their shape on a real page (issue 30, part 2): the controls-only snapshot shows
a data table as one line whose ref web_get_text reads row by row, rows with controls say which
item they are, the full snapshot keeps one line per cell, and sort / current / selected show."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def test_a_data_table_is_a_line_whose_ref_reads_it(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/tables.html"))
    snap = tab.snapshot()
    lines = snap.text.splitlines()
    at = lines.index('  - heading "Contacts" [level=2]')
    table = lines[at + 1]
    assert table.startswith('  - table "Contacts" [columns="Name|Email|Phone"] [rows=3] [ref=')
    ref = table.rsplit("[ref=", 1)[1].rstrip("]")
    assert snap.refs[ref].role == "table"
    text = tab.get_text(ref).text
    assert text.splitlines() == ["Name | Email | Phone",
                                 "Ada Lovelace | ada@example.test | 555-0101",
                                 "Grace Hopper | grace@example.test | 555-0102",
                                 "Alan Turing | alan@example.test (work) | 555-0103"]


def test_rows_with_controls_keep_their_cell_text(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/tables.html"))
    text = tab.snapshot().text
    assert '  - table "Open orders" [ref=' in text  # web_get_text reads it whole
    assert '    - row "T-501 | Blue widget | 4":\n      - button "Edit T-501" [ref=' in text
    # a row clicked through its row group (a listener on <tbody>) is named by its cells
    assert '    - row "R-101 | Manila rope" [ref=' in text


def test_a_row_group_of_one_clickable_row_has_no_unexplained_hint(
        tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/one-row.html"))
    text = tab.snapshot().text
    assert "hint=" not in text
    assert '  - row "T-501 | Marlinspike" [ref=' in text


def test_state_shows_sort_current_selected(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/tables.html"))
    for interactive_only in (True, False):
        text = tab.snapshot(interactive_only=interactive_only).text
        assert 'button "Order" [sort=ascending] [ref=' in text
        assert 'button "SKU" [sort=descending] [ref=' in text
        assert 'button "Item" [ref=' in text  # aria-sort="none" says nothing
        assert 'link "Overview" [current=page] [ref=' in text
        assert 'tab "People" [selected] [ref=' in text
        assert ' [selected]:\n' in text  # the selected row
    assert '    - row "T-502 | Red gadget | 1" [selected]:' in tab.snapshot().text


def test_the_full_snapshot_never_flattens_a_row(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/tables.html"))
    text = tab.snapshot(interactive_only=False).text
    assert 'cell "alan@example.test · (work)" [ref=' in text  # two lines of one cell
    assert "Manila rope Edit" not in text and '- text "alan' not in text
    assert '    - row [ref=' in text  # the clickable row: its cells are below it
    assert 'cell "Manila rope" [ref=' in text


async def test_get_text_of_the_page_keeps_columns(tab: Tab, site: SiteServer) -> None:
    await tab.agoto(site.url("/tables/tables.html"))
    text = (await tab.aget_text()).text
    assert "Order | Item | Qty | Actions\nT-501 | Blue widget | 4 | Edit\n" in text
    assert "layout cell | Layout link" in text


def test_wait_for_text_across_cells_still_matches(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/tables.html"))
    assert tab.wait_for(text="Ada Lovelace ada@example.test", timeout_ms=2000).success
    assert tab.wait_for(text="Ada Lovelace | ada@example.test", timeout_ms=2000).success


def test_a_badge_stays_apart_from_the_name_beside_it(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/badges.html"))
    text = tab.snapshot(interactive_only=False).text
    assert '- cell "New · Harbour Weekly" [ref=' in text  # a bold marker before the sender
    assert '- cell "Ferry timetable · 3" [ref=' in text  # a count in a pill after the subject
    assert '- cell "1 Aug" [ref=' in text  # a boxed cell of one piece is one piece
    assert '- cell "Harbour Master" [ref=' in text  # all bold: nothing stands out
    assert '- cell "Call now to book a berth" [ref=' in text  # bold inside the words stays
    assert '- paragraph "Read every notice before sailing." [ref=' in text  # not a cell


def test_a_table_drawn_around_its_controls_has_a_ref_that_reads_it_whole(
        tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/tables/tables.html"))
    snap = tab.snapshot()
    line = next(x for x in snap.text.splitlines() if x.startswith('  - table "Open orders"'))
    ref = line.rsplit("[ref=", 1)[1].split("]")[0]
    assert snap.refs[ref].role == "table"
    assert "T-501 | Blue widget | 4" in tab.get_text(ref).text
