"""Reading an element before and after an action: what kind of control it is, its state,
whether something covers it, and where a click landed (a watcher armed by the read before the
click: a one-shot click listener and a mutation observer in webrefs' world, which change
nothing for the page). Each read is one small script run on the element handle, bounded by a
timeout so a stuck page cannot hang it. Targets are passed as handles, never as text spliced
into a script."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from ..errors import ActionError, ActionTimeoutError, StaleRefError, WebrefsError
from ..snapshot.world import Spot, World

__all__ = ["CENTRE_SHOWN_JS", "EVAL_TIMEOUT_S", "click_landed", "hit_test", "inspect",
           "inspect_for_pointer", "run_js"]

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
  const masked = type === 'password' || /password/i.test(el.getAttribute('autocomplete') || '') ||
    (style.webkitTextSecurity || 'none') !== 'none';
  return {connected: true, tag, type, role, disabled, ariaDisabled, editable, readonly, masked,
          visible, value, multiple: tag === 'select' ? el.multiple : false,
          name: (el.getAttribute('aria-label') || el.getAttribute('name') || el.id || '')
                .slice(0, 80)};
}
"""

# Whether the element's centre can be seen: inside the window and inside every ancestor that
# clips its content (scrolling boxes, overflow:hidden), across shadow roots.
CENTRE_SHOWN_JS = """
(el) => {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
  let n = el.parentElement || (el.getRootNode() && el.getRootNode().host) || null;
  while (n && n !== document.documentElement && n !== document.body) {
    const s = getComputedStyle(n);
    if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
      const b = n.getBoundingClientRect();
      if (x < b.left || x >= b.right || y < b.top || y >= b.bottom) return false;
    }
    n = n.parentElement || (n.getRootNode() && n.getRootNode().host) || null;
  }
  return true;
}
"""

# Scroll the element into view (within its scrolling boxes too), then ask the page what is
# under its centre. Returns null when
# the element itself (or something inside it) receives the click, else a description of the
# element on top and that element as ``hit`` (for ref lookup by the caller).
HIT_JS = """
(el) => {
  if (!el.isConnected) return {covered: false, detached: true};
  const vw = window.innerWidth, vh = window.innerHeight;
  if (!(""" + CENTRE_SHOWN_JS.strip() + """)(el)) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  }
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return {covered: false, empty: true};
  const root = el.getRootNode();
  const inside = (n) => n === el || el.contains(n) ||
    (root !== document && root.host && (n === root.host));
  const under = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  // The points a click may land on: the centre of each of the element's boxes (a link that
  // wraps onto two lines has two, and the centre of their bounding box may fall beside both),
  // then the centre of the whole box. Playwright's click aims at the first box.
  const points = [];
  for (const b of el.getClientRects()) {
    if (b.width > 0 && b.height > 0) points.push([b.left + b.width / 2, b.top + b.height / 2]);
    if (points.length >= 4) break;
  }
  points.push([r.left + r.width / 2, r.top + r.height / 2]);
  let first = null, beside = false;
  for (const [px, py] of points) {
    const x = Math.min(Math.max(px, 0), vw - 1), y = Math.min(Math.max(py, 0), vh - 1);
    const hit = under(x, y);
    if (!hit || inside(hit)) return {covered: false};
    // a label clicks its control: covering by its own label is fine
    if (hit.closest && hit.closest('label') && hit.closest('label').control === el)
      return {covered: false};
    if (el.tagName === 'LABEL' && el.control && (hit === el.control)) return {covered: false};
    // an ancestor found at a point is a point beside the element's boxes, not a cover
    if (!first && !hit.contains(el)) first = hit;
    if (hit.contains(el)) beside = true;
  }
  if (!first) {
    // every centre reached only what holds the element (the hole of a glyph, the gap in a
    // ring): a point of its box that reaches it (in the frame's viewport)
    if (beside) {
      for (let i = 1; i < 8; i++) for (let j = 1; j < 8; j++) {
        const x = r.left + r.width * j / 8, y = r.top + r.height * i / 8;
        if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
        const hit = under(x, y);
        if (hit && inside(hit)) return {covered: false, at: [x, y]};
      }
    }
    return {covered: false};
  }
  const name = (first.getAttribute('aria-label') || first.innerText || first.id || '')
               .trim().replace(/\\s+/g, ' ').slice(0, 60);
  return {covered: true, tag: first.tagName.toLowerCase(), id: first.id || '',
          role: first.getAttribute('role') || '', name};
}
"""

HIT_ELEMENT_JS = """
(el) => {
  const boxes = Array.from(el.getClientRects()).filter((b) => b.width > 0 && b.height > 0);
  const r = boxes.length ? boxes[0] : el.getBoundingClientRect();
  const x = Math.min(Math.max(r.left + r.width / 2, 0), window.innerWidth - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), window.innerHeight - 1);
  return document.elementFromPoint(x, y);
}
"""

