"""webrefs.adapters.llamaindex: WebToolSpec and its FunctionTools, agents with a scripted LLM,
and the check that LlamaIndex and LangChain expose the very same tools."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from llama_index.core.base.llms.types import ImageBlock
from llama_index.core.tools import FunctionTool
from webrefs import Browser, Snapshot, Tab
from webrefs.adapters.langchain import WebToolkit
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.errors import StaleRefError
from webrefs.evals.baselines.llamaindex_scripted import ScriptedLLM
from webrefs.evals.demo import demo_site, load_demo_task
from webrefs.models import ActionResult
from webrefs.tools import TOOL_SPECS

from tests.helpers.faketab import FakeTab

EVERY_TOOL = [n for n in TOOL_SPECS if n not in ("web_tabs", "web_screenshot")]


@pytest.fixture
def fake() -> Iterator[FakeTab]:
    tab = FakeTab()
    yield tab
    tab.stop()


def test_tool_list_has_sync_and_async_functions(fake: FakeTab) -> None:
    spec = WebToolSpec.from_tab(fake)
    tools = spec.to_tool_list()
    assert [t.metadata.name for t in tools] == spec.spec_functions
    assert spec.spec_functions[:2] == ["web_snapshot", "web_click"]
    for tool in tools:
        assert isinstance(tool, FunctionTool)
        assert tool.metadata.fn_schema is TOOL_SPECS[tool.metadata.name].args_model
        assert tool.metadata.description == TOOL_SPECS[tool.metadata.name].description
        assert callable(tool.fn) and callable(tool.async_fn)
    chosen = spec.to_tool_list(spec_functions=["web_get_text"])
    assert [t.metadata.name for t in chosen] == ["web_get_text"]


def test_sync_call_keeps_the_artifact(fake: FakeTab) -> None:
    snapshot, click = WebToolSpec.from_tab(fake, tools=["web_snapshot", "web_click"]
                                           ).to_tool_list()
    out = snapshot.call()
    assert isinstance(out.raw_output, Snapshot) and out.content == out.raw_output.text
    out = click(ref="e2")
    assert isinstance(out.raw_output, ActionResult) and not out.is_error
    assert out.raw_input == {"args": (), "kwargs": {"ref": "e2"}}


async def test_async_call_and_errors(fake: FakeTab) -> None:
    (click,) = WebToolSpec.from_tab(fake, tools=["web_click"]).to_tool_list()
    await click.acall(ref="e2")
    stale = await click.acall(ref="e1")
    assert stale.is_error and isinstance(stale.raw_output, StaleRefError)
    assert stale.content.startswith("web_click failed: [stale_ref]")
    bad = await click.acall(target="e1")
    assert bad.is_error
    assert "argument 'ref' is required" in bad.content
    assert "argument 'target' is not accepted" in bad.content


def test_screenshot_output_has_an_image_block(fake: FakeTab) -> None:
    (shot,) = WebToolSpec.from_tab(fake, tools=[], vision=True).to_tool_list()
    out = shot.call()
    assert isinstance(out.blocks[1], ImageBlock) and "attached" in out.content


def test_same_tools_as_langchain(browser: Browser) -> None:
    """One registry: identical names, descriptions and JSON schemas in both adapters."""
    options = {"include": [n for n in TOOL_SPECS if n != "web_screenshot"], "vision": True}
    lc_tools = WebToolkit(browser=browser, **options).get_tools()
    li_tools = WebToolSpec(browser=browser, **options).to_tool_list()
    assert [t.name for t in lc_tools] == [t.metadata.name for t in li_tools] == list(TOOL_SPECS)
    for lc, li in zip(lc_tools, li_tools, strict=True):
        assert lc.description == li.metadata.description
        assert lc.args_schema is not None and li.metadata.fn_schema is not None
        assert lc.args_schema.model_json_schema() == li.metadata.fn_schema.model_json_schema()
        lc_fn = convert_to_openai_tool(lc)["function"]
        li_fn = li.metadata.to_openai_tool()["function"]
        assert lc_fn["name"] == li_fn["name"] and lc_fn["description"] == li_fn["description"]
        for key in ("properties", "required"):
            assert lc_fn["parameters"].get(key) == li_fn["parameters"].get(key), lc.name


def test_import_without_the_extra_names_the_install_command() -> None:
    code = ("import sys; sys.modules['llama_index'] = None\n"
            "try:\n    import webrefs.adapters.llamaindex\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert "pip install 'webrefs[llamaindex]'" in out


@pytest.mark.parametrize("agent_class", [FunctionAgent, ReActAgent])
async def test_agents_on_the_fake_site(fake: FakeTab, agent_class: type) -> None:
    task = load_demo_task()
    spec = WebToolSpec.from_tab(fake)
    llm = ScriptedLLM(task, react=agent_class is ReActAgent)
    agent = agent_class(tools=spec.to_tool_list(), llm=llm, system_prompt=spec.system_prompt())
    output = await agent.run(user_msg=task.goal)
    assert output.response.content == "Veldmark Lighthouse was built in 1887."
    assert [n for n, _ in fake.calls] == ["snapshot", "fill", "click", "snapshot", "click",
                                          "get_text"]


@pytest.fixture(scope="module")
def demo_base() -> Iterator[str]:
    with demo_site() as base:
        yield base


@pytest.mark.browser
@pytest.mark.parametrize("agent_class", [FunctionAgent, ReActAgent])
async def test_agents_solve_the_demo_task(
    browser: Browser, tab: Tab, demo_base: str, agent_class: type
) -> None:
    task = load_demo_task()
    await tab.agoto(demo_base + task.start_url)
    spec = WebToolSpec(browser=browser)
    llm = ScriptedLLM(task, react=agent_class is ReActAgent)
    agent = agent_class(tools=spec.to_tool_list(), llm=llm,
                        system_prompt=await spec.asystem_prompt())
    output = await agent.run(user_msg=task.goal)
    assert output.response.content == "Veldmark Lighthouse was built in 1887."
    calls = [c.tool_name for c in output.tool_calls] if output.tool_calls else None
    assert calls is None or set(calls) <= set(spec.spec_functions)
    assert "article-veldmark" in tab.url
    shown = [text for turn in llm.seen for text in turn]
    assert len(shown) == len(task.reference_calls)
    assert any('searchbox "Search articles"' in text for text in shown)
    assert "built in 1887" in shown[-1]
