"""Caps and robustness: huge pages, deep nesting, huge text, unicode, password values."""

from __future__ import annotations

import json

from webrefs import Tab
from webrefs.snapshot.extract import ExtractLimits
from webrefs.snapshot.script import extractor_script, parse_snapshot_json

from tests.helpers.extracting import evaluate, extract, find, find_all, walk
from tests.helpers.server import SiteServer


def _depth(node: object) -> int:
    deepest, stack = 0, [(node, 0)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in n.children)  # type: ignore[attr-defined]
    return deepest


def test_hundred_thousand_elements_stop_at_max_nodes(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    evaluate(tab, """() => {
        const parts = [];
        for (let i = 0; i < 50000; i++) parts.push(`<div><button>b${i}</button></div>`);
        document.body.innerHTML = parts.join('');
    }""")
    limits = _limits(max_time_ms=60_000)  # no time cap on a busy machine
    tree = extract(tab, limits=limits)
    cap = limits.max_nodes
    assert tree.stats.dom_nodes >= 100_000
    assert tree.stats.truncated and "maxNodes" in tree.stats.truncated_reasons
    assert tree.stats.emitted_nodes == cap
    buttons = find_all(tree, role="button")
    assert len(buttons) == cap and buttons[0].name == "b0" and buttons[-1].name == f"b{cap - 1}"


def test_five_thousand_deep_nesting_is_walked_without_overflow(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    # inline elements: Chromium's own block layout overflows its stack near 3,000 nested divs
    evaluate(tab, """() => {
        let el = document.body;
        for (let i = 0; i < 5000; i++) {
            const d = document.createElement('span');
            if (i % 10 === 0) d.setAttribute('role', 'group');
            el.appendChild(d); el = d;
        }
        const b = document.createElement('button'); b.textContent = 'Deep button';
        el.appendChild(b);
    }""")
    tree = extract(tab, limits=_limits(max_time_ms=60_000))
    assert "maxDepth" in tree.stats.truncated_reasons
    assert _depth(tree.root) <= 100
    # the deep button is lifted, not lost (the node cap is reached before it otherwise)
    deep = extract(tab, limits=_limits(max_nodes=6000, max_time_ms=60_000))
    assert find(deep, role="button", name="Deep button").ref
    assert _depth(deep.root) <= 100


def _limits(**kw: int) -> ExtractLimits:
    return ExtractLimits(**kw)  # type: ignore[arg-type]


def test_ten_megabyte_text_node_is_capped(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    evaluate(tab, """() => {
        const p = document.createElement('p');
        p.textContent = 'word '.repeat(2 * 1024 * 1024);
        document.body.appendChild(p);
        const b = document.createElement('button');
        b.textContent = 'x'.repeat(1024 * 1024);
        b.setAttribute('title', 'y'.repeat(100000));
        document.body.appendChild(b);
    }""")
    tree = extract(tab)
    para = find(tree, role="paragraph")
    assert 0 < len(para.text) <= 200 and para.text.endswith("…")
    button = find(tree, role="button")
    assert len(button.name) <= 200 and len(button.attrs["title"]) <= 150
    assert {"maxTextPerNode", "maxAttr"} <= set(tree.stats.truncated_reasons)
    assert len(tree.model_dump_json()) < 20_000


def test_unicode_survives_into_valid_json(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    evaluate(tab, r"""() => {
        const add = (tag, text) => { const e = document.createElement(tag);
                                     e.textContent = text; document.body.appendChild(e); };
        add('button', 'שלום עולם');
        add('button', 'zero\u200bwidth\u200djoin');
        add('button', 'emoji 😀👍🏽🇫🇷');
        add('button', '漢字かなカナ한국어');
        add('button', 'lone \ud800 high');
        add('button', 'lone \udc00 low');
        add('p', 'x'.repeat(198) + '😀😀');  // the cap falls inside a surrogate pair
    }""")
    tree = extract(tab)
    names = [n.name for n in find_all(tree, role="button")]
    assert names[:4] == [
        "שלום עולם", "zero\u200bwidth\u200djoin", "emoji 😀👍🏽🇫🇷", "漢字かなカナ한국어"
    ]
    assert names[4] == "lone \ufffd high" and names[5] == "lone \ufffd low"
    text = tree.model_dump_json()
    text.encode("utf-8")  # no lone surrogates anywhere
    json.loads(text)
    para = find(tree, role="paragraph").text
    para.encode("utf-8")
    assert len(para) <= 200


def test_password_values_never_appear(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    evaluate(tab, """() => {
        document.body.innerHTML = `<form><label>Secret <input type=password id=p
            value="attr-secret-1"></label><input type=password placeholder="Password"
            id=q aria-label="Pass"><button>Go</button></form>`;
        document.getElementById('p').value = 'typed-secret-2';
        document.getElementById('q').value = 'typed-secret-3';
    }""")
    tree = extract(tab, content_refs=True)
    dump = tree.model_dump_json()
    for secret in ("attr-secret-1", "typed-secret-2", "typed-secret-3"):
        assert secret not in dump
    fields = find_all(tree, role="textbox")
    assert [f.name for f in fields] == ["Secret", "Pass"]
    assert all(f.value is None and "value" not in f.attrs for f in fields)
    # a host that is not Playwright gets the same guarantee from the raw script
    raw = evaluate(tab, f"() => ({extractor_script()})({{}})")
    assert "secret" not in raw
    assert len(find_all(parse_snapshot_json(raw), role="textbox")) == 2


def test_emitted_count_matches_tree(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/roles.html"))
    tree = extract(tab)
    assert tree.stats.emitted_nodes == sum(1 for _ in walk(tree.root)) - 1
    assert tree.stats.visited_nodes <= tree.stats.dom_nodes
    assert tree.stats.js_time_ms > 0


def test_time_budget_stops_the_walk(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    evaluate(tab, """() => {
        const parts = [];
        for (let i = 0; i < 20000; i++) parts.push(`<p>paragraph ${i}</p>`);
        document.body.innerHTML = parts.join('');
    }""")
    tree = extract(tab, limits=_limits(max_time_ms=1, max_nodes=50_000))
    assert "maxTime" in tree.stats.truncated_reasons
    assert tree.stats.emitted_nodes < 20_000
