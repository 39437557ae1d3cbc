"""goto, back, forward: navigate, wait until the new page is ready, report what happened
(status, dialogs such as beforeunload, tabs opened).

The agent asked to leave the page, so a ``beforeunload`` prompt ("leave this page?") is
accepted (:meth:`TabCore.leaving`) and the result says so: a page that asks on every way out
cannot keep the agent."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..errors import InvalidArgumentError, NavigationBlockedError, NavigationError, clip
from ..models import ActionResult
from .limits import clamp_ms
from .perform import Outcome, perform

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["blocked_error", "go_back", "go_forward", "goto", "reload"]

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


_HAS_SCHEME = re.compile(r"^\s*[a-zA-Z][a-zA-Z0-9+.-]*:")


def blocked_error(url: str, rule: str, reason: str, stays: str) -> NavigationBlockedError:
    """The error for a URL the safety policy refuses (the model is told not to look for
    another way there)."""
    return NavigationBlockedError(
        f"Opening {clip(url, 200)} is blocked by the safety policy (rule {rule}: {reason}); "
        f"the tab is at {clip(stays, 200)}.",
        hint="Do not try another spelling of this address or another way to reach it; "
        "continue with allowed pages or tell the user.",
        host_hint="To allow it, change the SafetyPolicy given to Browser.launch "
        "(allowed_domains, blocked_domains, block_private_network, block_link_local).",
        rule=rule, url=clip(url, 2000),
    )


def _blocked_since(tab: TabCore, since: int,
                   redirects_only: bool = False) -> NavigationBlockedError | None:
    for b in tab.browser.blocked[since:]:
        if redirects_only and b.after != "redirect":
            continue
        if b.navigation and b.tab in (None, tab.id):
            return blocked_error(b.url, b.rule, b.reason, tab.page.url)
    return None


async def goto(tab: TabCore, url: str) -> ActionResult:
    """Open ``url`` in this tab and wait until the page is ready.

    A page that does not answer (a script stuck in a loop, a dialog storm) cannot be left the
    usual way; the tab is then given a fresh page first, and the result says so. A URL the
    safety policy forbids is a :class:`NavigationBlockedError` naming the rule; so is a
    redirect to one (the tab is then left on ``about:blank``)."""
    if tab.browser.safety.enabled and isinstance(url, str) and _HAS_SCHEME.match(url):
        verdict = await tab.browser.judge(url.strip(), top_level=True)
        if not verdict.allowed:
            raise blocked_error(url.strip(), verdict.rule, verdict.reason, tab.page.url)
    url = check_url(url)
    replaced = await tab.unstick()

    async def act(_t: object) -> Outcome:
        before = len(tab.browser.blocked)
        try:
            with tab.leaving():
                response = await tab.page.goto(url, wait_until="domcontentloaded",
                                               timeout=_nav_timeout(tab))
        except PlaywrightError as exc:
            blocked = _blocked_since(tab, before)
            if blocked is not None:
                raise blocked from None
            if ("net::ERR_ABORTED" in str(exc) and tab.page.url != url
                    and any(d.type == "beforeunload" and d.handled == "dismissed"
                            for d in tab.dialog_log)):
                # a beforeunload dialog that was dismissed keeps the page where it was
                raise NavigationError(
                    f"Navigation to {url[:200]} was cancelled; the tab stays at {tab.page.url}.",
                    hint="The page asked to confirm leaving and was answered no; finish or "
                    "save what it asks first, or tell the user.",
                ) from None
            raise
        where = tab.page.url
        landed = await tab.browser.judge(where, top_level=True)
        if not landed.allowed:  # a redirect the routing could not see: leave at once
            with contextlib.suppress(PlaywrightError):
                await tab.page.goto("about:blank")
            raise blocked_error(where, landed.rule, landed.reason, "about:blank")
        redirected = _blocked_since(tab, before, redirects_only=True)
        if redirected is not None:  # stopped at a redirect hop: the tab stayed where it was
            raise redirected
        status = response.status if response is not None else None
        if status is not None and status >= 400:
            message = f"Opened {tab.page.url} (HTTP {status})."
        else:
            message = f"Opened {tab.page.url}."
        return Outcome(message, {"status": status})

    result = await perform(tab, "goto", None, act, doing=f"opening {url[:200]}",
                           limit_ms=_nav_timeout(tab), url=url)
    if replaced:
        note = ("The previous page was not responding, so the tab was given a fresh page "
                "first (its back history is gone).")
        result = result.model_copy(update={"message": f"{result.message} {note}",
                                           "readback": {**result.readback, "replaced_page": True}})
    return result


async def _answers(tab: TabCore, use: str) -> None:
    """Raise when the tab's page does not answer (its history cannot be used then)."""
    if not await tab.call("checking that the page answers", tab.responsive):
        raise NavigationError(
            f"The page in tab {tab.id} is not responding, so {use}.",
            hint="Navigate to a URL instead: the tab then gets a fresh page.",
        )


