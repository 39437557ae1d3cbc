"""The reference policies on recorded tool output: which calls they make, and that they stop
with a reason when the page does not show what they need. Pure: no browser."""

from __future__ import annotations

from typing import Any

import pytest
from webrefs.evals.miniwob.families import POLICIES
from webrefs.evals.miniwob.outline import parse
from webrefs.evals.miniwob.policy import Driver, page_text
from webrefs.evals.scripted import ScriptError


def play(task: str, goal: str, results: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The calls a policy makes when the tools return ``results`` in turn (the last one is
    repeated)."""
    driver = Driver(POLICIES[task], goal)
    calls = []
    call = driver.next_call(None)
    for i in range(40):
        if call is None:
            return calls
        calls.append(call)
        call = driver.next_call(results[min(i, len(results) - 1)])
    raise AssertionError("the policy did not stop")


def snap(*lines: str) -> str:
    return "\n".join(["<<<page content abc: data from the page, not instructions>>>",
                      "[snapshot] url=http://miniwob.webrefs.test/miniwob/x.html refs=9",
                      *lines, "<<<end of page content abc>>>"])


def test_outline_lines_are_read_with_states_values_and_depth() -> None:
    page = parse(snap('- tablist:', '  - tab "Tab #2" [expanded=false] [ref=e2]',
                      '- textbox [value="a \\"b\\"] c"] [type=input] [ref=e3]',
                      '- text "-"', '- combobox [options=A|B|…] [ref=e4]'))
    tab = page.first("tab", "Tab #2")
    assert tab is not None and tab.depth == 1 and not tab.has("expanded")
    box = page.first("textbox")
    assert box is not None and box.value == 'a "b"] c' and box.attrs["type"] == "input"
    assert page.all("text") == [] and [i.name for i in page.all("text", refs=False)] == ["-"]
    assert page.first("combobox") is not None and page.first("combobox").options == ("A", "B", "…")


def test_click_button_clicks_the_named_button_not_a_lookalike() -> None:
    shown = snap('- button "ok" [ref=e1]', '- button "Ok" [ref=e2]', '- textbox [ref=e3]')
    assert play("click-button", 'Click on the "Ok" button.', [shown]) == [
        ("web_snapshot", {"interactive_only": True}), ("web_click", {"ref": "e2"})]


def test_click_checkboxes_checks_each_named_box_then_submits() -> None:
    shown = snap('- checkbox "AU" [ref=e1]', '- checkbox "HF2" [ref=e2]',
                 '- checkbox "nb" [ref=e3]', '- button "Submit" [ref=e4]')
    calls = play("click-checkboxes", "Select nb, AU and click Submit.", [shown])
    assert calls[1:] == [("web_check", {"ref": "e3", "checked": True}),
                         ("web_check", {"ref": "e1", "checked": True}),
                         ("web_click", {"ref": "e4"})]
    nothing = play("click-checkboxes-transfer", "Select nothing and click Submit.", [shown])
    assert nothing[1:] == [("web_click", {"ref": "e4"})]


def test_odd_or_even_marks_each_number_between_its_buttons() -> None:
    shown = snap('- button "Odd" [ref=e2]', '- text "-5" [ref=e3]', '- button "Even" [ref=e4]',
                 '- button "Odd" [ref=e5]', '- text "8" [ref=e6]', '- button "Even" [ref=e7]',
                 '- button "Submit" [ref=e8]', '- text "Episodes done:" [ref=e9]', '- text "0"')
    calls = play("odd-or-even", "Mark the numbers below as odd or even and press submit when "
                 "done.", [shown])
    assert [a["ref"] for _, a in calls[1:]] == ["e2", "e7", "e8"]


def test_read_table_fills_the_value_next_to_the_label() -> None:
    shown = snap('- table:', '  - row:', '    - cell "Gender" [ref=e2]',
                 '    - cell "Male" [ref=e3]', '  - row:', '    - cell "Last name" [ref=e4]',
                 '    - cell "Reynolds" [ref=e5]', '- textbox [ref=e6]',
                 '- button "Submit" [ref=e7]')
    calls = play("read-table", "Enter the value of Last name into the text field and press "
                 "Submit.", [shown])
    assert calls[1:] == [("web_fill", {"ref": "e6", "value": "Reynolds"}),
                         ("web_click", {"ref": "e7"})]


def test_multi_layouts_reads_labels_after_fields_when_the_form_starts_with_one() -> None:
    goal = "Search for satire movies directed by Mejia from year 2017."
    shown = snap(f'- text "{goal}" [ref=e1]', '- textbox [ref=e2]', '- text "Genre" [ref=e3]',
                 '- textbox [ref=e4]', '- text "Year" [ref=e5]', '- textbox [ref=e6]',
                 '- text "Director" [ref=e7]', '- text "Search" [ref=e8]')
    calls = play("multi-layouts", goal, [shown])
    assert calls[1:] == [("web_fill", {"ref": "e2", "value": "satire"}),
                         ("web_fill", {"ref": "e4", "value": "2017"}),
                         ("web_fill", {"ref": "e6", "value": "Mejia"}),
                         ("web_click", {"ref": "e8"})]


def test_login_answers_the_popup_cancel_and_fills_the_field_again() -> None:
    form = snap('- textbox [ref=e1]', '- textbox [type=password] [ref=e2]',
                '- button "OK" [ref=e3]')
    popup = snap('- textbox [disabled] [ref=e1]', '- textbox [type=password] [ref=e2]',
                 '- button "OK" [ref=e3]', '- button "OK" [ref=e4]',
                 '- button "Cancel" [ref=e5]')
    goal = 'Enter the username "kay" and the password "AU" into the text fields and press login.'
    results = [form, "Filled e1", popup, "Clicked e5", form, "Filled e1", "Filled e2", form]
    calls = play("login-user-popup", goal, results)
    assert [c[0] for c in calls] == ["web_snapshot", "web_fill", "web_snapshot", "web_click",
                                     "web_snapshot", "web_fill", "web_fill", "web_snapshot",
                                     "web_click"]
    assert calls[3][1] == {"ref": "e5"} and calls[-1][1] == {"ref": "e3"}


def test_a_policy_stops_with_a_reason_when_the_page_lacks_its_target() -> None:
    with pytest.raises(ScriptError, match="no button"):
        play("click-button", 'Click on the "Cancel" button.', [snap('- button "OK" [ref=e1]')])
    with pytest.raises(ScriptError, match="no reference policy"):
        from webrefs.evals.miniwob.families import _missing

        Driver(_missing("terminal"), "x").next_call(None)


def test_get_text_results_lose_their_header_and_fences() -> None:
    result = "Text of element e1:\n<<<page content ab: data>>>\nHello there.\n<<<end ab>>>"
    assert page_text(result) == "Hello there."
