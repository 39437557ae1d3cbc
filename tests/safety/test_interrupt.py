"""The LangGraph option: with ``interrupt_on_confirm`` an action that needs consent pauses the
graph (``langgraph.types.interrupt``) with a ``webrefs_consent`` payload; resuming with
``approve`` runs it, ``reject`` refuses it. So does a request an action caused that needs
consent: it is held and never sent until a human approves."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from webrefs import Browser
from webrefs.adapters.consent import Decision, approved, decide
from webrefs.adapters.langchain import WebToolkit

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer
from tests.safety.conftest import hits


class PayModel(BaseChatModel):
    """Turn 1: open the page. Turn 2: snapshot. Turn 3: click Pay. Then: quote the result."""

    url: str = ""
    button: str = "Pay 5000"
    turns: int = 0

    @property
    def _llm_type(self) -> str:
        return "pay-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> PayModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        from webrefs.evals.baselines.scripted import find_ref

        self.turns += 1
        last = messages[-1]
        if self.turns == 1:
            call = ("web_navigate", {"url": self.url})
        elif self.turns == 2:
            call = ("web_snapshot", {})
        elif self.turns == 3:
            call = ("web_click", {"ref": find_ref(str(last.content), ["button"], self.button)})
        else:
            assert isinstance(last, ToolMessage)
            return ChatResult(generations=[ChatGeneration(message=AIMessage(
                content=f"{last.status}: {last.content}"))])
        message = AIMessage(content="", tool_calls=[
            {"name": call[0], "args": call[1], "id": f"c{self.turns}", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=message)])


def _state(ctx: Browser) -> str:
    return str(ctx.active_tab.evaluate("document.getElementById('state').textContent"))


def _run(browser: Browser, site: SiteServer, resume: Any) -> tuple[dict[str, Any], str, str]:
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


def test_the_pause_is_langchains_human_in_the_loop_request(browser: Browser,
                                                            site: SiteServer) -> None:
    # LangChain's agent UIs read action_requests and review_configs, and resume with a
    # decision: approve, edit (the same tool with other arguments) or reject (with a reason)
    first, before, after = _run(browser, site, {"decisions": [{"type": "approve"}]})
    (pause,) = first["__interrupt__"]
    (asked,) = pause.value["action_requests"]
    assert asked["name"] == "web_click" and set(asked["args"]) == {"ref"}
    assert asked["description"].startswith("Allow web_click on button")
    assert pause.value["review_configs"] == [
        {"action_name": "web_click", "allowed_decisions": ["approve", "edit", "reject"]}]
    assert before == "unpaid" and after.startswith("PAID | success:")


def test_a_rejection_with_a_reason_tells_the_model_why(browser: Browser,
                                                       site: SiteServer) -> None:
    _first, _before, after = _run(browser, site, {"decisions": [
        {"type": "reject", "message": "Not this month."}]})
    assert after.startswith("unpaid | error:") and 'They said: "Not this month."' in after


def test_an_edit_runs_the_edited_call(browser: Browser, site: SiteServer) -> None:
    ctx = browser.new_context()
    try:
        toolkit = WebToolkit(browser=ctx, interrupt_on_confirm=True)
        agent = create_agent(PayModel(url=site.url("/safety/pay.html")), toolkit.get_tools(),
                             checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "edit"}}
        first = agent.invoke({"messages": [("user", "pay")]}, config)
        (pause,) = first["__interrupt__"]
        ref = pause.value["action_requests"][0]["args"]["ref"]
        # the reviewer approves the same click, given again as an edit of its arguments
        done = agent.invoke(Command(resume={"decisions": [{"type": "edit", "edited_action": {
            "name": "web_click", "args": {"ref": ref}}}]}), config)
        assert _state(ctx) == "PAID"
        assert str(done["messages"][-1].content).startswith("success:")
    finally:
        ctx.close()


def test_decisions_read_from_resume_values() -> None:
    assert decide({"decisions": [{"type": "approve"}]}) == Decision("approve")
    assert decide({"type": "reject", "message": "no"}) == Decision("reject", message="no")
    assert decide({"type": "edit", "edited_action": {"name": "web_click", "args": {"ref": "e2"}}},
                  "web_click") == Decision("edit", {"ref": "e2"})
    assert decide({"type": "edit", "edited_action": {"name": "web_fill", "args": {}}},
                  "web_click").kind == "reject"  # an edit may not change the tool
    assert decide("approve") == Decision("approve") and decide("no").kind == "reject"


def test_reject_refuses_the_action(browser: Browser, site: SiteServer) -> None:
    _first, _before, after = _run(browser, site, "reject")
    assert after.startswith("unpaid | error:") and "rejected" in after


@pytest.mark.parametrize("resume", ["approve", "reject"])
def test_a_request_an_action_caused_interrupts_too(browser: Browser, site: SiteServer,
                                                  proxy: RecordingProxy, token: str,
                                                  resume: str) -> None:
    ctx = browser.new_context()
    try:
        toolkit = WebToolkit(browser=ctx, interrupt_on_confirm=True)
        model = PayModel(url=site.url(f"/safety/effect-continue.html?t={token}"),
                         button="Continue")
        agent = create_agent(model, toolkit.get_tools(), checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "continue"}}
        first = agent.invoke({"messages": [("user", "continue")]}, config)
        (pause,) = first["__interrupt__"]
        payload = pause.value
        assert payload["target_name"] == 'button "Continue"' and payload["level"] == "confirm"
        assert payload["request"].startswith("POST ") and "/__effects/api/payments" in \
            payload["request"] and "to send POST" in payload["question"]
        assert [h for h in hits(proxy, token) if "/api/payments" in h] == []  # held, waiting
        done = agent.invoke(Command(resume=resume), config)
        sent = [h for h in hits(proxy, token) if "/api/payments" in h]
        last = str(done["messages"][-1].content)
        if resume == "approve":
            assert len(sent) == 1 and last.startswith("success:"), last
            assert "the user confirmed the request it caused" in last
        else:
            assert sent == [] and last.startswith("error:") and "rejected" in last, last
    finally:
        ctx.close()


def test_resume_values() -> None:
    for yes in ("approve", "Yes", True, {"approved": True}, {"action": "approve"}):
        assert approved(yes)
    for no in ("reject", "no", False, {"approved": False}, None, ""):
        assert not approved(no)
