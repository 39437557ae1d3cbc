"""Screenshots reach a LlamaIndex agent's model where its API takes images: in the tool
message (Anthropic-style), in a user message right after the tool results that the tool
message points to (OpenAI-style chat, whose tool messages LlamaIndex's OpenAI LLM sends as
text only), or nowhere (text-only models). Checked on the messages a real ``FunctionAgent``
loop hands its LLM, and for OpenAI on the request LlamaIndex's OpenAI LLM makes of them."""

from __future__ import annotations

import base64
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from llama_index.core.agent.react import ReActChatFormatter
from llama_index.core.agent.workflow import AgentWorkflow
from llama_index.core.base.llms.types import (
    ChatMessage,
    ImageBlock,
    MessageRole,
    TextBlock,
    ToolCallBlock,
)
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.llms.openai.utils import to_openai_message_dicts
from webrefs import Browser, Tab
from webrefs.adapters.llamaindex import (
    WebFunctionAgent,
    WebReActAgent,
    WebReActChatFormatter,
    WebToolSpec,
)
from webrefs.tools.capabilities import Capabilities
from webrefs.tools.placement import IMAGE_LEFT_OUT, IMAGE_MOVED, IMAGE_OLDER, IMAGES_INTRO

from tests.helpers.faketab import FakeTab
from tests.helpers.server import SiteServer

FAKE_PNG = b"\x89PNG\r\n\x1a\nfake"  # what FakeTab's screenshot returns


Call = tuple[str, dict[str, Any]]


def recording_llm(turns: Sequence[Call | list[Call]]) -> tuple[Any, list[list[ChatMessage]]]:
    """A function-calling LLM that makes the calls of ``turns`` (one call or several at once
    a turn), then answers "done"; every list of messages it is given is kept (copied: the
    agent's lists change later)."""
    seen: list[list[ChatMessage]] = []

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append([m.model_copy(deep=True) for m in messages])
        turn = len(seen)
        if turn > len(turns):
            return ChatMessage(role=MessageRole.ASSISTANT, content="done")
        calls = turns[turn - 1]
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[
            ToolCallBlock(tool_call_id=f"call_{turn}_{i}", tool_name=name, tool_kwargs=args)
            for i, (name, args) in enumerate(calls if isinstance(calls, list) else [calls])])

    return MockFunctionCallingLLM(response_generator=respond), seen


@pytest.fixture
def fake() -> Iterator[FakeTab]:
    tab = FakeTab()
    yield tab
    tab.stop()


SHOT: Call = ("web_screenshot", {})


async def _run(tab: Any, model: str | Capabilities, turns: int = 1, *,
               workflow: bool = False, at_once: int = 1,
               **options: Any) -> list[list[ChatMessage]]:
    """Run an agent whose model takes ``turns`` screenshots (``at_once`` in each turn); what
    the model was given, per turn. ``workflow``: the agent in an ``AgentWorkflow``,
    streaming."""
    llm, seen = recording_llm([[SHOT] * at_once] * turns)
    spec = WebToolSpec.from_tab(tab, tools=[], vision=True)
    agent = WebFunctionAgent(tools=spec.to_tool_list(), llm=llm, model=model,
                             system_prompt="You see pages.", streaming=workflow, **options)
    runner: Any = AgentWorkflow(agents=[agent]) if workflow else agent
    output = await runner.run(user_msg="Look.")
    assert str(output.response.content) == "done"
    return seen


def _images(messages: Sequence[ChatMessage]) -> list[ImageBlock]:
    return [b for m in messages for b in m.blocks if isinstance(b, ImageBlock)]


