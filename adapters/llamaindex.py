"""LlamaIndex tools for webrefs: a ``BaseToolSpec`` over the one tool registry.

::

    from webrefs import Browser
    from webrefs.adapters.llamaindex import WebToolSpec

    browser = Browser.launch()
    tools = WebToolSpec(browser=browser).to_tool_list()     # FunctionTool instances

Each tool has a blocking and an async function (``tool.fn`` / ``tool.async_fn``), the same
name, description and argument schema as the LangChain tools, and returns a ``ToolOutput``
whose content is the text for the model and whose ``raw_output`` is the structured result
(:class:`~webrefs.Snapshot`, :class:`~webrefs.ActionResult`, ...). Errors come back as
``is_error`` outputs whose content tells the model what to do, so an agent keeps going.

With ``vision=True``, ``web_screenshot`` answers with an ``ImageBlock`` beside its text. A
``FunctionAgent`` sends a tool output's blocks as a ``tool`` message, and not every LLM class
sends images from there: LlamaIndex's OpenAI LLM keeps only the text of a ``tool`` message
(OpenAI's chat API takes no images in it), so the image never reaches the model. Build the
agent as :class:`WebFunctionAgent` with ``model=`` the chat model's ``provider:model`` name
(looked up in ``webrefs.tools.capabilities``) or its ``Capabilities``, and each image goes
where that model takes it: kept in the tool message (Anthropic), moved into one user message
right after the tool results (the tool message says so), or left out with a note for models
that read no images; within a run only the latest ``keep_images`` images are sent::

    agent = WebFunctionAgent(tools=spec.to_tool_list(), llm=llm, model="openai:gpt-4.1",
                             system_prompt=await spec.asystem_prompt("vision", page_state=False))

A ``ReActAgent`` writes each tool output into its prompt as an "Observation:" text, so a
plain one never sends the image; :class:`WebReActAgent` (same ``model=`` and
``keep_images``) sends it with the observation, a user message (or, with the formatter's
``observation_role`` set to ``tool``, where the model takes it, as above).

LlamaIndex agents take a system prompt once, when they are built, and it would go stale at the
agent's first navigation; so give them ``await spec.asystem_prompt(page_state=False)``, which
leaves the page out and tells the model to read it with ``web_snapshot``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal, cast

from webrefs.errors import missing_extra

try:
    from llama_index.core.agent.react import ReActChatFormatter
    from llama_index.core.agent.react.types import BaseReasoningStep, ObservationReasoningStep
    from llama_index.core.agent.workflow import FunctionAgent, ReActAgent, ToolCallResult
    from llama_index.core.base.llms.types import ChatMessage, ContentBlock, ImageBlock, TextBlock
    from llama_index.core.memory import BaseMemory
    from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput
    from llama_index.core.tools.tool_spec.base import BaseToolSpec
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.adapters.llamaindex", "llamaindex") from exc

from pydantic import Field, model_validator
from webrefs import Browser, SafetyPolicy, Tab
from webrefs.tools import ToolOutput as WebOutput
from webrefs.tools import ToolSpec, WebTools
from webrefs.tools.capabilities import Capabilities
from webrefs.tools.placement import (
    IMAGE_OLDER,
    IMAGES_INTRO,
    capabilities_of,
    caption,
    note,
    older_images,
    split_images,
)

__all__ = ["SeenObservation", "WebFunctionAgent", "WebFunctionTool", "WebReActAgent",
           "WebReActChatFormatter", "WebToolSpec", "place_tool_results"]


class WebFunctionTool(FunctionTool):
    """A FunctionTool whose output keeps the webrefs artifact as ``raw_output``."""

    def _output(self, out: WebOutput, kwargs: dict[str, Any]) -> ToolOutput:
        blocks: list[Any] = [TextBlock(text=out.content)]
        blocks += [ImageBlock(image=png, image_mimetype="image/png") for png in out.images]
        return ToolOutput(
            blocks=blocks,
            tool_name=self.metadata.get_name(),
            raw_input={"args": (), "kwargs": kwargs},
            raw_output=out.artifact,
            is_error=out.is_error,
        )

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return self._output(self.fn(*args, **kwargs), kwargs)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return self._output(await self.async_fn(*args, **kwargs), kwargs)


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The named arguments, or the one value given positionally (``tool.call("e5")``), which
    the registry matches to the tool's required argument."""
    if not args:
        return kwargs
    return args[0] if len(args) == 1 and not kwargs else args


