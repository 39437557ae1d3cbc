"""Items 5 and 6: error messages are bounded whatever was passed; a tool called with one bare
value (``tool.invoke("e5")``) takes it as its one required argument, or says clearly why not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from webrefs import Tab, WebTools
from webrefs.adapters.langchain import WebToolkit
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.errors import InvalidArgumentError, WebrefsError

from tests.helpers.server import SiteServer

HUGE = "x" * 10_000_000
LIMIT = 2_000
"""No tool message about a bad argument may be longer than this."""


@pytest.fixture
def page(tab: Tab, site: SiteServer) -> Iterator[Tab]:
    tab.goto(site.url("/hostile/hello.html"))
    tab.snapshot()
    yield tab


def test_a_huge_argument_name_is_not_echoed_whole(page: Tab) -> None:
    tools = WebTools(tab=page)
    out = tools.run("web_click", {"ref": "e1", HUGE: 1})
    assert out.is_error and len(out.content) < LIMIT
    assert "characters left out" in out.content


def test_a_huge_argument_value_and_tool_name_are_elided(page: Tab) -> None:
    tools = WebTools(tab=page)
    for out in (tools.run("web_scroll", {"direction": HUGE}), tools.run(HUGE, {}),
                tools.run("web_navigate", {"url": "http://" + HUGE})):
        assert out.is_error and len(out.content) < LIMIT, out.content[:200]


def test_langchain_validation_messages_are_bounded(page: Tab) -> None:
    tools = {t.name: t for t in WebToolkit.from_tab(page).get_tools()}
    message = tools["web_click"].invoke({"ref": "e1", HUGE: 1})
    assert isinstance(message, str) and len(message) < LIMIT


def test_every_error_message_is_capped() -> None:
    err = WebrefsError(HUGE, hint=HUGE)
    assert len(str(err)) < LIMIT and len(err.for_model()) < LIMIT


def test_langchain_tool_takes_one_bare_value(page: Tab) -> None:
    tools = {t.name: t for t in WebToolkit.from_tab(page).get_tools()}
    content = tools["web_click"].invoke("e1")
    assert "Say hello" in content
    scrolled = tools["web_scroll"].invoke("down")
    assert "scroll" in scrolled.lower()


def test_langchain_tool_with_two_required_arguments_explains(page: Tab) -> None:
    tools = {t.name: t for t in WebToolkit.from_tab(page).get_tools()}
    message = tools["web_fill"].invoke("e1")
    assert isinstance(message, str) and "value" in message and "required" in message


async def test_langchain_async_tool_takes_one_bare_value(page: Tab) -> None:
    tools = {t.name: t for t in WebToolkit.from_tab(page).get_tools()}
    content = await tools["web_click"].ainvoke("e1")
    assert "Say hello" in content


def test_llamaindex_tool_takes_one_bare_value(page: Tab) -> None:
    tools = {t.metadata.get_name(): t for t in WebToolSpec.from_tab(page).to_tool_list()}
    out: Any = tools["web_click"].call("e1")
    assert not out.is_error and "Say hello" in out.content
    bad: Any = tools["web_fill"].call("e1")
    assert bad.is_error and "needs 2 arguments" in bad.content


def test_the_registry_maps_a_bare_value_or_refuses(page: Tab) -> None:
    tools = WebTools(tab=page, tools=["web_click", "web_fill", "web_get_text"])
    assert "Say hello" in tools.call("web_click", "e1").content
    assert "Hello there" in tools.call("web_get_text", {}).content
    assert "ref" in WebTools(tab=page).spec("web_get_text").single_argument("e1")
    with pytest.raises(InvalidArgumentError, match="needs 2 arguments"):
        tools.call("web_fill", "e1")
