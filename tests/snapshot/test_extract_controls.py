"""Script-bound and icon-only controls, nested controls, and what a nameless control is shown
with (issue 17): extract_page and the default snapshot on tests/sites/extract/icons.html."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.extracting import extract, find, find_all, resolve_html, walk
from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


@pytest.fixture
def page(tab: Tab, site: SiteServer) -> Tab:
    tab.goto(site.url("/extract/icons.html"))
    return tab


def _by_id(tab: Tab, element_id: str) -> str:
    """The ref of the element with this id in a fresh tree."""
    for node in walk(extract(tab).root):
        if node.ref and f'id="{element_id}"' in resolve_html(tab, node.ref).split(">")[0]:
            return node.ref
    raise AssertionError(f"no ref for #{element_id}")


def test_icons_in_a_clickable_row_keep_their_own_refs_and_hints(page: Tab) -> None:
    tree = extract(page)
    row = find(tree, name="Alice Lunch on Friday")
    assert row.clickable and row.ref
    kids = [(c.hint, bool(c.ref), c.clickable) for c in row.children if c.ref]
    assert kids == [("star", True, True), ("trash", True, True)]
    star = next(c for c in row.children if c.hint == "star")
    assert star.ref and 'id="star1"' in resolve_html(page, star.ref)


def test_nameless_icon_controls_get_distinct_hints(page: Tab) -> None:
    snap = page.snapshot()
    for line in ('text [hint="trash"]', 'text [hint="send"]', 'img [hint="reply-arrow"]',
                 'text [hint="archive-button"]', 'text [hint="Pin this conversation"]'):
        assert line in snap.text, line
    nameless = [ln for ln in snap.text.splitlines() if ln.strip().startswith("- text [ref=")]
    assert nameless == []


def test_sibling_controls_stay_separate_lines(page: Tab) -> None:
    snap = page.snapshot()
    assert "Reply Forward" not in snap.text
    reply = [ln for ln in snap.text.splitlines() if '"Reply"' in ln]
    forward = [ln for ln in snap.text.splitlines() if '"Forward"' in ln]
    assert len(reply) == len(forward) == 1 and "[ref=" in reply[0] and "[ref=" in forward[0]
    assert not find_all(extract(page), name="Reply Forward")


def test_focusable_span_gets_a_ref(page: Tab) -> None:
    span = find(extract(page), name="Focusable span")
    assert span.ref and span.clickable
    assert 'text "Focusable span" [ref=' in page.snapshot().text


def test_items_of_a_clickable_list_are_the_controls(page: Tab) -> None:
    tree = extract(page)
    items = [n for n in find_all(tree, role="listitem") if n.ref]
    assert [n.name for n in items] == ["Apple", "Banana", "Cherry"]
    assert not [n for n in find_all(tree, role="list") if n.clickable]
    assert '- listitem "Banana" [ref=' in page.snapshot().text


def test_tree_items_keep_their_own_name_level_and_expanded(page: Tab) -> None:
    text = page.snapshot().text
    assert '- treeitem "Documents" [level=1] [expanded] [ref=' in text
    assert '- treeitem "report.txt" [level=2] [ref=' in text
    assert '- treeitem "Pictures" [level=1] [expanded=false] [ref=' in text


def test_sliders_show_value_min_and_max(page: Tab) -> None:
    text = page.snapshot().text
    assert 'slider "Volume" [value="20"] [min=0] [max=50]' in text
    assert 'slider [hint="Rating"] [value="3"] [min=1] [max=5] [ref=' in text
    assert 'spinbutton "Guests" [value="2"] [min=0] [max=9] [ref=' in text


def test_fields_labelled_by_text_before_them_get_it_as_a_hint(page: Tab) -> None:
    text = page.snapshot().text
    assert '- textbox [hint="Email address"] [ref=' in text
    assert '- textbox [hint="Phone number"] [ref=' in text
    content = page.snapshot(interactive_only=False).text
    assert '- textbox [hint="Email address"]' not in content  # the text line is shown there
    assert '- textbox [hint="email"] [ref=' in content  # the extractor's guess (its id)


def test_field_values_keep_their_whitespace(page: Tab) -> None:
    tree = extract(page)
    assert find(tree, role="textbox", name="Note").value == "line one\nline  two\n\n  indented"
    assert find(tree, role="textbox", name="Spaced").value == "a  b   c"
    text = page.snapshot().text
    assert '[value="line one\\nline  two\\n\\n  indented"]' in text
    assert '[value="a  b   c"]' in text
    assert all(ln.startswith(("[snapshot]", " ", "-")) for ln in text.splitlines())


def test_editor_toolbar_buttons_get_their_format_as_hint(page: Tab) -> None:
    # a rich-text editor's toolbar (Quill) marks its icon buttons only with ql-<format>
    text = page.snapshot().text
    assert 'button [hint="bold"] [ref=' in text and 'button [hint="underline"] [ref=' in text
    # a picker's generic part says nothing: its id is the hint instead
    assert 'hint="picker-label"' not in text and 'text [hint="ql-color"] [ref=' in text


def test_controls_given_listeners_from_script_are_found(tab: Tab, site: SiteServer) -> None:
    """A handler added with addEventListener (no cursor, no onclick) makes its element a
    control; a listener on the document (delegation) makes no element one."""
    tab.goto(site.url("/extract/listeners.html"))
    tree = extract(tab)
    refs = {resolve_html(tab, n.ref).split(">")[0]: n for n in walk(tree.root) if n.ref}
    with_ids = {key.split('id="')[1].split('"')[0]: n for key, n in refs.items() if 'id="' in key}
    assert {"bold", "italic"} <= set(with_ids), with_ids.keys()
    assert "plain" not in with_ids
    assert with_ids["bold"].hint == "bold" and with_ids["italic"].hint == "italic"
    assert not any(n.clickable for n in walk(tree.root) if n.role == "listitem")
    tab.click(with_ids["bold"].ref or "")
    assert "bold on" in tab.get_text().text
