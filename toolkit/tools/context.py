"""What a tool handler works with: its output type and its context.

:class:`ToolOutput` is a tool's result (text for the model, an artifact for programs).
:class:`ToolContext` gives a handler the tab to act on, the browser (when the tools drive
one), the registry's options, and the snapshot the model last saw of each tab (the baseline
of diffs). It is built by the registry from those parts, not from the registry itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import WebrefsError
from ..models import ActionResult, Screenshot, Snapshot
from ..render.diff import diff_snapshots
from ..render.tokens import TokenCounter
from ..safety.fence import fence
from .fmt import format_action, page_text
from .options import ToolOptions

if TYPE_CHECKING:
    from ..browser import Browser
    from ..tab import Tab

__all__ = ["ModelView", "ToolContext", "ToolOutput", "same_document"]


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result: text for the model and a structured artifact for programs."""

    content: str
    artifact: Any
    images: tuple[bytes, ...] = ()
    """PNG images for models that accept them (``web_screenshot``)."""
    is_error: bool = False
    """The call failed; ``content`` says why (``artifact`` is the :class:`WebrefsError`)."""

    def __iter__(self) -> Iterator[Any]:
        """Unpacks as ``content, artifact``."""
        return iter((self.content, self.artifact))



@dataclass
class ModelView:
    """What the model has been shown, kept by the registry across calls."""

    seen: dict[str, Snapshot] = field(default_factory=dict)
    """The snapshot the model last saw of each tab (the baseline of diffs)."""
    refs_tab: str | None = None
    """The tab the refs the model holds come from: the tab of the last snapshot shown."""
    active_tab: str | None = None
    """The active tab the model was last told about (``None``: none yet, or none open)."""
    told: bool = False
    """Whether the model has been told about any active tab yet."""
    marker: str = ""
    """The fence marker of page content (random, or from the context's seed and fence key)."""
    screens: dict[str, Screenshot] = field(default_factory=dict)
    """The screenshot the model last saw of each tab: its points are what the coordinates
    of pointer tools in vision mode mean."""


class ToolContext:
    """What a handler may use: the tab to act on, the browser (when known), the options."""

    def __init__(
        self,
        options: ToolOptions,
        browser: Browser | None,
        current_tab: Callable[[], Tab],
        view: ModelView,
    ) -> None:
        self.options = options
        """The registry's options (budget, after_action, ...)."""
        self.browser = browser
        """The browser the tools drive, or ``None`` when they are bound to one tab."""
        self._current_tab = current_tab
        self._view = view
        self._seen = view.seen

    def tab(self) -> Tab:
        """The tab to act on now."""
        return self._current_tab()

    def fence(self, text: str) -> str:
        """``text`` fenced as page content (when ``ToolOptions.fence`` is on)."""
        if not self.options.fence or not self._view.marker:
            return text
        return fence(text, self._view.marker)

    def fenced(self, snap: Snapshot) -> Snapshot:
        """``snap`` with its text fenced as page content."""
        text = self.fence(snap.text)
        return snap if text is snap.text else snap.model_copy(update={"text": text})

    def remember(self, tab: Tab, snap: Snapshot) -> None:
        """The snapshot the model last saw for ``tab`` (the baseline of diffs); the refs the
        model holds now come from ``tab``."""
        self._seen[tab.id] = snap
        self._view.refs_tab = tab.id

    def saw_screen(self, tab: Tab, shot: Screenshot) -> None:
        """The screenshot the model last saw of ``tab`` (what its coordinates mean); the refs
        drawn on it belong to ``tab``."""
        self._view.screens[tab.id] = shot
        if shot.marks:
            self._view.refs_tab = tab.id

    def screen(self, tab: Tab) -> Screenshot | None:
        """The screenshot the model last saw of ``tab``, if any."""
        return self._view.screens.get(tab.id)

    async def action_output(self, tab: Tab, result: ActionResult) -> ToolOutput:
        """Summary of ``result`` plus the snapshot or diff asked for by ``after_action``."""
        mode = self.options.after_action
        if mode == "none" or tab.closed:
            return ToolOutput(format_action(result), result)
        if result.snapshot is not None:
            snap = result.snapshot
        else:
            try:
                snap = await tab.asnapshot(max_tokens=self.options.max_tokens)
            except WebrefsError as err:  # the action happened; say so, then why no snapshot
                note = f"\nThe snapshot after it failed: {err.for_model()}"
                return ToolOutput(format_action(result) + note, result)
        before = self._seen.get(tab.id)
        self.remember(tab, snap)
        summary = format_action(result)
        page = self.fence(page_text(snap.text, summary))
        if mode == "snapshot" or not same_document(before, snap, result.navigated):
            # a new document: the whole page, never a diff of two pages
            return ToolOutput(format_action(result, snapshot_text=page), result)
        assert before is not None
        diff = diff_snapshots(before, snap, said=summary, acted=result.ref)
        if diff.endswith(("\n(no change)", "\n(no other change)")):
            # nothing the summary did not say: no page content to show
            return ToolOutput(format_action(result, unchanged=True), result)
        counter = TokenCounter()  # diff_snapshots' encoding
        if counter.count(diff) >= counter.count(snap.text):
            return ToolOutput(format_action(result, snapshot_text=page),
                              result)  # a change so large that the page itself is shorter
        return ToolOutput(format_action(result, diff=self.fence(diff)), result)

    def seen(self, tab: Tab) -> Snapshot | None:
        """The snapshot the model last saw of ``tab`` (full or as changes), if any."""
        return self._seen.get(tab.id)


def same_document(before: Snapshot | None, after: Snapshot, navigated: bool = False) -> bool:
    """Whether ``after`` reads the document ``before`` read (no navigation between them): a
    diff of the two is then the changes on one page."""
    if before is None or navigated:
        return False
    return _document_url(before) == _document_url(after)


def _document_url(snap: Snapshot) -> str:
    url = snap.source.tree.url if snap.source is not None else snap.page.url
    return url.split("#", 1)[0]
