"""Fixtures for the hostile-page tests: Chromium behind the test's own recording proxy.

Every request the browser makes, loopback included (``--proxy-bypass-list=<-loopback>``),
goes through :class:`~tests.helpers.proxy.RecordingProxy`, which forwards only to the two test
servers on 127.0.0.1 and records and refuses everything else: nothing can leave the machine
even when a defect makes the browser try. ``a.hostile.test`` and ``b.hostile.test`` are mapped
to loopback (two more names for the test origins).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from webrefs import Browser, Tab

from tests.helpers.proxied import proxied_browser_fixtures

ALIASES = ("a.hostile.test", "b.hostile.test")


proxy, browser = proxied_browser_fixtures(ALIASES)


@pytest.fixture
def tab(browser: Browser) -> Iterator[Tab]:
    """A fresh tab of the proxied browser, closed after the test."""
    t = browser.new_tab()
    yield t
    if not t.closed:
        with contextlib.suppress(Exception):
            t.close()
