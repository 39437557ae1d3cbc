"""The episode's clock: a context made with ``clock_at`` starts paused at that instant, its
page timers move only when the harness moves them (in order), ``performance.now`` stays real
so actions still settle, and the episode's middleware moves the clock before each tool call
and while a call waits on page time. Real Chromium, pages on loopback."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from webrefs import Browser, Tab
from webrefs.errors import InvalidArgumentError
from webrefs.evals.running.episode import STALL_MS, _clock_middleware, step_advance
from webrefs.evals.running.loop import CLOCK_START, EpisodeOptions

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser

PAGE = "basic/ticking.html"
STATE = "[Date.now(), document.getElementById('price').textContent, " \
        "document.getElementById('out').textContent]"


@pytest.fixture
def clocked(browser: Browser) -> Iterator[Browser]:
    ctx = browser.new_context(clock_at=CLOCK_START)
    yield ctx
    ctx.close()


def refs(tab: Tab) -> dict[str, str]:
    return dict(re.findall(r'button "([^"]+)" \[ref=(\w+)\]', tab.snapshot().text))


def test_page_time_moves_only_when_moved(clocked: Browser, site: SiteServer) -> None:
    tab = clocked.new_tab(site.url(PAGE))
    assert clocked.clocked
    first = tab.evaluate(STATE)
    assert first[0] == CLOCK_START * 1000
    real = tab.evaluate("performance.now()")
    time.sleep(0.4)
    assert tab.evaluate(STATE) == first  # the page's ticking timer did not move
    assert tab.evaluate("performance.now()") - real >= 300  # the real one did
    clocked.advance_clock(1000)
    now, price, _ = tab.evaluate(STATE)
    assert now == CLOCK_START * 1000 + 1000 and int(price) == int(first[1]) + 10
    started = time.monotonic()
    tab.click(refs(tab)["Show now"])  # settles on the real performance.now
    assert time.monotonic() - started < 5
    assert tab.evaluate(STATE)[2] == "shown now"


def test_the_same_steps_show_the_same_page(browser: Browser, site: SiteServer) -> None:
    """Two contexts driven the same way read the same ticking page at every step (on the
    machine's clock, the price depends on how long each step took)."""
    seen = []
    for pause in (0.0, 0.5):
        ctx = browser.new_context(clock_at=CLOCK_START, seed=1)
        try:
            tab = ctx.new_tab(site.url(PAGE))
            texts = []
            for _ in range(3):
                time.sleep(pause)
                ctx.advance_clock(250)
                texts.append(tab.evaluate("document.body.innerText"))
            seen.append(texts)
        finally:
            ctx.close()
    assert seen[0] == seen[1]
    assert len(set(seen[0])) == 3


def test_a_context_without_a_clock_refuses_to_move_it(browser: Browser) -> None:
    ctx = browser.new_context()
    try:
        assert not ctx.clocked
        with pytest.raises(InvalidArgumentError, match="no controlled clock"):
            ctx.advance_clock(100)
    finally:
        ctx.close()


def test_step_advance() -> None:
    options = EpisodeOptions(step_ms=100)
    assert step_advance(options, "web_click", {"ref": "e1"}) == 100
    assert step_advance(options, "web_wait_for", {"seconds": 2.5}) == 2600
    assert step_advance(options, "web_wait_for", {"text": "Done"}) == 100
    assert step_advance(options, "web_wait_for", {"seconds": "x"}) == 100


def test_a_call_waiting_on_page_time_gets_it(clocked: Browser, site: SiteServer) -> None:
    """A click whose effect comes from a 300 ms page timer: the middleware moves the clock
    one step before it and, once the call has waited on page time, a stall step; the click
    returns with its effect instead of waiting out its limit (10 s)."""
    tab = clocked.new_tab(site.url(PAGE))
    later = refs(tab)["Show later"]
    middleware = _clock_middleware(clocked, EpisodeOptions(step_ms=100))

    async def handler(_request: Any) -> str:
        await tab.aclick(later)
        return "clicked"

    request = SimpleNamespace(tool_call={"name": "web_click", "args": {"ref": later}})
    started = time.monotonic()
    assert asyncio.run(middleware.awrap_tool_call(request, handler)) == "clicked"
    assert time.monotonic() - started < 8
    now, _, out = tab.evaluate(STATE)
    assert out == "shown later"
    assert now == CLOCK_START * 1000 + 100 + STALL_MS
