"""What a chat model's API accepts, by provider family: native tool calling, images at all,
and images inside tool results. Pure data and one lookup.

Adapters read it to put a screenshot where the model's API takes it (in the tool result, or
in a user message right after the tool results, which the tool result points to, or nowhere
with a note), and the eval harness reads it to pick how a model sees pages when a run does
not say (:attr:`Capabilities.default_mode`):

- ``dom``: the text outline only (``web_snapshot``), no images;
- ``vision``: pages seen as screenshots with marks (``web_screenshot``), acting on refs or
  points of the image (``vision=True``; no outline tool);
- ``hybrid``: both, the outline to read and act, the screenshot when the outline is not
  enough.

Models are named ``provider:model`` as LangChain's ``init_chat_model`` takes them
(``openai:gpt-4.1-mini``, ``anthropic:claude-sonnet-4-5``); :data:`CAPABILITY_TABLE` is
matched in order with shell globs (case-insensitive); a model it does not know gets
:data:`UNKNOWN` (tool calling, no images), the safe guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

__all__ = ["CAPABILITY_TABLE", "MODES", "UNKNOWN", "Capabilities", "Mode", "capabilities"]

Mode = Literal["dom", "vision", "hybrid"]
MODES: tuple[Mode, ...] = ("dom", "vision", "hybrid")


@dataclass(frozen=True)
class Capabilities:
    """What one chat model's API accepts."""

    tool_calling: bool = True
    """Native tool calls (else actions are written as JSON in text)."""
    images: bool = False
    """Images in its input at all (in a user message)."""
    images_in_tool_results: bool = False
    """Images inside a tool result (Anthropic's ``tool_result`` blocks take them; OpenAI's
    chat ``tool`` messages take text only)."""

    @property
    def default_mode(self) -> Mode:
        """How the model sees pages unless told: ``hybrid`` when it reads images and calls
        tools, else ``dom``."""
        return "hybrid" if self.images and self.tool_calling else "dom"


_TEXT = Capabilities()
_IMAGES_AFTER = Capabilities(images=True)
_IMAGES_IN_TOOLS = Capabilities(images=True, images_in_tool_results=True)

CAPABILITY_TABLE: tuple[tuple[str, Capabilities], ...] = (
    ("anthropic:*", _IMAGES_IN_TOOLS),
    ("bedrock*:*anthropic.claude*", _IMAGES_IN_TOOLS),
    ("openai:gpt-4o*", _IMAGES_AFTER),
    ("openai:gpt-4.1*", _IMAGES_AFTER),
    ("openai:gpt-5*", _IMAGES_AFTER),
    ("openai:o1*", _IMAGES_AFTER),
    ("openai:o3*", _IMAGES_AFTER),
    ("openai:o4*", _IMAGES_AFTER),
    ("azure_openai:gpt-4o*", _IMAGES_AFTER),
    ("azure_openai:gpt-4.1*", _IMAGES_AFTER),
    ("google_genai:gemini*", _IMAGES_AFTER),
    ("google_vertexai:gemini*", _IMAGES_AFTER),
    ("mistralai:pixtral*", _IMAGES_AFTER),
    ("mistralai:mistral-medium*", _IMAGES_AFTER),
    ("ollama:llava*", Capabilities(tool_calling=False, images=True)),
    ("ollama:gemma:*", Capabilities(tool_calling=False)),
    ("ollama:gemma2*", Capabilities(tool_calling=False)),
    ("ollama:llama2*", Capabilities(tool_calling=False)),
    ("ollama:phi3*", Capabilities(tool_calling=False)),
    ("ollama:tinyllama*", Capabilities(tool_calling=False)),
)
"""``(glob, capabilities)``, first match wins."""

UNKNOWN = _TEXT
"""A model the table does not know: tool calling, no images."""


def capabilities(model: str) -> Capabilities:
    """The capabilities of ``model`` (``provider:model``) from :data:`CAPABILITY_TABLE`."""
    name = model.strip().lower()
    for pattern, caps in CAPABILITY_TABLE:
        if fnmatchcase(name, pattern):
            return caps
    return UNKNOWN
