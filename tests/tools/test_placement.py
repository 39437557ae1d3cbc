"""webrefs.tools.placement: one tool result's images sorted for a model (kept in the tool
result, moved after the tool results, left out), the oldest dropped first."""

from __future__ import annotations

from webrefs.tools.capabilities import Capabilities, capabilities
from webrefs.tools.placement import (
    IMAGE_LEFT_OUT,
    IMAGE_MOVED,
    IMAGE_OLDER,
    older_images,
    split_images,
    where,
)

BLOCKS = ["text", "img:1", "more text", "img:2"]


def _is_image(block: str) -> bool:
    return block.startswith("img:")


def test_where_each_model_takes_images() -> None:
    assert where(capabilities("anthropic:claude-sonnet-4-5")) == "tool"
    assert where(capabilities("openai:gpt-4.1")) == "after"
    assert where(capabilities("somebody:text-model")) == "none"


def test_images_are_kept_moved_or_left_out() -> None:
    kept = split_images(BLOCKS, _is_image, Capabilities(images=True, images_in_tool_results=True))
    assert kept.kept == BLOCKS and kept.moved == [] and kept.notes == [] and kept.images_kept
    moved = split_images(BLOCKS, _is_image, Capabilities(images=True))
    assert moved.kept == ["text", "more text"] and moved.moved == ["img:1", "img:2"]
    assert moved.notes == [IMAGE_MOVED, IMAGE_MOVED] and not moved.images_kept
    text = split_images(BLOCKS, _is_image, Capabilities())
    assert text.kept == ["text", "more text"] and text.moved == []
    assert text.notes == [IMAGE_LEFT_OUT, IMAGE_LEFT_OUT]


def test_the_oldest_images_are_dropped_first_across_results() -> None:
    caps = Capabilities(images=True)
    older = older_images(total=3, keep_images=1)
    assert older == 2 and older_images(1, 2) == 0 and older_images(3, -1) == 3
    first = split_images(["a", "img:1"], _is_image, caps, older=older)
    assert first.notes == [IMAGE_OLDER] and first.moved == [] and first.older == 1
    second = split_images(["img:2", "img:3"], _is_image, caps, older=first.older)
    assert second.notes == [IMAGE_OLDER, IMAGE_MOVED] and second.moved == ["img:3"]
    assert second.older == 0
