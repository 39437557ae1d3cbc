"""What a model writes into date and time fields, read as the ISO value the field takes."""

from __future__ import annotations

import re

import pytest
from webrefs import Browser, WebTools
from webrefs.actions.dates import to_field_value
from webrefs.errors import InvalidArgumentError

from tests.helpers.server import SiteServer


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("date", "2010-05-20", "2010-05-20"),
    ("date", "05/20/2010", "2010-05-20"),
    ("date", "20/05/2010", "2010-05-20"),  # 20 cannot be a month
    ("date", "5/20/10", "2010-05-20"),
    ("date", "20.05.2010", "2010-05-20"),
    ("date", "May 20, 2010", "2010-05-20"),
    ("date", "may 20th 2010", "2010-05-20"),
    ("date", "Thursday, May 20, 2010", "2010-05-20"),
    ("date", "20 May 2010", "2010-05-20"),
    ("date", "Sept. 3, 1999", "1999-09-03"),
    ("time", "14:05", "14:05"),
    ("time", "2pm", "14:00"),
    ("time", "2:30 PM", "14:30"),
    ("time", "12 am", "00:00"),
    ("time", "12:15 p.m.", "12:15"),
    ("time", "noon", "12:00"),
    ("time", "09:05:30", "09:05:30"),
    ("datetime-local", "2010-05-20T14:05", "2010-05-20T14:05"),
    ("datetime-local", "05/20/2010 2pm", "2010-05-20T14:00"),
    ("datetime-local", "May 20, 2010 at 2:30 pm", "2010-05-20T14:30"),
    ("month", "2010-05", "2010-05"),
    ("month", "May 2010", "2010-05"),
    ("month", "05/2010", "2010-05"),
    ("week", "2010-W20", "2010-W20"),
    ("week", "week 7 2011", "2011-W07"),
    ("week", "2010-05-20", "2010-W20"),
])
def test_spellings_become_iso_values(kind: str, text: str, value: str) -> None:
    assert to_field_value(text, kind).value == value


def test_an_ambiguous_date_says_how_it_was_read() -> None:
    got = to_field_value("05/06/2010", "date")
    assert got.value == "2010-05-06" and "month/day/year" in got.note
    assert to_field_value("05/05/2010", "date").note == ""


@pytest.mark.parametrize(("kind", "text", "needs"), [
    ("date", "next tuesday", "2010-05-20"),
    ("date", "02/30/2010", "2010-05-20"),
    ("date", "13/13/2010", "year-month-day"),
    ("time", "25:00", "14:05"),
    ("time", "14", "14:05"),
    ("time", "13pm", "24-hour"),
    ("datetime-local", "2010-05-20", "2010-05-20T14:05"),
    ("month", "2010-13", "2010-05"),
    ("week", "2010-W60", "2010-W20"),
])
def test_unreadable_values_name_the_format_the_field_needs(
        kind: str, text: str, needs: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        to_field_value(text, kind)
    message = info.value.for_model()
    assert needs in message and "web_fill" in message and "placeholder" not in message


# -- in a browser, through the tool a model calls ----------------------------------------------

_FIELDS = {"Departure": "dep", "Pick-up time": "pick", "Meeting": "meet", "Card expiry": "exp",
           "Sprint": "sprint"}


@pytest.mark.parametrize(("label", "typed", "value"), [
    ("Departure", "05/20/2010", "2010-05-20"),
    ("Departure", "May 20, 2010", "2010-05-20"),
    ("Pick-up time", "2pm", "14:00"),
    ("Meeting", "2010-05-20 14:05", "2010-05-20T14:05"),
    ("Card expiry", "May 2010", "2010-05"),
    ("Sprint", "2010-05-20", "2010-W20"),
])
def test_fill_sets_the_iso_value_of_date_and_time_fields(
        browser: Browser, site: SiteServer, label: str, typed: str, value: str) -> None:
    tab = browser.new_tab(site.url("/actions/dates.html"))
    try:
        tools = WebTools(browser, include=["web_snapshot", "web_fill"])
        snap = tools.call("web_snapshot", {}).content
        m = re.search(rf'- \w+ "{re.escape(label)}"[^\n]*\[ref=(\w+)\]', snap)
        assert m, snap
        out = tools.run("web_fill", {"ref": m.group(1), "value": typed})
        assert not out.is_error, out.content
        assert tab.evaluate(f"document.getElementById('{_FIELDS[label]}').value") == value
        if typed != value:
            assert value in out.content  # the model is told what was set
    finally:
        tab.close()


def test_an_unreadable_date_is_refused_with_the_format(browser: Browser,
                                                       site: SiteServer) -> None:
    tab = browser.new_tab(site.url("/actions/dates.html"))
    try:
        tools = WebTools(browser, include=["web_snapshot", "web_fill"])
        snap = tools.call("web_snapshot", {}).content
        ref = re.search(r'"Departure"[^\n]*\[ref=(\w+)\]', snap)
        assert ref, snap
        out = tools.run("web_fill", {"ref": ref.group(1), "value": "sometime soon"})
        assert out.is_error and "2010-05-20" in out.content
        assert "placeholder" not in out.content
        assert tab.evaluate("document.getElementById('dep').value") == ""
    finally:
        tab.close()
