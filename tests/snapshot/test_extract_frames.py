"""Frames: same- and cross-origin, nested, hidden, unreadable; refs inside frames."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

import pytest
from webrefs import Tab
from webrefs.snapshot.extract import ExtractLimits

from tests.helpers.extracting import evaluate, extract, find, find_all, resolve_html, same
from tests.helpers.server import SiteServer


def _wait_frames(tab: Tab, count: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        frames = tab.core.page.frames
        if len(frames) >= count and all(f.url not in ("", "about:blank") for f in frames):
            return
        time.sleep(0.05)
    raise AssertionError(f"frames did not load: {[f.url for f in tab.core.page.frames]}")


def test_cross_origin_frame(tab: Tab, site: SiteServer, other_site: SiteServer) -> None:
    child = other_site.url("/extract/child.html")
    tab.goto(site.url("/extract/cross.html#" + quote(child, safe="")))
    _wait_frames(tab, 2)
    tree = extract(tab)
    host = find(tree, tag="iframe")
    assert host.frame is not None and host.frame.error is None
    assert host.frame.url == child and host.frame.prefix == "f1"
    button = find(tree, role="button", name="Frame button")
    assert button.ref == "f1e1"
    assert "Frame button" in resolve_html(tab, "f1e1")
    assert find(tree, role="button", name="Host button").ref == "e1"
    # boxes are in main-document coordinates: inside the iframe, past its 10px border
    assert host.box is not None and button.box is not None
    assert button.box.x >= host.box.x + 10 and button.box.y >= host.box.y + 10
    assert button.box.x + button.box.w <= host.box.x + host.box.w
    assert tree.stats.frames == 2 and [f.url for f in tree.frames] == [child]


def test_nested_frames_get_their_own_prefixes(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/nest-outer.html"))
    _wait_frames(tab, 3)
    tree = extract(tab)
    outer = find(tree, role="button", name="Outer button")
    middle = find(tree, role="button", name="Middle button")
    inner = find(tree, role="button", name="Frame button")
    assert outer.ref == "e1"
    assert middle.ref is not None and inner.ref is not None
    assert middle.ref[:2] != inner.ref[:2] and middle.ref.startswith("f")
    assert "Middle button" in resolve_html(tab, middle.ref)
    assert "Frame button" in resolve_html(tab, inner.ref)
    # the inner frame hangs under the middle frame's iframe node
    middle_frame = find(tree, tag="iframe", name="middle")
    assert find_all_in(middle_frame, "Frame button")
    inner_host = find(tree, tag="iframe", name="inner")
    assert inner.box and inner_host.box and middle_frame.box
    for host in (inner_host, middle_frame):
        assert host.box is not None
        assert host.box.x < inner.box.x < host.box.x + host.box.w
        assert host.box.y < inner.box.y < host.box.y + host.box.h
    # refs stay the same in a second snapshot
    again = extract(tab)
    assert find(again, role="button", name="Frame button").ref == inner.ref


def find_all_in(node: object, name: str) -> bool:
    from tests.helpers.extracting import walk

    return any(n.name == name for n in walk(node))  # type: ignore[arg-type]


def _open_hidden_and_hanging(tab: Tab, site: SiteServer) -> None:
    """Open the page whose frames are display:none, never done loading and srcdoc (the
    hanging one keeps the page from loading: wait for the srcdoc frame instead)."""
    tab.runner.run(tab.core.page.goto(site.url("/extract/frames-hidden.html"),
                                        wait_until="domcontentloaded"))
    deadline = time.monotonic() + 10
    while "about:srcdoc" not in [f.url for f in tab.core.page.frames]:
        assert time.monotonic() < deadline, "the srcdoc frame did not load"
        time.sleep(0.05)


def test_hidden_hanging_and_srcdoc_frames(tab: Tab, site: SiteServer) -> None:
    _open_hidden_and_hanging(tab, site)
    tree = extract(tab, limits=ExtractLimits(frame_timeout_s=1.0))
    assert not find_all(tree, name="Frame button")  # the display:none frame is not shown
    hanging = find(tree, tag="iframe", name="hanging frame")
    assert hanging.frame is not None and hanging.frame.error
    assert not hanging.children
    assert find(tree, role="button", name="Srcdoc button").ref
    assert find(tree, role="button", name="Top button").ref == "e1"


def test_frame_removed_makes_its_refs_stale(tab: Tab, site: SiteServer) -> None:
    from webrefs.errors import StaleRefError

    tab.goto(site.url("/extract/basic.html"))
    tree = extract(tab)
    ref = find(tree, role="button", name="Frame button").ref
    assert ref and ref.startswith("f")
    evaluate(tab, "document.querySelector('iframe').remove()")
    try:
        resolve_html(tab, ref)
    except StaleRefError:
        pass
    else:
        raise AssertionError("a ref into a removed frame must be stale")


def test_frame_navigation_does_not_reuse_refs(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    first = find(extract(tab), role="button", name="Frame button").ref
    frame = tab.core.page.frames[1]
    tab.runner.run(frame.goto(site.url("/extract/child.html?again")))
    second = find(extract(tab), role="button", name="Frame button").ref
    assert first and second and first != second
    assert first[:2] == second[:2]  # same frame, same prefix, next number


def test_a_frame_whose_iframe_is_not_shown_is_not_read(tab: Tab, site: SiteServer) -> None:
    # The display:none frame is of the page's own origin: it is read only once its iframe is
    # shown (its content would be dropped anyway), so no ref is spent on it before that.
    tab.goto(site.url("/extract/frames-hidden.html"))
    page = tab.core.page
    deadline = time.monotonic() + 10
    while not any(f.url.endswith("/extract/child.html") for f in page.frames):
        assert time.monotonic() < deadline, "the hidden frame did not load"
        time.sleep(0.05)
    hidden = next(f for f in page.frames if f.url.endswith("/extract/child.html"))
    prefix = tab.core.refs.prefix_for(hidden, page.main_frame)
    tree = extract(tab, limits=ExtractLimits(frame_timeout_s=1.0))
    assert not find_all(tree, name="Frame button")
    assert tab.core.refs.next_number(prefix) == 1  # nothing in it was given a ref
    evaluate(tab, "() => { document.querySelector('iframe[title=\"hidden frame\"]')"
                  ".style.display = 'block'; }")
    tree = extract(tab, limits=ExtractLimits(frame_timeout_s=1.0))
    assert find(tree, role="button", name="Frame button").ref == f"{prefix}e1"
    assert hidden in tab.core.refs.frames_shown
    # shown last time, it is read alongside the page next time; hidden again, it is dropped
    evaluate(tab, "() => { document.querySelector('iframe[title=\"hidden frame\"]')"
                  ".style.display = 'none'; }")
    tree = extract(tab, limits=ExtractLimits(frame_timeout_s=1.0))
    assert not find_all(tree, name="Frame button")
    assert hidden not in tab.core.refs.frames_shown


def test_a_page_showing_no_iframe_still_lists_its_frames_that_failed(
        tab: Tab, site: SiteServer) -> None:
    # No iframe is shown, so the page's output is read straight into a tree; a frame that
    # could not be read is listed all the same, as when frames are hung under their iframes.
    tab.runner.run(tab.core.page.goto(site.url("/extract/frames-failed-hidden.html"),
                                        wait_until="domcontentloaded"))
    deadline = time.monotonic() + 10
    while len(tab.core.page.frames) < 2:
        assert time.monotonic() < deadline, "the frame was not made"
        time.sleep(0.05)
    tree = extract(tab)
    assert find(tree, role="button", name="Top button").ref == "e1"
    assert not find_all(tree, tag="iframe")
    assert [f.error for f in tree.frames] == ["still loading (no document yet)"]
    assert tree.stats.frames == 1


@pytest.mark.parametrize("page", ["nested", "hidden and hanging", "cross-origin"])
def test_frames_hang_the_same_under_a_quick_read_as_under_the_general_path(
    tab: Tab, site: SiteServer, other_site: SiteServer, monkeypatch: pytest.MonkeyPatch,
    page: str,
) -> None:
    """The main frame's output read straight into a tree, its iframe nodes rebuilt with the
    frames hung under them, gives the tree that stitching the output's dicts gives."""
    import webrefs.snapshot.extract as extract_module
    from webrefs.snapshot.script import quick_read

    if page == "nested":
        tab.goto(site.url("/extract/nest-outer.html"))
        _wait_frames(tab, 3)
    elif page == "cross-origin":
        child = other_site.url("/extract/child.html")
        tab.goto(site.url("/extract/cross.html#" + quote(child, safe="")))
        _wait_frames(tab, 2)
    else:  # one frame never loads
        _open_hidden_and_hanging(tab, site)
    limits = ExtractLimits(frame_timeout_s=1.0)
    extract(tab, limits=limits)  # frames shown once are read alongside: both reads alike
    used: list[bool] = []
    allow = [True]

    def watched(text: object, *, frames_ok: bool = False) -> object:
        got = quick_read(text, frames_ok=frames_ok and allow[0])
        used.append(got is not None and bool(got.hosts))
        return got

    monkeypatch.setattr(extract_module, "quick_read", watched)
    tab.core.refs.kept.clear()  # full reads, not the last read again
    quick = extract(tab, limits=limits)
    allow[0] = False
    tab.core.refs.kept.clear()
    general = extract(tab, limits=limits)
    # the first read hung frames under a quick read; the second stitched the output's dicts
    assert used == [True, False]
    assert quick.stats.frames == general.stats.frames and quick.frames == general.frames
    assert any(n.frame is not None for n in _nodes(quick.root))
    assert _plain(quick) == _plain(general)