# Both reads a pointer action needs, in one round trip: the state, then (for an element that
# is connected, visible and, when ``refuseDisabled``, enabled) the hit test under ``hit``.
# A click watcher, armed by the pointer read when ``a.watch`` is set: the next trusted click
# event in the element's window is noted in webrefs' world under ``a.watch`` as "on" (it
# reached the element, or acted through a control or label holding it), "around" (it reached
# a plain element holding it: the element moved or shrank under the pointer, as an icon does
# whose hover image is still loading) or "elsewhere"; a mutation observer notes whether the
# document changed meanwhile. Listening changes nothing for the page; shadow roots are
# crossed through their hosts.
_WATCH_JS = """
(el, key) => {
  const w = el.ownerDocument.defaultView;
  const old = w[key];
  if (old && old.changes) {  // a watch armed again replaces the last one
    old.changes.disconnect();
    w.removeEventListener('click', old.listen, { capture: true });
  }
  const note = { landed: null, changes: new w.MutationObserver(() => {}), listen: null };
  note.changes.observe(el.ownerDocument, { subtree: true, childList: true, attributes: true,
                                           characterData: true });
  w[key] = note;
  const ACTS = 'a[href],area[href],button,input,select,textarea,label,summary,' +
               '[role=button],[role=link],[role=checkbox],[role=menuitem],[role=tab],[role=option]';
  const up = (n) => n.parentNode || n.host || null;
  note.listen = (e) => {
    if (!e.isTrusted || w[key] !== note) return;
    const path = e.composedPath();
    if (path.includes(el)) { note.landed = 'on'; return; }
    // the innermost target: an element holding el? through a control or label?
    const t = path[0];
    let n = up(el), acts = false;
    while (n && n !== t) {
      if (n.nodeType === 1 && n.matches(ACTS)) acts = true;
      n = up(n);
    }
    if (!n) note.landed = 'elsewhere';
    else note.landed = acts || (t.nodeType === 1 && t.matches(ACTS)) ? 'on' : 'around';
  };
  w.addEventListener('click', note.listen, { capture: true, once: true });
}
"""

POINTER_JS = (
    "(el, a) => { const info = (" + INSPECT_JS.strip() + ")(el);\n"
    "  if (info.connected && info.visible && !(a.refuseDisabled && info.disabled)) {\n"
    "    info.hit = (" + HIT_JS.strip() + ")(el);\n"
    "    if (a.watch) (" + _WATCH_JS.strip() + ")(el, a.watch);\n"
    "  }\n"
    "  return info; }"
)

LANDED_JS = """(el, key) => {
  const w = el ? el.ownerDocument.defaultView : window;
  const note = w[key];
  if (!note) return null;
  const changed = note.changes.takeRecords().length > 0;
  note.changes.disconnect();
  w.removeEventListener('click', note.listen, { capture: true });
  return { landed: note.landed, changed };
}"""
"""Where the click the watcher armed for ``key`` landed (``"on"``, ``"around"``,
``"elsewhere"`` or ``null``: no trusted click seen) and whether the document changed since
the watcher was armed; ends the watch."""


async def run_js(handle: ElementHandle | Spot, script: str, arg: Any = None,
                 timeout_s: float = EVAL_TIMEOUT_S, *, world: World) -> Any:
    """Run ``script`` (``(el, arg) => JSON data``) on ``handle`` (an element handle, or a
    :class:`Spot`: one round trip) in ``world`` (webrefs' own, so the page's replaced
    built-ins cannot garble the answer) with a timeout; a detached element is a stale ref."""
    try:
        return await world.value(handle, script, arg, timeout_s)
    except ValueError:
        raise ActionError("The page's answer could not be read.",
                          hint="Take a new snapshot and try again.") from None
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


async def inspect(handle: ElementHandle | Spot, world: World) -> dict[str, Any]:
    """Kind and state of the element (tag, type, role, disabled, editable, readonly, value)."""
    return _connected(await run_js(handle, INSPECT_JS, world=world))


async def inspect_for_pointer(handle: ElementHandle | Spot, world: World, *,
                              refuse_disabled: bool, watch: str | None = None) -> dict[str, Any]:
    """:func:`inspect` and a first hit test in one read: the state, and under ``"hit"`` the
    hit test's answer (``{"covered": true, ...}`` when something else is on top; absent when
    the element is not visible, or disabled and ``refuse_disabled``). With ``watch`` (a key),
    the next click is watched: :func:`click_landed` tells where it landed."""
    return _connected(await run_js(
        handle, POINTER_JS, {"refuseDisabled": refuse_disabled, "watch": watch}, world=world))


async def click_landed(handle: ElementHandle | Spot, world: World,
                       watch: str) -> tuple[str | None, bool]:
    """Where the click watched under ``watch`` landed (see :func:`inspect_for_pointer`):
    ``"on"`` the element, ``"around"`` it (on a plain element holding it), ``"elsewhere"``,
    or ``None`` when no click was seen or the page could not be asked; and whether the
    document changed meanwhile (``True`` when unknown). Never raises: the answer only
    advises."""
    try:
        note = await run_js(handle, LANDED_JS, watch, world=world)
    except (WebrefsError, PlaywrightError):
        return None, True
    if not isinstance(note, dict):
        return None, True
    landed = note.get("landed")
    return (landed if landed in ("on", "around", "elsewhere") else None,
            note.get("changed") is not False)


def _connected(info: Any) -> dict[str, Any]:
    """A state read's answer, or :class:`StaleRefError` when the element has left the page."""
    if not isinstance(info, dict) or not info.get("connected"):
        raise StaleRefError(
            "The element is no longer on the page.",
            hint="Take a new snapshot and use a current ref.",
        )
    return info


async def hit_test(handle: ElementHandle | Spot, world: World, *,
                   patience_s: float = 0.6) -> dict[str, Any] | None:
    """``None`` when a click at the element's centre reaches it; else what covers it (after
    retrying for ``patience_s``, so an overlay that is fading out is waited for), with the
    covering element as ``handle`` under the key ``"hit"``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience_s
    while True:
        info = await run_js(handle, HIT_JS, world=world)
        if not isinstance(info, dict) or not info.get("covered"):
            return None
        if loop.time() >= deadline:
            break
        await asyncio.sleep(0.1)
    try:
        element = await world.element(handle, HIT_ELEMENT_JS, None, EVAL_TIMEOUT_S)
        if element is not None:
            info["hit"] = element
    except (TimeoutError, PlaywrightError):
        pass
    return info
