"""From a ``target`` argument to an element: a ref (``e5``, ``f1e3``, ``@e5``, ``ref=e5``) or a
description matched against the latest snapshot.

A target string is only ever compared with refs the tab issued or with snapshot texts; it is
never put into a selector or a script.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from playwright.async_api import ElementHandle, Frame

from ..errors import (
    ActionTimeoutError,
    InvalidTargetError,
    StaleRefError,
    UnknownRefError,
    WebrefsError,
)
from ..quoting import named
from ..snapshot.refs import finder, parse_ref, resolve_ref
from ..snapshot.world import Spot
from .describe import choose

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["RESOLVE_TIMEOUT_S", "Target", "classify", "resolve"]

RESOLVE_TIMEOUT_S = 5.0
"""Longest wait for the page to hand over the element of a ref (a stuck page never does)."""

# Starts like a ref but has more after it: "e1'); alert(1)//" or 'e1"] , *[x="'. Such a string
# is an unknown ref, never a description (and never anything else).
# With an explicit marker (``@e1 ...``, ``ref=e1 ...``, ``[ref=e1 ...``) anything after it counts.
_REF_PREFIX = re.compile(
    r"^\s*(?:\[?\s*(?:@|ref\s*[=:]\s*)[\"']?(?:f\d+)?e\d+|(?:f\d+)?e\d+(?![\w ]))",
    re.IGNORECASE,
)


@dataclass
class Target:
    """An element an action will act on."""

    given: str
    """The target as the caller wrote it."""
    ref: str
    frame: Frame
    handle: ElementHandle
    matched_by: Literal["ref", "description"]
    label: str = ""
    """Role and quoted name of the element in the snapshot (``button "Save"``, written by
    :func:`webrefs.quoting.named`), when known."""
    find: tuple[str, Any] | None = None
    """How webrefs' world finds the element again by its ref (``None``: only by handle)."""

    @property
    def spot(self) -> Spot | ElementHandle:
        """What reads of the element take: a :class:`Spot` (one round trip, found by ref
        inside webrefs' world) when the finder is known, else the handle."""
        if self.find is None:
            return self.handle
        return Spot(self.frame, self.handle, self.find)


def classify(target: object) -> tuple[Literal["ref", "description"], str]:
    """``("ref", "e5")`` or ``("description", "Search button")``; raises
    :class:`InvalidTargetError` (empty, too long, not a string) or :class:`UnknownRefError`
    (ref-like junk)."""
    if not isinstance(target, str):
        raise InvalidTargetError(
            f"A target must be a string such as 'e5', got {type(target).__name__}."
        )
    ref = parse_ref(target)
    if ref is not None:
        return "ref", ref
    if _REF_PREFIX.match(target):
        raise UnknownRefError(
            f"{target.strip()[:60]!r} is not a ref this tab issued.",
            hint="Use a ref exactly as the latest snapshot shows it, such as e5.",
        )
    return "description", target.strip()


async def resolve(tab: TabCore, target: object) -> Target:
    """The element ``target`` means on ``tab`` now; raises a :class:`TargetError` otherwise.

    A stale ref raises :class:`StaleRefError`; with ``TabOptions.resnapshot_on_stale`` the error
    carries a fresh snapshot (``err.snapshot``).
    """
    kind, value = classify(target)
    label = ""
    if kind == "description":
        snap = tab.last_snapshot
        if snap is None:
            from .snapshot import take_snapshot

            snap = await take_snapshot(tab, {})
        winner = choose(value, snap.refs)
        ref, label = winner.ref, winner.label
    else:
        ref = value
        node = tab.last_snapshot.refs.get(ref) if tab.last_snapshot is not None else None
        if node is not None:
            label = named(node.role, node.name)
    try:
        frame, handle = await asyncio.wait_for(resolve_ref(tab.page, tab.refs, ref),
                                               RESOLVE_TIMEOUT_S)
    except TimeoutError:
        raise ActionTimeoutError(
            f"The page did not answer within {int(RESOLVE_TIMEOUT_S)} s while finding {ref} "
            "(its main thread may be stuck).",
            hint="Navigate to another page or close the tab.",
        ) from None
    except StaleRefError as err:
        if tab.options.resnapshot_on_stale and err.snapshot is None:
            err.snapshot = await _fresh_snapshot(tab)
            if err.snapshot is not None:
                err.hint = "A new snapshot is attached; use a ref from it."
        raise
    return Target(str(target), ref, frame, handle, kind, label, finder(tab.refs, ref))


async def _fresh_snapshot(tab: TabCore) -> object | None:
    from .snapshot import take_snapshot

    try:
        return await take_snapshot(tab, {})
    except WebrefsError:
        return None