# Changes made in one frame of nest-outer.html (main > middle > inner): which of the two child
# frames may answer that nothing changed, so that their last output is used again.
FRAME_CHANGES: dict[str, tuple[str, str, set[str]]] = {
    "nothing": ("main", "", {"middle", "inner"}),
    "a text edited in the inner frame":
        ("inner", "document.querySelector('h2').firstChild.data += ' more'", {"middle"}),
    "a button put in the middle frame": (
        "middle", "document.body.prepend(Object.assign(document.createElement('button'), "
        "{textContent: 'New'}))", {"inner"}),
    # the inner frame's viewport changes with its iframe: it is read again too
    "the inner frame's iframe made narrower":
        ("middle", "document.querySelector('iframe').width = 200", set()),
    # the frames move on the page, their documents do not change
    "the main page's button made taller":
        ("main", "document.querySelector('button').style.height = '90px'", {"middle", "inner"}),
    "the main page scrolled": ("main", "document.body.style.height = '3000px'; "
                               "scrollTo(0, 120)", {"middle", "inner"}),
}


def _frame_named(tab: Tab, which: str) -> Any:
    page = tab.core.page
    if which == "main":
        return page.main_frame
    end = {"middle": "nest-middle.html", "inner": "child.html"}[which]
    return next(f for f in page.frames if f.url.endswith(end))


