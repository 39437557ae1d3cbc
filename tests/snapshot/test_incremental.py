"""Incremental reads: a read of a document nothing changed in is the last read again, and a read
after any change (seen by the document's watch or not) is what a full read gives, node by node."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from webrefs import Tab
from webrefs.models import Node, PageTree
from webrefs.snapshot import extract as extract_module
from webrefs.snapshot.extract import ExtractLimits
from webrefs.snapshot.script import retexted_since

from tests.helpers.extracting import evaluate, extract, find, find_all, same
from tests.helpers.procs import wait_until
from tests.helpers.server import SiteServer

# Changes made by the page's own scripts: some give the document a mutation, some an event
# that comes only at the next frame, some nothing at all the watch's observer sees.
CHANGES: dict[str, str] = {
    "edit text": "document.getElementById('p1').firstChild.data += ' more'",
    "insert subtree": """(() => { const li = document.createElement('li');
        li.innerHTML = 'New <a href="#n">link</a>';
        document.getElementById('list').append(li); })()""",
    "remove subtree": """(() => { const l = document.getElementById('list');
        if (l.firstElementChild) l.firstElementChild.remove(); })()""",
    "hide by class": "document.getElementById('list').classList.toggle('hidden')",
    "fade": "document.getElementById('pb').classList.toggle('faded')",
    "check by property": "(e => { e.checked = !e.checked; })(document.getElementById('toggle'))",
    "value by property": "document.getElementById('name').value += 'x'",
    "select by property":
        "(e => { e.selectedIndex = (e.selectedIndex + 1) % 3; })(document.getElementById('sel'))",
    "textarea by property": "document.getElementById('ta').value += '!'",
    "scroll page": "window.scrollBy(0, 250)",
    "scroll box": "document.getElementById('box').scrollTop += 40",
    "focus": "document.getElementById('name').focus()",
    "blur": "document.activeElement && document.activeElement.blur()",
    "click handler": "document.getElementById('plain').addEventListener('click', () => {})",
    "rule inserted": "document.styleSheets[0].insertRule('#l2 { display: none }', 0)",
    "rule removed": "(s => s.cssRules.length > 12 && s.deleteRule(0))(document.styleSheets[0])",
    "adopted sheet": """(() => { const s = new CSSStyleSheet();
        s.replaceSync('#l3 { visibility: hidden }');
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, s]; })()""",
    "shadow text":
        "document.getElementById('host').shadowRoot.firstChild.textContent += ' changed'",
    "open details": "(e => { e.open = !e.open; })(document.getElementById('det'))",
    "address": "history.pushState({}, '', '#moved' + Math.random().toString(36).slice(2))",
    "title": "document.title += '.'",
    "rule property": """(r => { r.style.display = r.style.display ? '' : 'none'; })(
        [...document.styleSheets[0].cssRules].find(r => r.selectorText === '#l1'))""",
    "rule property map": """(r => r.styleMap.set('visibility',
        r.styleMap.has('visibility') && String(r.styleMap.get('visibility')) === 'hidden'
          ? 'visible' : 'hidden'))(
        [...document.styleSheets[0].cssRules].find(r => r.selectorText === '#l2'))""",
    "popover": "document.getElementById('pop').togglePopover()",
    "closed root": "(s => { s.name = s.name === 'a' ? 'b' : 'a'; })("
                   "closedRoot.querySelector('slot'))",
    "parsed closed root": "(s => { s.name = s.name === 'a' ? 'b' : 'a'; })("
                          "document.getElementById('card').internals.shadowRoot"
                          ".querySelector('slot'))",
}


def full(tab: Tab) -> PageTree:
    tab.core.refs.kept.clear()
    return extract(tab)


def test_unchanged_page_reuses_the_last_read(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/incremental.html"))
    first = extract(tab)
    book = tab.core.refs
    before = book.unchanged_reads
    again = extract(tab)
    assert book.unchanged_reads == before + 1
    assert same(first, again) is None
    # what the page's world alone sees (a click handler added) is not an unchanged page
    evaluate(tab, CHANGES["click handler"])
    after = extract(tab)
    assert book.unchanged_reads == before + 1
    assert same(after, full(tab)) is None
    assert any(n.clickable for n in _walk(after) if "plain box" in (n.text or n.name))


@pytest.mark.parametrize("what", list(CHANGES))
def test_every_kind_of_change_reads_as_a_full_read(tab: Tab, site: SiteServer, what: str) -> None:
    tab.goto(site.url("/extract/incremental.html"))
    extract(tab)
    for _ in range(2):  # there and back (a toggle)
        evaluate(tab, CHANGES[what])
        got = extract(tab)
        diff = same(got, full(tab))
        assert diff is None, f"after {what}: {diff}"


def test_random_changes_read_as_full_reads(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/incremental.html"))
    rng = random.Random(33)
    names = list(CHANGES)
    extract(tab)
    book = tab.core.refs
    for step in range(40):
        picked = rng.sample(names, rng.randint(0, 2))
        for what in picked:
            evaluate(tab, CHANGES[what])
        if rng.random() < 0.3:
            tab.runner.run(tab.core.page.mouse.move(rng.randint(0, 300), rng.randint(0, 400)))
        got = extract(tab)
        diff = same(got, full(tab))
        assert diff is None, f"step {step}, after {picked}: {diff}"
    assert book.unchanged_reads > 0


def test_hover_change_without_mutation_is_seen(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/incremental.html"))
    box = evaluate(tab, "(r => [r.x + 2, r.y + 2])"
                        "(document.getElementById('menu-title').getBoundingClientRect())")
    extract(tab)
    tab.runner.run(tab.core.page.mouse.move(box[0], box[1]))
    got = extract(tab)
    assert same(got, full(tab)) is None
    assert any(n.name == "First item" for n in _walk(got))


def _walk(tree: PageTree) -> list[Any]:
    out, stack = [], [tree.root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.children)
    return out


@pytest.mark.parametrize("media", [{"color_scheme": "dark"}, {"media": "print"}],
                         ids=["dark", "print"])
def test_media_emulated_by_the_host_is_seen(tab: Tab, site: SiteServer,
                                            media: dict[str, str]) -> None:
    """The host emulates a media feature the page's rules use: nothing in the page tells the
    document in time, yet the next read is a full one."""
    page = tab.core.page
    tab.goto(site.url("/extract/incremental.html"))
    before = extract(tab)
    try:
        tab.runner.run(page.emulate_media(**media))  # type: ignore[arg-type]
        got = extract(tab)
        assert same(got, full(tab)) is None
        assert same(got, before) is not None  # the rule hid something
    finally:
        tab.runner.run(page.emulate_media(media="screen", color_scheme="light"))


async def test_a_wrapped_page_is_always_read_in_full(site: SiteServer) -> None:
    """A page of a Playwright webrefs did not start has no responder in its world, which
    alone sees a style sheet changed through its object model: it never vouches."""
    from playwright.async_api import async_playwright
    from webrefs import Browser
    from webrefs.session.launcher import chromium_args, find_chromium
    from webrefs.snapshot.extract import extract_page

    async with async_playwright() as pw:
        pw_browser = await pw.chromium.launch(executable_path=find_chromium(),
                                              args=chromium_args())
        try:
            page = await pw_browser.new_page()
            await page.goto(site.url("/extract/incremental.html"))
            browser = Browser.wrap(page)
            book = browser.active_tab.core.refs
            await extract_page(page, book)
            again = await extract_page(page, book)
            assert book.unchanged_reads == 0 and not book.kept
            await page.evaluate(CHANGES["rule property"])
            assert same(await extract_page(page, book), again) is not None
            await browser.aclose()
        finally:
            await pw_browser.close()


def test_a_rules_declarations_work_for_the_page_as_before(tab: Tab, site: SiteServer) -> None:
    """The page's scripts see a rule's declarations as they would without webrefs."""
    tab.goto(site.url("/extract/incremental.html"))
    got = evaluate(tab, """() => {
      const r = [...document.styleSheets[0].cssRules].find(r => r.selectorText === '#l1');
      const s = r.style;
      s.setProperty('font-weight', 'bold');
      s.color = 'red';
      s['background-color'] = 'blue';
      return [s === r.style, s instanceof CSSStyleDeclaration, s.length, s[0],
              s.getPropertyValue('color'), s.backgroundColor, r.cssText,
              getComputedStyle(document.getElementById('l1')).fontWeight,
              Object.prototype.toString.call(s)];
    }""")
    assert got == [True, True, 3, "color", "red", "blue",
                   "#l1 { color: red; font-weight: bold; background-color: blue; }", "700",
                   "[object CSSStyleDeclaration]"]


def _in_view(tree: PageTree) -> set[str]:
    return {n.ref for n in _walk(tree) if n.ref and n.in_viewport}


def test_a_page_that_animates_forever_is_read_around_what_animates(
        tab: Tab, site: SiteServer) -> None:
    """A badge that blinks forever, and a dot in an SVG image that pulses forever (infinite
    CSS animations), used to make every read a full one. Now each read walks again around
    the elements animations run on (for the dot, the HTML element that holds its image), as
    around an element whose class changed, and the rest of the page is kept: an unchanged
    page, and a text edit elsewhere, are read around them, and each read is what a full read
    gives."""
    tab.goto(site.url("/extract/animations.html"))
    extract(tab)
    book = tab.core.refs
    for turn in range(3):
        if turn == 1:
            evaluate(tab, "document.getElementById('para').firstChild.data += ' more'")
        before, walked = book.retexted_reads, book.full_reads
        got = extract(tab)
        assert (book.retexted_reads, book.full_reads) == (before + 1, walked), f"turn {turn}"
        assert same(got, full(tab)) is None, f"turn {turn}"
    assert any("more" in (n.text or "") for n in _walk(got))


@pytest.mark.parametrize("how", [
    "document.getElementById('bar').classList.add('grow')",  # an animation, once
    "document.getElementById('box').classList.add('wide')",  # a transition
])
def test_an_element_whose_animation_ended_since_is_read_again(
        tab: Tab, site: SiteServer, how: str) -> None:
    """An animation or a transition that ran and ended between two reads leaves its element
    restyled with no mutation and nothing running at the read: its end event has the read
    walk again around it (it used to walk the page), and what it shows now (the link the
    box grew to show) is what a full read gives."""
    tab.goto(site.url("/extract/animations.html"))
    extract(tab)
    book = tab.core.refs
    evaluate(tab, how)
    extract(tab)  # (around it while it runs: its box moves, so this read is not compared)
    # (until it ended, 5 s at most: only those that run forever run on; a busy machine may
    # draw late)
    evaluate(tab, "new Promise((done) => { const end = performance.now() + 5000; "
                  "const ended = () => document.getAnimations().every("
                  "(a) => a.effect.getTiming().iterations === Infinity "
                  "|| a.playState !== 'running'); "
                  "const wait = () => (ended() || performance.now() > end ? setTimeout(done, 50) "
                  ": setTimeout(wait, 20)); wait(); })")
    before = book.retexted_reads
    got = extract(tab)
    assert book.retexted_reads == before + 1
    assert same(got, full(tab)) is None


def test_a_read_after_the_pages_own_scroll_measures_its_boxes_again(
        tab: Tab, site: SiteServer) -> None:
    """Only the page's scroll changed: the document measures every box its last walk did,
    finds each moved by exactly the scroll, and answers with what came into or left the
    viewport; the host's tree is then what a full read gives, with the same refs."""
    tab.goto(site.url("/extract/scrolling.html"))
    first = extract(tab)
    book = tab.core.refs
    walks = book.full_reads
    seen = [_in_view(first)]
    for y in (900, 2500, 2600, 0):
        evaluate(tab, f"window.scrollTo(0, {y})")
        got = extract(tab)
        assert book.rescrolled_reads == len(seen), f"scrolled to {y}: read in full"
        assert got.scroll.y == y
        seen.append(_in_view(got))
        assert same(got, full(tab)) is None, f"scrolled to {y}"
    assert book.full_reads == walks + len(seen) - 1  # (the full reads compared with)
    # the viewport's content moved with the scroll, and came back
    assert seen[1] and not seen[1] & seen[0] and seen[2] != seen[1] and seen[4] == seen[0]


