"""Incremental reads: a read of an unchanged page, and after a small change, against a full read.

Every corpus page is served as in ``bench_extract.py`` (1280x720, every other request aborted).
Per page, in the same run and interleaved: a full read (the document's watch forgotten on
the host side, so the page walks everything), a read of the unchanged page (the host passes
the token of its last read), and a read after a small change made by a page script (a text
edited, an element hidden, the page scrolled, a paragraph or item with a link put in, a text
field's value set, focus moved to another control in the viewport, the pointer moved onto
another control in the viewport (by the harness's mouse): one of them per page, in
turn, or those named with ``--change``; a page with nothing the change applies to is left
out of the numbers after a change). Each incremental read is compared
with a full read of the same state, node by node (the in-page time aside); any difference is
reported, with where it is and whether the page changed anything by itself between the
change and that full read (an observer of its own in the page's main world counts its
changes): only a difference on a page that changed nothing by itself is a stale read. A
full read right after the same change is timed too: the page lays itself out again before
either can measure a box, which the full read of a settled page does not pay.
Right after the unchanged read, a bare DevTools round trip is timed too (a call that asks the
page for nothing, over a session of the benchmark's own): the floor under any read, which
must ask the page whether it changed.
Reads that walked the page in full (neither unchanged, nor after the page's scroll alone,
nor read only around text edited, attributes changed or elements put in or taken out) are
counted as fallbacks.

    python benchmarks/bench_incremental.py [--corpus DIR] [--limit N] [--repeat 3]
        [--change text|hide|scroll|insert|value|focus|hover ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from corpus import (
    DEFAULT_CORPUS,
    BenchTab,
    corpus_browser,
    corpus_files,
    load_corpus_page,
)
from playwright.async_api import CDPSession, Page, async_playwright
from webrefs.models import PageTree
from webrefs.snapshot.extract import extract_page
from webrefs.snapshot.world import World, register_engine

# A small change, made in the page (its own world): one per page, in turn. Each is a change
# again in every round (the element hidden is shown again the next, and so on).
CHANGES = {
    "text": """() => { const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      let n, i = 0; const pick = [];
      while ((n = w.nextNode()) && i < 4000) { i++; if (n.data.trim().length > 3) pick.push(n); }
      if (!pick.length) return false; const t = pick[Math.floor(pick.length / 2)];
      t.data = t.data + ' (edited)'; return true; }""",
    "hide": """() => { const els = document.body.querySelectorAll('p, li, a, span, div');
      if (!els.length) return false; const e = els[Math.floor(els.length / 3)];
      e.style.display = e.style.display === 'none' ? '' : 'none'; return true; }""",
    "scroll": """() => { window.scrollBy(0, 300); return true; }""",
    "insert": """() => { const old = document.querySelector('[data-bench-inserted]');
      if (old) { old.remove(); return true; }
      const els = document.body.querySelectorAll('p, li');
      if (!els.length) return false; const e = els[Math.floor(els.length / 3)];
      const x = document.createElement(e.localName); x.dataset.benchInserted = '';
      x.append('Inserted, with ', Object.assign(document.createElement('a'),
        {href: '#inserted', textContent: 'a link'}));
      e.after(x); return true; }""",
    "value": """() => { const f = [...document.querySelectorAll('input, textarea')].find((e) =>
        /^(text|search|email|tel|url|number|password|)$/.test(e.type || '') && e.checkVisibility());
      if (!f) return false;
      f.value = f.value === '' ? '42' : ''; return true; }""",
    "focus": """() => { const f = [...document.querySelectorAll('a[href], button, input, select')]
        .filter((e) => e.checkVisibility() && e.getBoundingClientRect().top < innerHeight);
      if (!f.length) return false;
      const i = f.indexOf(document.activeElement); f[(i + 1) % Math.min(f.length, 8)].focus();
      return true; }""",
    # (where the pointer goes: the harness moves it there, as a user's mouse would)
    "hover": """() => { const f = [...document.querySelectorAll('a[href], button, input, select')]
        .map((e) => e.getBoundingClientRect())
        .filter((r) => r.width > 2 && r.height > 2 && r.top >= 0 && r.left >= 0 &&
          r.bottom < innerHeight && r.right < innerWidth);
      if (!f.length) return false;
      const r = f[(window.__benchHover = ((window.__benchHover || 0) + 1) % Math.min(f.length, 8))];
      return [r.left + r.width / 2, r.top + r.height / 2]; }""",
}


async def make(page: Page, change: str) -> bool:
    """Make the change; False when the page has nothing it applies to."""
    did = await page.evaluate(CHANGES[change])
    if isinstance(did, list):
        await page.mouse.move(did[0], did[1])
    return bool(did)


def first_difference(a: Any, b: Any, path: str = "tree") -> str | None:
    """Where two comparable trees first differ, with both values (for a mismatch's report)."""
    if type(a) is not type(b) or not isinstance(a, dict | list):
        return None if a == b else f"{path}: {str(a)[:120]} / {str(b)[:120]}"
    if isinstance(a, list) and len(a) != len(b):
        return f"{path}: {len(a)} items / {len(b)}"
    keys = sorted(set(a) | set(b)) if isinstance(a, dict) else range(len(a))
    for k in keys:
        x, y = (a.get(k), b.get(k)) if isinstance(a, dict) else (a[k], b[k])
        found = first_difference(x, y, f"{path}.{k}" if isinstance(a, dict) else f"{path}[{k}]")
        if found:
            return found
    return None


def comparable(tree: PageTree) -> dict[str, Any]:
    data = tree.model_dump()
    data["stats"].pop("js_time_ms", None)
    return data


async def bare_trip(session: CDPSession) -> float:
    """Milliseconds of one DevTools call that asks the page for nothing (``Runtime.evaluate``
    of ``0``), on the way a read goes (through Playwright to the browser and the page's
    renderer): what any read pays before the page does anything."""
    t0 = time.perf_counter()
    await session.send("Runtime.evaluate", {"expression": "0", "returnByValue": True})
    return (time.perf_counter() - t0) * 1000


async def timed_read(tab: BenchTab, full: bool) -> tuple[float, PageTree, bool]:
    if full:
        tab.refs.kept.clear()
    before = _not_walked(tab)
    t0 = time.perf_counter()
    tree = await extract_page(tab.page, tab.refs)
    ms = (time.perf_counter() - t0) * 1000
    return ms, tree, _not_walked(tab) > before


def _not_walked(tab: BenchTab) -> int:
    """Reads that did not walk the whole page (unchanged, after a scroll, or read around a
    change)."""
    return tab.refs.unchanged_reads + tab.refs.rescrolled_reads + tab.refs.retexted_reads


# The page's own changes, counted by an observer in its main world, with which of its images
# have loaded or failed (a lazy image near the viewport after a scroll starts loading, and
# here fails: its box changes with no mutation): a read that differs from the full read
# after it is the extractor's fault only where the page changed nothing between the change
# made and the end of that full read.
_COUNT_CHANGES = """() => { if (!window.__benchChanges) { window.__benchChanges = [0];
  new MutationObserver((r) => { window.__benchChanges[0] += r.length; }).observe(document,
    { subtree: true, childList: true, attributes: true, characterData: true }); }
  let images = 0;
  for (const im of document.images) images += im.complete ? 1 + im.naturalWidth : 0;
  return window.__benchChanges[0] + '/' + images; }"""


async def changes_so_far(page: Page) -> str:
    return str(await page.evaluate(_COUNT_CHANGES))


def _why(reused: bool, moved: bool) -> str:
    if moved:
        return " (the page changed by itself between the reads)"
    return " (a reused read)" if reused else " (both full reads)"


async def measure(page: Page, tab: BenchTab, change: str, repeat: int,
                  session: CDPSession) -> dict[str, Any]:
    full, same, after, full_after, trip = [], [], [], [], []
    fallback_same = fallback_after = 0
    mismatches: list[str] = []
    await changes_so_far(page)
    await timed_read(tab, True)  # warm-up
    untouched = False
    for _ in range(repeat):
        seen = await changes_so_far(page)
        ms, ref_tree, _ = await timed_read(tab, True)
        full.append(ms)
        ms, tree, reused = await timed_read(tab, False)
        same.append(ms)
        fallback_same += not reused
        trip.append(await bare_trip(session))
        where = first_difference(comparable(tree), comparable(ref_tree))
        if where:
            moved = await changes_so_far(page) != seen
            mismatches.append(f"unchanged read differs{_why(reused, moved)} at {where}")
        # a full read right after the same change: it lays the page out again too
        untouched = untouched or not await make(page, change)
        ms, _, _ = await timed_read(tab, True)
        full_after.append(ms)
        await make(page, change)  # (and back, or on: the next one is the same kind)
        await timed_read(tab, True)
        await make(page, change)
        seen = await changes_so_far(page)
        ms, tree, reused = await timed_read(tab, False)
        after.append(ms)
        fallback_after += not reused
        _, check, _ = await timed_read(tab, True)
        where = first_difference(comparable(tree), comparable(check))
        if where:
            moved = await changes_so_far(page) != seen
            mismatches.append(f"read after {change} differs{_why(reused, moved)} at {where}")
    return {"full": min(full), "same": min(same), "after": min(after),
            "full_after": min(full_after), "trip": min(trip), "change": change,
            "fallback_same": fallback_same, "fallback_after": fallback_after,
            "reads": repeat, "mismatches": mismatches, "untouched": untouched}


async def run(corpus: Path, limit: int | None, repeat: int,
              kinds: list[str] | None = None) -> list[dict[str, Any]]:
    files = corpus_files(corpus)[:limit] if limit else corpus_files(corpus)
    out: list[dict[str, Any]] = []
    kinds = kinds or list(CHANGES)
    async with async_playwright() as pw:
        world = World(await register_engine(pw))
        browser, context = await corpus_browser(pw, responder=True)
        for i, name in enumerate(files):
            page = await context.new_page()
            try:
                await load_corpus_page(page, corpus, name)
                session = await context.new_cdp_session(page)
                res = await measure(page, BenchTab(page, world), kinds[i % len(kinds)], repeat,
                                    session)
            except Exception as exc:  # reported per page
                res = {"error": str(exc).splitlines()[0][:200]}
            await page.close()
            res["file"] = name
            out.append(res)
            print(f"[{i + 1}/{len(files)}] {name}: {json.dumps(res)}", file=sys.stderr)
        await browser.close()
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))] if xs else 0.0


