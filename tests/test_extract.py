"""extract_page on real pages: structure, frames, boxes, stats."""

from __future__ import annotations

from webrefs import Tab

from tests.extracting import extract, find, find_all, resolve_html
from tests.server import SiteServer


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
