"""Waiting until the page is ready after an action, without ever hanging.

Before an action, :func:`arm` installs a small monitor in the page's main document (a
MutationObserver, and wrappers around ``setTimeout``, ``setInterval`` and
``requestAnimationFrame``) and starts counting the requests the page makes. After the action,
:meth:`Readiness.settle` polls that monitor until the action's effects are *quiet*:

- no timer the action started is pending (timeouts, and an interval's first run, scheduled
  from the action until a second after it, with a delay up to 2 s; later timers are never
  waited for),
- no document, fetch, XHR, script or style sheet request started after the action is still
  running (a fetch or XHR the action's code starts counts from its call, before the browser
  reports it, and the quiet window counts from its end, when the page reads its body and
  shows it; a style sheet's end starts no quiet window, as no page code answers it, but until
  it arrives the page is unstyled: parts it hides are shown, text it generates is missing),
  unless it has run longer than ``REQUEST_PATIENCE_MS`` (``ACTION_REQUEST_PATIENCE_MS`` for a
  fetch or XHR the action's code started, which the result then names: long polling, or a
  server slower than that; requests that were already
  running before the action, websockets, images and fonts are never waited for),
- a navigation that started has reached ``DOMContentLoaded``, and a popup the page opened
  (``window.open`` or a link with a target) has appeared as a new page,
- the page has rendered once since the action (observers of the page, such as a list that
  loads more when its end scrolls into view, report at a rendering update; at most
  ``FRAME_PATIENCE_MS``),
- and the action's DOM changes have been quiet for a window, counted from the end of the
  action: ``quiet_ms`` (default 500 ms) once asynchronous work was seen (a pending request or
  slow timer, or changes after the action returned), else a short window (at most
  ``SHORT_QUIET_MS``), so a static page, whose changes all happen during the click itself,
  returns in tens of ms.

**The action's changes and the page's own.** Pages that never stop moving (a price moved by a
chain of timeouts, a clock, a carousel, a CSS animation or a video whose events the page shows)
would otherwise hold every action until the bound. The monitor tells their changes from the
action's in two ways, neither of them a rule about particular pages:

- *Lineage of callbacks.* Each timer, interval and animation frame callback carries the
  lineage of the code that scheduled it: the action's (scheduled while the action is being
  tracked, outside any such callback) or the page's (scheduled before the action, or by a
  callback of the page's own). A callback keeps its lineage when it schedules the next one, so
  a self-rescheduling chain that ran before the action is never a pending timer of the action,
  and one the action started is (for as long as timers are tracked). The DOM changes a
  callback makes synchronously (and in the microtasks it queues) are taken from the observer
  as it returns and charged to its lineage: a change made by the action's own callbacks always
  counts, wherever it lands (results streamed into the very area that ticks).
- *What was changing before.* The monitor keeps, per element, when it last changed and how
  (an attribute by name, its text, children swapped, added or removed). At arm, an element
  that changed that way at least twice in the last ``historyMs`` (2 s), the last time within
  ``rhythmMs`` (600 ms), is changing by itself: further changes of that kind to it, and
  changes inside what such a change put in, are the page's own, unless the action's own
  callbacks make them. A kind seen only once just before the action counts once (its first
  change after the action is the action's), then as the page's; so does a kind seen at
  least twice in the history whose rhythm paused (a renderer starved for a moment stops a
  page's animation events just before the action); but a list that grew once
  (its first items loaded) has no rhythm: growing is the page's own only when it was seen
  twice. An attribute change is also
  seen from the element's parent (a carousel moves a class from slide to slide: each slide
  changes rarely, their parent on a rhythm). A change of a new kind (a list that grows where
  a price was swapped, even when the page's own loop makes it in answer to the action) counts
  as the action's. A document never watched before is watched for ``OBSERVE_MS`` before its
  first action, and what it changes in that moment is its own. A document a navigation
  opened less than ``rhythmMs`` before the action (a navigation may settle before the
  page's first tick, and a scripted caller acts at once) has too short a "before": there, a
  change repeated on a rhythm is the page's own as well, as in a document the action opened
  (below). The price: a stream the action starts by promises or sockets (not timers, whose
  lineage is known) into one element, in that first moment, stops counting at its fourth
  change.
- *A document the action opened* (a navigation) has no "before": all of it is the action's,
  except a change repeated on a rhythm (a fourth time, each within ``rhythmMs`` of the last),
  which is the page's own from then on, so a navigation to a page that ticks ends once the
  page has loaded and its one-off changes are quiet.

The page's own changes are counted apart (``ReadyReport.ambient``) and never waited for; a
page that keeps changing *because* of the action (an interval it started, a stream of results)
is still waited for up to the bound, and the result says so.

Everything is bounded by ``max_wait_ms``: every page evaluation has its own short timeout, so a
page whose main thread is stuck in ``while(true)``, a dialog storm, or a page that never stops
changing because of the action ends the wait at the bound and says so (``reason``). Network
idle is never waited for.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from playwright.async_api import CDPSession, Frame, Page, Request
from playwright.async_api import Error as PlaywrightError

from ..errors import WebrefsError
from ..snapshot.world import PRISTINE_KEY

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = [
    "ACTION_REQUEST_PATIENCE_MS",
    "REQUEST_PATIENCE_MS",
    "SHORT_QUIET_MS",
    "Readiness",
    "ReadyReport",
    "arm",
]

SHORT_QUIET_MS = 50
"""Quiet window when no asynchronous work (timer, request, navigation) was seen."""
REQUEST_PATIENCE_MS = 2_000
"""A request running longer than this is treated as background (long polling)."""
ACTION_REQUEST_PATIENCE_MS = 5_000
"""The same for a fetch or XHR the action's own code started (a save to a slow server): the
result says when one was still unanswered as the wait ended."""
POPUP_PATIENCE_MS = 5_000
"""Longest wait for a popup the page opened to show up as a new tab."""
OBSERVE_MS = 300
"""How long a document never watched before is watched before its first action, to learn
which of its elements it changes by itself."""
FRAME_PATIENCE_MS = 400
"""Longest wait for the first rendering update after the action (a page in the background
may not render at all)."""
POLL_MS = 25
"""Pause between two polls of the page."""
EVAL_TIMEOUT_S = 0.5
"""Longest wait for one poll of the page (a busy main thread never answers)."""
SESSION_TIMEOUT_S = 5.0
"""Longest wait for the page's DevTools session the monitor is polled on (opened once; a
poll waits no longer than its own bound, the opening goes on for the next)."""
_WAITED_TYPES = frozenset({"document", "fetch", "xhr", "script", "stylesheet"})
_SILENT_END_TYPES = frozenset({"stylesheet"})
"""Requests waited for while they run, whose end starts no quiet window: no page code answers
them (a style sheet still loading leaves the page unstyled: hidden parts shown, generated text
missing)."""
_MAX_TRACKED = 50
_ASYNC_TIMER_MS = 50
"""Timers shorter than this are waited for but do not lengthen the quiet window."""

# The monitor lives on a non-enumerable symbol property of the window: idempotent per document.
# It runs in the page's world, so it takes no array apart by syntax (no destructuring, spread
# or for-of over an array): those go through Array.prototype[Symbol.iterator], which the
# page may replace (entries of its own Maps are read by index).
_MONITOR_JS = """
(mode) => {
  const KEY = Symbol.for('webrefs.readiness.v2'), PRISTINE = %s;
  let st = window[KEY];
  const fresh = !st;
  if (!st) {
    const born = performance.now();
    st = {mut: 0, added: 0, amb: 0, last: -1, timers: 0, slowTimers: 0, armedAt: -1e9,
          trackUntil: -1, mut0: 0, added0: 0, amb0: 0, ambAdded: 0, ambAdded0: 0,
          trackMs: 1000, maxDelay: 2000,
          asyncMs: 50, epoch: 0, arms: 0, born: born, cur: undefined,
          historyMs: 2000, rhythmMs: 600, historyCap: 400, recent: new Map(),
          ambient: new WeakMap(), prior: new WeakMap(), since: new WeakMap(), newDoc: false,
          young: false, churn: new WeakSet()};
    const pending = new Map();
    const recount = () => {
      let n = 0, slow = 0;
      for (const e of pending.values()) {
        if (e[0] !== st.epoch) continue;
        n++; if (e[1] >= st.asyncMs) slow++;
      }
      st.timers = n; st.slowTimers = slow;
    };
    const done = (id) => { if (pending.delete(id)) recount(); };
    st.clear = () => { pending.clear(); st.timers = 0; st.slowTimers = 0; };
    // what one mutation record changed: the element, and the kind of change to it
    const keyOf = (r) => {
      const t = r.target;
      if (!t) return null;
      return t.nodeType === 1 ? t : t.parentElement;
    };
    const kindOf = (r) => {
      if (r.type === 'attributes') return 'a:' + r.attributeName;
      if (r.type === 'characterData') return 't';
      let add = 0, rem = 0;
      for (const n of r.addedNodes) if (n.nodeType === 1) add++;
      for (const n of r.removedNodes) if (n.nodeType === 1) rem++;
      return add > rem ? 'grow' : add < rem ? 'shrink' : 'swap';
    };
    const stamp = (el, kind, now) => {
      let kinds = st.recent.get(el);
      if (kinds) st.recent.delete(el); else kinds = new Map();
      st.recent.set(el, kinds);
      const times = kinds.get(kind) || [];
      if (!times.length || now - times[times.length - 1] > 5) {
        times.push(now); if (times.length > 4) times.shift();
      }
      kinds.set(kind, times);
      for (const e of st.recent) {
        if (st.recent.size <= st.historyCap) {
          let newest = -1e9;
          for (const ts of e[1].values()) newest = Math.max(newest, ts[ts.length - 1]);
          if (now - newest <= st.historyMs) break;
        }
        st.recent.delete(e[0]);
      }
    };
    const inChurn = (el) => {
      for (let e = el, i = 0; e && i < 40; e = e.parentElement, i++) {
        if (st.churn.has(e)) return true;
      }
      return false;
    };
    // lin: the lineage of the callback that made the records (undefined when not known:
    // an event, a promise, the action itself)
    // one change seen as the page's own, by one of its signatures
    const known = (el, kind, now) => {
      const kinds = st.ambient.get(el), once = st.prior.get(el);
      if (kinds && kinds.has(kind)) return true;
      if (once && once.has(kind)) {
        // seen just once before the action: its first change after it counts as the
        // action's, a change again on that rhythm is the page's own
        if (once.get(kind)) return true;
        once.set(kind, true);
      }
      if (st.newDoc || st.young) {
        // a document the action opened has no "before", one a navigation opened less than
        // rhythmMs ago too short a one: there, a change repeated on a rhythm (a fourth
        // time, each within rhythmMs of the last) is the page's own
        let seen = st.since.get(el);
        if (!seen) st.since.set(el, seen = new Map());
        const prev = seen.get(kind);
        const n = prev && now - prev[1] <= st.rhythmMs ? prev[0] + 1 : 1;
        seen.set(kind, [n, now]);
        return n > 3;
      }
      return false;
    };
    const see = (records, lin) => {
      const now = performance.now();
      for (let i = 0; i < records.length; i++) {
        const r = records[i], el = keyOf(r), kind = kindOf(r);
        // an attribute is also seen from the parent (a carousel moves its class from one
        // slide to the next: each slide changes rarely, their parent on a rhythm)
        const up = r.type === 'attributes' && el ? el.parentElement : null;
        // the action's own callbacks make its changes; any other change is the page's own
        // when that element was changing that way before the action (or lies in what such a
        // change put in)
        let ambient = false;
        if (el && (lin !== st.epoch || st.newDoc)) {
          const mine = known(el, kind, now), near = up ? known(up, '^' + kind, now) : false;
          ambient = mine || near || inChurn(el);
        }
        if (el) stamp(el, kind, now);
        if (up) stamp(up, '^' + kind, now);
        if (ambient) {
          st.amb++;
          if (r.type === 'childList') {
            for (const n of r.addedNodes) if (n.nodeType === 1) { st.churn.add(n); st.ambAdded++; }
          }
          continue;
        }
        st.mut++;
        if (r.type === 'childList') for (const n of r.addedNodes) if (n.nodeType === 1) st.added++;
        st.last = now;
      }
    };
    let obs = null;
    const take = (lin) => {
      if (obs) { const rs = obs.takeRecords(); if (rs.length) see(rs, lin); }
    };
    try {
      obs = new MutationObserver((records) => see(records, undefined));
      obs.observe(document, {subtree: true, childList: true, attributes: true,
                             characterData: true});
    } catch (e) { obs = null; }
    // the lineage of a callback scheduled now: the running callback's, else this action's
    // while it is being tracked, else the page's own (0)
    const lineage = () => st.cur !== undefined ? st.cur
      : performance.now() < st.trackUntil ? st.epoch : 0;
    const within = (lin, fn) => function () {
      take(undefined);
      const outer = st.cur; st.cur = lin;
      try { return fn.apply(this, arguments); }
      finally {
        st.cur = outer; take(lin);
        try { Promise.resolve().then(() => take(lin)); } catch (e) {}
      }
    };
    // (the arguments a timer was given, with the callback in place of the first)
    const passed = (given, fn) => {
      const args = [fn];
      for (let i = 1; i < given.length; i++) args[i] = given[i];
      return args;
    };
    try {
      const origSet = window.setTimeout, origClear = window.clearTimeout;
      window.setTimeout = function (fn, delay) {
        if (typeof fn !== 'function') return origSet.apply(window, arguments);
        const d = Number(delay) || 0, lin = lineage();
        const track = lin !== 0 && lin === st.epoch && d <= st.maxDelay &&
                      performance.now() < st.trackUntil;
        let id;
        const body = within(lin, fn);
        const wrapped = track ? function () { done(id); return body.apply(this, arguments); }
                              : body;
        id = origSet.apply(window, passed(arguments, wrapped));
        if (track) {
          pending.set(id, [lin, d]);
          recount();
          st.sawSlowTimer = st.sawSlowTimer || d >= st.asyncMs;
        }
        return id;
      };
      window.clearTimeout = function (id) { done(id); return origClear.call(window, id); };
      const origInterval = window.setInterval;
      // an interval the action starts is waited for until it has run once (it then changes
      // the page as the action's own, for as long as it runs)
      window.setInterval = function (fn, delay) {
        if (typeof fn !== 'function') return origInterval.apply(window, arguments);
        const d = Number(delay) || 0, lin = lineage();
        const track = lin !== 0 && lin === st.epoch && d <= st.maxDelay &&
                      performance.now() < st.trackUntil;
        const body = within(lin, fn);
        let id, first = track;
        const wrapped = first ? function () {
          if (first) { first = false; done(id); }
          return body.apply(this, arguments);
        } : body;
        id = origInterval.apply(window, passed(arguments, wrapped));
        if (track) {
          pending.set(id, [lin, d]);
          recount();
          st.sawSlowTimer = st.sawSlowTimer || d >= st.asyncMs;
        }
        return id;
      };
      const origClearInterval = window.clearInterval;
      window.clearInterval = function (id) {
        done(id); return origClearInterval.call(window, id);
      };
      const origFrame = window.requestAnimationFrame;
      if (typeof origFrame === 'function') {
        window.requestAnimationFrame = function (fn) {
          if (typeof fn !== 'function') return origFrame.call(window, fn);
          return origFrame.call(window, within(lineage(), fn));
        };
      }
      // requests the action's code starts (fetch, XHR), seen as they start: the browser's
      // own report of them reaches the waiter later than a short quiet window may last
      st.fetches = new Map(); st.fetchNext = 0;
      const began = () => {
        const lin = lineage();
        if (lin === 0 || lin !== st.epoch || performance.now() >= st.trackUntil) return 0;
        const id = ++st.fetchNext; st.fetches.set(id, [performance.now(), lin]); return id;
      };
      const ended = (id) => { if (id && st.fetches.delete(id)) st.fetchEnd = performance.now(); };
      const origFetch = window.fetch;
      if (typeof origFetch === 'function') {
        window.fetch = function (...args) {
          const id = began();
          let p;
          try { p = origFetch.apply(this, args); } catch (e) { ended(id); throw e; }
          if (id && p && typeof p.then === 'function') p.then(() => ended(id), () => ended(id));
          return p;
        };
      }
      const XHR = window.XMLHttpRequest;
      if (XHR && XHR.prototype && typeof XHR.prototype.send === 'function') {
        const origSend = XHR.prototype.send;
        XHR.prototype.send = function (...args) {
          const id = began();
          if (id) this.addEventListener('loadend', () => ended(id), {once: true});
          try { return origSend.apply(this, args); } catch (e) { ended(id); throw e; }
        };
      }
    } catch (e) {}
    // popups: window.open calls that opened something, clicks on links to another target
    st.opens = 0;
    try {
      const origOpen = window.open;
      window.open = function (...args) {
        const w = origOpen.apply(this, args); if (w) st.opens++; return w;
      };
      document.addEventListener('click', (e) => {
        const a = e.target && e.target.closest ? e.target.closest('a[href][target]') : null;
        const t = a ? (a.getAttribute('target') || '').toLowerCase() : '';
        if (a && t && !['_self', '_parent', '_top'].includes(t)) st.opens++;
      }, true);
    } catch (e) {}
    // the changes the page was making by itself before an action: a change to an element
    // seen `need` times in the recent history (once, when all there is of it is the short
    // look taken before this document's first action)
    st.baseline = (now, fromScratch) => {
      take(undefined);
      const need = fromScratch ? 1 : 2, map = new WeakMap(), prior = new WeakMap();
      for (const e of st.recent) {
        const el = e[0];
        for (const k of e[1]) {
          const kind = k[0], times = k[1];
          let n = 0; for (let i = 0; i < times.length; i++) if (now - times[i] <= st.historyMs) n++;
          // a list that grew once (its first items loaded) has no rhythm: growing is the
          // page's own only when seen twice
          const grow = kind === 'grow' || kind === '^grow';
          // it stopped (over rhythmMs ago); a rhythm that paused (a renderer starved for a
          // moment) counts once, then as the page's own again
          const stopped = now - times[times.length - 1] > st.rhythmMs;
          if (!stopped && n >= (grow ? 2 : need)) {
            let s = map.get(el); if (!s) map.set(el, s = new Set()); s.add(kind);
          } else if (!grow && (!stopped || n >= 2)) {
            let m = prior.get(el); if (!m) prior.set(el, m = new Map()); m.set(kind, false);
          }
        }
      }
      st.ambient = map; st.prior = prior; st.churn = new WeakSet();
    };
    try { Object.defineProperty(window, KEY, {value: st, enumerable: false}); }
    catch (e) { window[KEY] = st; }
  }
  const now = performance.now();
  if (fresh && mode === 'arm') {
    // a document seen for the first time: only watch; the caller looks again before acting
  } else if (mode === 'arm' || mode === 'rearm') {
    if (mode === 'arm') st.baseline(now, st.arms === 0 && now - st.born < st.historyMs);
    else { st.ambient = new WeakMap(); st.prior = new WeakMap(); st.churn = new WeakSet(); }
    st.newDoc = mode === 'rearm'; st.since = new WeakMap();
    // (a document never watched was looked at for a moment before this: not young)
    st.young = mode === 'arm' && st.arms > 0 && now - st.born < st.rhythmMs;
    st.arms++; st.epoch++;
    st.armedAt = now; st.mut0 = st.mut; st.added0 = st.added; st.amb0 = st.amb; st.clear();
    st.ambAdded0 = st.ambAdded;
    st.opens0 = st.opens;
    st.sawSlowTimer = false;
    st.trackUntil = mode === 'arm' ? Infinity : now + st.trackMs;
    st.settleFrom = now;
  } else if (mode === 'start') {
    st.trackUntil = Math.min(st.trackUntil, now + st.trackMs);
    st.settleFrom = now;
    // the next rendering update after the action: an observer's first report comes with it,
    // after the page's own observers (a list that loads more once its end scrolls into view)
    st.painted = false;
    try {
      const seen = new IntersectionObserver(() => { st.painted = true; seen.disconnect(); });
      seen.observe(document.documentElement);
    } catch (e) { st.painted = true; }
  }
  // The answer is one JSON string, written here: an object would be serialized with the
  // page's Object.keys, and JSON.stringify may be the page's too (the responder script keeps
  // the original; it is used on strings only, which no toJSON can reach).
  const kept = window[PRISTINE];
  const quote = kept && typeof kept.stringify === 'function' ? kept.stringify : JSON.stringify;
  let focused = null;
  const a = document.activeElement;
  if (a && a !== document.body && a !== document.documentElement) {
    focused = (a.getAttribute('role') || a.tagName.toLowerCase()) + ' ' +
      quote(((a.getAttribute('aria-label') || a.getAttribute('name') ||
              a.getAttribute('placeholder') || a.innerText || a.value || '') + '')
            .trim().slice(0, 60));
  }
  const from = st.settleFrom || 0, se = document.scrollingElement || document.documentElement;
  let fetching = 0, unanswered = 0;
  if (st.fetches) {
    for (const f of st.fetches.values()) {
      if (now - f[0] < %d) fetching++;
      else if (f[1] === st.epoch) unanswered++;  // (this action's own; a long poll stays)
    }
  }
  const out = [['fresh', fresh], ['mut', st.mut - st.mut0], ['added', st.added - st.added0],
               ['ambAdded', st.ambAdded - st.ambAdded0],
               ['amb', st.amb - st.amb0],
               ['sinceMut', now - Math.max(st.last > from ? st.last : from, st.fetchEnd || 0)],
               ['mutAfter', st.last > from],
               ['timers', st.timers], ['slowTimer', !!st.sawSlowTimer],
               ['opens', st.opens - (st.opens0 || 0)], ['readyState', document.readyState],
               ['focused', focused],
               ['scrollHeight', se.scrollHeight], ['painted', st.painted !== false],
               ['fetching', fetching], ['unanswered', unanswered]];
  let text = '{';
  for (let i = 0; i < out.length; i++) {
    const v = out[i][1], t = typeof v;
    text += (i ? ',"' : '"') + out[i][0] + '":' + (t === 'string' ? quote(v)
      : t === 'boolean' ? (v ? 'true' : 'false')
      : t === 'number' && v === v && v !== Infinity && v !== -Infinity ? '' + v : 'null');
  }
  return text + '}';
}
"""


@lru_cache(maxsize=1)
def _monitor_js() -> str:
    return _MONITOR_JS % (json.dumps(PRISTINE_KEY), ACTION_REQUEST_PATIENCE_MS)


@lru_cache(maxsize=8)
def _monitor_call(mode: str) -> str:
    """The monitor called with ``mode``, as one expression for DevTools' ``Runtime.evaluate``."""
    return f"({_monitor_js()})({json.dumps(mode)})"


