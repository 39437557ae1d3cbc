"""Fixtures for the safety tests: Chromium behind the test's own recording proxy.

Every request the browser sends, loopback included, goes through
:class:`~tests.helpers.proxy.RecordingProxy`, which forwards only to the two test servers on
127.0.0.1 and records and refuses everything else, so nothing leaves the machine even when a
defect lets a request through the policy. ``a.safety.test``, ``b.safety.test`` and
``private.safety.test`` are mapped to 127.0.0.1 by Chromium's ``--host-resolver-rules`` (and
the policy reads the same rules when it resolves names).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from webrefs import Browser, WebTools
from webrefs.safety import SafetyPolicy

from tests.helpers.proxied import proxied_browser_fixtures
from tests.helpers.proxy import RecordingProxy

ALIASES = ("a.safety.test", "b.safety.test", "private.safety.test")
_ids = itertools.count()


proxy, browser = proxied_browser_fixtures(ALIASES)


@pytest.fixture
def make_tools(browser: Browser) -> Iterator[Callable[..., WebTools]]:
    """``make_tools(policy, **tool_options)``: tools on a fresh context of the proxied browser
    with that policy (closed after the test)."""
    contexts: list[Browser] = []

    def make(policy: SafetyPolicy | None = None, **options: Any) -> WebTools:
        ctx = browser.new_context()
        contexts.append(ctx)
        return WebTools(ctx, safety=policy or SafetyPolicy(), **options)

    yield make
    for ctx in contexts:
        with contextlib.suppress(Exception):
            ctx.close()


@pytest.fixture
def token() -> str:
    """A unique word for this test's URLs (to find its requests in the proxy's log)."""
    return f"t{next(_ids)}x{id(object()) % 100000}"


def hits(proxy: RecordingProxy, needle: str) -> list[str]:
    """Requests the browser sent (forwarded or refused) whose target holds ``needle``."""
    return [f"{s.method} {s.host}:{s.port} {s.target}" for s in proxy.seen if needle in s.target]
