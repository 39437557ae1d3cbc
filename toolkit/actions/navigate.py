"""goto, back, forward."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError, NavigationError
from ..models import ActionResult

if TYPE_CHECKING:
    from ..tab import TabCore

_SCHEMES = ("http://", "https://", "file://", "about:", "data:")


async def goto(tab: TabCore, url: str) -> ActionResult:
    if not isinstance(url, str) or not url.strip():
        raise InvalidArgumentError("goto needs a non-empty URL.")
    url = url.strip()
    if not url.startswith(_SCHEMES):
        raise InvalidArgumentError(
            f"{url[:100]!r} is not an absolute URL.", hint="Use a full URL such as https://example.com/."
        )

    async def run() -> ActionResult:
        before = tab.page.url
        tab.take_dialogs()
        response = await tab.page.goto(
            url, wait_until="domcontentloaded", timeout=tab.options.navigation_timeout_ms
        )
        status = response.status if response is not None else None
        if status is not None and status >= 400:
            message = f"Opened {tab.page.url} (HTTP {status})."
        else:
            message = f"Opened {tab.page.url}."
        return ActionResult(
            action="goto", target=url, message=message, url_before=before,
            url_after=tab.page.url, navigated=True, dialogs=tab.take_dialogs(),
            readback={"status": status},
        )

    return await tab.call(f"opening {url[:200]}", run)


async def _history(tab: TabCore, forward: bool) -> ActionResult:
    name = "go_forward" if forward else "go_back"

    async def run() -> ActionResult:
        before = tab.page.url
        tab.take_dialogs()
        move = tab.page.go_forward if forward else tab.page.go_back
        response = await move(wait_until="domcontentloaded", timeout=tab.options.navigation_timeout_ms)
        after = tab.page.url
        if response is None and after == before:
            raise NavigationError(
                f"There is no page to go {'forward' if forward else 'back'} to.",
            )
        return ActionResult(
            action=name, message=f"Now at {after}.", url_before=before, url_after=after,
            navigated=after != before or response is not None, dialogs=tab.take_dialogs(),
        )

    return await tab.call("moving in history", run)


async def go_back(tab: TabCore) -> ActionResult:
    return await _history(tab, forward=False)


async def go_forward(tab: TabCore) -> ActionResult:
    return await _history(tab, forward=True)