def _scrolled(tab: Tab, url: str) -> Iterator[tuple[int, PageTree]]:
    """``url`` read, then scrolled to 1300, 1500 and 200 px: each read after a scroll (equal
    to a full read) with where it was scrolled to; every one of them measured, none walked."""
    tab.goto(url)
    extract(tab)
    book = tab.core.refs
    for y in (1300, 1500, 200):
        evaluate(tab, f"window.scrollTo(0, {y})")
        got = extract(tab)
        assert same(got, full(tab)) is None, f"scrolled to {y}"
        yield y, got
    assert book.rescrolled_reads == 3


def test_a_box_fixed_to_the_viewport_moves_on_the_page_after_a_scroll(
        tab: Tab, site: SiteServer) -> None:
    """A fixed header stays where it is in the viewport: its nodes get their new page
    boxes, and the read is still no walk."""
    for y, got in _scrolled(tab, site.url("/extract/scrolling.html?fixed")):
        home = find(got, name="Home")
        assert home.box is not None and y <= home.box.y < y + 40 and home.in_viewport


@pytest.mark.parametrize("query", ["?drawer", "?drawer&tall"], ids=["as it is", "body-height"])
def test_a_drawer_fixed_left_of_the_page_stays_hidden_after_a_scroll(
        tab: Tab, site: SiteServer, query: str) -> None:
    """A menu drawer fixed to the viewport just left of the page (hidden there) stays where it
    is in the viewport as the page scrolls down and up: what is left of the page is still
    left of it, so the read is still no walk; also where the body is only as tall as the
    viewport and the page's content overflows it (a box that cannot scroll)."""
    for _, got in _scrolled(tab, site.url(f"/extract/scrolling.html{query}")):
        assert not find_all(got, name="In the drawer")
        assert find(got, name="Home").box is not None


def _until(tab: Tab, script: str, what: str) -> None:
    """Wait (15 s at most) for ``script`` to be true in the page."""
    assert wait_until(lambda: evaluate(tab, script), timeout=15, interval=0.1), what


def _read_not_kept(tab: Tab) -> PageTree:
    """A read that must not answer with the last one, and that equals a full read."""
    book = tab.core.refs
    unchanged = book.unchanged_reads
    got = extract(tab)
    assert book.unchanged_reads == unchanged
    assert same(got, full(tab)) is None
    return got


def test_an_image_that_arrived_since_is_seen_though_the_page_keeps_its_event(
        tab: Tab, site: SiteServer) -> None:
    """An image that arrives after a read gives itself and the link holding it a box, with no
    mutation. Here it is lazy (the window's own load event has come before the first read)
    and the page stops its images' load events before any later listener sees them: the next
    read still sees the image, as a full read does."""
    tab.goto(site.url("/extract/kept-events.html"))
    before = extract(tab)
    assert evaluate(tab, "document.readyState") == "complete"
    assert evaluate(tab, "document.querySelector('img').complete") is False, \
        "the image came before the first read: nothing to test"
    assert find(before, role="link").box is not None
    assert find(before, role="link").box.w == 0
    _until(tab, "document.querySelector('img').naturalWidth > 0", "the image never came")
    after = _read_not_kept(tab)
    box = find(after, role="link").box
    assert box is not None and box.w == 12


def test_a_video_sized_since_is_seen_though_the_page_keeps_its_events(
        tab: Tab, site: SiteServer) -> None:
    """A video takes its size from its first frames, with no mutation (here a stream set by
    the page's script); the page stops its media events before any later listener sees
    them. The next read still sees the video's new size, as a full read does."""
    tab.goto(site.url("/extract/kept-events.html"))
    evaluate(tab, "document.querySelector('img').remove()")  # (its late arrival aside)
    before = extract(tab)
    evaluate(tab, """(() => { const c = document.createElement('canvas');
        c.width = 40; c.height = 20; const g = c.getContext('2d');
        setInterval(() => { g.fillStyle = g.fillStyle === '#ff0000' ? '#0000ff' : '#ff0000';
          g.fillRect(0, 0, 40, 20); }, 30);
        document.getElementById('vid').srcObject = c.captureStream(); })()""")
    _until(tab, "document.getElementById('vid').videoWidth > 0",
           "the video never took its size")
    after = _read_not_kept(tab)
    assert same(after, before) is not None


def test_a_popover_shown_is_seen_though_the_page_keeps_its_toggle_events(
        tab: Tab, site: SiteServer) -> None:
    """A popover shown by the page's script changes no attribute; the page here stops its
    toggle events before any later listener sees them. The next read still shows it."""
    tab.goto(site.url("/extract/kept-events.html"))
    evaluate(tab, "document.querySelector('img').remove()")  # (its late arrival aside)
    before = extract(tab)
    assert not find_all(before, name="Popover text") and not any(
        "Popover text" in (n.text or "") for n in _walk(before))
    evaluate(tab, "document.getElementById('pop').showPopover()")
    after = _read_not_kept(tab)
    assert any("Popover text" in (n.text or n.name) for n in _walk(after))


def test_a_page_with_a_sticky_box_is_walked_after_a_scroll(tab: Tab, site: SiteServer) -> None:
    """A sticky heading moves by the scroll only part of the way: the page is walked."""
    tab.goto(site.url("/extract/scrolling.html?sticky"))
    extract(tab)
    book = tab.core.refs
    for y in (1300, 1500):
        evaluate(tab, f"window.scrollTo(0, {y})")
        got = extract(tab)
        assert book.rescrolled_reads == 0
        assert same(got, full(tab)) is None


