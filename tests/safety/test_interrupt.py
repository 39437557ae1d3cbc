"""The LangGraph option: with ``interrupt_on_confirm`` an action that needs consent pauses the
graph (``langgraph.types.interrupt``) with a ``webrefs_consent`` payload; resuming with
``approve`` runs it, ``reject`` refuses it."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from webrefs import Browser
from webrefs.adapters.langchain import WebToolkit, approved

from tests.helpers.server import SiteServer


class PayModel(BaseChatModel):
    """Turn 1: open the page. Turn 2: snapshot. Turn 3: click Pay. Then: quote the result."""

    url: str = ""
    turns: int = 0

    @property
    def _llm_type(self) -> str:
        return "pay-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> PayModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        from webrefs.evals.scripted import find_ref

        self.turns += 1
        last = messages[-1]
        if self.turns == 1:
            call = ("web_navigate", {"url": self.url})
        elif self.turns == 2:
            call = ("web_snapshot", {})
        elif self.turns == 3:
            call = ("web_click", {"ref": find_ref(str(last.content), ["button"], "Pay 5000")})
        else:
            assert isinstance(last, ToolMessage)
            return ChatResult(generations=[ChatGeneration(message=AIMessage(
                content=f"{last.status}: {last.content}"))])
        message = AIMessage(content="", tool_calls=[
            {"name": call[0], "args": call[1], "id": f"c{self.turns}", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=message)])


def _state(ctx: Browser) -> str:
    return str(ctx.active_tab.evaluate("document.getElementById('state').textContent"))


def _run(browser: Browser, site: SiteServer, resume: str) -> tuple[dict[str, Any], str, str]:
    ctx = browser.new_context()
    try:
        toolkit = WebToolkit(browser=ctx, interrupt_on_confirm=True)
        agent = create_agent(PayModel(url=site.url("/safety/pay.html")), toolkit.get_tools(),
                             checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "pay"}}
        first = agent.invoke({"messages": [("user", "pay")]}, config)
        before = _state(ctx)
        done = agent.invoke(Command(resume=resume), config)
        return first, before, _state(ctx) + " | " + str(done["messages"][-1].content)
    finally:
        ctx.close()


def test_approve_resumes_and_runs_the_action(browser: Browser, site: SiteServer) -> None:
    first, before, after = _run(browser, site, "approve")
    (pause,) = first["__interrupt__"]
    payload = pause.value
    assert payload["type"] == "webrefs_consent" and payload["tool"] == "web_click"
    assert payload["target_name"] == 'button "Pay 5000 EUR"' and payload["reasons"]
    assert before == "unpaid"  # nothing ran while the graph waited
    assert after.startswith("PAID | success:") and "confirmed by the user" in after


def test_reject_refuses_the_action(browser: Browser, site: SiteServer) -> None:
    _first, _before, after = _run(browser, site, "reject")
    assert after.startswith("unpaid | error:") and "rejected" in after


def test_resume_values() -> None:
    for yes in ("approve", "Yes", True, {"approved": True}, {"action": "approve"}):
        assert approved(yes)
    for no in ("reject", "no", False, {"approved": False}, None, ""):
        assert not approved(no)
