"""Where webrefs' page-side code runs: a JavaScript world the page cannot reach.

A page's own scripts can replace any built-in of its world (``JSON.stringify``,
``Object.keys``, ``Array.prototype.push``, DOM getters). Code that webrefs runs in that world
could be made to forge a snapshot or to lose its ref registry. So the extractor, the ref
registry and the page reads that decide which element a ref names run in an *isolated world*
of each frame: it shares the frame's DOM but none of the page's JavaScript objects.

How: Playwright runs content-script selector engines (``selectors.register(...,
content_script=True)``) in such a world, in every frame, out-of-process ones included. webrefs
registers one engine per Playwright instance it starts (:func:`register_engine`); a call is a
selector ``<engine>=<op>.<percent-encoded JSON>``:

- ``x``: run the extractor with these options; the result is a detached ``<div>`` holding the
  JSON text (the page never sees a detached node of another world), read back with
  ``text_content``, which Playwright also runs outside the page's world;
- ``v``: call a fixed function source ``(root, arg) => value`` (``root`` is the element the
  call is made on, or ``null`` for the frame); the value comes back as JSON text;
- ``e``: the same, returning an element (a ref's element) as a handle, or none.

A ``v`` call may carry a finder (``f``/``fa``: a function source and its argument) that the
engine runs first to get ``root``: reads of an element named by ref (a :class:`Spot`) then
take one round trip, frame-rooted, with the element found again inside the world by its ref
(never through anything a page could copy), instead of three through a handle.

A :class:`World` made with ``engine=None`` runs the same code in the page's main world: that is
the only choice for pages of a Playwright instance webrefs did not start (``Browser.wrap``),
and such a page can tamper with it; adopting them raises an :class:`IsolationWarning`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit
from weakref import WeakKeyDictionary

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..errors import StaleRefError
from .direct import DIRECT_KEY, DirectLine
from .script import script_body

if TYPE_CHECKING:
    from collections.abc import Collection

    from playwright.async_api import Page, Playwright

__all__ = ["CLICK_PROBE", "ENGINE_NAME", "PRISTINE_KEY", "IsolationWarning", "Spot", "World",
           "click_responder_js", "engine_source", "register_engine", "url_origin"]

Origin = tuple[str, str, int | None]
"""A document's origin: scheme, host and port (see :func:`url_origin`)."""


class IsolationWarning(UserWarning):
    """webrefs reads a browser's pages in the pages' own JavaScript world, not in a world of
    its own: a page can replace the built-ins the reader uses there and so change what a
    snapshot shows. Only for pages of a Playwright webrefs did not start (``Browser.wrap``,
    ``from_context``, ``from_browser``), where it cannot register its engine;
    ``Browser.isolated`` tells which way a browser is read."""


ENGINE_NAME = f"webrefs{secrets.token_hex(6)}"
"""Name of the selector engine this process registers (one per Playwright instance)."""

CLICK_PROBE = f"webrefs-click-{secrets.token_hex(6)}"
"""Event the extractor sends an element to ask the page's world whether a script gave it a
click handler (``el.onclick = fn`` is invisible from another world); sent to the document
first, it asks whether the page gave any element one (when not, no element is asked)."""

PRISTINE_KEY = f"__webrefs_p_{secrets.token_hex(6)}"
"""Global of the page's world (set by the responder script before any page script runs)
holding the built-ins webrefs' code in that world needs, as they were before the page could
replace them: ``stringify`` (``JSON.stringify``, used on strings only)."""

