"""Screenshots reach each chat model where its API takes images: in the tool message
(Anthropic-style), in a user message right after the tool results that the tool message
points to (OpenAI-style chat, whose tool messages take text only), or nowhere (text-only
models), checked on the message list the model receives."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_openai.chat_models.base import _convert_message_to_dict
from pydantic import Field
from webrefs import Browser
from webrefs.adapters.langchain import (
    IMAGE_LEFT_OUT,
    IMAGE_MOVED,
    IMAGE_OLDER,
    WebToolkit,
    place_images,
)
from webrefs.tools.capabilities import capabilities

from tests.helpers.server import SiteServer

IMAGE = {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}


def _shot(call: str) -> ToolMessage:
    return ToolMessage(content=[{"type": "text", "text": f"Screenshot {call}."}, IMAGE],
                       tool_call_id=call, name="web_screenshot")


def _turn(*calls: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[
        {"name": "web_screenshot", "args": {}, "id": c, "type": "tool_call"} for c in calls])


def test_the_capability_table() -> None:
    assert capabilities("anthropic:claude-sonnet-4-5").images_in_tool_results
    openai = capabilities("openai:gpt-4.1-mini")
    assert openai.images and not openai.images_in_tool_results
    assert openai.default_mode == "hybrid"
    assert capabilities("ollama:tinyllama").tool_calling is False
    unknown = capabilities("somebody:new-model")
    assert not unknown.images and unknown.default_mode == "dom"


def test_openai_style_images_move_to_one_user_message_after_the_tool_results() -> None:
    history = [HumanMessage(content="go"), _turn("a", "b"), _shot("a"),
               ToolMessage(content="Clicked.", tool_call_id="b", name="web_click")]
    placed = place_images(history, "openai:gpt-4o")
    assert [type(m).__name__ for m in placed] == ["HumanMessage", "AIMessage", "ToolMessage",
                                                  "ToolMessage", "HumanMessage"]
    assert placed[2].content == f"Screenshot a.\n{IMAGE_MOVED}"
    assert placed[4].content[2] == IMAGE and "call a" in placed[4].content[1]["text"]
    assert history[2].content[1] == IMAGE  # the agent's own history is unchanged


def test_anthropic_style_images_stay_in_the_tool_message() -> None:
    history = [HumanMessage(content="go"), _turn("a"), _shot("a")]
    placed = place_images(history, "anthropic:claude-opus-4-1")
    assert placed == history


def test_text_only_models_get_a_note_and_old_images_are_dropped() -> None:
    history = [HumanMessage(content="go"), _turn("a"), _shot("a"), _turn("b"), _shot("b"),
               _turn("c"), _shot("c")]
    text = place_images(history, "somebody:text-model")
    assert all(isinstance(m.content, str) for m in text if isinstance(m, ToolMessage))
    assert text[2].content.endswith(IMAGE_OLDER) and text[6].content.endswith(IMAGE_LEFT_OUT)
    kept = place_images(history, "anthropic:claude-sonnet-4-5", keep_images=1)
    assert kept[2].content.endswith(IMAGE_OLDER) and kept[4].content.endswith(IMAGE_OLDER)
    assert kept[6].content[1] == IMAGE


class ScreenshotModel(BaseChatModel):
    """Turn 1: a screenshot; turn 2: a click at the centre of the first mark; then done.
    Every list of messages it receives is kept."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "screenshot-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScreenshotModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        turn = len(self.seen)
        if turn == 1:
            calls = [("web_screenshot", {})]
        elif turn == 2:
            calls = [("web_click", {"x": 54, "y": 18})]  # the OK button of canvas.html
        else:
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="done"))])
        message = AIMessage(content="", tool_calls=[
            {"name": n, "args": a, "id": f"c{turn}", "type": "tool_call"} for n, a in calls])
        return ChatResult(generations=[ChatGeneration(message=message)])


def _openai_payload_is_valid(messages: list[BaseMessage]) -> None:
    """What OpenAI's chat API requires: tool messages hold text only and follow the
    assistant message that called them, before any user message."""
    payload = [_convert_message_to_dict(m) for m in messages]
    for i, item in enumerate(payload):
        if item["role"] == "tool":
            assert isinstance(item["content"], str), item
            assert payload[i - 1]["role"] in ("assistant", "tool")


@pytest.mark.browser
@pytest.mark.parametrize("model", ["openai:gpt-4.1", "anthropic:claude-sonnet-4-5"])
def test_the_agent_loop_gives_each_model_the_image_where_it_takes_it(
        browser: Browser, site: SiteServer, model: str) -> None:
    ctx = browser.new_context()
    try:
        ctx.new_tab(site.url("/vision/canvas.html"))
        toolkit = WebToolkit(browser=ctx, vision=True)
        fake = ScreenshotModel()
        agent: Any = create_agent(fake, toolkit.get_tools(), middleware=[
            toolkit.live_prompt("vision"), toolkit.image_placement(model)])
        result = agent.invoke({"messages": [("user", "Press OK.")]})
        assert result["messages"][-1].content == "done"
        assert ctx.active_tab.evaluate("document.getElementById('ok').textContent") == "done"
    finally:
        ctx.close()
    second = fake.seen[1]  # what the model received after the screenshot
    tool = next(m for m in second if isinstance(m, ToolMessage))
    assert "elements are drawn" in tool.text
    after = second[second.index(tool) + 1:]
    if model.startswith("openai"):
        assert isinstance(tool.content, str) and IMAGE_MOVED in tool.content
        (user,) = after
        assert isinstance(user, HumanMessage)
        assert [b["type"] for b in user.content] == ["text", "text", "image"]
        _openai_payload_is_valid(second)
        _openai_payload_is_valid(fake.seen[2])
    else:
        assert [b["type"] for b in tool.content] == ["text", "image"]
        assert after == []
    # the agent's state keeps the tool's own message, image included
    stored = next(m for m in result["messages"] if isinstance(m, ToolMessage))
    assert any(b.get("type") == "image" for b in stored.content if isinstance(b, dict))
