/*
 * webrefs extractor, JSON format version 2.
 *
 * A function expression: evaluate it in one frame and call it with one options object; it
 * returns ONE JSON string describing what a sighted user can see in that frame's document.
 * Hosts other than Playwright (a WebView that evaluates JS and returns a string) can run
 * `(<this file>)({...options})` and hand the string to `webrefs.parse_snapshot_json`.
 *
 * Options (all optional):
 *   maxNodes        emitted nodes before the walk stops (2000)
 *   maxTextPerNode  characters kept of a name, text or value (200)
 *   maxAttr         characters kept of an attribute value (150)
 *   maxDepth        deepest emitted depth; deeper nodes are lifted to the deepest allowed
 *                   ancestor and "maxDepth" is added to truncatedReasons (100)
 *   maxOptions      options listed per <select> (50)
 *   maxTimeMs       the walk stops (reason "maxTime") after this many milliseconds (5000)
 *   contentRefs     also give refs to content nodes (headings, images, cells, text...) (false)
 *   prefix          ref prefix of this frame: "" for the main frame, "f1", "f2"... ("")
 *   nextRef         number the next new ref continues from (1)
 *   rootSelector    CSS selector: extract only the first matching subtree (null)
 *   clickProbe      event name: an element for which dispatching it is cancelled has a click
 *                   handler set by a page script (asked from another world) (null); asked of
 *                   elements that could be controls, inline ones folded into text included,
 *                   once the document, asked first, answered that some element has one;
 *                   with `-n`, `-here` and `-failed` after it, it asks the page's world
 *                   what changed unseen, whether it came before the page's scripts, and
 *                   whether a style sheet's link failed to load
 *   registryKey     global name of the page-side ref registry ("__webrefsRegistry"); a host
 *                   may pick an unguessable one so a page cannot plant a fake first
 *   capSlack        characters kept of a text past its cap (still reported as cut), for
 *                   the host to cut after its own work (secrets are replaced first) (0)
 *   since           the `watch` token of this document's last output: when nothing changed
 *                   since, the answer is {version, unchanged: token, jsTimeMs}; when only the
 *                   page's own scroll did, {version, rescrolled: token, scroll, document,
 *                   flips, boxes, shifts, jsTimeMs, watch}: the last output with these scroll
 *                   offsets and document size, inViewport turned over on the nodes at the
 *                   `flips` paths (child indexes from root), the boxes at `boxes` ([path, box]
 *                   each) and every box of each subtree at `shifts` moved ([path, dx, dy]
 *                   each: the boxes it holds, its root's included, at x + dx, y + dy; in a
 *                   retexted answer only the kept ones, not those of `nodes` or `splices`,
 *                   which come as they are now); when
 *                   only parts of it changed, {version, retexted: token, nodes, splices,
 *                   names, flips, boxes, shifts, frames, hosted, document, focusedRef, nextRef,
 *                   stats, jsTimeMs, watch}: the last output with the nodes at the `nodes`
 *                   paths replaced ([path, node] each), ranges of children replaced
 *                   (`splices`: [path, start, end, nodes] each), the names at the `names`
 *                   paths ([path, name]), the iframe nodes at the `frames` paths given their
 *                   new content origin ([path, cx, cy]), and flips, boxes, shifts, document,
 *                   focusedRef, nextRef and stats as given; `hosted` lists the iframe nodes
 *                   of the new subtrees, each [path once applied, key, cx, cy] (null)
 *   sheetTexts      {doc, texts: {address: text}}: style sheets of other origins that the
 *                   document `doc` names (see `opaqueSheets`) loaded and cannot read, as the
 *                   host read them elsewhere; taken only by that document. Their rules count
 *                   for what a read around a change may skip, from the next read that walks
 *                   on; generated content is read as for a sheet not read, so no output
 *                   changes by them (null)
 *   partial         false: with `since`, answer "unchanged" or give a full output, never a
 *                   rescrolled or retexted answer (for a host that keeps only the last
 *                   output's text, as of child frames) (true)
 *
 * Output object:
 *   version      2
 *   url, title   of the document
 *   viewport     {width, height}   CSS pixels
 *   scroll       {x, y}            scroll position
 *   document     {width, height}   scrollable size
 *   focusedRef   ref of the focused element, or null
 *   nextRef      the counter after this run (pass it back next time)
 *   iframes      number of iframe nodes in the tree
 *   watch        token to pass as `since` next time (absent: the document cannot vouch)
 *   rootMissing  true when rootSelector matched nothing (root then has no children)
 *   opaqueSheets {doc, hrefs}: the document's own name for itself (random, for `sheetTexts`)
 *                and the addresses of the style sheets of other origins it loaded whose
 *                rules it cannot read and no `sheetTexts` gave (absent when none)
 *   stats        {domNodes, visitedNodes, emittedNodes, skippedHidden, jsTimeMs, truncated,
 *                 truncatedReasons: ["maxNodes"|"maxDepth"|"maxTextPerNode"|"maxAttr"|
 *                 "maxOptions"|"maxVisited"|"maxTime"]}
 *   root         node for <body> (with rootSelector: <body> holding only the chosen subtree)
 *
 * Node (keys left out when empty / default):
 *   tag         lower-case tag name; left out for a run of text standing between element
 *               children of a node (such a node has only `text`; readers call it "#text")
 *   role        explicit role attribute, else the implicit role; absent for generic text
 *   name        accessible name by accname 1.2 / HTML-AAM (CSS generated content, embedded
 *               controls, aria-owns; never a password's value), placeholder last
 *   text        direct visible text (inline text-only children folded in), whitespace folded;
 *               an inline child that has a click handler of its own is never folded
 *   ref         "e12" (main frame) / "f1e3" (frames): interactive and clickable nodes and
 *               tables (to be read with get_text) always, content nodes with contentRefs
 *   level       heading level; tree item level (aria-level, else its nesting of tree items)
 *   states      {checked: true|false|"mixed", selected, disabled, readonly, required,
 *                expanded, pressed, focused, invalid, modal, scrolled-out: scrolled out of a
 *                box's view above the page's top, kept)
 *   attrs       whitelisted attributes (href, name, type, value, placeholder, src, action,
 *               method, alt, title, min, max, step, aria-* states), capped; data: URLs shortened
 *   value       current value of form controls (never of password fields), whitespace kept
 *               as the field holds it (new lines, runs of spaces)
 *   options     [{value, label, selected, disabled}] of a <select>
 *   box         [x, y, w, h] in page coordinates of this frame's document (whole pixels)
 *   inViewport  intersects the viewport
 *   fontSize    computed font size in px (left out when 16)
 *   clickable   a control without an interactive role: its own cursor:pointer, grab or move
 *               (not inherited), draggable="true", an onclick attribute or property, a click
 *               handler the page's world reports through clickProbe, or tabindex >= 0 on an
 *               element with no role and no control inside; the items of a list (or rows of
 *               a row group) that is clickable as a whole are the controls instead of the list.
 *               Controls nested in clickable or interactive elements keep their own nodes.
 *   hint        a nameless control only (not a link that goes somewhere): what it may be, from (in order) its description
 *               (aria-description, aria-describedby), a title inside it, an icon's class, an
 *               <svg><use> symbol, an image or background image file name, a plain class,
 *               its id or name attribute. A guess for the model, never a name.
 *   frame       iframes only: {key, cx, cy}: key identifies the element for the host, cx/cy
 *               its content box origin in page coordinates
 *   children    child nodes (open shadow roots walked in place)
 *
 * Refs live in a page-side registry (element object <-> ref) kept under a non-enumerable,
 * non-configurable global; nothing is ever looked up through an attribute.
 */
