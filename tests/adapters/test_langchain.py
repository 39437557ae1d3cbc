"""webrefs.adapters.langchain: WebToolkit, its BaseTools, langchain_tests' standard tool tests
for every tool (sync and async, on a local page), and a real agent graph with a scripted model.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests
from webrefs import Browser, SafetyPolicy, Snapshot, Tab
from webrefs.adapters.langchain import WebTool, WebToolkit
from webrefs.evals.baselines.langchain_scripted import ScriptedChatModel
from webrefs.evals.demo import demo_site, load_demo_task
from webrefs.models import ActionResult
from webrefs.tools import CORE_TOOLS, TOOL_SPECS

from tests.helpers.faketab import FakeTab
from tests.helpers.server import SiteServer

ALL_TOOLS = list(TOOL_SPECS)


@pytest.fixture
def fake() -> Iterator[FakeTab]:
    tab = FakeTab()
    yield tab
    tab.stop()


def call(tool: BaseTool, args: dict[str, Any], call_id: str = "c1") -> ToolMessage:
    message = tool.invoke({"type": "tool_call", "name": tool.name, "id": call_id, "args": args})
    assert isinstance(message, ToolMessage)
    return message


# -- the toolkit and its tools (fake tab) ----------------------------------------------------
def test_get_tools_are_native_sync_and_async_base_tools(fake: FakeTab) -> None:
    toolkit = WebToolkit.from_tab(fake, tools=["web_snapshot", "web_click", "web_hover"])
    tools = toolkit.get_tools()
    assert [t.name for t in tools] == ["web_snapshot", "web_click", "web_hover"]
    for tool in tools:
        assert isinstance(tool, WebTool)
        assert tool.args_schema is TOOL_SPECS[tool.name].args_model
        assert tool.description == TOOL_SPECS[tool.name].description
        assert tool.response_format == "content_and_artifact"
        assert type(tool)._run is not BaseTool._run and type(tool)._arun is not BaseTool._arun


def test_toolkit_options_reach_the_registry(fake: FakeTab) -> None:
    toolkit = WebToolkit.from_tab(fake, max_tokens=800, exclude=["web_scroll"],
                                  after_action="snapshot", allow_navigation=False)
    assert toolkit.webtools.options.max_tokens == 800
    assert [t.name for t in toolkit.get_tools()] == [
        n for n in CORE_TOOLS if n != "web_scroll"
    ]
    click = next(t for t in toolkit.get_tools() if t.name == "web_click")
    assert "Page now:" in call(click, {"ref": "e2"}).content


def test_tool_call_gives_content_and_artifact(fake: FakeTab) -> None:
    snapshot, click = WebToolkit.from_tab(fake, tools=["web_snapshot", "web_click"]).get_tools()
    message = call(snapshot, {})
    assert message.status == "success" and isinstance(message.artifact, Snapshot)
    assert message.content == message.artifact.text
    message = call(click, {"ref": "e2"})
    assert isinstance(message.artifact, ActionResult) and message.artifact.navigated


def test_errors_become_tool_messages(fake: FakeTab) -> None:
    click, navigate = WebToolkit.from_tab(fake, tools=["web_click", "web_navigate"]).get_tools()
    call(click, {"ref": "e2"})
    stale = call(click, {"ref": "e1"})
    assert stale.status == "error"
    assert stale.content == ("web_click failed: [stale_ref] Ref e1 is gone from the page. "
                             "Take a new snapshot.")
    blocked = call(navigate, {"url": "http://blocked.test/"})
    assert blocked.status == "error" and "[navigation_failed]" in blocked.content


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "argument 'ref' is required"),
        ({"ref": "e1", "value": 3}, "argument 'value'"),
        ({"ref": "e1", "value": "x", "submit": True}, "argument 'submit' is not accepted"),
    ],
)
def test_malformed_arguments_name_the_argument(
    fake: FakeTab, args: dict[str, Any], expected: str
) -> None:
    (fill,) = WebToolkit.from_tab(fake, tools=["web_fill"]).get_tools()
    message = call(fill, args)
    assert message.status == "error"
    assert message.content.startswith("web_fill failed: [invalid_argument] Invalid arguments:")
    assert expected in message.content
    assert fake.calls == []


async def test_async_invoke_is_native(fake: FakeTab) -> None:
    (fill,) = WebToolkit.from_tab(fake, tools=["web_fill"]).get_tools()
    message = await fill.ainvoke(
        {"type": "tool_call", "name": "web_fill", "id": "a1", "args": {"ref": "e1", "value": "x"}}
    )
    assert message.artifact.readback == {"value": "x"}
    bad = await fill.ainvoke(
        {"type": "tool_call", "name": "web_fill", "id": "a2", "args": {"ref": "e9", "value": "x"}}
    )
    assert bad.status == "error" and "[unknown_ref]" in bad.content


def test_screenshot_content_carries_an_image_block(fake: FakeTab) -> None:
    (shot,) = WebToolkit.from_tab(fake, tools=[], vision=True).get_tools()
    message = call(shot, {})
    assert isinstance(message.content, list)
    assert message.content[1]["type"] == "image" and message.content[1]["mime_type"] == "image/png"
    assert message.artifact.png.startswith(b"\x89PNG")
    assert [m.ref for m in message.artifact.marks] == ["e1"]


def test_vision_without_pillow_names_the_install_command(fake: FakeTab,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=r"pip install 'webrefs\[vision\]'"):
        WebToolkit.from_tab(fake, vision=True)
    WebToolkit.from_tab(fake)  # without the screenshot tool, Pillow is not needed


def test_system_prompt(fake: FakeTab) -> None:
    assert "Coastal Lights" in WebToolkit.from_tab(fake).system_prompt()


def test_import_without_the_extra_names_the_install_command() -> None:
    code = ("import sys; sys.modules['langchain_core'] = None\n"
            "try:\n    import webrefs.adapters.langchain\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert "pip install 'webrefs[langchain]'" in out
    core = subprocess.run(
        [sys.executable, "-c", "import sys, webrefs, webrefs.tools, webrefs.evals.demo;"
         "print(sorted(m for m in sys.modules if m.startswith(('langchain', 'llama_index'))))"],
        capture_output=True, text=True, timeout=60, check=True).stdout
    assert core.strip() == "[]"


# -- agent graph (fake tab: fast, deterministic) -----------------------------------------------
def test_agent_graph_on_the_fake_site(fake: FakeTab) -> None:
    task = load_demo_task()
    toolkit = WebToolkit.from_tab(fake)
    agent = create_agent(ScriptedChatModel(task=task), toolkit.get_tools(),
                         system_prompt=toolkit.system_prompt())
    result = agent.invoke({"messages": [("user", task.goal)]})
    assert result["messages"][-1].content == "Veldmark Lighthouse was built in 1887."
    assert [n for n, _ in fake.calls] == ["snapshot", "fill", "click", "snapshot", "click",
                                          "get_text"]


# -- langchain_tests standard tests, for every tool --------------------------------------------
def _params(name: str, snap: Snapshot | None, site: SiteServer | None, upload: Path | None
            ) -> dict[str, Any]:
    def ref(role: str, label: str) -> str:
        if snap is None:
            return "e1"
        return next(r.ref for r in snap.refs.values() if r.role == role and r.name == label)

    url = site.url("/agents/tools.html") if site else "http://127.0.0.1/agents/tools.html"
    return {
        "web_snapshot": lambda: {"interactive_only": True},
        "web_click": lambda: {"ref": ref("button", "Count")},
        "web_fill": lambda: {"ref": ref("textbox", "Name"), "value": "Ada"},
        "web_select": lambda: {"ref": ref("combobox", "Color"), "values": ["Green"]},
        "web_check": lambda: {"ref": ref("checkbox", "Agree"), "checked": True},
        "web_scroll": lambda: {"direction": "down", "amount": 200},
        "web_press_key": lambda: {"key": "Tab"},
        "web_type": lambda: {"text": "x"},
        "web_get_text": lambda: {"max_length": 500},
        "web_navigate": lambda: {"url": url},
        "web_go_back": lambda: {},
        "web_go_forward": lambda: {},
        "web_reload": lambda: {},
        "web_evaluate": lambda: {"expression": "document.title"},
        "web_hover": lambda: {"ref": ref("button", "Count")},
        "web_drag": lambda: {"ref": ref("button", "Count"), "dx": 0, "dy": 20},
        "web_wait_for": lambda: {"text": "Ready"},
        "web_upload": lambda: {"ref": ref("button", "Attachment"),
                               "paths": [str(upload or "a.txt")]},
        "web_tabs": lambda: {"action": "list"},
        "web_screenshot": lambda: {"full_page": False},
    }[name]()


def _only(browser: Browser, name: str) -> BaseTool:
    """The one tool ``name`` of a toolkit on ``browser``."""
    vision = name == "web_screenshot"
    # uploads and scripts always need consent (the safety policy): these tests give it
    safety = (SafetyPolicy(consent=lambda request: True)
              if name in ("web_upload", "web_evaluate") else None)
    (tool,) = WebToolkit(browser=browser, tools=[] if vision else [name],
                         vision=vision, safety=safety).get_tools()
    assert tool.name == name
    return tool


class _Unit(ToolsUnitTests):
    tool_name = ""

    @pytest.fixture(autouse=True)
    def _build(self, browser: Browser) -> None:
        self._tool = _only(browser, self.tool_name)

    @property
    def tool_constructor(self) -> BaseTool:
        return self._tool

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return _params(self.tool_name, None, None, None)


@pytest.fixture(scope="module")
def tools_tab(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tab]:
    """One tab for all standard integration tests (each test reloads the page)."""
    tab = browser.new_tab()
    tab.configure(upload_roots=(str(tmp_path_factory.getbasetemp()),))
    yield tab
    tab.close()


_NEEDS_REFS = {"web_click", "web_fill", "web_select", "web_check", "web_hover", "web_drag",
               "web_upload"}


class _Integration(ToolsIntegrationTests):
    tool_name = ""

    @pytest.fixture
    def tool(self, browser: Browser, tools_tab: Tab, site: SiteServer, tmp_path: Path
             ) -> BaseTool:
        upload = tmp_path / "note.txt"
        upload.write_text("hello")
        browser.switch_tab(tools_tab)
        tools_tab.goto(site.url("/agents/tools.html"))
        if self.tool_name in ("web_go_back", "web_go_forward"):
            tools_tab.goto(site.url("/agents/tools.html?second"))
        if self.tool_name == "web_go_forward":
            tools_tab.go_back()
        snap = tools_tab.snapshot() if self.tool_name in _NEEDS_REFS else None
        self._example = _params(self.tool_name, snap, site, upload)
        return _only(browser, self.tool_name)

    @property
    def tool_constructor(self) -> BaseTool:
        raise AssertionError("built by the tool fixture")

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return self._example


for _name in ALL_TOOLS:
    _suffix = _name.removeprefix("web_").title().replace("_", "")
    globals()[f"TestUnit{_suffix}"] = type(f"TestUnit{_suffix}", (_Unit,), {"tool_name": _name})
    globals()[f"TestIntegration{_suffix}"] = pytest.mark.browser(
        type(f"TestIntegration{_suffix}", (_Integration,), {"tool_name": _name})
    )


# -- a real agent graph on the bundled demo site -----------------------------------------------
@pytest.fixture(scope="module")
def demo_base() -> Iterator[str]:
    with demo_site() as base:
        yield base


@pytest.mark.browser
def test_agent_graph_solves_the_demo_task(browser: Browser, tab: Tab, demo_base: str) -> None:
    task = load_demo_task()
    tab.goto(demo_base + task.start_url)
    toolkit = WebToolkit(browser=browser)
    model = ScriptedChatModel(task=task)
    agent = create_agent(model, toolkit.get_tools(), system_prompt=toolkit.system_prompt())
    result = agent.invoke({"messages": [("user", task.goal)]})
    messages = result["messages"]
    tool_messages = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.name for m in tool_messages] == [s.tool for s in task.reference_calls]
    assert all(m.status == "success" for m in tool_messages)
    assert messages[-1].content == "Veldmark Lighthouse was built in 1887."
    assert "article-veldmark" in tab.url
    # the model was shown the search box line, and read the article
    assert any('searchbox "Search articles"' in text for turn in model.seen for text in turn)


@pytest.mark.browser
async def test_async_agent_graph_with_diffs(browser: Browser, tab: Tab, demo_base: str) -> None:
    task = load_demo_task()
    await tab.agoto(demo_base + task.start_url)
    toolkit = WebToolkit(browser=browser, after_action="diff", max_tokens=1000)
    agent = create_agent(ScriptedChatModel(task=task), toolkit.get_tools())
    result = await agent.ainvoke({"messages": [("user", task.goal)]})
    assert result["messages"][-1].content == "Veldmark Lighthouse was built in 1887."
    fill = next(m for m in result["messages"]
                if isinstance(m, ToolMessage) and m.name == "web_fill")
    # the field took the value the summary says, and nothing else changed: one sentence
    assert fill.content.endswith("Nothing else on the page changed.")
    # the search's result carried the results page, so the model did not ask for it again
    tools = [m.name for m in result["messages"] if isinstance(m, ToolMessage)]
    assert tools == ["web_snapshot", "web_fill", "web_click", "web_click", "web_get_text"]


class ParallelTurnModel(BaseChatModel):
    """Turn 1: a snapshot. Turn 2: several tool calls at once, refs read from the snapshot.
    Turn 3: a final answer quoting the results."""

    turns: int = 0

    @property
    def _llm_type(self) -> str:
        return "parallel-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ParallelTurnModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        from webrefs.evals.baselines.scripted import find_ref

        self.turns += 1
        if self.turns == 1:
            calls = [("web_snapshot", {})]
        elif self.turns == 2:
            outline = str(messages[-1].content)
            name = find_ref(outline, ["textbox"], "Name")
            agree = find_ref(outline, ["checkbox"], "Agree")
            calls = [("web_fill", {"ref": name, "value": "Grace"}),
                     ("web_check", {"ref": agree}),
                     ("web_get_text", {"max_length": 300}),
                     ("web_click", {"ref": "e999999"}),
                     ("web_fill", {"ref": name}),
                     ("web_snapshot", {})]
        else:
            results = [m for m in messages if isinstance(m, ToolMessage)]
            text = " | ".join(f"{m.name}:{m.status}" for m in results[-6:])
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])
        message = AIMessage(content="", tool_calls=[
            {"name": n, "args": a, "id": f"p{self.turns}_{i}", "type": "tool_call"}
            for i, (n, a) in enumerate(calls)])
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_parallel_tool_calls_in_one_turn(
    browser: Browser, tab: Tab, site: SiteServer, mode: str
) -> None:
    await tab.agoto(site.url("/agents/tools.html"))
    agent = create_agent(ParallelTurnModel(), WebToolkit(browser=browser).get_tools())
    question = {"messages": [("user", "fill the form")]}
    if mode == "sync":
        import asyncio

        result = await asyncio.to_thread(agent.invoke, question)
    else:
        result = await agent.ainvoke(question)
    final = result["messages"][-1].content
    assert final == ("web_fill:success | web_check:success | web_get_text:success | "
                     "web_click:error | web_fill:error | web_snapshot:success")
    errors = [m.content for m in result["messages"]
              if isinstance(m, ToolMessage) and m.status == "error"]
    assert "[unknown_ref]" in errors[0]
    assert "argument 'value' is required" in errors[1]
    page = await tab.asnapshot()
    assert 'textbox "Name"' in page.text and "Grace" in page.text