@pytest.mark.parametrize("what", list(FRAME_CHANGES))
def test_a_child_frame_nothing_changed_in_is_not_walked_again(
    tab: Tab, site: SiteServer, what: str
) -> None:
    """A child frame whose document answers that nothing changed since its last read gives
    that read's output again (only its text is kept: any other answer is a full read of it);
    the page then reads as a full read does, node by node, wherever the frame moved."""
    where, script, reused = FRAME_CHANGES[what]
    tab.goto(site.url("/extract/nest-outer.html"))
    _wait_frames(tab, 3)
    extract(tab)
    extract(tab)  # (frames shown once are read alongside their parents)
    book = tab.core.refs
    if script:
        frame = _frame_named(tab, where)
        tab.runner.run(tab.core.call("evaluating", lambda: frame.evaluate(script)))
    kept = {which: book.kept[_frame_named(tab, which)][0] for which in ("middle", "inner")}
    before = book.unchanged_frame_reads
    got = extract(tab)
    assert book.unchanged_frame_reads - before == len(reused)
    for which in ("middle", "inner"):  # a frame used again keeps its token, one read gets a new
        assert (book.kept[_frame_named(tab, which)][0] == kept[which]) == (which in reused)
    book.kept.clear()
    assert same(got, extract(tab)) is None