_FOCUSED_REF_JS = """
(root, key) => {
  const a = document.activeElement, reg = window[key];
  if (!a || !reg || !(reg.books instanceof Map)) return null;
  for (const book of reg.books.values()) { const r = book.byEl.get(a); if (r) return r; }
  return null;
}
"""


class _Tracker:
    """What a page's waits share, made once per page: event listeners (adding and removing
    Playwright listeners costs a round trip to the driver each time), which forward events to
    the running waits, and the DevTools session the monitor is polled on.

    The monitor is run by a bare ``Runtime.evaluate`` in the top document's own world, not by
    Playwright's ``evaluate``, whose helper script in that world is the page's to break: a
    page that replaces ``Array.prototype[Symbol.iterator]`` makes every such call fail, and
    every action's wait run to its bound. Where the page has no DevTools session (a browser
    that is not Chromium), Playwright's ``evaluate`` it is."""

    def __init__(self, page: Page) -> None:
        self.watchers: set[Readiness] = set()
        self._opening: asyncio.Future[CDPSession | None] | None = None
        page.on("request", self._request)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)
        page.on("framenavigated", self._navigated)
        page.on("popup", self._popup)

    def _request(self, request: Request) -> None:
        for w in list(self.watchers):
            w.on_request(request)

    def _done(self, request: Request) -> None:
        for w in list(self.watchers):
            w.on_request_done(request)

    def _popup(self, _page: Page) -> None:
        for w in list(self.watchers):
            w.popups += 1

    def _navigated(self, frame: Frame) -> None:
        for w in list(self.watchers):
            w.on_frame_navigated(frame)

    async def session(self, page: Page) -> CDPSession | None:
        """The page's DevTools session for polls, opened on first use (callers bound the
        wait); ``None`` where the page has none."""
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._open(page))
        return await asyncio.shield(self._opening)

    async def _open(self, page: Page) -> CDPSession | None:
        try:
            return await asyncio.wait_for(page.context.new_cdp_session(page), SESSION_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):
            return None