def _make_tool(
    spec: ToolSpec, webtools: WebTools, metadata: ToolMetadata | None = None
) -> WebFunctionTool:
    name = spec.name

    def run(*args: Any, **kwargs: Any) -> WebOutput:
        return webtools.run(name, _arguments(args, kwargs))

    async def arun(*args: Any, **kwargs: Any) -> WebOutput:
        return await webtools.arun(name, _arguments(args, kwargs))

    run.__name__ = arun.__name__ = name
    run.__doc__ = arun.__doc__ = spec.description
    if metadata is None:
        metadata = ToolMetadata(name=name, description=spec.description,
                                fn_schema=spec.args_model)
    return WebFunctionTool(fn=run, async_fn=arun, metadata=metadata)


class WebToolSpec(BaseToolSpec):
    """Browser tools for LlamaIndex agents, acting on a Browser's active tab (or one Tab).

    Options are those of the LangChain ``WebToolkit``: ``max_tokens``, ``tools`` (where the
    selection starts: ``"default"``, ``"all"``, a group name or an exact list), ``include``
    (tools added), ``exclude``, ``after_action``, ``allow_navigation``, ``vision``;
    ``safety`` is a ``webrefs.SafetyPolicy`` for the browser (default: the one it has).
    With ``vision=True``, run the tools in a :class:`WebFunctionAgent` or
    :class:`WebReActAgent` so each screenshot reaches the model where it takes images.
    """

    def __init__(
        self,
        browser: Browser | None = None,
        *,
        tab: Tab | None = None,
        max_tokens: int = 3000,
        tools: str | Sequence[str] = "default",
        include: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        after_action: Literal["none", "diff", "snapshot"] = "none",
        allow_navigation: bool = True,
        vision: bool = False,
        safety: SafetyPolicy | None = None,
    ) -> None:
        self.webtools = WebTools(
            browser,
            tab=tab,
            safety=safety,
            max_tokens=max_tokens,
            tools=tools if isinstance(tools, str) else tuple(tools),
            include=tuple(include) if include is not None else None,
            exclude=tuple(exclude or ()),
            after_action=after_action,
            allow_navigation=allow_navigation,
            vision=vision,
        )
        self.spec_functions = list(self.webtools.names)

    @classmethod
    def from_tab(cls, tab: Tab, **options: Any) -> WebToolSpec:
        """Tools that always act on ``tab``."""
        return cls(tab=tab, **options)

    def to_tool_list(  # type: ignore[override]
        self,
        spec_functions: Sequence[str] | None = None,
        func_to_metadata_mapping: dict[str, ToolMetadata] | None = None,
    ) -> list[FunctionTool]:
        """One FunctionTool per selected tool (or per name in ``spec_functions``)."""
        names = list(spec_functions or self.spec_functions)
        tools: list[FunctionTool] = []
        for entry in names:
            name = entry if isinstance(entry, str) else entry[0]
            spec = self.webtools.spec(name)
            metadata = (func_to_metadata_mapping or {}).get(name)
            tools.append(_make_tool(spec, self.webtools, metadata))
        return tools

    def system_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                      page_state: bool = True) -> str:
        """The system prompt (``dom`` or ``vision``) with a summary of the current page as it
        is now. An agent keeps its system prompt for the whole run, so pass
        ``page_state=False`` for one: the summary would be wrong after the first navigation."""
        return self.webtools.system_prompt(mode, tool_calling=tool_calling,
                                           page_state=page_state)

    async def asystem_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                             page_state: bool = True) -> str:
        return await self.webtools.asystem_prompt(mode, tool_calling=tool_calling,
                                                  page_state=page_state)


