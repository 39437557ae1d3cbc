"""LangChain tools for webrefs: a ``BaseToolkit`` over the one tool registry.

::

    from webrefs import Browser
    from webrefs.adapters.langchain import WebToolkit

    browser = Browser.launch()
    tools = WebToolkit(browser=browser).get_tools()     # BaseTool instances

Every tool has an ``args_schema``, a blocking ``_run`` and a native async ``_arun``, and answers
``(content, artifact)`` (``response_format="content_and_artifact"``): text for the model, and
the :class:`~webrefs.Snapshot` / :class:`~webrefs.ActionResult` for programs. Errors (a stale
ref, a blocked navigation, bad arguments) come back as tool messages, so a graph keeps going.

The system prompt names the current page, which changes as the agent works: give
``create_agent`` the middleware ``toolkit.live_prompt()`` (not ``system_prompt=``) and the prompt
is made again before every model call::

    agent = create_agent(model, toolkit.get_tools(), middleware=[toolkit.live_prompt()])

With ``vision=True``, ``web_screenshot`` answers with an image block in its tool message.
Not every chat API takes images there (OpenAI's chat ``tool`` messages take text only): add
the middleware ``toolkit.image_placement("openai:gpt-4.1")`` (a model name, looked up in
``webrefs.tools.capabilities``, or a ``Capabilities``), and before every model call each
image moves to where that model takes it: kept in the tool message, or moved into one user
message right after the tool results (the tool message says so), or left out with a note;
only the latest ``keep_images`` images are sent at all::

    agent = create_agent(model, toolkit.get_tools(), middleware=[
        toolkit.live_prompt("vision"), toolkit.image_placement("openai:gpt-4.1")])
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import cache, partial
from typing import TYPE_CHECKING, Any, Literal

from webrefs.errors import missing_extra

try:
    from langchain_core.tools import BaseTool, BaseToolkit, ToolException
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.adapters.langchain", "langchain") from exc

from pydantic import ConfigDict, Field, PrivateAttr, SkipValidation
from webrefs import Browser, ConsentRequest, SafetyPolicy, Tab
from webrefs.errors import ConsentError, WebrefsError
from webrefs.tools import ToolOutput, ToolSpec, WebTools
from webrefs.tools.capabilities import Capabilities
from webrefs.tools.fmt import format_error, format_validation_error
from webrefs.tools.placement import (
    IMAGE_LEFT_OUT,
    IMAGE_MOVED,
    IMAGE_OLDER,
    IMAGES_INTRO,
    capabilities_of,
    caption,
    note,
    older_images,
    split_images,
)

from .consent import Approvals, askable, decide, question, rejected

if TYPE_CHECKING:
    from langchain.agents.middleware import AgentMiddleware

__all__ = ["IMAGES_INTRO", "IMAGE_LEFT_OUT", "IMAGE_MOVED", "IMAGE_OLDER", "WebTool",
           "WebToolkit", "image_placement", "live_prompt", "place_images"]


def _content(out: ToolOutput) -> str | list[str | dict[str, Any]]:
    """Text, or text plus image blocks when the tool returned images (web_screenshot)."""
    if not out.images:
        return out.content
    blocks: list[str | dict[str, Any]] = [{"type": "text", "text": out.content}]
    for png in out.images:
        blocks.append({"type": "image", "base64": base64.b64encode(png).decode("ascii"),
                       "mime_type": "image/png"})
    return blocks


class WebTool(BaseTool):
    """One webrefs tool as a LangChain tool. Built by :meth:`WebToolkit.get_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: Any = True
    webtools: SkipValidation[WebTools] = Field(exclude=True)
    """The registry this tool runs on."""
    approvals: SkipValidation[Approvals | None] = Field(default=None, exclude=True)
    """With ``interrupt_on_confirm``: the actions a human approved, each used once."""

    @classmethod
    def from_spec(cls, spec: ToolSpec, webtools: WebTools,
                  approvals: Approvals | None = None) -> WebTool:
        return cls(
            name=spec.name,
            description=spec.description,
            args_schema=spec.args_model,
            webtools=webtools,
            handle_validation_error=partial(format_validation_error, spec.name),
            metadata=spec.hints.as_mcp(),
            approvals=approvals,
        )

    def _run(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        arguments = _arguments(args, kwargs)
        try:
            try:
                out = self.webtools.call(self.name, arguments)
            except ConsentError as err:
                arguments, edited = self._ask_human(err, arguments)
                try:
                    out = self.webtools.call(self.name, arguments)
                except ConsentError as again:
                    self._edit_approves(again, edited)
                    out = self.webtools.call(self.name, arguments)
        except WebrefsError as err:
            raise ToolException(format_error(self.name, err)) from err
        return _content(out), out.artifact

    async def _arun(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        arguments = _arguments(args, kwargs)
        try:
            try:
                out = await self.webtools.acall(self.name, arguments)
            except ConsentError as err:
                arguments, edited = self._ask_human(err, arguments)
                try:
                    out = await self.webtools.acall(self.name, arguments)
                except ConsentError as again:
                    self._edit_approves(again, edited)
                    out = await self.webtools.acall(self.name, arguments)
        except WebrefsError as err:
            raise ToolException(format_error(self.name, err)) from err
        return _content(out), out.artifact

    def _ask_human(self, err: ConsentError, arguments: Any) -> tuple[Any, bool]:
        """With ``interrupt_on_confirm``, a ``confirm`` action becomes a LangGraph interrupt in
        the shape of LangChain's human-in-the-loop middleware (the graph pauses; resume with
        an approve, edit or reject decision). Returns the arguments to call with (the edited
        ones after an edit) and whether they were edited; a rejection raises the refusal, and
        without the option ``err`` is raised."""
        request = askable(err)
        if self.approvals is None or request is None:
            raise err
        from langgraph.types import interrupt

        said = decide(interrupt(consent_payload(self.name, request, arguments)), self.name)
        if said.kind == "reject":
            raise rejected(self.name, err, request, said.message)
        if said.kind == "edit" and said.args is not None:
            return said.args, True
        self.approvals.add(request)
        return arguments, False

    def _edit_approves(self, err: ConsentError, edited: bool) -> None:
        """An action the person edited is approved as edited: its own consent question (its
        target may differ from the one asked about) is answered yes once; else ``err``."""
        request = askable(err)
        if not edited or self.approvals is None or request is None:
            raise err
        self.approvals.add(request)


def consent_payload(tool: str, request: ConsentRequest, arguments: Any = None) -> dict[str, Any]:
    """What a LangGraph interrupt for consent carries: LangChain's human-in-the-loop request
    (``action_requests`` and ``review_configs``: approve, edit or reject), so its agent UIs
    show and resume it, with webrefs' details beside it (what, where, why)."""
    ask = question(tool, request)
    args = dict(arguments) if isinstance(arguments, dict) else {}
    return {
        "action_requests": [{"name": tool, "args": args, "description": ask}],
        "review_configs": [{"action_name": tool,
                            "allowed_decisions": ["approve", "edit", "reject"]}],
        "type": "webrefs_consent", "tool": tool, "action": request.action,
        "target": request.target, "target_name": request.target_name, "url": request.url,
        "level": request.level, "reasons": list(request.reasons),
        "request": request.effect.describe() if request.effect is not None else None,
        "question": ask,
        "answers": ["approve", "edit", "reject"],
    }


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the registry gets: the named arguments, or the one value given positionally
    (``tool.invoke("e5")``), which the registry matches to the tool's required argument."""
    if not args:
        return kwargs
    return args[0] if len(args) == 1 and not kwargs else args


class WebToolkit(BaseToolkit):
    """Browser tools for LangChain agents, acting on a Browser's active tab (or one Tab).

    ``tools`` is where the selection starts: ``"default"`` (core and navigation tools),
    ``"all"``, a group name of ``webrefs.tools.TOOL_GROUPS``, or an exact list of names;
    ``include`` adds tools (opt-in ones: ``web_hover``, ``web_upload``, ``web_tabs``, or
    the group ``"optional"``); ``exclude`` removes some; ``after_action``
    is ``"none"``, ``"diff"`` or ``"snapshot"``; ``allow_navigation=False`` drops
    ``web_navigate`` and ``web_go_back``; ``vision=True`` adds ``web_screenshot`` (with marks)
    and lets ``web_click``, ``web_hover`` and ``web_drag`` take points of it; add
    :meth:`image_placement` so the image reaches the model where its API takes it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    browser: SkipValidation[Browser | None] = None
    """Tools act on this browser's active tab..."""
    tab: SkipValidation[Tab | None] = None
    """...or always on this tab (give one of the two)."""
    max_tokens: int = 3000
    tools: str | Sequence[str] = "default"
    include: Sequence[str] | None = None
    exclude: Sequence[str] | None = None
    after_action: Literal["none", "diff", "snapshot"] = "none"
    allow_navigation: bool = True
    vision: bool = False
    safety: Any = None
    """A ``webrefs.SafetyPolicy`` for the browser (default: the one it has)."""
    interrupt_on_confirm: bool = False
    """In a LangGraph graph (with a checkpointer), turn each action that needs consent into
    a human-in-the-loop interrupt: ``langgraph.types.interrupt`` with a ``webrefs_consent``
    payload; resume with ``Command(resume="approve")`` (it runs) or ``"reject"`` (refused).
    A request an action caused that needs consent (held, never sent) interrupts the same
    way (its ``request`` field says what was held); approved, the action runs again and that
    request is sent."""
    _webtools: WebTools = PrivateAttr()
    _approvals: Approvals | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        safety = self.safety
        if self.interrupt_on_confirm:
            # not decided by the callback: the tool asks a human through an interrupt
            self._approvals = Approvals()
            bound: Any = self.browser if self.browser is not None else self.tab
            base = safety or (bound.safety if bound is not None else SafetyPolicy())
            safety = replace(base, consent=self._approvals, consent_by="the user")
        self._webtools = WebTools(
            self.browser,
            tab=self.tab,
            safety=safety,
            max_tokens=self.max_tokens,
            tools=self.tools if isinstance(self.tools, str) else tuple(self.tools),
            include=tuple(self.include) if self.include is not None else None,
            exclude=tuple(self.exclude or ()),
            after_action=self.after_action,
            allow_navigation=self.allow_navigation,
            vision=self.vision,
        )

    @classmethod
    def from_tab(cls, tab: Tab, **options: Any) -> WebToolkit:
        """Tools that always act on ``tab``."""
        return cls(tab=tab, **options)

    @property
    def webtools(self) -> WebTools:
        """The registry behind the tools (``call``/``acall`` by name, ``system_prompt``)."""
        return self._webtools

    def get_tools(self) -> list[BaseTool]:
        return [WebTool.from_spec(spec, self._webtools, self._approvals)
                for spec in self._webtools.specs]

    def system_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                      page_state: bool = True) -> str:
        """The system prompt (``dom`` or ``vision``) with a summary of the current page as it
        is now (``page_state=False`` leaves it out). For an agent, prefer
        :meth:`live_prompt`, which stays true after the agent navigates."""
        return self._webtools.system_prompt(mode, tool_calling=tool_calling,
                                            page_state=page_state)

    async def asystem_prompt(self, mode: str = "dom", *, tool_calling: bool = True,
                             page_state: bool = True) -> str:
        return await self._webtools.asystem_prompt(mode, tool_calling=tool_calling,
                                                   page_state=page_state)

    def live_prompt(self, mode: str = "dom", *, tool_calling: bool = True) -> AgentMiddleware:
        """Agent middleware that sets the system prompt before every model call, so its
        "current browser state" is the page as it is then: see :func:`live_prompt`."""
        return live_prompt(self._webtools, mode, tool_calling=tool_calling)

    def image_placement(self, model: str | Capabilities, *,
                        keep_images: int = 2) -> AgentMiddleware:
        """Agent middleware that puts screenshots where ``model`` takes them: see
        :func:`image_placement`."""
        return image_placement(model, keep_images=keep_images)


def _is_image(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in ("image", "image_url")


def _text_of(blocks: list[Any]) -> str:
    parts = [b if isinstance(b, str) else str(b.get("text", "")) for b in blocks
             if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")]
    return "\n".join(p for p in parts if p)


def place_images(messages: Sequence[Any], model: str | Capabilities, *,
                 keep_images: int = 2) -> list[Any]:
    """``messages`` with the images of tool messages where ``model`` (a name looked up in
    :func:`webrefs.tools.capabilities.capabilities`, or its :class:`Capabilities`) accepts
    them (:func:`webrefs.tools.placement.split_images`): kept in the tool message when its
    API takes images there; else moved into one user message after each run of tool
    messages, each tool message saying so; else left out with a note. Only the last
    ``keep_images`` images are kept (older ones become a note). The messages given are not
    changed."""
    from langchain_core.messages import HumanMessage, ToolMessage

    caps = capabilities_of(model)
    total = sum(1 for m in messages if isinstance(m, ToolMessage)
                and isinstance(m.content, list) for b in m.content if _is_image(b))
    older = older_images(total, keep_images)
    out: list[Any] = []
    moved: list[Any] = []

    def flush() -> None:
        if moved:
            out.append(HumanMessage(content=[{"type": "text", "text": IMAGES_INTRO}, *moved]))
            moved.clear()

    for message in messages:
        if not isinstance(message, ToolMessage):
            flush()
            out.append(message)
            continue
        content = message.content
        if not isinstance(content, list) or not any(_is_image(b) for b in content):
            out.append(message)
            continue
        split = split_images(content, _is_image, caps, older=older)
        older = split.older
        for image in split.moved:
            moved.append({"type": "text",
                          "text": caption(message.name, message.tool_call_id)})
            moved.append(image)
        said = note(split.notes)
        if split.images_kept:
            kept = [*split.kept, {"type": "text", "text": said}] if said else split.kept
            out.append(message.model_copy(update={"content": kept}))
        else:  # text only: a plain string, which every API takes in a tool message
            text = "\n".join(t for t in (_text_of(split.kept), said) if t)
            out.append(message.model_copy(update={"content": text}))
    flush()
    return out


def image_placement(model: str | Capabilities, *, keep_images: int = 2) -> AgentMiddleware:
    """LangChain v1 agent middleware that rewrites the messages before every model call with
    :func:`place_images` for ``model`` (the agent's state keeps the originals)."""
    return _image_placement_class()(model, keep_images)


@cache
def _image_placement_class() -> Callable[[str | Capabilities, int], AgentMiddleware]:
    try:
        from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    except ImportError as exc:  # pragma: no cover - the langchain extra installs it
        raise missing_extra("webrefs.adapters.langchain image_placement", "langchain") from exc

    class ImagePlacement(AgentMiddleware):
        """Puts each tool result's images where the model's API takes them."""

        def __init__(self, model: str | Capabilities, keep_images: int) -> None:
            super().__init__()
            self.model = model
            self.keep_images = keep_images

        def _placed(self, request: ModelRequest) -> ModelRequest:
            return request.override(messages=place_images(
                request.messages, self.model, keep_images=self.keep_images))

        def wrap_model_call(
            self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse],
        ) -> ModelResponse:
            return handler(self._placed(request))

        async def awrap_model_call(
            self, request: ModelRequest,
            handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
        ) -> ModelResponse:
            return await handler(self._placed(request))

    return ImagePlacement


def live_prompt(webtools: WebTools, mode: str = "dom", *,
                tool_calling: bool = True) -> AgentMiddleware:
    """LangChain v1 agent middleware (``create_agent(..., middleware=[...])``) that puts the
    webrefs system prompt of ``mode``, made afresh from the browser, before every model call.
    A system prompt given to ``create_agent`` itself is kept, after the webrefs prompt (for
    your own instructions); do not also pass ``toolkit.system_prompt()`` there."""
    return _live_prompt_class()(webtools, mode, tool_calling)


@cache
def _live_prompt_class() -> Callable[[WebTools, str, bool], AgentMiddleware]:
    """The middleware class, made on first use: ``langchain.agents`` is only imported by
    hosts that build agents with it."""
    try:
        from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
        from langchain_core.messages import SystemMessage
    except ImportError as exc:  # pragma: no cover - the langchain extra installs it
        raise missing_extra("webrefs.adapters.langchain live_prompt", "langchain") from exc

    class LivePrompt(AgentMiddleware):
        """Sets the system prompt from the browser before each model call."""

        def __init__(self, webtools: WebTools, mode: str, tool_calling: bool) -> None:
            super().__init__()
            self.webtools = webtools
            self.mode = mode
            self.tool_calling = tool_calling

        def _with(self, request: ModelRequest, prompt: str) -> ModelRequest:
            own = request.system_message
            if own is not None and own.text:
                prompt = prompt.rstrip() + "\n\n" + own.text
            return request.override(system_message=SystemMessage(content=prompt))

        def wrap_model_call(
            self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse],
        ) -> ModelResponse:
            prompt = self.webtools.system_prompt(self.mode, tool_calling=self.tool_calling)
            return handler(self._with(request, prompt))

        async def awrap_model_call(
            self, request: ModelRequest,
            handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
        ) -> ModelResponse:
            prompt = await self.webtools.asystem_prompt(self.mode,
                                                        tool_calling=self.tool_calling)
            return await handler(self._with(request, prompt))

    return LivePrompt
