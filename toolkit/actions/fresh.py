"""A snapshot taken inside an action (the tab's lock is already held): for description
targets when no snapshot exists yet, for stale refs (``resnapshot_on_stale``) and for
``after="snapshot"|"diff"``. Dialogs seen so far stay with the action's result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..extract import extract_page
from ..models import Snapshot
from ..options import RenderOptions, merge_options
from ..render import render

if TYPE_CHECKING:
    from ..tab import TabCore

__all__ = ["take_snapshot"]


async def take_snapshot(tab: TabCore, overrides: dict[str, Any]) -> Snapshot:
    """Extract and render the page with the tab's render options plus ``overrides``, and
    remember it as the tab's latest snapshot. Call with the tab's lock held."""
    opts: RenderOptions = merge_options(tab.options.render, overrides)
    tree = await extract_page(tab, content_refs=not opts.interactive_only)
    snap = render(tree, opts)
    tab.last_tree = tree
    tab.last_snapshot = snap
    return snap
