"""What an agent loop hands back to its episode, and how its errors are told apart.

Both loops (LangChain's ``create_agent`` in :mod:`.episode`, LlamaIndex's ``FunctionAgent``
in :mod:`.llamaindex_loop`) return a :class:`LoopResult`; :func:`classify_error` maps what
stopped a loop to an episode status: the reference could not go on or the steps ran out
(``failure``), a replay without a recording (``invalid``), the provider failing or the
episode's time running out (``error``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from webrefs.errors import WebrefsError

from .providermodel import ProviderError
from .recording import ReplayMiss
from .results import Status, ToolCall
from .scripted import ScriptError

if TYPE_CHECKING:
    from .episode import EpisodeOptions

__all__ = ["LoopResult", "classify_error"]


@dataclass
class LoopResult:
    status: Status
    """``failure`` unless the loop was stopped by an error (checks decide success)."""
    reason: str
    steps: list[ToolCall] = field(default_factory=list)
    answer: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    system: str = ""
    """The system prompt the model was given."""


def classify_error(exc: BaseException, options: EpisodeOptions,
                   max_steps: int) -> tuple[Status, str]:
    """The status and reason for what stopped an agent loop."""
    if isinstance(exc, TimeoutError):
        return "error", f"the episode took longer than {options.timeout_s:.0f} s"
    if isinstance(exc, ScriptError):
        return "failure", f"the reference could not go on: {exc.message}"
    if isinstance(exc, ReplayMiss):
        return "invalid", exc.message
    if isinstance(exc, ProviderError):
        return "error", exc.message
    if isinstance(exc, WebrefsError):
        return "error", f"{type(exc).__name__}: {exc.message[:300]}"
    name = type(exc).__name__
    text = str(exc)
    if name == "GraphRecursionError" or "Max iterations" in text:
        return "failure", f"ran out of steps (max_steps={max_steps})"
    return "error", f"{name}: {' '.join(text.split())[:300]}"
