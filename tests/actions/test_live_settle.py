"""Actions on pages that never stop moving return once *their own* effects are quiet: the
changes a page was making by itself before the action (a chain of timeouts, an interval, a
script carousel, a CSS animation's events, a video's time) are not waited for, while what the
action starts (results streamed into the very area that ticks) still is."""

from __future__ import annotations

import pytest
from webrefs import Tab

from tests.helpers.actions import js, opened, ref, text_of

pytestmark = pytest.mark.browser

LIVE = ["price", "clock", "carousel", "css", "video"]


def live(tab: Tab, site, kind: str) -> Tab:  # type: ignore[no-untyped-def]
    opened(tab, site.url(f"/actions/live.html?kind={kind}"))
    tab.configure(max_wait_ms=6000)
    return tab


def ticks(tab: Tab) -> int:
    return int(js(tab, "() => window.liveTicks()"))


def hits(tab: Tab) -> int:
    """Results the page shows (each a ``.hit``)."""
    return int(js(tab, "() => document.querySelectorAll('.hit').length"))


@pytest.mark.parametrize("kind", LIVE)
def test_click_on_a_ticking_page_settles_on_its_own_effects(
        tab: Tab, site, kind: str) -> None:  # type: ignore[no-untyped-def]
    live(tab, site, kind)
    before = ticks(tab)
    r = tab.click(ref(tab, "button", "Buy"))
    assert text_of(tab, "status") == "bought"
    # settled because the click's effects were quiet, not because the limit was reached,
    # while the page went on changing by itself during the wait
    assert r.readback["ready"] == "quiet", r.message
    assert "kept changing" not in r.message
    assert ticks(tab) > before  # the page went on moving (a wait may fall between two ticks)
    assert r.mutations >= 1  # the click's own change is counted, the page's are not


def test_a_second_click_settles_too(tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    live(tab, site, "price")
    for _ in range(2):
        r = tab.click(ref(tab, "button", "Nothing"))
        assert r.readback["ready"] == "quiet", r.message
    # the page's changes are not the click's (the first click may count one: a change seen
    # only once before it counts once)
    assert r.mutations == 0


def test_results_streamed_into_the_ticking_area_are_waited_for(
        tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    live(tab, site, "price")
    r = tab.click(ref(tab, "button", "Search"))
    # every result (one each 150 ms, by timers the click started) was in before it returned
    assert hits(tab) == 8
    assert text_of(tab, "status") == "searched"
    assert r.readback["ready"] == "quiet", r.message
    assert r.readback["added_elements"] == 8


def test_what_the_page_loop_shows_for_the_click_is_waited_for(
        tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    # the click only sets a flag; the page's own ticking loop (which was running before)
    # appends the results, a change of a kind it was not making before
    live(tab, site, "price")
    r = tab.click(ref(tab, "button", "Watch"))
    assert hits(tab) == 8
    assert r.readback["ready"] == "quiet", r.message


def test_a_stream_the_click_never_ends_is_waited_for_up_to_the_limit(
        tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    live(tab, site, "price")
    tab.configure(max_wait_ms=1500)
    r = tab.click(ref(tab, "button", "Endless feed"))
    assert r.success
    assert r.readback["ready"] == "max_wait"
    assert "kept changing for" in r.message and "wait limit reached" in r.message
    assert r.waited_ms >= 1400


@pytest.mark.parametrize("kind", ["price", "carousel"])
def test_opening_a_ticking_page_ends_once_it_has_loaded(
        tab: Tab, site, kind: str) -> None:  # type: ignore[no-untyped-def]
    # the document is the navigation's own; what it then repeats on a rhythm is the page's
    tab.configure(max_wait_ms=6000)
    r = tab.goto(site.url(f"/actions/live.html?kind={kind}"))
    assert r.readback["ready"] == "quiet", r.message
    assert tab.title == "Live page"


def test_a_rhythm_that_paused_just_before_the_action_is_still_the_pages_own(
        tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    # a renderer starved for a moment (a loaded machine, a page briefly in the background)
    # stops a page's animation events: the beat's last change is then older than the rhythm
    # window when the action starts, and it must not be taken for the action's own changes
    live(tab, site, "css")
    # once it beats, paused for 700 ms (past the 600 ms rhythm window, well inside the 2 s
    # history), then running again, in one go in the page: nothing slow between the pause
    # and the action
    paused_at, stopped = js(tab, """() => new Promise((done) => {
      const beat = document.getElementById('beat');
      const wait = setInterval(() => {
        if (window.liveTicks() < 3) return;
        clearInterval(wait);
        beat.style.animationPlayState = 'paused';
        // (an iteration ended before the pause has its event sent at the next frame, before
        // that frame's callbacks: counted from the second frame on, the beat has stopped)
        requestAnimationFrame(() => requestAnimationFrame(() => {
          const at = window.liveTicks();
          setTimeout(() => {
            const still = window.liveTicks() === at;
            beat.style.animationPlayState = 'running';
            done([at, still]);
          }, 700);
        }));
      }, 20);
    })""")
    assert stopped  # it did stop
    # the click streams results by timers of its own (so the wait is not a short one)
    r = tab.click(ref(tab, "button", "Search"))
    assert hits(tab) == 8
    assert r.readback["ready"] == "quiet", r.message
    assert ticks(tab) > paused_at  # the beat went on during the wait


def test_an_action_right_after_the_page_opened_is_not_held_by_its_first_ticks(
        tab: Tab, site) -> None:  # type: ignore[no-untyped-def]
    # the navigation settles before the page's first tick; the action that follows at once
    # (a scripted policy, no model in between) still tells the page's rhythm from its own
    # changes: the click streams results by timers, so its wait is not a short one
    live(tab, site, "css")
    r = tab.click(ref(tab, "button", "Search"))
    assert hits(tab) == 8
    assert r.readback["ready"] == "quiet", r.message
