"""Shared fixtures: two local origins serving tests/sites/, a headless browser, fresh tabs.

Browser tests never skip silently: when no Chromium can be found they fail with the remedy.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from webrefs import Browser, Tab

from tests.helpers.server import SiteServer


@pytest.fixture(scope="session")
def site() -> Iterator[SiteServer]:
    """The main test origin (http://127.0.0.1:<port>)."""
    with SiteServer() as server:
        yield server


@pytest.fixture(scope="session")
def other_site() -> Iterator[SiteServer]:
    """A second origin (another port) for cross-origin cases."""
    with SiteServer() as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium per test process."""
    b = Browser.launch()
    yield b
    b.close()


@pytest.fixture
def tab(browser: Browser) -> Iterator[Tab]:
    """A fresh tab with default options, closed after the test."""
    t = browser.new_tab()
    yield t
    if not t.closed:
        with contextlib.suppress(Exception):  # the test may have killed the page or browser
            t.close()
