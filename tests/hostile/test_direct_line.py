"""The direct line (``snapshot/direct.py``): once a document has been read through the engine,
later reads call the extractor over DevTools in the same isolated world. These tests pin that
it serves reads, that it reads the same world (same refs, nothing a page can patch), that a new
document goes back to the engine and is found again, and that a stuck page still gives a typed
error within seconds."""

from __future__ import annotations

import time

import pytest
from webrefs import Browser, Tab
from webrefs.errors import WebrefsError
from webrefs.snapshot import direct
from webrefs.snapshot.direct import DIRECT_KEY, DirectLine

from tests.helpers.server import SiteServer

BOUND_S = 15.0


def _line(tab: Tab) -> DirectLine:
    line = tab.core.refs.world.line(tab.page)
    assert line is not None, "the tab's pages are read in webrefs' isolated world"
    return line


def _read_until_direct(tab: Tab, tries: int = 20) -> str:
    """Snapshots until one is served by the direct line (finding it runs in the background
    after an engine read); that snapshot's text."""
    line = _line(tab)
    before = line.reads
    for _ in range(tries):
        text = tab.snapshot(interactive_only=False).text
        if line.reads > before:
            return text
        time.sleep(0.05)
    raise AssertionError(f"no read went the direct way in {tries} snapshots")


