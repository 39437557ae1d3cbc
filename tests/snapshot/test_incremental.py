"""Incremental reads: a read of a document nothing changed in is the last read again, and a read
after any change (seen by the document's watch or not) is what a full read gives, node by node."""

from __future__ import annotations

import random
from typing import Any

import pytest
from webrefs import Tab
from webrefs.models import PageTree

from tests.helpers.extracting import evaluate, extract, same
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
