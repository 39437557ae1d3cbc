"""goto, back, forward, reload; popups and new tabs; downloads (off unless enabled)."""

from __future__ import annotations

from pathlib import Path

import pytest
from webrefs import Browser, Tab, WebTools
from webrefs.errors import InvalidArgumentError, NavigationBlockedError, NavigationError

from tests.helpers.actions import ref, text_of

pytestmark = pytest.mark.browser


def test_goto_back_forward(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    r = tab.goto(site.url("/actions/hazards.html"))
    assert r.navigated and r.readback["status"] == 200 and r.action == "goto"
    tab.goto(site.url("/actions/target.html"))
    r = tab.go_back()
    assert r.url_after.endswith("/actions/hazards.html") and r.navigated
    r = tab.go_forward()
    assert r.url_after.endswith("/actions/target.html")
    with pytest.raises(NavigationError):
        tab.go_forward()


def test_goto_reports_http_errors_and_rejects_bad_urls(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    r = tab.goto(site.url("/__status?code=404"))
    assert r.readback["status"] == 404 and "HTTP 404" in r.message
    for bad in ("", "   ", "example.com", 42):
        with pytest.raises(InvalidArgumentError):
            tab.goto(bad)  # type: ignore[arg-type]
    with pytest.raises(NavigationBlockedError):  # the safety policy's scheme rule
        tab.goto("javascript:alert(1)")


def test_click_that_opens_a_popup_reports_the_new_tab(browser: Browser, tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/popup.html"))
    r = tab.click(ref(tab, "button", "Open window"))
    assert len(r.new_tabs) == 1
    new = browser.tab(r.new_tabs[0])
    assert "opened tab" in r.summary()
    r2 = tab.click(ref(tab, "link", "New tab link"))
    assert len(r2.new_tabs) == 1 and r2.new_tabs != r.new_tabs
    new.close()
    browser.tab(r2.new_tabs[0]).close()


def test_a_popup_is_read_once_its_document_is_parsed(browser: Browser, tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    # the popup's parser waits 1.5 s on a script: the click returns with the new tab's
    # document parsed, so the snapshot right after it shows the form, not an empty page
    tab.goto(site.url("/actions/popup.html"))
    r = tab.click(ref(tab, "button", "Open slow window"))
    (new_id,) = r.new_tabs
    new = browser.tab(new_id)
    try:
        assert browser.active_tab == new
        text = new.snapshot().text
        assert 'textbox "Weight in kg"' in text, text
    finally:
        new.close()


def test_downloads_are_off_by_default(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/popup.html"))
    r = tab.click(ref(tab, "link", "Download file"))
    downloads = r.readback.get("downloads", [])
    assert all(d["saved"] is None for d in downloads)


def test_downloads_land_in_the_folder_with_sanitized_names(tmp_path: Path, site) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "dl"
    with Browser.launch(downloads_dir=str(folder)) as b:
        tab = b.new_tab(site.url("/actions/popup.html"))
        r = tab.click(ref(tab, "link", "Download file"))
        (entry,) = r.readback["downloads"]
        saved = Path(entry["saved"])
        assert saved.parent == folder.resolve()
        assert "/" not in saved.name and ":" not in saved.name and "?" not in saved.name
        assert saved.read_text() == "hello file"
        assert "downloaded" in r.message


def test_web_go_forward_and_web_reload_through_the_tools(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tools = WebTools.from_tab(tab)
    assert {"web_go_forward", "web_reload"} <= set(tools.names)  # default navigation tools
    tools.call("web_navigate", {"url": site.url("/actions/hazards.html")})
    tools.call("web_navigate", {"url": site.url("/actions/reload.html")})
    tools.call("web_go_back", {})
    out = tools.run("web_go_forward", {})
    assert not out.is_error and out.artifact.action == "go_forward", out.content
    assert tab.url.endswith("/actions/reload.html")
    assert text_of(tab, "loads") == "Loaded 2 times"  # the forward load ran the page again
    tools.call("web_snapshot", {})
    note = ref(tab, "textbox", "Note")
    out = tools.run("web_reload", {})
    assert not out.is_error, out.content
    assert out.artifact.action == "reload" and out.artifact.navigated
    assert f"Reloaded {site.url('/actions/reload.html')}." in out.content
    assert text_of(tab, "loads") == "Loaded 3 times"
    stale = tools.run("web_fill", {"ref": note, "value": "x"})  # refs of the old document
    assert stale.is_error and "[stale_ref]" in stale.content, stale.content
    out = tools.run("web_go_forward", {})
    assert out.is_error and "no page to go forward to" in out.content, out.content
