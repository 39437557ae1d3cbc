"""screenshot: a PNG of the viewport or the whole page, for vision-capable models."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from .perform import timeout_ms

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["screenshot"]

FRONT_TIMEOUT_S = 5.0


async def screenshot(tab: TabCore, full_page: bool = False) -> bytes:
    """PNG bytes of the viewport, or of the whole page with ``full_page=True``."""

    async def run() -> bytes:
        # Chromium paints only the tab in front of its window: a screenshot of another waits
        # for a frame that never comes. In a browser webrefs shares with its user or another
        # client, another tab may have been brought forward: the tab is brought forward first.
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(tab.page.bring_to_front(), FRONT_TIMEOUT_S)
        return await tab.page.screenshot(
            full_page=bool(full_page), type="png", timeout=max(timeout_ms(tab), 10_000),
            animations="disabled", caret="initial",
        )

    return await tab.call("taking a screenshot", run)
