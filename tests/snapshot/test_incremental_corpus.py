"""Incremental reads on saved real pages: on every page of the shared corpus, seeded random
changes (text edited, subtrees inserted and removed, elements hidden and shown, boxes made
scrollable, boxes and the page scrolled, attributes, classes, field values, style rules,
focus, the pointer, the Tab key), and after each step a read that passes the last read's
token, compared ref by ref with a full read of the same state whenever the document vouched
that nothing changed, or that only its scroll did, or read again only around what changed
(text edited, attributes changed, elements put in or taken out, fields holding other values,
focus moved, the pointer moved, a key pressed). Some reads of the last kind are left
uncompared, so the next read builds on a read that walked only part of the page (and is
compared, unless it walks the whole page).

A read the document does not vouch for walks the page in full, so it cannot be stale; what
this looks for is a change the watch missed, or a box that moved other than by the scroll,
which would hand the model an outline of a page that is no longer there.

By default every fifth page of the corpus's index is changed (36 of its 180 pages, which keeps
the suite's time); ``WEBREFS_FUZZ_PAGES=all`` takes every page, and a number N every N-th.

The corpus is kept outside the repository, beside the checkout (``../shared/corpus``) or where
``WEBREFS_CORPUS`` says; without it this test fails, saying where it looked. Its pages are
served from loopback, and the browser sends every request through the test's own proxy, which
refuses all but the page server: nothing a saved page names leaves the machine.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from webrefs import Browser, Tab
from webrefs.models import Node, PageTree

from tests.helpers.corpus import corpus_dir, corpus_index, missing_pages, serve_corpus
from tests.helpers.extracting import evaluate, extract, same
from tests.helpers.proxy import RecordingProxy

HOST = "corpus.webrefs.test"
STEPS = 6
"""Random steps per page."""


def _chosen(names: list[str]) -> list[str]:
    """The pages to change: every N-th of the index (``WEBREFS_FUZZ_PAGES``, default 5;
    ``all`` for every page)."""
    every = os.environ.get("WEBREFS_FUZZ_PAGES", "5").strip().lower()
    if every == "all":
        return names
    if not every.isdigit() or int(every) < 1:
        pytest.fail(f"WEBREFS_FUZZ_PAGES={every!r}: give a whole number from 1, or 'all'")
    return names[::int(every)]

# One change made by the page's own scripts, with two numbers in [0, 1) that pick its target
# and its form. Returns what it did, or null when the page has nothing it applies to.
MUTATE = r"""([kind, a, b]) => {
  const pick = (xs) => (xs.length ? xs[Math.floor(a * xs.length)] : null);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK']);
  const els = () => [...document.body.querySelectorAll('*')].filter((e) => !SKIP.has(e.tagName));
  const shown = () => els().filter((e) => e.checkVisibility());
  switch (kind) {
    case 'text': {
      const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      const ts = []; let n;
      while ((n = w.nextNode())) if (n.data.trim() && !SKIP.has(n.parentNode.tagName)) ts.push(n);
      const t = pick(ts); if (!t) return null;
      t.data = b < 0.5 ? t.data + ' edited' : t.data.slice(0, Math.ceil(t.data.length / 2));
      return 'text';
    }
    case 'insert': {
      const e = pick(shown()); if (!e || e === document.body) return null;
      if (b < 0.5) { e.after(e.cloneNode(true)); return 'insert copy'; }
      const x = document.createElement(b < 0.75 ? 'button' : 'a');
      x.textContent = 'Inserted ' + Math.floor(b * 1000);
      if (x.localName === 'a') x.href = '#inserted';
      e.prepend(x); return 'insert control';
    }
    case 'remove': {
      const e = pick(shown()); if (!e) return null; e.remove(); return 'remove';
    }
    case 'hide': {
      const e = pick(shown()); if (!e) return null;
      if (b < 0.34) e.style.display = 'none';
      else if (b < 0.67) e.setAttribute('hidden', '');
      else e.style.visibility = 'hidden';
      return 'hide';
    }
    case 'show': {
      const e = pick(els().filter((x) => !x.checkVisibility() && x.parentElement &&
                                    x.parentElement.checkVisibility()));
      if (!e) return null;
      e.removeAttribute('hidden'); e.removeAttribute('aria-hidden');
      e.style.display = getComputedStyle(e).display === 'none' ? 'block' : e.style.display;
      e.style.visibility = 'visible'; e.style.opacity = '1';
      return 'show';
    }
    case 'scroll': {
      const boxes = els().filter((e) => e.scrollHeight > e.clientHeight + 20 &&
        /(auto|scroll)/.test(getComputedStyle(e).overflowY));
      const box = b < 0.6 ? pick(boxes) : null;
      if (box) { box.scrollTop += 60 + Math.floor(b * 200); return 'scroll box'; }
      window.scrollBy(0, Math.floor(b * 1200) - 300); return 'scroll page';
    }
    case 'attr': {
      const e = pick(shown()); if (!e) return null;
      const [k, v] = b < 0.25 ? ['aria-label', 'Relabelled'] : b < 0.5 ? ['title', 'Titled']
        : b < 0.75 ? ['aria-expanded', 'true'] : ['disabled', ''];
      if (e.hasAttribute(k)) e.removeAttribute(k); else e.setAttribute(k, v);
      return 'attr ' + k;
    }
    case 'class': {
      const named = els().filter((e) => e.classList.length);
      const from = pick(named), to = named[Math.floor(b * named.length)];
      if (!from || !to) return null;
      to.classList.toggle(from.classList[0]); return 'class';
    }
    case 'value': {
      const f = pick([...document.querySelectorAll('input:not([type=file]), textarea, select')]);
      if (!f) return null;
      const n = f.options ? f.options.length : 0;
      if (f.localName === 'select') f.selectedIndex = n ? (f.selectedIndex + 1) % n : -1;
      else if (f.type === 'checkbox' || f.type === 'radio') f.checked = !f.checked;
      else f.value = b < 0.5 ? f.value + 'typed' : '';
      return 'value';
    }
    case 'rule': {
      const e = pick(shown()); if (!e) return null;
      const readable = (x) => { try { return !!x.cssRules; } catch { return false; } };
      let s = [...document.styleSheets].find(readable);
      if (!s) {
        const st = document.createElement('style'); document.head.append(st); s = st.sheet;
      }
      const sel = e.id ? '#' + CSS.escape(e.id)
        : e.classList.length ? '.' + CSS.escape(e.classList[0]) : e.localName;
      const how = b < 0.25 ? ' { display: none }' : ' { visibility: hidden }';
      if (b < 0.5 || !s.cssRules.length) s.insertRule(sel + how, s.cssRules.length);
      else {
        const r = [...s.cssRules].find((x) => x.style);
        if (!r) return null;
        r.style.display = r.style.display === 'none' ? '' : 'none';
      }
      return 'rule';
    }
    case 'focus': {
      const f = pick([...document.querySelectorAll(
        'a[href], button, input, select, textarea, [tabindex]')]
        .filter((e) => e.checkVisibility()));
      if (!f) return null; f.focus(); return 'focus';
    }
    case 'box': {
      const e = pick(shown().filter((x) => x.scrollHeight > 200 && x !== document.body));
      if (!e) return null;
      e.style.maxHeight = '120px'; e.style.overflowY = 'auto'; return 'box';
    }
  }
  return null;
}"""
# The page's own movement, counted in its world: a mutation or an event of its own (a timer that
# adds a tooltip a while after the pointer came) between a read and the full read it is
# compared with makes the two differ with no read stale.
MOVES = r"""() => {
  if (window.__fuzzMoves === undefined) {
    window.__fuzzMoves = 0;
    const bump = () => { window.__fuzzMoves++; };
    new MutationObserver(bump).observe(document, { subtree: true, childList: true,
      attributes: true, characterData: true });
    // (not the page's scroll, which the steps make; the pointer's hover moves after a scroll,
    // a frame later, and images end loading when they do)
    for (const t of ['input', 'change', 'toggle', 'animationstart', 'transitionrun', 'load',
                     'error', 'mouseover', 'mouseout', 'focusin', 'focusout'])
      window.addEventListener(t, bump, true);
  }
  return window.__fuzzMoves;
}"""
# (changes of attributes, elements put in and taken out, field values and focus, alone)
ATTR_KINDS = ("attr", "class", "hide", "show", "insert", "remove", "value", "focus", "pointer",
              "tab")
# where "pointer" moves the mouse: the middle of a shown element in the viewport (or null);
# "tab" presses the Tab key (focus moves on, and shows)
POINT = r"""([a]) => {
  const rs = [...document.body.querySelectorAll('*')].filter((e) => e.checkVisibility())
    .map((e) => e.getBoundingClientRect())
    .filter((r) => r.width > 2 && r.height > 2 && r.top >= 0 && r.left >= 0 &&
      r.bottom <= innerHeight && r.right <= innerWidth);
  const r = rs.length ? rs[Math.floor(a * rs.length)] : null;
  return r && [r.left + r.width / 2, r.top + r.height / 2];
}"""
KINDS = ("text", "insert", "remove", "hide", "show", "scroll", "attr", "class", "value", "rule",
         "focus", "box")


@dataclass
class Tally:
    steps: int = 0
    vouched: int = 0
    """Reads the document answered with "unchanged" (each compared with a full read)."""
    rescrolled: int = 0
    """Reads after the page's own scroll alone, answered with the boxes measured again and
    no walk (each compared with a full read)."""
    retexted: int = 0
    """Reads after text edited in place, attributes changed or elements put in or taken out
    alone, which walked only around the changes (compared with a full read, but those in
    ``chained``)."""
    read_around: dict[str, int] = field(default_factory=dict)
    """The changes made before each of those reads, by kind."""
    chained: int = 0
    """Partial reads left uncompared, for the next read to build on (compared, unless it
    walks the whole page)."""
    walked: int = 0
    """Reads that walked the page in full."""
    made: dict[str, int] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)
    moving: list[str] = field(default_factory=list)
    """Differences over which the page moved by itself (no verdict on the read)."""
    frames_settling: list[str] = field(default_factory=list)
    """Differences only in what child frames hold (each read reads them afresh: a frame put
    in may still be loading for one read, and have failed or loaded for the next)."""


def _frames_left_out(tree: PageTree) -> PageTree:
    """``tree`` with no frames listed and nothing hung under its iframe nodes (the main
    document's part alone)."""
    def bare(node: Node) -> Node:
        if node.frame is not None:
            return node.model_copy(update={"frame": None, "children": []})
        return node.model_copy(update={"children": [bare(k) for k in node.children]})
    return tree.model_copy(update={"frames": [], "root": bare(tree.root)})


@pytest.fixture(scope="module")
def corpus_tab() -> Iterator[tuple[Tab, str, list[str]]]:
    """A tab behind the proxy, where the corpus's N-th page is ``<base>/page/N.html``."""
    names = _chosen(corpus_index())
    why = missing_pages(names)
    if why:
        pytest.fail(why)
    files = [corpus_dir() / name for name in names]
    with serve_corpus(files) as port, RecordingProxy({port}, aliases=(HOST,)) as proxy:
        browser = Browser.launch(args=tuple(proxy.chromium_args()))
        try:
            yield browser.new_tab(), f"http://{HOST}:{port}", names
        finally:
            browser.close()


def fuzz_page(tab: Tab, url: str, rng: random.Random, tally: Tally) -> None:
    tab.goto(url)
    book = tab.core.refs
    evaluate(tab, MOVES)
    evaluate(tab, MUTATE, ["box", rng.random(), 0])  # a box to scroll later, where one fits
    extract(tab)
    for step in range(STEPS):
        made = []
        # steps of their own now and then: the page scrolled and nothing else, text edited
        # and nothing else, or attributes changed and nothing else
        pick = rng.random()
        alone = ("scroll" if pick < 0.2 else "text" if pick < 0.35 else "attrs" if pick < 0.5
                 else None)
        many = (1 if alone == "scroll" else rng.choice((1, 1, 2, 3)) if alone
                else rng.choice((0, 1, 1, 2)))
        for _ in range(many):
            kind = (rng.choice(ATTR_KINDS) if alone == "attrs" else alone) or rng.choice(KINDS)
            b = 0.6 + rng.random() * 0.4 if alone == "scroll" else rng.random()  # (the page)
            if kind == "pointer":
                at = evaluate(tab, POINT, [rng.random()])
                if at:
                    tab.runner.run(tab.core.page.mouse.move(at[0], at[1]))
                did = at and "pointer"
            elif kind == "tab":
                tab.runner.run(tab.core.page.keyboard.press("Tab"))
                did = "tab"
            else:
                did = evaluate(tab, MUTATE, [kind, rng.random(), b])
            if did:
                made.append(did)
                tally.made[did] = tally.made.get(did, 0) + 1
        if not alone and rng.random() < 0.2:
            tab.runner.run(tab.core.page.mouse.move(rng.randint(0, 1279), rng.randint(0, 719)))
            made.append("pointer moved")
        before = (book.unchanged_reads, book.rescrolled_reads, book.retexted_reads)
        moves = evaluate(tab, MOVES)
        got = extract(tab)
        tally.steps += 1
        if book.unchanged_reads > before[0]:
            tally.vouched += 1
        elif book.rescrolled_reads > before[1]:
            tally.rescrolled += 1
        elif book.retexted_reads > before[2]:
            tally.retexted += 1
            for did in made:
                tally.read_around[did] = tally.read_around.get(did, 0) + 1
            # (a draw of its own: the changes made do not depend on how reads turned out)
            if step < STEPS - 1 and random.Random(f"{url} {step}").random() < 0.3:
                tally.chained += 1  # (the next read builds on this one)
                continue
        else:
            tally.walked += 1
            continue
        book.kept.clear()
        # (the list of child frames that could not be read is made afresh by every read, as
        # are the frames' own outlines: a frame that fails to load between the two reads is
        # no change the main document vouched for)
        moves_read = evaluate(tab, MOVES)
        again = extract(tab)
        diff = same(got.model_copy(update={"frames": []}), again.model_copy(update={"frames": []}))
        if diff is None:
            continue
        what = f"{url} step {step} after {made or 'nothing'}: {diff}"
        if same(_frames_left_out(got), _frames_left_out(again)) is None:
            tally.frames_settling.append(what)
        elif not moves == moves_read == evaluate(tab, MOVES):
            tally.moving.append(what)
        else:
            tally.stale.append(what)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(900)  # 36 corpus pages (or all 180), six steps each, in a real browser
def test_random_changes_on_corpus_pages_never_leave_a_stale_read(
        corpus_tab: tuple[Tab, str, list[str]]) -> None:
    tab, base, names = corpus_tab
    tally = Tally()
    rng = random.Random(33)
    for i in range(len(names)):
        fuzz_page(tab, f"{base}/page/{i}.html", rng, tally)
    print(f"{len(names)} pages, {tally.steps} steps: {tally.vouched} reads vouched for (each "
          f"compared with a full read), {tally.rescrolled} after a scroll alone (each compared "
          f"too), {tally.retexted} after text or attribute edits or elements put in or taken out "
          f"alone ({tally.chained} of them left for the next read to build on, the others "
          f"compared too; changes before them: {dict(sorted(tally.read_around.items()))}), "
          f"{tally.walked} walked in "
          f"full; changes made: "
          f"{dict(sorted(tally.made.items()))}; differences over a page that moved by itself: "
          f"{tally.moving}; differences only in what child frames hold: "
          f"{tally.frames_settling}")
    assert tally.stale == [], "\n".join(tally.stale[:10])
    # the steps did what they say: every kind of change was made, many times over, and the
    # pages both vouched (unchanged reads, each checked) and saw changes (walked in full, or
    # read around them), and some still walked in full
    assert tally.steps == STEPS * len(names)
    assert all(sum(n for k, n in tally.made.items() if k.startswith(kind)) >=
               max(3, tally.steps // 60) for kind in KINDS), tally.made
    assert tally.made.get("scroll box", 0) >= max(3, tally.steps // 150), tally.made
    assert tally.vouched >= len(names) // 2, tally
    assert tally.walked + tally.rescrolled + tally.retexted >= len(names) * 2, tally
    assert tally.walked >= len(names) // 2, tally
    assert tally.rescrolled >= tally.steps // 40, tally
    assert tally.retexted >= tally.steps // 40, tally
    # and a page moving by itself is rare enough that it hides little
    assert tally.chained >= 1, tally
    compared = tally.vouched + tally.rescrolled + tally.retexted - tally.chained
    assert len(tally.moving) <= max(2, compared // 20), tally.moving
    assert len(tally.frames_settling) <= max(2, compared // 20), tally.frames_settling
