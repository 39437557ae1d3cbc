"""Shared fixtures: two local origins serving tests/sites/, a headless browser, fresh tabs.

Browser tests never skip silently: when no Chromium can be found they fail with the remedy.

Under ``--dist loadgroup`` every test of an ``xdist_group`` must be grouped, or the run stops.

Tests end every process they start: each process this run starts carries the run's tag in
its environment (``tests/helpers/procs.py``), and a test after which one is still running,
though whatever started it has ended (a ``playwright run-server`` wrapper's node child, a
Chromium whose starter was stopped), fails in its teardown, and the process is killed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Generator, Iterator

import pytest
from webrefs import Browser, Tab

from tests.helpers.procs import TAG_VAR, end_strays, strays, wait_until
from tests.helpers.server import SiteServer

RUN_TAG = secrets.token_hex(8)
os.environ[TAG_VAR] = RUN_TAG  # inherited by every process started from here on

STRAY_GRACE_S = 5.0
"""How long processes left after a test may take to end by themselves (a browser's helpers
exit a moment after its main process)."""


@pytest.fixture(scope="module", autouse=True)
def _grouped_under_loadgroup(request: pytest.FixtureRequest) -> None:
    """Under ``--dist loadgroup`` (the README's test command) pytest-xdist keeps the tests of
    an ``xdist_group`` on one worker by a suffix it gives their node ids. Where it could not
    (a pytest whose node ids it cannot change), the tests that run whole suites would run at
    once on both workers, each with a whole suite's browsers: they fail before they start."""
    if not getattr(request.config.option, "loadgroup", False):
        return
    loose = [i.nodeid for i in request.session.items
             if getattr(i, "module", None) is request.module
             and i.get_closest_marker("xdist_group")
             and "@" not in i.nodeid]
    if loose:
        pytest.fail(f"--dist loadgroup: pytest-xdist could not group {len(loose)} tests of "
                    f"this module (the first: {loose[0]}), so they would not take turns on "
                    "one worker; this pytest and pytest-xdist do not fit together (see the "
                    "pins of the test group in pyproject.toml)", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[
        None, None, None]:
    """After a test and the fixtures it no longer needs are torn down: no process of this run
    may be left running outside this process's tree."""
    result = yield
    left = strays(RUN_TAG)
    if left and not wait_until(lambda: not strays(RUN_TAG), timeout=STRAY_GRACE_S):
        left = strays(RUN_TAG)
        end_strays(left)
        raise AssertionError(
            "processes started by the tests were left running after this test (their "
            "starter ended and they did not): "
            + "; ".join(f"{s.pid}: {s.command[:160]}" for s in left))
    return result


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