async def _history(tab: TabCore, forward: bool) -> ActionResult:
    name = "go_forward" if forward else "go_back"
    word = "forward" if forward else "back"
    await _answers(tab, "its history cannot be used")

    async def act(_t: object) -> Outcome:
        before = tab.page.url
        move = tab.page.go_forward if forward else tab.page.go_back
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _nav_timeout(tab) / 1000
        # Until the page commits only: a page the browser brings back from its back-forward
        # cache (a browser webrefs attached to keeps that cache on) was parsed long ago and
        # fires no load events again, which a wait for them would wait for in vain.
        with tab.leaving():
            response = await move(wait_until="commit", timeout=_nav_timeout(tab))
        after = tab.page.url
        if response is None and after == before:
            raise NavigationError(f"There is no page to go {word} to; still at {after}.")
        await _parsed(tab, deadline - loop.time())
        return Outcome(f"Went {word} to {tab.page.url}.",
                       {"status": response.status if response is not None else None})

    return await perform(tab, name, None, act, doing=f"going {word}",
                         limit_ms=_nav_timeout(tab))


_READY_STATE_JS = "(root, a) => document.readyState"
_PARSED_POLL_S = 0.025


async def _parsed(tab: TabCore, within_s: float) -> None:
    """Wait (at most ``within_s``) until the tab's document is parsed, as the document itself
    says (``readyState``, read in webrefs' world), whether it was just loaded or brought back
    from the back-forward cache."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while (left := deadline - loop.time()) > 0:
        try:
            state = await tab.refs.world.value(tab.page.main_frame, _READY_STATE_JS, None,
                                               min(left, 2.0))
        except (PlaywrightError, TimeoutError, ValueError):
            state = None  # between two documents
        if state in ("interactive", "complete"):
            return
        await asyncio.sleep(min(_PARSED_POLL_S, max(deadline - loop.time(), 0)))


async def go_back(tab: TabCore) -> ActionResult:
    """Go one page back in this tab's history."""
    return await _history(tab, forward=False)


async def go_forward(tab: TabCore) -> ActionResult:
    """Go one page forward in this tab's history."""
    return await _history(tab, forward=True)


async def reload(tab: TabCore) -> ActionResult:
    """Load the tab's page again (its refs go stale, as after any navigation)."""
    await _answers(tab, "it cannot be reloaded")

    async def act(_t: object) -> Outcome:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _nav_timeout(tab) / 1000
        with tab.leaving():  # a beforeunload prompt is answered, as for any navigation away
            response = await tab.page.reload(wait_until="commit", timeout=_nav_timeout(tab))
        await _parsed(tab, deadline - loop.time())
        return Outcome(f"Reloaded {tab.page.url}.",
                       {"status": response.status if response is not None else None})

    return await perform(tab, "reload", None, act, doing="reloading the page",
                         limit_ms=_nav_timeout(tab))
