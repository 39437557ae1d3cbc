"""get_text and wait_for: reading visible text, and waiting for text or an element to appear.

Visible text is read by walking the DOM in document order: text under ``display:none``,
``visibility:hidden``, ``opacity:0``, zero-size clipped boxes (screen-reader-only tricks), tiny
fonts, or far off-screen is left out (content a scrolling box scrolled out of its view is
kept: it is one scroll away), so hidden instructions planted in a page do not reach the
model. Without a target the page's main content is read: ``<main>``, else the ``<article>``,
else the block holding the most paragraph text, else the body. A text field (``<input>``,
``<textarea>``) gives its current value, never its markup's text (a textarea's text content is
only its initial value); read on its own it gives the value as typed, line breaks and spaces
kept. Masked and password fields give nothing.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ..errors import ActionError, ActionTimeoutError, InvalidArgumentError
from ..models import ActionResult, TextResult
from ..quoting import quote
from ..safety.fence import clean_text
from ..safety.secrets import all_secrets, redact
from .dom import EVAL_TIMEOUT_S, run_js
from .limits import clamp_ms
from .perform import Outcome, perform
from .targets import Target, resolve

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["MAX_WAIT_MS", "TRUNCATION_MARK", "get_text", "truncate", "wait_for"]

TRUNCATION_MARK = "[… truncated: showing {shown} of {total} characters]"

_VISIBLE_TEXT_JS = """
(root) => {
  const BLOCK = /^(block|flex|grid|list-item|table|table-row|table-caption|flow-root)$/;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT',
                        'CANVAS', 'VIDEO', 'AUDIO', 'HEAD', 'SELECT', 'OPTION']);
  const out = [];
  const docW = Math.max(document.documentElement.scrollWidth, innerWidth);
  const CLIP0 = /^(circle|ellipse)\\(0(px|%)?[\\s)]|^inset\\(\\s*(5\\d|[6-9]\\d|100)%/;
  const POLY0 = /^polygon\\((\\s*0(px|%)?\\s+0(px|%)?\\s*,?)+\\)$/;
  const hidden = (el, s) => {
    if (s.display === 'none' || s.visibility === 'hidden' || s.visibility === 'collapse')
      return true;
    if (Number(s.opacity) < 0.05) return true;
    if (el.hidden || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert'))
      return true;
    if (/opacity\\(0(\\.0*)?%?\\)/.test(s.filter) || CLIP0.test(s.clipPath) ||
        POLY0.test(s.clipPath)) return true;
    const m = /^matrix\\(([^,]+), ([^,]+), ([^,]+), ([^,]+)/.exec(s.transform);
    if (m && Math.abs(m[1] * m[4] - m[2] * m[3]) < 0.01) return true;
    const r = el.getBoundingClientRect();
    if ((r.width < 1 || r.height < 1) && s.display !== 'inline' && s.display !== 'contents' &&
        r.width * r.height < 0.01 * el.offsetWidth * el.offsetHeight) return true;  // `scale`
    if ((s.overflow !== 'visible' || s.clip !== 'auto' || s.clipPath !== 'none') &&
        (r.width <= 2 || r.height <= 2) && s.display !== 'contents' && s.display !== 'inline')
      return true;
    if (r.left + scrollX > docW + 50) return true;
    if (r.right + scrollX < -50 || r.bottom + scrollY < -50) {
      // above or left of the page, unless a box it is in was scrolled past it
      let x = r.right + scrollX, y = r.bottom + scrollY;
      for (let a = el.parentElement; a && (x < -50 || y < -50); a = a.parentElement) {
        x += a.scrollLeft; y += a.scrollTop;
      }
      if (x < -50 || y < -50) return true;
    }
    if (parseFloat(s.fontSize) < 3 || parseFloat(s.textIndent) < -999) return true;
    if (/^rgba\\(.*,\\s*0\\)$|^transparent$/.test(s.color) &&
        !parseFloat(s.webkitTextStrokeWidth)) return true;
    return false;
  };
  const TYPED = ['text', 'search', 'email', 'url', 'tel', 'number'];
  // the current value of a text field (null for other elements): a textarea's text content
  // is only its initial value; masked and password fields show nothing
  const fieldValue = (el, s) => {
    const tag = el.tagName.toUpperCase();
    if (tag !== 'TEXTAREA' && !(tag === 'INPUT' && TYPED.includes((el.type || '').toLowerCase())))
      return null;
    if ((s.webkitTextSecurity || 'none') !== 'none' ||
        /password/i.test(el.getAttribute('autocomplete') || '')) return '';
    return String(el.value || '');
  };
  // a table cell starts with CELL (a row's first cell's is dropped, the others become ' | ');
  // inside a cell, blocks and line breaks are spaces, so a row stays on one line
  const CELL = '\\u0001';
  const walk = (node, inCell) => {
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) {
        const pre = n.parentElement && /^pre/.test(getComputedStyle(n.parentElement).whiteSpace);
        const t = pre && !inCell ? n.data.replace(/\\u0001/g, '')
          : n.data.replace(/[\\s\\u0001]+/g, ' ');
        if (t) out.push(t);
      } else if (n.nodeType === 1) {
        if (SKIP.has(n.tagName.toUpperCase())) continue;
        if (n.tagName === 'BR') { out.push(inCell ? ' ' : '\\n'); continue; }
        const s = getComputedStyle(n);
        if (s.display !== 'contents' && hidden(n, s)) continue;
        const cell = s.display === 'table-cell';
        const block = BLOCK.test(s.display) && !(inCell && !/^table/.test(s.display));
        if (block) out.push('\\n');
        else if (cell) out.push(CELL);
        else if (inCell && BLOCK.test(s.display)) out.push(' ');
        const typed = fieldValue(n, s);
        if (typed !== null) {  // a field shows its value, not its markup's text
          const pad = n.tagName === 'TEXTAREA' && !inCell ? '\\n' : ' ';
          if (typed) out.push(pad + typed + pad);
          if (block) out.push('\\n');
          continue;
        }
        if (n.tagName === 'DETAILS' && !n.open) {  // closed: only its summary shows
          const sm = n.querySelector(':scope > summary');
          if (sm) walk(sm, inCell || cell);
        } else if (s.contentVisibility !== 'hidden') walk(n.shadowRoot || n, inCell || cell);
        if (block && s.display !== 'table-row') out.push('\\n');  // rows: no blank between
        else if (inCell && BLOCK.test(s.display)) out.push(' ');
      }
    }
  };
  if (!root) return '';
  if (root.nodeType === 1) {  // a text field read on its own: its value, as typed
    const own = fieldValue(root, getComputedStyle(root));
    if (own !== null) return own;
  }
  walk(root.shadowRoot || root, false);
  const cells = (l) => (l.includes(CELL)
    ? l.split(CELL).map((c) => c.trim()).filter((c, i) => i > 0 || c).join(' | ') : l);
  return out.join('').split('\\n').map((l) => cells(l).replace(/[ \\t]+/g, ' ').trim())
    .filter((l, i, a) => l || (i > 0 && a[i - 1])).join('\\n').trim();
}
"""

_MAIN_JS = """
() => {
  const len = (el) => (el.innerText || '').trim().length;
  const body = document.body || document.documentElement;
  const total = len(body) || 1;
  const main = document.querySelector('main, [role=main]');
  if (main && (len(main) >= 200 || len(main) >= 0.3 * total)) return [main, 'main'];
  const articles = Array.from(document.querySelectorAll('article'));
  if (articles.length) {
    const best = articles.reduce((a, b) => (len(b) > len(a) ? b : a));
    if (len(best) >= 200 || len(best) >= 0.3 * total) return [best, 'article'];
  }
  const score = new Map();
  for (const p of document.querySelectorAll('p, pre, blockquote, li, h1, h2, h3, td')) {
    const parent = p.parentElement; if (!parent) continue;
    score.set(parent, (score.get(parent) || 0) + (p.textContent || '').trim().length);
  }
  let best = null, top = 0;
  for (const [el, s] of score) if (s > top) { best = el; top = s; }
  if (best && best !== body && top >= 0.3 * total) return [best, 'largest_block'];
  return [body, 'body'];
}
"""

_BODY_TEXT_JS = "() => (" + _VISIBLE_TEXT_JS.strip() + ")(document.body)"
_MAIN_TEXT_JS = ("() => { const [el, source] = (" + _MAIN_JS.strip() + ")();"
                 " return [(" + _VISIBLE_TEXT_JS.strip() + ")(el), source]; }")

SEPARATOR = " | "
"""Between the cells of a table row in the text (one line per row)."""

_MAX_LENGTH = 100_000
_TEXT_LIMIT_S = 20.0
"""Bound of a whole get_text call (each page read has its own shorter one)."""


def truncate(text: str, max_length: int) -> tuple[str, bool]:
    """``text`` cut to ``max_length`` characters (at a word boundary when one is near), with
    an explicit marker naming the shown and total lengths."""
    if len(text) <= max_length:
        return text, False
    cut = text[:max_length]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= max_length * 0.8:
        cut = cut[:space]
    cut = cut.rstrip()
    return f"{cut}\n{TRUNCATION_MARK.format(shown=len(cut), total=len(text))}", True


async def _page_eval(tab: TabCore, script: str, arg: Any = None) -> Any:
    try:
        return await tab.refs.world.value(tab.page.main_frame, script, arg, EVAL_TIMEOUT_S)
    except TimeoutError:
        raise ActionTimeoutError(
            "The page did not answer (its main thread may be busy).",
            hint="Wait a moment and try again, or reload the page.",
        ) from None


async def get_text(tab: TabCore, target: str | None = None,
                   max_length: int = 2000) -> TextResult:
    """Visible text of ``target``, or of the page's main content when no target is given."""
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
        raise InvalidArgumentError(f"max_length must be a positive integer, got {max_length!r}.")
    limit = min(max_length, _MAX_LENGTH)

    async def run() -> TextResult:
        world = tab.refs.world
        if target is not None:
            t = await resolve(tab, target)
            text = await run_js(t.spot, _VISIBLE_TEXT_JS, world=world)
            ref, source = t.ref, "element"
        else:
            try:
                found = await world.value(tab.page.main_frame, _MAIN_TEXT_JS, None,
                                          EVAL_TIMEOUT_S)
            except TimeoutError:
                raise ActionTimeoutError(
                    f"The page did not answer within {int(EVAL_TIMEOUT_S * 1000)} ms while "
                    "reading its text (its main thread may be stuck).",
                    hint="Navigate to another page or close the tab.",
                ) from None
            if not isinstance(found, list) or len(found) != 2:
                raise ActionError("The page's text could not be read.",
                                  hint="Take a new snapshot and try again.")
            text, source, ref = found[0], str(found[1]), None
        full = str(text or "")
        policy = tab.browser.safety
        if policy.enabled:
            full = clean_text(full)  # no invisible characters, no forged refs
            if policy.sensitive_data:  # secrets go before the text is cut, never part of one
                full = redact(full, all_secrets(policy))
        shown, cut = truncate(full, limit)
        return TextResult(text=shown, total_length=len(full), truncated=cut, ref=ref,
                          source=source, url=tab.page.url)

    return await tab.call("reading text", run, limit_s=_TEXT_LIMIT_S)


