"""Options of a tool registry (:class:`ToolOptions`): frozen, validated on creation."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidArgumentError
from ..options import After

__all__ = ["ToolOptions"]


@dataclass(frozen=True)
class ToolOptions:
    """How a :class:`WebTools` registry behaves."""

    max_tokens: int = 3000
    """Token budget of snapshots the tools return (``web_snapshot`` may ask for another)."""
    tools: str | tuple[str, ...] = "default"
    """The tools to start from: ``"default"`` (core and navigation tools), ``"all"`` (every
    tool this binding can offer), another group name of ``TOOL_GROUPS``, or a list of tool
    (or group) names, which replaces the defaults exactly."""
    include: tuple[str, ...] | None = None
    """Tools (or group names) added to ``tools``, such as ``web_hover`` or ``"optional"``."""
    exclude: tuple[str, ...] = ()
    """Tools (or group names) removed from the selection."""
    after_action: After = "none"
    """What an action returns besides its one-line summary: nothing, the changes in the
    snapshot since the last one the tools returned, or the whole new snapshot."""
    allow_navigation: bool = True
    """Offer ``web_navigate``, ``web_go_back``, ``web_go_forward`` and ``web_reload``. Set
    False when the host controls where the browser goes."""
    vision: bool = False
    """Vision mode, for models that read images: offer ``web_screenshot`` (each ref it shows
    drawn as a labelled box), and let ``web_click``, ``web_hover`` and ``web_drag`` also take
    ``x, y`` in pixels of the latest screenshot (their schemas have those arguments only
    then). Needs ``webrefs[vision]`` (Pillow)."""
    fence: bool = True
    """Fence page content (snapshots, diffs, page text) between two marker lines the page
    cannot predict, saying it is data, not instructions."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_tokens, int) or self.max_tokens < 50:
            raise InvalidArgumentError(
                f"max_tokens must be an integer >= 50, got {self.max_tokens!r}."
            )
        if self.after_action not in ("none", "diff", "snapshot"):
            raise InvalidArgumentError(
                f"after_action must be 'none', 'diff' or 'snapshot', got {self.after_action!r}."
            )
        if isinstance(self.tools, str):
            if not self.tools.strip():
                raise InvalidArgumentError("tools must be 'default', 'all', a group name or a "
                                           "list of tool names, not an empty string.")
        else:
            object.__setattr__(self, "tools", tuple(self.tools))
        for name in ("include", "exclude"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise InvalidArgumentError(f"{name} must be a list of tool names, not a string.")
            if value is not None:
                object.__setattr__(self, name, tuple(value))
