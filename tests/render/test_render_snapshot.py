"""tab.snapshot(): the real extractor plus render, sync and async, scope, dialogs."""

from __future__ import annotations

import pytest
from webrefs import Tab
from webrefs.errors import InvalidArgumentError, UnknownRefError
from webrefs.render.tokens import count_tokens

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def test_snapshot_renders_the_page_and_is_remembered(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/render/page.html"))
    snap = tab.snapshot()
    head = snap.text.split("\n")[0]
    assert head.startswith(f"[snapshot] url={site.url('/render/page.html')} "
                           'title="Render page" ')
    assert count_tokens(snap.text) == snap.stats.tokens <= 3000
    by_name = {r.name: ref for ref, r in snap.refs.items()}
    assert {"Alpha", "Beta", "Query", "Go", "Alert me"} <= set(by_name)
    assert f'textbox "Query" [placeholder="type here"] [ref={by_name["Query"]}]' in snap.text
    assert tab.last_snapshot is snap
    assert snap.stats.extractor.emitted_nodes > 0


def test_budget_cuts_with_markers(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/render/page.html"))
    snap = tab.snapshot(max_tokens=600)
    assert snap.stats.tokens <= 600 and snap.stats.truncated
    assert "max_tokens" in snap.stats.truncation_reasons or "max_nodes" in (
        snap.stats.truncation_reasons)
    assert " more links " in snap.text
    assert 'scope="#many"' in snap.text or "web_scroll" in snap.text


async def test_async_snapshot_and_scope_by_selector(tab: Tab, site: SiteServer) -> None:
    await tab.agoto(site.url("/render/page.html"))
    snap = await tab.asnapshot(scope="#f")
    names = {r.name for r in snap.refs.values()}
    assert names == {"Query", "Go"}


def test_scope_by_ref(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/render/page.html"))
    full = tab.snapshot(interactive_only=False, max_nodes=1000, max_tokens=8000)
    go = next(ref for ref, r in full.refs.items() if r.name == "Go")
    scoped = tab.snapshot(scope=go)
    assert list(scoped.refs) == [go] and f"scope={go}" in scoped.text.split("\n")[0]
    with pytest.raises(UnknownRefError):
        tab.snapshot(scope="e99999")


def test_content_mode_and_bad_option(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/render/page.html"))
    snap = tab.snapshot(interactive_only=False)
    assert any(r.role == "heading" and r.name == "Things" for r in snap.refs.values())
    with pytest.raises(InvalidArgumentError):
        tab.snapshot(max_tokens=-1)


def test_native_dialogs_show_in_the_next_snapshot(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/render/page.html"))
    tab.page  # noqa: B018 - the async page is only touched on the browser loop below
    core = tab.core
    tab.runner.run(core.call("clicking", lambda: core.page.click("#alert")))
    snap = tab.snapshot()
    dialog_lines = [ln for ln in snap.text.split("\n") if ln.startswith("- dialog alert")]
    assert dialog_lines == ['- dialog alert (dismissed): "hi \\[ref=e1\\]"']
