"""Accessible names by the W3C rules (accname 1.2, HTML-AAM), each case next to Playwright's.

Every case of tests/sites/names/rules.html is checked twice in the same test: our name (from the
PageTree) against the name the spec gives, and Playwright's own name (``locator.aria_snapshot``,
its injected accname code) against what Playwright is known to say. Where the two differ the
case says why, so a disagreement stays visible and a change on either side fails here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from webrefs import Browser
from webrefs.models import Node, PageTree

from tests.helpers.extracting import extract, find_all, walk
from tests.helpers.server import SiteServer

SAME = object()


@dataclass(frozen=True)
class Case:
    id: str
    role: str
    name: str  # ours, by the spec
    pw: Any = SAME  # Playwright's (role, name) when it differs; None: not in its tree
    why: str = ""


CASES = [
    # CSS generated content
    Case("css-before", "button", "before label"),
    Case("css-after", "button", "label after"),
    Case("css-attr", "button", "Read more"),
    Case("css-alt", "button", "Close"),  # alternative text after "/"
    Case("css-only", "link", "Next page"),  # the only label is CSS content
    Case("css-block", "button", "Step one"),  # a block pseudo-element adds spaces
    Case("css-hidden-pseudo", "button", "Shown"),  # display:none pseudo-elements count not
    Case("css-own-content", "link", "Replaced alt"),  # an element's own content: url() / "alt"
    Case("css-counter", "button", "Item : Gamma", ("button", "Gamma"),
         "counter values cannot be read from a page: we keep the strings around them, as "
         "Chromium does; Playwright drops the whole pseudo-element"),
    Case("css-counter-roman", "link", ". Second", ("link", "Second"), "as css-counter"),
    # aria-labelledby through hidden nodes
    Case("lb-hidden", "button", "Hidden label"),
    Case("lb-hidden-deep", "button", "Parent child text"),  # hidden target: all its text
    Case("lb-hidden-ancestor", "textbox", "Inside a hidden box"),
    Case("lb-visible", "button", "Shown part"),  # visible target: its hidden parts count not
    Case("lb-empty", "button", "Fallback label"),  # targets say nothing: aria-label
    Case("lb-missing", "button", "Content name"),  # no target at all: content
    Case("lb-self", "button", "Delete file.txt"),  # a node naming itself gives its content
    Case("lb-no-chain", "button", "Chained own text"),  # labelledby is followed once
    Case("lb-aria-label", "button", "Target aria label"),
    # embedded controls
    Case("em-text", "checkbox", "Flash the screen 3 times"),
    Case("em-select", "checkbox", "Flash the screen 2 times"),
    Case("em-range", "checkbox", "Volume 5 of ten"),
    Case("em-spin", "checkbox", "Repeat 4 times"),
    Case("em-aria-spin", "checkbox", "Wait six seconds"),  # aria-valuetext
    Case("em-labelledby", "button", "Ship 12 boxes"),
    Case("em-password", "checkbox", "Remember here", ("checkbox", "Remember hunter2 here"),
         "we never put a password into a snapshot (Chromium says bullets)"),
    # aria-owns
    Case("own-link", "link", "Read the story", ("link", "Readthe story"),
         "an owned element does not stand next to its owner's text: we add a space, as "
         "Chromium does"),
    Case("own-list", "listbox", "Owned list"),
    # misspelt aria-labeledby
    Case("lb-misspelt", "textbox", "Misspelt label"),
    Case("lb-both-spellings", "textbox", "Correct label"),
    # small controls
    Case("tiny-image", "button", "Tiny submit"),  # 1x1 px input type=image
    Case("pic-link", "link", "Picture alt"),
    Case("pic-img", "img", "Standalone picture"),  # an img inside <picture>
    # host language rules
    Case("title-button", "button", "Title only"),
    Case("title-input", "textbox", "Field title"),  # title before placeholder
    Case("placeholder-input", "textbox", "Only placeholder"),
    Case("placeholder-area", "textbox", "Area placeholder"),
    Case("for-input", "textbox", "For label"),
    Case("wrap-other", "textbox", "Own title"),  # a wrapping label with for= labels another
    Case("elsewhere", "textbox", "Someone else's label"),
    Case("wrap-and-for", "textbox", "Wrapping and for"),  # both labels, in document order
    Case("hidden-for", "textbox", "Hidden for label"),  # a hidden label[for] still names
    Case("fieldset", "group", "Shipping address"),
    Case("figure", "figure", "Figure caption text"),
    Case("table", "table", "Table caption"),
    Case("img-empty-alt", "link", "Text beside"),  # alt="" is presentational
    Case("img-alt-link", "link", "Logo home"),
    Case("svg-button", "button", "Settings"),  # svg <title>
    Case("svg-img", "img", "Sales chart"),
    Case("output", "status", "Total"),
    Case("summary", "button", "More info", None,
         "Playwright gives <summary> no role (Chromium: a disclosure triangle named alike)"),
    # whitespace: inline elements join, blocks and <br> separate
    Case("ws-inline", "link", "Hello world"),
    Case("ws-block", "link", "Foo Bar"),
    Case("ws-br", "button", "One Two"),
    Case("ws-inline-block", "link", "Inline block"),
    Case("ws-zero-width", "link", "twocents.\u200blifehacker.\u200bcom",
         ("link", "twocents.lifehacker.com"),
         "we keep zero-width spaces as they are (as Chromium does); Playwright drops them"),
    # hidden content
    Case("hidden-child", "button", "Visible"),
    Case("hidden-transparent", "", "", ("button", "Transparent button"),
         "deliberate: an opacity:0 button is invisible to a sighted user, so not in our tree"),
]

SHADOW = [  # (host id, role, name): the only label is generated by a shadow root's own rules
    ("css-shadow", "button", "Search"),  # a <style> inside the shadow root
    ("css-shadow-adopted", "link", "Send"),  # a sheet adopted by the shadow root
]

_IDS_TO_REFS = (  # run in webrefs' world, where the registry lives
    "(root, [key, ids]) => { const book = window[key].books.get('');"
    " return ids.map((id) => book.byEl.get(document.getElementById(id)) || null); }"
)
_PW_LINE = re.compile(r'^- (?P<role>[a-z]+) "(?P<name>(?:[^"\\]|\\.)*)"')


@dataclass
class Page:
    tree: PageTree
    ours: dict[str, Node | None]
    theirs: dict[str, tuple[str, str] | None]


@pytest.fixture(scope="module")
def page(browser: Browser, site: SiteServer) -> Page:
    tab = browser.new_tab(site.url("/names/rules.html"))
    try:
        tree = extract(tab, content_refs=True)
        ids = [c.id for c in CASES]
        world = tab.core.refs.world
        refs = tab.runner.run(world.value(
            tab.core.page.main_frame, _IDS_TO_REFS, [tab.core.refs.registry_key, ids], 10.0))
        by_ref = {n.ref: n for n in walk(tree.root) if n.ref}
        ours = {i: by_ref.get(r) if r else None for i, r in zip(ids, refs, strict=True)}
        theirs: dict[str, tuple[str, str] | None] = {}
        for i in ids + [host for host, _, _ in SHADOW]:
            text = tab.runner.run(tab.core.page.locator(f"#{i}").aria_snapshot())
            m = _PW_LINE.match(text.splitlines()[0] if text else "")
            theirs[i] = (m["role"], m["name"].replace('\\"', '"')) if m else None
        return Page(tree, ours, theirs)
    finally:
        tab.close()


def _our_name(page: Page, case: Case) -> tuple[str, str] | None:
    node = page.ours[case.id]
    if node is None and case.role:  # structure (group, table) carries no ref: look it up
        hits = find_all(page.tree, role=case.role, name=case.name)
        node = hits[0] if len(hits) == 1 else None
    return (node.role or "", node.name or "") if node is not None else None


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_name_rule(page: Page, case: Case) -> None:
    ours = _our_name(page, case)
    assert ours == ((case.role, case.name) if case.role else None), case.why
    pw = (case.role, case.name) if case.pw is SAME else case.pw
    assert page.theirs[case.id] == pw, f"Playwright: {case.why or 'expected to agree'}"


@pytest.mark.parametrize(("host", "role", "name"), SHADOW, ids=[h for h, _, _ in SHADOW])
def test_generated_content_from_a_shadow_roots_own_rules(
        page: Page, host: str, role: str, name: str) -> None:
    assert len(find_all(page.tree, role=role, name=name)) == 1
    assert page.theirs[host] == (role, name), "Playwright: expected to agree"


@pytest.mark.parametrize("path", ["/names/imported.css",
                                  "/__slow?ms=1000&file=/names/imported.css"],
                         ids=["at once", "a second late"])
def test_generated_content_from_an_imported_sheet_of_another_origin(
        browser: Browser, site: SiteServer, other_site: SiteServer, path: str) -> None:
    """A sheet of the page's origin that imports one of another origin: the imported rules
    cannot be read, so any element may have generated content, and the icon button's only
    label is read. Opening the page waits for a sheet that arrives late (until then the
    button has no name at all)."""
    sheet = other_site.url(path)
    tab = browser.new_tab(site.url(f"/names/imported.html?sheet={quote(sheet)}"))
    try:
        tree = extract(tab)
        assert [(n.role, n.name) for n in walk(tree.root) if n.role == "button"] == [
            ("button", "Search")]
        text = tab.runner.run(tab.core.page.locator("#imported-icon").aria_snapshot())
        assert text.splitlines()[0] == '- button "Search"', "Playwright: expected to agree"
    finally:
        tab.close()


def test_owned_elements_move_under_their_owner(page: Page) -> None:
    listbox = find_all(page.tree, role="listbox", name="Owned list")[0]
    assert [(n.role, n.name) for n in listbox.children] == [
        ("option", "One"), ("option", "Two"), ("option", "Three")]
    assert len(find_all(page.tree, role="option", name="Three")) == 1  # not left where it stood
    # "the story" is part of the owning link, not a text run of its own elsewhere
    assert "the story" not in [n.text for n in walk(page.tree.root)]


def test_shares(page: Page) -> None:
    """Most cases agree with Playwright; every difference is one the cases explain."""
    differ = [c.id for c in CASES if c.pw is not SAME]
    assert all(c.why for c in CASES if c.pw is not SAME)
    assert len(differ) == 7 and len(CASES) == 58