_TRACKERS: weakref.WeakKeyDictionary[Page, _Tracker] = weakref.WeakKeyDictionary()


def _tracker(page: Page) -> _Tracker:
    found = _TRACKERS.get(page)
    if found is None:
        found = _TRACKERS[page] = _Tracker(page)
    return found


_FLAGS = frozenset({"fresh", "mutAfter", "slowTimer", "painted"})
_NUMBERS = frozenset({"mut", "added", "amb", "ambAdded", "sinceMut", "timers", "opens",
                      "scrollHeight", "fetching", "unanswered"})
_TEXTS = frozenset({"readyState", "focused"})


def _checked_state(state: object) -> dict[str, Any] | None:
    """The monitor's answer with only its own fields, each of its own type. The monitor runs
    in the page's world: a page that replaced ``JSON.stringify`` before webrefs could keep
    the original (a page open before webrefs attached, a wrapped page) makes it answer
    anything, and what it answers must not break the wait."""
    if not isinstance(state, dict):
        return None
    out: dict[str, Any] = {}
    for key, value in state.items():
        if key in _FLAGS:
            fits = isinstance(value, bool)
        elif key in _TEXTS:
            fits = isinstance(value, str)
        else:
            fits = (key in _NUMBERS and isinstance(value, int | float)
                    and not isinstance(value, bool) and math.isfinite(value))
        if fits:
            out[key] = value
    return out