(opts) => {
  'use strict';
  const t0 = performance.now();
  const o = opts || {};
  const num = (v, d) => (typeof v === 'number' && v > 0 ? Math.floor(v) : d);
  const MAX_NODES = num(o.maxNodes, 2000);
  const MAX_TEXT = num(o.maxTextPerNode, 200);
  const MAX_ATTR = num(o.maxAttr, 150);
  const SLACK = num(o.capSlack, 0);
  const MAX_DEPTH = Math.max(2, num(o.maxDepth, 100));
  const MAX_OPTIONS = num(o.maxOptions, 50);
  const MAX_VISITED = Math.max(MAX_NODES * 100, 200000);
  const CONTENT_REFS = !!o.contentRefs;
  const deadline = t0 + num(o.maxTimeMs, 5000);
  const PREFIX = typeof o.prefix === 'string' ? o.prefix : '';
  const win = window;
  const doc = document;

  // ---- registry ---------------------------------------------------------------------------
  const PROBE = typeof o.clickProbe === 'string' ? o.clickProbe : null;
  // A click handler only the page's world can see (el.onclick = fn set by a script, listeners
  // its responder saw added): the element is asked with a cancelable event. A page can at most
  // make its own element look clickable, which cursor:pointer allows anyway.
  // One event object, set up again for each question (far cheaper than a new one each time).
  // The document is asked first whether the page gave any element a handler at all.
  const probeEvent = PROBE === null ? null : new CustomEvent(PROBE, { cancelable: true });
  const ask = (t) => { probeEvent.initEvent(PROBE, false, true); return !t.dispatchEvent(probeEvent); };
  const probed = PROBE === null || !ask(document) ? () => false : ask;
  const KEY = typeof o.registryKey === 'string' && o.registryKey ? o.registryKey : '__webrefsRegistry';
  let reg = win[KEY];
  if (!reg || typeof reg !== 'object' || !(reg.books instanceof Map)) {
    reg = { books: new Map(), frames: new WeakMap(), frameNext: 1 };
    try {
      Object.defineProperty(win, KEY, { value: reg, enumerable: false, configurable: false, writable: false });
    } catch (e) { /* already defined by someone else: use a private one */ }
  }
  // style sheets of other origins as the host read them (see sheetTexts): by address, the
  // text until a walk reads its rules, then what they do (null: not readable as given)
  const foreign = reg.foreign instanceof Map ? reg.foreign : (reg.foreign = new Map());
  if (typeof reg.doc !== 'string') reg.doc = Math.random().toString(36).slice(2);
  const given = o.sheetTexts;
  if (given && typeof given === 'object' && given.doc === reg.doc && given.texts && typeof given.texts === 'object') {
    for (const [href, text] of Object.entries(given.texts)) {
      if (typeof text === 'string' && !foreign.has(href) && foreign.size < 200) foreign.set(href, text);
    }
  }
  let book = reg.books.get(PREFIX);
  if (!book) {
    book = { byEl: new WeakMap(), byRef: new Map(), next: 1 };
    reg.books.set(PREFIX, book);
  }
  let next = Math.max(num(o.nextRef, 1), book.next);
  if (book.byRef.size > 20000) {
    for (const [r, w] of book.byRef) if (!w.deref()) book.byRef.delete(r);
  }
  const refFor = (el) => {
    let r = book.byEl.get(el);
    if (r === undefined) {
      r = PREFIX + 'e' + next++;
      book.byEl.set(el, r);
      book.byRef.set(r, new WeakRef(el));
    }
    return r;
  };

  // what makes a box with a tab stop no control itself (it holds one)
  const CONTROLS = 'a[href],button,input,select,textarea,[contenteditable],[tabindex]:not([tabindex^="-"])';
  const FIELD = new Set(['input', 'textarea', 'select']), FIELDS = [...FIELD].join(',');

  // ---- unchanged document (`since`: the token of the last output; see ARCHITECTURE.md) ----
  const WKEY = JSON.stringify([MAX_NODES, MAX_TEXT, MAX_ATTR, SLACK, MAX_DEPTH, MAX_OPTIONS,
    CONTENT_REFS, PREFIX, o.maxTimeMs, o.rootSelector, PROBE]);
  const MO = { subtree: true, childList: true, attributes: true, characterData: true, characterDataOldValue: true };
  const MEDIA = ('print|(prefers-color-scheme:dark)|(prefers-reduced-motion:reduce)|(forced-colors:active)|' +
    '(prefers-contrast:more)|(hover:hover)|(pointer:coarse)|(pointer:fine)').split('|');
  // the HTML element that is x or holds it (an SVG image's, for an element in it)
  const htmlOf = (x) => { while (x && !(x instanceof win.HTMLElement)) x = x.parentElement; return x; };
  let W = reg.watch;
  if (!W || W.doc !== doc) {
    const touch = () => { W.dirty = true; };
    // Text edited in place (a text node's data, or an element's text nodes swapped for
    // others) is kept apart, by the element holding the text, and so are elements whose
    // attributes changed (but WIDE ones): the next read may walk only around them (see
    // reread). Not so for text in or out of blank (:empty, blank runs), in a style sheet or
    // the title; any other change dirties the watch (a script's text, none).
    const LIT = /\S/, UNREAD = new Set(['style', 'title']), UNSHOWN = new Set(['script', 'noscript']);
    // attributes that tie an element to others (references, controls a box may hold, a
    // form's or a slot's members), and elements whose attributes reach the whole page (and
    // whose children put in or taken out do too, but the body's: a dialog a script puts in
    // at the end of the page is read around it, as under any element)
    const WIDE = new Set(['id', 'for', 'form', 'name', 'slot', 'aria-owns', 'aria-activedescendant',
      'tabindex', 'href', 'contenteditable']);
    const WIDE_TAG = new Set(['html', 'head', 'body', 'style', 'link', 'meta', 'base', 'dialog']);
    const lit = (list) => {
      let any = false;
      for (const x of list) {
        if (x.nodeType === 3) any = any || LIT.test(x.data);
        else if (x.nodeType !== 8) return null;  // (comments show nothing)
      }
      return any;
    };
    // elements put in or taken out are read around them too, but not those that reach
    // beyond what holds them (sheets, a frameset's frames, plugins, a datalist's or a map's
    // members, slots; an iframe does not: the host hangs its frame where the read says)
    const REACH = 'style,link,meta,base,frame,object,embed,slot,template,dialog,datalist,map,area';
    // (a control put in or taken out under a box with a tab stop makes or unmakes that box
    // a control, above what is walked again; a field, what holds it valid or not: fielded.
    // A box taken out of the tab order, `tabindex="-1"` as a skip link's target, has none.)
    const tabStopAt = (t) => {
      for (let a = t.closest('[tabindex]'); a; a = a.parentElement && a.parentElement.closest('[tabindex]')) {
        if (a.tabIndex >= 0) return true;
      }
      return false;
    };
    const kin = (r, t) => {
      let tabbed = null;
      for (const list of [r.addedNodes, r.removedNodes]) for (const x of list) {
        if (x.nodeType === 1) {
          if (x.matches(REACH) || x.querySelector(REACH)) return false;
          if (x.matches(CONTROLS) || x.querySelector(CONTROLS)) {
            if (tabbed ??= tabStopAt(t)) return false;
            if (x.matches(FIELDS) || x.querySelector(FIELDS)) W.fielded = true;
          }
        } else if (x.nodeType !== 3 && x.nodeType !== 8) return false;
      }
      return true;
    };
    const note = (recs) => {
      for (let i = 0; i < recs.length && !W.dirty; i++) {
        const r = recs[i], t = r.target;
        let k = null;
        if (r.type === 'characterData') {
          if (t.nodeType === 8) continue;
          if (t.nodeType === 3 && LIT.test(r.oldValue || '') && LIT.test(t.data)) k = t.parentNode;
        } else if (r.type === 'childList' && lit(r.removedNodes) && lit(r.addedNodes)) k = t;
        else if (r.type === 'attributes' && !WIDE.has(r.attributeName) && !WIDE_TAG.has(t.localName)) {
          W.attrs.add(t);
          if (r.attributeName === 'class') W.classed = true;
          continue;
        } else if (r.type === 'childList' && t.nodeType === 1 && (!WIDE_TAG.has(t.localName) || t === doc.body) &&
            !UNREAD.has(t.localName) && !t.closest('datalist,map') && W.gone.length < 500 &&
            kin(r, t)) {
          // (read as a change of the element that holds them; what was taken out is looked
          // at again for what names or describes another; elements only put in, as such:
          // each may be walked alone into its place, see reread)
          if (!r.removedNodes.length && W.adds.length < 50 &&
              ![...r.addedNodes].some((x) => x.nodeType === 3 && LIT.test(x.data))) {
            for (const x of r.addedNodes) if (x.nodeType === 1) W.adds.push(x);
            continue;
          }
          // (an element taken out alone, with the siblings it was between: it may be
          // spliced out alone, see reread)
          const els = [...r.removedNodes].filter((x) => x.nodeType === 1);
          if (!r.addedNodes.length && els.length === 1 && W.outs.length < 50 &&
              ![...r.removedNodes].some((x) => x.nodeType === 3 && LIT.test(x.data))) {
            W.outs.push([els[0], t, r.previousSibling, r.nextSibling]);
            W.gone.push(els[0]);
            continue;
          }
          W.attrs.add(t);
          for (const x of r.removedNodes) if (x.nodeType === 1) W.gone.push(x);
          continue;
        }
        if (k && UNSHOWN.has(k.localName)) continue;  // (a script's text shows nowhere)
        if (k && !UNREAD.has(k.localName)) W.texts.add(k); else W.dirty = true;
      }
    };
    W = { doc, dirty: true, n: 0, roots: new Set(), sc: [], mo: new MutationObserver(note), note,
      texts: new Set(), attrs: new Set(), classed: false, fielded: false, gone: [], adds: [], outs: [], last: null, geo: [], boxed: [], framed: [], skipped: null, skippedList: [], nodeOf: new Map(), wrapOf: new Map(), counts: null,
      media: MEDIA.map((q) => win.matchMedia(q)),
      fields: [...FIELD].map((t) => doc.getElementsByTagName(t)),
      videos: doc.getElementsByTagName('video') };
    // (the page's own scroll is in the state list: a read after it alone reads the geometry)
    win.addEventListener('scroll', (e) => { if (e.target !== doc) W.dirty = true; },
      { capture: true, passive: true });
    // (a pointer moved, a click or a key is read from the state list: the elements under
    // the pointer, pressed or open, focus and whether it shows; see hovers. A popover shown
    // by its invoker, or dismissed, says so in beforetoggle, before any read.)
    for (const t of ('resize load error beforetoggle toggle fullscreenchange loadedmetadata pageshow ' +
      'hashchange popstate wheel submit reset').split(' ')) {
      win.addEventListener(t, touch, { capture: true, passive: true });
    }
    // (an element a transition or an animation started, ran or ended on is read again around
    // it, as one whose class changed; so is one that animations still run on at the read)
    const restyled = (e) => { const x = htmlOf(e.target); if (x) W.attrs.add(x); else W.dirty = true; };
    for (const t of ['transitionrun', 'transitionend', 'transitioncancel', 'animationstart', 'animationend', 'animationiteration', 'animationcancel']) {
      win.addEventListener(t, restyled, { capture: true, passive: true });
    }
    // A field's new value, and focus moved, are read from the state lists (see stateNow and
    // fieldsNow): a read after them alone walks around the fields and the elements focus
    // left and reached. Input into anything else (an editable box, a closed shadow root's
    // field, seen as its host) vouches for nothing.
    const typed = (e) => { const t = e.target; if (!t || t.nodeType !== 1 || !FIELD.has(t.localName)) W.dirty = true; };
    for (const t of ['input', 'change']) win.addEventListener(t, typed, { capture: true, passive: true });
    for (const t of [doc.fonts, win.visualViewport]) {
      if (t) for (const e of ['loading', 'loadingdone', 'resize', 'scroll']) t.addEventListener(e, touch);
    }
    reg.watch = W;
  }
  // page-world changes (the responder counts them; asking resets the count); a document
  // without the responder, or where it came late, vouches for nothing
  const askPage = (what, at = doc) => !at.dispatchEvent(new CustomEvent(PROBE + what, { cancelable: true }));
  const pageMoved = () => PROBE === null || askPage('-n');
  const pageWatched = () => PROBE !== null && askPage('-here');
  // what a field holds: [valid, selectedIndex, each option's selected] of a select, else
  // [valid, value, checked, indeterminate] (valid: a script's setCustomValidity, a radio
  // group checked elsewhere)
  const field = (el) => {
    if (el.localName !== 'select') return [el.validity.valid, el.value, el.checked, el.indeterminate];
    const v = [el.validity.valid, el.selectedIndex];
    if (el.multiple) for (const x of el.options) v.push(x.selected);
    return v;
  };
  // each field of the document and of the open shadow roots walked
  const eachField = (fn) => {
    for (const c of W.fields) for (const el of c) fn(el);
    for (const r of W.roots) for (const el of r.querySelectorAll(FIELDS)) fn(el);
  };
  // field -> what it holds
  const fieldsNow = () => { const m = new Map(); eachField((el) => m.set(el, field(el))); return m; };
  // the fields that hold something else than at the last read (one put in since is left to
  // the mutation records)
  const fieldsMoved = () => {
    const out = [], was = W.fseen;
    eachField((el) => {
      const w = was.get(el), v = w && field(el);
      if (w && (w.length !== v.length || w.some((x, i) => x !== v[i]))) out.push(el);
    });
    return out;
  };
  const last = (l) => (l.length ? l[l.length - 1] : null);
  // (:open: a picker shown, where the browser knows the class)
  const OPEN = CSS.supports('selector(:open)') ? ':open' : null;
  // the elements under the pointer (:hover), as stateNow found them
  let hovNow = null;
  // what may change with no event yet (a scroll's event comes at the next frame)
  const stateNow = () => {
    let a = doc.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    hovNow = doc.querySelectorAll(':hover');
    const pressed = doc.querySelectorAll(':active'), open = OPEN ? doc.querySelectorAll(OPEN) : [];
    const st = [String(doc.URL), win.innerWidth, win.innerHeight, win.scrollX, win.scrollY,
      win.devicePixelRatio, a, last(hovNow), !!a && a.matches(':focus-visible'), pressed.length,
      last(pressed), open.length, last(open), ...doc.adoptedStyleSheets, 0];
    // media a host may emulate (no event in time)
    for (const q of W.media) st.push(q.matches);
    for (const el of W.sc) st.push(el.scrollLeft, el.scrollTop);
    for (const r of W.roots) st.push(r.host && r.host.isConnected, last(r.querySelectorAll(':hover')), ...r.adoptedStyleSheets, 0);
    // images loaded or broken, and videos sized, since: their boxes, and so whether they
    // and what holds them show, change then, before their events come (and a page script
    // may keep those events from every later listener)
    const media = (el) => (el.localName === 'video' ? st.push(el, el.videoWidth, el.videoHeight)
      : st.push(el, el.complete, el.naturalWidth));
    for (const im of doc.images) media(im);
    for (const v of W.videos) media(v);
    for (const r of W.roots) for (const el of r.querySelectorAll('img,video')) media(el);
    return st;
  };
  const seeState = () => { W.seen = stateNow(); W.hov = hovNow; W.fseen = fieldsNow(); };
  // the elements that animations run on (pending or running; for one in an SVG image, the
  // HTML element that holds the image), or null where one runs on none: a read walks again
  // around each, as around an element whose class changed
  const animated = () => {
    const out = new Set();
    for (const r of [doc, ...W.roots]) {
      for (const x of r.getAnimations()) {
        if (!x.pending && x.playState !== 'running') continue;
        const t = htmlOf(x.effect && x.effect.target);
        if (!t) return null;
        if (t.isConnected) out.add(t);
      }
    }
    return out;
  };
  // ---- a read after the page's own scroll alone (no mutation, no other state changed): every
  // box the last walk measured is measured again. When each moved by exactly the scroll, or
  // not at all (fixed or stuck to the viewport: then it moved on the page, and must not be
  // left of or above it, where hiding depends on where it is, unless that part of where it is
  // did not change: besidePage), and none changed size, the
  // walk's every decision stands: what changed is which nodes are seen in the viewport and
  // the page boxes of those that stayed put. The answer names those nodes by their path of
  // child indexes from the root; anything else (a sticky box that moved part of the way, a
  // layout change): null (the walk runs).
  // an iframe's content origin in page coordinates (its rect r, the page scrolled by x, y)
  const originOf = (el, cs, r, x, y) => [Math.round(r.left + x + el.clientLeft + (parseFloat(cs.paddingLeft) || 0)),
    Math.round(r.top + y + el.clientTop + (parseFloat(cs.paddingTop) || 0))];
  // the iframe nodes whose content origin is not where the last read put it (rectOf: its
  // element's rect now, or none where it did not move): node -> [cx, cy]
  const framesMoved = (rectOf, x, y) => {
    const out = new Map();
    for (let i = 0; i < W.framed.length; i += 3) {
      const n = W.framed[i], el = W.framed[i + 1], r = rectOf(el);
      const at = r && originOf(el, W.framed[i + 2], r, x, y);
      if (at && (n.frame.cx !== at[0] || n.frame.cy !== at[1])) out.set(n, at);
    }
    return out;
  };
  // the last output's nodes in `changed` (node -> [in the viewport, new box or null]) take
  // their change, and the iframe nodes in `reframed` (node -> [cx, cy]) their content origin,
  // subtrees in `skip` left out; [paths of those turned over, [path, box] ..., [path, cx, cy]
  // ..., [path, dx, dy] ...]. A subtree of two boxes or more that moved as one (every box in
  // it by the same dx, dy, none resized; a box not in `changed` moved by 0, 0) is named once
  // by the last list (its topmost node's path) instead of box by box: content put in or
  // taken out moves everything below it, often most of the page.
  const turn = (changed, skip, reframed = new Map()) => {
    const flips = [], boxes = [], frames = [], shifts = [];
    if (!changed.size && !reframed.size) return [flips, boxes, frames, shifts];
    // moveOf: a subtree's move, null where it holds no box, 0 where its boxes moved unlike,
    // else [dx, dy, how many boxes]; `whole` keeps those of two boxes or more that moved
    // (the walk below names the topmost)
    const whole = new Map();
    const moveOf = (n) => {
      const c = n.box && changed.get(n), nb = c && c[1], b = n.box;
      let m = !b ? null : !nb ? [0, 0, 1] : nb[2] !== b[2] || nb[3] !== b[3] ? 0 : [nb[0] - b[0], nb[1] - b[1], 1];
      for (const kid of n.children || []) {
        const k = skip && skip.has(kid) ? null : moveOf(kid);
        if (m === 0 || !k) m = k === 0 ? 0 : m;
        else if (!m) m = k;
        else m = k[0] !== m[0] || k[1] !== m[1] ? 0 : [m[0], m[1], m[2] + k[2]];
      }
      if (m && m[2] > 1 && (m[0] || m[1])) whole.set(n, m);
      return m;
    };
    if ([...changed.values()].some((c) => c[1])) moveOf(W.last.root);
    // (one path, copied only where a node changed)
    const path = [];
    const visit = (n, moved) => {
      const c = changed.get(n), f = reframed.get(n), w = !moved && whole.get(n);
      if (w) { shifts.push([path.slice(), w[0], w[1]]); moved = true; }
      if (c) {
        if (c[0] !== !!n.inViewport) {
          flips.push(path.slice());
          if (c[0]) n.inViewport = true; else delete n.inViewport;
        }
        if (c[1]) { if (!moved) boxes.push([path.slice(), c[1]]); n.box = c[1]; }
      }
      if (f) { frames.push([path.slice(), f[0], f[1]]); n.frame.cx = f[0]; n.frame.cy = f[1]; }
      const kids = n.children;
      if (kids) {
        for (let i = 0; i < kids.length; i++) {
          if (skip && skip.has(kids[i])) continue;
          path.push(i); visit(kids[i], moved); path.pop();
        }
      }
    };
    visit(W.last.root, false);
    return [flips, boxes, frames, shifts];
  };
  // an element that stayed put in the viewport and is (or was) left of or above the page:
  // whether where it is on the page decides nothing new. So when the scroll was along one
  // axis only, the element's page edge along the other did not move, and along the scroll it
  // was and is on the page; and no box it is in can shift it (none scrolled or can scroll,
  // so none was scrolled unseen; content that overflows a box whose overflow is visible or
  // clipped cannot be scrolled): the walk's test (hiddenBox) gives what it gave.
  const FIXED_OVERFLOW = /^(visible|clip)$/;
  const besidePage = (el, r, a, nsx, nsy, osx, osy) => {
    if (!((nsx === osx && r.bottom + nsy > 0 && a.bottom + osy > 0) ||
          (nsy === osy && r.right + nsx > 0 && a.right + osx > 0))) return false;
    const top = doc.scrollingElement;
    for (let p = el.parentElement; p && p !== top; p = p.parentElement) {
      if (p.scrollLeft || p.scrollTop) return false;
      if (p.scrollWidth > p.clientWidth || p.scrollHeight > p.clientHeight) {
        const cs = win.getComputedStyle(p);
        if (!FIXED_OVERFLOW.test(cs.overflowX) || !FIXED_OVERFLOW.test(cs.overflowY)) return false;
      }
    }
    return true;
  };
  const rescroll = (since) => {
    const L = W.last, nsx = win.scrollX, nsy = win.scrollY, osx = L.scroll.x, osy = L.scroll.y;
    const dx = nsx - osx, dy = nsy - osy, g = W.geo, now = new Map();
    for (let i = 0; i < g.length; i += 3) {
      const el = g[i], a = g[i + 1], r = el.getBoundingClientRect();
      if (r.width !== a.width || r.height !== a.height) return null;
      if (r.left !== a.left - dx || r.top !== a.top - dy) {
        if (r.left !== a.left || r.top !== a.top || (r.width > 0 && r.height > 0 &&
            (r.right + nsx <= 0 || r.bottom + nsy <= 0 || a.right + osx <= 0 || a.bottom + osy <= 0) &&
            !besidePage(el, r, a, nsx, nsy, osx, osy))) return null;
      }
      now.set(el, r);
      // (the next read after a scroll compares with this one; a read that finds anything
      // else walks the page and measures all again)
      g[i + 1] = r;
    }
    const ivw = win.innerWidth, ivh = win.innerHeight, changed = new Map();
    for (let i = 0; i < W.boxed.length; i += 2) {
      const n = W.boxed[i], r = now.get(W.boxed[i + 1]), b = n.box;
      if (!r) return null;
      const box = [Math.round(r.left + nsx), Math.round(r.top + nsy), b[2], b[3]];
      const iv = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < ivw && r.top < ivh;
      const moved = box[0] !== b[0] || box[1] !== b[1];
      if (moved || iv !== !!n.inViewport) changed.set(n, [iv, moved ? box : null]);
    }
    const unplaced = { left: 0, top: 0 };  // (an iframe with no box)
    if (framesMoved((el) => now.get(el) || unplaced, nsx, nsy).size) return null;
    const [flips, boxes, , shifts] = turn(changed, null);
    const se = doc.scrollingElement || doc.documentElement;
    L.scroll = { x: nsx, y: nsy };
    L.document = { width: se ? se.scrollWidth : ivw, height: se ? se.scrollHeight : ivh };
    seeState();
    W.token = L.watch = PREFIX + 'w' + ++W.n + '.' + Math.random().toString(36).slice(2);
    return JSON.stringify({ version: 2, rescrolled: since, scroll: L.scroll, document: L.document,
      flips, boxes, shifts, jsTimeMs: performance.now() - t0, watch: W.token });
  };
  // (focusMoved: the focused element is another; focal: those read again for that alone;
  // hovers: the elements the pointer left or reached, read again where a sheet's :hover
  // may style them: see reread)
  let retext = false, focusMoved = false;
  const focal = new Set(), hovers = new Set();
  if (typeof o.since === 'string' && W.token === o.since && W.key === WKEY &&
      Math.max(num(o.nextRef, 1), book.next) === W.next) {
    W.note(W.mo.takeRecords());
    const anim = W.dirty ? null : animated();
    let same = anim !== null, scrolled = false;
    if (same) {
      const st = stateNow(), was = W.seen;
      // (3 and 4: the page's scroll offsets; 6: the focused element, 8: whether its focus
      // shows (a key after a click); 7: the innermost element under the pointer, whose whole
      // list is compared below)
      same = st.length === was.length && st.every((v, i) => v === was[i] || (v !== v && was[i] !== was[i]) ||
        ((i === 3 || i === 4) && (scrolled = true)) || ((i === 6 || i === 8) && (focusMoved = true)) || i === 7);
      if (same) {
        const a = new Set(W.hov), b = new Set(hovNow);
        for (const x of a) if (!b.has(x)) hovers.add(x);
        for (const x of b) if (!a.has(x)) hovers.add(x);
      }
      // (fields that hold something else, the elements focus left and reached, and those
      // animations run on, are read as elements whose attributes changed: see reread)
      if (same) for (const el of [...fieldsMoved(), ...anim]) W.attrs.add(el);
      if (same && focusMoved) {
        for (const a of [was[6], st[6]]) {
          if (a && a.isConnected && a !== doc.body && a !== doc.documentElement && !W.attrs.has(a)) {
            W.attrs.add(a);
            focal.add(a);
          }
        }
      }
    }
    // (asked every time: the asking resets it)
    if (pageMoved()) same = false;
    const edited = W.texts.size > 0 || W.attrs.size > 0 || W.adds.length > 0 || W.outs.length > 0 ||
      hovers.size > 0;
    if (same && !scrolled && !edited) return JSON.stringify({ version: 2, unchanged: W.token, jsTimeMs: performance.now() - t0 });
    const partial = o.partial !== false && W.last;
    if (same && edited && !scrolled && partial) retext = true;  // (read once the walk is set up)
    const moved = same && !edited && partial ? rescroll(o.since) : null;
    if (moved) return moved;
  }
  const forget = () => {
    W.token = null;
    W.last = null;
    W.geo = [];
    W.boxed = [];
    W.framed = [];
    W.rest = null;
    W.nodeOf = new Map();
    W.wrapOf = new Map();
  };
  if (!retext) forget();
  const scrollers = [];
  const seeRoot = (r) => { if (!W.roots.has(r)) { W.roots.add(r); W.mo.observe(r, MO); } };

  // ---- text helpers -------------------------------------------------------------------------
  const reasons = new Set();
  const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const wellFormed = String.prototype.toWellFormed
    ? (s) => s.toWellFormed()
    : (s) => s.replace(LONE, '\uFFFD');
  // runs of white space to one space (a string whose only white space is single spaces is kept)
  const WS_RUN = /\s\s|[^\S ]/;
  const fold = (s) => (WS_RUN.test(s) ? s.replace(/\s+/g, ' ') : s).trim();
  // cuts made, by reason (a read after a text edit subtracts those of the subtrees it walks again)
  const cuts = { maxTextPerNode: 0, maxAttr: 0, maxOptions: 0 };
  const cut = (why) => { reasons.add(why); cuts[why]++; };
  const cap = (s, max, why) => {
    if (s.length > max) {
      cut(why);
      if (s.length > max + SLACK) s = s.slice(0, max + SLACK - 1) + '\u2026';
    }
    return wellFormed(s);
  };
  // long texts are cut this short before folding
  const PRECUT = MAX_TEXT * 8 + SLACK;
  const capText = (s) => cap(fold(s.length > PRECUT ? s.slice(0, PRECUT) : s), MAX_TEXT, 'maxTextPerNode');
  // a form field's value as the field holds it: new lines and runs of spaces kept
  const capValue = (s) => cap(s, MAX_TEXT, 'maxTextPerNode');

  // ---- tables -------------------------------------------------------------------------------
  const SKIP = new Set(['script', 'style', 'head', 'meta', 'link', 'base', 'title', 'datalist', 'param', 'source', 'track']);
  const SKIP_COUNTED = new Set(['template', 'noscript']);
  const LEAF = new Set(['button', 'select', 'textarea', 'input', 'option', 'img', 'video', 'audio', 'canvas', 'iframe', 'frame', 'object', 'embed', 'progress', 'meter', 'svg', 'math']);
  // A tiny (1x1 px) replaced element is small, not clipped away.
  const REPLACED = new Set(['img', 'input', 'select', 'textarea', 'video', 'canvas', 'object', 'embed']);
  const NONBLANK_RE = /\S/;
  const INLINE = new Set(['b', 'i', 'em', 'strong', 'span', 'small', 'sub', 'sup', 'code', 'abbr', 'cite', 'q', 'mark', 'u', 's', 'del', 'ins', 'time', 'kbd', 'var', 'samp', 'bdi', 'bdo', 'font', 'big', 'tt', 'data', 'dfn', 'strike', 'nobr']);
  const INTERACTIVE = new Set(['link', 'button', 'textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio', 'slider', 'spinbutton', 'switch', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'option', 'treeitem', 'gridcell']);
  const CONTENT = new Set(['heading', 'img', 'cell', 'columnheader', 'rowheader', 'listitem', 'paragraph', 'term', 'definition', 'caption', 'blockquote', 'code', 'status', 'alert', 'math', 'progressbar', 'meter', 'tooltip', 'note', 'figure', 'article', 'image', 'mark', 'time', 'emphasis', 'strong']);
  const NAMED_BY_CONTENT = new Set(['button', 'link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'checkbox', 'radio', 'switch', 'cell', 'gridcell', 'columnheader', 'rowheader', 'tooltip', 'caption', 'term']);
  const CELLS = new Set(['cell', 'columnheader', 'rowheader']);
  const SUPPRESS_INSIDE = new Set(['link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'checkbox', 'radio', 'switch', 'button']);
  const PRESENTATIONAL_KIDS = new Set(['button', 'checkbox', 'img', 'meter', 'option', 'progressbar', 'radio', 'scrollbar', 'separator', 'slider', 'switch', 'tab', 'menuitemcheckbox', 'menuitemradio', 'textbox', 'searchbox', 'spinbutton']);
  const ATTRS = new Set(['href', 'name', 'type', 'value', 'placeholder', 'src', 'action', 'method', 'alt', 'title', 'min', 'max', 'step']);
  const ARIA_ATTRS = new Set(['aria-checked', 'aria-selected', 'aria-expanded', 'aria-pressed', 'aria-disabled', 'aria-current', 'aria-haspopup', 'aria-invalid', 'aria-required', 'aria-readonly', 'aria-valuenow', 'aria-valuetext', 'aria-valuemin', 'aria-valuemax', 'aria-sort', 'aria-busy', 'aria-level', 'aria-multiselectable', 'aria-autocomplete', 'aria-placeholder', 'aria-describedby', 'aria-controls', 'aria-modal', 'aria-live']);
  const TEXT_INPUT = new Set(['text', 'email', 'password', 'tel', 'url', 'search', '']);
  const LANDMARK_SCOPE = 'article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]';
  const HEADINGS = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

  const inputType = (el) => (el.getAttribute('type') || '').toLowerCase();

  function implicitRole(el, tag) {
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
      case 'button': return 'button';
      case 'input': {
        const t = inputType(el);
        if (t === 'checkbox') return 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (t === 'submit' || t === 'reset' || t === 'button' || t === 'image' || t === 'file') return 'button';
        if (t === 'hidden') return null;
        if (el.hasAttribute('list') && TEXT_INPUT.has(t)) return 'combobox';
        return 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'header': return el.closest(LANDMARK_SCOPE) ? null : 'banner';
      case 'footer': return el.closest(LANDMARK_SCOPE) ? null : 'contentinfo';
      case 'form': return 'form';
      case 'search': return 'search';
      case 'table': return 'table';
      case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
      case 'tr': return 'row';
      case 'td': { const t = el.closest('table'); return t && t.getAttribute('role') === 'grid' ? 'gridcell' : 'cell'; }
      case 'th': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'caption': return 'caption';
      case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('title') ? null : 'img';
      case 'article': return 'article';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title') ? 'region' : null;
      case 'aside': return 'complementary';
      case 'dialog': return 'dialog';
      case 'details': return 'group';
      case 'fieldset': return 'group';
      case 'summary': return 'button';
      case 'option': return 'option';
      case 'optgroup': return 'group';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'output': return 'status';
      case 'hr': return 'separator';
      case 'figure': return 'figure';
      case 'p': return 'paragraph';
      case 'blockquote': return 'blockquote';
      case 'dt': return 'term';
      case 'dd': return 'definition';
      case 'iframe': case 'frame': return 'iframe';
      case 'math': return 'math';
      default: return null;
    }
  }

  const NATIVE_FOCUSABLE = new Set(['button', 'input', 'select', 'textarea']);
  function roleOf(el, tag) {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (first === 'none' || first === 'presentation') {
        if (!(NATIVE_FOCUSABLE.has(tag) || (tag === 'a' && el.hasAttribute('href')))) return null;
      } else if (first === 'generic') {
        return null;
      } else if (first) {
        return first;
      }
    }
    if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return 'textbox';
    return implicitRole(el, tag);
  }

  // ---- visibility -----------------------------------------------------------------------------
  const vw = win.innerWidth, vh = win.innerHeight, sx = win.scrollX, sy = win.scrollY;
  const pageScroller = doc.scrollingElement;
  // every box measured (element, rect, fixed to the viewport), the nodes given a box and the
  // iframe nodes (with their element and style): what a read after a scroll alone, or after
  // text or attributes edited, measures again (see rescroll, reread)
  const geo = [], boxed = [], framed = [];
  // elements the walk skipped whole (not laid out, hidden, not drawn: counted as visited and
  // skipped, and nothing more), each with the node what they hold would go under: one shown
  // since may be walked alone into its place (see reread)
  const skippedWhole = [];
  const CLIP_RE = /rect\(\s*(-?[\d.]+)px,?\s*(-?[\d.]+)px,?\s*(-?[\d.]+)px,?\s*(-?[\d.]+)px/;
  const INSET_RE = /^inset\(\s*(?:5\d|[6-9]\d|100)%/;
  // Elements scrolled out of a box's view above the page's top (kept, and marked).
  const scrolledOut = new WeakSet();
  // 0 visible, 1 hidden with subtree; rect is filled in when the element has a box.
  function hiddenBox(el, cs, rect, clipPath, pos) {
    const w = rect.width, h = rect.height;
    if (((w <= 1 && cs.overflowX !== 'visible') || (h <= 1 && cs.overflowY !== 'visible')) &&
        !(w > 0 && h > 0 && REPLACED.has(el.localName))) return true;
    // squashed under 1% of its box (by `scale` too, which gone() does not see)
    if ((w < 1 || h < 1) && w * h < 0.01 * el.offsetWidth * el.offsetHeight) return true;
    if ((pos === 'absolute' || pos === 'fixed') && cs.clip !== 'auto') {
      const m = CLIP_RE.exec(cs.clip);
      if (m && (+m[2] - +m[4]) * (+m[3] - +m[1]) <= 1) return true;
    }
    if (clipPath !== 'none' && INSET_RE.test(clipPath)) return true;
    if (w > 0 && h > 0) {
      if (pos === 'fixed') {
        if (rect.right <= 0 || rect.bottom <= 0 || rect.left >= vw || rect.top >= vh) return true;
      } else if (rect.right + sx <= 0 || rect.bottom + sy <= 0) {
        // above or left of the page, unless a box it is in was scrolled past it (the page's
        // own scroll moves no box against the page)
        let x = rect.right + sx, y = rect.bottom + sy;
        for (let a = el.parentElement; a && a !== pageScroller && (x <= 0 || y <= 0); a = a.parentElement) {
          x += a.scrollLeft; y += a.scrollTop;
        }
        if (x <= 0 || y <= 0) return true;
        scrolledOut.add(el);
      }
    }
    return false;
  }

  // Text a sighted user cannot read (tiny or transparent, indented away) / an element drawn
  // as nothing (filter opacity(0), a zero-area transform or clip-path).
  const CLIP0_RE = /^(circle|ellipse)\(0(px|%)?[\s)]|^polygon\((\s*0(px|%)?\s+0(px|%)?\s*,?)+\)$/;
  // (Style reads are the costly part. text-indent only moves a block's first line, and an
  // inline box inherits it from the block that was checked; a transform does not apply to a
  // plain inline box, and nothing applies to a display:contents element, which has no box.
  // Plain string checks come before regular expressions: most values are "none" or "rgb(".)
  const clearColor = (c) => c === 'transparent' || (c.charCodeAt(3) === 97 && /^rgba\(.*,\s*0\)$/.test(c));
  // fs: the element's font size in px (read by the caller, which also needs it)
  const textless = (cs, indentSeen, fs) => fs < 3 ||
    (!indentSeen && parseFloat(cs.textIndent) < -999) ||
    (clearColor(cs.color) && !parseFloat(cs.webkitTextStrokeWidth));
  // clipPath: cs.clipPath, read once for this and hiddenBox
  function gone(cs, display, tag, clipPath) {
    if (display === 'contents') return false;
    const filter = cs.filter;
    if ((filter !== 'none' && /opacity\(0(\.0*)?%?\)/.test(filter)) ||
        (clipPath !== 'none' && CLIP0_RE.test(clipPath))) return true;
    if (display === 'inline' && !LEAF.has(tag)) return false;
    const transform = cs.transform;
    if (transform === 'none') return false;
    const m = /^matrix\(([^,]+), ([^,]+), ([^,]+), ([^,]+)/.exec(transform);
    return !!m && Math.abs(m[1] * m[4] - m[2] * m[3]) < 0.01;
  }
  // An element drawn as nothing (transparent, gone, its box hidden): false; else its rect
  // (null for an inline box or display:contents, whose rect is not read: neither can clip or
  // be positioned off-screen).
  function drawn(el, cs, display, tag) {
    if (cs.opacity !== '1' && parseFloat(cs.opacity) < 0.05) return false;
    if (display === 'contents') return null;
    const clipPath = cs.clipPath;
    if (gone(cs, display, tag, clipPath)) return false;
    if (display === 'inline') return null;
    const rect = el.getBoundingClientRect();
    const pos = cs.position;
    geo.push(el, rect, pos === 'fixed');
    return hiddenBox(el, cs, rect, clipPath, pos) ? false : rect;
  }
  // Elements a name's content found seen, with drawn()'s rect: the walk, which comes to them
  // later, does not test them again.
  const seenOk = new Map();
  // indentSeen: an inline box whose parent's text-indent was already checked; keep: remember
  // a seen element in seenOk
  function unseen(el, cs, display = cs.display, indentSeen = false, keep = false) {
    if (textless(cs, indentSeen && display === 'inline', parseFloat(cs.fontSize))) return true;
    const rect = drawn(el, cs, display, el.localName);
    if (rect === false) return true;
    if (keep) seenOk.set(el, rect);
    return false;
  }
  // a masked field (password, -webkit-text-security, a password autocomplete) never shows its value
  const masked = (el) => el.type === 'password' || /password/i.test(el.getAttribute('autocomplete') || '') ||
    (win.getComputedStyle(el).webkitTextSecurity || 'none') !== 'none';

  // el hidden itself (in a name's content) / with its ancestors (where a traversal starts)
  const selfHidden = (el, cs) => el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true' ||
    cs.display === 'none' || cs.visibility !== 'visible';
  const hiddenDeep = (el) => !!el.closest('[aria-hidden="true"]') || el.checkVisibility?.({ visibilityProperty: true }) === false;
  const attr = (el, a) => { const v = el.getAttribute(a); return v && v.trim() ? v : null; };

  const kidsOf = (el) => (el.shadowRoot ? (seeRoot(el.shadowRoot), el.shadowRoot.childNodes)
    : el.localName === 'slot' && el.assignedNodes().length ? el.assignedNodes() : el.childNodes);

  // ---- aria-owns: owned elements move under their owner (tree and name) unless it holds no
  // children, they are hidden or it makes a circle.
  const ownsOf = new Map(), ownedBy = new Map();
  for (const ow of doc.querySelectorAll('[aria-owns]')) {
    const r = roleOf(ow, ow.localName), list = [];
    if (LEAF.has(ow.localName) || ow.localName === 'details' || PRESENTATIONAL_KIDS.has(r)) continue;
    for (const id of ow.getAttribute('aria-owns').trim().split(/\s+/)) {
      const o = id ? ow.getRootNode().getElementById(id) : null;
      let a = ow;
      while (a && a !== o) a = ownedBy.get(a) || a.parentElement;
      if (o && !a && !ownedBy.has(o) && !hiddenDeep(o)) { ownedBy.set(o, ow); list.push(o); }
    }
    if (list.length) ownsOf.set(ow, list);
  }

  // ---- CSS generated content is read only where it may be: GEN maps keys (tag, .class, #id)
  // of selectors setting `content`, '*' for any, to where they set it (G_BEFORE, G_AFTER,
  // G_OWN: the element's own `content`); kept per sheet.
  const G_BEFORE = 1, G_AFTER = 2, G_OWN = 4, G_ALL = 7;
  const genMemo = reg.genMemo instanceof WeakMap ? reg.genMemo : (reg.genMemo = new WeakMap());
  const GEN = new Map();
  let GHAS = false;
  // a selector that styles what holds the focus (:focus-within); an unreadable sheet: GHAS
  let GFOCUS = false;
  // a selector that reaches an element's siblings by what it is (+, ~, :nth-child(of S));
  // an unreadable sheet counts as one
  let GSIB = false;
  // a selector that styles an element by its place among its siblings, or :empty; an
  // unreadable sheet counts as one
  let GPOS = false;
  const SIBLINGS = /[+~]|:nth-[\w-]*\([^)]*\bof\b/, PLACES = /:(?:first-|last-|only-|nth-)|:empty\b/;
  // the compounds of the selectors that do either, each made broader (attribute tests,
  // pseudo-classes and what is in parentheses taken off; '*' where nothing is left), and ''
  // for a selector or sheet that cannot be told apart: an element none of them matches
  // is styled by no such rule, nor are its siblings by it
  const SIBC = new Set();
  const compoundsOf = (sx) => {
    if (sx.includes('\\')) return [''];
    let t = sx.replace(/\[[^\]]*\]/g, '');
    while (t.includes('(')) {
      const u = t.replace(/\([^()]*\)/g, '');
      if (u === t) return [''];
      t = u;
    }
    t = t.replace(/::?[\w-]+/g, '');
    const out = [];
    for (const one of t.split(',')) for (const c of one.split(/[\s>+~]+/)) if (c) out.push(c);
    return out.length ? out : ['*'];
  };
  // the compounds of what the selectors with :has() look for (each argument's, made broader
  // as above), and '' for an argument that looks at siblings or places (a change moves what
  // it reaches), one with quotes or escapes, or a sheet that cannot be read: a change where
  // none of them matches an element changed, put in or taken out, nor one in it, and no
  // class changed, changes what no :has() matches
  const HASC = new Set();
  const hasCompounds = (sx) => {
    if (/["'\\]/.test(sx)) return [''];
    const t = sx.replace(/\[[^\]]*\]/g, ''), out = [];
    for (let i = t.indexOf(':has('); i >= 0; i = t.indexOf(':has(', i + 1)) {
      let d = 0, j = i + 4;
      for (; j < t.length; j++) {
        if (t[j] === '(') d++;
        else if (t[j] === ')' && --d === 0) break;
      }
      const arg = t.slice(i + 5, j);
      if (j >= t.length || SIBLINGS.test(arg) || PLACES.test(arg)) return [''];
      out.push(...compoundsOf(arg));
    }
    return out;
  };
  // the compounds a readable sheet's :hover is part of, and those its validity pseudo-classes
  // are part of but a field's own (what may hold a field: `form` of `form:invalid`, as a
  // field's value reaches up to it); '' for one that may be any element (the class alone,
  // or after a parenthesis). `a` of `nav a:hover`.
  const HOVERS = new Set(), VALIDS = new Set();
  const HOVER = /([^\s>+~,()]*):hover\b/g;
  const VALIDITY = /([^\s>+~,()]*):(?:user-)?(?:in)?valid\b/g;
  const matchesAny = (el, set) => {
    for (const c of set) {
      try { if (c === '' || el.matches(c)) return true; } catch (e) { return true; }
    }
    return false;
  };
  // a sheet's rules, or null where they may not be read (another origin's, or failed to load)
  const rulesOf = (sh) => { try { return sh.cssRules; } catch (e) { return null; } };
  // an unreadable sheet of another origin (or none) may set anything; a failed one of ours,
  // nothing, nor one of another origin whose link the page's world saw fail to load
  const failedLink = (sh) => PROBE !== null && sh.ownerNode instanceof win.HTMLLinkElement &&
    askPage('-failed', sh.ownerNode);
  const anyGen = (sh) => (!sh.href || new URL(sh.href, doc.baseURI).origin !== win.location.origin) &&
    !failedLink(sh);
  // what a sheet's rules do: [rule count, generated-content keys, has, focus-within,
  // validity compounds, :hover compounds, sibling rule, place rule, their compounds,
  // :has() compounds]
  const rulesDo = (top) => {
    const keys = [];
    // a selector that may match upwards (:has), or a sheet that may hold one
    let has = false;
    let focus = false, sib = false, pos = false;
    const hover = new Set(), valid = new Set(), sibc = new Set(), hasc = new Set();
    for (const st = [top]; st.length;) {
      for (const r of st.pop()) {
        const sx = r.selectorText;
        if (sx) {
          if (sx.includes(':has(')) {
            has = true;
            for (const c of hasCompounds(sx)) hasc.add(c);
          }
          if (sx.includes(':hover')) for (const h of sx.matchAll(HOVER)) hover.add(h[1]);
          if (!focus && sx.includes(':focus-within')) focus = true;
          const p1 = PLACES.test(sx);
          // (an attribute's value and a :nth-child's own formula are no combinators)
          const s1 = SIBLINGS.test(sx.replace(/\[[^\]]*\]/g, '').replace(/:nth-[\w-]*\((?![^)]*\bof\b)[^)]*\)/g, ''));
          if (p1) pos = true;
          if (s1) sib = true;
          if (p1 || s1) for (const c of compoundsOf(sx)) sibc.add(c);
          if (sx.includes('valid')) {
            for (const v of sx.matchAll(VALIDITY)) if (!FIELD.has((/^[a-z]*/i.exec(v[1]))[0].toLowerCase())) valid.add(v[1]);
          }
        }
        if (r.style && r.style.content && !/^(""|''|none|normal)$/.test(r.style.content)) {
          for (const sel of (r.selectorText || '*').split(',')) {
            const ps = /::?(before|after)\b/i.exec(sel);
            // ::marker, ::placeholder...: no part of a name
            if (!ps && /::/.test(sel)) continue;
            const last = sel.replace(/::?(before|after)\b.*$/i, '').replace(/:[\w-]+(\([^()]*\))?/g, '').trim().split(/[\s>+~]+/).pop();
            const k = /[()\\[*]/.test(last) ? null : /\.[\w-]+|#[\w-]+/.exec(last) || /^[a-z][\w-]*/i.exec(last);
            keys.push(k ? k[0].toLowerCase() : '*', !ps ? G_OWN : ps[1].toLowerCase() === 'before' ? G_BEFORE : G_AFTER);
          }
        }
        if (r.cssRules) st.push(r.cssRules);
        if (r.styleSheet) {  // @import
          const sub = rulesOf(r.styleSheet);
          if (sub) st.push(sub);
          else if (anyGen(r.styleSheet)) { keys.push('*', G_ALL); has = true; sib = true; pos = true; sibc.add(''); hasc.add(''); }
        }
      }
    }
    return [top.length, keys, has, focus, [...valid], [...hover], sib, pos, [...sibc], [...hasc]];
  };
  // a sheet of another origin as the host read it (see sheetTexts): what its rules do but
  // its generated content, read as for a sheet not read (so no full output changes by
  // it); null where it imports another (left out of a sheet made from text) or fails
  const learned = (text) => {
    if (text.length > 4e6 || /@import/i.test(text)) return null;
    try {
      const made = new win.CSSStyleSheet();
      made.replaceSync(text);
      const m = rulesDo(made.cssRules);
      m[0] = -2;
      m[1] = ['*', G_ALL];
      return m;
    } catch (e) { return null; }
  };
  const opaque = new Set();  // (see opaqueSheets)
  for (const sh of [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])]) {
    let m = genMemo.get(sh);
    const top = m && m[0] < 0 ? null : rulesOf(sh);  // (an unreadable sheet stays so)
    if (!top) {
      if (!m) { const any = anyGen(sh); genMemo.set(sh, m = [-1, any ? ['*', G_ALL] : [], any, false, [], [], any, any, any ? [''] : [], any ? [''] : []]); }
      if (m[0] === -1 && m[2] && sh.href && foreign.has(sh.href)) {
        let f = foreign.get(sh.href);
        if (typeof f === 'string') foreign.set(sh.href, f = learned(f));
        if (f) genMemo.set(sh, m = f);
      }
    } else if (!m || m[0] !== top.length) {
      genMemo.set(sh, m = rulesDo(top));
    }
    if (m[0] === -1 && m[2] && sh.href) opaque.add(sh.href);
    if (m[2]) GHAS = true;
    if (m[6]) GSIB = true;
    if (m[7]) GPOS = true;
    for (const c of m[8]) SIBC.add(c);
    for (const c of m[9]) HASC.add(c);
    if (m[3]) GFOCUS = true;
    for (const v of m[4]) VALIDS.add(v);
    for (const h of m[5]) HOVERS.add(h);
    const keys = m[1];
    for (let i = 0; i < keys.length; i += 2) GEN.set(keys[i], (GEN.get(keys[i]) || 0) | keys[i + 1]);
  }
  // Where el may have generated content (G_* bits). For '*' only the named element and empty
  // ones (icons) are read.
  const GCLS = [...GEN.keys()].some((k) => k[0] === '.');
  const GSTAR = GEN.get('*') || 0;
  function mayGen(el) {
    let bits = GEN.get(el.localName) || 0;
    if (GSTAR && (el === nm.target || !el.firstChild)) bits |= GSTAR;
    if (el.id) bits |= GEN.get('#' + el.id.toLowerCase()) || 0;
    if (GCLS) for (const c of el.classList) bits |= GEN.get('.' + c.toLowerCase()) || 0;
    return bits;
  }

  // A computed `content`: strings, attr(), the alternative text after "/" (images, quotes,
  // counters: nothing); null for an element's own content without alternative text.
  const CONTENT_RE = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\/)|attr\(([^)]*)\)|[\w-]+\([^)]*\)|[^\s"'/]+/g;
  function parseContent(el, c, pseudo) {
    let cur = '', alt = false, m;
    CONTENT_RE.lastIndex = 0;
    while ((m = CONTENT_RE.exec(c))) {
      if (m[1] !== undefined || m[2] !== undefined) cur += (m[1] ?? m[2]).replace(/\\(?:[0-9a-fA-F]{1,6}\s?|(.))/g, (x, ch) => ch || ' ');
      else if (m[3]) { alt = true; cur = ''; }
      else if (m[4]) cur += el.getAttribute(m[4].trim().split(/[\s,]/)[0]) || '';
    }
    return alt || pseudo ? cur : null;
  }

  function pseudoText(el, which) {
    const ps = win.getComputedStyle(el, which), c = ps.content;
    if (!c || c === 'none' || c === 'normal' || ps.display === 'none' || ps.visibility === 'hidden') return '';
    const t = parseContent(el, c, true);
    return t && ps.display !== 'inline' ? ' ' + t + ' ' : t;
  }

  // ---- names (accname 1.2, HTML-AAM) ----------------------------------------------------------
  // 2A hidden, 2B aria-labelledby (then misspelt aria-labeledby), 2C embedded controls, 2D
  // aria-label, 2E host language, 2F content, 2I title. Hidden nodes count only where the
  // traversal's start (labelledby target, label, legend...) is hidden itself.
  const F_SELF = 1, F_REF = 2, F_SHOW = 4;
  const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'scrollbar', 'meter']);
  const NO_CONTENT = new Set(['video', 'audio', 'object', 'embed', 'svg']);
  const LABELABLE = new Set(['input', 'select', 'textarea', 'button', 'meter', 'output', 'progress']);
  const SUBTREE = /^(group|tree|ul|ol)$/;
  let nm;  // the name computation under way

  function lightRole(el, tag) {
    const first = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (first === 'none' || first === 'presentation') return NATIVE_FOCUSABLE.has(tag) ? implicitRole(el, tag) : 'none';
    if (first && first !== 'generic') return first;
    if (LABELABLE.has(tag) || tag === 'img') return implicitRole(el, tag) || 'none';
    return el.hasAttribute('contenteditable') && el.isContentEditable ? 'textbox' : null;
  }

  function byIds(el, name) {
    const v = attr(el, name), seen = new Set();
    let out = '';
    for (const id of v ? v.trim().split(/\s+/) : []) {
      const t = el.getRootNode().getElementById(id);
      if (t && !seen.has(t)) { seen.add(t); out += ' ' + alt(t, F_REF | (hiddenDeep(t) ? F_SHOW : 0)); }
    }
    return out.trim() ? out : '';
  }

  // el.labels scans the whole document on first use (seconds on huge pages): label[for] is
  // indexed once per document or shadow root instead.
  const labelIndex = new Map();
  function labelText(el, f) {
    if (f & F_REF) return null;
    const ls = [], root = el.getRootNode(), wrap = el.closest('label');
    let index = labelIndex.get(root);
    if (el.id && !index) {
      labelIndex.set(root, index = new Map());
      for (const l of root.querySelectorAll('label[for]')) index.set(l.htmlFor, (index.get(l.htmlFor) || []).concat(l));
    }
    if (el.id) ls.push(...(index.get(el.id) || []));
    if (wrap && !wrap.hasAttribute('for')) ls.push(wrap);
    let out = '';
    for (const l of ls.sort((a, b) => (a.compareDocumentPosition(b) & 4 ? -1 : 1))) out += ' ' + alt(l, hiddenDeep(l) ? F_SHOW : 0);
    return out.trim() ? out : null;
  }

  // 2C: a control in a label, labelledby target or content: its value (no password's).
  function embedded(el, tag, role) {
    if (role === 'textbox' || role === 'searchbox' || (role === 'combobox' && tag === 'input')) {
      return tag === 'input' ? (masked(el) ? '' : el.value) : tag === 'textarea' ? el.value : el.textContent;
    }
    if (role === 'combobox' || role === 'listbox') {
      if (tag === 'select') return Array.from(el.selectedOptions, (o) => o.label).join(' ');
      const box = role === 'listbox' ? el : el.querySelector('[role="listbox"]');
      return box ? Array.from(box.querySelectorAll('[role="option"][aria-selected="true"]'), (o) => alt(o, F_SHOW)).join(' ') : '';
    }
    if (RANGE_ROLES.has(role)) return el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow') ?? (LEAF.has(tag) ? String(el.value) : '');
    return role === 'menu' ? '' : null;
  }

  // legend, figcaption, caption, svg title
  function firstChild(el, t, f) {
    const c = el.querySelector(':scope > ' + t), s = !c ? '' : t === 'title' ? c.textContent : alt(c, (f & (F_SHOW | F_REF)) | (hiddenDeep(c) ? F_SHOW : 0));
    return s.trim() ? s : null;
  }

  // 2E: the host language's name (null: go on with content, title).
  function native(el, tag, f) {
    const t = tag === 'input' ? el.type : '';
    if (t === 'submit' || t === 'reset' || t === 'button') return el.value.trim() ? el.value : t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : null;
    if (LABELABLE.has(tag)) {
      const ls = labelText(el, f);
      if (ls !== null || tag === 'button' || tag === 'meter' || tag === 'progress') return ls;
      if (t === 'image') return attr(el, 'alt') || attr(el, 'title') || 'Submit';
      if (t === 'file') return 'Choose File';
      return attr(el, 'title') || (tag === 'output' ? '' : tag === 'textarea' || TEXT_INPUT.has(t) || t === 'number' ? attr(el, 'placeholder') : null);
    }
    if (tag === 'fieldset' || tag === 'figure') return firstChild(el, tag === 'figure' ? 'figcaption' : 'legend', f);
    if (tag === 'table') return firstChild(el, 'caption', f) || attr(el, 'summary');
    if (tag === 'img' || tag === 'area') return attr(el, 'alt');
    return el instanceof win.SVGElement ? firstChild(el, 'title', f | F_SHOW) : null;
  }

  // 2F: ::before, own `content` alternative or children (shadow, slots, owned), ::after.
  function fromContent(el, cs, f) {
    const gen = nm.pseudo || el.shadowRoot ? G_ALL : GEN.size > 0 ? mayGen(el) : 0, was = nm.pseudo;
    nm.pseudo = was || !!el.shadowRoot;
    let out = gen & G_BEFORE ? pseudoText(el, '::before') : '';
    const own = gen & G_OWN && cs.content !== 'normal' && cs.content !== 'none' ? parseContent(el, cs.content, false) : null;
    if (own !== null) out += own;
    else if (!NO_CONTENT.has(el.localName)) {
      const kids = kidsOf(el);
      for (let i = 0; i < kids.length && nm.size < MAX_TEXT * 2; i++) {
        const k = kids[i];
        if (k.nodeType === 3) { out += k.data; nm.size += k.data.length; }
        if (k.nodeType !== 1 || ownedBy.has(k)) continue;
        if (k.localName === 'br') { out += ' '; continue; }
        if (nm.role === 'treeitem' && SUBTREE.test(k.getAttribute('role') || k.localName)) continue;  // its folder's items
        const kcs = win.getComputedStyle(k);
        if (nm.strict && !(f & F_SHOW) && !seenOk.has(k) && unseen(k, kcs, kcs.display, false, true)) {
          nm.dropped = true;
          continue;
        }
        const t = alt(k, f & ~F_SELF, kcs);
        out += kcs.display === 'inline' ? t : ' ' + t + ' ';
      }
      for (const o of ownsOf.get(el) || []) out += ' ' + alt(o, f & ~F_SELF) + ' ';
    }
    nm.pseudo = was;
    return gen & G_AFTER ? out + pseudoText(el, '::after') : out;
  }

  function alt(el, f, cs) {
    if (nm.visited.has(el) || ++nm.steps > 4000 || nm.size >= MAX_TEXT * 2) return '';
    const self = f & F_SELF, tag = el.localName;
    if (!self && ((el === nm.target && !(f & F_REF)) || SKIP.has(tag) || SKIP_COUNTED.has(tag))) return '';
    cs = cs || win.getComputedStyle(el);
    if (!self && !(f & F_SHOW) && selfHidden(el, cs)) return '';
    const lb = f & F_REF ? '' : byIds(el, 'aria-labelledby') || byIds(el, 'aria-labeledby');
    if (lb) return lb;
    nm.visited.add(el);
    const role = self ? nm.role : lightRole(el, tag), none = role === 'none' || role === 'presentation';
    let s = self || el === nm.target ? null : embedded(el, tag, role);
    if (s === null) s = attr(el, 'aria-label');
    if (s === null && !none) s = native(el, tag, f);
    if (s !== null) { nm.size += s.length; return s; }
    const content = !self || nm.content ? fromContent(el, cs, f) : '';
    if (/\S/.test(content)) return content;
    s = !none || tag === 'iframe' ? attr(el, 'title') : null;
    return s !== null ? s : self ? '' : content;
  }

  // cs: el's computed style
  function nameOf(el, tag, role, clickable, cs) {
    nm = {
      target: el, role, visited: new Set(), steps: 0, size: 0, pseudo: el.getRootNode() !== doc,
      content: NAMED_BY_CONTENT.has(role) || (clickable && (!role || CONTENT.has(role) || role === 'row')) || tag === 'summary',
      strict: true, dropped: false,
    };
    // text a sighted user cannot see counts only when nothing else names the element (an
    // icon button's visually hidden label): a second pass takes it where the first left
    // some out
    let n = fold(alt(el, F_SELF, cs) || el.getAttribute('aria-placeholder') || '');
    if (nm.dropped && !/[\p{L}\p{N}]/u.test(n)) {
      nm.visited.clear(); nm.steps = nm.size = 0; nm.strict = false;
      n = fold(alt(el, F_SELF, cs) || '') || n;
    }
    return n ? cap(n, MAX_TEXT, 'maxTextPerNode') : '';
  }

  // ---- hints for nameless controls -----------------------------------------------------------------
  // Icon classes: a known icon set's prefix (fa-trash, icon-star, bi-send...) or an "-icon"
  // suffix; words that say nothing about the action are skipped.
  const ICON_CLASS = /^(?:fa[srlbdk]?|fa-(?:solid|regular|light|brands)|icons?|glyphicon|bi|mdi|ion|ionicon|ti|feather|la[srb]?|octicon|gg|ri|uil|bx[sl]?|ph|lucide|tabler|ic|ql|svg-icon|sprite)[-_]+([a-z][\w-]*)$|^([a-z][\w-]*?)[-_]+icon$/i;
  const VAGUE = /^(?:icons?|ic|fa[srlbdk]?|fw|lg|sm|xs|\dx|inverse|spin|pulse|solid|regular|light|brands|outlined?|filled|round(?:ed)?|sharp|two-?tone|material-(?:icons|symbols)[\w-]*|btn|button|clickable|pointer|active|selected|disabled|hidden|show|open|closed|small|large|left|right|item|wrapper|container|inner|outer|row|col|flex|inline|block|svg-inline--fa|glyphicon|bi|mdi|feather|ion|picker(?:-label|-item|-options)?)$/i;
  const PLAIN_CLASS = /^[a-z]{3,}(?:[-_][a-z]{2,}){0,3}$/i;
  function classHint(el, strong) {
    const cl = el.getAttribute('class');
    if (!cl) return '';
    for (const c of cl.trim().split(/\s+/)) {
      if (c.length > 40) continue;
      const m = ICON_CLASS.exec(c);
      const w = m ? m[1] || m[2] : null;
      if (strong ? w && !VAGUE.test(w) : !m && PLAIN_CLASS.test(c) && !VAGUE.test(c)) return strong ? w : c;
    }
    return '';
  }
  function fileHint(url) {
    if (!url || /^data:/i.test(url)) return '';
    const m = /([^/?#]+?)(?:\.[a-z0-9]{2,5})?(?:[?#].*)?$/i.exec(url.trim());
    const w = m ? m[1].split('.')[0].replace(/^(?:icons?|ic)[-_]+|[-_]+icons?$|@\dx$/gi, '') : '';
    return /[a-z]/i.test(w) && w.length <= 40 ? decodeSafe(w) : '';
  }
  const decodeSafe = (w) => { try { return decodeURIComponent(w); } catch (e) { return w; } };
  const BG_URL = /url\(\s*["']?([^"')]+)/;
  // whether a nameless control is given a hint (a link that goes somewhere shows where instead)
  const hintable = (el, role) => role !== 'iframe' &&
    !(role === 'link' && !/^\s*(#|javascript:|$)/i.test(el.getAttribute('href') || ''));
  function hintOf(el, tag) {
    let h = attr(el, 'aria-description');
    if (!h && el.hasAttribute('aria-describedby')) {
      const root = el.getRootNode();
      h = el.getAttribute('aria-describedby').trim().split(/\s+/)
        .map((id) => { const t = root.getElementById(id); return t ? t.textContent : ''; }).join(' ');
    }
    if (h && /\S/.test(h)) return cap(fold(h), 60, 'maxTextPerNode');
    // the element and the first few elements inside it (an icon is small)
    const els = [el];
    const inner = el.getElementsByTagName('*');
    for (let i = 0; i < inner.length && i < 12; i++) els.push(inner[i]);
    let plain = '';
    for (const e of els) {
      const t = e === el ? null : attr(e, 'title');
      if (t) return cap(fold(t), 60, 'maxTextPerNode');
      let w = classHint(e, true);
      if (!w && e.localName === 'use') w = fileHint((e.getAttribute('href') || e.getAttribute('xlink:href') || '').replace(/^.*#/, ''));
      if (!w && (e.localName === 'img' || (e.localName === 'input' && inputType(e) === 'image'))) w = fileHint(e.getAttribute('src'));
      if (!w) {
        const bg = win.getComputedStyle(e).backgroundImage;
        if (bg && bg !== 'none') { const m = BG_URL.exec(bg); if (m) w = fileHint(m[1]); }
      }
      if (w) return cap(w, 40, 'maxAttr');
      if (!plain) plain = classHint(e, false);
    }
    if (plain) return plain;
    const id = el.id;
    if (id && id.length <= 40 && /[a-z]{3}/i.test(id) && !/\d{4}/.test(id)) return id;
    return attr(el, 'name') ? cap(el.getAttribute('name'), 40, 'maxAttr') : '';
  }
  function treeLevel(el) {
    const lv = parseInt(el.getAttribute('aria-level') || '', 10);
    if (lv > 0) return lv;
    let n = 1;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const r = a.getAttribute('role');
      if (r === 'treeitem') n++;
      else if (r === 'tree') break;
    }
    return n;
  }

  // ---- per-node details ---------------------------------------------------------------------------
  let active = doc.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  if (active === doc.body || active === doc.documentElement) active = null;
  let focusedRef = null;

  const ariaBool = (v) => (v === 'true' ? true : v === 'false' ? false : v === 'mixed' ? 'mixed' : undefined);

  function statesOf(el, tag, role) {
    const s = {};
    let any = false;
    const put = (k, v) => { if (v !== undefined && v !== null) { s[k] = v; any = true; } };
    const t = tag === 'input' ? inputType(el) : '';
    if (t === 'checkbox' || t === 'radio') put('checked', el.indeterminate ? 'mixed' : el.checked);
    else if (el.hasAttribute('aria-checked')) put('checked', ariaBool(el.getAttribute('aria-checked')));
    else if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') put('checked', false);
    if (tag === 'option') { if (el.selected) put('selected', true); }
    else if (el.getAttribute('aria-selected') === 'true') put('selected', true);
    if ((NATIVE_FOCUSABLE.has(tag) || tag === 'fieldset' || tag === 'optgroup' || tag === 'option') && el.matches(':disabled')) put('disabled', true);
    else if (el.getAttribute('aria-disabled') === 'true') put('disabled', true);
    if ((tag === 'input' || tag === 'textarea') && el.readOnly) put('readonly', true);
    if (scrolledOut.has(el)) put('scrolled-out', true);
    else if (el.getAttribute('aria-readonly') === 'true') put('readonly', true);
    if ((tag === 'input' || tag === 'textarea' || tag === 'select') && el.required) put('required', true);
    else if (el.getAttribute('aria-required') === 'true') put('required', true);
    if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') put('expanded', el.parentElement.open);
    else if (el.hasAttribute('aria-expanded')) put('expanded', ariaBool(el.getAttribute('aria-expanded')));
    if (el.hasAttribute('aria-pressed')) put('pressed', ariaBool(el.getAttribute('aria-pressed')));
    if (el === active) put('focused', true);
    const inv = el.getAttribute('aria-invalid');
    if (inv && inv !== 'false') put('invalid', true);
    else if (NATIVE_FOCUSABLE.has(tag)) { try { if (el.matches(':user-invalid')) put('invalid', true); } catch (e) { /* old engine */ } }
    if (tag === 'dialog') { try { if (el.matches(':modal')) put('modal', true); } catch (e) { /* old engine */ } }
    if (el.getAttribute('aria-modal') === 'true') put('modal', true);
    return any ? s : null;
  }

  function attrsOf(el, tag) {
    const a = {};
    let any = false;
    const password = tag === 'input' && masked(el);
    // (strings: no Attr node is made for each)
    const names = el.getAttributeNames();
    for (let i = 0; i < names.length; i++) {
      const k = names[i];
      if (!(ATTRS.has(k) || (k.charCodeAt(0) === 97 && ARIA_ATTRS.has(k)))) continue;
      if (k === 'value' && password) continue;
      let v = el.getAttribute(k);
      if ((k === 'href' || k === 'src' || k === 'action') && v.slice(0, 5).toLowerCase() === 'data:') {
        const comma = v.indexOf(',');
        v = (comma > 0 && comma < 60 ? v.slice(0, comma + 1) : v.slice(0, 30)) + '\u2026';
      }
      a[k] = cap(v, MAX_ATTR, 'maxAttr');
      any = true;
    }
    return any ? a : null;
  }

  function valueOf(el, tag, role) {
    if (tag === 'input') {
      const t = inputType(el);
      if (t === 'password' || masked(el) || t === 'checkbox' || t === 'radio' || t === 'hidden' || t === 'submit' || t === 'reset' || t === 'button' || t === 'image') return null;
      if (t === 'file') return el.files && el.files.length ? Array.from(el.files, (f) => f.name).join(', ') : null;
      return capValue(el.value || '');
    }
    if (tag === 'textarea') return capValue(el.value || '');
    if (tag === 'select') {
      const sel = Array.from(el.selectedOptions || [], (op) => op.label || op.text);
      return capText(sel.join(', '));
    }
    if (tag === 'progress' || tag === 'meter') return String(el.value);
    if (el.hasAttribute('aria-valuetext')) return capText(el.getAttribute('aria-valuetext'));
    if (el.hasAttribute('aria-valuenow')) return capText(el.getAttribute('aria-valuenow'));
    if (role === 'textbox' && el.isContentEditable) return capValue(el.innerText || '');
    return null;
  }

  function optionsOf(el) {
    const list = el.options;
    const out = [];
    const n = Math.min(list.length, MAX_OPTIONS);
    for (let i = 0; i < n; i++) {
      const op = list[i];
      const item = { value: cap(op.value, MAX_ATTR, 'maxAttr'), label: capText(op.label || op.text || '') };
      if (op.selected) item.selected = true;
      if (op.disabled) item.disabled = true;
      out.push(item);
    }
    if (list.length > n) cut('maxOptions');
    return out;
  }

  // ---- the walk ---------------------------------------------------------------------------------
  let visited = 0, emitted = 0, skipped = 0, loops = 0, iframes = 0;
  const rootEl = doc.body || doc.documentElement;
  let rootMissing = false;
  const root = { tag: rootEl ? rootEl.localName : 'body' };
  // Stack entries, six values each, pushed flat (no array per entry) in reverse so they pop
  // in order: element or text run, parentOut, parentDepth, suppressText, inside (0 nothing,
  // 1 a clickable, 2 an interactive role), parentCursor (DELEGATE: the parent is a list whose
  // items are the controls). A text run (string) becomes a {text} node where it stands.
  const DELEGATE = '\u0000items';
  const stack = [];
  const pushItems = (items, p, d, sup, inter, cur) => {
    for (let i = items.length - 1; i >= 0; i--) stack.push(cur, inter, sup, d, p, items[i]);
  };
  // [node, element] clickable by their cursor alone, with children
  const pointerOnly = [];
  // where a walk stopped at maxNodes: [the stack, the subtrees open (see `open`)], for a read
  // that has room for more to go on from (see reread)
  let cutAt = null;
  const addChild = (p, n) => { (p.children || (p.children = [])).push(n); };

  // Splits el's children into text runs and elements to walk, in order. Text nodes and
  // inline, text-only children (<b>, <span>...) are folded into the runs. Returns
  // [items, textOnly]: items mixes run strings and elements; textOnly is the whole text
  // when no element needs walking (else null). withText: el is visible and its text counts;
  // cursor: el's cursor. Whether el's text is readable (not tiny, transparent or indented
  // away) is asked only once text shows up, so a box holding only boxes reads none of those
  // styles; the font size read then is left in splitFs for the caller (else NaN).
  let splitFs = NaN;
  // Whether an <svg> (of at most 400 elements) holds shapes that act on their own.
  function svgActive(svg) {
    const all = svg.getElementsByTagName('*');
    if (all.length > 400) return false;
    const cur = getComputedStyle(svg).cursor;
    for (const e of all) {
      if (e.localName === 'a' || e.hasAttribute('role') || e.hasAttribute('onclick') || e.onclick != null || probed(e)) return true;
      if (cur !== 'pointer' && getComputedStyle(e).cursor === 'pointer') return true;
    }
    return false;
  }

  // A short piece at one end of a cell's text that stands out (its own weight, background or
  // border: an unread badge, a count) is kept apart from the words beside it.
  const restBlank = (list, i) => {
    for (let j = i + 1; j < list.length; j++) {
      const n = list[j];
      if (n.nodeType === 1 || (n.nodeType === 3 && NONBLANK_RE.test(n.data))) return false;
    }
    return true;
  };
  const standsOut = (kc, cs) => ((+kc.fontWeight >= 600) !== (+cs.fontWeight >= 600)) ||
    !clearColor(kc.backgroundColor) || kc.backgroundImage !== 'none' ||
    (kc.borderTopStyle !== 'none' && parseFloat(kc.borderTopWidth) > 0);
  function splitKids(list, cs, withText, owned, cursor, apart) {
    const items = [];
    let run = '';
    let total = 0;
    let hasEl = false;
    // -1: not asked yet, 0: unreadable, 1: readable
    let textOk = withText ? -1 : 0;
    splitFs = NaN;
    const flush = () => {
      if (run) {
        const t = capText(run);
        if (t) { items.push(t); total++; }
        run = '';
      }
    };
    for (let i = 0, count = list.length; i < count; i++) {
      const k = list[i];
      const nt = k.nodeType;
      if (nt === 3) {
        if (textOk < 0) {
          if (!NONBLANK_RE.test(k.data)) { run += ' '; continue; }
          splitFs = parseFloat(cs.fontSize);
          textOk = textless(cs, false, splitFs) ? 0 : 1;
        }
        if (textOk === 1 && run.length < PRECUT) run += k.data;
        continue;
      }
      if (nt !== 1) continue;
      // walked under its aria-owns owner
      if (ownedBy.size && ownedBy.has(k)) continue;
      const tag = k.localName;
      if (tag === 'br') { run += ' '; continue; }
      if (tag === 'wbr') continue;
      if (textOk !== 0 && INLINE.has(tag) && k.firstElementChild === null && !k.shadowRoot &&
          (!k.hasAttributes() || (k.attributes.length <= 3 && !k.hasAttribute('role') &&
          !k.hasAttribute('onclick') && !k.hasAttribute('aria-label') && !k.hasAttribute('hidden') &&
          !k.hasAttribute('aria-hidden') && !k.hasAttribute('tabindex') &&
          !k.hasAttribute('title'))) && !k.isContentEditable) {
        if (textOk < 0) {
          splitFs = parseFloat(cs.fontSize);
          textOk = textless(cs, false, splitFs) ? 0 : 1;
        }
        const kc = textOk === 1 ? win.getComputedStyle(k) : null;
        if (kc && kc.display === 'inline' && kc.visibility === 'visible' && !unseen(k, kc, 'inline', true) &&
            kc.cursor === cursor && k.onclick == null && !probed(k) &&
            !(apart && k.textContent.trim().length <= 12 && !/\S/.test(run) !== restBlank(list, i) &&
              standsOut(kc, cs))) {
          visited++;
          if (run.length < PRECUT) run += k.textContent;
          continue;
        }
      }
      if (run && /\S/.test(run)) flush(); else run = '';
      items.push(k);
      hasEl = true;
    }
    flush();
    if (owned) { items.push(...owned); hasEl = true; }
    if (!hasEl) return [items, total ? items.join(' ') : ''];
    return [items, null];
  }


  // Each emitted element, for a read after a text edit (see reread): element -> [node, parent
  // node, suppressText, inside, parentCursor, depth, clickable, then the counts (visited,
  // skipped, emitted, cuts by reason: see `counts`) at its start (7-12) and, once its
  // subtree is walked, at its end (13-18)]
  const nodeOf = new Map();
  // Each element walked but not emitted that holds what is walked (a wrapper: what it holds
  // goes to its parent node's children), the same way but with no node: [null, parent node,
  // ... as above, 0-18, then where what it holds starts (19) and ends (20) among the parent
  // node's children]
  const wrapOf = new Map();
  // entry, stack height under its items; ... (subtrees being walked)
  const open = [];
  const counts = () => [visited, skipped, emitted, cuts.maxTextPerNode, cuts.maxAttr, cuts.maxOptions];
  const close = (h) => {
    while (open.length && open[open.length - 1] >= h) {
      open.pop();
      const e = open.pop();
      e[13] = visited; e[14] = skipped; e[15] = emitted;
      e[16] = cuts.maxTextPerNode; e[17] = cuts.maxAttr; e[18] = cuts.maxOptions;
      if (e[0] === null) e[20] = e[1].children ? e[1].children.length : 0;
    }
  };

  function walk() {
    while (stack.length) {
      if (open.length && open[open.length - 1] >= stack.length) close(stack.length);
      if (emitted >= MAX_NODES) { reasons.add('maxNodes'); cutAt = [stack.slice(), open.slice()]; break; }
      if (visited >= MAX_VISITED) { reasons.add('maxVisited'); break; }
      if ((++loops & 255) === 0 && performance.now() > deadline) { reasons.add('maxTime'); break; }
      const el = stack.pop(), p = stack.pop(), d = stack.pop(), sup = stack.pop(),
        inter = stack.pop(), pcur = stack.pop();
      if (typeof el === 'string') {
        if (!sup) { addChild(p, { text: el }); emitted++; }
        continue;
      }
      const v0 = visited, s0 = skipped, e0 = emitted, t0c = cuts.maxTextPerNode, a0c = cuts.maxAttr,
        o0c = cuts.maxOptions;
      visited++;
      const tag = el.localName;
      if (SKIP.has(tag)) continue;
      if (SKIP_COUNTED.has(tag) || (tag === 'input' && inputType(el) === 'hidden')) { skipped++; continue; }
      if (el.hasAttributes() && (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert'))) { skipped++; skippedWhole.push(el, p); continue; }
      const cs = win.getComputedStyle(el);
      const display = cs.display;
      if (display === 'none') { skipped++; skippedWhole.push(el, p); continue; }
      const contents = display === 'contents';
      // (a name found it drawn already)
      let rect = seenOk.get(el);
      if (rect === undefined) rect = drawn(el, cs, display, tag);
      if (rect === false) { skipped++; skippedWhole.push(el, p); continue; }
      const visHidden = cs.visibility !== 'visible';
      if (visHidden) skipped++;
      const cursor = cs.cursor;

      let role = roleOf(el, tag);
      // an <svg> whose shapes act (handlers, pointer cursors, links, roles: a pie menu) is walked
      const svgIn = tag === 'svg' && svgActive(el);
      if (tag === 'svg' && !role && !svgIn) role = el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.querySelector(':scope > title') ? 'img' : null;
      const isFrame = tag === 'iframe' || tag === 'frame';
      if (isFrame) role = 'iframe';
      const interactiveRole = role !== null && INTERACTIVE.has(role);
      // Own evidence only: a cursor inherited from a clickable ancestor is not a new control, but
      // a handler, a tab stop or a cursor of its own is, inside a clickable row too.
      const byCursor = cursor === 'pointer' && pcur !== 'pointer' && inter !== 2;
      const drag = el.getAttribute('draggable') === 'true' || (/^(grab|move)$/.test(cursor) && pcur !== cursor);
      let clickable = !interactiveRole && !isFrame && !visHidden && (byCursor || drag ||
        (pcur === DELEGATE && (tag === 'li' || tag === 'tr' || role === 'listitem' || role === 'row')) ||
        el.hasAttribute('onclick') || el.onclick != null ||
        ((!role || CONTENT.has(role)) && el.hasAttribute('tabindex') && el.tabIndex >= 0 && !el.querySelector(CONTROLS)) ||
        probed(el));
      // a nameless shape beside its title (a pie slice and its label) is clicked by the title
      if (clickable && /^(path|rect|circle|ellipse|polygon)$/.test(tag) && !el.hasAttribute('aria-label') &&
        el.parentElement && el.parentElement.querySelector(':scope > text')) clickable = false;
      // a list (row group, even of one row) clickable as a whole hands the click to its items
      let delegate = false;
      if (clickable && (role === 'list' || role === 'rowgroup') && el.childElementCount > (role === 'list' ? 1 : 0)) {
        clickable = false;
        delegate = true;
      }

      // children: text runs and elements to walk
      let list = null;
      if (tag === 'details' && !el.open) {
        const sm = el.querySelector(':scope > summary');
        list = sm ? [sm] : [];
        skipped += el.children.length - list.length;
      } else if ((!LEAF.has(tag) || svgIn) && !(role && PRESENTATIONAL_KIDS.has(role) && tag !== 'summary') && cs.contentVisibility !== 'hidden') {
        list = kidsOf(el);
        if (rect && el.firstElementChild !== null && cs.overflow !== 'visible') scrollers.push(el);
      }
      const quiet = sup && !interactiveRole && !clickable && !role;
      let items = null, text = '', fs = NaN;
      if (list) {
        const split = splitKids(list, cs, !visHidden && !quiet, ownsOf.size ? ownsOf.get(el) : undefined,
          cursor, CELLS.has(role) || role === 'gridcell');
        fs = splitFs;
        items = split[0];
        if (split[1] !== null) { text = split[1]; items = null; }
      }

      let out = p, depth = d;
      const emit = !visHidden && (role !== null || clickable || (!!text && !quiet));
      if (emit) {
        const n = { tag };
        if (role) n.role = role;
        let name = '';
        if (role === 'iframe') name = fold(el.getAttribute('title') || el.getAttribute('name') || '');
        else if (!(CELLS.has(role) && items)) name = nameOf(el, tag, role, clickable, cs);
        if (name) n.name = name;
        if (text && !(name && NAMED_BY_CONTENT.has(role))) n.text = text;
        if (interactiveRole || clickable || role === 'table' || (CONTENT_REFS && (CONTENT.has(role) || (!role && text)))) {
          n.ref = refFor(el);
          if (el === active) focusedRef = n.ref;
        }
        if (role === 'heading') {
          const lv = HEADINGS[tag] || parseInt(el.getAttribute('aria-level') || '2', 10);
          n.level = lv > 0 ? lv : 2;
        } else if (role === 'treeitem') {
          n.level = treeLevel(el);
        }
        if (n.ref && !name && !text && hintable(el, role)) {
          const h = hintOf(el, tag);
          if (h) n.hint = h;
        }
        const st = statesOf(el, tag, role);
        if (st) n.states = st;
        const at = attrsOf(el, tag);
        if (at) n.attrs = at;
        const v = valueOf(el, tag, role);
        if (v !== null && v !== '') n.value = v;
        if (tag === 'select') n.options = optionsOf(el);
        if (!rect && !contents) geo.push(el, rect = el.getBoundingClientRect(), false);  // (inline: never fixed)
        if (rect) {
          n.box = [Math.round(rect.left + sx), Math.round(rect.top + sy), Math.round(rect.width), Math.round(rect.height)];
          if (rect.width > 0 && rect.height > 0 && rect.right > 0 && rect.bottom > 0 && rect.left < vw && rect.top < vh) n.inViewport = true;
          boxed.push(n, el);
        }
        if (fs !== fs) fs = parseFloat(cs.fontSize);  // not read by splitKids
        if (fs !== 16) n.fontSize = Math.round(fs * 10) / 10;
        if (clickable) {
          n.clickable = true;
          if (byCursor && items) pointerOnly.push([n, el]);
        }
        if (isFrame) {
          iframes++;
          let key = reg.frames.get(el);
          if (key === undefined) { key = reg.frameNext++; reg.frames.set(el, key); }
          const [cx, cy] = originOf(el, cs, rect || { left: 0, top: 0 }, sx, sy);
          framed.push(n, el, cs);
          n.frame = { key, cx, cy };
        }
        addChild(p, n);
        emitted++;
        const entry = [n, p, sup, inter, pcur, d, clickable, v0, s0, e0, t0c, a0c, o0c, -1, 0, 0, 0, 0, 0];
        nodeOf.set(el, entry);
        open.push(entry, stack.length);
        if (d + 1 < MAX_DEPTH) { out = n; depth = d + 1; } else if (items) { reasons.add('maxDepth'); }
      } else if (items && items.length) {
        const entry = [null, p, sup, inter, pcur, d, false, v0, s0, e0, t0c, a0c, o0c, -1, 0, 0, 0, 0, 0,
          p.children ? p.children.length : 0, -1];
        wrapOf.set(el, entry);
        open.push(entry, stack.length);
      }
      if (items) {
        const supKids = sup || (emit && role !== null && SUPPRESS_INSIDE.has(role));
        pushItems(items, out, depth, supKids, interactiveRole ? 2 : inter || (clickable ? 1 : 0),
          delegate ? DELEGATE : cursor);
      }
    }
    close(0);
    // A box that is clickable only by its cursor and holds nothing but two or more controls (a
    // toolbar: "Reply", "Forward") is not a control itself: a click on it hits one of them.
    for (const [n, el] of pointerOnly) {
      const kids = n.children;
      if (!kids || kids.length < 2 || !kids.every((c) => c.ref)) continue;
      if (el.hasAttribute('onclick') || el.onclick != null || probed(el)) continue;
      delete n.clickable; delete n.ref; delete n.name; delete n.hint;
    }
    pointerOnly.length = 0;
  }

  // ---- a read after text edited in place or attributes changed, alone (see `note` in the
  // watch; ks: the elements holding edited text, xs: those whose attributes changed, fields
  // that hold another value and the elements focus left and reached). The element the last
  // walk walked nearest above each edit, emitted or a wrapper, is walked again, with what it
  // was walked with (from the text's parent when that is an inline element its own parent
  // may fold into its text; from an element's parent for its attributes, or from the
  // element itself: see startOf), and so is every element the edited part, or what holds
  // it, names or describes (a label's control, aria-labelledby, aria-describedby), and
  // every element a label or a referred element in a changed, put in or taken out element
  // names or describes. Every other box the last
  // walk measured is measured again: each must be unchanged, or have moved or resized with
  // every decision made on it standing (over 1 px each way, on the page, in the viewport if
  // fixed to it). The emitted nodes above are named again (a name from content). The answer
  // gives the new subtrees of emitted elements by path, what wrappers give now in place of
  // the ranges of their parent nodes' children they gave (splices), the new names, and the
  // new boxes and viewport flags of the nodes that moved, by path; stats and nextRef are
  // the read's. Where a decision made outside what was walked again may not stand, the
  // answer is the elements to walk again as well (read as ones whose attributes changed):
  // a box that grew from or shrank to 1 px or less, left or reached the page, or is a
  // container of another size (at most WIDEN_MAX of them); the box that hands its click on
  // above a subtree now emitted otherwise; an element whose name from content was gained,
  // lost or cut. An iframe walked again is answered with its path, key and content origin
  // (hosted). Anything else (no walked element above, subtrees holding half the page, a cut
  // other than of text where they are, a new kind of cut): null (the page is walked in
  // full).
  const WIDEN_ROUNDS = 3, WIDEN_MAX = 16;
  // (what an element skipped whole gave a walk's counts: visited, skipped, emitted and the cuts)
  const SKIPPED_WHOLE = [1, 1, 0, 0, 0, 0];
  // the node an element skipped whole went under (see skippedWhole), looked up in the list
  // the walks kept, made into a map the first time a read asks (most never do)
  const skippedUnder = (el) => {
    if (!W.skipped) {
      const l = W.skippedList;
      W.skipped = new WeakMap();
      for (let i = 0; i < l.length; i += 2) W.skipped.set(l[i], l[i + 1]);
      W.skippedList = null;
    }
    return W.skipped.get(el);
  };
  function reread(ks, xs) {
    const L = W.last, g = W.geo, old = W.nodeOf, R = L.root;
    // (the shadow roots the walk went into, but those that hold nothing, no node and no
    // adopted sheet: what their hosts hold is not drawn, and nothing in them styles a thing;
    // asked once before the walks and again after them, which may go into a root put in)
    const shady = () => [...W.roots].some((r) => r.firstChild !== null || r.adoptedStyleSheets.length > 0);
    const SHADY = shady();
    // (wrappers are walked again where nothing they hold went into a shadow root, whose
    // elements have no place in the document's order)
    const wraps = SHADY ? new Map() : W.wrapOf;
    // (a walk cut at maxNodes is cut at the same node again when no subtree changes its count)
    const capped = L.stats.truncatedReasons.includes('maxNodes');
    // (aria-owns: only where each element is owned as the last read found it, and nothing
    // walked again holds or is in an owner or what it owns: see roots)
    if (o.rootSelector || !W.owned || W.owned.size !== ownedBy.size || !W.counts ||
        [...ownedBy].some(([x, ow]) => W.owned.get(x) !== ow) ||
        L.stats.truncatedReasons.some((r) => !(r in cuts) && r !== 'maxNodes')) return null;
    // The pointer moved (or pressed and let go): an element it left or reached is read as one
    // whose attributes changed where a readable sheet's :hover may style it (its compound
    // matches it: `a` of `nav a:hover`; a selector reaches no further than its subtree and
    // its siblings'), and so is one that may hold a shadow root (its own sheets may style it
    // by :host(:hover)). Not where a sheet may not be read, nor where the walk went into a
    // shadow root (its :hover state is in the state list, but its sheets are not read).
    if (hovers.size && (GHAS || SHADY)) return null;
    for (const x of hovers) {
      if (!x.isConnected) continue;
      if (x.shadowRoot === null && !x.localName.includes('-') && !matchesAny(x, HOVERS)) continue;
      if (x === doc.documentElement || x === doc.body || x.localName === 'dialog') return null;
      xs.add(x);
    }
    // (elements taken out that are spliced out alone: element -> [the parent it was taken
    // from, the siblings it was between], see spliced)
    const outs = new Map();
    const up = (x) => {
      const q = x.parentNode;
      return !q ? (outs.has(x) ? outs.get(x)[0] : null) : q.nodeType === 11 ? q.host : q.nodeType === 1 ? q : null;
    };
    const tops = new Map();
    // (the element nearest above that the last walk walked and emitted, or walked as a
    // wrapper: a wrapper is walked again into its place among its parent node's children)
    const from = (s) => {
      while (s && !old.has(s) && !wraps.has(s)) s = up(s);
      if (s) tops.set(s, old.get(s) || wraps.get(s));
      return !!s;
    };
    // (what names or describes another element is in it: that one is walked again too; `at`
    // is where the named ones are looked for, the element's own tree unless it was taken out)
    const namesOthers = (a, at = a.getRootNode()) => {
      if (a.localName === 'label') {
        if (a.control && a.control.isConnected && !from(a.control)) return false;
        // (a label names every element of its id, as the walk reads it: not only the first)
        if (a.htmlFor) for (const x of at.querySelectorAll('#' + CSS.escape(a.htmlFor))) if (!from(x)) return false;
      }
      if (a.id) {
        const q = CSS.escape(a.id);
        for (const x of at.querySelectorAll(`[aria-labelledby~="${q}"],[aria-describedby~="${q}"]`)) {
          if (!from(x)) return false;
        }
      }
      return true;
    };
    const naming = (s) => {
      for (let a = s; a; a = up(a)) if (!namesOthers(a)) return false;
      return true;
    };
    for (const k of ks) {
      if (!k.isConnected) return null;
      let s = k.nodeType === 11 ? k.host : k;
      if (!naming(s)) return null;
      if (s === k && INLINE.has(k.localName) && k.firstElementChild === null && !k.shadowRoot) s = up(k);
      if (!from(s)) return null;
    }
    // An element whose attributes changed is walked again from its parent (selectors reach
    // its subtree and its siblings'), or alone (see startOf). Only where no style sheet may
    // match upwards (:has), the walk went into no shadow root (a host's style may look into its light tree), the
    // element is an HTML one of the document's own tree (whose sheets are the ones read),
    // and nothing in it names or describes another (a label, an element referred to: hiding
    // it changes what that name reads).
    const adds = W.adds.filter((x) => x.isConnected && x.parentNode && x.parentNode.nodeType === 1);
    // (with a sheet that has :has(): only where no class changed and no compound of what
    // one looks for matches an element changed, put in or taken out, nor one in it, see HASC)
    const hasReached = () => {
      if (W.classed || HASC.has('') || HASC.has('*') || HASC.size > 64) return true;
      const any = [...HASC].join(',');
      try {
        for (const list of [xs, adds, W.gone]) {
          for (const x of list) if (x.nodeType === 1 && (x.matches(any) || x.querySelector(any))) return true;
        }
      } catch (e) { return true; }
      return false;
    };
    if ((xs.size || adds.length || W.outs.length) && (SHADY || (GHAS && hasReached()))) return null;
    // (nor where a sheet styles what holds the focus, when it moved, or may style what holds
    // a field by its validity, when a field's value or attributes changed: its form or an
    // element above it matches a validity compound; or a field was put in or taken out)
    if (focusMoved && GFOCUS) return null;
    if (VALIDS.size && W.fielded) return null;
    if (VALIDS.size) {
      for (const x of xs) {
        if (!FIELD.has(x.localName) || focal.has(x)) continue;
        if (x.form && matchesAny(x.form, VALIDS)) return null;
        for (let a = x.parentElement; a; a = a.parentElement) if (matchesAny(a, VALIDS)) return null;
      }
    }
    let referred = null;
    if (xs.size || W.gone.length || adds.length) {
      const ids = [];
      for (const el of doc.querySelectorAll('[aria-labelledby],[aria-describedby]')) {
        for (const id of ((el.getAttribute('aria-labelledby') || '') + ' ' +
            (el.getAttribute('aria-describedby') || '')).split(/\s+/)) if (id) ids.push('#' + CSS.escape(id));
      }
      referred = ids.length ? 'label,' + ids.join(',') : 'label';
    }
    // (a label or an element referred to in it: what it names or describes is walked again
    // too, as it may now be named otherwise; the same for what was taken out, looked for in
    // the document)
    const within = (x, at) => {
      if (x.matches(referred) && !namesOthers(x, at)) return false;
      for (const y of x.querySelectorAll(referred)) if (!namesOthers(y, at)) return false;
      return true;
    };
    // (walked again alone where it was walked, emitted or a wrapper, no sheet reaches its
    // siblings by what it is, its parent may not now fold it into its text, and its parent
    // has an area and no pointer cursor; else from its parent: an element hidden or emptied
    // may leave its parent of no size, which changes what the walk made of it, and a box
    // that hands its click on is made of its children)
    const keeps = (p) => {
      if (!p) return false;
      const r = p.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && win.getComputedStyle(p).cursor !== 'pointer';
    };
    const startOf = (x) => GSIB || !(old.has(x) || wraps.has(x)) ||
      (INLINE.has(x.localName) && x.firstElementChild === null) || !keeps(up(x)) ? up(x) : x;
    // An element put in, alone in its parent, is walked alone into its place among its
    // parent node's children (as a wrapper that gave nothing would be), with the context its
    // walked siblings got: where no sheet styles an element by its siblings or its place
    // among them (nor :empty), its parent was walked, keeps an area and no pointer cursor,
    // takes no click (a list hands it to its items once it holds two) and is no <details>
    // (its summary alone shows while closed), it is no inline element (which may be folded
    // into a text), nothing in it was walked before, and a walked sibling before it (or, with none, after it) is met with
    // no text or inline element between, whose nodes it goes after (or before); else its
    // parent is read as changed.
    const blank = (k) => k.nodeType === 8 || (k.nodeType === 3 && !NONBLANK_RE.test(k.data));
    // (the walked sibling nearest before or after x; null where a text or an inline element
    // comes first, false where none)
    const sideOf = (k, prev) => {  // (the same, from k on)
      for (; k; k = prev ? k.previousSibling : k.nextSibling) {
        if (blank(k)) continue;
        if (k.nodeType !== 1) return null;
        if (old.has(k) || wraps.has(k)) return k;
        if (INLINE.has(k.localName) || adds.includes(k)) return null;
      }
      return false;
    };
    const beside = (x, prev) => sideOf(prev ? x.previousSibling : x.nextSibling, prev);
    // (the terms x, put in or taken out of t, is walked or spliced alone on, but its place)
    // (whether putting x in t, or taking it out, may restyle by a sibling or place rule: a
    // compound of one matches x, t or a child of t; many children or rules: it may)
    const placeRuled = (x, t) => {
      if (!(GSIB || GPOS)) return false;
      if (SIBC.has('') || SIBC.has('*') || SIBC.size > 64 || t.children.length > 256) return true;
      for (const c of SIBC) {
        try {
          if (x.matches(c) || t.matches(c)) return true;
          for (const k of t.children) if (k.matches(c)) return true;
        } catch (e) { return true; }
      }
      return false;
    };
    // (`moved`: x was put in or taken out; else shown or hidden, which a sibling rule may
    // reach by what x is now)
    const aloneIn = (x, t, moved = true) => !((moved ? placeRuled(x, t) : GSIB || GPOS) || INLINE.has(x.localName) ||
      x.namespaceURI !== 'http://www.w3.org/1999/xhtml' || t.getRootNode() !== doc ||
      !(old.has(t) || wraps.has(t) || t === rootEl) || !keeps(t) || (old.has(t) && old.get(t)[6]) || t.localName === 'details');
    // (`was`: what x gave the last walk's counts, where it was there; `under`: the node what
    // it holds went under then, which its place must be under now)
    const placeOf = (x, was = null, under = null) => {
      const t = x.parentNode;
      if (!aloneIn(x, t, was === null) || adds.some((y) => y !== x && y.parentNode === t) || old.has(x) || wraps.has(x)) return null;
      for (const y of x.getElementsByTagName('*')) if (old.has(y) || wraps.has(y)) return null;
      const a = beside(x, true), b = a === false ? beside(x, false) : a;
      if (!b) return null;
      const e = old.get(b) || wraps.get(b), q = e[1], i = e[0] === null ? -1 : (q.children || []).indexOf(e[0]);
      if (e[13] < 0 || (e[0] === null ? e[20] < 0 : i < 0) || (under !== null && q !== under)) return null;
      const at = e[0] === null ? (a ? e[20] : e[19]) : (a ? i + 1 : i), c = a ? e.slice(13, 19) : e.slice(7, 13);
      return [null, q, e[2], e[3], e[4], e[5], false, ...c, ...(was ? c.map((v, j) => v + was[j]) : c), at, at];
    };
    for (const x of adds) {
      const e = placeOf(x);
      if (!e) xs.add(x.parentNode);
      else if (!within(x, doc) || !naming(x)) return null;
      else tops.set(x, e);
    }
    // An element the last walk skipped whole (counted as visited and skipped, nothing more),
    // whose attributes changed (a menu or a dialog shown), is walked alone into its place as
    // one put in is, on the same terms, where it is still under the node it was skipped
    // under and no other element of its parent changed; else from its parent, as before.
    const shown = new Set(), changedIn = new Map();
    for (const x of xs) if (x.parentNode) changedIn.set(x.parentNode, (changedIn.get(x.parentNode) || 0) + 1);
    for (const x of xs) {
      if (old.has(x) || wraps.has(x)) continue;
      const under = skippedUnder(x);
      if (under === undefined || !x.isConnected || changedIn.get(x.parentNode) !== 1) continue;
      const e = placeOf(x, SKIPPED_WHOLE, under);
      if (!e) continue;
      if (!within(x, doc) || !naming(x)) return null;
      shown.add(x);
      tops.set(x, e);
    }
    // An element taken out alone is spliced out alone (what it gave, taken from its place
    // among its parent node's children), on the same terms as one put in, where it was
    // walked, emitted or as a wrapper, and its parent hands no click to its items; the
    // siblings it was between are still side by side in its parent, and a walked sibling
    // that gave nodes is met on one side of it with no text or inline element first (else
    // two runs of text it stood between may now be one, or its parent may be left empty);
    // else its parent is read as changed.
    const spliced = (x, t, p, n) => {
      const e = old.get(x) || wraps.get(x);
      if (!e || e[13] < 0 || e[4] === DELEGATE || x.isConnected || !t.isConnected || !aloneIn(x, t) ||
          adds.some((y) => y.parentNode === t) || W.outs.some((o) => o[0] !== x && o[1] === t) ||
          (p && p.parentNode !== t) || (n && n.parentNode !== t) || (p ? p.nextSibling : t.firstChild) !== n) return false;
      const gave = (k) => !!k && (old.has(k) || wraps.get(k)[20] > wraps.get(k)[19]);
      if (!gave(sideOf(p, true)) && !gave(sideOf(n, false))) return false;
      outs.set(x, [t, p, n]);
      tops.set(x, e);
      return true;
    };
    for (const [x, t, p, n] of W.outs) if (!spliced(x, t, p, n)) xs.add(t);
    for (const x of xs) {
      if (shown.has(x)) continue;
      if (!x.isConnected || x.getRootNode() !== doc || x.namespaceURI !== 'http://www.w3.org/1999/xhtml' ||
          !within(x, doc) || !naming(x) || !from(startOf(x))) return null;
    }
    for (const x of W.gone) if (!within(x, doc)) return null;
    const byNode = new Map();  // node -> its element
    for (const [el, e] of old) byNode.set(e[0], el);
    const parentOf = (n) => { const el = byNode.get(n); return el ? old.get(el)[1] : null; };
    const pathOf = (n) => {
      const path = [];
      for (let c = n; c !== R; ) {
        const q = parentOf(c), i = q && q.children ? q.children.indexOf(c) : -1;
        if (i < 0) return null;
        path.push(i);
        c = q;
      }
      return path.reverse();
    };
    const roots = [];
    for (const [el, e] of tops) {
      if (e[13] < 0) return null;
      let inner = false;
      for (let a = up(el); a && !inner; a = up(a)) inner = tops.has(a);
      if (inner) continue;
      // (a wrapper its parent may now fold into its text, an inline element holding no
      // element, is not walked again on its own)
      if (e[0] === null && INLINE.has(el.localName) && el.firstElementChild === null) return null;
      // (a wrapper's place: its parent node's path, and where what it holds starts there)
      const path = e[0] === null ? pathOf(e[1]) : pathOf(e[0]);
      if (!path) return null;
      roots.push([el, e, e[0] === null ? path.concat(e[19]) : path]);
    }
    // (what owns an element elsewhere names it by what it holds, and its walk goes there)
    for (const [el] of roots) for (const [x, ow] of ownedBy) if (el.contains(x) || x.contains(el) || el.contains(ow) || ow.contains(el)) return null;
    // (subtrees that hold half of what was emitted: a walk of the page costs no more; but
    // one taken out, or no longer laid out at all, is walked at no cost)
    const idle = (el) => outs.has(el) || win.getComputedStyle(el).display === 'none';
    if (roots.reduce((t, r) => t + (idle(r[0]) ? 0 : r[1][15] - r[1][9]), 0) * 2 > W.counts[2]) return null;
    roots.sort((a, b) => {
      const x = a[2], y = b[2];
      for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
      return x.length - y.length;
    });
    // the old subtrees (an iframe in them is counted out, and answered again from where the
    // walk puts it: see hosted)
    const gone = new Set();
    let goneFrames = 0;
    for (const [, e] of roots) {
      const todo = e[0] === null ? (e[1].children || []).slice(e[19], e[20]) : [e[0]];
      while (todo.length) {
        const n = todo.pop();
        if (n.frame) goneFrames++;
        gone.add(n);
        if (n.children) todo.push(...n.children);
      }
    }
    // every other box: unchanged, or moved with its decisions standing
    const rootEls = new Set(roots.map((r) => r[0]));
    const inside = (el) => { for (let a = el; a; a = up(a)) if (rootEls.has(a)) return true; return false; };
    // (a box of no area is hidden or not whatever its place; one with area, where it is)
    const placed = (r, fixed) => !(r.width > 0 && r.height > 0) || (fixed
      ? r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh : r.right + sx > 0 && r.bottom + sy > 0);
    const now = new Map(), more = [];
    for (let i = 0; i < g.length; i += 3) {
      const el = g[i], a = g[i + 1];
      // (taken out with what was taken out, under a root)
      if (!el.isConnected) {
        if (W.gone.some((x) => x === el || x.contains(el))) continue;
        return null;
      }
      const r = el.getBoundingClientRect(), sized = r.width === a.width && r.height === a.height;
      if (sized && r.left === a.left && r.top === a.top) continue;
      // (one outside the subtrees whose decisions may not stand is walked again too; a
      // container of another size may style what is in it otherwise: container queries)
      if (!inside(el) && (!((sized || (a.width > 1 && a.height > 1 && r.width > 1 && r.height > 1)) &&
          placed(a, g[i + 2]) && placed(r, g[i + 2])) ||
          (!sized && win.getComputedStyle(el).containerType !== 'normal'))) {
        more.push(el);
        continue;
      }
      now.set(el, r);
    }
    if (more.length) return more.length <= WIDEN_MAX ? more : null;
    // (an iframe moved with the rest: its content origin is answered, and the host moves
    // what it hangs there)
    const reframed = framesMoved((el) => now.get(el), sx, sy);
    // the subtrees walked again, each from the counts it started at (moved by the changes
    // of those before it), then the totals: the last read's, with those changes
    const was = W.counts, total = was.slice(), made = [];
    iframes = L.iframes - goneFrames;
    for (const [el, e] of roots) {
      const holder = {};
      [visited, skipped, emitted, cuts.maxTextPerNode, cuts.maxAttr, cuts.maxOptions] =
        total.map((v, j) => e[7 + j] + v - was[j]);
      const c0 = counts();
      // (one taken out gives nothing now)
      if (!outs.has(el)) {
        stack.push(e[4], e[3], e[2], e[5], holder, el);
        walk();
      }
      const n = e[0], k = holder.children, nn = k && k.length === 1 ? k[0] : null;
      // (an emitted element emitted the same way again takes its old node's place; what a
      // wrapper now gives, or an element now emitted otherwise, any number of nodes, takes
      // the place of what it gave: not under a box that hands its click to what is in it
      // only while all of it are controls)
      const same = n !== null && !!nn && nn.tag === n.tag && nn.role === n.role && nn.ref === n.ref &&
        !nn.clickable === !n.clickable;
      if (!same && e[1] !== R) {
        const pel = byNode.get(e[1]);
        if (!pel) return null;
        if (win.getComputedStyle(pel).cursor === 'pointer') return [pel];  // (that box is walked again)
      }
      const delta = counts().map((v, j) => v - c0[j] - (e[13 + j] - e[7 + j]));
      if (capped && delta[2] > 0) return null;
      for (let j = 0; j < 6; j++) total[j] += delta[j];
      made.push([same ? nn : k || [], delta, holder, same]);
    }
    [visited, skipped, emitted, cuts.maxTextPerNode, cuts.maxAttr, cuts.maxOptions] = total;
    // (a shadow root put in, or one met where nodes take a range's place: a splice's order
    // is the document's, which a shadow tree has no place in)
    if ((xs.size || made.some((m) => !m[3])) && shady()) return null;
    // (a page grown to a cap a walk would stop at, outside the subtrees walked again)
    if ((!capped && emitted >= MAX_NODES) || visited >= MAX_VISITED) return null;
    if (reasons.has('maxNodes') || reasons.has('maxVisited') || reasons.has('maxTime') ||
        reasons.has('maxDepth')) return null;
    // A walk cut at maxNodes, where no subtree walked again held the cut: with fewer nodes
    // before the cut now, the walk goes on from where it stopped (its stack and the subtrees
    // it had open, kept), as far as the cap lets it, and what it gives is put at the end of
    // the nodes it goes under (splices, applied first). Not under a box clickable by its
    // cursor (whether it is a control depends on all it holds).
    // ([path, start, start, nodes] of the nodes the walk going on gave; once it has gone on,
    // the kept output holds them, so a read that gives up after it walks the page in full)
    const onward = [];
    let stillCapped = capped, resumed = false;
    if (capped) {
      const rest = W.rest, openAt = new Set();
      if (!rest) return null;
      for (let i = 0; i < rest[1].length; i += 2) openAt.add(rest[1][i]);
      for (const [, e] of roots) if (openAt.has(e)) return null;
      if (emitted < W.counts[2]) {
        // (the stack holds the elements that were to come: one put in since may be among
        // them, which it would miss)
        if (adds.length) return null;
        for (const e of openAt) if (e[0] !== null && e[6]) return null;
        const c0 = counts(), open0 = [...openAt], ends = open0.map((e) => e.slice(13, 19)), lens = new Map();
        for (let i = 4; i < rest[0].length; i += 6) {
          const q = rest[0][i];
          if (!lens.has(q)) lens.set(q, q.children ? q.children.length : 0);
        }
        // (not spread: it may hold many thousands)
        for (const v of rest[0]) stack.push(v);
        for (const v of rest[1]) open.push(v);
        cutAt = null;
        resumed = true;
        walk();
        if (reasons.has('maxVisited') || reasons.has('maxTime') || reasons.has('maxDepth')) return null;
        stillCapped = reasons.has('maxNodes');
        // (the subtrees it had open end where they end now, counted from where they ended)
        open0.forEach((e, j) => { for (let i = 0; i < 6; i++) e[13 + i] = ends[j][i] + e[13 + i] - c0[i]; });
        for (const [q, n0] of lens) {
          if (!q.children || q.children.length === n0) continue;
          const path = q === R ? [] : pathOf(q);
          if (!path) return null;
          onward.push([path, n0, n0, q.children.slice(n0)]);
        }
      }
    }
    // names from content above them
    const kept = counts(), names = [], renamed = new Set();
    for (const [, e, path] of roots) {
      let depth = path.length - 1;
      for (let c = e[1]; c && c !== R; c = parentOf(c), depth--) {
        if (renamed.has(c)) continue;
        renamed.add(c);
        const ael = byNode.get(c), ae = old.get(ael), role = c.role || null;
        if (role === 'iframe' || CELLS.has(role) || (ae[6] && !c.clickable)) continue;
        const nm2 = nameOf(ael, ael.localName, role, ae[6], win.getComputedStyle(ael)), nm1 = c.name || '';
        // (a nameless control's hint may come from what is in it, an icon's class; an
        // element whose hint may differ, or whose name is gained, lost or cut, is walked again)
        if (c.ref && !nm2 && !c.text && hintable(ael, role) &&
            (hintOf(ael, ael.localName) || undefined) !== c.hint) return resumed ? null : [ael];
        if (nm2 === nm1) continue;
        if (!nm2 || !nm1 || nm2.length >= MAX_TEXT || nm1.length >= MAX_TEXT) return resumed ? null : [ael];
        names.push([c, path.slice(0, depth), nm2]);
      }
    }
    cuts.maxTextPerNode = kept[3]; cuts.maxAttr = kept[4]; cuts.maxOptions = kept[5];
    // (the reasons in the order a walk meets them: a new one only where that is plain)
    const order = L.stats.truncatedReasons.filter((r) => (r === 'maxNodes' && stillCapped) || cuts[r] > 0);
    for (const r in cuts) {
      if (cuts[r] > 0 && !order.includes(r)) { if (order.length) return null; order.push(r); }
    }
    // (two taken out from one parent node: where each was among the other is not kept)
    const outQ = roots.filter((r) => outs.has(r[0])).map((r) => r[1][1]);
    if (new Set(outQ).size < outQ.length) return null;
    // ---- it stands: the kept output and measures take it in
    // (parent node -> what wrappers gave)
    const nodes = [], WO = W.wrapOf, byQ = new Map();
    roots.forEach(([el, e, path], j) => {
      const n = e[0], q = e[1], [nn, delta, holder, same] = made[j];
      if (!same) {
        const start = n === null ? e[19] : path[path.length - 1], end = n === null ? e[20] : start + 1;
        if (!byQ.has(q)) byQ.set(q, []);
        byQ.get(q).push({ el, start, end, kids: nn, holder, path: path.slice(0, -1) });
      } else {
        q.children[q.children.indexOf(n)] = nn;
        // (walked under a holder of its own)
        nodeOf.get(el)[1] = q;
        nodes.push([path, nn]);
      }
      // (the counts of the subtrees above)
      for (let c = q; c && c !== R; c = parentOf(c)) {
        const ae = old.get(byNode.get(c));
        for (let i = 0; i < 6; i++) ae[13 + i] += delta[i];
      }
      for (let a = up(el); a; a = up(a)) {  // (and of the wrappers above)
        const w = WO.get(a);
        if (w) for (let i = 0; i < 6; i++) w[13 + i] += delta[i];
      }
    });
    const named = names.map(([c, path, nm]) => { c.name = nm; return [path, nm]; });
    const changed = new Map();
    for (let i = 0; i < W.boxed.length; i += 2) {
      const n = W.boxed[i], r = now.get(W.boxed[i + 1]), b = n.box;
      if (!r || gone.has(n)) continue;
      const box = [Math.round(r.left + sx), Math.round(r.top + sy), Math.round(r.width), Math.round(r.height)];
      const iv = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
      const moved = box[0] !== b[0] || box[1] !== b[1] || box[2] !== b[2] || box[3] !== b[3];
      if (moved || iv !== !!n.inViewport) changed.set(n, [iv, moved ? box : null]);
    }
    const [flips, boxes, frames, shifts] = turn(changed, gone, reframed);
    // what wrappers gave takes the place of what they gave before, the last in the document
    // first in each parent node (so the places of those before it stand; the host does the
    // same in this order); the other wrappers of that parent node move along
    for (const [wel] of WO) if (!wel.isConnected || inside(wel)) WO.delete(wel);
    // (where y is from x, as compareDocumentPosition says, x or y one taken out: where it
    // was, between the siblings it was taken from; ancestors contain it)
    const cmp = (x, y) => {
      if (!outs.has(x)) {
        if (!outs.has(y)) return x.compareDocumentPosition(y);
        const r = cmp(y, x);
        return (r & 2 ? 4 : 0) | (r & 4 ? 2 : 0) | (r & 8 ? 16 : 0) | (r & 16 ? 8 : 0);
      }
      const [t, p, n] = outs.get(x);
      if (y === t || y.contains(t)) return 10;
      if (p) return y === p || p.contains(y) || !(p.compareDocumentPosition(y) & 4) ? 2 : 4;
      if (n) return y === n || n.contains(y) || !(n.compareDocumentPosition(y) & 2) ? 4 : 2;
      return t.compareDocumentPosition(y) & 4 ? 4 : 2;
    };
    // (holder -> [parent node, where it starts now])
    const splices = onward, home = new Map();
    for (const [q, list] of byQ) {
      list.sort((a, b) => (cmp(a.el, b.el) & 4 ? 1 : -1));
      for (const x of list) {
        x.delta = x.kids.length - (x.end - x.start);
        if (x.kids.length || q.children) (q.children || (q.children = [])).splice(x.start, x.end - x.start, ...x.kids);
        splices.push([x.path, x.start, x.end, x.kids]);
      }
      // (where what it gave starts now)
      for (const x of list) {
        x.at = x.start;
        for (const y of list) if (cmp(x.el, y.el) & 2) x.at += y.delta;
      }
      for (const [wel, w] of WO) {
        if (w[1] !== q) continue;
        for (const x of list) {
          const pos = cmp(x.el, wel);
          if (pos & 8) w[20] += x.delta;
          else if (pos & 4) { w[19] += x.delta; w[20] += x.delta; }
        }
      }
      for (const x of list) home.set(x.holder, [q, x.at]);
    }
    // (what was walked under a holder of its own hangs under the parent node it went to)
    for (const [, e] of nodeOf) { const h = home.get(e[1]); if (h) e[1] = h[0]; }
    for (let i = 0; i < skippedWhole.length; i += 2) {
      const h = home.get(skippedWhole[i + 1]), under = h ? h[0] : skippedWhole[i + 1];
      if (W.skipped) W.skipped.set(skippedWhole[i], under); else W.skippedList.push(skippedWhole[i], under);
    }
    for (const [, w] of wrapOf) { const h = home.get(w[1]); if (h) { w[1] = h[0]; w[19] += h[1]; w[20] += h[1]; } }
    const fresh = new Set();
    for (let i = 0; i < geo.length; i += 3) fresh.add(geo[i]);
    const g2 = [];
    for (let i = 0; i < g.length; i += 3) if (!fresh.has(g[i]) && g[i].isConnected) g2.push(g[i], now.get(g[i]) || g[i + 1], g[i + 2]);
    W.geo = g2.concat(geo);
    const b2 = [];
    for (let i = 0; i < W.boxed.length; i += 2) if (!gone.has(W.boxed[i])) b2.push(W.boxed[i], W.boxed[i + 1]);
    W.boxed = b2.concat(boxed);
    for (const [el, e] of old) if (gone.has(e[0])) old.delete(el);
    for (const [el, e] of nodeOf) old.set(el, e);
    for (const [el, w] of wrapOf) WO.set(el, w);
    // (each iframe node the walks made: its path in the output as it is now, its key and
    // content origin; the host hangs its frame's content there, as after a full read)
    // (node -> its parent node, when there are any)
    const hosted = [], above = new Map();
    if (framed.length) for (const [, e] of old) above.set(e[0], e[1]);
    if (goneFrames || framed.length) {
      for (let i = 0; i < framed.length; i += 3) {
        const n = framed[i], path = [];
        for (let c = n; c !== R; c = above.get(c)) {
          const q = above.get(c), at = q && q.children ? q.children.indexOf(c) : -1;
          // (not met: the page is walked in full)
          if (at < 0) return null;
          path.push(at);
        }
        hosted.push([path.reverse(), n.frame.key, n.frame.cx, n.frame.cy]);
      }
      const f2 = [];
      for (let i = 0; i < W.framed.length; i += 3) {
        if (!gone.has(W.framed[i])) f2.push(W.framed[i], W.framed[i + 1], W.framed[i + 2]);
      }
      W.framed = f2.concat(framed);
      L.iframes = iframes;
    }
    const sc = new Set(W.sc);
    for (const el of scrollers) if (!sc.has(el)) W.sc.push(el);
    W.counts = counts();
    W.owned = ownedBy;
    if (resumed || !stillCapped) W.rest = stillCapped ? cutAt : null;
    W.texts = new Set();
    W.attrs = new Set();
    W.classed = false;
    W.fielded = false;
    W.gone = [];
    W.adds = [];
    W.outs = [];
    seeState();
    W.next = next;
    book.next = next;
    const se = doc.scrollingElement || doc.documentElement;
    L.document = { width: se ? se.scrollWidth : vw, height: se ? se.scrollHeight : vh };
    L.nextRef = next;
    // (the focused element's node, as the walk names it: one of those walked again, or kept)
    const fe = active && old.get(active);
    L.focusedRef = fe && fe[0].ref ? fe[0].ref : null;
    const ms = Math.round((performance.now() - t0) * 100) / 100;
    L.stats = { domNodes: doc.getElementsByTagName('*').length, visitedNodes: visited, emittedNodes: emitted,
      skippedHidden: skipped, jsTimeMs: ms, truncated: order.length > 0, truncatedReasons: order };
    W.token = L.watch = PREFIX + 'w' + ++W.n + '.' + Math.random().toString(36).slice(2);
    return JSON.stringify({ version: 2, retexted: o.since, nodes, splices, names: named, flips, boxes, shifts, frames, hosted,
      document: L.document, focusedRef: L.focusedRef, nextRef: next, stats: L.stats, jsTimeMs: ms, watch: W.token });
  }

  // (what a walk gathers, emptied for a walk that starts over)
  const restart = () => {
    visited = emitted = skipped = iframes = 0;
    for (const k in cuts) cuts[k] = 0;
    geo.length = boxed.length = framed.length = skippedWhole.length = scrollers.length = stack.length = open.length = 0;
    nodeOf.clear();
    wrapOf.clear();
    seenOk.clear();
    pointerOnly.length = 0;
    reasons.clear();
    focusedRef = null;
    cutAt = null;
  };
  if (retext) {
    // (a read that asks for more elements to walk again is read again with them, a few
    // times at most; then the page is walked in full)
    for (let round = 0; ; round++) {
      const answer = reread(W.texts, W.attrs);
      if (typeof answer === 'string') return answer;
      restart();
      if (answer === null || round === WIDEN_ROUNDS) break;
      for (const x of answer) W.attrs.add(x);
    }
    forget();  // (and the walk starts over)
  }
  if (o.rootSelector) {
    const el = doc.querySelector(o.rootSelector);
    if (el) stack.push('auto', 0, false, 0, root, el);
    else rootMissing = true;
  } else if (rootEl) {
    const rcs = win.getComputedStyle(rootEl);
    const [items, only] = splitKids(kidsOf(rootEl), rcs, rcs.visibility === 'visible', undefined,
      rcs.cursor);
    if (only) root.text = only;
    else pushItems(items, root, 0, false, 0, rcs.cursor);
  }
  walk();

  book.next = next;
  const se = doc.scrollingElement || doc.documentElement;
  const result = {
    version: 2,
    url: String(doc.URL),
    title: wellFormed(doc.title || ''),
    viewport: { width: vw, height: vh },
    scroll: { x: sx, y: sy },
    document: { width: se ? se.scrollWidth : vw, height: se ? se.scrollHeight : vh },
    focusedRef,
    nextRef: next,
    iframes,
    stats: {
      domNodes: doc.getElementsByTagName('*').length,
      visitedNodes: visited,
      emittedNodes: emitted,
      skippedHidden: skipped,
      jsTimeMs: 0,
      truncated: reasons.size > 0,
      truncatedReasons: Array.from(reasons),
    },
    root,
  };
  if (rootMissing) result.rootMissing = true;
  if (opaque.size) result.opaqueSheets = { doc: reg.doc, hrefs: [...opaque] };
  // arm the watch (not after a read cut by time, which may differ the next time)
  if (!reasons.has('maxTime') && !reasons.has('maxVisited')) {
    W.mo.observe(doc, MO);
    W.mo.takeRecords();
    pageMoved();
    W.dirty = !animated() || !pageWatched();
    if (!W.dirty) {
      W.sc = scrollers;
      W.last = result;
      W.nodeOf = nodeOf;
      W.skipped = null;
      W.skippedList = skippedWhole;
      W.wrapOf = wrapOf;
      W.counts = counts();
      W.owned = ownedBy;
      W.texts = new Set();
      W.attrs = new Set();
      W.classed = false;
      W.fielded = false;
      W.gone = [];
      W.adds = [];
      W.outs = [];
      W.geo = geo;
      W.boxed = boxed;
      W.framed = framed;
      W.rest = reasons.has('maxNodes') ? cutAt : null;
      seeState();
      W.key = WKEY;
      W.next = next;
      W.token = result.watch = PREFIX + 'w' + ++W.n + '.' + Math.random().toString(36).slice(2);
    }
  }
  result.stats.jsTimeMs = Math.round((performance.now() - t0) * 100) / 100;
  return JSON.stringify(result);
}
