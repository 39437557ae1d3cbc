"""Incremental reads: a read of a document nothing changed in is the last read again, and a read
after any change (seen by the document's watch or not) is what a full read gives, node by node."""

from __future__ import annotations

import random
from typing import Any

from webrefs import Tab
from webrefs.models import PageTree

from tests.helpers.extracting import evaluate, extract
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
}


def full(tab: Tab) -> PageTree:
    tab.core.refs.kept.clear()
    return extract(tab)


def same(a: PageTree, b: PageTree) -> dict[str, Any] | None:
    """None when the trees are equal (in-page time aside), else the first differing part."""
    da, db = a.model_dump(), b.model_dump()
    da["stats"].pop("js_time_ms"), db["stats"].pop("js_time_ms")
    if da == db:
        return None
    return {k: (da[k], db[k]) for k in da if da[k] != db[k]}


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


def test_every_kind_of_change_reads_as_a_full_read(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/incremental.html"))
    extract(tab)
    for what, script in CHANGES.items():
        evaluate(tab, script)
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