def _openai_payload(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """The request LlamaIndex's OpenAI LLM makes of ``messages``, checked against what
    OpenAI's chat API requires: tool messages hold text only and follow the assistant
    message that called them, before any user message."""
    payload = [dict(item) for item in to_openai_message_dicts(messages, model="gpt-4.1")]
    for i, item in enumerate(payload):
        if item["role"] == "tool":
            assert isinstance(item["content"], str), item
            assert payload[i - 1]["role"] in ("assistant", "tool")
    return payload


def _sent_images(payload: list[dict[str, Any]]) -> list[bytes]:
    """The images of the request, decoded."""
    urls = [part["image_url"]["url"] for item in payload
            if isinstance(item["content"], list) for part in item["content"]
            if part.get("type") == "image_url"]
    return [base64.b64decode(url.split(",", 1)[1]) for url in urls]


@pytest.mark.parametrize("model", ["openai:gpt-4.1", Capabilities(images=True)])
@pytest.mark.parametrize("workflow", [False, True])
async def test_openai_style_the_image_follows_the_tool_results(
        fake: FakeTab, model: str | Capabilities, workflow: bool) -> None:
    second = (await _run(fake, model, workflow=workflow))[1]
    tool = next(m for m in second if m.role == MessageRole.TOOL)
    assert [type(b) for b in tool.blocks] == [TextBlock]
    assert "is attached (PNG)" in tool.content and tool.content.endswith(IMAGE_MOVED)
    (user,) = second[second.index(tool) + 1:]
    assert user.role == MessageRole.USER
    assert [type(b) for b in user.blocks] == [TextBlock, TextBlock, ImageBlock]
    assert user.blocks[0].text == IMAGES_INTRO and "web_screenshot" in user.blocks[1].text
    payload = _openai_payload(second)
    assert payload[-2]["role"] == "tool" and IMAGE_MOVED in payload[-2]["content"]
    assert payload[-1]["role"] == "user"
    assert _sent_images(payload) == [FAKE_PNG]  # the image reaches the model


async def test_images_of_parallel_calls_follow_all_their_tool_results(fake: FakeTab) -> None:
    second = (await _run(fake, "openai:gpt-4.1", at_once=2))[1]
    assert [m.role for m in second[-3:]] == [MessageRole.TOOL, MessageRole.TOOL,
                                             MessageRole.USER]
    assert all(m.content.endswith(IMAGE_MOVED) for m in second[-3:-1])
    captions = [b.text for b in second[-1].blocks if isinstance(b, TextBlock)][1:]
    assert ["call_1_0" in captions[0], "call_1_1" in captions[1]] == [True, True]
    assert _sent_images(_openai_payload(second)) == [FAKE_PNG, FAKE_PNG]


async def test_anthropic_style_the_image_stays_in_the_tool_message(fake: FakeTab) -> None:
    """llama-index-llms-anthropic sends a tool message's blocks, images included, as the
    content of its tool_result."""
    second = (await _run(fake, "anthropic:claude-sonnet-4-5"))[1]
    tool = second[-1]
    assert tool.role == MessageRole.TOOL
    assert [type(b) for b in tool.blocks] == [TextBlock, ImageBlock]
    assert IMAGE_MOVED not in tool.content and IMAGE_LEFT_OUT not in tool.content
    assert [m.role for m in second].count(MessageRole.USER) == 1  # the task, nothing more


async def test_text_only_models_are_told_the_image_was_left_out(fake: FakeTab) -> None:
    second = (await _run(fake, "somebody:text-model"))[1]
    assert second[-1].role == MessageRole.TOOL and second[-1].content.endswith(IMAGE_LEFT_OUT)
    assert _images(second) == []
    assert _sent_images(_openai_payload(second)) == []


async def test_only_the_latest_images_are_sent(fake: FakeTab) -> None:
    seen = await _run(fake, "openai:gpt-4.1", turns=3, keep_images=1)
    last = seen[-1]
    assert len(_images(last)) == 1
    moved = [m for m in last if m.role == MessageRole.USER and m.content
             and m.content.startswith(IMAGES_INTRO)]
    assert len(moved) == 3 and moved[-1].blocks[-1] == _images(last)[0]
    assert all(IMAGE_OLDER in m.content for m in moved[:2])
    kept = await _run(fake, "anthropic:claude-opus-4-1", turns=3, keep_images=2)
    tools = [m for m in kept[-1] if m.role == MessageRole.TOOL]
    assert [len(_images([m])) for m in tools] == [0, 1, 1]
    assert tools[0].content.endswith(IMAGE_OLDER)


def react_llm(turns: int) -> tuple[Any, list[list[ChatMessage]]]:
    """An LLM speaking ReAct text: ``turns`` screenshots, then the answer "done"."""
    seen: list[list[ChatMessage]] = []

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append([m.model_copy(deep=True) for m in messages])
        text = ("Thought: I need to see the page.\nAction: web_screenshot\nAction Input: {}"
                if len(seen) <= turns else "Thought: I can answer.\nAnswer: done")
        return ChatMessage(role=MessageRole.ASSISTANT, content=text)

    return MockFunctionCallingLLM(response_generator=respond), seen


@pytest.mark.parametrize("model", ["openai:gpt-4.1", "anthropic:claude-sonnet-4-5"])
async def test_a_react_agent_sends_the_image_with_its_observation(
        fake: FakeTab, model: str) -> None:
    llm, seen = react_llm(turns=3)
    spec = WebToolSpec.from_tab(fake, tools=[], vision=True)
    agent = WebReActAgent(tools=spec.to_tool_list(), llm=llm, model=model, keep_images=1,
                          system_prompt="You see pages.", streaming=False)
    output = await agent.run(user_msg="Look.")
    assert "done" in str(output.response.content)
    observation = seen[1][-1]  # what the model read after its first screenshot
    assert observation.role == MessageRole.USER
    assert observation.content.startswith("Observation: Screenshot")
    assert [type(b) for b in observation.blocks] == [TextBlock, ImageBlock]
    assert _sent_images(_openai_payload(seen[1])) == [FAKE_PNG]
    last = [m for m in seen[-1] if m.content and m.content.startswith("Observation:")]
    assert len(last) == 3 and len(_images(seen[-1])) == 1 and _images(last[-1:])
    assert IMAGE_OLDER in last[0].content and IMAGE_OLDER in last[1].content


async def test_react_observations_as_tool_messages_get_the_image_after(
        fake: FakeTab) -> None:
    llm, seen = react_llm(turns=1)
    spec = WebToolSpec.from_tab(fake, tools=[], vision=True)
    formatter = WebReActChatFormatter.from_defaults(observation_role=MessageRole.TOOL)
    agent = WebReActAgent(tools=spec.to_tool_list(), llm=llm, model="openai:gpt-4.1",
                          formatter=formatter, streaming=False)
    await agent.run(user_msg="Look.")
    observation, user = seen[1][-2:]
    assert observation.role == MessageRole.TOOL and observation.content.endswith(IMAGE_MOVED)
    assert user.role == MessageRole.USER and _images([user]) and not _images([observation])
    with pytest.raises(ValueError, match="WebReActChatFormatter"):
        WebReActAgent(tools=spec.to_tool_list(), llm=llm, model="openai:gpt-4.1",
                      formatter=ReActChatFormatter.from_defaults())


async def test_a_react_agent_tells_a_text_model_the_image_was_left_out(fake: FakeTab) -> None:
    llm, seen = react_llm(turns=1)
    spec = WebToolSpec.from_tab(fake, tools=[], vision=True)
    agent = WebReActAgent(tools=spec.to_tool_list(), llm=llm, model="somebody:text-model",
                          streaming=False)
    await agent.run(user_msg="Look.")
    assert seen[1][-1].content.endswith(IMAGE_LEFT_OUT) and _images(seen[1]) == []


@pytest.mark.browser
async def test_an_openai_style_agent_sees_the_page_and_clicks_a_point_of_it(
        browser: Browser, tab: Tab, site: SiteServer) -> None:
    await tab.agoto(site.url("/vision/canvas.html"))
    llm, seen = recording_llm([SHOT, ("web_click", {"x": 54, "y": 18})])  # canvas.html's OK
    spec = WebToolSpec(browser=browser, vision=True)
    agent = WebFunctionAgent(tools=spec.to_tool_list(), llm=llm, model="openai:gpt-4.1",
                             system_prompt=await spec.asystem_prompt("vision",
                                                                     page_state=False))
    output = await agent.run(user_msg="Press OK.")
    assert str(output.response.content) == "done"
    assert await tab.aevaluate("document.getElementById('ok').textContent") == "done"
    payload = _openai_payload(seen[1])
    assert "elements are drawn" in payload[-2]["content"]
    (png,) = _sent_images(payload)
    assert png.startswith(b"\x89PNG")
    _openai_payload(seen[2])  # still a valid request after the click
