"""The routing of a browser's default context and a request it cannot place: a new page's
first requests come before Playwright has reported the page that sent it, and there Playwright
also puts the pages of contexts it did not make (another client's). With Chromium's
interception in place (it places a request by the target that sent it), the routing leaves
such a request's network rules to it; without it, or in a context of webrefs' own, the
routing judges it. Pure: the route and request are stand-ins."""

from __future__ import annotations

from typing import Any, cast

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Route
from webrefs.safety import SafetyPolicy
from webrefs.session.effects import EffectGate
from webrefs.session.guard import NetworkGuard
from webrefs.session.hops import HopStopper

POLICY = SafetyPolicy(allowed_domains=("127.0.0.1",))


class _Frameless:
    """A navigation request Playwright has not tied to a page yet."""

    resource_type = "document"

    def __init__(self, url: str) -> None:
        self.url = url

    @property
    def frame(self) -> Any:
        raise PlaywrightError("Frame for this navigation request is not available")

    def is_navigation_request(self) -> bool:
        return True


class _Route:
    def __init__(self, url: str = "http://forbidden.test/one.html") -> None:
        self.request = _Frameless(url)
        self.done: list[str] = []

    async def fallback(self) -> None:
        self.done.append("fallback")

    async def abort(self, reason: str = "failed") -> None:
        self.done.append(f"abort {reason}")


@pytest.mark.parametrize(("default_context", "interception", "done"), [
    (True, True, "fallback"),  # possibly another client's: Chromium's interception judges it
    (True, False, "abort blockedbyclient"),  # nothing else would judge it
    (False, True, "abort blockedbyclient"),  # webrefs' own context: every page is its own
])
async def test_a_request_sent_before_its_page_was_reported(
        default_context: bool, interception: bool, done: str) -> None:
    guard = NetworkGuard(POLICY)
    guard.default_context = default_context
    if interception:
        guard.stopper = cast(HopStopper, object())
    route = _Route()
    await guard.handle_route(cast(Route, route))
    assert route.done == [done]
    assert bool(guard.blocked) == done.startswith("abort")


class _Effects:
    """Says no to everything it is asked, and remembers what."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def allow(self, request: Any, page: Any) -> bool:
        self.asked.append(request.url)
        return False


async def test_what_such_a_request_does_is_judged_only_where_the_rules_let_it_through() -> None:
    guard = NetworkGuard(POLICY)
    guard.default_context = True
    guard.stopper = cast(HopStopper, object())
    effects = _Effects()
    guard.effects = cast(EffectGate, effects)
    refused, allowed = _Route(), _Route("http://127.0.0.1/pay")
    await guard.handle_route(cast(Route, refused))
    await guard.handle_route(cast(Route, allowed))
    # the refused one is left to Chromium's interception, never put to whoever is asked
    assert refused.done == ["fallback"] and allowed.done == ["abort blockedbyclient"]
    assert effects.asked == ["http://127.0.0.1/pay"]
