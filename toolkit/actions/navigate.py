"""goto, back, forward: navigate, wait until the new page is ready, report what happened
(status, dialogs such as beforeunload, tabs opened)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..errors import InvalidArgumentError, NavigationError
from ..models import ActionResult
from .limits import clamp_ms
from .perform import Outcome, perform

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["go_back", "go_forward", "goto"]

_SCHEMES = ("http://", "https://", "file://", "about:", "data:")


def _nav_timeout(tab: TabCore) -> int:
    return clamp_ms(tab.options.navigation_timeout_ms, default=30_000, low=1000,
                    name="navigation_timeout_ms")


def check_url(url: object) -> str:
    """An absolute URL with an allowed scheme, stripped."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidArgumentError("goto needs a non-empty URL.")
    url = url.strip()
    if len(url) > 8192:
        raise InvalidArgumentError("The URL is longer than 8192 characters.")
    if not url.lower().startswith(_SCHEMES):
        raise InvalidArgumentError(
            f"{url[:100]!r} is not an absolute URL.",
            hint="Use a full URL such as https://example.com/.",
        )
    return url


async def goto(tab: TabCore, url: str) -> ActionResult:
    """Open ``url`` in this tab and wait until the page is ready.

    A page that does not answer (a script stuck in a loop, a dialog storm) cannot be left the
    usual way; the tab is then given a fresh page first, and the result says so."""
    url = check_url(url)
    replaced = await tab.unstick()

    async def act(_t: object) -> Outcome:
        try:
            response = await tab.page.goto(url, wait_until="domcontentloaded",
                                           timeout=_nav_timeout(tab))
        except PlaywrightError as exc:
            if "net::ERR_ABORTED" in str(exc) and tab.page.url != url:
                # a beforeunload dialog that was dismissed keeps the page where it was
                raise NavigationError(
                    f"Navigation to {url[:200]} was cancelled; the tab stays at {tab.page.url}.",
                    hint="The page asked to confirm leaving; set TabOptions.dialogs='accept' "
                    "to leave anyway.",
                ) from None
            raise
        status = response.status if response is not None else None
        if status is not None and status >= 400:
            message = f"Opened {tab.page.url} (HTTP {status})."
        else:
            message = f"Opened {tab.page.url}."
        return Outcome(message, {"status": status})

    result = await perform(tab, "goto", None, act, doing=f"opening {url[:200]}",
                           limit_ms=_nav_timeout(tab))
    if replaced:
        note = ("The previous page was not responding, so the tab was given a fresh page "
                "first (its back history is gone).")
        result = result.model_copy(update={"message": f"{result.message} {note}",
                                           "readback": {**result.readback, "replaced_page": True}})
    return result


async def _history(tab: TabCore, forward: bool) -> ActionResult:
    name = "go_forward" if forward else "go_back"
    word = "forward" if forward else "back"
    if not await tab.call("checking that the page answers", tab.responsive):
        raise NavigationError(
            f"The page in tab {tab.id} is not responding, so its history cannot be used.",
            hint="Navigate to a URL instead: the tab then gets a fresh page.",
        )

    async def act(_t: object) -> Outcome:
        before = tab.page.url
        move = tab.page.go_forward if forward else tab.page.go_back
        response = await move(wait_until="domcontentloaded", timeout=_nav_timeout(tab))
        after = tab.page.url
        if response is None and after == before:
            raise NavigationError(f"There is no page to go {word} to; still at {after}.")
        return Outcome(f"Went {word} to {after}.",
                       {"status": response.status if response is not None else None})

    return await perform(tab, name, None, act, doing=f"going {word}",
                         limit_ms=_nav_timeout(tab))


async def go_back(tab: TabCore) -> ActionResult:
    """Go one page back in this tab's history."""
    return await _history(tab, forward=False)


async def go_forward(tab: TabCore) -> ActionResult:
    """Go one page forward in this tab's history."""
    return await _history(tab, forward=True)