_RESPONDER_JS = """(() => {
  const name = %s, PRISTINE = %s, EARLY = %s;
  if (Object.prototype.hasOwnProperty.call(window, PRISTINE)) return;  // here already
  try {
    const kept = Object.freeze({ stringify: JSON.stringify.bind(JSON) });
    Object.defineProperty(window, PRISTINE, { value: kept });
  } catch (e) { /* defined already */ }
  const handled = new WeakSet();
  let count = 0;
  const note = (el) => { if (!handled.has(el)) { handled.add(el); count++; } };
  const CLICKS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup',
                          'touchstart', 'touchend']);
  const add = EventTarget.prototype.addEventListener;
  const isElement = (t) => { try { return t instanceof Element; } catch (e) { return false; } };
  // elements the page gives a click listener (jQuery and frameworks go through this too);
  // listeners on the document or window (delegation) mark nothing
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (CLICKS.has(type) && listener && isElement(this)) note(this);
    return add.call(this, type, listener, options);
  };
  // and elements given a click handler as a property (el.onclick = fn)
  for (const proto of [HTMLElement.prototype, SVGElement.prototype]) {
    const d = Object.getOwnPropertyDescriptor(proto, 'onclick');
    if (!d || !d.set || !d.configurable) continue;
    Object.defineProperty(proto, 'onclick', { ...d, set(v) {
      if (typeof v === 'function' && isElement(this)) note(this);
      return d.set.call(this, v);
    } });
  }
  add.call(window, name, (e) => {
    const t = e.target;
    // asked of the document: whether any element was given a handler at all
    if (t === document) { if (count > 0) e.preventDefault(); return; }
    if (t && (typeof t.onclick === 'function' || handled.has(t))) e.preventDefault();
  }, true);
  // What changes the page's rendering with no mutation the extractor's world observes: style
  // sheets changed through their object model (rules, their declarations, adopted sheets),
  // popovers, manual slot assignment, custom elements' states and validity, and anything
  // inside a closed shadow root.
  let restyled = 0;
  const touch = () => { restyled++; };
  const bump = (proto, key) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, key);
    if (!d || !d.configurable) return;
    if (typeof d.value === 'function') {
      const f = d.value;
      const wrapped = { [key](...a) { restyled++; return f.apply(this, a); } }[key];
      Object.defineProperty(proto, key, { ...d, value: wrapped });
    } else if (d.set) {
      const set = d.set;
      Object.defineProperty(proto, key, { ...d, set(v) { restyled++; return set.call(this, v); } });
    }
  };
  const CSSOM = [
    ['CSSStyleSheet', ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replace',
                       'replaceSync']],
    ['StyleSheet', ['disabled']], ['MediaList', ['mediaText', 'appendMedium', 'deleteMedium']],
    ['CSSStyleDeclaration', ['setProperty', 'removeProperty', 'cssText', 'cssFloat']],
    ['StylePropertyMap', ['set', 'append', 'delete', 'clear']],
    ['CSSGroupingRule', ['insertRule', 'deleteRule']], ['CSSStyleRule', ['selectorText']],
    ['CSSMediaRule', ['conditionText']], ['CSSKeyframesRule', ['appendRule', 'deleteRule', 'name']],
    ['CSSKeyframeRule', ['keyText']], ['HTMLStyleElement', ['disabled']],
    ['HTMLLinkElement', ['disabled']], ['Document', ['adoptedStyleSheets']],
    ['ShadowRoot', ['adoptedStyleSheets']],
    ['HTMLElement', ['showPopover', 'hidePopover', 'togglePopover']],
    ['HTMLSlotElement', ['assign']],
    // a custom element's own states (:state(open)) and validity, which no attribute shows
    ['CustomStateSet', ['add', 'delete', 'clear']], ['ElementInternals', ['setValidity']]];
  for (const [cls, keys] of CSSOM) {
    const c = window[cls];
    for (const k of keys) try { bump(c && c.prototype, k); } catch (e) { /* not here */ }
  }
  // A rule's declarations take named properties (rule.style.display = 'none') through the
  // browser's own interceptor, which no wrapper of a prototype sees: a rule's `style` is
  // handed out behind a proxy (one per declaration block, so it stays the same object).
  const proxied = new WeakMap();
  const watched = (block) => {
    if (!block || typeof block !== 'object') return block;
    let p = proxied.get(block);
    if (!p) {
      p = new Proxy(block, {
        get(t, k) {
          const v = Reflect.get(t, k, t);
          return typeof v === 'function' ? v.bind(t) : v;
        },
        set(t, k, v) { restyled++; return Reflect.set(t, k, v, t); },
        deleteProperty(t, k) { restyled++; return Reflect.deleteProperty(t, k); },
      });
      proxied.set(block, p);
    }
    return p;
  };
  for (const cls of ['CSSStyleRule', 'CSSPageRule', 'CSSFontFaceRule', 'CSSKeyframeRule']) {
    try {
      const proto = window[cls] && window[cls].prototype;
      const d = proto && Object.getOwnPropertyDescriptor(proto, 'style');
      if (!d || !d.get || !d.configurable) continue;
      const get = d.get, set = d.set;
      Object.defineProperty(proto, 'style', { ...d, get() { return watched(get.call(this)); },
        ...(set ? { set(v) { restyled++; return set.call(this, v); } } : {}) });
    } catch (e) { /* not here */ }
  }
  // closed shadow roots: observed from here, where a script that reaches one made it (or read
  // it from its element's internals)
  const closedSeen = new WeakSet();
  const inside = new MutationObserver(touch);
  const ALL = { subtree: true, childList: true, attributes: true, characterData: true };
  const seeClosed = (r) => {
    try {
      if (r && r.mode === 'closed' && !closedSeen.has(r)) {
        closedSeen.add(r);
        inside.observe(r, ALL);
        restyled++;
      }
    } catch (e) { /* not a root */ }
    return r;
  };
  try {
    const d = Object.getOwnPropertyDescriptor(Element.prototype, 'attachShadow');
    const f = d && d.value;
    if (f && d.configurable) {
      Object.defineProperty(Element.prototype, 'attachShadow', { ...d,
        value: { attachShadow(...a) { return seeClosed(f.apply(this, a)); } }.attachShadow });
    }
    const s = window.ElementInternals &&
      Object.getOwnPropertyDescriptor(ElementInternals.prototype, 'shadowRoot');
    if (s && s.get && s.configurable) {
      const get = s.get;
      Object.defineProperty(ElementInternals.prototype, 'shadowRoot', { ...s,
        get() { return seeClosed(get.call(this)); } });
    }
  } catch (e) { /* not here */ }
  // style sheet links whose last load failed (a trusted error event, seen from the start):
  // asked of such a link, whether it holds no rules (a sheet of another origin cannot be
  // read, so it may hold any; one that did not load holds none)
  const Link = window.HTMLLinkElement, failed = new WeakSet();
  const linked = (e) => e.isTrusted && e.target instanceof Link;
  add.call(window, 'error', (e) => { if (linked(e)) failed.add(e.target); }, true);
  add.call(window, 'load', (e) => { if (linked(e)) failed.delete(e.target); }, true);
  add.call(window, name + '-failed', (e) => {
    if (failed.has(e.target)) e.preventDefault();
  }, true);
  // whether an element was given a handler, or any of the above happened, since this was
  // last asked (an unchanged read)
  let told = 0;
  add.call(window, name + '-n', (e) => {
    if (e.target !== document || told === count + restyled) return;
    told = count + restyled;
    e.preventDefault();
  }, true);
  // whether this script ran before the page's own (an init script: it saw all of the above
  // from the start; added to a document already running, it did not)
  add.call(window, name + '-here', (e) => {
    if (EARLY && e.target === document) e.preventDefault();
  }, true);
})()"""


