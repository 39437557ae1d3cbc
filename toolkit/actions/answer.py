"""Reading what the page said in answer to an action: the page side of
:mod:`webrefs.render.answer`.

:func:`arm` runs the probe in webrefs' world of the target's frame (the main frame when there
is no target) right before the action: it reads the live regions, dialogs, toasts, fields
marked invalid, the title and the target's state, and starts watching (a mutation observer,
and a capturing listener for the ``invalid`` events of the browser's own form check; both
change nothing for the page). :func:`answered` reads the same after the page settled and puts
the difference on the result as ``ActionResult.answer``. The document keeps the token of the
action that armed it, so a read from another document (a navigation) is known as one and
read as a new page. Every read is bounded in time and never raises: an answer that cannot be
read is left out, and the action's result is what it would have been.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from ..errors import WebrefsError
from ..models import ActionResult
from ..render.answer import ANSWERED_ACTIONS, Probe, page_answer, parse_probe
from ..snapshot.world import Spot

if TYPE_CHECKING:
    from ..session.tabcore import TabCore
    from .targets import Target

__all__ = ["PROBE_JS", "Armed", "answered", "arm"]

PROBE_TIMEOUT_S = 2.0
"""Longest wait for one read of the probe."""

PROBE_JS = r"""
(root, a) => {
  const doc = document, w = window, CAP = 300;
  const LIVE = '[role~=status],[role~=alert],[role~=log],[aria-live]:not([aria-live=off]),output';
  const DIALOG = '[role~=dialog],[role~=alertdialog],dialog[open]';
  const TOAST = '[class*=toast i],[class*=snackbar i]';
  const REGION = LIVE + ',' + DIALOG + ',' + TOAST;
  let st = w[a.key];
  if (!st) {
    st = { ids: new WeakMap(), next: 1, token: '', target: null, header: null, checks: [],
           said: [], mut: 0, armed: false, obs: null, note: null, heard: new WeakSet() };
    st.note = (records) => {
      for (const r of records) {
        st.mut++;
        // what a region says is its text: a changed attribute inside it says nothing
        if (st.mut > 500 || r.type === 'attributes') continue;
        const n = r.target.nodeType === 1 ? r.target : r.target.parentElement;
        const region = n && n.closest ? n.closest(REGION) : null;
        if (region && st.said.length < 50 && !st.said.includes(region)) st.said.push(region);
      }
    };
    st.obs = new MutationObserver(st.note);
    // the browser's form check fires 'invalid' (which stays in its shadow tree) at each field
    st.hear = (r) => {
      if (st.heard.has(r)) return;
      st.heard.add(r);
      r.addEventListener('invalid', (e) => {
        const t = e.target;
        if (st.armed && t && t.nodeType === 1 && st.checks.length < 10 && !st.checks.includes(t))
          st.checks.push(t);
      }, true);
    };
    try { Object.defineProperty(w, a.key, { value: st }); } catch (e) { w[a.key] = st; }
  }
  const clean = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  const text = (el, cap) => clean(el.innerText || el.textContent).slice(0, cap || CAP);
  const idOf = (el) => {
    let id = st.ids.get(el);
    if (!id) { id = st.next++; st.ids.set(el, id); }
    return id;
  };
  const rendered = (el) => {
    if (el.checkVisibility) return el.checkVisibility({ opacityProperty: true,
                                                        visibilityProperty: true });
    const s = getComputedStyle(el);
    return s.display !== 'none' && s.visibility !== 'hidden' && s.opacity !== '0';
  };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width >= 2 && r.height >= 2 && rendered(el);
  };
  // the document and every open shadow tree in it; ``opaque``: a part of the page whose
  // changes cannot be watched (a frame, a canvas, a video, a custom element that shows
  // something and has no children: maybe a closed shadow tree)
  const roots = [doc];
  let opaque = false;
  for (let i = 0; i < roots.length && roots.length < 100; i++) {
    for (const el of roots[i].querySelectorAll('*')) {
      if (el.shadowRoot) roots.push(el.shadowRoot);
      else if (!opaque && el.localName.includes('-') && !el.firstChild &&
               el.getBoundingClientRect().width > 0) opaque = true;
    }
    if (!opaque && roots[i].querySelector('iframe,frame,object,embed,canvas,video')) opaque = true;
  }
  const all = (selector) => roots.flatMap((r) => Array.from(r.querySelectorAll(selector)));
  const byIds = (ids, el) => ids.split(/\s+/).map((id) => {
    const home = el ? el.getRootNode() : doc;
    const e = id && home.getElementById ? home.getElementById(id) : null;
    return e && rendered(e) ? clean(e.innerText || e.textContent) : '';
  }).filter(Boolean).join(' ');
  const nameOf = (el) => {
    const lb = el.getAttribute('aria-labelledby');
    let n = (lb && byIds(lb, el)) || el.getAttribute('aria-label') || '';
    if (!n && el.labels && el.labels.length)
      n = Array.from(el.labels).map((l) => l.innerText || '').join(' ');
    if (!n) n = el.getAttribute('placeholder') || el.getAttribute('title') || '';
    return clean(n).slice(0, 80);
  };
  const fieldRole = (el) => {
    const r = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (r) return r;
    const t = el.tagName.toLowerCase(), ty = (el.getAttribute('type') || 'text').toLowerCase();
    if (t === 'textarea') return 'textbox';
    if (t === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (t !== 'input') return 'field';
    return { checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
             search: 'searchbox' }[ty] || 'textbox';
  };
  const refOf = (el) => {
    const reg = w[a.registry];
    if (!reg || !(reg.books instanceof Map)) return null;
    for (const book of reg.books.values()) {
      const r = book && book.byEl && book.byEl.get(el);
      if (typeof r === 'string') return r;
    }
    return null;
  };
  const field = (el, msg) => ({ id: idOf(el), role: fieldRole(el), name: nameOf(el),
                                ref: refOf(el), msg: clean(msg).slice(0, CAP) });
  const header = (th) => {
    const table = th.closest('table,[role=table],[role=grid],[role=treegrid]');
    const first = [];
    let top = '';  // the first row's cells, so the item that now comes first is named
    const says = (cells) => Array.from(cells, (c) => text(c, 40)).filter(Boolean).join(' | ');
    if (table && table.tagName === 'TABLE' && th.tagName === 'TH') {
      const body = table.tBodies[0];
      const rows = body ? Array.from(body.rows) : Array.from(table.rows).slice(1);
      for (const row of rows) {
        if (first.length >= 3) break;
        const c = row.cells[th.cellIndex];
        if (c && rendered(row)) { first.push(text(c, 40)); if (!top) top = says(row.cells); }
      }
    } else if (table) {
      const idx = Array.from(table.querySelectorAll('[role=columnheader]')).indexOf(th);
      for (const row of table.querySelectorAll('[role=row]')) {
        if (first.length >= 3) break;
        if (row.contains(th) || !rendered(row)) continue;
        const cells = row.querySelectorAll('[role=cell],[role=gridcell],[role=rowheader]');
        const c = cells[idx];
        if (c) { first.push(text(c, 40)); if (!top) top = says(cells); }
      }
    }
    return { name: nameOf(th) || text(th, 80),
             sort: (th.getAttribute('aria-sort') || '').toLowerCase(), first,
             row: top.slice(0, 160) };
  };
  if (a.mode === 'arm') {
    st.obs.disconnect();
    st.mut = 0; st.said = []; st.checks = []; st.token = a.token; st.armed = true;
    st.target = root && root.nodeType === 1 ? root : null;
    st.header = st.target ? st.target.closest('th,[role=columnheader]') : null;
    for (const r of roots) {
      st.hear(r);
      st.obs.observe(r, { subtree: true, childList: true, attributes: true,
                          characterData: true });
    }
  } else if (st.armed) {
    st.note(st.obs.takeRecords());
    st.obs.disconnect();
    st.armed = false;
  }
  const fresh = st.token !== a.token;
  const regions = [], kept = [];
  const keep = (el, dialog, toast) => {
    // a region inside another one is said by that one (a dialog speaks only for itself); a
    // toast holder around a live region leaves the word to the live region
    if (kept.length >= 40 || !shown(el)) return;
    if (kept.some((k) => !k.dialog && k.el.contains(el))) return;
    if (toast && kept.some((k) => el.contains(k.el))) return;
    kept.push({ el, dialog });
    const live = !dialog && !toast;
    let role = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (dialog) role = role === 'alertdialog' ? role : 'dialog';
    else if (el.tagName === 'OUTPUT' && !role) role = 'status';
    let name = dialog ? nameOf(el) : '';
    if (dialog && !name) {
      const h = el.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
      if (h) name = text(h, 80);
    }
    let said = text(el);
    if (name && said.startsWith(name)) said = said.slice(name.length).trim();
    regions.push({ id: idOf(el), kind: dialog ? 'dialog' : live ? 'live' : 'toast', role, name,
                   text: said, said: !fresh && st.said.some((s) => el.contains(s)) });
  };
  for (const el of all(LIVE + ',' + DIALOG)) keep(el, el.matches(DIALOG), false);
  for (const el of all(TOAST)) {
    if (!el.matches(LIVE + ',' + DIALOG)) keep(el, false, true);
  }
  const invalid = [];
  for (const el of all('[aria-invalid]:not([aria-invalid=false])')) {
    if (invalid.length >= 10) break;
    if (!rendered(el)) continue;
    const em = el.getAttribute('aria-errormessage'), db = el.getAttribute('aria-describedby');
    invalid.push(field(el, (em && byIds(em, el)) || (db && byIds(db, el)) || ''));
  }
  const checks = fresh ? [] : st.checks.filter((el) => el.isConnected)
    .map((el) => field(el, el.validationMessage || ''));
  let target = null;
  const el = st.target;
  if (!fresh && el && el.isConnected) {
    const ctl = el.tagName === 'LABEL' && el.control ? el.control : el;
    const tag = ctl.tagName.toLowerCase(), type = (ctl.getAttribute('type') || '').toLowerCase();
    const isField = ['input', 'select', 'textarea'].includes(tag);
    const focuses = tag === 'select' || tag === 'textarea' || !!ctl.isContentEditable ||
      (tag === 'input' && !['checkbox', 'radio', 'submit', 'button', 'reset', 'image']
        .includes(type));
    target = {
      field: isField ? (ctl.willValidate ? ctl.validationMessage || '' : '') : null,
      state: isField ? (ctl.checked ? '1:' : '0:') + String(ctl.value).slice(0, 100) : '',
      focuses,
      header: st.header && st.header.isConnected ? header(st.header) : null,
    };
  }
  const notices = [];
  if (fresh && a.mode !== 'arm' && doc.body) {
    const CLASS = new RegExp('(^|[-_\\s])(error|errors|alert|warning|warn|danger|invalid|' +
      'notice|flash|message|msg|success|status|feedback)([-_\\s]|$)', 'i');
    const WORDS = new RegExp('^error\\b|\\b(wrong|invalid|incorrect|failed|denied|' +
      'not (saved|found|allowed|valid|sent)|attempts? (left|remaining)|try again|expired|' +
      'successfully|saved|thank you|confirmed)\\b', 'i');
    const SKIP = 'nav,footer,[role=navigation],[role=contentinfo],a,button,label,select,' +
                 'option,textarea,script,style,template';
    const scope = doc.querySelector('main,[role=main]') || doc.body;
    const marked = (n) => {
      for (let i = 0; n && n !== scope && i < 3; i++, n = n.parentElement) {
        if (CLASS.test(String(n.className && n.className.baseVal !== undefined
                                ? n.className.baseVal : n.className || '')) || CLASS.test(n.id))
          return true;
      }
      return false;
    };
    const walker = doc.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
    let blocks = 0, steps = 0;
    for (let n = walker.nextNode(); n && blocks < 12 && steps < 400; n = walker.nextNode()) {
      steps++;
      if (n.closest(SKIP)) continue;
      const own = Array.from(n.childNodes).some((c) => c.nodeType === 3 && c.data.trim());
      if (!own || !shown(n)) continue;
      blocks++;
      if (kept.some((k) => k.el.contains(n) || n.contains(k.el))) continue;
      const said = text(n);
      if (said.length < 3) continue;
      if (marked(n) || WORDS.test(said)) {
        const role = (n.getAttribute('role') || '').toLowerCase();
        notices.push({ role: role === 'alert' || role === 'status' ? role : '', text: said });
        if (notices.length >= 2) break;
      }
    }
  }
  return { token: st.token, mut: st.mut, opaque, title: clean(doc.title).slice(0, 200),
           scroll: [Math.round(w.scrollX), Math.round(w.scrollY)], regions, invalid, checks,
           target, notices };
}
"""
"""The probe, ``(root, {key, registry, mode, token}) => read``: ``mode`` ``"arm"`` starts
watching the document for the action ``token`` names (``root``: its target or ``null``);
``"read"`` ends the watch and reads. Runs in webrefs' world; its state lives there under
``key``."""


@dataclass(frozen=True)
class Armed:
    """The probe armed for one action: where it was read, and what it read."""

    action: str
    frame: Frame
    token: str
    before: Probe | None


def _key(tab: TabCore) -> str:
    return f"{tab.refs.registry_key}_answer"


def _known(tab: TabCore, ref: str) -> bool:
    try:
        return tab.refs.was_issued(ref)
    except WebrefsError:
        return False


async def _read(tab: TabCore, where: Frame | ElementHandle | Spot, mode: str,
                token: str) -> Probe | None:
    arg: dict[str, Any] = {"key": _key(tab), "registry": tab.refs.registry_key, "mode": mode,
                           "token": token}
    try:
        raw = await tab.refs.world.value(where, PROBE_JS, arg, PROBE_TIMEOUT_S)
    except (TimeoutError, PlaywrightError, WebrefsError, ValueError):
        return None
    return parse_probe(raw, lambda ref: _known(tab, ref))


async def arm(tab: TabCore, action: str, target: Target | None) -> Armed | None:
    """Read the page before ``action`` and start watching it (``None`` for an action whose
    result carries no answer, or a page that could not be read)."""
    if action not in ANSWERED_ACTIONS or tab.page.is_closed():
        return None
    token = secrets.token_hex(8)
    if target is None and action == "goto" and tab.page.url == "about:blank":
        # a blank page (a new tab's) says nothing, and what follows is another document,
        # answered as a new page: reading it would only start webrefs' world in a document
        # about to be left (tens of ms, the first read of each document)
        return Armed(action, tab.page.main_frame, token, Probe(token=token))
    if target is not None:
        before = await _read(tab, target.spot, "arm", token)
        frame = target.frame
    else:
        frame = tab.page.main_frame
        before = await _read(tab, frame, "arm", token)
    return Armed(action, frame, token, before)


async def answered(tab: TabCore, armed: Armed | None, result: ActionResult) -> ActionResult:
    """``result`` with what the page said in answer (``ActionResult.answer``), read now that
    the page has settled; ``result`` itself when it said nothing new or cannot be read."""
    if armed is None or armed.before is None or tab.page.is_closed():
        return result
    main = tab.page.main_frame
    frame = armed.frame
    if frame is not main and (frame.is_detached() or result.url_after != result.url_before):
        frame = main  # the main frame went elsewhere: the answer is the new page
    after = await _read(tab, frame, "read", armed.token)
    downloads = bool(result.readback.get("downloads"))
    # a request the action started may still change the page after the wait (its answer came
    # late, or a held request was decided): "nothing changed" is not said then
    quiet = not (result.navigated or result.new_tabs or result.dialogs or downloads
                 or result.readback.get("requests"))
    answer = None
    with contextlib.suppress(ValueError):  # a page string pydantic refuses: no answer
        answer = page_answer(armed.before, after, action=armed.action,
                             new_page=after is not None and after.token != armed.token,
                             quiet=quiet, frame=frame is not main)
    return result.model_copy(update={"answer": answer}) if answer is not None else result
