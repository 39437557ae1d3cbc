"""Implicit and explicit roles, simplified accessible names and states, on a real page."""

from __future__ import annotations

import pytest
from webrefs import Tab
from webrefs.models import PageTree

from tests.helpers.extracting import extract, find, find_all
from tests.helpers.server import SiteServer

ROLE_CASES = [
    ("link", "Top link"),
    ("banner", ""),
    ("navigation", "Primary"),
    ("main", ""),
    ("heading", "Heading one"),
    ("heading", "Aria heading"),
    ("form", "Everything form"),
    ("textbox", "Text field"),
    ("textbox", "Email field"),
    ("textbox", "Password field"),
    ("textbox", "Phone field"),
    ("textbox", "Url field"),
    ("textbox", "Typeless field"),
    ("searchbox", "Search field"),
    ("spinbutton", "Number field"),
    ("checkbox", "Check field"),
    ("radio", "Radio field"),
    ("slider", "Range field"),
    ("button", "Submit value"),
    ("button", "Submit"),
    ("button", "Reset"),
    ("button", "Plain input button"),
    ("button", "Image button"),
    ("combobox", "Single select"),
    ("listbox", "Multi select"),
    ("listbox", "Sized select"),
    ("textbox", "Area field"),
    ("button", "Button element"),
    ("list", "Bullets"),
    ("listitem", ""),
    ("table", ""),
    ("row", ""),
    ("columnheader", "Column head"),
    ("rowheader", "Row head"),
    ("cell", "Cell text"),
    ("img", "Company logo"),
    ("article", ""),
    ("region", "Named section"),
    ("complementary", ""),
    ("dialog", "Open dialog"),
    ("dialog", "Modal div"),
    ("group", ""),
    ("button", "More details"),
    ("listbox", "Custom list"),
    ("option", "Custom option"),
    ("progressbar", "Loading"),
    ("meter", "Fuel"),
    ("textbox", "Editor"),
    ("contentinfo", ""),
    ("paragraph", ""),
]

NAME_CASES = [
    ("textbox", "Labelled by span"),  # aria-labelledby
    ("button", "Close dialog"),  # aria-label beats content
    ("textbox", "Label for field"),  # <label for=>
    ("checkbox", "Wrapping label"),  # wrapping <label>
    ("img", "Company logo"),  # alt
    ("textbox", "Titled field"),  # title
    ("textbox", "Placeholder only"),  # placeholder
    ("button", "Submit value"),  # value of an input button
    ("link", "Read more news"),  # subtree text, whitespace folded
    ("link", "Image link"),  # alt of an image inside
    ("link", "Link text wins"),  # content before title for links
    ("link", "Summary link"),  # a link inside a summary stays a link
    ("link", "upvote"),  # an empty child speaks by its title
    ("button", "Nested button text"),
]


@pytest.fixture(scope="module")
def roles_tree(browser: object, site: SiteServer) -> PageTree:
    from webrefs import Browser

    assert isinstance(browser, Browser)
    tab = browser.new_tab(site.url("/extract/roles.html"))
    try:
        return extract(tab)
    finally:
        tab.close()


@pytest.mark.parametrize(("role", "name"), ROLE_CASES)
def test_role_mapping(roles_tree: PageTree, role: str, name: str) -> None:
    node = find(roles_tree, role=role, name=name or None)
    assert node.role == role


@pytest.mark.parametrize(("role", "name"), NAME_CASES)
def test_name_sources(roles_tree: PageTree, role: str, name: str) -> None:
    assert find(roles_tree, role=role, name=name).name == name


def test_heading_levels(roles_tree: PageTree) -> None:
    levels = {n.name: n.level for n in find_all(roles_tree, role="heading")}
    for i, word in enumerate(["one", "two", "three", "four", "five", "six"], start=1):
        assert levels[f"Heading {word}"] == i
    assert levels["Aria heading"] == 3


def test_header_and_footer_inside_article_are_not_landmarks(roles_tree: PageTree) -> None:
    assert len(find_all(roles_tree, role="banner")) == 1
    assert len(find_all(roles_tree, role="contentinfo")) == 1
    assert find(roles_tree, tag="header", name=None).role == "banner"
    inner = [n for n in find_all(roles_tree, tag="footer") if n.text == "Article footer"]
    assert inner and inner[0].role is None


