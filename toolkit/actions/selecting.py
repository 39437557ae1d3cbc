"""select: choose options in a native ``<select>`` (by value or visible label, several at once)
or in a custom combobox/listbox made of ``role=option`` elements (by clicking it open and
clicking the option, and saying so). Reads back what is selected."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle

from ..errors import InvalidArgumentError, NotActionableError, VerificationError
from ..models import ActionResult
from ..quoting import quote
from .dom import EVAL_TIMEOUT_S, inspect, run_js
from .perform import Outcome, covered_error, perform, timeout_ms
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["match_options", "select"]

_NATIVE_OPTIONS_JS = """
(el) => Array.from(el.options).map((o, i) => ({index: i, value: o.value,
  label: (o.label || o.textContent || '').trim().replace(/\\s+/g, ' '),
  disabled: o.disabled || (o.parentElement && o.parentElement.disabled) || false,
  selected: o.selected}))
"""

# Options of a custom combobox or listbox: the listbox it controls or owns, else one inside
# it, else the visible role=option elements of the document. Returns labels, or with a
# number, that option element.
_CUSTOM_OPTIONS_JS = """
(el, pick) => {
  const visible = (n) => { const r = n.getBoundingClientRect();
    const s = getComputedStyle(n);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const doc = el.ownerDocument;
  let boxes = [];
  for (const attr of ['aria-controls', 'aria-owns']) {
    for (const id of (el.getAttribute(attr) || '').split(/\\s+/).filter(Boolean)) {
      const b = doc.getElementById(id); if (b) boxes.push(b);
    }
  }
  if ((el.getAttribute('role') || '') === 'listbox') boxes.push(el);
  boxes.push(...el.querySelectorAll('[role=listbox]'));
  let opts = [];
  for (const b of boxes) opts.push(...b.querySelectorAll('[role=option]'));
  opts = opts.filter(visible);
  if (!opts.length) opts = Array.from(doc.querySelectorAll('[role=option]')).filter(visible);
  if (typeof pick === 'number') return opts[pick] || null;
  return opts.map((o, i) => ({index: i,
    value: o.getAttribute('data-value') || o.getAttribute('value') || o.id || '',
    label: (o.getAttribute('aria-label') || o.innerText || o.textContent || '').trim()
             .replace(/\\s+/g, ' '),
    disabled: o.getAttribute('aria-disabled') === 'true',
    selected: o.getAttribute('aria-selected') === 'true'}));
}
"""

_CUSTOM_READBACK_JS = """
(el) => {
  const v = ('value' in el && typeof el.value === 'string') ? el.value : '';
  return (v || el.innerText || el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 200);
}
"""


def _listed(labels: Sequence[str]) -> str:
    """Option labels (the page's) as results name them: each quoted, comma-separated."""
    return ", ".join(quote(label, 80) for label in labels)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def match_options(wanted: Sequence[str], options: Sequence[dict[str, Any]],
                  *, multiple: bool) -> list[int]:
    """Indexes of the options meant by ``wanted`` (each a value or a visible label).

    An exact value wins, then an exact label, then a label equal up to case and spacing.
    A label that fits several options, an unknown entry, a disabled option, or several entries
    for a single-choice select raise :class:`InvalidArgumentError` listing the options.
    """
    if not wanted:
        raise InvalidArgumentError("select needs at least one value or label.")
    if len(wanted) > 1 and not multiple:
        raise InvalidArgumentError(
            f"This select takes one option; got {len(wanted)}: {', '.join(map(repr, wanted))}."
        )
    listing = ", ".join(quote(o["label"], 80) + (f" (value {quote(o['value'], 80)})"
                                                  if o["value"] != o["label"] else "")
                        for o in options[:30])
    picked: list[int] = []
    for w in wanted:
        if not isinstance(w, str):
            raise InvalidArgumentError(f"Option values must be strings, got {w!r}.")
        hits = [o for o in options if o["value"] == w]
        if not hits:
            hits = [o for o in options if o["label"] == w.strip()]
        if not hits:
            hits = [o for o in options if _fold(o["label"]) == _fold(w)]
        if not hits:
            raise InvalidArgumentError(
                f"No option matches {w!r}. Options: {listing}.",
                hint="Use an option's value or its visible text.",
            )
        if len(hits) > 1:
            many = "; ".join(f"#{o['index']} {quote(o['label'], 80)} "
                             f"(value {quote(o['value'], 80)})" for o in hits)
            raise InvalidArgumentError(
                f"{w!r} matches {len(hits)} options: {many}.",
                hint="Use the value of the one you mean.",
            )
        if hits[0].get("disabled"):
            raise InvalidArgumentError(f"The option {quote(hits[0]['label'], 80)} is disabled.")
        if hits[0]["index"] not in picked:
            picked.append(hits[0]["index"])
    return picked


async def _select_native(tab: TabCore, t: Target, wanted: list[str], info: dict[str, Any],
                         name: str) -> Outcome:
    if info.get("disabled"):
        raise NotActionableError(f"Cannot select in {name}: it is disabled.", reason="disabled")
    options = await run_js(t.spot, _NATIVE_OPTIONS_JS, world=tab.refs.world)
    picked = match_options(wanted, options, multiple=bool(info.get("multiple")))
    await t.handle.select_option(index=picked, timeout=timeout_ms(tab))
    labels = [options[i]["label"] for i in picked]
    outcome = Outcome(f"Selected {_listed(labels)} in {name}.")

    async def verify() -> None:
        now = await run_js(t.spot, _NATIVE_OPTIONS_JS, world=tab.refs.world)
        chosen = [o for o in now if o["selected"]]
        outcome.readback["selected"] = [o["label"] for o in chosen]
        outcome.readback["values"] = [o["value"] for o in chosen]
        if sorted(o["index"] for o in chosen) != sorted(picked):
            raise VerificationError(
                f"Selected {_listed(labels)} in {name}, but the page now shows "
                f"{_listed([o['label'] for o in chosen]) or 'nothing'} selected.",
                hint="The page reset the choice; take a new snapshot to see why.",
            )

    outcome.verify = verify
    return outcome


async def _custom_options(tab: TabCore, t: Target) -> list[dict[str, Any]]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms(tab) / 1000
    while True:
        options = await run_js(t.spot, _CUSTOM_OPTIONS_JS, None, world=tab.refs.world)
        if options or loop.time() >= deadline:
            return list(options or [])
        await asyncio.sleep(0.05)


async def _select_custom(tab: TabCore, t: Target, wanted: list[str], info: dict[str, Any],
                         name: str) -> Outcome:
    if info.get("disabled") or info.get("ariaDisabled"):
        raise NotActionableError(f"Cannot select in {name}: it is disabled.", reason="disabled")
    steps: list[str] = []
    chosen: list[str] = []
    for w in wanted:
        options = await run_js(t.spot, _CUSTOM_OPTIONS_JS, None, world=tab.refs.world)
        if not options and info.get("role") != "listbox":
            covered = await covered_error(tab, t, f"open {name}")
            if covered is not None:
                raise covered
            await t.handle.click(timeout=timeout_ms(tab))
            steps.append("clicked it open")
            options = await _custom_options(tab, t)
        if not options:
            raise NotActionableError(
                f"Clicked {name} but no options (role=option) appeared.",
                hint="Take a new snapshot: the options may be elsewhere on the page.",
                reason="not_select",
            )
        index = match_options([w], options, multiple=False)[0]
        try:
            option = await tab.refs.world.element(t.handle, _CUSTOM_OPTIONS_JS, index,
                                                  EVAL_TIMEOUT_S)
        except TimeoutError:
            option = None
        if not isinstance(option, ElementHandle):
            raise VerificationError(f"The option {w!r} disappeared before it could be clicked.")
        await option.click(timeout=timeout_ms(tab))
        steps.append(f"clicked option {quote(options[index]['label'], 80)}")
        chosen.append(options[index]["label"])
    kind = "listbox" if info.get("role") == "listbox" else "custom combobox"
    outcome = Outcome(
        f"Selected {_listed(chosen)} in {kind} {name} "
        f"by clicks ({'; '.join(steps)}), as it is not a native select."
    )
    outcome.readback["method"] = "clicks"

    async def verify() -> None:
        try:
            shown = await run_js(t.spot, _CUSTOM_READBACK_JS, world=tab.refs.world)
        except Exception:  # the widget may re-render itself
            shown = None
        outcome.readback["shown"] = shown
        outcome.readback["selected"] = chosen

    outcome.verify = verify
    return outcome


async def select(tab: TabCore, target: str, values: str | Sequence[str]) -> ActionResult:
    """Select the options ``values`` (values or visible labels) in the target."""
    wanted = [values] if isinstance(values, str) else list(values)
    if not wanted or len(wanted) > 100:
        raise InvalidArgumentError("select needs 1 to 100 values or labels.")

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        name = f"{t.ref} ({t.label})" if t.label else t.ref
        info = await inspect(t.spot, tab.refs.world)
        if info.get("tag") == "select":
            return await _select_native(tab, t, wanted, info, name)
        if info.get("role") in ("combobox", "listbox") or (info.get("tag") == "input" and \
                info.get("role") == "combobox"):
            return await _select_custom(tab, t, wanted, info, name)
        raise NotActionableError(
            f"Cannot select options in {name}: it is not a select, combobox or listbox "
            f"(<{info.get('tag')}>).",
            hint="Use web_click to open it, or web_fill for a text field.",
            reason="not_select",
        )

    return await perform(tab, "select", target, act, doing=f"selecting in {str(target)[:60]}",
                         chosen=wanted)
