"""Page-type classification: hand-written trees, and labelled pages read by the real extractor."""

from __future__ import annotations

import pytest
from webrefs import Tab, classify_page
from webrefs.models import PageTree
from webrefs.render.pagetype import PAGE_TYPES, PRINTED, guess_page

from tests.helpers.paths import DATA
from tests.helpers.server import SiteServer

TREES = DATA / "trees"

# page -> label; file names are neutral so only URL query, forms and text can tell
LABELLED = {
    "p01.html": "search_engine",
    "p02.html?q=gold": "search_results",
    "p03.html": "login",
    "p04.html": "register",
    "p05.html": "article",
    "p06.html": "list",
    "p07.html": "form",
    "p08.html": "email_inbox",
    "p09.html": "email_compose",
    "p10.html": "dashboard",
    "p11.html": "settings",
    "p12.html": "checkout",
    "p13.html": "unknown",
}


def test_labels_cover_every_type() -> None:
    assert sorted(set(LABELLED.values())) == sorted(PAGE_TYPES)


def test_hand_written_trees() -> None:
    shop = PageTree.model_validate_json((TREES / "shop.json").read_text())
    login = PageTree.model_validate_json((TREES / "login_focus.json").read_text())
    assert classify_page(shop) == "search_results"
    assert classify_page(login) == "login"
    empty = PageTree.model_validate({"root": {"tag": "body"}})
    assert classify_page(empty) == "unknown"


def test_url_signals() -> None:
    form = {"tag": "form", "children": [
        {"tag": "input", "role": "textbox", "name": "Card number"},
        {"tag": "input", "role": "textbox", "name": "Name"},
        {"tag": "input", "role": "textbox", "name": "Address"},
        {"tag": "button", "role": "button", "name": "Continue"},
    ]}
    tree = PageTree.model_validate({"url": "https://shop.test/checkout", "root": {
        "tag": "body", "children": [form]}})
    assert classify_page(tree) == "checkout"


@pytest.mark.browser
@pytest.mark.parametrize(("page", "label"), sorted(LABELLED.items()))
def test_labelled_pages(tab: Tab, site: SiteServer, page: str, label: str) -> None:
    tab.goto(site.url(f"/pagetypes/{page}"))
    snap = tab.snapshot()
    assert guess_page(tab.read_tree()) == label, snap.text
    shown = label if label in PRINTED else "unknown"  # a type not trusted is not printed
    assert snap.page.page_type == shown, snap.text
    head = snap.text.split("\n")[0]
    if shown == "unknown":  # a label that says nothing is not printed
        assert " page=" not in head, head
    else:
        assert f" page={shown} " in head, head


def test_filled_search_field_means_results_and_long_pages_are_not_logins() -> None:
    links = [{"tag": "a", "role": "link", "name": f"Result {i}"} for i in range(12)]
    box = {"tag": "input", "role": "searchbox", "name": "Search", "value": "rust"}
    results = PageTree.model_validate({"url": "https://find.test/", "root": {
        "tag": "body", "children": [box, *links]}})
    assert classify_page(results) == "search_results"
    empty_box = {**box, "value": None}
    home = PageTree.model_validate({"url": "https://find.test/", "root": {
        "tag": "body", "children": [empty_box, {"tag": "button", "role": "button",
                                                "name": "Search"}]}})
    assert classify_page(home) == "search_engine"
    story = [{"tag": "p", "role": "paragraph", "text": "A long story. " * 40} for _ in range(8)]
    sign_in = [{"tag": "input", "role": "textbox", "name": "Email"},
               {"tag": "input", "role": "textbox", "name": "Password",
                "attrs": {"type": "password"}},
               {"tag": "button", "role": "button", "name": "Sign in"}]
    news = PageTree.model_validate({"url": "https://paper.test/2024/story", "root": {
        "tag": "body", "children": [{"tag": "article", "children": story}, *sign_in]}})
    assert classify_page(news) == "article"
