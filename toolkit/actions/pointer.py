"""click and hover: trusted mouse input on the element a ref points at.

A click on a line the snapshot does not show as a control (a text, heading or cell a content
snapshot gave a ref) is not a silent success: when the page shows no reaction (no change to
the document, no navigation, dialog or new tab), the click fails with ``not_a_control``.

Where a left click landed is watched (in webrefs' own world): when its press reached a plain
element holding the target instead and the page did not change (the target shrank or moved
as the pointer arrived, e.g. an icon whose hover image was still loading), the target is
pressed once more, and the result says so. A press that reached a control or label holding
the target counts as done, never repeated."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Position

from ..errors import InvalidArgumentError, NotActionableError, WebrefsError
from ..models import ActionResult, Node
from ..render.outline import safe_role
from .dom import click_landed, hit_test, inspect_for_pointer
from .perform import Outcome, covered_error, perform, timeout_ms
from .targets import PagePoint, Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore
    from ..snapshot.world import World

__all__ = ["click", "click_at", "hover", "hover_at", "ready_for_pointer"]

_BUTTONS = ("left", "right", "middle")
_AGAIN_TIMEOUT_MS = 1_000
"""Bound on the second press of a click whose first press missed its target."""
_SHOWN_PATIENCE_S = 0.5
"""How long an element found without a visible box is asked again before a pointer action
refuses it as not visible."""


def _name(target: Target) -> str:
    if target.point is not None:  # a point: the element under it, by ref when it has one
        what = f"{target.ref} ({target.label})" if target.ref else target.label
        return f"{target.given} on {what}"
    return f"{target.ref} ({target.label})" if target.label else target.ref


def _snapshot_node(tab: TabCore, ref: str) -> Node | None:
    """The node of ``ref`` in the tab's latest snapshot, if that snapshot has it."""
    snap = tab.last_snapshot
    if snap is None or snap.source is None:
        return None
    stack = [snap.source.tree.root]
    while stack:
        node = stack.pop()
        if node.ref == ref:
            return node
        stack.extend(node.children)
    return None


def _not_a_control(tab: TabCore, target: Target, verb: str) -> NotActionableError:
    node = _snapshot_node(tab, target.ref)
    what = safe_role(node.role, "text") if node is not None else "content"
    return NotActionableError(
        f"{verb.capitalize()}ed {_name(target)}, but the page did not react: that line is "
        f"{what}, not a control, and a click on it reached no button or link.",
        hint="Click a control instead: a line with a role such as button, link or text with "
        "a ref of its own in a web_snapshot (controls inside a row have their own refs).",
        reason="not_a_control",
    )


async def ready_for_pointer(tab: TabCore, target: Target, verb: str, *,
                            refuse_disabled: bool, watch: str | None = None) -> dict[str, object]:
    """The target's pointer read once it is shown, enabled (with ``refuse_disabled``) and not
    covered; else the :class:`NotActionableError` that says which (``verb`` words it)."""
    # shown again within moments (an icon whose hover image is loading has no size, a
    # transition), or really hidden: asked again for a little while before refusing
    info = await _read_until_shown(target, tab.refs.world, refuse_disabled=refuse_disabled,
                                   watch=watch)
    if refuse_disabled and info.get("disabled"):
        raise NotActionableError(
            f"Cannot {verb} {_name(target)}: it is disabled.",
            hint="Fill in what the form still needs, or look for another control.",
            reason="disabled",
        )
    if not info.get("visible"):
        raise NotActionableError(
            f"Cannot {verb} {_name(target)}: it is not visible.",
            hint="Open the menu or section that contains it, then take a new snapshot.",
            reason="not_visible",
        )
    first = info.get("hit")
    if isinstance(first, dict) and first.get("covered"):
        # something is on top at the first look: wait a little for it to go (a fading
        # overlay), then name it
        covered = await covered_error(tab, target, f"{verb} {_name(target)}")
        if covered is not None:
            raise covered
    return info


async def _press_again(tab: TabCore, target: Target, watch: str) -> str:
    """After a left click: ``""`` when its press reached the target (or acted through a
    control or label holding it, or changed the page, or cannot be told). When the press
    reached a plain element holding the target and the page did not change (the target shrank
    or moved as the pointer arrived: an icon whose hover image is still loading), the target
    is pressed once more when it is shown again (waited for briefly) and on top, and where
    that press landed is read too; the words to add to the result say which happened. The
    second press has a short bound; nothing here raises."""
    world = tab.refs.world
    landed, changed = await click_landed(target.spot, world, watch)
    if landed != "around" or changed:
        return ""
    missed = " (the press reached the element around it: it changed under the pointer"
    try:
        if await hit_test(target.spot, world) is not None:
            return f"{missed}, and something else is now on top)"
        # a hover image still loading leaves it without a box: shown in two reads in a row
        info = await _read_until_shown(target, world, refuse_disabled=True, watch=watch,
                                       in_a_row=2)
        if not info.get("visible") or info.get("disabled"):
            return f"{missed}, and it is no longer shown or enabled)"
        await target.handle.click(timeout=min(_AGAIN_TIMEOUT_MS, timeout_ms(tab)))
        again, _ = await click_landed(target.spot, world, watch)
    except (WebrefsError, PlaywrightError):
        return f"{missed}; pressing it again failed)"
    if again == "on":
        return f"{missed}, so it was pressed again)"
    return f"{missed}, and pressing it again did not reach it either)"