def _is_image(block: Any) -> bool:
    return isinstance(block, ImageBlock)


def _placed_output(output: ToolOutput, blocks: list[Any], notes: list[str],
                   images_kept: bool) -> ToolOutput:
    """``output`` with ``blocks`` and the notes; text only as one text block (LlamaIndex's
    OpenAI LLM joins a tool message's text blocks with nothing between them)."""
    said = note(notes)
    if images_kept:
        blocks = [*blocks, TextBlock(text=said)] if said else blocks
    else:
        texts = [b.text for b in blocks if isinstance(b, TextBlock) and b.text]
        blocks = [TextBlock(text="\n".join([*texts, said] if said else texts))]
    return output.model_copy(update={"blocks": blocks})


def place_tool_results(results: Sequence[ToolCallResult], model: str | Capabilities
                       ) -> tuple[list[ToolCallResult], ChatMessage | None]:
    """One agent step's tool results with their images where ``model`` takes them
    (:func:`webrefs.tools.placement.split_images`): the results to send as ``tool``
    messages, and the user message to send right after them with the images moved out of
    them (``None`` when none moved). The results given are not changed."""
    caps = capabilities_of(model)
    placed: list[ToolCallResult] = []
    moved: list[ContentBlock] = []
    for result in results:
        blocks = result.tool_output.blocks
        if not any(_is_image(b) for b in blocks):
            placed.append(result)
            continue
        split = split_images(blocks, _is_image, caps)
        for image in split.moved:
            moved += [TextBlock(text=caption(result.tool_name, result.tool_id)), image]
        output = _placed_output(result.tool_output, split.kept, split.notes,
                                split.images_kept)
        placed.append(ToolCallResult(tool_name=result.tool_name,
                                     tool_kwargs=result.tool_kwargs, tool_id=result.tool_id,
                                     tool_output=output, return_direct=result.return_direct))
    if not moved:
        return placed, None
    return placed, ChatMessage(role="user", blocks=[TextBlock(text=IMAGES_INTRO), *moved])


def _drop_older_images(messages: list[ChatMessage], keep_images: int) -> list[ChatMessage]:
    """``messages`` with all but the latest ``keep_images`` images replaced by a note."""
    total = sum(1 for m in messages for b in m.blocks if _is_image(b))
    older = older_images(total, keep_images)
    out: list[ChatMessage] = []
    for message in messages:
        if older == 0 or not any(_is_image(b) for b in message.blocks):
            out.append(message)
            continue
        blocks: list[ContentBlock] = []
        for block in message.blocks:
            if _is_image(block) and older > 0:
                older -= 1
                blocks.append(TextBlock(text=IMAGE_OLDER))
            else:
                blocks.append(block)
        out.append(message.model_copy(update={"blocks": blocks}))
    return out


class WebFunctionAgent(FunctionAgent):
    """A ``FunctionAgent`` that gives each tool's images to its model where the model's API
    takes them (see the module docstring): ``model`` names the chat model
    (``provider:model``, looked up in ``webrefs.tools.capabilities``) or gives its
    ``Capabilities``; ``keep_images`` is how many of the run's latest images are still sent
    (older ones become a note asking for a new ``web_screenshot``)."""

    model: str | Capabilities = Field(
        description="The chat model (provider:model) or its Capabilities: where images go.")
    keep_images: int = Field(default=2, description="Images of the run still sent.")

    async def handle_tool_call_results(self, ctx: Any, results: list[ToolCallResult],
                                       memory: BaseMemory) -> None:
        placed, images = place_tool_results(results, self.model)
        await super().handle_tool_call_results(ctx, placed, memory)
        scratchpad = cast(list[ChatMessage],
                          await ctx.store.get(self.scratchpad_key, default=[]))
        if images is not None and scratchpad and scratchpad[-1].role == "tool":
            scratchpad.append(images)  # not after a tool's direct answer, which ends the run
        await ctx.store.set(self.scratchpad_key,
                            _drop_older_images(scratchpad, self.keep_images))


