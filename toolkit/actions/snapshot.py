"""Taking a snapshot: extract the page, render it, remember it on the tab."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models import Snapshot

if TYPE_CHECKING:
    from ..tab import TabCore


async def snapshot(tab: TabCore, overrides: dict[str, Any]) -> Snapshot:
    raise NotImplementedError
