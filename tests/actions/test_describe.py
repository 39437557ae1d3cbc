"""Description targets matched against hand-made snapshot refs (no browser)."""

from __future__ import annotations

import pytest
from webrefs.actions.describe import MIN_SCORE, choose, score, score_refs
from webrefs.errors import AmbiguousTargetError, NoMatchError
from webrefs.models import NodeRef


def refs(*nodes: NodeRef) -> dict[str, NodeRef]:
    return {n.ref: n for n in nodes}


PAGE = refs(
    NodeRef(ref="e1", role="link", name="Home", tag="a"),
    NodeRef(ref="e2", role="searchbox", name="", tag="input", attrs={"placeholder": "Search docs"}),
    NodeRef(ref="e3", role="button", name="Search", tag="button"),
    NodeRef(ref="e4", role="textbox", name="Email", tag="input", attrs={"type": "email"}),
    NodeRef(ref="e5", role="textbox", name="Password", tag="input"),
    NodeRef(ref="e6", role="checkbox", name="Remember me", tag="input"),
    NodeRef(ref="e7", role="button", name="Sign in", tag="button"),
    NodeRef(ref="f1e2", role="link", name="Terms of service", tag="a", frame="f1"),
)


@pytest.mark.parametrize(
    ("description", "ref"),
    [
        ("Search button", "e3"),
        ("email field", "e4"),
        ("the password input", "e5"),
        ("Remember me checkbox", "e6"),
        ("sign in", "e7"),
        ("Sign-in button", "e7"),
        ("search docs box", "e2"),
        ("terms of service link", "f1e2"),
        ("emial field", "e4"),  # a typo still finds the only close field
    ],
)
def test_unique_descriptions_pick_one_ref(description: str, ref: str) -> None:
    winner = choose(description, PAGE)
    assert winner.ref == ref
    assert winner.score >= MIN_SCORE


def test_role_word_alone_is_ambiguous_when_several_have_that_role() -> None:
    with pytest.raises(AmbiguousTargetError) as info:
        choose("button", PAGE)
    got = {c[0] for c in info.value.candidates}
    assert {"e3", "e7"} <= got


def test_identical_names_are_ambiguous_and_list_candidates_with_scores() -> None:
    page = refs(
        NodeRef(ref="e1", role="button", name="Delete", tag="button"),
        NodeRef(ref="e2", role="button", name="Delete", tag="button"),
    )
    with pytest.raises(AmbiguousTargetError) as info:
        choose("Delete button", page)
    assert [c[0] for c in info.value.candidates] == ["e1", "e2"]
    assert all(0 < c[1] <= 1 for c in info.value.candidates)
    assert "e1" in str(info.value) and "e2" in str(info.value)


def test_absent_description_raises_no_match_and_acts_on_nothing() -> None:
    with pytest.raises(NoMatchError) as info:
        choose("shopping cart", PAGE)
    assert all(c[1] < MIN_SCORE for c in info.value.candidates)


def test_wrong_role_word_lowers_score() -> None:
    node = NodeRef(ref="e3", role="button", name="Search", tag="button")
    assert score("search button", node) > score("search link", node)


def test_empty_snapshot_is_no_match() -> None:
    with pytest.raises(NoMatchError):
        choose("anything", {})


def test_score_refs_is_ordered_and_limited() -> None:
    got = score_refs("search", PAGE, limit=2)
    assert len(got) == 2
    assert got[0].score >= got[1].score