def report(results: list[dict[str, Any]]) -> str:
    ok = [r for r in results if "error" not in r]
    changed = [r for r in ok if not r.get("untouched")]  # (the change applied)
    rounds = ok[0]["reads"] if ok else 0
    lines = [f"Measured on {len(ok)} of {len(results)} corpus pages; per page the best of "
             f"{rounds} interleaved rounds (full, unchanged, after a change).", "",
             "| read | p50 ms | p90 ms | p99 ms | total ms | ratio to full, per page p50 | p90 |",
             "|---|---|---|---|---|---|---|"]
    for key, label in (("full", "full read"), ("same", "unchanged page"),
                       ("trip", "bare DevTools round trip (no read)"),
                       ("after", "after a small change"),
                       ("full_after", "full read right after the same change")):
        rs = ok if key in ("full", "same", "trip") else changed
        xs = [r[key] for r in rs if key in r]
        ratios = [r[key] / r["full"] for r in rs if r["full"] and key in r]
        if not xs:
            continue
        lines.append(f"| {label} | {pct(xs, .5):.2f} | {pct(xs, .9):.2f} | {pct(xs, .99):.2f} | "
                     f"{sum(xs):.0f} | {statistics.median(ratios):.3f} | {pct(ratios, .9):.3f} |")
    both = [r for r in changed if r.get("full_after")]
    if both:
        ratios = [r["after"] / r["full_after"] for r in both]
        lines += ["", "A read after a small change against a full read right after the same "
                  "change (both lay the page out again): per page p50 "
                  f"{statistics.median(ratios):.3f}, p90 {pct(ratios, .9):.3f}; totals "
                  f"{sum(r['after'] for r in both):.0f} against "
                  f"{sum(r['full_after'] for r in both):.0f} ms."]
    kinds = sorted({r["change"] for r in ok})
    if len(kinds) > 1:
        lines += ["", "| after | pages | p50 ms | ratio to full, per page p50 | p90 | fallbacks |",
                  "|---|---|---|---|---|---|"]
        for kind in kinds:
            rs = [r for r in changed if r["change"] == kind]
            if not rs:
                continue
            ratios = [r["after"] / r["full"] for r in rs if r["full"]]
            lines.append(f"| {kind} | {len(rs)} | {pct([r['after'] for r in rs], .5):.2f} | "
                         f"{statistics.median(ratios):.3f} | {pct(ratios, .9):.3f} | "
                         f"{sum(r['fallback_after'] for r in rs)} of "
                         f"{sum(r['reads'] for r in rs)} |")
    big = sorted(changed, key=lambda r: -r["full"])[:5]
    lines += ["", "Five largest pages (by full-read time): " + "; ".join(
        f"{r['file']} full {r['full']:.1f} ms, unchanged {r['same']:.1f} ms, after {r['change']} "
        f"{r['after']:.1f} ms ({r['full'] / r['after']:.2f}x)" for r in big)]
    reads = sum(r["reads"] for r in ok)
    same_fb = sum(r["fallback_same"] for r in ok)
    after_fb = sum(r["fallback_after"] for r in changed)
    after_reads = sum(r["reads"] for r in changed)
    lines += ["", f"Fallbacks to a full read: unchanged page {same_fb} of {reads} reads; "
              f"after a change {after_fb} of {after_reads} (pages with nothing the change "
              f"applies to left out: {len(ok) - len(changed)})."]
    bad = [(r["file"], m) for r in ok for m in r["mismatches"]]
    stale = [b for b in bad if "(a reused read)" in b[1]]
    lines.append(f"Reads that differ from the full read after them: {len(bad)}, of them "
                 f"{len(stale)} reused reads on a page that changed nothing by itself (stale)"
                 + "".join(f"\n- {f}: {m}" for f, m in bad[:20]))
    errors = [r for r in results if "error" in r]
    if errors:
        lines.append(f"Pages with errors: {len(errors)}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--change", choices=list(CHANGES), action="append",
                    help="the small change(s) to make, one per page in turn (default: all)")
    ap.add_argument("--from-json", type=Path)
    a = ap.parse_args()
    if a.from_json:
        results = json.loads(a.from_json.read_text())
    else:
        results = asyncio.run(run(a.corpus, a.limit, a.repeat, a.change))
        if a.json:
            a.json.write_text(json.dumps(results))
    print(report(results))


if __name__ == "__main__":
    main()
