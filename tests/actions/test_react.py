"""fill, check and select on a real React 18 controlled form (React installed from npm by the
test set-up into tests/sites/react/node_modules)."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.actions import js, ref
from tests.helpers.paths import SITES

pytestmark = pytest.mark.browser

REACT = SITES / "react" / "node_modules" / "react" / "umd"


@pytest.fixture
def react_form(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    if not (REACT / "react.development.js").is_file():
        pytest.fail("React is not installed: run 'bash .ci/dev setup' (npm install in "
                    "tests/sites/react).")
    tab.goto(site.url("/react/form.html"))
    tab.wait_for(text="Create account")
    tab.snapshot()
    return tab


def state(tab: Tab) -> str:
    return str(js(tab, "() => document.getElementById('state').textContent"))


def test_fill_updates_react_state(react_form: Tab) -> None:
    r = react_form.fill(ref(react_form, "textbox", "Name"), "Grace Hopper")
    assert r.readback["value"] == "Grace Hopper"
    react_form.fill(ref(react_form, "textbox", "Email"), "grace@example.com")
    assert "name=Grace Hopper" in state(react_form)
    assert "email=grace@example.com" in state(react_form)


def test_refill_replaces_react_state(react_form: Tab) -> None:
    name = ref(react_form, "textbox", "Name")
    react_form.fill(name, "first value")
    react_form.fill(name, "second")
    assert "name=second " in state(react_form)


def test_controlled_input_that_rewrites_value_is_reported(react_form: Tab) -> None:
    r = react_form.fill(ref(react_form, "textbox", "Phone"), "555-12 34")
    assert r.readback["value"] == "5551234"
    assert "changed the value" in r.message
    assert "digits=5551234" in state(react_form)


def test_check_select_and_submit_reach_react(react_form: Tab) -> None:
    react_form.fill(ref(react_form, "textbox", "Name"), "Ada")
    react_form.check(ref(react_form, "checkbox", "I agree"))
    react_form.select(ref(react_form, "combobox", "Plan"), "Pro")
    assert "agree=true" in state(react_form) and "plan=pro" in state(react_form)
    react_form.click(ref(react_form, "button", "Create account"))
    sent = str(js(react_form, "() => document.getElementById('sent').textContent"))
    assert '"name":"Ada"' in sent and '"agree":true' in sent and '"plan":"pro"' in sent