@pytest.mark.parametrize("what", list(FRAME_CHANGES))
def test_frames_read_as_last_time_are_not_hung_again(
    tab: Tab, site: SiteServer, what: str
) -> None:
    """When every frame reads as last time (the main frame's document answered unchanged,
    each child frame's output the same), the tree made last time is taken again, its root
    and all, with this read's in-page time: the frames are not hung again. Any change hangs
    them again, and the page reads as a full read does."""
    where, script, _ = FRAME_CHANGES[what]
    tab.goto(site.url("/extract/nest-outer.html"))
    _wait_frames(tab, 3)
    extract(tab)
    last = extract(tab)  # (frames shown once are read alongside their parents)
    if script:
        frame = _frame_named(tab, where)
        tab.runner.run(tab.core.call("evaluating", lambda: frame.evaluate(script)))
    got = extract(tab)
    assert (got.root is last.root) == (what == "nothing")
    assert got.stats.frames == 3
    tab.core.refs.kept.clear()
    assert same(got, extract(tab)) is None


# Changes around a frame of another origin hung under the main page (cross.html): whether
# the frame's tree, hung under its iframe by the read before, is taken again as it was.
LEAF_CHANGES: dict[str, tuple[str, str, bool]] = {
    "a text edited in the main page":
        ("main", "document.querySelector('h1').firstChild.data += ' more'", True),
    "the main page's button hidden":  # (above the iframe, which does not move)
        ("main", "document.querySelector('button').style.visibility = 'hidden'", True),
    "the iframe moved down": ("main", "document.querySelector('h1').style.height = '90px'", False),
    "the main page scrolled": ("main", "document.body.style.height = '3000px'; "
                               "scrollTo(0, 40)", False),
    "a text edited in the frame":
        ("child", "document.querySelector('h2').firstChild.data += ' more'", False),
}


@pytest.mark.parametrize("what", list(LEAF_CHANGES))
def test_a_frame_under_the_main_page_that_did_not_change_or_move_is_not_hung_again(
    tab: Tab, site: SiteServer, other_site: SiteServer, what: str
) -> None:
    """A child frame of the main page with no frame of its own shown, whose document answered
    unchanged and whose place on the page is the same, takes the tree hung for it last time;
    a frame moved, scrolled or changed is hung again. Either way the page reads as a full read
    does."""
    where, script, taken = LEAF_CHANGES[what]
    child = other_site.url("/extract/child.html")
    tab.goto(site.url("/extract/cross.html#" + quote(child, safe="")))
    _wait_frames(tab, 2)
    extract(tab)
    last = extract(tab)
    frame = tab.core.page.main_frame if where == "main" else tab.core.page.frames[1]
    tab.runner.run(tab.core.call("evaluating", lambda: frame.evaluate(script)))
    got = extract(tab)
    before, now = find(last, tag="iframe").children, find(got, tag="iframe").children
    assert len(before) == len(now) == 1
    assert (now[0] is before[0]) == taken
    tab.core.refs.kept.clear()
    full = extract(tab)
    assert find(full, tag="iframe").children[0] is not now[0]  # (a full read reuses nothing)
    assert same(got, full) is None


def test_a_cross_origin_frame_nothing_changed_in_is_not_walked_again(
    tab: Tab, site: SiteServer, other_site: SiteServer
) -> None:
    child = other_site.url("/extract/child.html")
    tab.goto(site.url("/extract/cross.html#" + quote(child, safe="")))
    _wait_frames(tab, 2)
    first = extract(tab)
    book = tab.core.refs
    before = book.unchanged_frame_reads
    assert same(extract(tab), first) is None
    assert book.unchanged_frame_reads == before + 1
    frame = tab.core.page.frames[1]
    tab.runner.run(tab.core.call("evaluating", lambda: frame.evaluate(
        "document.getElementById('fb').textContent = 'Renamed'")))
    got = extract(tab)
    assert book.unchanged_frame_reads == before + 1
    assert find(got, role="button", name="Renamed").ref == find(first, role="button",
                                                                  name="Frame button").ref


def _nodes(node: Any) -> list[Any]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.children)
    return out


def _plain(tree: Any) -> dict[str, Any]:
    data: dict[str, Any] = tree.model_dump()
    data["stats"].pop("js_time_ms")
    return data
