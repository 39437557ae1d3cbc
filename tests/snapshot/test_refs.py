"""Refs: parsing, the per-tab book, stability, stale vs unknown, and identity (decoys)."""

from __future__ import annotations

import re

import pytest
from webrefs import Tab
from webrefs.errors import InvalidTargetError, StaleRefError, UnknownRefError
from webrefs.snapshot.refs import RefBook, parse_ref, resolve_ref, split_ref
from webrefs.snapshot.world import PRISTINE_KEY

from tests.helpers.extracting import evaluate, extract, find, find_all, resolve_html
from tests.helpers.server import SiteServer

# -- pure --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "bare"),
    [
        ("e5", "e5"), ("@e5", "e5"), ("ref=e5", "e5"), ("[ref=e5]", "e5"), (" e12 ", "e12"),
        ("f1e3", "f1e3"), ("[ref=f2e10]", "f2e10"), ("E7", "e7"), ("ref: e4", "e4"),
    ],
)
def test_parse_ref_normalizes(given: str, bare: str) -> None:
    assert parse_ref(given) == bare


@pytest.mark.parametrize(
    "given",
    ["Search button", "e", "e0", "f0e1", "e1x", "the e5 button", 'e1"] , *[x="',
     "e1'); alert(1)//", "e-1", "e1 e2", "f1", "ee1"],
)
def test_parse_ref_rejects_non_refs(given: str) -> None:
    assert parse_ref(given) is None


@pytest.mark.parametrize("given", ["", "   ", "x" * 201, None, 5, ["e1"]])
def test_parse_ref_invalid_input(given: object) -> None:
    with pytest.raises(InvalidTargetError):
        parse_ref(given)  # type: ignore[arg-type]


def test_split_ref() -> None:
    assert split_ref("e5") == ("", 5)
    assert split_ref("f12e3") == ("f12", 3)
    with pytest.raises(InvalidTargetError):
        split_ref("x1")


def test_ref_book_counters_never_restart() -> None:
    book = RefBook()
    assert book.next_number("") == 1
    assert not book.was_issued("e1")
    book.advance("", 6)
    assert book.was_issued("e5") and not book.was_issued("e6")
    book.advance("", 3)  # never goes back
    assert book.next_number("") == 6
    book.forget_documents()  # after a crash the numbers still continue
    assert book.next_number("") == 6 and book.was_issued("e5")
    assert not book.was_issued("f1e1")  # a prefix never made


# -- in a page ---------------------------------------------------------------------------------


def _numbers(refs: list[str]) -> list[int]:
    return [int(re.sub(r"^f\d+e", "", r).lstrip("e")) for r in refs]


