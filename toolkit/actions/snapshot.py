"""Taking a snapshot: extract the page, render it, remember it on the tab. With secrets in the
policy, the tree is redacted as it is read, before anything cuts its texts."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import SnapshotError
from ..models import Snapshot
from ..options import RenderOptions, merge_options
from ..render.renderer import render
from ..safety.fence import clean_tree
from ..safety.secrets import all_secrets, redactor
from ..snapshot.extract import DEFAULT_LIMITS, extract_page
from ..snapshot.refs import parse_ref

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["snapshot", "take_snapshot"]

_PROBES = 2
"""Unanswered liveness probes in a row (each bounded by the tab's probe timeout) that make a
snapshot report its page as not responding."""


async def snapshot(tab: TabCore, overrides: dict[str, Any]) -> Snapshot:
    """Read the tab's page and render it with the tab's render options plus ``overrides``.

    ``scope`` may be a ref (the whole page is read, only that subtree is shown) or a CSS
    selector (only that part of the page is read). Takes the tab's lock.
    """

    async def run() -> Snapshot:
        # a page stuck in a script never answers the extractor: say so in seconds, not after
        # the extractor's own long bound. Probes run alongside the reading, which is not kept
        # waiting for them; it takes two unanswered probes in a row to call the page stuck,
        # for one can go unanswered on a loaded machine while the page loads.
        reading = asyncio.ensure_future(take_snapshot(tab, overrides))
        probes: list[asyncio.Future[bool]] = []
        try:
            for _ in range(_PROBES):
                probes.append(asyncio.ensure_future(tab.responsive()))
                pending: set[asyncio.Future[Any]] = {reading, probes[-1]}
                await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                if reading.done() or await probes[-1]:
                    return await reading
            raise SnapshotError(
                f"The page in tab {tab.id} is not responding (a script keeps its main "
                "thread busy), so it cannot be read.",
                hint="Navigate to another page or close the tab.",
            )
        finally:
            tasks: list[asyncio.Future[Any]] = [reading, *probes]
            for task in tasks:
                if not task.done():
                    task.cancel()
            # collect what the cancelled or finished tasks raised, so nothing is left unread
            await asyncio.gather(*tasks, return_exceptions=True)

    return await tab.call("taking a snapshot", run)


async def take_snapshot(tab: TabCore, overrides: dict[str, Any]) -> Snapshot:
    """:func:`snapshot` for callers already holding the tab's lock (inside ``tab.call``)."""
    opts: RenderOptions = merge_options(tab.options.render, overrides)
    selector: str | None = None
    if opts.scope is not None:
        ref = parse_ref(opts.scope)
        if ref is None:
            selector = opts.scope
        opts = replace(opts, scope=ref)
    policy = tab.browser.safety
    secrets = redactor(all_secrets(policy)) if policy.enabled and policy.sensitive_data else None
    # with secrets, the extractor keeps enough past each cap that a secret is whole when it is
    # replaced here, before any cut (the renderer cuts what it shows)
    limits = replace(DEFAULT_LIMITS, cap_slack=secrets.slack) if secrets else DEFAULT_LIMITS
    tree = await extract_page(tab.page, tab.refs, dialogs=tab.dialog_log, limits=limits,
                              content_refs=not opts.interactive_only, root_selector=selector)
    # extract_page already lists the tab's dialogs seen since the last action (not consumed:
    # the action that caused them reports them too)
    if secrets:
        tree = secrets.data(tree)
    if policy.enabled:
        tree = clean_tree(tree)  # page text as a sighted user reads it, unable to forge refs
    snap = render(tree, opts)
    tab.last_tree = tree
    tab.last_snapshot = snap
    return snap
