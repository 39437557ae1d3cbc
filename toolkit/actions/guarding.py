"""The safety policy on the one action path: classify an action before it runs
(:func:`webrefs.safety.classify`), ask for consent on ``confirm``, refuse on ``block``; and
after it ran, say what became of the requests it caused (held and judged by what they do in
:mod:`webrefs.session.effects`): a refused one is a :class:`ConsentError`.

The target's name is judged together with the text the element shows, when the two differ (a
button shown as "Pay" and named "View receipt" is judged as both). A navigation is judged by
where it goes as a request too (``request`` rules), so ``web_navigate`` to a ``.../delete``
address asks before it leaves, like a click on a link there. What the rules read of the page
and the target (its text, what it shows, its form: where it submits, the submitting control's
text, the choices changed in it) is read before the action, alongside finding the target
(:func:`start_reads`); the form is handed to the requests' judge, which cannot read the page
while a submission is pending.

Under ``gate="tools"`` (the default) only the model's tool calls are stopped; the host
program's own calls are classified and recorded (``gated=False``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from ..errors import ConsentError, StaleRefError, WebrefsError
from ..models import HeldRequest, SafetyDecision
from ..safety.consent import ConsentRequest, ask, is_gated
from ..safety.effects import Effect, FormContext, classify_effect
from ..safety.sensitive import LEVELS, TARGET_ACTIONS, classify
from ..session.effects import PAGE_TEXT_CHARS, READ_TIMEOUT_S, read_page_text
from ..snapshot.refs import finder, parse_ref, split_ref
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["CLASSIFIED_ACTIONS", "Judged", "PreRead", "action_words", "effect_refusal",
           "judge_action", "start_reads"]

CLASSIFIED_ACTIONS = ("click", "check", "select", "press_key", "fill", "type", "upload",
                      "goto",
                      "evaluate")
"""Actions the policy classifies (reading, scrolling, hovering and waiting are not)."""
_TOOL = {"goto": "web_navigate", "evaluate": "a script"}

# Read before the action, in webrefs' own world (DOM getters from the prototypes, so a field
# named "action" or "elements" cannot shadow them): the text the element shows (fields show
# what was typed, which is not their text), a select's options, and the element's form: where
# it submits to, the text of the control that submits it (the element itself when it is a
# submit button of the form, else the default button, which Enter in a field uses), and the
# choices that differ from the form's defaults. ``root`` is the element, or null for the
# focused one (a key pressed with no target); with ``n`` > 0, the first ``n`` characters of the
# visible text of the document it runs in, too (one round trip for both).
_TARGET_JS = """(root, n) => {
  const out = {text: null, shown: '', options: [], form: null};
  if (n > 0) { const b = document.body; out.text = b ? String(b.innerText || '').slice(0, n) : ''; }
  const el = root || document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return out;
  const clean = (t) => String(t == null ? '' : t).replace(/\\s+/g, ' ').trim().slice(0, 120);
  const attr = Element.prototype.getAttribute, has = Element.prototype.hasAttribute;
  const typeOf = (e) => String(e.type || '').toLowerCase();
  const shownOf = (e) => {
    if (e.tagName === 'INPUT') return ['submit', 'button', 'reset', 'image'].includes(typeOf(e))
      ? clean(e.value || attr.call(e, 'alt')) : '';
    return ['TEXTAREA', 'SELECT'].includes(e.tagName) ? '' : clean(e.innerText || e.textContent);
  };
  const textOf = (e) => {
    if (!e) return '';
    const shown = shownOf(e), label = clean(attr.call(e, 'aria-label') || attr.call(e, 'title'));
    return label && label !== shown ? (shown ? shown + ' | ' + label : label) : shown;
  };
  const labelOf = (e) => {
    const l = e.labels && e.labels.length ? e.labels[0] : null;
    return clean(l ? (l.innerText || l.textContent) : (attr.call(e, 'aria-label') || e.value));
  };
  const isSubmit = (e) => !!e && ((e.tagName === 'BUTTON' &&
      String(attr.call(e, 'type') || 'submit').toLowerCase() === 'submit') ||
    (e.tagName === 'INPUT' && ['submit', 'image'].includes(typeOf(e))));
  out.shown = shownOf(el);
  out.options = el.tagName === 'SELECT' ? Array.from(el.options).slice(0, 200)
    .map((o) => [String(o.value), clean(o.label || o.textContent)]) : [];
  const form = el.form instanceof HTMLFormElement ? el.form
    : (el.closest ? el.closest('form') : null);
  if (!form) return out;
  const fields = Array.from(
    Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements').get.call(form));
  const subs = fields.filter(isSubmit);
  const by = isSubmit(el) && subs.includes(el) ? el : (subs[0] || null);
  let action = by && has.call(by, 'formaction') ? attr.call(by, 'formaction')
    : attr.call(form, 'action');
  try { action = new URL(action || document.URL, document.baseURI).href; } catch (e) {
    action = ''; }
  const method = String((by && has.call(by, 'formmethod') ? attr.call(by, 'formmethod')
                         : attr.call(form, 'method')) || 'get').toLowerCase();
  const choices = [];
  for (const e of fields) {
    if (e.tagName === 'SELECT') {
      const opts = Array.from(e.options);
      if (e.multiple) {
        for (const o of opts) {
          if (o.selected && !o.defaultSelected) choices.push(clean(o.label || o.textContent));
        }
      } else {
        let d = 0;
        opts.forEach((o, i) => { if (o.defaultSelected) d = i; });
        const o = opts[e.selectedIndex];
        if (o && e.selectedIndex !== d) choices.push(clean(o.label || o.textContent));
      }
    } else if (e.tagName === 'INPUT' && ['checkbox', 'radio'].includes(typeOf(e))) {
      if (e.checked && !e.defaultChecked) choices.push(labelOf(e));
    }
  }
  out.form = {action: action, method: method === 'post' ? 'POST' : 'GET',
              submitter: textOf(by), choices: choices.filter(Boolean).slice(0, 20)};
  return out;
}"""


@dataclass(frozen=True)
class Judged:
    """What the policy made of an action before it ran."""

    decision: SafetyDecision | None
    """``None`` when the policy classifies nothing of this action."""
    name: str
    """The target's role and name, and the text it shows when that differs."""
    form: FormContext | None = None
    """The form the action's element (or, for a key with no target, the focused element)
    belongs to, with the choices the action makes: matched to the form's submission."""


@dataclass
class PreRead:
    """The reads the rules need, started before the target is found (so they run alongside
    finding it): the page's text and, where the target can be found without a handle (a ref
    of a known frame, or the focused element for a key with no target), what it shows and its
    form. A read not started here is made after the target is found."""

    page_text: asyncio.Future[str] | None = None
    target: asyncio.Future[dict[str, Any] | None] | None = None

    def cancel(self) -> None:
        for read in (self.page_text, self.target):
            if read is not None:
                read.cancel()


def start_reads(tab: TabCore, action: str, target: object | None) -> PreRead:
    """Start the reads :func:`judge_action` will need for ``action`` on ``target`` (``action``
    as judged: see ``judged_as`` there)."""
    policy = tab.browser.safety
    if not policy.classifies or action not in TARGET_ACTIONS:
        return PreRead()
    n = PAGE_TEXT_CHARS if any(r.on == "text" for r in policy.rules) else 0
    wants_target = any(r.on == "target" for r in policy.rules)
    world = tab.refs.world
    where: tuple[Frame, tuple[str, Any] | None] | None = (
        _frame_of_ref(tab, target) if wants_target and world.isolated else None)
    if wants_target and target is None:
        where = (tab.page.main_frame, None)
    if where is None:
        return PreRead(page_text=asyncio.ensure_future(read_page_text(world, tab.page))
                       if n else None)
    frame, find = where
    main = frame == tab.page.main_frame
    both = asyncio.ensure_future(_read_at(tab, frame, find, n if main else 0))
    text: asyncio.Future[str] | None = None
    if n:
        text = (asyncio.ensure_future(_text_of(both)) if main
                else asyncio.ensure_future(read_page_text(world, tab.page)))
    return PreRead(page_text=text, target=both)


def _frame_of_ref(tab: TabCore, target: object | None) -> tuple[Frame, tuple[str, Any]] | None:
    """The frame of a ref target and how webrefs' world finds its element (no round trip)."""
    if not isinstance(target, str):
        return None
    try:
        ref = parse_ref(target)
        if ref is None or not tab.refs.was_issued(ref):
            return None
        prefix, _ = split_ref(ref)
    except WebrefsError:
        return None
    frame = tab.page.main_frame if prefix == "" else tab.refs.frame_for(prefix)
    return (frame, finder(tab.refs, ref)) if frame is not None else None


async def _read_at(tab: TabCore, frame: Frame, find: tuple[str, Any] | None,
                   n: int) -> dict[str, Any] | None:
    """:data:`_TARGET_JS` on the element ``find`` locates in ``frame`` (``None``: the focused
    one), with ``n`` characters of the page's text."""
    arg: Any = n
    source = _TARGET_JS
    if find is not None:
        source = (f"(root, a) => ({_TARGET_JS})(({find[0]})(null, a[0]), a[1])")
        arg = [find[1], n]
    try:
        got = await tab.refs.world.value(frame, source, arg, READ_TIMEOUT_S)
    except (TimeoutError, PlaywrightError, ValueError):
        return None
    return got if isinstance(got, dict) else None


async def _text_of(read: asyncio.Future[dict[str, Any] | None]) -> str:
    got = await read
    text = got.get("text") if got else None
    return text if isinstance(text, str) else ""


async def _read_target(tab: TabCore, resolved: Target | None) -> dict[str, Any] | None:
    """The target's shown text, options and form (:data:`_TARGET_JS`), or the focused
    element's when there is no target, read now; ``None`` when it cannot be read in time."""
    where: Any = resolved.spot if resolved is not None else tab.page.main_frame
    try:
        got = await tab.refs.world.value(where, _TARGET_JS, 0, READ_TIMEOUT_S)
    except (TimeoutError, PlaywrightError, ValueError, StaleRefError):
        return None
    return got if isinstance(got, dict) else None


def _form_of(read: dict[str, Any] | None, chosen: Sequence[str]) -> FormContext | None:
    """The form context of a target read, with the labels of the options ``chosen``."""
    form = read.get("form") if read else None
    if not isinstance(form, dict) or not isinstance(form.get("action"), str):
        return None
    choices = [c for c in form.get("choices") or [] if isinstance(c, str)]
    options = {}
    for pair in (read or {}).get("options") or []:
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
            options[pair[0]] = pair[1]
    labels = {label.casefold(): label for label in options.values()}
    for want in chosen:
        label = options.get(want) or labels.get(want.strip().casefold()) or want
        if label and label not in choices:
            choices.append(label[:120])
    return FormContext(action=form["action"], method=str(form.get("method") or "GET"),
                       submitter=str(form.get("submitter") or ""), choices=tuple(choices))


def _with_shown(label: str, shown: str) -> str:
    """``button "View receipt"`` and what it shows, when that is not part of its name."""
    fold = " ".join(shown.split()).casefold()
    if not fold or fold in " ".join(label.split()).casefold():
        return label
    return f'{label} (shows "{shown[:60]}")' if label else f'shows "{shown[:60]}"'


def action_words(action: str, target: object | None, name: str) -> str:
    """``web_click on e5 (button "Pay")``: the action as the model called it."""
    tool = _TOOL.get(action, f"web_{action}")
    what = f"{tool} on {target}" if target is not None else tool
    return f"{what} ({name})" if name else what


async def judge_action(tab: TabCore, action: str, target: object | None,
                       resolved: Target | None, *, url: str | None = None,
                       early: PreRead | None = None, chosen: Sequence[str] = (),
                       judged_as: str | None = None) -> Judged:
    """The policy's decision on ``action``, the target's name as judged, and its form.
    Raises :class:`ConsentError` (carrying the decision) when the action may not run.
    ``early``: the reads :func:`start_reads` started; ``chosen``: what the action chooses (a
    select's values or labels); ``judged_as``: the action the rules judge it as, when that is
    not its own name (typing that ends with Enter is judged as the key press that submits),
    while messages still name the tool the model called."""
    policy = tab.browser.safety
    name = resolved.label if resolved is not None and resolved.label else ""
    as_action = judged_as or action
    if not policy.classifies or as_action not in CLASSIFIED_ACTIONS:
        return Judged(None, name)
    where = url if url is not None else tab.page.url
    text = ""
    judged_name = name
    form = None
    if as_action in TARGET_ACTIONS:
        early = early or PreRead()
        text_read = early.page_text
        if text_read is None and any(r.on == "text" for r in policy.rules):
            text_read = asyncio.ensure_future(read_page_text(tab.refs.world, tab.page))
        read = None
        if early.target is not None:
            read = await early.target
        elif any(r.on == "target" for r in policy.rules):
            read = await _read_target(tab, resolved)
        text = await text_read if text_read is not None else ""
        if resolved is not None and read is not None:
            judged_name = _with_shown(name, str(read.get("shown") or ""))
        form = _form_of(read, chosen)
    decision = classify(policy.rules, action=as_action, url=where, page_text=text,
                        target_name=judged_name)
    if action == "goto" and url:
        # where the navigation goes, judged as the request it is (a GET to .../delete)
        goes = classify_effect(policy.rules, Effect("GET", url, "navigate"))
        if LEVELS.index(goes.level) > LEVELS.index(decision.level):
            decision = decision.model_copy(update={
                "level": goes.level,
                "reasons": [*decision.reasons,
                            *(r for r in goes.reasons if r not in decision.reasons)]})
    gated = is_gated(policy)
    decision = decision.model_copy(update={"gated": gated})
    if not gated or decision.level in ("auto", "notify"):
        return Judged(decision, judged_name, form)
    what = action_words(action, target, judged_name)
    why = "; ".join(decision.reasons) or "the safety policy"
    request = ConsentRequest(action=action, target=str(target) if target is not None else None,
                             target_name=judged_name, url=where, level=decision.level,
                             reasons=tuple(decision.reasons))
    refused = decision.model_copy(update={"outcome": "refused"})
    if decision.level == "block":
        raise ConsentError(
            f"{what} was not done: the safety policy blocks it ({why}).",
            hint="Do not look for another way to do it; tell the user it is blocked.",
            host_hint="Change SafetyPolicy.rules to allow it.",
            request=request, decision=refused)
    answer = await ask(policy, request)
    if answer is None:
        raise ConsentError(
            f"{what} was not done: it needs the user's confirmation ({why}), and no one can "
            "confirm it here.",
            hint="Tell the user what you were about to do and let them confirm or do it "
            "themselves; do not look for another way to do it.",
            host_hint="Pass SafetyPolicy(consent=callback) to let a person confirm such "
            "actions.",
            request=request, decision=refused)
    who = policy.consent_by
    if not answer:
        raise ConsentError(
            f"{who[:1].upper()}{who[1:]} refused {what} ({why}); it was not done.",
            hint="Do not try it again; continue without it or ask the user what to do.",
            request=request, refused=True,
            decision=refused.model_copy(update={"decided_by": who}))
    return Judged(decision.model_copy(update={"outcome": "approved", "decided_by": who}),
                  judged_name, form)


def effect_refusal(what: str, refused: list[HeldRequest], decision: SafetyDecision,
                   request: ConsentRequest | None = None) -> ConsentError:
    """The error for an action that ran while requests it caused were refused (never sent):
    ``what`` from :func:`action_words`, ``decision`` with those requests in ``effects``;
    ``request``: the question the callback left undecided, if it was asked."""
    first = refused[0]
    sent = first.describe()
    if len(refused) > 1:
        sent += f" and {len(refused) - 1} more"
    why = "; ".join(first.reasons) or "the safety policy"
    if first.level == "block":
        return ConsentError(
            f"{what} ran, but the request it caused, {sent}, is blocked by the safety "
            f"policy ({why}), so it was not sent.",
            hint="Do not look for another way to do it; tell the user it is blocked.",
            host_hint="Change SafetyPolicy.rules to allow it.", decision=decision,
            request=request)
    if first.asked:
        return ConsentError(
            f"{what} ran, but {first.decided_by or 'the user'} refused the request it caused, "
            f"{sent} ({why}), so it was not sent.",
            hint="Do not try it again; continue without it or ask the user what to do.",
            refused=True, decision=decision, request=request)
    return ConsentError(
        f"{what} ran, but the request it caused, {sent}, needs the user's confirmation "
        f"({why}), and no one can confirm it here, so it was not sent.",
        hint="Tell the user what the page was about to send and let them confirm or do it "
        "themselves; do not look for another way to do it.",
        host_hint="Pass SafetyPolicy(consent=callback) to let a person confirm such requests.",
        decision=decision, request=request)
