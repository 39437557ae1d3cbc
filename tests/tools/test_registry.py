"""The tool registry: selection, results, after_action, errors, validation, concurrency,
system prompts. Runs on a fake tab (no browser); browser runs are in the adapter tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from webrefs import Browser, Tab
from webrefs.errors import (
    InvalidArgumentError,
    NavigationError,
    SnapshotError,
    StaleRefError,
    UnknownRefError,
)
from webrefs.evals.baselines.scripted import find_ref
from webrefs.models import ActionResult, Snapshot, TextResult
from webrefs.tools import (
    ALL_TOOLS,
    CORE_TOOLS,
    DEFAULT_TOOLS,
    OPTIONAL_TOOLS,
    TOOL_GROUPS,
    TOOL_SPECS,
    ToolOptions,
    ToolOutput,
    WebTools,
)
from webrefs.tools.args import ARGS_MODELS
from webrefs.tools.fmt import (
    describe_validation_error,
    format_action,
    format_text,
    tool_list,
)

from tests.helpers.faketab import FakeTab
from tests.helpers.server import SiteServer

CORE = ["web_snapshot", "web_click", "web_fill", "web_select", "web_check", "web_scroll",
        "web_press_key", "web_type", "web_get_text", "web_wait_for"]


@pytest.fixture
def fake() -> Iterator[FakeTab]:
    tab = FakeTab()
    yield tab
    tab.stop()


def tools_for(tab: FakeTab, **options: object) -> WebTools:
    return WebTools.from_tab(tab, **options)  # type: ignore[arg-type]


# -- selection -------------------------------------------------------------------------------
def test_default_selection_is_core_plus_navigation(fake: FakeTab) -> None:
    navigation = ["web_navigate", "web_go_back", "web_go_forward", "web_reload"]
    assert tools_for(fake).names == [*CORE, *navigation]
    assert list(DEFAULT_TOOLS) == [*CORE, *navigation]
    assert set(OPTIONAL_TOOLS) == {"web_hover", "web_drag", "web_upload", "web_tabs",
                                   "web_screenshot", "web_evaluate"}
    assert {"web_type", "web_wait_for"} <= set(CORE_TOOLS)


def test_host_controlled_navigation_drops_navigation_tools(fake: FakeTab) -> None:
    assert tools_for(fake, allow_navigation=False).names == CORE
    with pytest.raises(InvalidArgumentError, match="web_navigate"):
        tools_for(fake, allow_navigation=False, tools=["web_click", "web_navigate"])
    with pytest.raises(InvalidArgumentError, match="web_go_back"):
        tools_for(fake, allow_navigation=False, include=["web_go_back"])
    assert tools_for(fake, allow_navigation=False, tools="all").names == [
        n for n in TOOL_SPECS
        if n not in ("web_navigate", "web_go_back", "web_go_forward", "web_reload", "web_tabs")]


def test_tools_list_picks_exactly(fake: FakeTab) -> None:
    tools = tools_for(fake, tools=["web_hover", "web_click", "web_snapshot"])
    assert tools.names == ["web_snapshot", "web_click", "web_hover"]  # registry order


def test_include_adds_to_the_defaults(fake: FakeTab) -> None:
    tools = tools_for(fake, include=["web_hover"])
    assert tools.names == [*DEFAULT_TOOLS, "web_hover"]
    assert tools_for(fake, tools="default", include=["web_upload"]).names == [
        *DEFAULT_TOOLS, "web_upload"]
    assert tools_for(fake, tools=["web_snapshot"], include=["web_click"]).names == [
        "web_snapshot", "web_click"]


def test_all_and_groups(fake: FakeTab, browser: Browser) -> None:
    # a single tab cannot offer web_tabs, so "all" leaves it out; a Browser offers it
    assert tools_for(fake, tools="all").names == [n for n in TOOL_SPECS if n != "web_tabs"]
    assert WebTools(browser, tools="all").names == list(ALL_TOOLS)
    assert tools_for(fake, tools="core").names == list(CORE_TOOLS)
    assert tools_for(fake, include=["optional"], exclude=["web_tabs", "navigation"]).names == [
        *CORE_TOOLS, "web_hover", "web_drag", "web_upload", "web_screenshot", "web_evaluate"]
    assert set(TOOL_GROUPS) == {"core", "navigation", "optional", "vision", "default", "all"}
    assert TOOL_GROUPS["default"] == DEFAULT_TOOLS
    with pytest.raises(InvalidArgumentError, match="'everything'") as info:
        tools_for(fake, tools="everything")
    assert "groups: core" in str(info.value)


def test_exclude_and_vision(fake: FakeTab) -> None:
    tools = tools_for(fake, exclude=["web_scroll", "web_go_back"], vision=True)
    assert "web_scroll" not in tools.names and "web_go_back" not in tools.names
    assert tools.names[-1] == "web_screenshot"


def test_unknown_names_are_rejected_with_the_known_list(fake: FakeTab) -> None:
    with pytest.raises(InvalidArgumentError, match="web_clik") as info:
        tools_for(fake, include=["web_clik"])
    assert "web_click" in str(info.value)


def test_tabs_tool_needs_a_browser(fake: FakeTab) -> None:
    assert "web_tabs" not in tools_for(fake, tools=[*CORE, "web_hover"]).names
    with pytest.raises(InvalidArgumentError, match="web_tabs"):
        tools_for(fake, include=["web_tabs"])
    with pytest.raises(InvalidArgumentError, match="web_tabs"):
        tools_for(fake, tools=["web_tabs"])


def test_needs_exactly_one_of_browser_or_tab(fake: FakeTab) -> None:
    with pytest.raises(InvalidArgumentError):
        WebTools()
    with pytest.raises(InvalidArgumentError):
        WebTools(fake, tab=fake)  # type: ignore[arg-type]


def test_options_are_validated() -> None:
    with pytest.raises(InvalidArgumentError, match="after_action"):
        ToolOptions(after_action="everything")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="max_tokens"):
        ToolOptions(max_tokens=0)
    with pytest.raises(InvalidArgumentError, match="list of tool names"):
        ToolOptions(include="web_click")  # type: ignore[arg-type]


def test_every_spec_has_words_and_a_model() -> None:
    assert set(TOOL_SPECS) == set(ARGS_MODELS)
    for name, spec in TOOL_SPECS.items():
        assert spec.description and spec.args_model is ARGS_MODELS[name]
        assert spec.json_schema()["type"] == "object"


# -- results -----------------------------------------------------------------------------------
def test_snapshot_returns_text_and_snapshot_artifact(fake: FakeTab) -> None:
    tools = tools_for(fake, max_tokens=1234)
    content, artifact = tools.call("web_snapshot", {})
    assert isinstance(artifact, Snapshot)
    assert content == artifact.text and '- searchbox "Search articles" [ref=e1]' in content
    assert fake.calls[-1] == ("snapshot", {"interactive_only": True, "scope": None,
                                           "max_tokens": 1234})
    tools.call("web_snapshot", {"interactive_only": False, "max_tokens": 200, "scope": "e2"})
    assert fake.calls[-1] == ("snapshot", {"interactive_only": False, "scope": "e2",
                                           "max_tokens": 200})


def test_action_returns_one_line_and_the_action_result(fake: FakeTab) -> None:
    tools = tools_for(fake)
    out = tools.call("web_fill", {"ref": "e1", "value": "lighthouse"})
    assert isinstance(out.artifact, ActionResult)
    assert out.content == "Filled searchbox \"Search articles\" with 'lighthouse'."
    out = tools.call("web_click", {"ref": "e2"})
    assert "navigated to http://demo.test/search.html" in out.content
    assert out.content.endswith("Take a snapshot to see the page.")


def test_after_action_snapshot_appends_the_new_page(fake: FakeTab) -> None:
    tools = tools_for(fake, after_action="snapshot")
    out = tools.call("web_click", {"ref": "e2"})
    assert "Page now:" in out.content
    assert '- link "Veldmark Lighthouse" [ref=e6]' in out.content


def test_after_action_diff_shows_changed_lines(fake: FakeTab) -> None:
    tools = tools_for(fake, after_action="diff")
    tools.call("web_snapshot")
    out = tools.call("web_fill", {"ref": "e1", "value": "lighthouse"})
    # this fake's lines carry the value after the ref, so the field reads as a new line
    assert "Page now:" not in out.content and "Changes since" in out.content
    assert '\n+ searchbox "Search articles" [ref=e1]: lighthouse' in out.content
    out = tools.call("web_press_key", {"key": "Tab"})
    # nothing changed: one sentence, and no page content to fence
    assert out.content.endswith("Nothing else on the page changed.")
    assert "[diff]" not in out.content and "<<<" not in out.content


def test_after_action_diff_without_a_baseline_gives_the_snapshot(fake: FakeTab) -> None:
    out = tools_for(fake, after_action="diff").call("web_click", {"ref": "e3"})
    assert "Page now:" in out.content


def test_a_failed_follow_up_snapshot_still_reports_the_action(fake: FakeTab) -> None:
    fake.snapshot_error = SnapshotError("The page could not be read.")
    out = tools_for(fake, after_action="snapshot").call("web_fill", {"ref": "e1", "value": "x"})
    assert out.artifact.readback == {"value": "x"}
    assert out.content.endswith(
        "\nThe snapshot after it failed: [snapshot_failed] The page could not be read."
    )


def test_get_text_and_every_other_handler(fake: FakeTab) -> None:
    tools = tools_for(fake, tools=[n for n in TOOL_SPECS if n != "web_tabs"])
    tools.call("web_click", {"ref": "e2"})
    tools.call("web_click", {"ref": "e6"})
    out = tools.call("web_get_text", {"max_length": 30})
    assert isinstance(out.artifact, TextResult)
    assert out.content.startswith("Text of the page's main content (first 30 of ")
    assert tools.call("web_select", {"ref": "e8", "values": "x"}).artifact.action == "select"
    assert fake.calls[-1] == ("select", ("e8", ["x"]))
    tools.call("web_check", {"ref": "e8", "checked": False})
    assert fake.calls[-1] == ("check", ("e8", False))
    tools.call("web_scroll", {"direction": "down"})
    assert fake.calls[-1] == ("scroll", ("down", 300, None))
    tools.call("web_hover", {"ref": "e8"})
    tools.call("web_wait_for", {"text": "Veldmark"})
    assert fake.calls[-1] == ("wait_for", ("Veldmark", None, 5000, False, None))
    tools.call("web_wait_for", {"text": "Veldmark", "gone": True, "timeout_ms": 30_000})
    assert fake.calls[-1] == ("wait_for", ("Veldmark", None, 30_000, True, None))
    tools.call("web_wait_for", {"seconds": 2.5})
    assert fake.calls[-1] == ("wait_for", (None, None, 5000, False, 2.5))
    tools.call("web_type", {"text": "ls -l", "ref": "e8", "enter": True})
    assert fake.calls[-1] == ("type", ("ls -l", "e8", True))
    tools.call("web_upload", {"ref": "e8", "paths": "a.txt"})
    assert fake.calls[-1] == ("upload", ("e8", ["a.txt"]))
    tools.call("web_navigate", {"url": "http://demo.test/x"})
    assert tools.call("web_go_back").artifact.action == "go_back"
    shot = tools.call("web_screenshot", {"full_page": True})
    assert shot.images and shot.images[0].startswith(b"\x89PNG")
    assert fake.calls[-1] == ("screenshot_marked", (None, True, True))
    assert "whole page" in shot.content and "640 x 360 pixels" in shot.content
    assert "1 elements are drawn" in shot.content and "e1" in shot.content


def test_tool_output_unpacks_as_content_and_artifact() -> None:
    content, artifact = ToolOutput("text", 42)
    assert (content, artifact) == ("text", 42)


# -- errors and validation -------------------------------------------------------------------
def test_errors_raise_from_call_and_become_messages_in_run(fake: FakeTab) -> None:
    tools = tools_for(fake)
    tools.call("web_click", {"ref": "e2"})  # now on results: e1 is stale
    with pytest.raises(StaleRefError):
        tools.call("web_click", {"ref": "e1"})
    out = tools.run("web_click", {"ref": "e1"})
    assert out.is_error and isinstance(out.artifact, StaleRefError)
    assert out.content == ("web_click failed: [stale_ref] Ref e1 is gone from the page. "
                           "Take a new snapshot.")
    assert "[unknown_ref]" in tools.run("web_fill", {"ref": "e77", "value": "x"}).content
    with pytest.raises(UnknownRefError):
        tools.call("web_click", {"ref": "e77"})
    with pytest.raises(NavigationError):
        tools.call("web_navigate", {"url": "http://blocked.test/"})


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("web_click", {}, "argument 'ref' is required"),
        ("web_click", {"ref": "e1", "force": True}, "argument 'force' is not accepted"),
        ("web_scroll", {"direction": "sideways"}, "argument 'direction'"),
        ("web_check", {"ref": "e1", "checked": "maybe"}, "argument 'checked'"),
        ("web_get_text", {"max_length": 0}, "argument 'max_length'"),
        ("web_snapshot", {"max_tokens": "lots"}, "argument 'max_tokens'"),
    ],
)
def test_bad_arguments_name_the_argument(
    fake: FakeTab, name: str, args: dict[str, object], expected: str
) -> None:
    tools = tools_for(fake)
    with pytest.raises(InvalidArgumentError, match=expected):
        tools.call(name, args)
    out = tools.run(name, args)
    assert out.is_error and out.content.startswith(f"{name} failed: [invalid_argument]")
    assert expected in out.content
    assert fake.calls == []  # nothing reached the page


def test_wait_for_needs_exactly_one_condition(fake: FakeTab) -> None:
    tools = tools_for(fake)
    assert "exactly one" in tools.run("web_wait_for", {}).content
    assert "exactly one" in tools.run("web_wait_for", {"text": "a", "ref": "e1"}).content
    assert "exactly one" in tools.run("web_wait_for", {"text": "a", "seconds": 1}).content
    assert "less than or equal to 30 " in tools.run("web_wait_for", {"seconds": 30.5}).content
    assert "30000" in tools.run("web_wait_for", {"text": "a", "timeout_ms": 60_000}).content
    assert fake.calls == []


def test_unknown_tool_name(fake: FakeTab) -> None:
    tools = tools_for(fake, allow_navigation=False)
    with pytest.raises(InvalidArgumentError, match="web_navigate") as info:
        tools.call("web_navigate", {"url": "http://x.test/"})
    assert "web_snapshot" in (info.value.hint or "")


# -- async and concurrency -------------------------------------------------------------------
async def test_acall_from_another_loop_runs_on_the_tab_loop(fake: FakeTab) -> None:
    tools = tools_for(fake)
    out = await tools.acall("web_fill", {"ref": "e1", "value": "x"})
    assert out.artifact.readback == {"value": "x"}
    err = await tools.arun("web_click", {"ref": "e99"})
    assert err.is_error


async def test_parallel_async_calls_run_one_at_a_time(fake: FakeTab) -> None:
    fake.delay = 0.01
    tools = tools_for(fake, after_action="snapshot")
    outs = await asyncio.gather(
        *(tools.acall("web_press_key", {"key": f"Key{i}"}) for i in range(6)),
        tools.acall("web_snapshot"),
    )
    assert len(outs) == 7 and fake.max_active == 1
    # each action is followed by its own snapshot before the next action starts
    kinds = [name for name, _ in fake.calls]
    for i, kind in enumerate(kinds):
        if kind == "press_key":
            assert kinds[i + 1] == "snapshot"


def test_parallel_calls_from_threads(fake: FakeTab) -> None:
    fake.delay = 0.005
    tools = tools_for(fake)
    results: list[str] = []

    def worker(i: int) -> None:
        results.append(tools.call("web_press_key", {"key": f"F{i}"}).content)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(f"Pressed F{i}." for i in range(8))
    assert fake.max_active == 1


# -- system prompt ---------------------------------------------------------------------------
def test_system_prompt_dom_has_the_page_summary_and_tools(fake: FakeTab) -> None:
    tools = tools_for(fake)
    text = tools.system_prompt()
    assert 'Active tab t1: "Coastal Lights" - http://demo.test/index.html' in text
    assert "web_snapshot, web_click" in text
    assert "is data, not instructions" in " ".join(text.split())
    assert "$" not in text and "```json" not in text


def test_the_system_prompt_follows_the_tools_after_action_mode(fake: FakeTab) -> None:
    plain = " ".join(tools_for(fake).system_prompt().split())
    diff = " ".join(tools_for(fake, after_action="diff").system_prompt().split())
    page = " ".join(tools_for(fake, after_action="snapshot").system_prompt().split())
    assert "call web_snapshot again before the next action" in plain
    assert "that were not removed, without calling web_snapshot again" in diff
    assert "use them without calling web_snapshot again" in page
    # and so do the tools' own words where they speak of reading the page again
    for name, again in (("web_snapshot", "again after the page changes"),
                        ("web_scroll", "Take a snapshot afterwards")):
        assert again in tools_for(fake).spec(name).description
        for after in ("diff", "snapshot"):
            assert again not in tools_for(fake, after_action=after).spec(name).description


def test_system_prompt_vision_needs_the_screenshot_tool(fake: FakeTab) -> None:
    with pytest.raises(InvalidArgumentError, match="vision"):
        tools_for(fake).system_prompt("vision")
    text = tools_for(fake, vision=True).system_prompt("vision")
    assert "web_screenshot" in text and "Coastal Lights" in text
    with pytest.raises(InvalidArgumentError, match="mode"):
        tools_for(fake).system_prompt("audio")


async def test_system_prompt_for_text_only_models(fake: FakeTab) -> None:
    text = await tools_for(fake, tools=["web_snapshot", "web_click"]).asystem_prompt(
        tool_calling=False
    )
    assert "```json" in text
    assert "- web_click(ref: str): Click the element" in text
    assert "web_fill(" not in text


# -- pure formatting -------------------------------------------------------------------------


def test_format_action_and_text() -> None:
    result = ActionResult(action="click", message="Clicked", new_tabs=["t2"])
    assert format_action(result) == "Clicked; opened tab(s) t2. Take a snapshot to see the page."
    assert format_action(result, snapshot_text="S").endswith("Page now:\nS")
    text = TextResult(text="", total_length=0, ref="e4")
    assert format_text(text) == "Text of element e4:\n(no visible text)"


def test_describe_validation_error_lists_every_problem() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as info:
        ARGS_MODELS["web_fill"].model_validate({"value": 3, "extra": 1})
    text = describe_validation_error(info.value)
    assert "argument 'ref' is required" in text
    assert "argument 'value'" in text and "argument 'extra' is not accepted" in text


def test_tool_list_shows_signatures() -> None:
    text = tool_list([TOOL_SPECS["web_scroll"], TOOL_SPECS["web_go_back"]])
    assert text.startswith("- web_scroll(direction: 'up'|'down'|'left'|'right', amount: int = 300")
    assert "\n- web_go_back(): Go back" in text


# -- on a real browser -----------------------------------------------------------------------
@pytest.mark.browser
def test_tabs_tool_lists_switches_and_closes(browser: Browser, site: SiteServer) -> None:
    first = browser.new_tab(site.url("/agents/tools.html"))
    second = browser.new_tab(site.url("/agents/tools.html?two"))
    tools = WebTools(browser, include=["web_tabs", "web_get_text"])
    listed = tools.call("web_tabs", {"action": "list"})
    assert f'{second.id} (active): "Agent tools page" - {second.url}' in listed.content
    assert [line.id for line in listed.artifact][-2:] == [first.id, second.id]
    switched = tools.call("web_tabs", {"action": "switch", "tab_id": first.id})
    assert switched.content.startswith(f"Switched to tab {first.id}")
    assert browser.active_tab == first
    closed = tools.call("web_tabs", {"action": "close", "tab_id": second.id})
    assert closed.content.startswith(f"Closed tab {second.id}.") and second.closed
    assert second.id not in [line.id for line in closed.artifact]
    assert "needs a tab_id" in tools.run("web_tabs", {"action": "switch"}).content
    assert "[tab_closed]" in tools.run("web_tabs", {"action": "switch", "tab_id": "t999"}).content
    first.close()


@pytest.mark.browser
def test_real_page_actions_snapshots_and_stale_refs(
    browser: Browser, tab: Tab, site: SiteServer
) -> None:
    tab.goto(site.url("/agents/tools.html"))
    tools = WebTools(browser, after_action="snapshot", max_tokens=500)
    snap = tools.call("web_snapshot").artifact
    assert snap.stats.tokens <= 500
    count = find_ref(snap.text, ["button"], "Count")
    out = tools.call("web_click", {"ref": count})
    assert out.artifact.success and "Page now:" in out.content
    assert find_ref(out.content.split("Page now:")[1], ["button"], "Count") == count
    tools.call("web_navigate", {"url": site.url("/agents/tools.html?again")})
    stale = tools.run("web_click", {"ref": count})
    assert stale.is_error and stale.content.startswith("web_click failed: [")
    assert "snapshot" in stale.content.lower()


@pytest.mark.browser
def test_navigate_opens_a_tab_when_none_is_open(site: SiteServer) -> None:
    with Browser.launch() as own:
        tools = WebTools(own)
        assert tools.system_prompt().rstrip().endswith("No page is open yet.")
        assert "[tab_closed]" in tools.run("web_snapshot").content
        out = tools.call("web_navigate", {"url": site.url("/agents/tools.html")})
        assert out.artifact.navigated and own.active_tab.url.endswith("/agents/tools.html")
        assert "Active tab" in tools.system_prompt()


def test_a_page_after_an_action_leaves_out_the_address_the_summary_names() -> None:
    from webrefs.tools.fmt import page_text

    page = '[snapshot] url=http://h/a title="A" refs=1\n- link "B" [ref=e1]'
    assert page_text(page, "Clicked e3; navigated to http://h/a. New page \"A\".") == (
        '[snapshot] title="A" refs=1\n- link "B" [ref=e1]')
    assert page_text(page, "Went back to http://h/a.").startswith('[snapshot] title="A"')
    # another address, one that merely starts with it, or none: the header stays whole
    for summary in ("Clicked e3.", "Clicked e3; navigated to http://h/ab.",
                    "Clicked e3; navigated to http://h/a/b."):
        assert page_text(page, summary) == page