def click_responder_js(*, early: bool = True) -> str:
    """A script for the page's own world, run before the page's scripts (an init script of the
    contexts webrefs makes): it notes the elements the page gives click listeners
    (``addEventListener``) and answers the extractor's click probe for them and for elements
    with a script-set ``onclick``. A page can only make its own elements look clickable with
    it, which ``cursor:pointer`` already allows. It also keeps the built-ins of
    :data:`PRISTINE_KEY` before the page can replace them, and counts what changes the page's
    rendering unseen from webrefs' world (see ``extractor.js``, the unchanged document).
    ``early=False``: for a document already running, which it then never vouches for."""
    return _RESPONDER_JS % (json.dumps(CLICK_PROBE), json.dumps(PRISTINE_KEY),
                            json.dumps(early))

_GONE = "\u0000gone"
"""What a finder-rooted read answers when the element is no longer there (not valid JSON, so
no function's value can look like it)."""

_ENGINE_JS = """(() => {
  const extract = %s;
  const GONE = %s;
  // The direct line's way in (see direct.py), defined on the first query: Playwright also
  // evaluates this source in the page's world, but queries only this world, no page sees.
  // It carries the token of the frame it was last read for, so the line can tell frames apart.
  const KEY = %s;
  let opened = false;
  const open = () => {
    opened = true;
    const entry = (o) => extract(o);
    entry.token = null;
    try { Object.defineProperty(window, KEY, { value: entry }); } catch (e) { /* ok */ }
  };
  const compiled = new Map();
  const box = (text) => {
    const d = document.createElement('div'); d.textContent = text; return d;
  };
  const fnOf = (src) => {
    let fn = compiled.get(src);
    if (!fn) { fn = new Function('return (' + src + ')')(); compiled.set(src, fn); }
    return fn;
  };
  return {
    queryAll(root, body) {
      if (!opened) open();
      const dot = body.indexOf('.');
      const op = body.slice(0, dot);
      const p = JSON.parse(decodeURIComponent(body.slice(dot + 1)));
      if (op === 'x') {
        const entry = window[KEY];
        if (typeof p.lineToken === 'string' && typeof entry === 'function') {
          entry.token = p.lineToken;
        }
        return [box(extract(p))];
      }
      let at = root && root.nodeType === 1 ? root : null;
      if (p.f) {
        at = fnOf(p.f)(null, p.fa);
        if (!at || at.nodeType !== 1) return [box(GONE)];
      }
      const out = fnOf(p.s)(at, p.a);
      if (op === 'e') return out && out.nodeType === 1 ? [out] : [];
      return [box(JSON.stringify(out === undefined ? null : out))];
    },
  };
})()"""

