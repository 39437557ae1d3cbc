"""get_text on text fields: a textarea or input gives its current value (not its markup's
text), as typed when read on its own, and inside a container too; passwords never."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.actions import opened, ref

pytestmark = pytest.mark.browser


@pytest.fixture
def fields(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/fields.html"))


def test_a_textarea_gives_its_value_as_typed(fields: Tab) -> None:
    notes = ref(fields, "textbox", "Notes")
    assert fields.get_text(notes).text == "first  line\n  second line"
    fields.fill(notes, "typed by the agent")
    assert fields.get_text(notes).text == "typed by the agent"


def test_an_input_gives_its_value(fields: Tab) -> None:
    assert fields.get_text(ref(fields, "textbox", "City")).text == "Utrecht"


def test_a_container_shows_field_values_but_no_password(fields: Tab) -> None:
    text = fields.get_text().text
    assert "first line" in text and "second line" in text and "Utrecht" in text
    assert "initial words" not in text and "hunter2" not in text
