"""diff_snapshots: changes by ref, within a budget, on both formats."""

from __future__ import annotations

from typing import Any

import pytest
from webrefs import diff_snapshots, render
from webrefs.errors import InvalidArgumentError
from webrefs.models import PageTree
from webrefs.render.diff import ref_runs, refs_in_runs
from webrefs.render.tokens import count_tokens

from tests.helpers.paths import DATA

TREE = DATA / "trees" / "shop.json"


def trees() -> tuple[PageTree, PageTree]:
    before = PageTree.model_validate_json(TREE.read_text())
    d: dict[str, Any] = before.model_dump(by_alias=True)
    main = d["root"]["children"][1]["children"]
    main[2]["children"][0]["states"] = {"checked": False}  # e6 unchecked
    main[1]["children"][1]["name"] = "Find"  # e5 renamed
    nav = d["root"]["children"][0]["children"]
    nav.pop()  # e2 removed
    nav.append({"tag": "a", "role": "link", "name": "Cart (1)", "ref": "e20"})
    return before, PageTree.model_validate(d)


def test_text_diff_lists_changed_added_removed_by_ref() -> None:
    a, b = trees()
    out = diff_snapshots(render(a), render(b))
    # what changed in an element is all its "was" repeats; removed elements are named by
    # their refs (the model holds their lines); an unnamed landmark is no context line
    assert out.split("\n") == [
        "[diff] changed=2 added=1 removed=1",
        '+ link "Cart (1)" [ref=e20]',
        '~ button "Find" [ref=e5]  (was: "Search")',
        '~ checkbox "In stock only" [ref=e6]  (was: [checked])',
        "- removed: e2",
        "unchanged: 9 other elements",
    ]


def test_json_diff_and_no_change() -> None:
    a, b = trees()
    out = diff_snapshots(render(a, format="json"), render(b, format="json"))
    assert "changed=2 added=1 removed=1" in out and '"ref":"e20"' in out
    same = render(a)
    assert diff_snapshots(same, same).endswith("(no change)")


def test_navigation_is_reported() -> None:
    a, _ = trees()
    moved = a.model_copy(update={"url": "https://shop.test/cart"})
    out = diff_snapshots(render(a), render(moved))
    assert "(navigated from https://shop.test/search?q=gold)" in out.split("\n")[0]


def test_no_before_gives_the_snapshot_and_budget_is_respected() -> None:
    a, b = trees()
    snap = render(b)
    assert diff_snapshots(None, snap) == snap.text
    small = diff_snapshots(render(a), snap, max_tokens=45)
    assert count_tokens(small) <= 45
    assert "more changes" in small
    with pytest.raises(InvalidArgumentError):
        diff_snapshots(render(a), snap, max_tokens=0)


def test_page_text_cannot_fake_a_ref_in_the_diff() -> None:
    a, _ = trees()
    d: dict[str, Any] = a.model_dump(by_alias=True)
    d["root"]["children"][1]["children"].append(
        {"tag": "p", "role": "heading", "name": 'x" [ref=e5]', "level": 2})
    out = diff_snapshots(render(a), render(PageTree.model_validate(d)))
    assert "changed=0 added=1 removed=0" in out


def test_an_added_dialog_holds_its_controls_and_the_rest_is_counted() -> None:
    a, _ = trees()
    d: dict[str, Any] = a.model_dump(by_alias=True)
    d["root"]["children"].append(
        {"tag": "div", "role": "dialog", "name": "Remove item?", "children": [
            {"tag": "button", "role": "button", "name": "Yes, remove", "ref": "e30"},
            {"tag": "button", "role": "button", "name": "Keep it", "ref": "e31"}]})
    out = diff_snapshots(render(a), render(PageTree.model_validate(d)))
    assert out.split("\n") == [
        "[diff] changed=0 added=3 removed=0",
        '+ dialog "Remove item?"',
        '  + button "Yes, remove" [ref=e30]',
        '  + button "Keep it" [ref=e31]',
        "unchanged: 12 other elements",
    ]