async def _read_until_shown(target: Target, world: World, *, refuse_disabled: bool,
                            watch: str | None, in_a_row: int = 1) -> dict[str, object]:
    """The target's pointer read (:func:`inspect_for_pointer`) once it has shown a box in
    ``in_a_row`` reads in a row, or the last read after ``_SHOWN_PATIENCE_S``; the first read
    is made at once, and the last one arms the click watcher (``watch``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _SHOWN_PATIENCE_S
    seen = 0
    while True:
        info = await inspect_for_pointer(target.spot, world, refuse_disabled=refuse_disabled,
                                         watch=watch)
        seen = seen + 1 if info.get("visible") else 0
        if seen >= in_a_row or loop.time() >= deadline:
            return info
        await asyncio.sleep(0.05)


async def click(tab: TabCore, target: str, *, button: str = "left",
                double: bool = False) -> ActionResult:
    """Click (or double-click) the element with trusted mouse events."""
    if button not in _BUTTONS:
        raise InvalidArgumentError(f"button must be one of {', '.join(_BUTTONS)}, got {button!r}.")
    mouse: Literal["left", "right", "middle"] = button  # type: ignore[assignment]
    verb = "double-click" if double else ("right-click" if button == "right" else "click")
    leave = contextlib.ExitStack()

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        # where a left click lands is watched in webrefs' own world only: in the page's world
        # the page could forge the answer and have the target pressed twice
        watch = (f"{tab.refs.registry_key}_click"
                 if verb == "click" and button == "left" and tab.refs.world.isolated else None)
        info = await ready_for_pointer(tab, t, verb, refuse_disabled=True, watch=watch)
        if button == "left" and _is_link(info):
            # following a link is asking to leave the page: a "leave this page?" prompt is
            # answered yes (until the action's wait is over: the prompt comes after the click)
            leave.enter_context(tab.leaving())
        node = _snapshot_node(tab, t.ref)
        content = node is not None and not node.interactive
        url, opened, dialogs = tab.page.url, len(tab.browser.opened_log), len(tab.dialog_log)
        # where the centre reaches only what holds the element (a glyph's hole, a ring), the
        # point of the element the hit test found
        position = await _inner_point(t, info.get("hit"))
        await t.handle.click(button=mouse, click_count=2 if double else 1,
                             timeout=timeout_ms(tab), position=position)
        how = " (found by description)" if t.matched_by == "description" else ""
        if watch is not None:
            how += await _press_again(tab, t, watch)
        outcome = Outcome(f"Clicked {_name(t)}{how}." if verb == "click"
                          else f"{verb.capitalize()}ed {_name(t)}{how}.")

        async def verify() -> None:
            seen = outcome.settled
            if seen is None or seen.mutations or seen.navigated or tab.page.url != url:
                return
            if len(tab.browser.opened_log) > opened or len(tab.dialog_log) > dialogs:
                return
            raise _not_a_control(tab, t, verb)

        if content and button == "left":
            outcome.verify = verify
        return outcome

    with leave:
        return await perform(tab, "click", target, act, doing=f"{verb}ing {str(target)[:60]}")


async def _inner_point(t: Target, hit: object) -> Position | None:
    """The click position (from the element's box corner, as Playwright measures it) of the
    point the hit test found inside the element when its centre reaches only what holds it;
    ``None``: the centre will do. Only in the main frame, whose viewport both measure in."""
    at = hit.get("at") if isinstance(hit, dict) else None
    if not isinstance(at, list) or len(at) != 2 or t.frame.parent_frame is not None:
        return None
    box = await t.handle.bounding_box()
    if box is None:
        return None
    return {"x": float(at[0]) - box["x"], "y": float(at[1]) - box["y"]}


def _is_link(info: dict[str, object]) -> bool:
    """Whether the element a pointer read describes is a link (``<a>``, ``<area>`` or
    ``role=link``)."""
    return info.get("tag") in ("a", "area") or info.get("role") == "link"


async def hover(tab: TabCore, target: str) -> ActionResult:
    """Move the mouse over the element (menus and tooltips open on hover)."""

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        await ready_for_pointer(tab, t, "hover over", refuse_disabled=False)
        await t.handle.hover(timeout=timeout_ms(tab))
        return Outcome(f"Hovered over {_name(t)}.")

    return await perform(tab, "hover", target, act, doing=f"hovering over {str(target)[:60]}")


async def click_at(tab: TabCore, point: PagePoint, *, button: str = "left",
                   double: bool = False) -> ActionResult:
    """Click at ``point`` (CSS pixels of the main document; it must be on screen) with
    trusted mouse input. The element under it (the nearest one with a ref around what the
    point hits) is the target the safety policy judges and the result names."""
    if button not in _BUTTONS:
        raise InvalidArgumentError(f"button must be one of {', '.join(_BUTTONS)}, got {button!r}.")
    mouse: Literal["left", "right", "middle"] = button  # type: ignore[assignment]
    verb = "double-click" if double else ("right-click" if button == "right" else "click")
    leave = contextlib.ExitStack()

    async def act(t: Target | None) -> Outcome:
        assert t is not None and t.point is not None
        if button == "left" and t.link:
            leave.enter_context(tab.leaving())  # following a link: see click()
        await tab.page.mouse.click(t.point[0], t.point[1], button=mouse,
                                   click_count=2 if double else 1)
        return Outcome(f"Clicked at {_name(t)}." if verb == "click"
                       else f"{verb.capitalize()}ed at {_name(t)}.")

    with leave:
        return await perform(tab, "click", point, act, doing=f"{verb}ing at {point}")


async def hover_at(tab: TabCore, point: PagePoint) -> ActionResult:
    """Move the mouse to ``point`` (CSS pixels of the main document, on screen)."""

    async def act(t: Target | None) -> Outcome:
        assert t is not None and t.point is not None
        await tab.page.mouse.move(t.point[0], t.point[1])
        return Outcome(f"Moved the mouse to {_name(t)}.")

    return await perform(tab, "hover", point, act, doing=f"hovering at {point}")