def test_later_reads_go_direct_and_match_the_engine_read(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/hostile/patched.html"))
    line = _line(tab)
    first = tab.snapshot(interactive_only=False).text
    assert line.reads == 0  # a new document is read through the engine first
    direct = _read_until_direct(tab)
    assert direct == first  # same world, same registry: the very same refs
    assert "FORGED" not in direct and "Show total" in direct


def test_a_direct_read_cannot_be_forged_by_replaced_builtins(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/hostile/patched.html"))
    tab.snapshot()
    text = _read_until_direct(tab)
    assert "FORGED" not in text
    ref = text.split('button "Show details" [ref=')[1].split("]")[0]
    assert tab.click(ref).success
    assert "details shown" in tab.get_text().text
    # the entry point lives in webrefs' world only: the page's world has no such global
    assert tab.evaluate(f"typeof window[{DIRECT_KEY!r}]") == "undefined"


def test_a_new_document_is_read_through_the_engine_then_found_again(
        tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/hostile/one.html"))
    tab.snapshot()
    _read_until_direct(tab)
    line = _line(tab)
    served = line.reads
    tab.goto(site.url("/hostile/patched.html"))
    text = tab.snapshot(interactive_only=False).text
    assert line.reads == served  # the old document's world is gone: the engine read this one
    assert "Show total" in text and "FORGED" not in text
    assert _read_until_direct(tab) == text


def test_a_page_that_locks_up_after_the_line_was_found_gives_a_typed_error(
        browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.configure(max_wait_ms=1000)
        tab.goto(site.url("/hostile/one.html"))
        tab.snapshot()
        _read_until_direct(tab)
        served = _line(tab).reads
        tab.evaluate("setTimeout(() => { for (;;) {} }, 50)")
        time.sleep(0.3)
        started = time.monotonic()
        try:
            tab.snapshot()
        except WebrefsError as exc:
            assert "not responding" in exc.message
        else:
            raise AssertionError("a snapshot of a locked page succeeded")
        assert time.monotonic() - started < BOUND_S
        assert _line(tab).reads == served
        tab.goto(site.url("/hostile/one.html"))  # and the tab can still be used
        assert "A plain page" in tab.snapshot(interactive_only=False).text
    finally:
        tab.close()


def _served_direct(tab: Tab, url: str) -> tuple[str, DirectLine, int]:
    """Open ``url`` and read it until a read goes the direct way: that snapshot's text, the
    line and how many reads it has served."""
    tab.goto(url)
    tab.snapshot()
    text = _read_until_direct(tab)
    line = _line(tab)
    return text, line, line.reads


def test_packed_output_reads_the_same_as_plain_text(
        tab: Tab, site: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The direct line carries the output as base64 of its UTF-8 where the world can make it;
    # quotes, backslashes and characters past ASCII must come out exactly as plain text does.
    packed, line, served = _served_direct(tab, site.url("/hostile/unicode.html"))
    monkeypatch.setattr(direct, "_PACK_JS", "((s) => s)")  # a world with no base64 encoder
    plain = tab.snapshot(interactive_only=False).text
    assert line.reads == served + 1  # still the direct way, as JSON text
    assert plain == packed
    for shown in ("日本語の見出し", "🙂", "Отправить", "Lien vers la page ✓", "backslash \\"):
        assert shown in packed


def test_an_answer_that_is_neither_json_nor_base64_goes_the_engine_way(
        tab: Tab, site: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    expected, line, served = _served_direct(tab, site.url("/hostile/one.html"))
    monkeypatch.setattr(direct, "_PACK_JS", "((s) => '%%%')")
    assert tab.snapshot(interactive_only=False).text == expected  # read through the engine
    assert line.reads == served


def _wait_for_frame_url(tab: Tab, part: str) -> None:
    deadline = time.monotonic() + 10
    while not any(part in f.url for f in tab.page.frames[1:]):
        assert time.monotonic() < deadline, f"no frame loaded {part!r}"
        time.sleep(0.05)


def test_a_child_frame_of_the_same_renderer_is_read_direct(tab: Tab, site: SiteServer) -> None:
    # A srcdoc frame shares its parent's renderer: once the engine has read it, the line finds
    # its world too, and a snapshot is served direct for both frames with the very same refs.
    tab.goto(site.url("/hostile/framed.html"))
    _wait_for_frame_url(tab, "srcdoc")
    line = _line(tab)
    first = tab.snapshot(interactive_only=False).text
    assert "Inner button" in first and "Hidden inner button" not in first
    for _ in range(40):
        before = line.reads
        text = tab.snapshot(interactive_only=False).text
        if line.reads == before + 2:  # the top frame and the shown child frame
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the child frame was never read the direct way")
    assert text == first


def _read_until_served(tab: Tab, line: DirectLine, tries: int = 40) -> str:
    """Snapshots until ``line`` serves one (finding a world runs in the background after an
    engine read); that snapshot's text."""
    for _ in range(tries):
        before = line.reads
        text = tab.snapshot(interactive_only=False).text
        if line.reads > before:
            return text
        time.sleep(0.05)
    raise AssertionError(f"the line served no read in {tries} snapshots")


def test_a_frame_of_another_site_is_read_direct_over_a_target_of_its_own(
        tab: Tab, site: SiteServer) -> None:
    # A frame of another site has a renderer process of its own (site isolation): its worlds
    # are not among the page's contexts, but DevTools gives it a target of its own, where the
    # frame's own line finds them. Reads of both frames then go direct, with the same text.
    child = f"http://a.hostile.test:{site.port}/extract/child.html"
    tab.goto(site.url("/extract/cross.html#" + child))
    _wait_for_frame_url(tab, "a.hostile.test")
    first = tab.snapshot(interactive_only=False).text
    assert "Frame button" in first and "Host button" in first
    world = tab.core.refs.world
    frame = next(f for f in tab.page.frames[1:] if "a.hostile.test" in f.url)
    own = world.frame_line(frame)
    assert own is not None and world.frame_line(tab.page.main_frame) is None
    assert _read_until_served(tab, own) == first
    page_line = _line(tab)
    before = page_line.reads, own.reads
    assert tab.snapshot(interactive_only=False).text == first
    assert (page_line.reads, own.reads) == (before[0] + 1, before[1] + 1)  # one read each

    # the frame moves to the page's own origin: into the page's renderer, whose line serves
    # it; the frame's target is gone, and so is its line's session
    home = site.url("/extract/child.html?home")
    tab.evaluate(f"document.querySelector('iframe').src = {home!r}")
    _wait_for_frame_url(tab, "?home")
    home_text = tab.snapshot(interactive_only=False).text
    assert "Frame button" in home_text and "Host button" in home_text
    for _ in range(40):
        reads = page_line.reads
        assert tab.snapshot(interactive_only=False).text == home_text
        if page_line.reads == reads + 2:  # both frames
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the page's line never served the frame moved into its renderer")
    served = own.reads
    # and then to another site: a new process and a new target, where the frame's line
    # opens a new session
    other = f"http://b.hostile.test:{site.port}/extract/child.html?moved"
    tab.evaluate(f"document.querySelector('iframe').src = {other!r}")
    _wait_for_frame_url(tab, "b.hostile.test")
    moved = tab.snapshot(interactive_only=False).text
    assert "Frame button" in moved and "Host button" in moved and own.reads == served
    assert _read_until_served(tab, own) == moved


def test_a_frame_of_the_same_renderer_is_never_read_by_a_line_of_its_own(
        tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/hostile/framed.html"))
    _wait_for_frame_url(tab, "srcdoc")
    first = _read_until_direct(tab)
    frame = next(f for f in tab.page.frames if "srcdoc" in f.url)
    own = tab.core.refs.world.frame_line(frame)
    assert own is not None
    for _ in range(3):
        assert tab.snapshot(interactive_only=False).text == first
    assert own.reads == 0  # it has no target of its own: the page's line serves it


def test_a_frame_that_moves_out_of_its_pages_renderer_gets_a_line_of_its_own(
        tab: Tab, site: SiteServer) -> None:
    # First on the page's own origin: its own line finds no target of its own and is not
    # used; once the frame shows another site, a new line of its own finds it there.
    tab.goto(site.url("/extract/cross.html#" + site.url("/extract/child.html")))
    _wait_for_frame_url(tab, "/extract/child.html")
    for _ in range(3):
        assert "Frame button" in tab.snapshot(interactive_only=False).text
    world = tab.core.refs.world
    frame = tab.page.frames[1]
    first = world.frame_line(frame)
    assert first is not None and not first.usable and first.reads == 0
    away = f"http://a.hostile.test:{site.port}/extract/child.html?away"
    tab.evaluate(f"document.querySelector('iframe').src = {away!r}")
    _wait_for_frame_url(tab, "a.hostile.test")
    text = tab.snapshot(interactive_only=False).text
    assert "Frame button" in text
    own = world.frame_line(frame)
    assert own is not None and own is not first
    assert _read_until_served(tab, own) == text


def test_a_frame_inside_a_frame_of_another_site_is_read_by_that_frames_line(
        tab: Tab, site: SiteServer) -> None:
    # The middle frame is of another site (a process and a target of its own); the inner one,
    # of the middle one's origin, shares its process: the middle frame's line serves both.
    middle = f"http://a.hostile.test:{site.port}/extract/nest-middle.html"
    tab.goto(site.url("/extract/cross.html#" + middle))
    _wait_for_frame_url(tab, "a.hostile.test:")
    deadline = time.monotonic() + 10
    while len(tab.page.frames) < 3:
        assert time.monotonic() < deadline, "the inner frame did not load"
        time.sleep(0.05)
    first = tab.snapshot(interactive_only=False).text
    assert "Middle button" in first and "Frame button" in first
    outer = next(f for f in tab.page.frames[1:] if f.url.endswith("nest-middle.html"))
    inner = next(f for f in tab.page.frames[1:] if f.url.endswith("child.html"))
    world = tab.core.refs.world
    line = world.frame_line(outer)
    assert line is not None
    for _ in range(40):
        before = line.reads
        text = tab.snapshot(interactive_only=False).text
        if line.reads == before + 2:  # the middle frame and the inner one
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the inner frame was never read by the middle frame's line")
    assert text == first
    own = world.frame_line(inner)
    assert own is not None and own.reads == 0
