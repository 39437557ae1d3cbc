"""Outline benchmark: what the default snapshot shows of each corpus page.

Every page of the corpus is served from a local route (all other requests aborted) in a
1280x720 page of a context set up like webrefs' own (the click-probe responder runs from
document start), read once with ``extract_page`` and rendered twice: with the default
``RenderOptions`` (the snapshot a model gets) and with an unbounded budget (everything the
default, controls-only mode would show). Per rendering it counts node lines, refs and tokens,
and prints totals, medians and p90 over the pages, so two runs (before and after a change to
the extractor or the renderer) can be compared.

    python benchmarks/bench_outline.py [--corpus DIR] [--limit N] [--json FILE] [--compare FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from pathlib import Path

from corpus import (
    DEFAULT_CORPUS,
    corpus_browser,
    corpus_files,
    load_corpus_page,
)
from playwright.async_api import async_playwright
from webrefs.render import render
from webrefs.snapshot.extract import extract_page
from webrefs.snapshot.refs import RefBook
from webrefs.snapshot.world import World, register_engine

UNBOUNDED = 1_000_000
KINDS = ("default", "full")
METRICS = ("lines", "refs", "tokens")
FEATURES = {
    "hint lines": re.compile(r'^\s*- \w+ \[hint="'),
    "slider/spinbutton lines with min or max":
        re.compile(r"^\s*- (?:slider|spinbutton)\b.*\[(?:min|max)="),
    "tree items with level": re.compile(r"^\s*- treeitem\b.*\[level="),
    "list items with a ref": re.compile(r"^\s*- listitem\b.*\[ref="),
    "values with escaped line breaks or tabs": re.compile(r'\[value="(?:[^"\\]|\\[^nrt])*\\[nrt]'),
}
"""Lines of the full rendering counted per kind, to see what a change to the line format did."""


def count(text: str, refs: int, tokens: int) -> dict[str, int]:
    """Node lines (the header and ``- ...`` markers not counted), refs, tokens, and lines of
    each kind in :data:`FEATURES`."""
    lines = [ln for ln in text.split("\n")[1:]
             if ln.strip() and not ln.lstrip().startswith("- ...")]
    out = {"lines": len(lines), "refs": refs, "tokens": tokens}
    for key, pattern in FEATURES.items():
        out[key] = sum(1 for ln in lines if pattern.search(ln))
    return out


async def run(corpus: Path, limit: int | None) -> dict[str, dict[str, dict[str, int]]]:
    files = corpus_files(corpus)
    if limit:
        files = files[:limit]
    out: dict[str, dict[str, dict[str, int]]] = {}
    async with async_playwright() as pw:
        world = World(await register_engine(pw))
        browser, context = await corpus_browser(pw, responder=True)
        for i, name in enumerate(files):
            page = await context.new_page()
            try:
                await load_corpus_page(page, corpus, name)
                tree = await extract_page(page, RefBook(world))
                snap = render(tree)
                full = render(tree, max_tokens=UNBOUNDED)
                out[name] = {
                    "default": count(snap.text, snap.stats.refs_emitted, snap.stats.tokens),
                    "full": count(full.text, full.stats.refs_emitted, full.stats.tokens),
                }
                print(f"[{i + 1}/{len(files)}] {name}: {out[name]['default']} "
                      f"full {out[name]['full']}", file=sys.stderr)
            except Exception as exc:  # reported per page, left out of the numbers
                print(f"[{i + 1}/{len(files)}] {name}: ERROR {str(exc).splitlines()[0][:200]}",
                      file=sys.stderr)
            await page.close()
        await browser.close()
    return out


def p90(xs: list[int]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.9 * (len(xs) - 1)))] if xs else 0.0


def report(results: dict[str, dict[str, dict[str, int]]],
           before: dict[str, dict[str, dict[str, int]]] | None = None) -> str:
    """A markdown table: per rendering and metric, total, median and p90 over the pages (and,
    given an earlier run, the same over the pages both runs read)."""
    pages = sorted(results if before is None else set(results) & set(before))
    rows = [f"Pages: {len(pages)}", "",
            "| snapshot | metric | total | median | p90 |" + (" total before | change |"
                                                             if before else ""),
            "|---|---|---|---|---|" + ("---|---|" if before else "")]
    for kind in KINDS:
        for metric in METRICS:
            xs = [results[p][kind][metric] for p in pages]
            row = (f"| {kind} | {metric} | {sum(xs)} | {statistics.median(xs) if xs else 0:g} "
                   f"| {p90(xs):g} |")
            if before:
                bs = sum(before[p][kind][metric] for p in pages)
                change = (sum(xs) - bs) / bs * 100 if bs else 0.0
                row += f" {bs} | {change:+.1f}% |"
            rows.append(row)
    rows += ["", "| full snapshot lines | total | pages |" + (" total before |" if before else ""),
             "|---|---|---|" + ("---|" if before else "")]
    for key in FEATURES:
        xs = [results[p]["full"].get(key, 0) for p in pages]
        row = f"| {key} | {sum(xs)} | {sum(1 for x in xs if x)} |"
        if before:
            row += f" {sum(before[p]['full'].get(key, 0) for p in pages)} |"
        rows.append(row)
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                        help="folder with INDEX.tsv and the pages")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--json", type=Path, default=None, help="also write the counts here")
    parser.add_argument("--compare", type=Path, default=None,
                        help="counts of an earlier run (--json) to compare with")
    args = parser.parse_args()
    results = asyncio.run(run(args.corpus, args.limit))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    before = json.loads(args.compare.read_text()) if args.compare else None
    print(report(results, before))


if __name__ == "__main__":
    main()