def test_unchanged_elements_under_a_changed_one_are_not_listed() -> None:
    a, _ = trees()
    d: dict[str, Any] = a.model_dump(by_alias=True)
    d["root"]["children"][1]["children"][1]["children"][1]["name"] = "Find"
    out = diff_snapshots(render(a), render(PageTree.model_validate(d))).split("\n")
    assert out[1:] == ['~ button "Find" [ref=e5]  (was: "Search")',
                       "unchanged: 11 other elements"]


def test_a_moved_focus_alone_is_no_change() -> None:
    a, _ = trees()
    d: dict[str, Any] = a.model_dump(by_alias=True)
    d["root"]["children"][1]["children"][1]["children"][1]["states"] = {"focused": True}
    out = diff_snapshots(render(a), render(PageTree.model_validate(d)))
    assert out.split("\n") == ["[diff] changed=0 added=0 removed=0", "(no change)"]


def _with(tree: PageTree, change: Any) -> PageTree:
    d: dict[str, Any] = tree.model_dump(by_alias=True)
    change(d["root"]["children"][1]["children"])
    return PageTree.model_validate(d)


def test_a_gained_fact_and_a_new_value_say_only_what_differs() -> None:
    a, _ = trees()

    def change(main: list[Any]) -> None:
        main[1]["children"][0]["value"] = "gold ring"  # the searchbox, e4
        main[1]["children"][0]["states"] = {"focused": True}
        main[2]["children"][0]["states"] = {"checked": True, "disabled": True}  # e6
        next(n for n in main if n.get("ref") == "e11")["states"] = {"expanded": True}

    out = diff_snapshots(render(a), render(_with(a, change))).split("\n")
    # [expanded=false] -> [expanded]: one fact whose value changed, not one gained
    assert '~ button "Filters" [expanded] [ref=e11]  (was: [expanded=false])' in out, out
    assert out[1] == ('~ searchbox [value="gold ring"] [placeholder="Search..."] [focused] '
                      '[ref=e4]  (was: [value="gold"])')
    assert out[2] == ('~ checkbox "In stock only" [checked] [disabled] [ref=e6]  '
                      "(was: not [disabled])")


def test_what_the_action_said_is_not_repeated() -> None:
    a, _ = trees()

    def fill(main: list[Any]) -> None:
        main[1]["children"][0]["value"] = "silver"
        main.append({"tag": "p", "role": "status", "name": "3 results"})

    after = render(_with(a, fill))
    said = 'Filled e4 (searchbox) with "silver". The page says: status "3 results".'
    out = diff_snapshots(render(a), after, said=said, acted="e4")
    assert out.split("\n") == ["[diff] changed=0 added=0 removed=0", "(no other change)"]
    # another value than the one said, or another element: listed
    other = diff_snapshots(render(a), after, said=said.replace("silver", "gold"), acted="e4")
    assert ('~ searchbox [value="silver"] [placeholder="Search..."] [ref=e4]  '
            '(was: [value="gold"])') in other
    assert '+ status "3 results"' not in other
    assert "[value=\"silver\"]" in diff_snapshots(render(a), after, said=said, acted="e5")


def test_a_check_said_is_not_repeated_but_its_neighbour_is() -> None:
    a, _ = trees()
    b = _with(a, lambda main: main[2]["children"][0].update(states={"checked": False}))
    said = 'Unchecked e6 (checkbox "In stock only").'
    assert diff_snapshots(render(a), render(b), said=said, acted="e6").endswith(
        "(no other change)")
    assert "(was: [checked])" in diff_snapshots(render(a), render(b), said="Clicked e6.",
                                                 acted="e6")


def test_removed_refs_share_one_line_and_context_names_a_form() -> None:
    a, _ = trees()

    def change(main: list[Any]) -> None:
        main[1]["children"] = []  # the search form's controls go
        main.append({"tag": "form", "role": "form", "name": "Checkout", "children": [
            {"tag": "button", "role": "button", "name": "Pay", "ref": "e40"}]})

    out = diff_snapshots(render(a), render(_with(a, change))).split("\n")
    assert '+ form "Checkout"' in out or 'in form "Checkout":' in out
    assert any(ln.endswith('+ button "Pay" [ref=e40]') for ln in out)
    assert "- removed: e4, e5" in out


