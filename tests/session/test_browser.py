"""Browser sessions: launch, tabs, popups, sync and async from any thread, shutdown, crashes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from webrefs import Browser, Tab
from webrefs.errors import (
    BrowserClosedError,
    InvalidArgumentError,
    PageCrashedError,
    TabClosedError,
    WebrefsError,
)

from tests.helpers.debugged import DebuggedChromium
from tests.helpers.procs import (
    browsers_started,
    chromium_descendants,
    cmdline,
    descendants,
    wait_until,
)
from tests.helpers.server import SiteServer


def test_launch_open_tabs_and_switch(browser: Browser, site: SiteServer) -> None:
    first = browser.new_tab(site.url("/basic/one.html"))
    second = browser.new_tab(site.url("/basic/two.html"))
    try:
        assert first.title == "Page one"
        assert second.title == "Page two"
        assert browser.active_tab == second
        assert first in browser.tabs and second in browser.tabs
        assert browser.switch_tab(first.id) == first
        assert browser.active_tab == first
        assert browser.tab(first.id) == first
        first.close()
        assert first.closed
        assert first not in browser.tabs
        # The most recently active open tab takes over; nothing is guessed from page order.
        assert browser.active_tab == second
        with pytest.raises(TabClosedError):
            first.goto(site.url("/basic/one.html"))
    finally:
        for t in (first, second):
            if not t.closed:
                t.close()


def test_goto_reports_navigation(tab: Tab, site: SiteServer) -> None:
    result = tab.goto(site.url("/basic/one.html"))
    assert result.navigated
    assert result.url_after == site.url("/basic/one.html")
    assert tab.url == site.url("/basic/one.html")
    with pytest.raises(InvalidArgumentError):
        tab.goto("not a url")


def test_popup_becomes_the_active_tab(browser: Browser, site: SiteServer) -> None:
    opener = browser.new_tab(site.url("/basic/popup.html"))
    before = {t.id for t in browser.tabs}
    browser.runner.run(opener.page.click("#open"))
    popup = wait_until(lambda: next((t for t in browser.tabs if t.id not in before), None))
    assert popup is not None, "the popup never became a tab"
    assert browser.active_tab == popup
    wait_until(lambda: popup.url.endswith("/basic/two.html"))
    assert wait_until(lambda: popup.title == "Page two", timeout=10), popup.title
    assert popup.id in browser.core.opened_log
    popup.close()
    assert browser.active_tab == opener
    opener.close()


def test_sync_calls_from_many_threads(browser: Browser, site: SiteServer) -> None:
    tabs = [browser.new_tab() for _ in range(4)]
    try:
        def work(i: int) -> str:
            t = tabs[i % len(tabs)]
            t.goto(site.url("/basic/one.html" if i % 2 else "/basic/two.html"))
            return t.title

        with ThreadPoolExecutor(max_workers=8) as pool:
            titles = list(pool.map(work, range(16)))
        assert set(titles) <= {"Page one", "Page two"}
        assert len(titles) == 16
    finally:
        for t in tabs:
            t.close()


def test_calls_on_one_tab_are_serialized(tab: Tab) -> None:
    core = tab.core
    running = 0
    overlaps = 0

    async def slow() -> None:
        nonlocal running, overlaps
        running += 1
        overlaps += running > 1
        await asyncio.sleep(0.05)
        running -= 1

    def call() -> None:
        tab.runner.run(core.call("testing", slow))

    threads = [threading.Thread(target=call) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert overlaps == 0


def test_calls_on_different_tabs_run_in_parallel(browser: Browser, site: SiteServer) -> None:
    a = browser.new_tab(site.url("/basic/one.html"))
    b = browser.new_tab(site.url("/basic/two.html"))
    events: list[str] = []

    async def slow(t: Tab, name: str) -> None:
        events.append(f"start {name}")
        await t.page.evaluate("() => new Promise(r => setTimeout(r, 300))")
        events.append(f"end {name}")

    def call(t: Tab, name: str) -> None:
        t.runner.run(t.core.call("testing", lambda: slow(t, name)))

    try:
        threads = [threading.Thread(target=call, args=(t, n)) for t, n in ((a, "a"), (b, "b"))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        # Both started before either ended: the two pages did not wait for each other.
        assert all(e.startswith("start") for e in events[:2]), events
    finally:
        a.close()
        b.close()


async def test_async_inside_a_running_loop(browser: Browser, site: SiteServer) -> None:
    t = await browser.anew_tab(site.url("/basic/one.html"))
    assert await t.atitle() == "Page one"
    # Blocking calls also work inside a running loop (as in a Jupyter cell).
    assert t.title == "Page one"
    results = await asyncio.gather(t.agoto(site.url("/basic/two.html")), t.atitle())
    assert results[0].navigated
    await t.aclose()
    assert t.closed


def test_mixing_sync_and_async_on_one_browser(browser: Browser, site: SiteServer) -> None:
    t = browser.new_tab(site.url("/basic/one.html"))

    async def in_other_loop() -> str:
        await t.agoto(site.url("/basic/two.html"))
        return await t.atitle()

    assert asyncio.run(in_other_loop()) == "Page two"
    assert t.title == "Page two"
    t.close()


def test_blocking_call_on_the_browser_loop_is_refused(tab: Tab) -> None:
    async def on_loop() -> str:
        return tab.title  # would deadlock; must raise instead

    with pytest.raises(WebrefsError, match=r"'a'-prefixed"):
        tab.runner.run(on_loop())


def _profiles(pids: set[int]) -> set[str]:
    """The --user-data-dir folders of these Chromium processes."""
    found = set()
    for pid in pids:
        for arg in cmdline(pid).split(" "):
            if arg.startswith("--user-data-dir="):
                found.add(arg.split("=", 1)[1])
    return found


def test_close_leaves_no_chromium_processes_and_no_profile(site: SiteServer) -> None:
    before = chromium_descendants()
    b = Browser.launch()
    t = b.new_tab(site.url("/basic/one.html"))
    assert t.title == "Page one"
    mains = browsers_started(before)
    assert len(mains) == 1, f"launching one browser started {len(mains)} under this test"
    main = mains.pop()
    running = {main} | descendants(main)
    profiles = _profiles(running)
    assert profiles, "the browser runs without a temporary profile folder"
    b.close()
    leftover = wait_until(lambda: not (chromium_descendants() & running), timeout=10)
    assert leftover, f"Chromium processes left behind: {sorted(chromium_descendants() & running)}"
    assert b.closed
    left = [p for p in profiles if Path(p).exists()]
    assert not left, f"the temporary profile was left behind: {left}"
    with pytest.raises(BrowserClosedError):
        b.new_tab()


def test_user_data_dir_persists_between_launches(site: SiteServer, tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    with Browser.launch(user_data_dir=str(profile)) as b:
        t = b.new_tab(site.url("/basic/one.html"))
        b.runner.run(t.page.evaluate("() => localStorage.setItem('kept', 'yes')"))
    with Browser.launch(user_data_dir=str(profile)) as b:
        t = b.new_tab(site.url("/basic/one.html"))
        assert b.runner.run(t.page.evaluate("() => localStorage.getItem('kept')")) == "yes"
    assert profile.is_dir()


def test_context_managers_sync_and_async(site: SiteServer) -> None:
    with Browser.launch() as b:
        assert b.new_tab(site.url("/basic/one.html")).title == "Page one"
    assert b.closed

    async def main() -> bool:
        async with await Browser.alaunch() as ab:
            t = await ab.anew_tab(site.url("/basic/two.html"))
            assert await t.atitle() == "Page two"
        return ab.closed

    assert asyncio.run(main())


def test_killed_browser_gives_clear_error_and_never_hangs(site: SiteServer) -> None:
    before = chromium_descendants()
    b = Browser.launch()
    t = b.new_tab(site.url("/basic/one.html"))
    main_procs = [
        pid for pid in chromium_descendants() - before if "--type=" not in cmdline(pid)
    ]
    assert main_procs, "could not find the browser's main process"
    for pid in main_procs:
        os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: b.closed, timeout=15), "the disconnect was never noticed"
    with pytest.raises(BrowserClosedError, match="exited or disconnected"):
        t.goto(site.url("/basic/two.html"))
    with pytest.raises(BrowserClosedError):
        b.new_tab()
    b.close()  # still cleans up the loop thread without raising


def test_crashed_page_recovers_with_a_fresh_page(site: SiteServer) -> None:
    with Browser.launch() as b:
        t = b.new_tab(site.url("/basic/one.html"))

        async def crash() -> None:
            cdp = await t.page.context.new_cdp_session(t.page)
            # The reply never comes: the renderer dies while answering.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(cdp.send("Page.crash"), 2)

        b.runner.run(crash())
        assert wait_until(lambda: t.core.crashed, timeout=10)
        with pytest.raises(PageCrashedError, match="crashed"):
            t.goto(site.url("/basic/two.html"))
        # The same tab object now holds a fresh page and works again.
        assert t.goto(site.url("/basic/two.html")).navigated
        assert t.title == "Page two"
        assert b.active_tab == t


def test_connect_over_cdp_detaches_without_killing(site: SiteServer, tmp_path: Path) -> None:
    with DebuggedChromium(tmp_path / "profile") as chrome:
        b = Browser.connect(chrome.endpoint)
        t = b.new_tab(site.url("/basic/one.html"))
        assert t.title == "Page one"
        b.close()
        time.sleep(0.5)
        assert chrome.running(), "closing a connected Browser killed the user's browser"
        b2 = Browser.connect(chrome.endpoint)
        assert any(tab.url.endswith("/basic/one.html") for tab in b2.tabs)
        b2.close()


def test_connect_errors_are_clear() -> None:
    from webrefs.errors import ConnectError

    with pytest.raises(InvalidArgumentError, match="CDP"):
        Browser.connect("localhost:9222")
    with pytest.raises(ConnectError, match="remote-debugging-port"):
        Browser.connect(f"http://127.0.0.1:{_free_port()}", timeout_ms=2000)


def test_a_new_tab_opens_no_page_of_the_browsers_own(tab: Tab, site: SiteServer) -> None:
    """A tab of a launched browser is one page: Chromium's address bar popup, which recent
    versions load as two web pages per tab (as much CPU as the tab's own page), is off."""
    from webrefs.session.launcher import UNSEEN_UI_DISABLED_FEATURES, chromium_args

    tab.goto(site.url("/basic/one.html"))

    async def targets() -> list[dict[str, str]]:
        browser = tab.page.context.browser
        assert browser is not None
        session = await browser.new_browser_cdp_session()
        try:
            infos: list[dict[str, str]] = (await session.send("Target.getTargets"))[
                "targetInfos"]
            return infos
        finally:
            await session.detach()

    infos = tab.runner.run(targets())
    assert [t["url"] for t in infos if t["type"] == "page"].count(tab.url) == 1, infos
    own = [(t["type"], t["url"]) for t in infos
           if t["type"] == "browser_ui" or t["url"].startswith("chrome://")]
    assert own == []
    flag = next(a for a in chromium_args() if a.startswith("--disable-features="))
    assert set(UNSEEN_UI_DISABLED_FEATURES) <= set(flag.split("=", 1)[1].split(","))


async def test_wrap_adopts_an_existing_async_page(site: SiteServer) -> None:
    from playwright.async_api import async_playwright
    from webrefs.session.launcher import chromium_args, find_chromium

    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_args())
        page = await pw_browser.new_page()
        await page.goto(site.url("/basic/one.html"))
        b = Browser.wrap(page)
        t = b.active_tab
        assert await t.atitle() == "Page one"
        result = await t.agoto(site.url("/basic/two.html"))
        assert result.navigated
        await b.aclose()
        assert not page.is_closed(), "closing a wrapped Browser closed the user's page"
        assert await page.title() == "Page two"
        await pw_browser.close()


def test_wrap_rejects_sync_pages() -> None:
    with pytest.raises(InvalidArgumentError, match="async"):
        Browser.wrap(object())


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
