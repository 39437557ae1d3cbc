"""type_text: type a string with trusted key events (one keydown, keypress, input, keyup per
character), optionally followed by Enter, into the focused element or into the element of a
target, which is focused first. It is for what listens to keys rather than holding a value: a
terminal, a contenteditable editor, a canvas, a custom widget.

A target is focused with ``focus()`` when it takes focus; one that does not (a canvas, a
plain element) is clicked with a real click. Nothing is read back as a value: the result says
what was typed and, through :func:`perform`, what changed on the page.

A ``<secret>name</secret>`` is replaced only with a target, for the origin of the target's own
frame, by the same rule as ``fill`` (:func:`webrefs.actions.textinput.field_origin`); with no
target the frame that gets the keys is not known, so a secret is refused before anything is
typed. Results show the placeholder, never the value. With Enter, the safety policy judges the
call as the key press it ends with (the target and its form's submitting control, as for
``press_key``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError, NotActionableError
from ..models import ActionResult
from ..quoting import quote
from ..safety.secrets import PLACEHOLDER, substitute
from .dom import inspect, run_js
from .limits import check_value
from .perform import Outcome, perform, timeout_ms
from .targets import Target
from .textinput import field_origin

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["type_text"]

MAX_TYPE_MS = 60_000
"""Longest one call may spend typing, however long the text."""

_HAS_FOCUS_JS = """(el) => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return !!a && (a === el || el.contains(a));
}"""


async def _focus(tab: TabCore, t: Target) -> None:
    """Give ``t`` the keyboard focus: ``focus()`` when it takes it, else a real click."""
    world = tab.refs.world
    if await run_js(t.spot, _HAS_FOCUS_JS, world=world):
        return
    await asyncio.wait_for(t.handle.focus(), timeout_ms(tab) / 1000)
    if not await run_js(t.spot, _HAS_FOCUS_JS, world=world):
        await t.handle.click(timeout=timeout_ms(tab))


async def type_text(tab: TabCore, text: str, target: str | None = None,
                    enter: bool = False) -> ActionResult:
    """Type ``text`` key by key into ``target`` (focused first) or the focused element, then
    press Enter when ``enter``."""
    typed = check_value(text, tab.options.max_value_chars)
    if not typed and not enter:
        raise InvalidArgumentError("There is nothing to type: the text is empty.",
                                   hint="Give web_type a text, or enter=true to press Enter.")
    policy = tab.browser.safety
    secret = policy.enabled and bool(PLACEHOLDER.search(typed))
    if secret and target is None:
        raise InvalidArgumentError(
            "A secret can be typed only into the element of a ref; nothing was typed.",
            hint="Give web_type the ref of the element the secret belongs in.")
    then = ", then pressed Enter" if enter else ""
    # a bound that grows with the text: each key is a round trip to the browser
    bound = min(timeout_ms(tab) + len(typed) * 20, MAX_TYPE_MS)

    async def act(t: Target | None) -> Outcome:
        keys = tab.page.keyboard
        limit = timeout_ms(tab) / 1000
        keys_text = typed
        if t is not None:
            name = f"{t.ref} ({t.label})" if t.label else t.ref
            if secret:
                keys_text, _ = substitute(typed, policy, await field_origin(tab, t))
            info = await inspect(t.spot, tab.refs.world)
            if info.get("disabled") or info.get("ariaDisabled"):
                raise NotActionableError(f"Cannot type into {name}: it is disabled.",
                                         hint="Something else on the page must enable it "
                                         "first.", reason="disabled")
            await _focus(tab, t)
            where = f" into {name}"
            masked = bool(info.get("masked")) and policy.enabled
        else:
            where, masked = "", False
        await asyncio.wait_for(keys.type(keys_text), bound / 1000)
        if enter:
            await asyncio.wait_for(keys.press("Enter"), limit)
        what = "a hidden value (a password field)" if masked else quote(typed, 60)
        return Outcome(f"Typed {what}{where}{then}." if typed else f"Pressed Enter{where}.")

    # typing that ends with Enter submits like the key press it ends with, and is judged as one
    return await perform(tab, "type", target, act, doing=f"typing {quote(typed, 40)}",
                         limit_ms=bound, judged_as="press_key" if enter else None)
