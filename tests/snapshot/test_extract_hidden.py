"""What a sighted user cannot see is skipped, with its subtree, and counted."""

from __future__ import annotations

from webrefs import Tab

from tests.helpers.extracting import extract, find, find_all
from tests.helpers.server import SiteServer

HIDDEN_KINDS = [
    "display none", "visibility", "opacity", "almost transparent", "zero size",
    "screen reader only", "clip path", "font size zero", "off screen left", "off screen above",
    "aria hidden", "attribute", "inert", "template", "noscript", "script", "style",
    "closed details", "input",
]


def test_hidden_content_of_each_kind_is_skipped(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/hidden.html"))
    tree = extract(tab)
    dump = tree.model_dump_json()
    assert "HIDDEN" not in dump, [k for k in HIDDEN_KINDS if f"HIDDEN {k}" in dump]
    assert find(tree, role="button", name="Visible button").ref
    assert find(tree, role="paragraph").text == "Visible paragraph"
    # a visible child of a visibility:hidden parent is seen; so is text after a font reset
    assert find(tree, role="button", name="Shown inside invisible parent").ref
    assert find_all(tree, name=None, tag="span")[0].text == "Shown after font reset"
    # the summary of a closed <details> stays visible
    assert find(tree, role="button", name="Closed details").states["expanded"] is False
    # every skipped element is counted (template, noscript, the hidden input and 14 boxes)
    assert tree.stats.skipped_hidden >= 16


def test_opening_details_reveals_content(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/hidden.html"))
    tab_core = tab.core
    tab.runner.run(tab_core.page.evaluate("document.querySelector('details').open = true"))
    tree = extract(tab)
    assert find(tree, role="button", name="HIDDEN closed details").ref


def test_page_made_visible_later_is_seen(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/hidden.html"))
    tab.runner.run(tab.core.page.evaluate(
        "document.querySelector('[style=\"display:none\"]').style.display = 'block'"))
    tree = extract(tab)
    assert find(tree, role="button", name="HIDDEN display none").ref
