"""check: set a checkbox, radio or switch (native, ARIA, or a hidden native input behind a
styled label) to checked or unchecked with a real click, then read the state back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError, NotActionableError, VerificationError
from ..models import ActionResult
from ..snapshot.world import World
from .dom import EVAL_TIMEOUT_S, run_js
from .perform import Outcome, covered_error, perform, timeout_ms
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["check"]

# Finds the control a target stands for and what to click. ``part`` selects the return value:
# 'state' (a description), 'control' or 'clickable' (an element).
_CONTROL_JS = """
(el, part) => {
  const ROLES = ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'];
  const native = (n) => n && n.tagName === 'INPUT' && ['checkbox', 'radio'].includes(n.type);
  const aria = (n) => n && ROLES.includes((n.getAttribute('role') || '').toLowerCase());
  const visible = (n) => { if (!n || !n.isConnected) return false;
    const r = n.getBoundingClientRect(); const s = getComputedStyle(n);
    return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' && s.display !== 'none' &&
           Number(s.opacity) > 0.01; };
  let control = null;
  if (native(el) || aria(el)) control = el;
  else if (el.tagName === 'LABEL' && native(el.control)) control = el.control;
  else {
    const lab = el.closest('label');
    if (lab && native(lab.control)) control = lab.control;
    else {
      const inner = el.querySelectorAll(
        'input[type=checkbox], input[type=radio], [role=checkbox], [role=radio], [role=switch]');
      if (inner.length === 1) control = inner[0];
    }
  }
  if (part === 'control') return control;
  if (part === 'clickable') {
    if (!control) return null;
    if (visible(el)) return el;
    if (visible(control)) return control;
    for (const l of (control.labels || [])) if (visible(l)) return l;
    return el;
  }
  if (!control) return {found: false, tag: el.tagName.toLowerCase()};
  const isNative = native(control);
  const kind = isNative ? control.type : (control.getAttribute('role') || '').toLowerCase()
    .replace('menuitem', '');
  let checked;
  if (isNative) checked = control.indeterminate ? 'mixed' : control.checked;
  else { const a = control.getAttribute('aria-checked');
         checked = a === 'mixed' ? 'mixed' : a === 'true'; }
  let disabled = false;
  try { disabled = isNative ? control.matches(':disabled') :
                   control.getAttribute('aria-disabled') === 'true'; } catch (e) {}
  return {found: true, native: isNative, kind, checked, disabled,
          hidden: !visible(control), self: control === el};
}
"""


async def _state(t: Target, world: World) -> dict[str, Any]:
    state = await run_js(t.spot, _CONTROL_JS, "state", world=world)
    return dict(state) if isinstance(state, dict) else {"found": False}


async def check(tab: TabCore, target: str, checked: bool = True) -> ActionResult:
    """Make the checkbox, radio or switch checked (or unchecked when ``checked=False``)."""
    if not isinstance(checked, bool):
        raise InvalidArgumentError(f"checked must be true or false, got {checked!r}.")
    want = "checked" if checked else "unchecked"

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        name = f"{t.ref} ({t.label})" if t.label else t.ref
        state = await _state(t, tab.refs.world)
        if not state.get("found"):
            raise NotActionableError(
                f"Cannot check {name}: it is not a checkbox, radio or switch "
                f"(<{state.get('tag', '?')}>).",
                hint="Use web_click for buttons, web_select for select boxes.",
                reason="not_checkable",
            )
        kind = state["kind"]
        if state.get("disabled"):
            raise NotActionableError(f"Cannot change {kind} {name}: it is disabled.",
                                     reason="disabled")
        if state["checked"] is checked:
            return Outcome(f"The {kind} {name} was already {want}; nothing to do.",
                           {"checked": checked, "changed": False})
        if kind == "radio" and not checked:
            raise InvalidArgumentError(
                f"A radio button cannot be unchecked directly ({name}).",
                hint="Check another radio button of the same group instead.",
            )
        clickable = await tab.refs.world.element(t.handle, _CONTROL_JS, "clickable",
                                                 EVAL_TIMEOUT_S)
        if clickable is None:
            clickable = t.handle
        via = Target(t.given, t.ref, t.frame, clickable, t.matched_by, t.label)
        covered = await covered_error(tab, via, f"check {name}")
        if covered is not None:
            raise covered
        await clickable.click(timeout=timeout_ms(tab))
        how = " (hidden input, clicked its label)" if state.get("hidden") else ""
        outcome = Outcome(f"{'Checked' if checked else 'Unchecked'} {kind} {name}{how}.",
                          {"changed": True})

        async def verify() -> None:
            now = await _state(t, tab.refs.world)
            outcome.readback["checked"] = now.get("checked")
            if now.get("checked") is not checked:
                raise VerificationError(
                    f"Clicked {kind} {name} but it is still {'un' if checked else ''}checked.",
                    hint="The page may handle it differently; take a new snapshot.",
                )

        outcome.verify = verify
        return outcome

    return await perform(tab, "check", target, act, doing=f"checking {str(target)[:60]}")
