"""The system prompt's "current browser state" stays true while an agent works: LangChain's
``live_prompt`` middleware makes the prompt again before every model call (sync and async);
LlamaIndex agents, whose prompt is made once, get one without page state."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import Field
from webrefs import Browser, prompts
from webrefs.adapters.langchain import WebToolkit
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.evals.baselines.langchain_scripted import ScriptedChatModel
from webrefs.evals.demo import demo_site, load_demo_task

pytestmark = pytest.mark.browser


class PromptRecorder(ScriptedChatModel):
    """The scripted model, noting the system prompt of every call."""

    prompts: list[str] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        first = messages[0] if messages else None
        self.prompts.append(first.text if isinstance(first, SystemMessage) else "")
        return super()._generate(messages, stop, run_manager, **kwargs)


def _state(prompt: str) -> str:
    return prompt.split("Current browser state:", 1)[1]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_prompt_after_a_navigation_names_the_new_page(browser: Browser, mode: str) -> None:
    task = load_demo_task()
    with demo_site() as url:
        tab = browser.new_tab(url + task.start_url)
        try:
            toolkit = WebToolkit(tab=tab)
            model = PromptRecorder(task=task)
            agent: Any = create_agent(model, toolkit.get_tools(),
                                      system_prompt="Answer in one sentence.",
                                      middleware=[toolkit.live_prompt()])
            request = {"messages": [("user", task.goal)]}
            if mode == "sync":
                result = agent.invoke(request)
            else:
                import asyncio

                result = asyncio.run(agent.ainvoke(request))
        finally:
            tab.close()
    assert "1887" in result["messages"][-1].content
    first, last = model.prompts[0], model.prompts[-1]
    assert "index.html" in _state(first) and "article-veldmark" not in _state(first)
    # the last call comes after the click that opened the article
    assert "article-veldmark" in _state(last), _state(last)
    assert first.startswith("You operate a web browser")
    assert last.rstrip().endswith("Answer in one sentence.")  # the agent's own prompt is kept
    assert last.count("You operate a web browser") == 1


def test_a_prompt_made_once_can_leave_the_page_out(browser: Browser) -> None:
    task = load_demo_task()
    with demo_site() as url:
        tab = browser.new_tab(url + task.start_url)
        try:
            spec = WebToolSpec(tab=tab)
            frozen = spec.system_prompt(page_state=False)
            live = spec.system_prompt()
        finally:
            tab.close()
    assert _state(frozen).strip() == prompts.PAGE_STATE_LEFT_OUT
    assert "index.html" not in frozen and "index.html" in _state(live)
