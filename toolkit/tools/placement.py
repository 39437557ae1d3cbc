"""Where a tool result's images go for one chat model: pure logic the adapters share.

A tool result is a list of blocks (text and images, in the adapter's own block types).
:func:`split_images` sorts its images by the model's :class:`~.capabilities.Capabilities`:

- kept in the tool result, where the API takes images there (Anthropic);
- moved, for one user message right after the run of tool results (each image captioned by
  :func:`caption`), where the API takes images only from the user (OpenAI's chat API); the
  tool result says so (:data:`IMAGE_MOVED`);
- left out, with a note, for a model that reads no images (:data:`IMAGE_LEFT_OUT`), or
  because it is older than the latest ``keep_images`` images (:data:`IMAGE_OLDER`).

Each adapter walks its own message types and builds its own messages; the decision and the
words the model reads are made here once. The words name tools, never Python APIs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from .capabilities import Capabilities, capabilities

__all__ = [
    "IMAGES_INTRO",
    "IMAGE_LEFT_OUT",
    "IMAGE_MOVED",
    "IMAGE_OLDER",
    "Split",
    "Where",
    "capabilities_of",
    "caption",
    "note",
    "older_images",
    "split_images",
    "where",
]

IMAGE_MOVED = "(The image is in the user message after these tool results.)"
IMAGE_LEFT_OUT = "(The image was left out: this model does not read images.)"
IMAGE_OLDER = "(An earlier image, left out to save tokens; take a new web_screenshot.)"
IMAGES_INTRO = "Images returned by the tool calls above:"

Where = Literal["tool", "after", "none"]
"""Where a model takes a tool's image: in the tool result, in a user message after the tool
results, or nowhere."""

B = TypeVar("B")


def capabilities_of(model: str | Capabilities) -> Capabilities:
    """``model``'s capabilities: a ``provider:model`` name looked up in the table, or given."""
    return capabilities(model) if isinstance(model, str) else model


def where(caps: Capabilities) -> Where:
    """Where a model with ``caps`` takes a tool's image."""
    if not caps.images:
        return "none"
    return "tool" if caps.images_in_tool_results else "after"


def caption(tool: str | None, call_id: str | None) -> str:
    """The line before a moved image in the user message: which tool call returned it."""
    return f"Image of {tool or 'a tool'} (call {call_id}):"


def older_images(total: int, keep_images: int) -> int:
    """How many of ``total`` images, the oldest first, are not sent when only the latest
    ``keep_images`` are."""
    return max(total - max(keep_images, 0), 0)


def note(notes: Sequence[str]) -> str:
    """The notes of one tool result as one line, each said once."""
    return " ".join(dict.fromkeys(notes))


@dataclass(frozen=True)
class Split(Generic[B]):
    """One tool result's blocks, sorted for a model."""

    kept: list[B] = field(default_factory=list)
    """What stays in the tool result, in order: its text and the images kept there."""
    moved: list[B] = field(default_factory=list)
    """Images for the user message after the tool results, in order."""
    notes: list[str] = field(default_factory=list)
    """What the tool result says about images not kept in it."""
    older: int = 0
    """How many of the ``older`` images asked to be dropped are still to drop after this
    result (pass it to the next result's :func:`split_images`)."""
    images_kept: bool = False
    """Whether an image stays in the tool result (else it is text only)."""


def split_images(blocks: Sequence[B], is_image: Callable[[B], bool], caps: Capabilities, *,
                 older: int = 0) -> Split[B]:
    """Sort ``blocks`` (one tool result) for a model with ``caps``; the first ``older`` images
    (the oldest of the conversation not yet dropped) are left out with :data:`IMAGE_OLDER`."""
    place = where(caps)
    kept: list[B] = []
    moved: list[B] = []
    notes: list[str] = []
    images_kept = False
    for block in blocks:
        if not is_image(block):
            kept.append(block)
        elif older > 0:
            older -= 1
            notes.append(IMAGE_OLDER)
        elif place == "none":
            notes.append(IMAGE_LEFT_OUT)
        elif place == "tool":
            kept.append(block)
            images_kept = True
        else:
            moved.append(block)
            notes.append(IMAGE_MOVED)
    return Split(kept, moved, notes, older, images_kept)
