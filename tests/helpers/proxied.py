"""Session fixtures for a Chromium behind the test's own :class:`RecordingProxy`, for test
folders whose pages could reach out: ``proxy`` forwards only to the two test servers (and
their ``aliases``, mapped to loopback) and records and refuses everything else; ``browser`` is
one headless Chromium that sends every request, loopback included, through it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from webrefs import Browser

from .proxy import RecordingProxy
from .server import SiteServer


def proxied_browser_fixtures(aliases: tuple[str, ...]) -> tuple[Callable[..., Any],
                                                                  Callable[..., Any]]:
    """The ``proxy`` and ``browser`` fixtures for a conftest: ``proxy, browser =
    proxied_browser_fixtures(("a.example.test", ...))``."""

    @pytest.fixture(scope="session")
    def proxy(site: SiteServer, other_site: SiteServer) -> Iterator[RecordingProxy]:
        with RecordingProxy({site.port, other_site.port}, aliases=aliases) as p:
            yield p

    @pytest.fixture(scope="session")
    def browser(proxy: RecordingProxy) -> Iterator[Browser]:
        """One headless Chromium behind the recording proxy (overrides the shared one)."""
        b = Browser.launch(args=tuple(proxy.chromium_args()))
        yield b
        b.close()

    return proxy, browser