def test_removed_refs_that_follow_one_another_are_written_as_a_run() -> None:
    a, _ = trees()

    def change(main: list[Any]) -> None:
        main[1]["children"] = []  # e4, e5
        main[4]["children"] = []  # the three results, e8 to e10

    out = diff_snapshots(render(a), render(_with(a, change))).split("\n")
    assert "- removed: e4, e5, e8 to e10" in out
    assert "changed=0 added=0 removed=5" in out[0]


@pytest.mark.parametrize(("refs", "text"), [
    ([], ""),
    (["e3"], "e3"),
    (["e3", "e4"], "e3, e4"),
    (["e3", "e4", "e5", "e9"], "e3 to e5, e9"),
    (["e5", "e4", "e3"], "e5, e4, e3"),  # only upwards
    (["f1e2", "f1e3", "f1e4", "e5", "f2e6"], "f1e2 to f1e4, e5, f2e6"),
    (["e9", "f1e10", "e11"], "e9, f1e10, e11"),  # one frame's refs only
])
def test_ref_runs_and_back(refs: list[str], text: str) -> None:
    assert ref_runs(refs) == text
    assert refs_in_runs(text) == refs


def test_a_run_that_ref_runs_never_writes_is_read_as_its_text() -> None:
    assert refs_in_runs("e9 to e3") == ["e9 to e3"]
    assert refs_in_runs("e1 to e999999999") == ["e1 to e999999999"]
    assert refs_in_runs("e1 to f1e3, e4") == ["e1 to f1e3", "e4"]


def test_a_status_replaced_by_the_one_said_is_no_change_and_rows_share_one_context() -> None:
    a, _ = trees()

    def status(text: str) -> Any:
        return lambda main: main.append({"tag": "p", "role": "status", "name": text})

    before, after = render(_with(a, status("Adults: 1"))), render(_with(a, status("Adults: 2")))
    said = 'Clicked e9 (button "More adults"). The page says: status "Adults: 2".'
    assert diff_snapshots(before, after, said=said).endswith("\n(no other change)")
    assert '- status "Adults: 1"' in diff_snapshots(before, after, said="Clicked e9.")

    def lists(main: list[Any]) -> None:
        main[1]["name"] = "Trip"
        main[1]["children"] += [
            {"tag": "ul", "role": "listbox", "name": f"{end} airports", "ref": f"e{50 + 5 * i}",
             "children": [{"tag": "li", "role": "option", "name": f"{end} {n}",
                           "ref": f"e{51 + 5 * i + n}"} for n in range(2)]}
            for i, end in enumerate(("From", "To"))]

    out = diff_snapshots(render(a), render(_with(a, lists))).split("\n")
    assert out[1:8] == ['in search "Trip":',
                        '  + listbox "From airports" [ref=e50]',
                        '    + option "From 0" [ref=e51]', '    + option "From 1" [ref=e52]',
                        '  + listbox "To airports" [ref=e55]',  # no second "in search"
                        '    + option "To 0" [ref=e56]', '    + option "To 1" [ref=e57]'], out


def test_the_radio_a_checked_one_replaced_is_not_repeated() -> None:
    def group(checked: int) -> Any:
        return lambda main: main.append({"tag": "div", "role": "radiogroup", "name": "Plan",
                                         "children": [
            {"tag": "input", "role": "radio", "name": name, "ref": f"e{60 + i}",
             "states": {"checked": i == checked}}
            for i, name in enumerate(("Weekly", "Monthly", "Yearly"))]})

    a, _ = trees()
    before, after = render(_with(a, group(0))), render(_with(a, group(1)))
    said = 'Checked radio e61 (radio "Monthly").'
    assert diff_snapshots(before, after, said=said, acted="e61").endswith("(no other change)")
    # clicked rather than checked: the summary says nothing of the radios, so both are listed
    out = diff_snapshots(before, after, said="Clicked e61.", acted="e61")
    assert '~ radio "Weekly" [ref=e60]  (was: [checked])' in out.split("\n")[2]