_MAIN_EXTRACT_CALL = (
    "([k, o]) => { const f = window[k]; return typeof f === 'function' ? f(o) : null; }"
)


@lru_cache(maxsize=1)
def engine_source() -> str:
    """The selector engine's source: the extractor plus the ``v``/``e`` call dispatcher."""
    return _ENGINE_JS % (script_body(), json.dumps(_GONE), json.dumps(DIRECT_KEY))


@lru_cache(maxsize=1)
def _main_install_js() -> str:
    """Main-world fallback: define the extractor once per document under a private name
    (compiling 40 KB of source on every call costs about a millisecond), then run it."""
    return (
        "([k, o]) => { const f = " + script_body() + ";\n"
        "try { Object.defineProperty(window, k, { value: f }); } catch (e) { /* taken */ }\n"
        "return f(o); }"
    )


async def register_engine(playwright: Playwright) -> str | None:
    """Register the engine on a Playwright instance webrefs started; its name, or ``None``
    when Playwright refuses (then pages are read in their main world)."""
    try:
        await playwright.selectors.register(ENGINE_NAME, engine_source(), content_script=True)
    except PlaywrightError as exc:
        if "already registered" in str(exc):
            return ENGINE_NAME
        return None
    return ENGINE_NAME


def _selector(engine: str, op: str, payload: Any) -> str:
    return f"{engine}={op}.{quote(json.dumps(payload, separators=(',', ':')), safe='')}"


@dataclass(frozen=True)
class Spot:
    """An element named by ref, as actions read it: its frame, a handle of it (for input and
    for the page's-world fallback), and the finder that locates it again inside webrefs' world
    (``find``: a ``(root, arg) => element | null`` source and its argument)."""

    frame: Frame
    handle: ElementHandle
    find: tuple[str, Any]


