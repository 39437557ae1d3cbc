"""Tables in the outline (issue 30, part 2), pure: a line per data table in controls-only
mode, row cell text on row lines, one line per cell, sort / current / selected states."""

from __future__ import annotations

import json
from typing import Any

from webrefs import render
from webrefs.models import Node, PageTree
from webrefs.render.tables import cell_text, current_of, row_label, sort_of, table_facts


def tree(*children: dict[str, Any]) -> PageTree:
    root = {"tag": "body", "children": list(children)}
    return PageTree.model_validate({"url": "https://t.test/", "root": root})


def lines(t: PageTree, **kw: Any) -> list[str]:
    return render(t, **kw).text.splitlines()[1:]


def cell(text: str, role: str = "cell", **kw: Any) -> dict[str, Any]:
    return {"tag": "th" if role == "columnheader" else "td", "role": role, "name": text, **kw}


def row(*cells: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"tag": "tr", "role": "row", "children": list(cells), **kw}


def button(name: str, ref: str) -> dict[str, Any]:
    return {"tag": "button", "role": "button", "name": name, "ref": ref}


CONTACTS = {"tag": "table", "role": "table", "ref": "e9", "children": [
    row(cell("Name", "columnheader"), cell("Email", "columnheader")),
    row(cell("Ada"), cell("ada@x.test")),
    row(cell("Grace"), cell("grace@x.test")),
]}


def test_a_data_table_is_one_line_in_controls_only_mode() -> None:
    t = tree({"tag": "h2", "role": "heading", "name": "Contacts", "level": 2}, CONTACTS)
    assert lines(t) == ['- heading "Contacts" [level=2]',
                        '- table "Contacts" [columns="Name|Email"] [rows=2] [ref=e9]']
    snap = render(t)
    assert snap.refs["e9"].role == "table"
    # the full snapshot draws its cells instead
    full = lines(t, interactive_only=False)
    assert '  - cell "Ada"' in "\n".join(full) and "rows=" not in "\n".join(full)


def test_a_caption_names_the_table_line() -> None:
    table = dict(CONTACTS, name="People")
    assert lines(tree(table)) == ['- table "People" [columns="Name|Email"] [rows=2] [ref=e9]']


def test_a_table_with_controls_keeps_its_rows_with_their_cell_text() -> None:
    t = tree({"tag": "table", "role": "table", "ref": "e1", "name": "Orders", "children": [
        row(cell("", "columnheader", attrs={"aria-sort": "ascending"},
                 children=[button("Order", "e2")]),
            cell("Qty", "columnheader")),
        row(cell("T-501"), cell("4"),
            {"tag": "td", "role": "cell", "children": [button("Edit T-501", "e3")]}),
        row(cell("T-502"), cell(""), {"tag": "td", "role": "cell", "children": [
            button("Edit", "e4")]}, states={"selected": True}),
    ]})
    assert lines(t) == ['- table "Orders" [ref=e1]:',
                        "  - row:",
                        '    - button "Order" [sort=ascending] [ref=e2]',
                        '  - row "T-501 | 4":',
                        '    - button "Edit T-501" [ref=e3]',
                        '  - row "T-502" [selected]:',
                        '    - button "Edit" [ref=e4]']
    # the full snapshot: cells on their own lines, the row line carries no copy of them
    full = lines(t, interactive_only=False)
    assert '  - row [selected]:' in full and '    - cell "T-502" ' not in full
    assert any(ln.startswith('    - cell "T-502"') for ln in full)


def test_a_clickable_row_is_named_by_its_cells_never_flattened() -> None:
    t = tree({"tag": "table", "role": "table", "children": [
        row(cell("R-101"), cell("Manila rope"), cell("Edit"), ref="e5", clickable=True,
            name="R-101 Manila rope Edit")]})
    assert lines(t)[1] == '  - row "R-101 | Manila rope | Edit" [ref=e5]'
    full = lines(t, interactive_only=False)
    assert full[1] == "  - row [ref=e5]:"
    assert [ln.split(" [")[0] for ln in full[2:]] == [
        '    - cell "R-101"', '    - cell "Manila rope"', '    - cell "Edit"']


def test_a_cell_of_blocks_is_one_cell_line_in_the_full_snapshot() -> None:
    t = tree({"tag": "table", "role": "table", "children": [row(
        cell("Alan"),
        {"tag": "td", "role": "cell", "ref": "e3", "children": [
            {"tag": "div", "text": "alan@x.test", "ref": "e4"},
            {"tag": "div", "text": "(work)", "ref": "e5"}]})]})
    full = lines(t, interactive_only=False)
    assert full[-1] == '    - cell "alan@x.test · (work)" [ref=e3]'
    assert not any("text " in ln for ln in full)


def test_rows_outside_a_table_get_no_label() -> None:
    t = tree({"tag": "tr", "role": "row", "children": [
        cell("layout"), {"tag": "td", "role": "cell", "children": [
            {"tag": "a", "role": "link", "name": "Go", "ref": "e1"}]}]})
    assert lines(t) == ["- row:", '  - link "Go" [ref=e1]']


def test_aria_current_and_json_format() -> None:
    t = tree({"tag": "a", "role": "link", "name": "Overview", "ref": "e1",
              "attrs": {"aria-current": "page"}},
             {"tag": "a", "role": "link", "name": "Odd", "ref": "e2",
              "attrs": {"aria-current": "x] [ref=e9"}},
             {"tag": "a", "role": "link", "name": "No", "ref": "e3",
              "attrs": {"aria-current": "false"}})
    assert lines(t) == ['- link "Overview" [current=page] [ref=e1]',
                        '- link "Odd" [current=true] [ref=e2]', '- link "No" [ref=e3]']
    doc = json.loads(render(t, format="json").text)
    assert doc["nodes"][0]["current"] == "page"


def test_helpers() -> None:
    head = Node.model_validate({"role": "columnheader", "attrs": {"aria-sort": "Descending"}})
    assert sort_of(head) == "descending"
    assert sort_of(Node.model_validate({"role": "columnheader",
                                        "attrs": {"aria-sort": "none"}})) == ""
    assert sort_of(Node.model_validate({"role": "cell",
                                        "attrs": {"aria-sort": "ascending"}})) == ""
    assert current_of(Node.model_validate({"attrs": {"aria-current": "Step"}})) == "step"
    c = Node.model_validate({"role": "cell", "children": [
        {"text": "Bob"}, {"role": "button", "name": "Edit", "ref": "e1"}]})
    assert cell_text(c) == "Bob"
    r = Node.model_validate(row(cell("a" * 80), cell("b" * 80)))
    assert len(row_label(r)) <= 90 and row_label(r).endswith("…")
    assert row_label(Node.model_validate(row(cell("H", "columnheader")))) == ""
    wide = Node.model_validate({"role": "table", "children": [
        row(*(cell(f"C{i}", "columnheader") for i in range(10)))]})
    assert table_facts(wide) is None  # no data row: nothing to read
    wide.children.append(Node.model_validate(row(cell("x"))))
    assert table_facts(wide) == [("columns", "C0|C1|C2|C3|C4|C5|C6|C7|…"), ("rows", "1")]
    plain = Node.model_validate({"role": "table", "children": [row(cell("a")), row(cell("b"))]})
    assert table_facts(plain) == [("rows", "2")]
    with_control = Node.model_validate({"role": "table", "children": [
        row({"role": "cell", "children": [{"role": "link", "name": "x", "ref": "e1"}]})]})
    assert table_facts(with_control) is None
