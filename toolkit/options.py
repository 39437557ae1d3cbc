"""Frozen option objects. Options flow down and are copied with ``replace``, never mutated."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from .errors import InvalidArgumentError

__all__ = ["RenderOptions", "TabOptions", "merge_options"]

After = Literal["none", "diff", "snapshot"]


@dataclass(frozen=True)
class RenderOptions:
    """How a page tree becomes snapshot text. Every limit is a hard ceiling."""

    max_tokens: int = 3000
    """Exact tiktoken count of the whole returned text never exceeds this."""
    max_chars: int | None = None
    """Length of the whole returned text never exceeds this. ``None``: follows the token
    budget (``max(12000, 8 * max_tokens)``), so on ordinary text the token budget bites first."""
    max_nodes: int | None = None
    """At most this many outline lines for nodes (markers and header not counted). ``None``:
    no cap of its own (every line costs tokens, so the token budget bounds it)."""
    max_depth: int = 12
    """Deeper nodes are lifted to this depth; structure below it is not drawn."""
    max_text_per_node: int = 200
    """Names and texts longer than this are cut with an ellipsis."""
    interactive_only: bool = True
    """Only elements an agent acts on (and the structure around them); else content too."""
    compact: bool = True
    """Drop structural nodes with nothing kept under them and fold single-child wrappers."""
    scope: str | None = None
    """A ref (render only that subtree) or a CSS selector (extract only that subtree)."""
    viewport_only: bool = False
    """Keep only nodes that intersect the current viewport."""
    format: Literal["text", "json"] = "text"
    """``text`` for models; ``json`` for programs (same nodes, same budget)."""
    encoding: str = "o200k_base"
    """tiktoken encoding name, or a model name that maps to one."""

    def __post_init__(self) -> None:
        for name in ("max_tokens", "max_chars", "max_nodes", "max_depth", "max_text_per_node"):
            value = getattr(self, name)
            if value is None and name in ("max_chars", "max_nodes"):
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidArgumentError(f"{name} must be a positive integer, got {value!r}.",
                                           host_hint=f"(RenderOptions.{name})")
        if self.format not in ("text", "json"):
            raise InvalidArgumentError(f"format must be 'text' or 'json', got {self.format!r}.",
                                       host_hint="(RenderOptions.format)")


@dataclass(frozen=True)
class TabOptions:
    """How actions behave on a tab."""

    dialogs: Literal["dismiss", "accept"] = "dismiss"
    """What to do with alert/confirm/prompt/beforeunload dialogs. They never block."""
    prompt_text: str | None = None
    """Answer typed into prompt() dialogs when ``dialogs='accept'``."""
    max_dialogs: int = 20
    """Dialogs handled per action before the tab stops answering and reports a dialog storm."""
    after: After = "none"
    """What an action returns besides its summary: nothing, a diff, or a fresh snapshot."""
    resnapshot_on_stale: bool = False
    """On a stale ref, take a fresh snapshot and attach it to the StaleRefError."""
    action_timeout_ms: int = 5000
    """Actionability wait for one action (clamped to 500..60000; 0 never means forever)."""
    quiet_ms: int = 500
    """After an action, the DOM must stay quiet this long (adaptive: shorter on static pages;
    clamped to 0..10000)."""
    max_wait_ms: int = 10_000
    """Upper bound on the readiness wait after an action (clamped to 0..60000; 0 skips it)."""
    navigation_timeout_ms: int = 30_000
    """Upper bound for goto, back and forward."""
    max_value_chars: int = 100_000
    """Longest value fill() accepts; longer is an InvalidArgumentError."""
    upload_roots: tuple[str, ...] = ()
    """Folders upload() may read from. Empty means uploads are refused."""
    render: RenderOptions = RenderOptions()
    """Defaults for snapshots taken by this tab (including those attached to results)."""

    def __post_init__(self) -> None:
        if self.dialogs not in ("dismiss", "accept"):
            raise InvalidArgumentError(f"dialogs must be 'dismiss' or 'accept', "
                                       f"got {self.dialogs!r}.", host_hint="(TabOptions.dialogs)")
        if self.after not in ("none", "diff", "snapshot"):
            raise InvalidArgumentError(f"after must be 'none', 'diff' or 'snapshot', "
                                       f"got {self.after!r}.", host_hint="(TabOptions.after)")


def merge_options(base: Any, overrides: dict[str, Any]) -> Any:
    """``replace(base, **overrides)`` with a clear error for unknown names; ``None`` values
    mean "keep the default"."""
    names = {f.name for f in fields(base)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise InvalidArgumentError(
            f"Unknown option(s) {', '.join(unknown)} for {type(base).__name__}; "
            f"known: {', '.join(sorted(names))}."
        )
    changes = {k: v for k, v in overrides.items() if v is not None}
    return replace(base, **changes) if changes else base
