"""fill: replace the text of an input, textarea or contenteditable with trusted typing input
(frameworks such as React see it), then read the value back.

A slider or spinbutton takes a number: a native range input gets the value set with the
``input`` and ``change`` events a drag sends; an ARIA slider or spinbutton is moved with the
arrow keys (trusted key presses) until its ``aria-valuenow`` is the number, or as close as it
goes.

A ``<secret>name</secret>`` in the value is replaced by the secret only when the origin of the
field's own frame may have it (:func:`field_origin`, :func:`webrefs.safety.secrets.secrets_for`):
a frame of another site on the site's page is refused before anything is typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError, NotActionableError, VerificationError
from ..models import ActionResult
from ..quoting import quote
from ..safety.secrets import PLACEHOLDER, redact, same_origin, secrets_for, substitute
from .dates import DATE_TYPES, to_field_value
from .dom import inspect, run_js
from .limits import check_value
from .perform import Outcome, perform, timeout_ms
from .targets import Target

if TYPE_CHECKING:
    from playwright.async_api import Frame

    from ..session.tabcore import TabCore

__all__ = ["field_origin", "fill", "refuse_unless_editable"]

MAX_KEY_STEPS = 200
"""Most arrow-key presses one fill of an ARIA slider or spinbutton makes."""

_RANGE_JS = """(el, set) => {
  const native = el.localName === 'input';
  if (set !== null && native) {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, set);
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  }
  const num = (v) => (v === null || v === '' || isNaN(+v) ? null : +v);
  if (native) return {now: num(el.value), min: num(el.min) ?? 0, max: num(el.max) ?? 100};
  return {now: num(el.getAttribute('aria-valuenow')), min: num(el.getAttribute('aria-valuemin')),
          max: num(el.getAttribute('aria-valuemax'))};
}"""


def _is_range(info: dict[str, Any]) -> bool:
    if info.get("tag") == "input" and info.get("type") == "range":
        return True
    return info.get("role") in ("slider", "spinbutton") and not info.get("editable")


def _number(text: str, name: str) -> float:
    try:
        goal = float(text.strip())
    except ValueError:
        goal = float("nan")
    if goal != goal or goal in (float("inf"), float("-inf")):
        raise InvalidArgumentError(
            f"{name} is a slider or spinbutton: web_fill on it takes a number, got "
            f"{_shown(text)}.",
            hint="Pass the value as a number within the min and max the snapshot shows.",
        )
    return goal


def _fmt(v: object) -> str:
    if not isinstance(v, (int, float)):
        return "nothing"
    return str(int(v)) if v == int(v) else str(v)


async def _set_range(tab: TabCore, t: Target, name: str, text: str,
                     info: dict[str, Any]) -> Outcome:
    """Move a slider or spinbutton to the number ``text`` (as close as it goes)."""
    goal = _number(text, name)
    if info.get("disabled") or info.get("ariaDisabled"):
        raise NotActionableError(f"Cannot set {name}: it is disabled.",
                                 hint="Something else on the page must enable it first.",
                                 reason="disabled")
    world = tab.refs.world
    start: dict[str, Any] = await run_js(t.spot, _RANGE_JS, None, world=world)
    state = start
    if info.get("tag") == "input":
        state = await run_js(t.spot, _RANGE_JS, _fmt(goal), world=world)
    else:
        up, down = (("ArrowUp", "ArrowDown") if info.get("role") == "spinbutton"
                    else ("ArrowRight", "ArrowLeft"))
        for _ in range(MAX_KEY_STEPS):
            now = state.get("now")
            if not isinstance(now, (int, float)) or now == goal:
                break
            rising = now < goal
            await t.handle.press(up if rising else down, timeout=timeout_ms(tab))
            state = await run_js(t.spot, _RANGE_JS, None, world=world)
            moved = state.get("now")
            if (not isinstance(moved, (int, float)) or moved == now
                    or (moved > goal if rising else moved < goal)):
                break
    now = state.get("now")
    outcome = Outcome(f"Set {name} to {_fmt(goal)}.")
    outcome.readback["value"] = _fmt(now)
    if now == goal:
        return outcome
    span = f"its range is {_fmt(state.get('min'))} to {_fmt(state.get('max'))}"
    if now == start.get("now"):
        raise VerificationError(
            f"Tried to set {name} to {_fmt(goal)}, but it still shows {_fmt(now)} ({span}).",
            hint="Pass a number within its range, or move it with web_press_key and arrow keys.",
        )
    outcome.message = f"Set {name} to {_fmt(now)}, the closest it goes to {_fmt(goal)} ({span})."
    return outcome


def _shown(text: str, n: int = 60) -> str:
    """A value as results show it: quoted by the one rule for page strings (the page may have
    put it there), cut to ``n`` characters once the secrets are replaced."""
    return quote(text, n)


_ORIGIN_JS = "(el) => String(self.origin)"


async def field_origin(tab: TabCore, t: Target) -> str:
    """The origin of the document the field is in, which decides the secrets it may get:
    what its frame says (``self.origin``, read in webrefs' world, so sandboxed and ``data:``
    frames say ``"null"`` and a blank frame says whose it is), when the browser's record of
    the frame chain agrees (the nearest http(s) frame, the field's own or an ancestor, is of
    that origin); else ``"null"``."""
    said = await run_js(t.spot, _ORIGIN_JS, world=tab.refs.world)
    frame: Frame | None = t.frame
    while frame is not None and not frame.url.startswith(("http://", "https://")):
        frame = frame.parent_frame
    if frame is None or not isinstance(said, str) or not same_origin(said, frame.url):
        return "null"
    return said


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def refuse_unless_editable(info: dict[str, Any], name: str) -> None:
    """Raise :class:`NotActionableError` when text cannot be typed into this element."""
    if not info.get("editable"):
        kind = info.get("tag", "element")
        if info.get("type"):
            kind = f"{kind} type={info['type']}"
        hint = "Use web_select for a dropdown." if info.get("tag") == "select" else (
            "Use web_check for a checkbox or radio." if info.get("type") in ("checkbox", "radio")
            else "")
        keyed = "" if hint else "; web_type sends keys to such an element"
        hint = hint or ("To send keys to something that is not a text field (a terminal, an "
                        "editor, a canvas, a widget), use web_type with its ref.")
        raise NotActionableError(
            f"Cannot type into {name}: it is not a text field (<{kind}>){keyed}.",
            hint=hint, reason="not_editable",
        )
    if info.get("disabled"):
        raise NotActionableError(
            f"Cannot type into {name}: it is disabled.",
            hint="Something else on the page must enable it first.", reason="disabled",
        )
    if info.get("readonly"):
        raise NotActionableError(
            f"Cannot type into {name}: it is read-only; its value was left as it is.",
            hint="Read-only fields are set by the page; look for another control.",
            reason="readonly",
        )


async def fill(tab: TabCore, target: str, value: str) -> ActionResult:
    """Clear the field, type ``value`` into it and check that it stuck."""
    typed = check_value(value, tab.options.max_value_chars)
    policy = tab.browser.safety

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        name = f"{t.ref} ({t.label})" if t.label else t.ref
        # <secret>name</secret> is replaced here, for the origin of the field's own frame
        # (not the top page's: a frame of another site on the page is another site)
        origin = ""
        text = typed
        used: list[str] = []
        if policy.enabled and PLACEHOLDER.search(typed):
            origin = await field_origin(tab, t)
            text, used = substitute(typed, policy, origin)
        info = await inspect(t.spot, tab.refs.world)
        if _is_range(info):
            return await _set_range(tab, t, name, typed, info)
        refuse_unless_editable(info, name)
        read_as = ""
        if info.get("tag") == "input" and info.get("type") in DATE_TYPES:
            # date and time fields take ISO values only: read what the model wrote
            as_iso = to_field_value(text, str(info["type"]))
            parts = [f"as {as_iso.value}"] if as_iso.value != text else []
            text, read_as = as_iso.value, "; ".join([*parts, *filter(None, [as_iso.note])])
        masked = bool(info.get("masked")) and policy.enabled
        known = secrets_for(policy, origin) if used else {}
        secrets = {n: known[n] for n in used if n in known}

        def show(v: str | None) -> str:
            if masked:
                return "a hidden value" if v else "nothing"
            return _shown(redact(v or "", secrets))

        before = info.get("value")
        await t.handle.fill(text, timeout=timeout_ms(tab))
        outcome = Outcome(f"Filled {name} (a password field: the value is not shown)."
                          if masked else f"Filled {name} with {_shown(typed)}"
                          + (f" ({read_as})." if read_as else "."))

        async def verify() -> None:
            now = (await inspect(t.spot, tab.refs.world)).get("value")
            if masked:
                outcome.readback["value"] = None
                outcome.readback["filled"] = bool(now)
            else:
                outcome.readback["value"] = redact(now, secrets) if secrets and now else now
            contenteditable = info.get("editable") == "contenteditable"
            same = _norm(now) == _norm(text) if contenteditable else now == text
            if same:
                return
            if now == before and text != before:
                raise VerificationError(
                    f"Typed {show(text) if masked else _shown(typed)} into {name}, but it still "
                    f"shows {show(now)}: the page rejected or reset the value.",
                    hint="Check the format the field expects and try again.",
                )
            outcome.message = f"Filled {name}; the page changed the value to {show(now)}."

        outcome.verify = verify
        return outcome

    return await perform(tab, "fill", target, act, doing=f"filling {str(target)[:60]}")
