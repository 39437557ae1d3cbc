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
from webrefs.session.guard import NetworkGuard
from webrefs.session.hops import HopStopper

POLICY = SafetyPolicy(allowed_domains=("127.0.0.1",))


class _Frameless:
    """A navigation request Playwright has not tied to a page yet."""

    url = "http://forbidden.test/one.html"
    resource_type = "document"

    @property
    def frame(self) -> Any:
        raise PlaywrightError("Frame for this navigation request is not available")

    def is_navigation_request(self) -> bool:
        return True


class _Route:
    def __init__(self) -> None:
        self.request = _Frameless()
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