def test_unnamed_section_and_decorative_image_have_no_role(roles_tree: PageTree) -> None:
    sections = find_all(roles_tree, tag="section")  # the unnamed one is not emitted
    assert [(n.role, n.name) for n in sections] == [("region", "Named section")]
    assert find(roles_tree, role="paragraph").role == "paragraph"
    assert len(find_all(roles_tree, tag="img", name="")) == 0


def test_states(roles_tree: PageTree) -> None:
    assert find(roles_tree, role="radio", name="Radio field").states["checked"] is True
    assert find(roles_tree, role="checkbox", name="Check field").states["checked"] is False
    assert find(roles_tree, role="checkbox", name="Tri state").states["checked"] == "mixed"
    assert find(roles_tree, role="button", name="Toggle on").states["pressed"] is True
    assert find(roles_tree, role="button", name="Menu closed").states["expanded"] is False
    assert find(roles_tree, role="button", name="More details").states["expanded"] is True
    assert find(roles_tree, role="button", name="Disabled button").states["disabled"] is True
    assert find(roles_tree, role="textbox", name="Required field").states["required"] is True
    assert find(roles_tree, role="textbox", name="Readonly field").states["readonly"] is True
    assert find(roles_tree, role="textbox", name="Invalid field").states["invalid"] is True
    assert find(roles_tree, role="option", name="Custom option").states["selected"] is True
    assert find(roles_tree, role="dialog", name="Modal div").states["modal"] is True


def test_values_and_options(roles_tree: PageTree) -> None:
    assert find(roles_tree, role="spinbutton").value == "7"
    assert find(roles_tree, role="slider").value == "3"
    assert find(roles_tree, role="textbox", name="Area field").value == "typed text"
    assert find(roles_tree, role="textbox", name="Editor").value == "Editable text"
    assert find(roles_tree, role="progressbar").value == "30"
    single = find(roles_tree, role="combobox", name="Single select")
    assert single.value == "Two"
    assert [(o.label, o.selected) for o in single.options or []] == [("One", False), ("Two", True)]


def test_clickable_without_role(roles_tree: PageTree) -> None:
    pointer = find(roles_tree, name="Pointer div")
    assert pointer.clickable and pointer.role is None and pointer.ref
    handler = find(roles_tree, name="Handler span")
    assert handler.clickable and handler.ref
    # cursor:pointer inherited from a link does not make its content a second target
    assert not find_all(roles_tree, name="Not separately clickable", tag="span")
    assert find(roles_tree, role="link", name="Not separately clickable").clickable is False


def test_every_interactive_node_has_a_ref_and_structure_has_none(roles_tree: PageTree) -> None:
    from tests.helpers.extracting import walk

    for node in walk(roles_tree.root):
        if node.interactive:
            assert node.ref, node
        if node.role in {"list", "row", "navigation", "main", "form", "banner"}:
            assert node.ref is None, node
        if node.role == "table":  # a table has one, for web_get_text to read it by
            assert node.ref, node
        if node.role in {"heading", "img", "cell", "listitem", "paragraph"}:
            assert node.ref is None, node  # content refs were not requested


def test_content_refs_when_requested(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/roles.html"))
    tree = extract(tab, content_refs=True)
    for role in ("heading", "img", "cell", "listitem", "paragraph"):
        assert all(n.ref for n in find_all(tree, role=role)), role
    assert all(n.ref is None for n in find_all(tree, role="list"))
    assert all(n.ref for n in find_all(tree, role="table"))


def test_text_runs_keep_their_place(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/basic.html"))
    tree = extract(tab)
    assert find(tree, role="paragraph").text == "Some bold text here."


def test_agrees_with_playwright_aria_snapshot(tab: Tab, site: SiteServer) -> None:
    """Every interactive element of Playwright's AI snapshot is in the tree with its role."""
    import re

    tab.goto(site.url("/extract/roles.html"))
    tree = extract(tab)
    core = tab.core
    aria = tab.runner.run(core.page.aria_snapshot(mode="ai"))
    ours = {(n.role, n.name) for n in find_all(tree)}
    wanted = ("link", "textbox", "searchbox", "checkbox", "radio", "slider", "spinbutton",
              "combobox", "listbox", "button")
    for line in aria.splitlines():
        m = re.match(r'\s*- (\w+) "([^"]*)"', line)
        if m and m.group(1) in wanted:
            role, name = m.groups()
            if (role, name) == ("generic", name):
                continue
            assert (role, name) in ours, line
