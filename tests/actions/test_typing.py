"""web_type (real key events where there is no text field) and web_wait_for (bounded waits on
purpose), through the tools, on pages on 127.0.0.1."""

from __future__ import annotations

import time

import pytest
from webrefs import Tab, WebTools
from webrefs.errors import InvalidArgumentError
from webrefs.tools import DEFAULT_TOOLS

from tests.helpers.actions import ref, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def keys(tab: Tab, site) -> WebTools:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/keys.html"))
    tools = WebTools.from_tab(tab)
    tools.call("web_snapshot", {})
    return tools


def _ref(tools: WebTools, role: str, name: str) -> str:
    return ref(tools.current_tab(), role, name)


def test_web_type_runs_a_command_in_a_terminal_in_one_call(keys: WebTools) -> None:
    assert "web_type" in DEFAULT_TOOLS and "web_type" in keys.names
    out = keys.run("web_type", {"text": "rm trace.gif", "enter": True})
    assert not out.is_error, out.content
    tab = keys.current_tab()
    assert text_of(tab, "out") == "removed trace.gif"
    assert 'Typed "rm trace.gif", then pressed Enter.' in out.content
    assert out.artifact.action == "type" and out.artifact.mutations > 0  # what changed


def test_web_type_into_a_contenteditable_editor(keys: WebTools) -> None:
    editor = _ref(keys, "textbox", "Notes editor")
    out = keys.run("web_type", {"ref": editor, "text": "Hello, world"})
    assert not out.is_error, out.content
    assert text_of(keys.current_tab(), "editor") == "Hello, world"
    assert f'Typed "Hello, world" into {editor}' in out.content
    assert text_of(keys.current_tab(), "line") == ""  # the document's listener got nothing


def test_web_type_into_a_custom_widget_by_ref(keys: WebTools) -> None:
    pad = _ref(keys, "application", "Key pad")
    out = keys.run("web_type", {"ref": pad, "text": "abc", "enter": True})
    assert not out.is_error, out.content
    assert text_of(keys.current_tab(), "padout") == "pad: abc [enter]"


def test_web_fill_on_a_non_field_names_web_type(keys: WebTools) -> None:
    pad = _ref(keys, "application", "Key pad")
    out = keys.run("web_fill", {"ref": pad, "value": "abc"})
    assert out.is_error and "not a text field" in out.content
    assert "web_type" in out.content
    assert text_of(keys.current_tab(), "padout") == "pad: "


def test_web_type_refuses_a_secret_without_a_ref(keys: WebTools) -> None:
    out = keys.run("web_type", {"text": "<secret>pw</secret>", "enter": True})
    assert out.is_error and "only into the element of a ref" in out.content
    assert text_of(keys.current_tab(), "line") == ""


def test_web_wait_for_is_default_and_says_what_it_saw(keys: WebTools) -> None:
    assert "web_wait_for" in DEFAULT_TOOLS and "web_wait_for" in keys.names
    out = keys.run("web_wait_for", {"text": "3 items"})
    assert not out.is_error, out.content
    assert "'3 items' is on the page, in the line \"Loaded 3 items\"" in out.content
    out = keys.run("web_wait_for", {"text": "Loading items", "gone": True})
    assert not out.is_error and "'Loading items' is no longer on the page" in out.content
    started = time.monotonic()
    out = keys.run("web_wait_for", {"seconds": 0.5})
    assert not out.is_error and "Waited 0.5 s." in out.content
    assert time.monotonic() - started >= 0.5
    out = keys.run("web_wait_for", {"text": "never shown here", "timeout_ms": 300})
    assert out.is_error and "action_timeout" in out.content and "to appear" in out.content


@pytest.mark.parametrize(("args", "says"), [
    ({"seconds": 31}, "'seconds': Input should be less than or equal to 30 "),
    ({"seconds": 0}, "'seconds': Input should be greater than 0"),
    ({"text": "a", "timeout_ms": 30_001},
     "'timeout_ms': Input should be less than or equal to 30000"),
    ({"text": "a", "seconds": 1}, "exactly one of 'text', 'ref' or 'seconds'"),
    ({}, "exactly one of 'text', 'ref' or 'seconds'"),
    ({"seconds": 1, "gone": True}, "'gone' goes with 'text' or 'ref'"),
])
def test_web_wait_for_bounds(keys: WebTools, args: dict[str, object], says: str) -> None:
    started = time.monotonic()
    out = keys.run("web_wait_for", args)
    assert out.is_error and "invalid_argument" in out.content and says in out.content
    assert time.monotonic() - started < 2


def test_wait_for_seconds_bounded_on_the_tab(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/keys.html"))
    started = time.monotonic()
    for bad in (45, 0, -1, float("nan")):
        with pytest.raises(InvalidArgumentError, match="at most 30"):
            tab.wait_for(seconds=bad)
    assert time.monotonic() - started < 2
