"""alert, confirm, prompt and beforeunload never block; they are reported with their text."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.actions import opened, ref, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def dialogs(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/dialogs.html"))


def out(tab: Tab) -> str:
    return text_of(tab, "out")


def test_alert_is_dismissed_and_reported(dialogs: Tab) -> None:
    r = dialogs.click(ref(dialogs, "button", "Alert"))
    assert [(d.type, d.message, d.handled) for d in r.dialogs] == [("alert", "Saved!", "dismissed")]
    assert out(dialogs) == "after alert"
    assert "alert dialog dismissed" in r.summary()


def test_confirm_is_dismissed_by_default(dialogs: Tab) -> None:
    r = dialogs.click(ref(dialogs, "button", "Confirm"))
    assert r.dialogs[0].type == "confirm" and r.dialogs[0].message == "Delete it?"
    assert out(dialogs) == "confirm=false"


def test_accept_option_accepts_and_answers_prompts(dialogs: Tab) -> None:
    dialogs.configure(dialogs="accept", prompt_text="Ada")
    r = dialogs.click(ref(dialogs, "button", "Confirm"))
    assert r.dialogs[0].handled == "accepted" and out(dialogs) == "confirm=true"
    r = dialogs.click(ref(dialogs, "button", "Prompt"))
    assert r.dialogs[0].type == "prompt" and r.dialogs[0].answer == "Ada"
    assert out(dialogs) == "prompt=Ada"


def test_prompt_dismissed_returns_null(dialogs: Tab) -> None:
    r = dialogs.click(ref(dialogs, "button", "Prompt"))
    assert r.dialogs[0].message == "Your name?"
    assert out(dialogs) == "prompt=null"


def test_dialog_storm_is_bounded(dialogs: Tab) -> None:
    # every dialog is answered at once; the report keeps at most max_dialogs of them
    dialogs.configure(action_timeout_ms=30_000)
    r = dialogs.click(ref(dialogs, "button", "Storm"))
    assert out(dialogs) == "storm over"
    assert len(r.dialogs) == dialogs.options.max_dialogs
    assert "dialog storm: 40 dialogs" in r.message


def test_beforeunload_from_a_script_is_dismissed_and_keeps_the_page(dialogs: Tab) -> None:
    dialogs.click(ref(dialogs, "button", "Guard"))  # also gives the page a user gesture
    r = dialogs.click(ref(dialogs, "button", "Leave by script"))
    assert [(d.type, d.handled) for d in r.dialogs] == [("beforeunload", "dismissed")]
    assert not r.navigated and r.url_after.endswith("/actions/dialogs.html")
    assert "answered no, so the tab stayed" in r.message


def test_a_followed_link_leaves_a_guarded_page(dialogs: Tab) -> None:
    dialogs.click(ref(dialogs, "button", "Guard"))
    r = dialogs.click(ref(dialogs, "link", "Leave"))
    assert [(d.type, d.handled) for d in r.dialogs] == [("beforeunload", "accepted")]
    assert r.navigated and r.url_after.endswith("/actions/target.html")
    assert "leaving was confirmed" in r.message


def test_beforeunload_on_goto_is_accepted_and_reported(dialogs: Tab, site) -> None:  # type: ignore[no-untyped-def]
    dialogs.click(ref(dialogs, "button", "Guard"))
    assert dialogs.options.dialogs == "dismiss"  # the agent asked to leave: accepted anyway
    r = dialogs.goto(site.url("/actions/target.html"))
    assert r.navigated and [(d.type, d.handled) for d in r.dialogs] == [
        ("beforeunload", "accepted")]
    assert "the page asked to confirm leaving it, and leaving was confirmed" in r.message
