"""Agent frameworks that take their tools from ``webrefs mcp`` (a subprocess over stdio)
solve the bundled demo task with the project's scripted models: a LangChain ``create_agent``
graph through LangChain's own MCP support (``langchain.mcp``), and a LlamaIndex
``FunctionAgent`` through ``llama-index-tools-mcp``. Nothing in these tests is webrefs'
Python API on the agent's side: the tools, their schemas and their results all come over
MCP."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webrefs.evals.demo import demo_site, load_demo_task

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ANSWER = "Veldmark Lighthouse was built in 1887."


@pytest.fixture(scope="module")
def demo_base() -> Iterator[str]:
    with demo_site() as base:
        yield base


def server_args() -> tuple[str, list[str]]:
    return sys.executable, ["-m", "webrefs.cli", "mcp"]


async def test_langchain_agent_through_mcp_solves_the_demo(demo_base: str,
                                                           tmp_path: Path) -> None:
    from langchain_core._api import LangChainBetaWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangChainBetaWarning)
        from fastmcp.client.transports import StdioTransport
        from langchain.agents import create_agent
        from langchain.mcp import MCPAdapter
    from langchain_core.messages import ToolMessage
    from webrefs.evals.baselines.langchain_scripted import ScriptedChatModel

    task = load_demo_task()
    command, args = server_args()
    transport = StdioTransport(command=command, args=args, env=dict(os.environ))
    async with MCPAdapter(transport) as adapter:
        tools = await adapter.list_tools()
        assert {"web_snapshot", "web_fill", "web_click", "web_get_text"} <= {t.name for t in tools}
        click = next(t for t in tools if t.name == "web_click")
        assert click.metadata is not None  # the hints came over MCP as annotations
        assert click.metadata["mcp"]["tool"]["annotations"]["destructive_hint"] is True
        # the task starts on its page: the host opens it, as the eval harness does
        opened = await adapter.client.call_tool("web_navigate",
                                                {"url": demo_base + task.start_url})
        assert not opened.is_error
        model = ScriptedChatModel(task=task)
        agent = create_agent(model, tools)
        result = await agent.ainvoke({"messages": [("user", task.goal)]})
    messages = result["messages"]
    tool_messages = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.name for m in tool_messages] == [s.tool for s in task.reference_calls]
    assert all(m.status == "success" for m in tool_messages)
    assert messages[-1].content == ANSWER
    # the structured result came along as the tool message's artifact
    snapshot = next(m for m in tool_messages if m.name == "web_snapshot")
    assert snapshot.artifact["structured_content"]["refs"]
    assert any('searchbox "Search articles"' in text for turn in model.seen for text in turn)


class TextResults:
    """An MCP client session whose tool results are the text the model should read:
    ``llama-index-tools-mcp`` (0.6) hands an agent ``str()`` of the whole result object
    (every line break escaped, the structured result repeated, ``isError`` lost), so a
    LlamaIndex agent is given this in its place (the README shows it)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def list_tools(self) -> Any:
        return await self.session.list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        import mcp_types as types

        result = await self.session.call_tool(name, arguments)
        return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_llamaindex_function_agent_through_mcp_solves_the_demo(demo_base: str,
                                                                     tmp_path: Path) -> None:
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.tools.mcp import McpToolSpec
    from mcp.client import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from webrefs.evals.baselines.llamaindex_scripted import ScriptedLLM

    task = load_demo_task()
    command, args = server_args()
    params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    # one session kept open for the whole run: the browser's page lives in it
    # (llama-index-tools-mcp's BasicMCPClient opens a new one for every call)
    with (tmp_path / "err.txt").open("w") as err:
        async with (stdio_client(params, errlog=err) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            spec = McpToolSpec(client=TextResults(session))  # type: ignore[arg-type]
            tools = await spec.to_tool_list_async()
            assert {"web_snapshot", "web_fill", "web_click"} <= {t.metadata.name for t in tools}
            opened = await session.call_tool("web_navigate", {"url": demo_base + task.start_url})
            assert not opened.is_error
            llm = ScriptedLLM(task)
            agent = FunctionAgent(tools=tools, llm=llm)
            output = await agent.run(user_msg=task.goal)
    assert output.response.content == ANSWER
    shown = [text for turn in llm.seen for text in turn]
    assert len(shown) == len(task.reference_calls)
    assert any('searchbox "Search articles"' in text for text in shown)
    assert "built in 1887" in shown[-1]