@dataclass
class ReadyReport:
    """What the readiness wait saw."""

    waited_ms: float = 0.0
    reason: str = "quiet"
    """quiet, max_wait (bound reached while the page was still changing), busy (the page did
    not answer: a stuck main thread or a dialog storm), no_wait (max_wait_ms is 0) or closed."""
    mutations: int = 0
    """Changes to the page that count as the action's (not those the page makes by itself)."""
    added_elements: int = 0
    ambient_added: int = 0
    """Elements added among the page's own changes (a list that was already growing)."""
    ambient: int = 0
    """Changes the page made by itself during the wait, as it did before the action (not
    waited for)."""
    navigated: bool = False
    pending_requests: int = 0
    unanswered: int = 0
    """Fetches and XHRs the action's own code started that had no answer after
    ``ACTION_REQUEST_PATIENCE_MS`` as the wait ended (their answer may still change the page)."""
    requests: int = 0
    """Requests (documents, fetches, XHRs, scripts, style sheets) the page started after the
    action."""
    focused: str | None = None


@dataclass(eq=False)
class Readiness:
    """One readiness wait; create it with :func:`arm` before the action."""

    tab: TabCore
    quiet_ms: int
    max_wait_ms: int
    started: float = field(default_factory=time.monotonic)
    navigated: bool = False
    popups: int = 0
    """Popups this page opened during the wait (Playwright's ``popup`` event)."""
    saw_async: bool = False
    last_async_done: float = 0.0
    mutations: int = 0
    added: int = 0
    ambient_added: int = 0
    ambient: int = 0
    _requests: dict[int, tuple[Request, float]] = field(default_factory=dict)
    """Requests waited for, by id, with when they started."""
    _tracked: int = 0
    _listening: bool = False

    # -- page events ----------------------------------------------------------------------
    def on_request(self, request: Request) -> None:
        if request.resource_type not in _WAITED_TYPES or self._tracked >= _MAX_TRACKED:
            return
        self._tracked += 1
        self._requests[id(request)] = (request, time.monotonic())

    def on_request_done(self, request: Request) -> None:
        if (self._requests.pop(id(request), None) is not None
                and request.resource_type not in _SILENT_END_TYPES):
            self.last_async_done = time.monotonic()

    def on_frame_navigated(self, frame: Frame) -> None:
        if frame == self.tab.page.main_frame:
            self.navigated = True

    def listen(self) -> None:
        _tracker(self.tab.page).watchers.add(self)
        self._listening = True

    def _unlisten(self) -> None:
        if not self._listening:
            return
        self._listening = False
        _tracker(self.tab.page).watchers.discard(self)

    def close(self) -> None:
        """Stop listening (``settle`` does this itself)."""
        self._unlisten()

    # -- waiting ----------------------------------------------------------------------------
    async def poll(self, mode: str, budget_s: float) -> dict[str, Any] | None:
        """One look at the page; ``None`` when it did not answer in time."""
        page = self.tab.page
        result: object = None
        try:
            async with asyncio.timeout(max(0.05, min(EVAL_TIMEOUT_S, budget_s))):
                session = await _tracker(page).session(page)
                if session is None:
                    result = await page.main_frame.evaluate(_monitor_js(), mode)
                else:
                    got = await session.send("Runtime.evaluate", {
                        "expression": _monitor_call(mode), "returnByValue": True})
                    if "exceptionDetails" not in got:
                        result = (got.get("result") or {}).get("value")
        except (TimeoutError, PlaywrightError):
            return None
        if not isinstance(result, str):
            return None
        try:
            state = json.loads(result)
        except ValueError:  # a page's own JSON.stringify on a wrapped page
            return None
        return _checked_state(state)

    def _pending_requests(self, now: float) -> tuple[int, int]:
        """Requests still waited for: all of them, and those whose end page code handles
        (not style sheets)."""
        patience = REQUEST_PATIENCE_MS / 1000
        running = [r for r, t0 in self._requests.values() if now - t0 < patience]
        return len(running), sum(1 for r in running if r.resource_type not in _SILENT_END_TYPES)

    async def settle(self) -> ReadyReport:
        """Wait until the page is ready or the bound is reached. Never raises for the page's
        behaviour; returns what it saw."""
        try:
            return await self._settle()
        finally:
            self._unlisten()

    async def _settle(self) -> ReadyReport:
        report = ReadyReport()
        deadline = self.started + self.max_wait_ms / 1000
        if self.max_wait_ms <= 0:
            report.reason = "no_wait"
            return self._finish(report)
        answered_once = False
        mode = "start"
        while True:
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                report.reason = "max_wait" if answered_once else "busy"
                break
            if self.tab.page.is_closed():
                report.reason = "closed"
                break
            state = await self.poll(mode, remaining)
            now = time.monotonic()
            if state is None:
                await asyncio.sleep(min(POLL_MS / 1000, max(deadline - now, 0)))
                continue
            answered_once = True
            mode = "poll"
            if state.get("fresh"):
                # a new document since the action: its changes all count as new
                self.navigated = True
                await self.poll("rearm", deadline - now)
                continue
            self.mutations = max(self.mutations, int(state.get("mut", 0)))
            self.added = max(self.added, int(state.get("added", 0)))
            self.ambient_added = max(self.ambient_added, int(state.get("ambAdded") or 0))
            self.ambient = max(self.ambient, int(state.get("amb", 0)))
            report.focused = state.get("focused")
            if state.get("slowTimer") or state.get("mutAfter"):
                self.saw_async = True
            # requests the page started for the action: as the browser reports them, or as
            # the page's code starts them (which the browser's report may not have reached)
            running, handled = self._pending_requests(now)
            fetching = int(state.get("fetching") or 0)
            report.unanswered = int(state.get("unanswered") or 0)
            pending = max(running, fetching)
            report.pending_requests = pending
            if max(handled, fetching):
                self.saw_async = True
            # a popup the page opened is waited for until Playwright reports it
            opening = int(state.get("opens", 0)) > self.popups and \
                now - self.started < POPUP_PATIENCE_MS / 1000
            busy = (
                opening
                or pending > 0
                or int(state.get("timers", 0)) > 0
                or state.get("readyState") == "loading"
                or (state.get("painted") is False
                    and now - self.started < FRAME_PATIENCE_MS / 1000)
            )
            if not busy:
                window = self.quiet_ms if self.saw_async else min(self.quiet_ms, SHORT_QUIET_MS)
                quiet_for = float(state.get("sinceMut", 0.0))
                if self.last_async_done:
                    quiet_for = min(quiet_for, (now - self.last_async_done) * 1000)
                if quiet_for >= window:
                    report.reason = "quiet"
                    break
                wait_s = (window - quiet_for) / 1000
            else:
                wait_s = POLL_MS / 1000
            await asyncio.sleep(max(0.005, min(wait_s, POLL_MS / 1000 * 4, deadline - now)))
        if report.focused:
            ref = await self.focused_ref()
            if ref is not None:
                report.focused += f" [ref={ref}]"
        return self._finish(report)

    async def focused_ref(self) -> str | None:
        """The ref of the focused element, asked in webrefs' own world (where the registry
        is; the monitor above runs in the page's world, where it must watch page scripts)."""
        try:
            ref = await self.tab.refs.world.value(
                self.tab.page.main_frame, _FOCUSED_REF_JS, self.tab.refs.registry_key, 1.0)
        except (TimeoutError, PlaywrightError, ValueError):
            return None
        try:
            return ref if isinstance(ref, str) and self.tab.refs.was_issued(ref) else None
        except WebrefsError:
            return None

    def _finish(self, report: ReadyReport) -> ReadyReport:
        report.waited_ms = round((time.monotonic() - self.started) * 1000, 1)
        report.mutations = self.mutations
        report.added_elements = self.added
        report.ambient_added = self.ambient_added
        report.ambient = self.ambient
        report.navigated = self.navigated
        report.requests = self._tracked
        return report


async def arm(tab: TabCore, *, quiet_ms: int | None = None,
              max_wait_ms: int | None = None) -> Readiness:
    """Start watching the page; call right before the action, then ``await r.settle()``."""
    q = tab.options.quiet_ms if quiet_ms is None else quiet_ms
    m = tab.options.max_wait_ms if max_wait_ms is None else max_wait_ms
    r = Readiness(tab, quiet_ms=max(0, min(int(q), 10_000)),
                  max_wait_ms=max(0, min(int(m), 60_000)))
    r.listen()
    state = await r.poll("arm", EVAL_TIMEOUT_S)
    if state is not None and state.get("fresh") and tab.page.url != "about:blank":
        # a document never watched before: look at what it changes by itself for a moment,
        # so that its own rhythm is known before the action
        await asyncio.sleep(OBSERVE_MS / 1000)
        await r.poll("arm", EVAL_TIMEOUT_S)
    r.started = time.monotonic()
    return r