def test_a_scroll_with_other_changes_is_walked(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/scrolling.html"))
    extract(tab)
    book = tab.core.refs
    for change in ("document.getElementById('box').scrollTop += 40",
                   "document.querySelector('#s2 p').textContent += ' More.'",
                   "document.querySelector('#s5 input').value = 'typed'"):
        evaluate(tab, f"window.scrollBy(0, 700); {change}")
        got = extract(tab)
        assert book.rescrolled_reads == 0, change
        assert same(got, full(tab)) is None, change


def test_an_element_above_the_page_stays_hidden_once_the_page_is_scrolled(
        tab: Tab, site: SiteServer) -> None:
    """A skip link placed above the page's top is not shown, however far the page is
    scrolled: the page's own scroll moves nothing against the page (a box inside it that
    is scrolled past its content does)."""
    tab.goto(site.url("/extract/scrolling.html"))
    names = {n.name for n in _walk(extract(tab))}
    assert "Skip to content" not in names and "Link 1" in names
    evaluate(tab, "window.scrollTo(0, 1500)")
    names = {n.name for n in _walk(full(tab))}
    assert "Skip to content" not in names and "Off to the left" not in names


def test_a_rescroll_answer_that_does_not_fit_what_the_host_kept_is_read_again_in_full(
        tab: Tab, site: SiteServer) -> None:
    """The host's kept tree and the document's last output go together; should an answer
    name nodes the kept tree lacks, the host reads the page again in full."""
    from webrefs.snapshot.script import QuickRead

    tab.goto(site.url("/extract/scrolling.html"))
    extract(tab)
    book = tab.core.refs
    frame, (token, quick) = next(iter(book.kept.items()))
    bare = quick.tree.model_copy(update={"root": quick.tree.root.model_copy(
        update={"children": []})})
    book.kept[frame] = (token, QuickRead(bare, quick.next_ref, quick.root_missing, quick.hosts))
    evaluate(tab, "window.scrollTo(0, 2000)")
    got = extract(tab)
    assert book.rescrolled_reads == 0 and got.root.children
    assert same(got, full(tab)) is None


# Text edited in place by the page: (script, whether the read walks only around it). Each is
# done there and back; every read must equal a full read.
TEXT_EDITS: dict[str, tuple[str, bool]] = {
    "a text node's data": ("(t => { t.data = t.data.startsWith('3') ? '4 orders are open.' "
                           ": '3 orders are open.'; })("
                           "document.getElementById('status').firstChild)", True),
    "an element's text swapped": ("(e => { e.textContent = e.textContent.length > 20 ? "
                                  "'5 open.' : '5 orders are open, 2 are late.'; })("
                                  "document.getElementById('status'))", True),
    "inline text in a link": ("(e => { e.textContent = e.textContent === '3' ? '12' : '3'; })("
                              "document.getElementById('count'))", True),
    "a heading inside a link": ("(e => { e.firstChild.data = e.textContent === '1001' ? '2002' "
                                ": '1001'; })(document.getElementById('num'))", True),
    "a button's content": ("(e => { e.textContent = e.textContent === 'draft' ? 'copy' : "
                           "'draft'; })(document.querySelector('#btn b'))", True),
    "a line that wraps": ("(e => { e.textContent = e.textContent === 'Short.' ? "
                          "'A much longer text. '.repeat(9) : 'Short.'; })("
                          "document.getElementById('long'))", True),
    "a cell": ("(t => { t.data = t.data === '4.00' ? '5.25' : '4.00'; })("
               "document.getElementById('price').firstChild)", True),
    "a list item's inline part": ("(e => { e.textContent = e.textContent === 'and a half' ? "
                                  "'and more' : 'and a half'; })("
                                  "document.querySelector('#list em'))", True),
    "fixed to the viewport": ("(e => { e.textContent = e.textContent === '10:00' ? '10:01' : "
                              "'10:00'; })(document.getElementById('clock'))", True),
    "in a shadow root": ("(b => { b.textContent = b.textContent === 'text' ? 'words' : "
                         "'text'; })("
                         "document.getElementById('host').shadowRoot.querySelector('b'))", True),
    "two places at once": ("document.getElementById('count').textContent += '0';"
                           "document.getElementById('price').firstChild.data += '0'", True),
    "inside a label": ("(e => { e.textContent = e.textContent === 'name' ? 'full name' : "
                       "'name'; })(document.getElementById('lt'))", True),
    "a label for two fields of one id": (
        "(e => { e.firstChild.data = e.firstChild.data === 'one' ? 'two' : 'one'; })("
        "document.getElementById('lt2'))", True),
    "a name by reference": ("(e => { e.textContent = e.textContent === 'Total' ? 'Sum' : "
                            "'Total'; })(document.getElementById('lbl'))", True),
    "a name by reference elsewhere": ("(e => { e.textContent = e.textContent === 'Amount due' ? "
                                      "'To pay' : 'Amount due'; })(document.getElementById('due'))",
                                      True),
    "a container resized": ("(e => { e.textContent = e.textContent === 'Wide' ? "
                            "'Much wider now, '.repeat(4) : 'Wide'; })("
                            "document.getElementById('grow'))", False),
    "blank to text": ("(t => { t.data = /\\S/.test(t.data) ? ' ' : 'Now some text'; })("
                      "document.getElementById('blank').firstChild)", False),
    "text to empty": ("(e => { e.textContent = e.textContent ? '' : 'new'; })("
                      "document.getElementById('tag'))", False),
    "text and an attribute": ("(e => { e.firstChild.data += '!'; e.title = e.title ? '' : 'x'; })("
                              "document.getElementById('status'))", False),
    "the title": ("document.title = document.title === 'Text edits' ? 'Edited' : 'Text edits'",
                  False),
}


@pytest.mark.parametrize("what", list(TEXT_EDITS))
def test_a_text_edit_walks_only_around_it(tab: Tab, site: SiteServer, what: str) -> None:
    """Text edited in place: the document walks again only the element nearest above the
    edit (and names the nodes above it again), measures the other boxes, and the host's
    tree is what a full read gives, refs included; edits it cannot vouch for that way
    (text that names another element, text out of or into blank, anything else changed)
    are walked in full."""
    script, alone = TEXT_EDITS[what]
    tab.goto(site.url("/extract/retext.html"))
    extract(tab)
    book = tab.core.refs
    for turn in range(2):  # there and back
        before = book.retexted_reads
        evaluate(tab, script)
        got = extract(tab)
        assert book.retexted_reads == before + alone, f"turn {turn}"
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"


def test_a_text_edit_shows_in_names_and_moved_boxes(tab: Tab, site: SiteServer) -> None:
    """What a text edit changes outside the walked subtree: the name of a link holding the
    edited heading, and the boxes below a paragraph that grew by lines."""
    tab.goto(site.url("/extract/retext.html"))
    first = extract(tab)
    book = tab.core.refs
    evaluate(tab, TEXT_EDITS["a heading inside a link"][0])
    evaluate(tab, TEXT_EDITS["a line that wraps"][0])
    got = extract(tab)
    assert book.retexted_reads == 1
    assert find(got, role="link", name="Order 2002 Shipped today").ref == find(
        first, role="link", name="Order 1001 Shipped today").ref
    was, now = find(first, name="a link"), find(got, name="a link")
    assert was.box is not None and now.box is not None and now.box.y > was.box.y + 30
    assert same(got, full(tab)) is None
    # text that names an element elsewhere names it again
    evaluate(tab, TEXT_EDITS["a name by reference elsewhere"][0])
    assert find(extract(tab), role="button", name="To pay").ref == find(
        first, role="button", name="Amount due").ref
    assert book.retexted_reads == 2
    # a script's text shows nowhere: no change at all
    unchanged = book.unchanged_reads
    evaluate(tab, "(e => { e.textContent += ' '; })(document.querySelector('body script'))")
    extract(tab)
    assert book.unchanged_reads == unchanged + 1


# Attributes changed by the page: (script, whether the read walks only around them; a page
# with a style sheet that matches upwards, :has, is walked in full). There and back each.
ATTR_EDITS: dict[str, tuple[str, bool]] = {
    "a class hides a list item": ("document.getElementById('li2').classList.toggle('hidden')",
                                  True),
    "a class on a list hides its items": (
        "document.getElementById('list').classList.toggle('collapsed')", True),
    "a sibling's class": ("document.getElementById('sib').classList.toggle('on')", True),
    "an inline style": ("(e => { e.style.display = e.style.display ? '' : 'none'; })("
                        "document.getElementById('para'))", True),
    "a menu opened": ("(b => { const open = b.getAttribute('aria-expanded') === 'true';"
                      "b.setAttribute('aria-expanded', String(!open));"
                      "document.getElementById('menu').hidden = open; })("
                      "document.getElementById('menu-btn'))", True),
    "a name": ("(b => b.setAttribute('aria-label', b.getAttribute('aria-label') ? '' : 'Store'))("
               "document.getElementById('save'))", True),
    "disabled": ("(b => { b.disabled = !b.disabled; })(document.getElementById('save'))", True),
    "an icon swapped": ("(i => { i.className = i.className === 'icon-play' ? 'icon-pause' : "
                        "'icon-play'; })(document.querySelector('#play i'))", True),
    "a box widened, what follows moved": (
        "document.getElementById('box').classList.toggle('wide')", True),
    "deep in a section": ("document.getElementById('deep').classList.toggle('flag')", True),
    "a box holding what names another": ("(e => { e.style.visibility = e.style.visibility ? "
                                         "'' : 'hidden'; })(document.getElementById('terms'))",
                                         True),
    "a box holding the label of a field elsewhere": (
        "(e => { e.hidden = !e.hidden; })(document.getElementById('qtybox'))", True),
    "in what holds most of the page": (
        "document.querySelector('footer ul').classList.toggle('marked')", False),
    "an id": ("(e => { e.id = e.id === 'li1' ? 'li1b' : 'li1'; })("
              "document.querySelector('#list li'))", False),
    "a tab stop": ("(e => e.tabIndex = e.tabIndex === 0 ? -1 : 0)("
                   "document.getElementById('para'))", False),
}


# (on the page with a :has rule, two class changes: one it reaches, one it does not, both
# read in full, as the old class is not kept; on the page that shows a counter, which no
# snapshot reads, two read around them)
@pytest.mark.parametrize(("what", "page", "partial"), [
    *((what, "", alone) for what, (_, alone) in ATTR_EDITS.items()),
    ("deep in a section", "?has", False), ("a class hides a list item", "?has", False),
    ("a class hides a list item", "?counter", True)])
def test_an_attribute_change_walks_only_around_it(
        tab: Tab, site: SiteServer, what: str, page: str, partial: bool) -> None:
    """An element's attributes changed: the document walks again its parent's nearest
    emitted element (selectors reach the element's subtree and its siblings'), and so is
    every element a label or a referred element in it names or describes (it may now be
    named otherwise); the host's tree is what a full read gives. A class changed on a page
    whose style sheets match upwards (:has: what they match may turn on the old class, which
    is not kept), a change that ties the element to others (an id, a tab stop a box may hold),
    and one under what holds most of the page (a walk costs no more) are walked in full. A
    counter shown in generated content is no part of a snapshot, so it changes nothing."""
    _there_and_back(tab, site.url("/extract/restyle.html" + page), ATTR_EDITS[what][0],
                    partial)


def _there_and_back(tab: Tab, url: str, script: str,
                    partial: bool | tuple[bool, bool]) -> None:
    """``script`` run twice on ``url`` (there and back), each read compared with a full read
    and counted as partial or not as ``partial`` says (for both turns, or each)."""
    tab.goto(url)
    extract(tab)
    book = tab.core.refs
    for turn in range(2):
        before = book.retexted_reads
        evaluate(tab, script)
        got = extract(tab)
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"
        walked = partial[turn] if isinstance(partial, tuple) else partial
        assert book.retexted_reads == before + walked, f"turn {turn}"


# each put in when it is not there, taken out when it is (so two turns go there and back)
def _toggled(make: str, where: str, how: str = "append") -> str:
    return (f"(() => {{ const old = document.getElementById('made'); if (old) {{ old.remove(); "
            f"return; }} const t = document.createElement('template'); t.innerHTML = {make!r}; "
            f"const x = t.content.firstElementChild; x.id = 'made'; "
            f"document.querySelector({where!r}).{how}(x); }})()")


CHILD_EDITS: dict[str, tuple[str, bool]] = {
    "an item put in a list": (_toggled("<li>Figs</li>", "#list"), True),
    "a part with a link and a button": (
        _toggled("<div><p>New <a href='#n'>link</a></p><button>Go</button></div>", "#para",
                 "after"), True),
    "an element taken out": (
        "(() => { const p = document.getElementById('para'); if (p) { window.kept = p; "
        "p.remove(); } else document.getElementById('sib').before(window.kept); })()", True),
    "items put in another order": (
        "(l => l.replaceChildren(...Array.from(l.children).reverse()))("
        "document.getElementById('list'))", True),
    "what follows moves": (_toggled("<p style='height: 300px'>Tall</p>", "#sec", "prepend"),
                           True),
    "a label": (_toggled("<label>Agreed <b>now</b></label>", "#para", "after"), True),
    "a label of a field elsewhere": (
        _toggled("<label for='qty'>Count</label>", "#para", "after"), True),
    "a label of a field elsewhere taken out": (
        "(() => { const a = document.getElementById('qtylabel'); if (a) { window.kept = a; "
        "a.remove(); } else document.getElementById('qtybox').append(window.kept); })()",
        True),
    "what another is named by": (
        "(() => { const a = document.getElementById('agree'); if (a) { window.kept = a; "
        "a.remove(); } else document.getElementById('terms').prepend(window.kept); })()",
        True),
    "a style sheet": (_toggled("<style>#para { display: none; }</style>", "#sec"), False),
    "a frame": (
        "new Promise((done) => { const old = document.getElementById('made'); "
        "if (old) { old.remove(); done(); return; } const f = document.createElement('iframe'); "
        "f.id = 'made'; f.onload = () => done(); f.srcdoc = '<p>in a frame</p>'; "
        "document.getElementById('sec').append(f); })", True),
    "a field": (_toggled("<input aria-label='Extra'>", "#sec"), True),
    "in what holds most of the page, where no sibling rule reaches": (
        _toggled("<li><a href='#f31'>Footer link 31</a></li>", "footer ul"), True),
    "a control under a box with a tab stop": (_toggled("<button>Add</button>", "#act"), False),
    "a control under a box out of the tab order": (_toggled("<button>Add</button>", "#act2"), True),
    "what is owned elsewhere": (
        "(() => { const o = document.getElementById('owned'); if (o) { window.kept = o; "
        "o.remove(); } else document.querySelector('aside').append(window.kept); })()", True),
    "a shadow root": (
        "(() => { const old = document.getElementById('made'); if (old) { old.remove(); return; } "
        "const d = document.createElement('div'); d.id = 'made'; "
        "d.attachShadow({mode: 'open'}).innerHTML = '<button>In a shadow</button>'; "
        "document.getElementById('sec').append(d); })()", False),
}


@pytest.mark.parametrize(("what", "page"), [
    *((what, "") for what in CHILD_EDITS),
    ("an item put in a list", "?counter"), ("a part with a link and a button", "?has"),
    ("what is owned elsewhere", "?owns")])
def test_elements_put_in_or_taken_out_walk_only_around_them(
        tab: Tab, site: SiteServer, what: str, page: str) -> None:
    """Elements put in or taken out: the element that holds them is read as one whose
    attributes changed (its parent's nearest emitted element walked again), new elements
    get the refs a full read gives them, and the host's tree is what a full read gives. A
    label or what another is named by, put in or taken out, walks again what it names too,
    and a frame put in is hung where the read puts it; an item put in what holds most of the
    page is walked alone, as the page's sibling rule (``.on + p``) reaches no item. What
    reaches beyond that (a style sheet, a shadow root, a control under a box with a tab
    stop, not one under a box taken out of the tab order), what holds most of the
    page, and a page where an element owns others by aria-owns (what it owned may be what
    was taken out) are walked in full. On a page whose sheet reaches upwards
    (``main:has(.flag)``), a part that holds no ``.flag`` is read around it, and so is one
    on a page that shows a counter in generated content (no part of a snapshot)."""
    script, alone = CHILD_EDITS[what]
    _there_and_back(tab, site.url("/extract/restyle.html" + page), script,
                    alone and page != "?owns")


# On a page where an element owns another elsewhere (aria-owns: the listbox at the top owns
# the option in the aside): (script, whether the read walks only around it). There and back.
OWNS_EDITS: dict[str, tuple[str, bool]] = {
    "an item put in a list": (CHILD_EDITS["an item put in a list"][0], True),
    "a class hides a list item": (ATTR_EDITS["a class hides a list item"][0], True),
    "a text edited": ("document.getElementById('para').firstChild.data += ' more'", True),
    "in what holds most of the page": (CHILD_EDITS[
        "in what holds most of the page, where no sibling rule reaches"][0], True),
    "the owned option's text": (
        "document.getElementById('owned').firstChild.data += ' more'", False),
    "the owned option hidden": (
        "(e => { e.hidden = !e.hidden; })(document.getElementById('owned'))", False),
    "what holds the owned option": (
        "document.querySelector('aside').classList.toggle('wide')", False),
    "the owner named otherwise": (
        "(e => e.setAttribute('aria-label', e.getAttribute('aria-label') === 'Picks' ? "
        "'Choices' : 'Picks'))(document.querySelector('[aria-owns]'))", False),
}


@pytest.mark.parametrize("what", list(OWNS_EDITS))
def test_a_page_with_aria_owns_is_read_around_changes_away_from_owner_and_owned(
        tab: Tab, site: SiteServer, what: str) -> None:
    """Where an element owns another elsewhere (aria-owns), the owned one is walked and named
    under its owner: a change that nothing walked again holds or is in (neither the owner
    nor what it owns) is read around it, as on a page without; a change in either, in
    what holds either, or one that changes what is owned (the option hidden, or taken out:
    see test_elements_put_in_or_taken_out_walk_only_around_them) walks the page. Every read
    is what a full read gives."""
    script, alone = OWNS_EDITS[what]
    _there_and_back(tab, site.url("/extract/restyle.html?owns"), script, alone)
    owner = find(extract(tab), role="listbox", name="Picks")  # (there and back: as it was)
    assert [k.name.startswith("Owned elsewhere") for k in owner.children] == [True]


# Changes under elements that were walked but not emitted (wrappers) and have no emitted
# element above them: (script, whether the read walks only around them). There and back.
WRAPPER_EDITS: dict[str, tuple[str, bool | tuple[bool, bool]]] = {
    "a paragraph hidden": ("document.getElementById('p3').classList.toggle('gone')", True),
    "a paragraph put in": (
        _toggled("<p>New, with <a href='#n'>a link</a>.</p>", "#w3b", "before"), True),
    "a paragraph made invisible before a frame, which stays": (
        "document.getElementById('p2').classList.toggle('unseen')", True),
    "a paragraph hidden before a frame, which moves up with what is in it": (
        "document.getElementById('p2').classList.toggle('gone')", True),
    "a part taken out": (
        "(() => { const p = document.getElementById('w3b'); if (p) { window.kept = p; "
        "p.remove(); } else document.getElementById('w3a').append(window.kept); })()", True),
    "a wrapper that gave nothing gives a part": (
        "document.getElementById('later').classList.toggle('gone')", True),
    "a wrapper that becomes a box of text": (
        "(() => { const p = document.getElementById('w7b'); if (p) { window.kept = p; "
        "p.remove(); } else document.getElementById('w7a').append(window.kept); })()", True),
    "two wrappers at once": (
        "document.getElementById('p3').classList.toggle('gone');"
        "document.getElementById('later').classList.toggle('gone');"
        "document.getElementById('b9').classList.toggle('gone')", True),
    "what holds a second frame, restyled": (
        "document.getElementById('w4').classList.toggle('tinted')", True),
    "what holds a second frame, hidden and shown again": (
        "document.getElementById('w4').classList.toggle('gone')", True),
    "what holds the whole page": (
        "document.getElementById('top').classList.toggle('unseen')", (False, True)),
}


@pytest.mark.parametrize("what", list(WRAPPER_EDITS))
def test_a_change_under_a_wrapper_walks_only_the_wrapper(
        tab: Tab, site: SiteServer, what: str) -> None:
    """A change with no emitted element above it but an element walked and not emitted (a
    wrapper, whose nodes went to its parent node's children): the wrapper is walked again
    and what it gives now, any number of nodes, takes the place of what it gave (the frame
    after one is still found where it went, a frame moved by the change takes what is in it
    along, and a frame in what is walked again is hung where the walk puts it), and the
    host's tree is what a full read gives. A change whose nearest wrapper holds the whole
    page is walked in full (but where what it held was hidden: showing it again walks only
    what was not walked)."""
    _there_and_back(tab, site.url("/extract/wrappers.html"), WRAPPER_EDITS[what][0],
                    WRAPPER_EDITS[what][1])


@pytest.mark.parametrize(("page", "partial"), [("", True), ("?sib", False)])
def test_an_element_whose_attributes_changed_is_walked_alone_where_no_rule_reaches_its_siblings(
        tab: Tab, site: SiteServer, page: str, partial: bool) -> None:
    """An emitted element still shown whose class changed (its generated text with it),
    right under what holds the whole page: where no readable sheet reaches an element's
    siblings by what it is (``+``, ``~``, ``:nth-child(of S)``) it is walked again alone.
    Where one does (``h1.big + div`` makes the part after the heading invisible) it is walked
    from its parent, here the whole page: a full read."""
    _there_and_back(tab, site.url("/extract/wrappers.html" + page),
                    "document.querySelector('h1').classList.toggle('big')", partial)


def test_partial_reads_follow_one_another(tab: Tab, site: SiteServer) -> None:
    """A partial read keeps what the next one needs: the subtree it walked again hangs under
    the node that held the old one, so a change there again (or under it) is read around it
    again, with no full read between, each time what a full read gives."""
    tab.goto(site.url("/extract/restyle.html"))
    extract(tab)
    steps = [CHILD_EDITS["an item put in a list"][0], CHILD_EDITS["an item put in a list"][0],
             ATTR_EDITS["a class hides a list item"][0], CHILD_EDITS["an element taken out"][0],
             CHILD_EDITS["an element taken out"][0], ATTR_EDITS["deep in a section"][0]]
    _chain(tab, steps)


def _chain(tab: Tab, steps: list[str]) -> None:
    """Each of ``steps`` run and read around, with no full read between; the last read is
    what a full read gives."""
    book = tab.core.refs
    before = book.retexted_reads
    got = None
    for script in steps:
        evaluate(tab, script)
        got = extract(tab)
    assert book.retexted_reads == before + len(steps)
    assert got is not None
    diff = same(got, full(tab))
    assert diff is None, diff


def test_partial_reads_under_wrappers_follow_one_another(tab: Tab, site: SiteServer) -> None:
    """Wrappers walked again one after another with no full read between: what one gives
    now moves what the wrappers after it in the same parent node gave (and what holds it
    grows or shrinks), so each later one still takes the place of what it gave."""
    tab.goto(site.url("/extract/wrappers.html"))
    extract(tab)
    steps = [WRAPPER_EDITS[what][0] for what in (
        "a paragraph hidden", "a paragraph put in", "a wrapper that gave nothing gives a part",
        "a wrapper that becomes a box of text", "a paragraph made invisible before a frame, "
        "which stays", "a paragraph hidden", "a part taken out", "a paragraph put in",
        "a wrapper that becomes a box of text", "a wrapper that gave nothing gives a part",
        "a part taken out")]
    _chain(tab, steps)


def test_a_page_grown_to_the_node_cap_is_walked_in_full(tab: Tab, site: SiteServer) -> None:
    """Elements put in that take the page to the node cap: a full walk stops there, so the
    read is a full walk, cut where a full read cuts."""
    tab.goto(site.url("/extract/restyle.html"))
    cap = ExtractLimits(max_nodes=extract(tab).stats.emitted_nodes + 2)
    tab.core.refs.kept.clear()
    extract(tab, limits=cap)
    got = _read_in_full(tab, cap, "(() => { const l = document.getElementById('list'); "
                                  "for (let i = 0; i < 3; i++) l.append(Object.assign("
                                  "document.createElement('li'), {textContent: 'More ' + i})); "
                                  "})()")
    assert got.stats.truncated and "maxNodes" in got.stats.truncated_reasons


def _read_in_full(tab: Tab, cap: ExtractLimits, script: str) -> PageTree:
    """The read after ``script`` under ``cap``: a full read, which a full read again gives."""
    book = tab.core.refs
    before = book.retexted_reads
    evaluate(tab, script)
    got = extract(tab, limits=cap)
    assert book.retexted_reads == before
    tab.core.refs.kept.clear()
    diff = same(got, extract(tab, limits=cap))
    assert diff is None, diff
    return got


def _capped(tab: Tab, site: SiteServer, short_by: int) -> ExtractLimits:
    """restyle.html read in full with a node cap ``short_by`` nodes short of the page (the
    cut falls in its footer's list of links)."""
    tab.goto(site.url("/extract/restyle.html"))
    cap = ExtractLimits(max_nodes=extract(tab).stats.emitted_nodes - short_by)
    tab.core.refs.kept.clear()
    assert "maxNodes" in extract(tab, limits=cap).stats.truncated_reasons
    return cap


# (what is hidden, each before the cut; then what is shown again, in turn)
BEFORE_THE_CUT = ["#para", "#li1", "#box", "#tail", "#qtybox"]


@pytest.mark.parametrize(("short_by", "still_cut"), [(20, True), (3, False)])
def test_a_read_cut_at_the_node_cap_goes_on_from_the_cut_when_less_comes_before_it(
        tab: Tab, site: SiteServer, short_by: int, still_cut: bool) -> None:
    """A page cut at the node cap: what is hidden before the cut is read around it, and the
    walk goes on from where it stopped as far as the cap lets it (cut again, or, with little
    past the cut, to the end of the page: no longer cut), chained with no full read between,
    each what a full read under the same cap gives. Shown again where the page is still cut,
    the cut moves earlier: a full read (where it is no longer cut, read around it)."""
    cap = _capped(tab, site, short_by)
    book = tab.core.refs
    got = None
    for i, name in enumerate(BEFORE_THE_CUT):
        before = book.retexted_reads
        evaluate(tab, f"document.querySelector({name!r}).classList.add('hidden')")
        got = extract(tab, limits=cap)
        assert book.retexted_reads == before + 1, name
        if i == 1:  # (one compared on the way; a full read starts the chain again)
            tab.core.refs.kept.clear()
            assert same(got, extract(tab, limits=cap)) is None
    assert got is not None
    tab.core.refs.kept.clear()
    again = extract(tab, limits=cap)
    assert same(got, again) is None, same(got, again)
    assert ("maxNodes" in got.stats.truncated_reasons) == still_cut
    before = book.retexted_reads
    evaluate(tab, "document.getElementById('para').classList.remove('hidden')")
    shown = extract(tab, limits=cap)
    assert book.retexted_reads == before + (not still_cut)
    tab.core.refs.kept.clear()
    assert same(shown, extract(tab, limits=cap)) is None


def _main_nodes(node: Node) -> int:
    """The nodes under ``node`` the main document's walk emitted (not its frames')."""
    return sum(1 + (0 if k.frame is not None else _main_nodes(k)) for k in node.children)


def test_an_element_put_in_past_the_cut_is_not_missed_when_the_walk_goes_on(
        tab: Tab, site: SiteServer) -> None:
    """An element put in past the cut (one that shows nothing, at the end of what holds the
    page's parts), with a paragraph hidden before the cut: the walk that goes on would go on
    with the elements it left, not the one put in since, and be cut again before it: a full
    read, which does not count it."""
    tab.goto(site.url("/extract/wrappers.html"))
    cap = ExtractLimits(max_nodes=_main_nodes(extract(tab).root) - 6)
    tab.core.refs.kept.clear()
    assert "maxNodes" in extract(tab, limits=cap).stats.truncated_reasons
    _read_in_full(tab, cap, "document.getElementById('top').append(Object.assign("
                            "document.createElement('div'), {className: 'gone', textContent: "
                            "'Late'})); document.getElementById('p3').classList.add('gone')")


def test_a_change_in_what_holds_the_cut_walks_the_page(tab: Tab, site: SiteServer) -> None:
    """A change in a part of the page that held the cut (its footer): the walk of that part
    would run into the cap: a full read, cut where a full read cuts."""
    _read_in_full(tab, _capped(tab, site, 20),
                  "document.querySelector('footer li').classList.add('hidden')")


# each made twice on fields.html (there and back; "focus moved" first reaches the name field,
# then moves on to a check box)
FIELD_EDITS: dict[str, str] = {
    "a value set": "(e => { e.value = e.value ? '' : 'Ada'; })(document.getElementById('name'))",
    "a box checked that shows what follows it":
        "(e => { e.checked = !e.checked; })(document.getElementById('gift'))",
    "a choice in a label that names another control":
        "(e => { e.selectedIndex = (e.selectedIndex + 1) % 3; })(document.getElementById('count'))",
    "a choice another element names":
        "(e => { e.selectedIndex = 1 - e.selectedIndex; })(document.getElementById('size'))",
    "a radio button chosen": "(r => { const p = document.getElementById('post'); "
                             "(p.checked ? r : p).checked = true; })("
                             "document.getElementById('pickup'))",
    "focus that shows what follows": "(e => { if (document.activeElement === e) e.blur(); "
                                     "else e.focus(); })(document.getElementById('name'))",
    "focus moved": "(a => { const b = document.getElementById('qty'); "
                   "(document.activeElement === a ? b : a).focus(); })("
                   "document.getElementById('name'))",
    "a field put in": _toggled("<input required aria-label='Extra'>", "#more"),
}


@pytest.mark.parametrize(("what", "page", "partial"), [
    *((what, "", True) for what in FIELD_EDITS),
    ("focus that shows what follows", "?within", False), ("a value set", "?within", True),
    ("a value set", "?valid", False), ("a box checked that shows what follows it", "?valid", False),
    ("focus moved", "?valid", True), ("a field put in", "?valid", False)])
def test_a_field_changed_or_focus_moved_walks_only_around_it(
        tab: Tab, site: SiteServer, what: str, page: str, partial: bool) -> None:
    """A field that holds another value (set by a script: no event), and focus moved, are
    read as attribute changes of the field and of the elements focus left and reached:
    each walked again from its parent (what a sibling selector such as ``:checked + .panel``
    or ``:focus + .tip`` reaches), with the control a label around the field names, and the
    focused ref the full read gives. A page that styles what holds the focus
    (``:focus-within``) is walked in full when focus moved, and one that styles what holds a
    field by its validity (``form:invalid``), when a value did or a field was put in."""
    _there_and_back(tab, site.url("/extract/fields.html" + page), FIELD_EDITS[what], partial)


def test_a_field_filled_with_trusted_input_is_read_around_it(tab: Tab, site: SiteServer) -> None:
    """Typing into a field (focus, then input events, as the fill tool types) leaves the next
    read walking only around the field and what focus left; the focused ref is the field's."""
    tab.goto(site.url("/extract/fields.html"))
    evaluate(tab, FIELD_EDITS["a box checked that shows what follows it"])  # (the note shown)
    extract(tab)
    book = tab.core.refs
    for i, (field, text) in enumerate([("#name", "Ada Lovelace"), ("#note", "For Grace"),
                                       ("#name", "Ada")]):
        before = book.retexted_reads
        tab.runner.run(tab.core.page.fill(field, text))
        got = extract(tab)
        assert book.retexted_reads == before + 1, f"fill {i}"
        assert got.focused_ref is not None
        assert evaluate(tab, "document.activeElement.id") == field[1:]
        diff = same(got, full(tab))
        assert diff is None, f"fill {i}: {diff}"


def _point(tab: Tab, selector: str) -> None:
    """The pointer moved to the middle of ``selector``'s first box (trusted input)."""
    box = evaluate(tab, f"(r => [r.x + r.width / 2, r.y + r.height / 2])("
                        f"document.querySelector({selector!r}).getBoundingClientRect())")
    tab.runner.run(tab.core.page.mouse.move(box[0], box[1]))


def _click(tab: Tab, selector: str) -> None:
    tab.runner.run(tab.core.page.click(selector))


# each done twice on pointer.html, from the pointer resting on a blank paragraph (a move
# there and back; a click, then the same click again; a key, then the same key again)
POINTER_STEPS: dict[str, tuple[str, str]] = {
    "onto a menu its items show under": ("point", "#menu-title"),
    "onto a card whose actions show": ("point", "#card h2"),
    "onto a link": ("point", "#links a"),
    "onto a paragraph on a shelf": ("point", "#shelf-a"),
    "a click that opens a panel": ("click", "#toggle"),
    "a click that changes nothing": ("click", "#nothing"),
    "a click that makes a field invalid": ("click", "#check"),
    "a click on a custom element that changes its state": ("click", "#sw"),
    "a click that shows a popover": ("click", "#popbtn"),
    "a key whose handler shows a list": ("press", "#combo"),
    "a key that moves focus": ("tab", ""),
}


@pytest.mark.parametrize(("what", "page", "partial"), [
    *((what, "", what not in ("a click on a custom element that changes its state",
                              "a click that shows a popover"))
      for what in POINTER_STEPS),
    ("onto a menu its items show under", "?has", False),
    ("a click that opens a panel", "?has", False),
    ("onto a link", "?bare", False), ("onto a paragraph on a shelf", "?bare", True)])
def test_the_pointer_moved_a_click_or_a_key_walks_only_around_it(
        tab: Tab, site: SiteServer, what: str, page: str, partial: bool) -> None:
    """The pointer moved (and a click, which moves it, presses and lets go): the elements it
    left and reached are read as elements whose attributes changed, where a readable sheet's
    ``:hover`` may style them (``.menu:hover .items`` walks around the menu; a link under
    ``a:hover``; nothing else), with whatever the click's handler changed; a key pressed,
    with what its handler changed and the elements focus left and reached. A custom
    element's state and a popover its button shows change nothing an attribute shows, so
    they are read in full; a page whose sheets may match upwards (``:has``) too. Where a
    ``:hover`` may be any element (``.shelf :hover > .tip``), every element the pointer left
    or reached is read again: around them when they are deep in the page, in full when one
    hangs from the body (the footer, on the way to a link in it)."""
    how, target = POINTER_STEPS[what]
    tab.goto(site.url("/extract/pointer.html" + page))
    _point(tab, "#blank")
    extract(tab)
    book = tab.core.refs
    for turn in range(2):
        before = book.full_reads
        if how == "point":
            _point(tab, target if turn == 0 else "#blank")
        elif how == "press":
            tab.runner.run(tab.core.page.press(target, "ArrowDown"))
        elif how == "tab":
            tab.runner.run(tab.core.page.keyboard.press("Tab"))
        else:
            _click(tab, target)
        got = extract(tab)
        # (partial: read around the change, or unchanged where it changed nothing)
        assert book.full_reads == before + (not partial), f"turn {turn}"
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"
    if how == "point":  # (the pointer is back where it was: what it showed is gone again)
        assert not any(n.name == "First item" for n in _walk(got))


def test_a_key_that_makes_focus_show_walks_around_the_focused_element(
        tab: Tab, site: SiteServer) -> None:
    """A button focused by a click does not show its focus; a key pressed then does
    (``:focus-visible``), with no mutation and no other element focused: the read walks
    around the focused button, and shows what its focus shows."""
    tab.goto(site.url("/extract/pointer.html"))
    _click(tab, "#kb")
    assert not any("Focus shows" in (n.text or n.name or "") for n in _walk(extract(tab)))
    book = tab.core.refs
    before = (book.full_reads, book.retexted_reads)
    tab.runner.run(tab.core.page.keyboard.press("ArrowRight"))
    assert evaluate(tab, "document.activeElement.matches(':focus-visible')")
    got = extract(tab)
    assert (book.full_reads, book.retexted_reads) == (before[0], before[1] + 1)
    assert any("Focus shows" in (n.text or n.name or "") for n in _walk(got))
    diff = same(got, full(tab))
    assert diff is None, diff


@pytest.mark.parametrize(("sheet", "partial"), [("/extract/no-such-sheet.css", True),
                                                 ("/extract/pointer-more.css", True),
                                                 ("/extract/pointer-more.css&fake", True),
                                                 ("/extract/pointer-has.css", False),
                                                 ("/extract/pointer-import.css", False)])
def test_a_sheet_of_another_origin_counts_by_the_rules_devtools_reads_in_it(
        tab: Tab, site: SiteServer, other_site: SiteServer, sheet: str, partial: bool) -> None:
    """A style sheet of another origin cannot be read in the page, so it may hold any rule
    (``:has``, ``:hover``) and the pointer moved would mean a full read. The first read names
    it, the host reads its text over DevTools, and from the next read on its rules count: a
    sheet with no rule the pointer reaches lets the read go around the move (an error event
    the page sends itself changes nothing), one whose ``:has()`` may match anything does
    not, nor one that imports another (left out of a sheet made from its text). One whose
    link failed to load (seen by the page's world, a 404 here) holds no rule at all. Every
    read is what a full read gives."""
    path, _, flag = sheet.partition("&")
    url = site.url("/extract/pointer.html?sheet=" + other_site.url(path) + (flag and "&" + flag))
    tab.goto(url)
    _point(tab, "#blank")
    extract(tab)
    book = tab.core.refs
    for turn, at in enumerate(("#menu-title", "#blank")):
        before = book.full_reads
        _point(tab, at)
        got = extract(tab)
        assert book.full_reads == before + (not partial), f"turn {turn}"
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"


def test_a_sheet_of_another_origin_is_read_over_devtools_once_per_document(
        tab: Tab, site: SiteServer, other_site: SiteServer) -> None:
    """The host reads a sheet of another origin once per document, alongside what comes
    after the read that named it; the document's next read takes its text. Another document
    (the page loaded again) takes none of it, names the sheet again, and gets it read for
    itself."""
    sheet = other_site.url("/extract/pointer-more.css")
    url = site.url("/extract/pointer.html?sheet=" + sheet)
    tab.goto(url)
    book = tab.core.refs
    main = tab.core.page.main_frame
    extract(tab)
    reading = book.sheet_reads[main]

    async def wait() -> dict[str, Any] | None:
        return await reading

    got = tab.runner.run(wait())
    assert got is not None and list(got["texts"]) == [sheet]
    assert ".card h2" in got["texts"][sheet]
    extract(tab)
    assert main not in book.sheet_reads  # (taken, and not read again)
    kept = book.kept[main][1]
    assert not isinstance(kept, str) and kept.opaque_sheets is None
    full(tab)
    assert main not in book.sheet_reads
    # the page loaded again, with the last document's texts still to give
    book.sheet_reads[main] = reading
    tab.goto(url)
    extract(tab)
    kept = book.kept[main][1]
    assert not isinstance(kept, str) and kept.opaque_sheets is not None
    assert kept.opaque_sheets.hrefs == [sheet] and kept.opaque_sheets.doc != got["doc"]
    assert main in book.sheet_reads  # (read again, for this document)



def test_sheets_asked_for_before_the_page_had_a_devtools_session_are_still_read(
        tab: Tab, site: SiteServer, other_site: SiteServer) -> None:
    """The sheets of another origin may be asked for before any look opened the page's
    DevTools session (the first read's look and the sheet reading both start after it, in
    the background): the reading opens the session itself rather than give nothing, which
    made the next read a full one."""
    sheet = other_site.url("/extract/pointer-more.css")
    tab.goto(site.url("/extract/pointer.html?sheet=" + sheet))
    page = tab.core.page
    world = tab.core.refs.world
    line = world.line(page)
    assert line is not None and line.reads == 0  # (no read yet: no look, no session)
    got = tab.runner.run(world.sheet_texts(page, [sheet], 5.0))
    assert got is not None and ".card h2" in got[sheet]


def _hide(name: str, how: str = "e.style.display = e.style.display ? '' : 'none'") -> str:
    """A script that hides the ``data-hide`` element ``name`` where it shows, and shows it
    where it is hidden (or does ``how`` to it)."""
    return f"(() => {{ const e = document.querySelector(\"[data-hide='{name}']\"); {how}; }})()"


def test_an_element_hidden_is_walked_alone_where_its_parent_keeps_an_area(
        tab: Tab, site: SiteServer) -> None:
    """Each element of a page of many structures (lists, a table, a label, a link's and a
    button's content, flex and grid boxes, a box with a pointer cursor, ...) hidden and shown
    again, one at a time: each read is what a full read gives. An element walked at the last
    read is walked again alone, its parent not, where that parent still has an area and no
    pointer cursor; so the element right under what holds the whole page is read around it
    once hidden. A table's only row hidden leaves the table of no size: the table, outside
    what was walked again, is walked again with it (and the same when the row is shown).
    An element that holds most of the page is read around it once hidden too: a walk of
    what is no longer laid out costs nothing. Shown again, each is walked alone into its
    place (the last walk skipped it whole), as an element put in would be: none of these
    reads walks the page."""
    tab.goto(site.url("/extract/hides.html"))
    extract(tab)
    book = tab.core.refs
    names = evaluate(tab, "[...document.querySelectorAll('[data-hide]')]"
                          ".map((e) => e.dataset.hide)")
    walked_in_full = set()
    for name in names:
        for turn in ("hidden", "shown"):
            before = book.retexted_reads
            evaluate(tab, _hide(name))
            got = extract(tab)
            if book.retexted_reads == before:
                walked_in_full.add((name, turn))
            diff = same(got, full(tab))
            assert diff is None, f"{name} {turn}: {diff}"
    assert walked_in_full == set()


def test_an_element_shown_again_after_what_holds_it_was_walked_again_goes_into_its_place(
        tab: Tab, site: SiteServer) -> None:
    """An element hidden, then what holds it changed (walked again, the element skipped
    again under its new node), then the element shown: each read is read around the
    change, and the last is what a full read gives (the element goes where the node that
    holds it now says)."""
    tab.goto(site.url("/extract/hides.html"))
    extract(tab)
    again = "document.querySelector('.flex').classList.toggle('again')"
    _chain(tab, [_hide("flex"), again, _hide("flex"), _hide("grid"), again, _hide("grid")])


def test_a_dialog_put_in_at_the_end_of_the_page_is_walked_alone(
        tab: Tab, site: SiteServer) -> None:
    """What a script puts in right under the body (a dialog, a banner), and takes out again,
    is walked alone into its place, or spliced out alone, as under any element."""
    dialog = ("<div role='dialog' aria-label='Offer'><p>Half price</p><button>Close</button>"
              "</div>")
    _there_and_back(tab, site.url("/extract/hides.html"), _toggled(dialog, "body"), True)


@pytest.mark.parametrize(("what", "script"), [
    ("two elements of one parent shown at once",
     _hide("under-main") + ";" + _hide("most-of-the-page")),
    ("shown by the attribute that hid it", _hide("nav-body", "e.toggleAttribute('hidden')")),
    ("shown where a sheet reaches siblings", _hide("ordered")),
])
def test_an_element_shown_again_is_what_a_full_read_gives(
        tab: Tab, site: SiteServer, what: str, script: str) -> None:
    """Elements hidden and shown again where one may not be walked alone into its place
    (another element of its parent changed too, or a sheet styles elements by their
    siblings: walked from the parent instead) or by another way (the ``hidden``
    attribute): what a full read gives."""
    tab.goto(site.url("/extract/hides.html" + ("?sib" if "sheet" in what else "")))
    extract(tab)
    for turn in ("hidden", "shown"):
        evaluate(tab, script)
        diff = same(extract(tab), full(tab))
        assert diff is None, f"{turn}: {diff}"


def _put(make: str, where: str, how: str) -> str:
    """A script that puts ``make`` in (``how``: after, before, append, prepend ``where``)."""
    return (f"(() => {{ const t = document.createElement('template'); t.innerHTML = {make!r}; "
            f"for (const e of t.content.children) e.dataset.made = ''; "
            f"document.querySelector({where!r}).{how}(...t.content.childNodes); }})()")


_TAKE_OUT = "document.querySelectorAll('[data-made]').forEach((e) => e.remove())"

# what is put in, where, and whether the read after it and the read after it is taken out
# again are read around the change (else walked in full: what holds it holds most of the
# page)
INSERTS: dict[str, tuple[str, bool, bool]] = {
    "a paragraph after a paragraph":
        (_put("<p>New, with <a href='#n'>a link</a>.</p>", "#p1", "after"), True, True),
    "a paragraph first in what holds the page":
        (_put("<p>New first.</p>", "#body", "prepend"), True, True),
    "a paragraph last in what holds the page":
        (_put("<p>New last.</p>", "#body", "append"), True, True),
    "a part between two wrappers":
        (_put("<div><p>Between.</p><button>New</button></div>", "#w1", "after"), True, True),
    "an item first in a list": (_put("<li>New first item</li>", "#list", "prepend"), True, True),
    "an item last in a list": (_put("<li>New last item</li>", "#list", "append"), True, True),
    "a paragraph after one not shown":
        (_put("<p>After the hidden one.</p>", "#shown", "before"), True, True),
    "a paragraph right after words (they may run on)":
        (_put("<p>After words.</p>", "#after-words", "before"), True, True),
    "two paragraphs at once":
        (_put("<p>One new.</p><p>Two new.</p>", "#p2", "after"), False, False),
    "an inline element (it may be folded into a text)":
        (_put("<b>bold</b>", "#p2", "after"), False, False),
    "a label for a field elsewhere":
        (_put("<label for='far'>Now named here</label>", "#p2", "after"), True, True),
    "a paragraph in a box with a pointer cursor":
        (_put("<p>Ticked.</p>", "#tick", "append"), True, True),
    # (a list that takes clicks hands them to its items once it holds two)
    "a second item in a list that takes clicks":
        (_put("<li>Another choice</li>", "#clicky", "append"), True, True),
}


def _in_and_out(tab: Tab, url: str, script: str, partial: tuple[bool, bool],
                back: str = _TAKE_OUT) -> None:
    """``script`` then ``back`` run on ``url``, each read compared with a full read and
    counted as partial or not as ``partial`` says."""
    tab.goto(url)
    extract(tab)
    book = tab.core.refs
    for turn, (change, alone) in enumerate(zip((script, back), partial, strict=True)):
        before = book.retexted_reads
        evaluate(tab, change)
        got = extract(tab)
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"
        assert book.retexted_reads == before + alone, f"turn {turn}"


@pytest.mark.parametrize("what", list(INSERTS))
def test_an_element_put_in_is_walked_alone_into_its_place(
        tab: Tab, site: SiteServer, what: str) -> None:
    """An element put in, alone in its parent, is walked alone (with the context its walked
    siblings got) into its place among its parent node's children, and the host's tree is
    what a full read gives: also under what holds most of the page, where walking the parent
    costs a whole walk. What may change more than its own nodes (two put in at once, an
    inline element a text may take in) reads its parent as changed; a label put in walks what
    it names too. Taken out again, it is spliced out alone on the same terms (see
    test_an_element_taken_out_is_spliced_out_alone)."""
    script, put_in, taken_out = INSERTS[what]
    _in_and_out(tab, site.url("/extract/inserts.html"), script, (put_in, taken_out))


def test_what_content_put_in_moves_comes_as_whole_subtrees_moved(
        tab: Tab, site: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A paragraph put in near the top moves everything below it by its height: the answer
    names each subtree that moved as one once ([path, dx, dy]), not box by box, and the
    host's tree is what a full read gives; taken out again, the same moved back."""
    answers: list[dict[str, Any]] = []

    def seen(text: object, token: str, kept: Any) -> Any:
        answers.append(json.loads(str(text)))
        return retexted_since(text, token, kept)

    monkeypatch.setattr(extract_module, "retexted_since", seen)
    tab.goto(site.url("/extract/inserts.html"))
    link = find(extract(tab), role="link", name="with a link")
    assert link.box is not None
    for turn, (change, down) in enumerate(((INSERTS["a paragraph after a paragraph"][0], True),
                                           (_TAKE_OUT, False))):
        evaluate(tab, change)
        got = extract(tab)
        assert same(got, full(tab)) is None, f"turn {turn}"
        assert len(answers) == turn + 1
        shifts = answers[-1]["shifts"]
        assert shifts and all(dx == 0 and (dy > 0) == down for _, dx, dy in shifts), shifts
        moved = find(got, role="link", name="with a link")
        assert moved.ref == link.ref and moved.box is not None
        assert (moved.box.y > link.box.y) if down else moved.box == link.box


def test_an_element_put_in_where_a_rule_styles_elements_by_their_place_walks_its_parent(
        tab: Tab, site: SiteServer) -> None:
    """With ``li:first-child { display: none }``, an item put in first shows the item that was
    first: the list is walked again (it holds little of the page: read around it), and the
    read is what a full read gives."""
    _in_and_out(tab, site.url("/extract/inserts.html?pos"),
                INSERTS["an item first in a list"][0], (True, True))


@pytest.mark.parametrize(("what", "alone"), [
    ("a paragraph after a paragraph", True), ("an aside after a paragraph", False)])
def test_an_element_put_in_where_a_sibling_rule_reaches_none_of_its_siblings_is_walked_alone(
        tab: Tab, site: SiteServer, what: str, alone: bool) -> None:
    """With ``.note + aside``, a paragraph put in (and taken out) where nothing among its
    new siblings is a ``.note`` or an aside, nor is it, is walked alone into its place (what
    holds it holds most of the page: walked from there, the read would be a full one); an
    aside put in there is read from what holds it: a full read."""
    script = {"a paragraph after a paragraph": INSERTS["a paragraph after a paragraph"][0],
              "an aside after a paragraph": _put("<aside>New aside.</aside>", "#p1", "after")}
    _in_and_out(tab, site.url("/extract/inserts.html?sib"), script[what], (alone, alone))


# a change on ``inserts.html?has`` (whose sheet hides the h1 when ``#body`` holds a ``.warn``,
# and the paragraph of ``#w1`` when it holds an aside), the script that undoes it, and
# whether the read after each is read around the change (else walked in full)
HAS_CHANGES: dict[str, tuple[str, str, bool]] = {
    "a paragraph put in": (INSERTS["a paragraph after a paragraph"][0], _TAKE_OUT, True),
    "a paragraph hidden": ("document.querySelector('#p2').style.display = 'none'",
                           "document.querySelector('#p2').style.display = ''", True),
    # (what a :has() looks for: put in, taken out, or made by a class)
    "a warning put in": (_put('<p class="warn">Warning.</p>', "#p1", "after"), _TAKE_OUT, False),
    "an aside put in a wrapper": (_put("<aside>Aside.</aside>", "#w1 > p", "after"), _TAKE_OUT,
                                  False),
    "a paragraph made a warning": ("document.querySelector('#p2').className = 'warn'",
                                   "document.querySelector('#p2').className = ''", False),
    # (?hassib: a :has() that looks at siblings reaches further than what changed)
    "a paragraph put in, with a rule that looks at siblings":
        (INSERTS["a paragraph after a paragraph"][0], _TAKE_OUT, False),
}


@pytest.mark.parametrize("what", list(HAS_CHANGES))
def test_a_change_no_has_rule_looks_for_is_read_around_it(
        tab: Tab, site: SiteServer, what: str) -> None:
    """A sheet with ``:has()`` rules: an element put in, taken out or whose attributes
    changed, where no compound of what a ``:has()`` looks for matches it or anything in it,
    is read around the change; one that matches (a rule then hides an element above or
    beside it), or a class changed, is a full read. Every read equals a full read."""
    script, back, alone = HAS_CHANGES[what]
    query = "?has,hassib" if "siblings" in what else "?has"
    _in_and_out(tab, site.url(f"/extract/inserts.html{query}"), script, (alone, alone), back)


def _take_out(selector: str) -> str:
    """A script that takes the element of ``selector`` out and keeps it (and where it was) to
    be put back by :data:`_PUT_BACK`."""
    return (f"(() => {{ const e = document.querySelector({selector!r}); window.kept = e; "
            f"window.keptAt = [e.previousSibling, e.parentNode]; e.remove(); }})()")


_PUT_BACK = ("(() => { const [p, t] = window.keptAt; "
             "t.insertBefore(window.kept, p ? p.nextSibling : t.firstChild); })()")

# an element taken out, then put back where it was: the page (a query), the script that
# takes it out, and whether the read after each is read around the change (else walked in
# full: what held it holds most of the page)
TAKE_OUTS: dict[str, tuple[str, str, bool, bool]] = {
    "a paragraph": ("", _take_out("#p2"), True, True),
    "a wrapper with a link": ("", _take_out("#w2"), True, True),
    "the first element of what holds the page": ("", _take_out("#body > h1"), True, True),
    "the last element of what holds the page": ("", _take_out("#p6"), True, True),
    "an item of a list": ("", _take_out("#list > li"), True, True),
    "the field a label names": ("", _take_out("#far"), True, True),
    # (two runs of text it stood between may now be one)
    "a paragraph between words": ("", _take_out("#between"), False, False),
    # (a list that hands its click to its items takes it itself once it holds one)
    "an item of a list that takes clicks": ("", _take_out("#clicky2 > li"), True, True),
    # (taking an element out moves its siblings' places: with p:last-of-type larger, the
    # paragraph before the last is the last once it is out)
    "the last paragraph where a rule styles elements by their place":
        ("?pos", _take_out("#p6"), False, False),
    "an inline element": ("", _take_out("#p1 > a"), True, True),
}


@pytest.mark.parametrize("what", list(TAKE_OUTS))
def test_an_element_taken_out_is_spliced_out_alone(tab: Tab, site: SiteServer,
                                                   what: str) -> None:
    """An element taken out alone, emitted or a wrapper, is spliced out of its parent node's
    children with no walk (its parent holds most of the page here), and the host's tree is
    what a full read gives; put back, it is walked alone into its place. Where its going may
    change more than its own nodes (two runs of text it stood between, a rule by an
    element's place among its siblings, an inline element a text held) its parent is read
    as changed; a list that takes clicks, whose items took them while it held two, is
    walked again (it holds little of the page)."""
    page, script, out, back = TAKE_OUTS[what]
    _in_and_out(tab, site.url("/extract/inserts.html" + page), script, (out, back), _PUT_BACK)


def test_an_element_moved_within_what_holds_the_page_walks_it(tab: Tab,
                                                              site: SiteServer) -> None:
    """Taken out and put back elsewhere before the next read: it is no element taken out
    (nor one put in: it was walked before), so what holds it is walked, here the page."""
    tab.goto(site.url("/extract/inserts.html"))
    extract(tab)
    book = tab.core.refs
    for turn, where in enumerate(("#p6", "#p1")):
        before = book.retexted_reads
        evaluate(tab, f"document.querySelector({where!r}).after(document.getElementById('p2'))")
        got = extract(tab)
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"
        assert book.retexted_reads == before, f"turn {turn}"


def test_elements_taken_out_and_put_in_follow_one_another(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/inserts.html"))
    extract(tab)
    _chain(tab, [
        _take_out("#p2"), _PUT_BACK, _take_out("#w1"), INSERTS["a paragraph after a paragraph"][0],
        _take_out("#w2"), _take_out("#body > h1"), _TAKE_OUT, _PUT_BACK, _take_out("#p6"),
        INSERTS["a paragraph last in what holds the page"][0], _take_out("#p1"), _TAKE_OUT])


@pytest.mark.parametrize("where", ["#p2", "#w2", "#list"])
def test_wrappers_beside_an_element_taken_out_keep_their_places(
        tab: Tab, site: SiteServer, where: str) -> None:
    """What the wrappers before and after an element taken out gave keeps its place among
    their parent node's children: each is walked again after it and takes the place of what
    it gave, with no full read between (a wrapper after it has moved up, one before has
    not)."""
    tab.goto(site.url("/extract/inserts.html"))
    extract(tab)
    touch = "document.getElementById({!r}).dataset.touched = Math.random()"
    _chain(tab, [_take_out(where), touch.format("w1"), touch.format("mixed"),
                 touch.format("hidden-before"), _PUT_BACK, touch.format("w1"),
                 touch.format("mixed")])


def test_elements_put_in_follow_one_another(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/inserts.html"))
    extract(tab)
    _chain(tab, [INSERTS[what][0] for what in (
        "a paragraph after a paragraph", "a part between two wrappers",
        "a paragraph last in what holds the page", "an item first in a list",
        "a paragraph first in what holds the page", "an item first in a list",
        "a paragraph after a paragraph")])


# Changes whose read walks more than the changed element: what is above or beside it made a
# decision that may not stand (the element that script changes is toggled each turn).
WIDER: dict[str, str] = {
    "emptied under a pointer box": "(e => { e.textContent = e.textContent ? '' : 'Card words'; })"
                                   "(document.getElementById('card-p'))",
    "link put in under a pointer box":
        "(e => { e.innerHTML = e.firstElementChild ? 'Plain words' "
        ": '<a href=\"#q\">Link</a> too'; })"
        "(document.getElementById('card-d'))",
    "heading name lost": "(e => { e.textContent = e.textContent ? '' : 'Heading words'; })"
                         "(document.getElementById('head-p'))",
    "link name lost": "(e => { e.textContent = e.textContent ? '' : 'Link words'; })"
                      "(document.getElementById('link-d'))",
}


@pytest.mark.parametrize("what", list(WIDER))
def test_a_decision_above_a_change_that_may_not_stand_is_walked_again_not_the_page(
        tab: Tab, site: SiteServer, what: str) -> None:
    """A change whose subtree is now emitted otherwise under a box that hands its click on,
    or that makes a name from content gained or lost above it: the read walks that box or
    named element again too, and is still what a full read gives, there and back. (A box
    above a change that now has no size is in the test of elements hidden: a table's only
    row.)"""
    tab.goto(site.url("/extract/widen.html"))
    extract(tab)
    book = tab.core.refs
    for turn in range(4):
        before = (book.full_reads, book.retexted_reads)
        evaluate(tab, WIDER[what])
        got = extract(tab)
        assert (book.full_reads, book.retexted_reads) == (before[0], before[1] + 1), f"turn {turn}"
        diff = same(got, full(tab))
        assert diff is None, f"turn {turn}: {diff}"


@pytest.mark.parametrize(("page", "partial"), [("", True), ("?full", False)])
def test_an_empty_shadow_root_does_not_make_changes_walk_the_page(
        tab: Tab, site: SiteServer, page: str, partial: bool) -> None:
    """A shadow root the walk went into that holds nothing (a declarative one left empty)
    draws nothing of its host's and styles nothing: attribute changes and elements put in
    are read around them. Once it holds something (a slot), they walk the page as before."""
    url = site.url("/extract/shadows.html" + page)
    _there_and_back(tab, url, "document.getElementById('note').classList.toggle('plain')",
                    partial)
    _there_and_back(tab, url, _toggled("<p>Put in</p>", "#sec"), partial)
