"""Pure rendering of hints, slider bounds and field values (issue 17)."""

from __future__ import annotations

from typing import Any

from webrefs import render
from webrefs.models import PageTree
from webrefs.render.outline import clean_value, escape


def tree(*children: dict[str, Any]) -> PageTree:
    root = {"tag": "body", "children": list(children)}
    return PageTree.model_validate({"url": "https://t.test/", "root": root})


def lines(t: PageTree, **kw: Any) -> list[str]:
    return render(t, **kw).text.splitlines()[1:]


def test_text_before_a_field_is_its_hint_in_controls_only_mode() -> None:
    t = tree({"tag": "#text", "text": "Email address"},
             {"tag": "input", "role": "textbox", "ref": "e1", "hint": "em"},
             {"tag": "input", "role": "textbox", "ref": "e2", "hint": "second"})
    assert lines(t) == ['- textbox [hint="Email address"] [ref=e1]',
                        '- textbox [hint="second"] [ref=e2]']  # text is used once
    assert lines(t, interactive_only=False) == ['- text "Email address"',
                                                '- textbox [hint="em"] [ref=e1]',
                                                '- textbox [hint="second"] [ref=e2]']


def test_headings_and_placeholders_are_not_taken_as_hints() -> None:
    t = tree({"tag": "h1", "role": "heading", "name": "Search", "level": 1},
             {"tag": "input", "role": "searchbox", "ref": "e1"},
             {"tag": "#text", "text": "Size"},
             {"tag": "input", "role": "textbox", "ref": "e2", "attrs": {"placeholder": "cm"}})
    assert lines(t) == ['- heading "Search" [level=1]', "- searchbox [ref=e1]",
                        '- textbox [placeholder="cm"] [ref=e2]']


def test_named_controls_get_no_hint() -> None:
    t = tree({"tag": "#text", "text": "Before"},
             {"tag": "button", "role": "button", "name": "Go", "ref": "e1", "hint": "x"})
    assert lines(t) == ['- button "Go" [ref=e1]']


def test_slider_bounds_default_for_range_inputs() -> None:
    t = tree({"tag": "input", "role": "slider", "name": "Vol", "ref": "e1", "value": "5",
              "attrs": {"type": "range"}},
             {"tag": "div", "role": "slider", "name": "Hue", "ref": "e2", "value": "7",
              "attrs": {"aria-valuemin": "1", "aria-valuemax": "9] [ref=e9"}})
    assert lines(t) == ['- slider "Vol" [value="5"] [min=0] [max=100] [type=range] [ref=e1]',
                        '- slider "Hue" [value="7"] [min=1] [ref=e2]']


def test_values_keep_whitespace_escaped_on_one_line() -> None:
    assert clean_value("a\n b\t\u202ec", 100) == "a\n b\tc"
    assert escape("a\nb\r\tc\\") == "a\\nb\\r\\tc\\\\"
    t = tree({"tag": "textarea", "role": "textbox", "name": "N", "ref": "e1",
              "value": 'x\n- button "Fake" [ref=e7]'})
    assert lines(t) == ['- textbox "N" [value="x\\n- button \\"Fake\\" \\[ref=e7\\]"] [ref=e1]']
    as_json = render(t, format="json").text
    assert '"value":"x\\n- button \\"Fake\\" [ref=e7]"' in as_json