def test_refs_stable_across_mutation(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/mutate.html"))
    tree = extract(tab)
    a = find(tree, role="button", name="Alpha").ref
    b = find(tree, role="button", name="Beta").ref
    assert a and b
    evaluate(tab, """() => {
        const n = document.createElement('button'); n.textContent = 'Gamma';
        document.getElementById('list').prepend(n);
        const b = document.getElementById('b'); b.textContent = 'Beta renamed';
        b.setAttribute('class', 'changed');
        document.getElementById('list').append(b);  // moved, same element
    }""")
    again = extract(tab)
    assert find(again, role="button", name="Alpha").ref == a
    assert find(again, role="button", name="Beta renamed").ref == b
    gamma = find(again, role="button", name="Gamma").ref
    assert gamma and _numbers([gamma])[0] > max(_numbers([a, b, find(tree, role="link").ref or ""]))


def test_stale_after_removal_unknown_never_issued(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/mutate.html"))
    tree = extract(tab)
    a = find(tree, role="button", name="Alpha").ref
    assert a and "Alpha" in resolve_html(tab, a)
    evaluate(tab, "window.kept = document.getElementById('a'); window.kept.remove()")
    with pytest.raises(StaleRefError) as err:
        resolve_html(tab, a)
    assert "snapshot" in str(err.value)
    with pytest.raises(UnknownRefError):
        resolve_html(tab, "e999")
    with pytest.raises(UnknownRefError):
        resolve_html(tab, "f7e1")
    # the same element put back is the same ref again
    evaluate(tab, "document.getElementById('list').append(window.kept)")
    assert "Alpha" in resolve_html(tab, a)
    assert find(extract(tab), role="button", name="Alpha").ref == a


def test_stale_after_navigation_and_counter_continues(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/mutate.html"))
    tree = extract(tab)
    old = [n.ref for n in (find(tree, role="button", name="Alpha"), find(tree, role="link"))]
    assert all(old)
    tab.goto(site.url("/extract/other.html"))
    for ref in old:
        with pytest.raises(StaleRefError):
            resolve_html(tab, ref or "")
    fresh = extract(tab)
    new = [n.ref for n in (find(fresh, role="button", name="Other button"),
                           find(fresh, role="link", name="Back"))]
    assert min(_numbers([r or "" for r in new])) > max(_numbers([r or "" for r in old]))
    # and back again: the first document's elements are new objects with new refs
    tab.goto(site.url("/extract/mutate.html"))
    back = find(extract(tab), role="button", name="Alpha").ref
    assert back not in old and _numbers([back or ""])[0] > max(_numbers([r or "" for r in new]))


@pytest.mark.parametrize("hostile", ['e1"] , *[x="', "e1'); alert(1)//", "[ref=e1]; x", "e1\n"])
def test_hostile_strings_are_just_invalid(tab: Tab, site: SiteServer, hostile: str) -> None:
    tab.goto(site.url("/extract/mutate.html"))
    extract(tab)
    core = tab.core
    try:
        tab.runner.run(core.call("resolving", lambda: resolve_ref(core.page, core.refs, hostile)))
    except (InvalidTargetError, UnknownRefError):
        pass
    else:
        assert parse_ref(hostile) == "e1"  # only a well-formed ref may resolve
    assert evaluate(tab, "typeof window.x") == "undefined"


def test_attribute_copy_decoy_gets_nothing(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/decoy.html"))
    ref = find(extract(tab), role="button", name="Pay now").ref
    assert ref
    evaluate(tab, "window.plantDecoy()")
    core = tab.core

    async def is_real() -> bool:
        _frame, handle = await resolve_ref(core.page, core.refs, ref)
        return bool(await handle.evaluate("e => e === window.realButton && e !== window.decoy"))

    assert tab.runner.run(core.call("resolving", is_real))
    # the decoy looks exactly like the button, but it is a new element with a new ref
    tree = extract(tab)
    pays = [n.ref for n in find_all(tree, role="button", name="Pay now")]
    assert len(pays) == 2 and pays[1] == ref and pays[0] != ref  # the decoy comes first


def test_attribute_copy_decoy_does_not_receive_the_click(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/decoy.html"))
    ref = find(extract(tab), role="button", name="Pay now").ref
    assert ref
    evaluate(tab, "window.plantDecoy()")
    tab.click(ref)
    assert evaluate(tab, "window.clicked") == ["real"]


def test_planted_fake_registry_is_not_used(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/extract/fake-registry.html"))
    tree = extract(tab)
    ref = find(tree, role="button", name="Real button").ref
    assert ref and 'id="real"' in resolve_html(tab, ref)
    assert tab.core.refs.registry_key != "__webrefsRegistry"
    keys = evaluate(
        tab, "() => Object.getOwnPropertyNames(window).filter(k => k.startsWith('__webrefs'))"
    )
    # the planted one, the responder script's copy of the original built-ins and the
    # side-door guard's mark; the real registry lives in webrefs' isolated world
    assert tab.core.refs.world.isolated
    guard = [k for k in keys if k.startswith("__webrefs_side_doors_")]
    assert len(guard) == 1
    assert sorted(set(keys) - set(guard)) == sorted(["__webrefsRegistry", PRISTINE_KEY])
