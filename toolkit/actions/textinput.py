"""fill: replace the text of an input, textarea or contenteditable with trusted typing input
(frameworks such as React see it), then read the value back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import NotActionableError, VerificationError
from ..models import ActionResult
from .dom import inspect
from .limits import check_value
from .perform import Outcome, perform, timeout_ms
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["fill", "refuse_unless_editable"]


def _shown(text: str, n: int = 60) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def refuse_unless_editable(info: dict[str, Any], name: str) -> None:
    """Raise :class:`NotActionableError` when text cannot be typed into this element."""
    if not info.get("editable"):
        kind = info.get("tag", "element")
        if info.get("type"):
            kind = f"{kind} type={info['type']}"
        hint = "Use select() for a dropdown." if info.get("tag") == "select" else (
            "Use check() for a checkbox or radio." if info.get("type") in ("checkbox", "radio")
            else "Pick a text field from the snapshot.")
        raise NotActionableError(
            f"Cannot type into {name}: it is not a text field (<{kind}>).",
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
    text = check_value(value, tab.options.max_value_chars)

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        name = f"{t.ref} ({t.label})" if t.label else t.ref
        info = await inspect(t.handle)
        refuse_unless_editable(info, name)
        before = info.get("value")
        await t.handle.fill(text, timeout=timeout_ms(tab))
        outcome = Outcome(f"Filled {name} with {_shown(text)}.")

        async def verify() -> None:
            now = (await inspect(t.handle)).get("value")
            outcome.readback["value"] = now
            contenteditable = info.get("editable") == "contenteditable"
            same = _norm(now) == _norm(text) if contenteditable else now == text
            if same:
                return
            if now == before and text != before:
                raise VerificationError(
                    f"Typed {_shown(text)} into {name}, but it still shows {_shown(now or '')}: "
                    "the page rejected or reset the value.",
                    hint="Check the field's format (see its placeholder) and try again.",
                )
            outcome.message = (f"Filled {name}; the page changed the value to "
                               f"{_shown(now or '')}.")

        outcome.verify = verify
        return outcome

    return await perform(tab, "fill", target, act, doing=f"filling {str(target)[:60]}")