MAX_WAIT_MS = 30_000
"""Longest one wait may last (a deadline, a number of seconds)."""


def _line_with(page_text: str, needle: str) -> str | None:
    """The first line of ``page_text`` holding ``needle`` (whitespace-folded, casefolded)."""
    for line in page_text.splitlines():
        if needle in " ".join(line.split()).casefold():
            return line.strip()
    return None


async def wait_for(tab: TabCore, text: str | None = None, target: str | None = None,
                   timeout_ms: int = 5000, gone: bool = False,
                   seconds: float | None = None) -> ActionResult:
    """Wait until ``text`` is visible on the page (``gone``: until it is not) or ``target`` is
    visible (``gone``: hidden or removed); with ``seconds``, wait that long and report what
    changed; with none of them, wait until the page is ready. Bounded by ``timeout_ms``
    (clamped to 100..30000); ``seconds`` is at most 30."""
    if text is not None and (not isinstance(text, str) or not text.strip() or len(text) > 1000):
        raise InvalidArgumentError("wait_for text must be a non-empty string of at most 1000 "
                                   "characters.")
    if seconds is not None:
        if (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                or not 0 < seconds <= MAX_WAIT_MS / 1000):
            raise InvalidArgumentError(
                f"seconds must be a number above 0 and at most {MAX_WAIT_MS // 1000}, got "
                f"{str(seconds)[:20]}.",
                hint="To wait longer, call web_wait_for again.")
        if text is not None or target is not None:
            raise InvalidArgumentError("wait_for takes seconds, or a text or ref, not both.")
    limit_ms = (int(seconds * 1000) if seconds is not None
                else clamp_ms(timeout_ms, default=5000, high=MAX_WAIT_MS))
    needle = " ".join(text.split()).casefold() if text else None
    needle_cells = needle is not None and SEPARATOR not in needle

    async def act(t: Target | None) -> Outcome:
        started = time.monotonic()
        if seconds is not None:
            await asyncio.sleep(seconds)
            return Outcome(f"Waited {seconds:g} s.", {"found": True})
        deadline = started + limit_ms / 1000
        seen = known = False
        line: str | None = None
        while True:
            try:
                if t is not None:
                    box = await asyncio.wait_for(t.handle.bounding_box(), EVAL_TIMEOUT_S)
                    seen = bool(box and box["width"] > 0 and box["height"] > 0)
                elif needle is not None:
                    page_text = str(await _page_eval(tab, _BODY_TEXT_JS))
                    if needle_cells:  # a text across table cells matches with or without " | "
                        page_text = page_text.replace(SEPARATOR, " ")
                    seen = needle in " ".join(page_text.split()).casefold()
                    line = _line_with(page_text, needle) if seen else None
                else:
                    seen = True
                known = True
            except (TimeoutError, ActionTimeoutError):
                known = False  # a slow read decides nothing either way
            waited = int((time.monotonic() - started) * 1000)
            if known and seen != gone:
                if t is not None:
                    what = f"{t.ref} is {'no longer visible' if gone else 'visible'}"
                elif text and gone:
                    what = f"{text!r} is no longer on the page"
                elif text:
                    what = f"{text!r} is on the page"
                    if line and " ".join(line.split()).casefold() != needle:
                        what += f", in the line {quote(line, 160)}"
                else:
                    what = "the page is ready"
                return Outcome(f"Waited {waited} ms: {what}.", {"found": True})
            if time.monotonic() >= deadline:
                if t is not None:
                    what = f"{t.ref} to become {'hidden' if gone else 'visible'}"
                else:
                    what = f"{text!r} to {'go away' if gone else 'appear'}"
                raise ActionTimeoutError(
                    f"Timed out after {limit_ms} ms waiting for {what}.",
                    hint="Take a new snapshot to see what the page shows; call web_wait_for "
                    "again to wait longer.")
            await asyncio.sleep(0.1)

    if seconds is not None:
        doing = f"waiting {seconds:g} s"
    else:
        doing = "waiting" if text is None else f"waiting for {text[:60]!r}"
    return await perform(tab, "wait_for", target, act, limit_ms=limit_ms, doing=doing)