class SeenObservation(ObservationReasoningStep):
    """A ReAct observation with the images that go with it (see :class:`WebReActAgent`)."""

    images: list[ImageBlock] = Field(default_factory=list)
    """Images for the observation's own message."""
    then: ChatMessage | None = None
    """A user message with images, sent right after the observation."""


class WebReActChatFormatter(ReActChatFormatter):
    """The ReAct formatter, sending each :class:`SeenObservation`'s images with it; only the
    latest ``keep_images`` images of the run are sent."""

    keep_images: int = 2

    def format(self, tools: Sequence[Any], chat_history: list[ChatMessage],
               current_reasoning: list[BaseReasoningStep] | None = None) -> list[ChatMessage]:
        steps = current_reasoning or []
        messages = super().format(tools, chat_history, steps)
        if not steps:
            return messages
        head, tail = messages[:-len(steps)], messages[-len(steps):]
        reasoning: list[ChatMessage] = []
        for step, message in zip(steps, tail, strict=True):
            if isinstance(step, SeenObservation):
                message = message.model_copy(update={"blocks": [*message.blocks,
                                                                *step.images]})
            reasoning.append(message)
            if isinstance(step, SeenObservation) and step.then is not None:
                reasoning.append(step.then)
        return [*head, *_drop_older_images(reasoning, self.keep_images)]


def _web_formatter(fields: dict[str, Any] | None = None) -> ReActChatFormatter:
    return WebReActChatFormatter.from_defaults(context=(fields or {}).get("system_prompt"))


class WebReActAgent(ReActAgent):
    """A ``ReActAgent`` that sends each tool's images with the observation it writes (a user
    message, which every model that reads images takes), or, with an observation role of
    ``tool``, where ``model`` takes them (as :class:`WebFunctionAgent`); its formatter must
    be a :class:`WebReActChatFormatter` (the default)."""

    model: str | Capabilities = Field(
        description="The chat model (provider:model) or its Capabilities: where images go.")
    keep_images: int = Field(default=2, description="Images of the run still sent.")
    formatter: ReActChatFormatter = Field(default_factory=_web_formatter)

    @model_validator(mode="after")
    def _formatter_sends_images(self) -> WebReActAgent:
        if not isinstance(self.formatter, WebReActChatFormatter):
            raise ValueError("WebReActAgent needs a WebReActChatFormatter as its formatter "
                             "(the default); a plain ReActChatFormatter drops the images")
        self.formatter.keep_images = self.keep_images
        return self

    async def handle_tool_call_results(self, ctx: Any, results: list[ToolCallResult],
                                       memory: BaseMemory) -> None:
        caps = capabilities_of(self.model)
        if self.formatter.observation_role == "user":  # a user message takes images
            caps = replace(caps, images_in_tool_results=caps.images)
        placed, images = place_tool_results(results, caps)
        before = len(await ctx.store.get(self.reasoning_key, default=[]))
        await super().handle_tool_call_results(ctx, placed, memory)
        reasoning = cast(list[BaseReasoningStep],
                         await ctx.store.get(self.reasoning_key, default=[]))
        observed = [i for i in range(before, len(reasoning))
                    if type(reasoning[i]) is ObservationReasoningStep]
        for i, result in zip(observed, placed, strict=False):
            step = reasoning[i]
            assert isinstance(step, ObservationReasoningStep)
            reasoning[i] = SeenObservation(
                observation=step.observation, return_direct=step.return_direct,
                images=[b for b in result.tool_output.blocks if isinstance(b, ImageBlock)],
                then=images if i == observed[-1] else None)
        await ctx.store.set(self.reasoning_key, reasoning)
