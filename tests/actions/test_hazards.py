"""Clicks that must not go wrong: overlays, moving targets, decoys, removed elements,
navigation between snapshot and click, two actions at once."""

from __future__ import annotations

import asyncio

import pytest
from webrefs import Tab
from webrefs.actions.perform import MIN_ACTION_TIMEOUT_MS, timeout_ms
from webrefs.errors import NotActionableError, StaleRefError

from tests.helpers.actions import js, opened, ref, text_of

pytestmark = pytest.mark.browser


@pytest.fixture
def hazards(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url("/actions/hazards.html"))


def log(tab: Tab) -> str:
    return text_of(tab, "log")


def test_overlay_covering_target_is_named_with_its_ref(hazards: Tab) -> None:
    buy = ref(hazards, "button", "Buy now")
    hazards.click(ref(hazards, "button", "Show overlay"))
    hazards.snapshot()  # the overlay's button now has a ref
    accept = ref(hazards, "button", "Accept cookies")
    with pytest.raises(NotActionableError) as info:
        hazards.click(buy)
    err = info.value
    assert err.reason == "covered"
    assert err.details.get("covering_ref") is not None or "<div>" in str(err)
    assert log(hazards) == "none"
    assert err.result is not None and not err.result.success
    # closing the overlay makes the original ref usable again
    hazards.click(accept)
    hazards.click(buy)
    assert log(hazards) == "under clicked"


def test_covering_element_ref_is_reported(hazards: Tab) -> None:
    buy = ref(hazards, "button", "Buy now")
    js(hazards, """() => { const b = document.createElement('button'); b.id = 'cover';
        b.textContent = 'Cover'; b.style = 'position:fixed;inset:0;width:100%;height:100%';
        document.body.appendChild(b); }""")
    hazards.snapshot()
    cover = ref(hazards, "button", "Cover")
    with pytest.raises(NotActionableError) as info:
        hazards.click(buy)
    assert info.value.details["covering_ref"] == cover
    assert f"[ref={cover}]" in str(info.value)


def test_moving_target_is_clicked_once_it_settles(hazards: Tab) -> None:
    mover = ref(hazards, "button", "Moving target")
    hazards.click(ref(hazards, "button", "Slide"))  # starts a 0.4 s transition
    js(hazards, "() => { document.getElementById('mover').style.left = '0px'; }")
    r = hazards.click(mover)
    assert r.success and log(hazards) == "mover clicked"


def test_decoy_with_copied_attributes_is_not_clicked(hazards: Tab) -> None:
    pay = ref(hazards, "button", "Pay")
    hazards.click(ref(hazards, "button", "Make decoy"))  # copies pay's attributes onto a decoy
    r = hazards.click(pay)
    assert r.ref == pay
    assert log(hazards) == "original clicked"


def test_element_removed_between_snapshot_and_click_is_stale(hazards: Tab) -> None:
    victim = ref(hazards, "button", "Victim")
    hazards.click(ref(hazards, "button", "Remove victim"))
    with pytest.raises(StaleRefError) as info:
        hazards.click(victim)
    assert "snapshot" in str(info.value)
    assert info.value.snapshot is None


def test_stale_ref_can_bring_a_fresh_snapshot(hazards: Tab) -> None:
    victim = ref(hazards, "button", "Victim")
    hazards.configure(resnapshot_on_stale=True)
    hazards.click(ref(hazards, "button", "Remove victim"))
    with pytest.raises(StaleRefError) as info:
        hazards.click(victim)
    snap = info.value.snapshot
    assert snap is not None and "Victim" not in snap.text and "Pay" in snap.text


def test_navigation_between_snapshot_and_click_is_stale(hazards: Tab, site) -> None:  # type: ignore[no-untyped-def]
    pay = ref(hazards, "button", "Pay")
    hazards.goto(site.url("/actions/target.html"))
    with pytest.raises(StaleRefError):
        hazards.click(pay)
    assert "Target page" in hazards.title


async def test_two_actions_at_once_are_serialized(hazards: Tab) -> None:
    js(hazards, """() => { window.order = []; const b = document.getElementById('victim');
        b.addEventListener('click', () => window.order.push('victim')); }""")
    victim = ref(hazards, "button", "Victim")
    buy = ref(hazards, "button", "Buy now")
    first, second = await asyncio.gather(hazards.aclick(victim), hazards.aclick(buy))
    assert first.success and second.success
    assert log(hazards) == "under clicked"  # the second click ran after the first finished
    assert js(hazards, "() => window.order") == ["victim"]


def test_description_target_clicks_the_single_winner(hazards: Tab) -> None:
    r = hazards.click("Victim button")
    assert r.matched_by == "description" and r.ref == ref(hazards, "button", "Victim")
    assert log(hazards) == "victim clicked"


def test_zero_action_timeout_is_clamped_not_forever(hazards: Tab) -> None:
    hazards.configure(action_timeout_ms=0)
    assert timeout_ms(hazards.core) == MIN_ACTION_TIMEOUT_MS
    hazards.configure(action_timeout_ms=10**9)
    assert timeout_ms(hazards.core) == 60_000
