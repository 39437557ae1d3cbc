"""extract_page on real pages: structure, frames, boxes, stats."""

from __future__ import annotations

from webrefs import Tab

from tests.helpers.extracting import evaluate, extract, find, find_all, resolve_html
from tests.helpers.server import SiteServer


def test_basic_page_roles_names_refs(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    tree = extract(tab)
    assert tree.title == "Basic page"
    assert tree.url.endswith("/extract/basic.html")
    home = find(tree, role="link", name="Home")
    assert home.ref is not None and home.attrs["href"] == "/home"
    assert find(tree, role="heading", name="Welcome").level == 1
    box = find(tree, role="textbox", name="Query")
    assert box.ref and "id=\"q\"" in resolve_html(tab, box.ref)
    assert find(tree, role="checkbox", name="Remember me").states["checked"] is True
    select = find(tree, role="combobox")
    assert select.value == "Beta" and [o.label for o in select.options or []] == ["Alpha", "Beta"]
    assert find(tree, role="button", name="Search").ref
    assert len(find_all(tree, role="listitem")) == 2
    assert not find_all(tree, name="Hidden button")
    assert tree.stats.skipped_hidden >= 1
    assert "hunter2-secret" not in tree.model_dump_json()


def test_same_origin_frame_is_stitched(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    tree = extract(tab)
    frame_node = find(tree, tag="iframe")
    assert frame_node.frame is not None and frame_node.frame.prefix == "f1"
    button = find(tree, role="button", name="Frame button")
    assert button.ref == "f1e1"
    assert "Frame button" in resolve_html(tab, "f1e1")
    assert frame_node.box is not None and button.box is not None
    assert button.box.y >= frame_node.box.y and button.box.x >= frame_node.box.x
    assert tree.stats.frames == 2


def test_open_shadow_dom_is_walked_in_place(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/shadow.html"))
    tree = extract(tab)
    names = [(n.role, n.name) for n in find_all(tree) if n.role]
    assert names == [
        ("heading", "Shadow host page"),
        ("heading", "Slotted title"),  # slotted light DOM shows where its slot is
        ("textbox", "Inner field"),  # label[for] inside the same shadow root
        ("button", "Shadow button"),
        ("link", "Light link"),  # default slot
        ("button", "Nested shadow button"),
    ]
    assert not find_all(tree, name="Hidden in shadow")
    ref = find(tree, role="button", name="Shadow button").ref
    assert ref and 'id="sb"' in resolve_html(tab, ref)
    nested = find(tree, role="button", name="Nested shadow button").ref
    assert nested and "Nested" in resolve_html(tab, nested)


def test_focus_scroll_and_geometry(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    evaluate(tab, """() => {
        document.body.style.height = '5000px';
        document.getElementById('q').focus();
    }""")
    tree = extract(tab)
    query = find(tree, role="textbox", name="Query")
    assert tree.focused_ref == query.ref and query.states["focused"] is True
    assert tree.viewport.width > 0 and tree.document.height >= 5000
    assert query.in_viewport and query.box is not None
    evaluate(tab, "window.scrollTo(0, 2000)")
    scrolled = extract(tab)
    moved = find(scrolled, role="textbox", name="Query")
    assert scrolled.scroll.y == 2000
    assert moved.box == query.box  # page coordinates do not move with scrolling
    assert not moved.in_viewport


def test_focus_inside_a_frame(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    frame = tab.core.page.frames[1]
    tab.runner.run(frame.focus("#fb"))
    tree = extract(tab)
    assert tree.focused_ref == find(tree, role="button", name="Frame button").ref == "f1e1"


def test_dialogs_seen_are_reported(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    evaluate(tab, "() => { alert('Hello from the page'); }")
    tree = extract(tab)
    assert [d.message for d in tree.dialogs] == ["Hello from the page"]


def test_select_options_capped_and_data_urls_shortened(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/empty.html"))
    evaluate(tab, """() => {
        const s = document.createElement('select');
        s.setAttribute('aria-label', 'Country');
        for (let i = 0; i < 120; i++) s.add(new Option('Country ' + i, 'c' + i));
        s.selectedIndex = 3;
        document.body.appendChild(s);
        const a = document.createElement('a');
        a.href = 'data:text/html;base64,' + 'A'.repeat(5000);
        a.textContent = 'Data link';
        document.body.appendChild(a);
    }""")
    tree = extract(tab)
    select = find(tree, role="combobox", name="Country")
    assert select.options is not None and len(select.options) == 50
    assert select.value == "Country 3" and select.options[3].selected
    assert "maxOptions" in tree.stats.truncated_reasons
    href = find(tree, role="link", name="Data link").attrs["href"]
    assert href.startswith("data:text/html;base64,") and len(href) < 40
