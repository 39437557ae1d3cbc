"""How episodes run (:class:`EpisodeOptions`), what an agent loop hands back to its episode,
and how its errors are told apart.

Both loops (LangChain's ``create_agent`` in :mod:`.episode`, LlamaIndex's ``FunctionAgent``
in :mod:`.llamaindex_loop`) return a :class:`LoopResult`; :func:`classify_error` maps what
stopped a loop to an episode status: the reference could not go on or the steps ran out
(``failure``), a replay without a recording (``invalid``), the provider failing or the
episode's time running out (``error``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webrefs.errors import WebrefsError
from webrefs.options import After
from webrefs.tools.capabilities import Mode

from ..baselines.scripted import ScriptError
from ..models.providermodel import ProviderError
from ..models.recording import ReplayMiss
from ..reports.results import Status, ToolCall
from ..suite.redact import redact_urls

__all__ = ["CLOCK_START", "EpisodeOptions", "LoopResult", "classify_error"]

CLOCK_START = 1_767_225_600.0
"""The instant every episode's page clock starts at (2026-01-01 00:00:00 UTC), in seconds."""


@dataclass(frozen=True)
class EpisodeOptions:
    """How episodes run (the same for every task and provider of a run)."""

    max_tokens: int = 3000
    """Snapshot token budget of the tools."""
    after_action: After = "none"
    """What actions return besides their summary: none, diff or snapshot."""
    include: tuple[str, ...] | None = None
    """Exactly these webrefs tools (``None``: the defaults)."""
    max_steps: int | None = None
    """Overrides each task's ``max_steps`` when set."""
    seed: int = 0
    """Seeds ``Math.random`` on every page."""
    timeout_s: float = 300.0
    """Wall-clock bound of one episode."""
    retries: int = 3
    """Retries of a failed model call (rate limit, overload, timeout) before the episode is
    an error."""
    time_limit: bool = True
    """Tasks keep their own time limit (a page's timer, told by ``Task.setup``); false
    lifts it."""
    mode: Mode | None = None
    """How models see pages: ``dom`` (the outline), ``vision`` (screenshots with marks,
    points as targets; no outline tool) or ``hybrid`` (both); ``None``: each provider's
    default from the capability table (``Provider.capabilities``)."""
    step_ms: int = 100
    """The episode's controlled page clock: it starts at :data:`CLOCK_START`, is paused, and
    moves this many milliseconds before each tool call (firing the page timers due, in
    order), plus the seconds a ``web_wait_for`` asks for; so a time-driven page shows the
    same thing at the same step of every run, and a replay repeats a recording exactly.
    ``0`` leaves the page's clock real (time passes as it does on the machine)."""

    def as_dict(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "after_action": self.after_action,
                "tools": list(self.include) if self.include is not None else "default",
                "max_steps": self.max_steps, "seed": self.seed, "timeout_s": self.timeout_s,
                "retries": self.retries, "time_limit": self.time_limit,
                "step_ms": self.step_ms,
                **({"mode": self.mode} if self.mode is not None else {})}


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
    return "error", f"{name}: {redact_urls(' '.join(text.split()))[:300]}"