@dataclass(frozen=True)
class World:
    """Runs webrefs' page-side code in one browser's frames: isolated when ``engine`` is set.

    Every method is bounded by ``timeout_s`` and raises the builtin :class:`TimeoutError`
    past it; other failures are Playwright errors for the caller to translate.
    """

    engine: str | None
    """The registered engine's name, or ``None`` for the page's main world."""

    _lines: WeakKeyDictionary[Page, DirectLine] = field(
        default_factory=WeakKeyDictionary, init=False, repr=False, compare=False)
    _frame_lines: WeakKeyDictionary[Frame, tuple[Origin | None, DirectLine]] = field(
        default_factory=WeakKeyDictionary, init=False, repr=False, compare=False)
    """Each child frame's own line, with the origin of the document it was made for."""
    _tokens: WeakKeyDictionary[Frame, str] = field(
        default_factory=WeakKeyDictionary, init=False, repr=False, compare=False)

    @property
    def isolated(self) -> bool:
        return self.engine is not None

    def line(self, page: Page) -> DirectLine | None:
        """The direct line to the worlds of ``page``'s frames (isolated worlds only)."""
        if self.engine is None:
            return None
        found = self._lines.get(page)
        if found is None:
            found = self._lines[page] = DirectLine()
        return found

    def frame_line(self, frame: Frame) -> DirectLine | None:
        """The direct line to the worlds of a child frame in a renderer process of its own
        (one that shares its page's renderer never opens a session on this line: it is read
        through the page's line). A line that found no target of its own is made again once
        the frame shows a document of another origin (it may have moved to a process of its
        own)."""
        if self.engine is None or frame.parent_frame is None:
            return None
        origin = url_origin(frame.url)
        found = self._frame_lines.get(frame)
        if found is None or (not found[1].usable and found[0] != origin):
            found = self._frame_lines[frame] = (origin, DirectLine())
        return found[1]

    async def extract(self, frame: Frame, opts: dict[str, Any], timeout_s: float) -> Any:
        """The extractor's output (a JSON string) for one frame: through a direct line once
        one has found the frame's world (the frame's own, for a frame in a renderer process
        of its own, else the page's), else through the engine."""
        if self.engine is None:
            return await _bounded(self._main_extract(frame, opts), timeout_s)
        opts = {**opts, "clickProbe": CLICK_PROBE}
        clock = asyncio.get_running_loop().time
        deadline = clock() + timeout_s  # (one bound for every way tried)
        token = self._tokens.get(frame)
        if token is None:
            token = self._tokens[frame] = secrets.token_hex(8)
        top = frame.parent_frame is None
        # (line, its target, whether the frame is that target's top frame): a child frame's
        # own line first, which serves it only where it has a renderer process of its own,
        # then those of the frames above it that do (a frame of its parent's origin shares
        # that parent's process, and target), then the page's
        lines: list[tuple[DirectLine, Page | Frame, bool]] = []
        own = self.frame_line(frame)
        if own is not None:
            lines.append((own, frame, True))
        above = frame.parent_frame
        while above is not None and above.parent_frame is not None:
            found = self._frame_lines.get(above)
            if found is not None and found[1].usable:
                lines.append((found[1], above, False))
            above = above.parent_frame
        line = self.line(frame.page)
        if line is not None:
            lines.append((line, frame.page, top))
        for line, _, _ in lines:
            text = await line.extract(token, opts, _left(deadline, clock()))
            if text is not None:
                return text
        for line, target, its_top in lines:
            line.look(target, token, top=its_top)
        locator = frame.locator(_selector(self.engine, "x", {**opts, "lineToken": token}))
        left = _left(deadline, clock())
        try:
            text = await _bounded(locator.text_content(timeout=left * 1000), left)
        finally:
            for line, _, its_top in lines:
                line.engine_ran(token, top=its_top)
        return text

    async def sheet_texts(self, page: Page, hrefs: Collection[str],
                          timeout_s: float) -> dict[str, str] | None:
        """Texts of ``page``'s style sheets loaded from ``hrefs``, as DevTools reads them (see
        :meth:`DirectLine.sheet_texts`); ``None`` where there is no direct line (the page's
        main world) or it cannot open a DevTools session."""
        line = self.line(page)
        return await line.sheet_texts(page, hrefs, timeout_s) if line is not None else None

    async def _main_extract(self, frame: Frame, opts: dict[str, Any]) -> Any:
        key = f"{opts.get('registryKey')}_extract"
        out = await frame.evaluate(_MAIN_EXTRACT_CALL, [key, opts])
        if out is None:
            out = await frame.evaluate(_main_install_js(), [key, opts])
        return out

    async def value(
        self, where: Frame | ElementHandle | Spot, source: str, arg: Any, timeout_s: float
    ) -> Any:
        """``(root, arg) => value`` run on ``where`` (a frame: root is null; an element or a
        spot: root is that element); the value as JSON data. A spot whose element is gone
        raises :class:`~webrefs.errors.StaleRefError`."""
        if isinstance(where, Spot):
            if self.engine is None:
                where = where.handle
            else:
                find, find_arg = where.find
                selector = _selector(self.engine, "v",
                                     {"s": source, "a": arg, "f": find, "fa": find_arg})
                text = await _bounded(
                    where.frame.locator(selector).text_content(timeout=timeout_s * 1000),
                    timeout_s)
                if text == _GONE:
                    raise StaleRefError(
                        "The element is no longer on the page.",
                        hint="Take a new snapshot and use a current ref.")
                return json.loads(text) if isinstance(text, str) else None
        if self.engine is None:
            script = f"(root, a) => ({source})(root, a)"
            if isinstance(where, Frame):
                return await _bounded(
                    where.evaluate(f"(a) => ({source})(null, a)", arg), timeout_s)
            return await _bounded(where.evaluate(script, arg), timeout_s)
        selector = _selector(self.engine, "v", {"s": source, "a": arg})
        if isinstance(where, Frame):
            text = await _bounded(
                where.locator(selector).text_content(timeout=timeout_s * 1000), timeout_s)
        else:
            text = await _bounded(_text_under(where, selector), timeout_s)
        return json.loads(text) if isinstance(text, str) else None

    async def element(
        self, where: Frame | ElementHandle | Spot, source: str, arg: Any, timeout_s: float
    ) -> ElementHandle | None:
        """``(root, arg) => element | null`` run on ``where``; a handle of the element."""
        if isinstance(where, Spot):
            where = where.handle
        if self.engine is None:
            if isinstance(where, Frame):
                handle = await _bounded(
                    where.evaluate_handle(f"(a) => ({source})(null, a)", arg), timeout_s)
            else:
                handle = await _bounded(
                    where.evaluate_handle(f"(root, a) => ({source})(root, a)", arg), timeout_s)
            element: ElementHandle | None = handle.as_element()
            if element is None:
                with contextlib.suppress(PlaywrightError):
                    await handle.dispose()
            return element
        selector = _selector(self.engine, "e", {"s": source, "a": arg})
        found: ElementHandle | None = await _bounded(where.query_selector(selector), timeout_s)
        return found


