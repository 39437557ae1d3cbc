"""screenshot: a PNG of the viewport or the whole page, for vision-capable models."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .perform import timeout_ms

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["screenshot"]


async def screenshot(tab: TabCore, full_page: bool = False) -> bytes:
    """PNG bytes of the viewport, or of the whole page with ``full_page=True``."""

    async def run() -> bytes:
        return await tab.page.screenshot(
            full_page=bool(full_page), type="png", timeout=max(timeout_ms(tab), 10_000),
            animations="disabled", caret="initial",
        )

    return await tab.call("taking a screenshot", run)
