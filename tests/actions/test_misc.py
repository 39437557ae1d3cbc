"""upload, screenshot, after="diff"|"snapshot", and a killed renderer."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from webrefs import Browser, Tab
from webrefs.errors import InvalidArgumentError, NotActionableError, PageCrashedError

from tests.helpers.actions import js, ref

pytestmark = pytest.mark.browser


def test_upload_from_allowed_root(tab: Tab, site, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "files"
    root.mkdir()
    (root / "a.txt").write_text("A")
    (root / "b.txt").write_text("B")
    tab.goto(site.url("/actions/forms.html"))
    target = ref(tab, "button", "Attachment")
    with pytest.raises(InvalidArgumentError):  # no roots configured: uploads refused
        tab.upload(target, str(root / "a.txt"))
    tab.configure(upload_roots=(str(root),))
    r = tab.upload(target, [str(root / "a.txt"), str(root / "b.txt")])
    assert sorted(r.readback["files"]) == ["a.txt", "b.txt"]
    assert js(tab, "() => document.getElementById('file').files.length") == 2
    with pytest.raises(InvalidArgumentError):
        tab.upload(target, str(tmp_path / "outside.txt"))
    with pytest.raises(NotActionableError) as info:
        tab.upload(ref(tab, "textbox", "Full name"), str(root / "a.txt"))
    assert info.value.reason == "not_file_input"


def test_screenshot_is_png(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/target.html"))
    png = tab.screenshot()
    assert png.startswith(b"\x89PNG") and len(png) > 100


def test_after_snapshot_and_diff(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/hazards.html"))
    victim = ref(tab, "button", "Victim")
    tab.configure(after="diff")
    r = tab.click(ref(tab, "button", "Remove victim"))
    assert r.diff is not None and r.diff.startswith("[diff]")
    assert f"- removed: {victim}" in r.diff.split("\n")  # named by its ref
    assert r.snapshot is None
    tab.configure(after="snapshot")
    r = tab.click(ref(tab, "button", "Show overlay"))
    assert r.snapshot is not None and "Accept cookies" in r.snapshot.text
    assert victim not in r.snapshot.refs


def test_killed_renderer_is_reported_and_tab_recovers(site) -> None:  # type: ignore[no-untyped-def]
    with Browser.launch() as b:
        tab = b.new_tab(site.url("/actions/hazards.html"))
        tab.snapshot()

        async def crash() -> None:
            cdp = await tab.page.context.new_cdp_session(tab.page)
            with contextlib.suppress(Exception):  # no reply: the renderer dies answering
                await asyncio.wait_for(cdp.send("Page.crash"), 2)

        tab.runner.run(crash())
        with pytest.raises(PageCrashedError):
            tab.click(ref(tab, "button", "Victim"))
        r = tab.goto(site.url("/actions/hazards.html"))  # the tab works again
        assert r.success
        tab.snapshot()
        tab.click(ref(tab, "button", "Victim"))
        assert js(tab, "() => document.getElementById('log').textContent") == "victim clicked"
