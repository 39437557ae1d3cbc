"""Reading an element before and after an action: what kind of control it is, its state, and
whether something covers it. Each read is one small script run on the element handle, bounded
by a timeout so a stuck page cannot hang it. Targets are passed as handles, never as text
spliced into a script."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from ..errors import ActionTimeoutError, StaleRefError

__all__ = ["EVAL_TIMEOUT_S", "hit_test", "inspect", "run_js"]

EVAL_TIMEOUT_S = 3.0
"""Longest wait for one of these reads."""

INSPECT_JS = """
(el) => {
  if (!el || !el.isConnected) return {connected: false};
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || '').toLowerCase();
  const role = (el.getAttribute('role') || '').toLowerCase();
  let disabled = false;
  try { disabled = el.matches(':disabled'); } catch (e) {}
  const ariaDisabled = el.getAttribute('aria-disabled') === 'true';
  const textInput = tag === 'textarea' || (tag === 'input' &&
    !['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image', 'hidden', 'range',
      'color'].includes(type));
  let editable = null;
  if (textInput) editable = tag;
  else if (el.isContentEditable) editable = 'contenteditable';
  const readonly = (textInput && el.readOnly) || el.getAttribute('aria-readonly') === 'true';
  const rect = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  const visible = rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' &&
    style.display !== 'none';
  let value = null;
  if (textInput || tag === 'select') value = el.value;
  else if (editable) value = el.innerText;
  return {connected: true, tag, type, role, disabled, ariaDisabled, editable, readonly,
          visible, value, multiple: tag === 'select' ? el.multiple : false,
          name: (el.getAttribute('aria-label') || el.getAttribute('name') || el.id || '')
                .slice(0, 80)};
}
"""

# Scroll the element into view, then ask the page what is under its centre. Returns null when
# the element itself (or something inside it) receives the click, else a description of the
# element on top and that element as ``hit`` (for ref lookup by the caller).
HIT_JS = """
(el) => {
  if (!el.isConnected) return {covered: false, detached: true};
  const r0 = el.getBoundingClientRect();
  const vw = window.innerWidth, vh = window.innerHeight;
  if (r0.bottom < 0 || r0.top > vh || r0.right < 0 || r0.left > vw) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  }
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return {covered: false, empty: true};
  const x = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), vh - 1);
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return {covered: false};
  const root = el.getRootNode();
  const inside = (n) => n === el || el.contains(n) ||
    (root !== document && root.host && (n === root.host));
  if (inside(hit)) return {covered: false};
  // a label clicks its control: covering by its own label is fine
  if (hit.closest && hit.closest('label') && hit.closest('label').control === el)
    return {covered: false};
  if (el.tagName === 'LABEL' && el.control && (hit === el.control))
    return {covered: false};
  const name = (hit.getAttribute('aria-label') || hit.innerText || hit.id || '')
               .trim().replace(/\\s+/g, ' ').slice(0, 60);
  return {covered: true, tag: hit.tagName.toLowerCase(), id: hit.id || '',
          role: hit.getAttribute('role') || '', name};
}
"""

HIT_ELEMENT_JS = """
(el) => {
  const r = el.getBoundingClientRect();
  const x = Math.min(Math.max(r.left + r.width / 2, 0), window.innerWidth - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), window.innerHeight - 1);
  return document.elementFromPoint(x, y);
}
"""


async def run_js(handle: ElementHandle, script: str, arg: Any = None,
                 timeout_s: float = EVAL_TIMEOUT_S) -> Any:
    """Evaluate ``script`` on ``handle`` with a timeout; a detached element is a stale ref."""
    try:
        coro = handle.evaluate(script) if arg is None else handle.evaluate(script, arg)
        return await asyncio.wait_for(coro, timeout=timeout_s)
    except TimeoutError:
        raise ActionTimeoutError(
            f"The page did not answer within {int(timeout_s * 1000)} ms "
            "(its main thread may be busy).",
            hint="Wait a moment, or reload the page.",
        ) from None
    except PlaywrightError as exc:
        text = str(exc)
        lowered = text.lower()
        if any(m in lowered for m in ("not attached", "detached", "cannot find context",
                                      "context was destroyed")):
            raise StaleRefError(
                "The element was removed from the page before the action.",
                hint="Take a new snapshot and use a current ref.",
            ) from None
        raise


async def inspect(handle: ElementHandle) -> dict[str, Any]:
    """Kind and state of the element (tag, type, role, disabled, editable, readonly, value)."""
    info = await run_js(handle, INSPECT_JS)
    if not isinstance(info, dict) or not info.get("connected"):
        raise StaleRefError(
            "The element is no longer on the page.",
            hint="Take a new snapshot and use a current ref.",
        )
    return info


async def hit_test(handle: ElementHandle, *, patience_s: float = 0.6) -> dict[str, Any] | None:
    """``None`` when a click at the element's centre reaches it; else what covers it (after
    retrying for ``patience_s``, so an overlay that is fading out is waited for), with the
    covering element as ``handle`` under the key ``"hit"``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience_s
    while True:
        info = await run_js(handle, HIT_JS)
        if not isinstance(info, dict) or not info.get("covered"):
            return None
        if loop.time() >= deadline:
            break
        await asyncio.sleep(0.1)
    try:
        hit = await asyncio.wait_for(handle.evaluate_handle(HIT_ELEMENT_JS), EVAL_TIMEOUT_S)
        element = hit.as_element()
        if element is not None:
            info["hit"] = element
    except (TimeoutError, PlaywrightError):
        pass
    return info
