"""Target strings: refs in every accepted spelling, unknown/stale/malformed refs as distinct
errors, descriptions (unique, ambiguous, absent) and hostile strings."""

from __future__ import annotations

import pytest
from webrefs import Tab
from webrefs.actions.targets import classify
from webrefs.errors import (
    AmbiguousTargetError,
    InvalidTargetError,
    NoMatchError,
    StaleRefError,
    UnknownRefError,
)

from tests.helpers.actions import js, opened, ref

HOSTILE = [
    'e1"] , *[x="',
    "e1'); alert(1)//",
    "e1`;document.title='pwned'",
    "@e1</script>",
    "ref=e1 || true",
]


@pytest.mark.parametrize("target", HOSTILE)
def test_hostile_strings_are_unknown_refs(target: str) -> None:
    with pytest.raises(UnknownRefError):
        classify(target)


@pytest.mark.parametrize(
    ("target", "ref_"),
    [("e5", "e5"), ("@e5", "e5"), ("ref=e5", "e5"), ("[ref=e5]", "e5"), ("f1e3", "f1e3")],
)
def test_ref_spellings(target: str, ref_: str) -> None:
    assert classify(target) == ("ref", ref_)


@pytest.mark.parametrize("target", ["", "   ", "x" * 500])
def test_malformed_targets(target: str) -> None:
    with pytest.raises(InvalidTargetError):
        classify(target)


def test_non_string_target_is_malformed() -> None:
    with pytest.raises(InvalidTargetError):
        classify(5)


def test_descriptions_are_descriptions() -> None:
    assert classify("Search button") == ("description", "Search button")
    assert classify("e-mail field") == ("description", "e-mail field")


@pytest.fixture
def hazards(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/hazards.html"))


@pytest.mark.browser
def test_unknown_stale_and_malformed_are_distinct(hazards: Tab) -> None:
    with pytest.raises(UnknownRefError):
        hazards.click("e999")
    victim = ref(hazards, "button", "Victim")
    hazards.click(ref(hazards, "button", "Remove victim"))
    with pytest.raises(StaleRefError):
        hazards.click(victim)
    with pytest.raises(InvalidTargetError):
        hazards.click("")


@pytest.mark.browser
@pytest.mark.parametrize("target", HOSTILE)
def test_hostile_targets_touch_nothing(hazards: Tab, target: str) -> None:
    with pytest.raises(UnknownRefError):
        hazards.click(target)
    assert js(hazards, "() => document.getElementById('log').textContent") == "none"
    assert hazards.title == "Hazards"


@pytest.mark.browser
def test_description_unique_ambiguous_absent(hazards: Tab) -> None:
    r = hazards.click("Buy now button")
    assert r.matched_by == "description" and r.ref == ref(hazards, "button", "Buy now")
    assert "found by description" in r.message
    with pytest.raises(AmbiguousTargetError) as info:
        hazards.click("button")
    assert len(info.value.candidates) >= 2
    assert js(hazards, "() => document.getElementById('log').textContent") == "under clicked"
    with pytest.raises(NoMatchError):
        hazards.click("shopping cart icon")


@pytest.mark.browser
def test_description_without_snapshot_takes_one(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    tab.goto(site.url("/actions/hazards.html"))
    assert tab.last_snapshot is None
    r = tab.click("Victim")
    assert r.matched_by == "description" and tab.last_snapshot is not None
