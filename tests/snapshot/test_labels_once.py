"""A full snapshot says a control's label once, on the control's line, not again as a text
line before or after it; text that only repeats the words elsewhere stays."""

from __future__ import annotations

import pytest
from webrefs import Tab

pytestmark = pytest.mark.browser


def test_a_label_is_said_once_on_its_controls_line(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/render/labels.html"))
    text = tab.snapshot(interactive_only=False).text
    lines = [line.strip() for line in text.splitlines()]
    assert any(line.startswith('- textbox "Full name"') for line in lines), text
    assert any(line.startswith('- textbox "Email:"') or line.startswith('- textbox "Email"')
               for line in lines), text
    assert any(line.startswith('- radio "Basic"') for line in lines), text
    # the labels are not said again as text of their own
    assert not any(line.startswith('- text "Email') for line in lines), text
    assert not any(line.startswith('- text "Basic"') or line.startswith('- text "Premium"')
                   for line in lines), text
    # a paragraph saying the same words away from the field is the page's own text
    assert sum(line.startswith('- text "Full name"') or line.startswith('- paragraph "Full name"')
               for line in lines) == 1, text
