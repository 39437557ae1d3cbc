"""fill: replace the text of an input, textarea or contenteditable with trusted typing input
(frameworks such as React see it), then read the value back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import NotActionableError, VerificationError
from ..models import ActionResult
from ..safety.secrets import PLACEHOLDER, redact, secrets_for, substitute
from .dates import DATE_TYPES, to_field_value
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
    typed = check_value(value, tab.options.max_value_chars)
    policy = tab.browser.safety

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        name = f"{t.ref} ({t.label})" if t.label else t.ref
        # <secret>name</secret> is replaced here, on the page's host, and nowhere else
        text, used = (substitute(typed, policy, tab.page.url)
                      if policy.enabled and PLACEHOLDER.search(typed) else (typed, []))
        info = await inspect(t.spot, tab.refs.world)
        refuse_unless_editable(info, name)
        read_as = ""
        if info.get("tag") == "input" and info.get("type") in DATE_TYPES:
            # date and time fields take ISO values only: read what the model wrote
            as_iso = to_field_value(text, str(info["type"]))
            parts = [f"as {as_iso.value}"] if as_iso.value != text else []
            text, read_as = as_iso.value, "; ".join([*parts, *filter(None, [as_iso.note])])
        masked = bool(info.get("masked")) and policy.enabled
        known = secrets_for(policy, tab.page.url) if used else {}
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