async def _text_under(handle: ElementHandle, selector: str) -> str | None:
    box = await handle.query_selector(selector)
    if box is None:
        return None
    try:
        return await box.text_content()
    finally:
        # released in the background: the answer does not wait for one more round trip
        _pending.add(task := asyncio.ensure_future(_dispose(box)))
        task.add_done_callback(_pending.discard)


_pending: set[asyncio.Future[None]] = set()
"""Handle releases under way (kept referenced until done)."""


async def _dispose(box: ElementHandle) -> None:
    with contextlib.suppress(PlaywrightError):
        await box.dispose()


def _left(deadline: float, now: float) -> float:
    """Seconds left before ``deadline``; the builtin :class:`TimeoutError` when none are."""
    if now >= deadline:
        raise TimeoutError
    return deadline - now


def url_origin(url: str) -> Origin | None:
    """The origin (scheme, host, port) of an ``http:`` or ``https:`` address; ``None`` for
    any other (``about:``, ``data:``, ``blob:``, ``srcdoc``: a document of its parent's
    origin) or a malformed one."""
    try:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return None
        return (parts.scheme, parts.hostname or "", parts.port)
    except ValueError:  # a malformed port
        return None


async def _bounded(awaitable: Any, timeout_s: float) -> Any:
    try:
        return await asyncio.wait_for(awaitable, timeout_s)
    except PlaywrightTimeoutError:
        raise TimeoutError from None
