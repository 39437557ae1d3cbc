"""The adapters hand tool selection (tools / include / exclude) to the registry unchanged."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from webrefs.adapters.langchain import WebToolkit
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.tools import CORE_TOOLS, DEFAULT_TOOLS

from tests.helpers.faketab import FakeTab


@pytest.fixture
def fake() -> Iterator[FakeTab]:
    tab = FakeTab()
    yield tab
    tab.stop()


def test_langchain_tools_include_exclude(fake: FakeTab) -> None:
    def names(**options: object) -> list[str]:
        return [t.name for t in WebToolkit.from_tab(fake, **options).get_tools()]

    assert names(include=["web_hover"]) == [*DEFAULT_TOOLS, "web_hover"]
    assert names(tools=["web_click", "web_snapshot"]) == ["web_snapshot", "web_click"]
    assert names(tools="core", include=["web_upload"], exclude=["web_scroll"]) == [
        n for n in CORE_TOOLS if n != "web_scroll"
    ] + ["web_upload"]


def test_llamaindex_tools_include_exclude(fake: FakeTab) -> None:
    def names(**options: object) -> list[str]:
        spec = WebToolSpec.from_tab(fake, **options)
        return [t.metadata.get_name() for t in spec.to_tool_list()]

    assert names(include=["web_hover"]) == [*DEFAULT_TOOLS, "web_hover"]
    assert names(tools=("web_click",)) == ["web_click"]
    assert names(tools="all", exclude=["optional"]) == list(DEFAULT_TOOLS)
