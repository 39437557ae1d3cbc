"""fill, select, check, press_key, hover, click variants on native and custom widgets."""

from __future__ import annotations

import pytest
from webrefs import Tab
from webrefs.errors import InvalidArgumentError, NotActionableError, VerificationError

from tests.helpers.actions import js, opened, ref, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def forms(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/forms.html"))


def value(tab: Tab, element_id: str) -> object:
    return js(tab, "(id) => document.getElementById(id).value", element_id)


def log(tab: Tab) -> str:
    return text_of(tab, "log")


# -- click / hover / keys ------------------------------------------------------------------------
def test_click_reports_what_changed(forms: Tab) -> None:
    r = forms.click(ref(forms, "button", "Count"))
    assert r.success and r.action == "click" and r.matched_by == "ref"
    assert js(forms, "() => document.getElementById('count').textContent") == "Count 1"
    assert r.mutations >= 1
    assert r.focused is not None and "Count 1" in r.focused
    assert f"[ref={r.ref}]" in r.focused
    assert not r.navigated and r.new_tabs == [] and r.dialogs == []


def test_double_and_right_click(forms: Tab) -> None:
    forms.click(ref(forms, "button", "Double"), double=True)
    assert log(forms) == "double"
    forms.click(ref(forms, "button", "Right"), button="right")
    assert log(forms) == "context"


def test_click_rejects_unknown_button(forms: Tab) -> None:
    with pytest.raises(InvalidArgumentError):
        forms.click(ref(forms, "button", "Count"), button="fourth")


def test_hover_fires_mouseenter(forms: Tab) -> None:
    r = forms.hover(ref(forms, "button", "Hover"))
    assert r.success and log(forms) == "hovered"


def test_press_key_combination_on_target(forms: Tab) -> None:
    r = forms.press_key("ctrl+a", ref(forms, "textbox", "Keys"))
    assert r.message.startswith("Pressed Control+a") or r.message.startswith("Pressed Control+A")
    assert log(forms) in ("Control+a", "Control+A")


def test_press_key_on_focused_element(forms: Tab) -> None:
    keys = ref(forms, "textbox", "Keys")
    forms.click(keys)
    forms.press_key("Enter")
    assert log(forms) == "Enter"
    r = forms.press_key("Shift+Tab")
    assert r.success and r.focused is not None


def test_press_key_rejects_nonsense(forms: Tab) -> None:
    with pytest.raises(InvalidArgumentError):
        forms.press_key("Hyper+Q")


# -- fill ---------------------------------------------------------------------------------------
def test_fill_replaces_and_reads_back(forms: Tab) -> None:
    target = ref(forms, "textbox", "Full name")
    forms.fill(target, "first")
    r = forms.fill(target, "Ada Lovelace")
    assert r.readback["value"] == "Ada Lovelace"
    assert value(forms, "fullname") == "Ada Lovelace"


def test_fill_textarea_multiline(forms: Tab) -> None:
    r = forms.fill(ref(forms, "textbox", "Notes"), "line 1\nline 2")
    assert value(forms, "notes") == "line 1\nline 2"
    assert r.readback["value"] == "line 1\nline 2"


def test_fill_contenteditable(forms: Tab) -> None:
    r = forms.fill(ref(forms, "textbox", "Editor"), "new text")
    assert r.success
    assert js(forms, "() => document.getElementById('editor').innerText.trim()") == "new text"


def test_fill_readonly_fails_and_keeps_value(forms: Tab) -> None:
    with pytest.raises(NotActionableError) as info:
        forms.fill(ref(forms, "textbox", "Account"), "hacked")
    assert info.value.reason == "readonly"
    assert info.value.result is not None and info.value.result.success is False
    assert value(forms, "account") == "ACC-42"


def test_fill_disabled_and_disabled_fieldset(forms: Tab) -> None:
    with pytest.raises(NotActionableError) as info:
        forms.fill(ref(forms, "textbox", "Coupon"), "x")
    assert info.value.reason == "disabled"
    with pytest.raises(NotActionableError) as info:
        forms.fill(ref(forms, "textbox", "Locked field"), "x")
    assert info.value.reason == "disabled"
    with pytest.raises(NotActionableError) as info:
        forms.click(ref(forms, "button", "Locked button"))
    assert info.value.reason == "disabled"


def test_fill_not_editable(forms: Tab) -> None:
    with pytest.raises(NotActionableError) as info:
        forms.fill(ref(forms, "button", "Count"), "x")
    assert info.value.reason == "not_editable"
    # the hint names the tool that fits, never a Python method
    with pytest.raises(NotActionableError) as info:
        forms.fill(ref(forms, "combobox", "Colour"), "x")
    assert "web_select" in (info.value.hint or "") and "()" not in (info.value.hint or "")
    with pytest.raises(NotActionableError) as info:
        forms.fill(ref(forms, "checkbox", "Newsletter"), "x")
    assert "web_check" in (info.value.hint or "") and "()" not in (info.value.hint or "")


def test_fill_value_cap_is_an_error_not_a_hang(forms: Tab) -> None:
    with pytest.raises(InvalidArgumentError):
        forms.fill(ref(forms, "textbox", "Full name"), "x" * 10_000_000)
    assert value(forms, "fullname") == ""


def test_fill_number_field(forms: Tab) -> None:
    r = forms.fill(ref(forms, "spinbutton", "Quantity"), "12")
    assert r.readback["value"] == "12"


# -- select -------------------------------------------------------------------------------------
def test_select_by_label_and_value(forms: Tab) -> None:
    colour = ref(forms, "combobox", "Colour")
    r = forms.select(colour, "Green")
    assert r.readback["values"] == ["g"] and value(forms, "colour") == "g"
    r = forms.select(colour, "b2")
    assert r.readback["values"] == ["b2"]


def test_select_ambiguous_label_lists_options(forms: Tab) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        forms.select(ref(forms, "combobox", "Colour"), "Blue")
    assert "b1" in str(info.value) and "b2" in str(info.value)
    assert value(forms, "colour") == "r"


def test_select_unknown_and_disabled_option(forms: Tab) -> None:
    colour = ref(forms, "combobox", "Colour")
    with pytest.raises(InvalidArgumentError) as info:
        forms.select(colour, "Purple")
    assert "Green" in str(info.value)
    with pytest.raises(InvalidArgumentError):
        forms.select(colour, "Gone")


def test_select_multiple(forms: Tab) -> None:
    r = forms.select(ref(forms, "listbox", "Toppings"), ["Ham", "olives"])
    assert r.readback["values"] == ["ham", "olive"]
    with pytest.raises(InvalidArgumentError):
        forms.select(ref(forms, "combobox", "Colour"), ["Red", "Green"])


def test_select_custom_combobox_by_clicks(forms: Tab) -> None:
    r = forms.select(ref(forms, "combobox", "Fruit"), "Pear")
    assert r.readback["method"] == "clicks"
    assert "by clicks" in r.message
    assert js(forms, "() => document.getElementById('combo').textContent") == "Pear"


def test_select_on_a_button_is_not_a_select(forms: Tab) -> None:
    with pytest.raises(NotActionableError) as info:
        forms.select(ref(forms, "button", "Count"), "x")
    assert info.value.reason == "not_select"


# -- check --------------------------------------------------------------------------------------
def test_check_and_uncheck_checkbox(forms: Tab) -> None:
    box = ref(forms, "checkbox", "Newsletter")
    r = forms.check(box)
    assert r.readback["checked"] is True
    r = forms.check(box)
    assert r.readback["changed"] is False and "already" in r.message
    r = forms.check(box, checked=False)
    assert r.readback["checked"] is False
    assert js(forms, "() => document.getElementById('news').checked") is False


def test_check_radio_and_refuse_uncheck(forms: Tab) -> None:
    large = ref(forms, "radio", "Large")
    forms.check(large)
    assert js(forms, "() => document.getElementById('size-l').checked") is True
    with pytest.raises(InvalidArgumentError):
        forms.check(large, checked=False)


def test_check_aria_switch(forms: Tab) -> None:
    r = forms.check(ref(forms, "switch", "Wifi"))
    assert r.readback["checked"] is True
    assert js(forms, "() => document.getElementById('wifi').getAttribute('aria-checked')") == "true"


def test_check_hidden_input_behind_styled_label(forms: Tab) -> None:
    snap = forms.last_snapshot
    assert snap is not None
    label = next(r for r, n in snap.refs.items() if n.name.startswith("Dark mode"))
    r = forms.check(label)
    assert r.readback["checked"] is True
    assert js(forms, "() => document.getElementById('dark').checked") is True


def test_check_that_does_not_stick_is_a_verification_error(forms: Tab) -> None:
    with pytest.raises(VerificationError) as info:
        forms.check(ref(forms, "checkbox", "Broken"))
    assert info.value.result is not None and info.value.result.success is False


def test_check_on_text_field_is_not_checkable(forms: Tab) -> None:
    with pytest.raises(NotActionableError) as info:
        forms.check(ref(forms, "textbox", "Full name"))
    assert info.value.reason == "not_checkable"
