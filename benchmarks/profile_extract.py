"""Where the extractor spends its time in the page: a sampling CPU profile of repeated
extractions over corpus pages, self time per function of ``extractor.js`` and per DOM call
(``--inclusive``: the time under each function, callees included).

Shares of samples are what this reports, not milliseconds: they hold on a busy machine too,
where wall-clock times do not. Use it to find what to make faster; use ``bench_extract.py``
for the numbers against Playwright.

    python benchmarks/profile_extract.py [--corpus DIR] [--step 6] [--runs 5] [--world isolated]

Pages are served from a local route with every other request aborted, as in
``bench_extract.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from corpus import (
    DEFAULT_CORPUS,
    corpus_browser,
    corpus_files,
    load_corpus_page,
)
from playwright.async_api import async_playwright
from webrefs.snapshot.extract import extract_page
from webrefs.snapshot.refs import RefBook
from webrefs.snapshot.world import World, register_engine

_NOT_WORK = {"(idle)", "(program)"}
_WORK = "(all work)"


def _label(node: dict[str, Any]) -> str:
    frame = node["callFrame"]
    fn = frame["functionName"] or "(anonymous)"
    native = frame["lineNumber"] < 0 and fn not in _NOT_WORK and not fn.startswith("(")
    return f"{fn} (DOM)" if native else str(fn)


def count_samples(nodes: list[dict[str, Any]], hits: Counter[str], inclusive: bool) -> None:
    """Add one profile's samples to ``hits``: each node's own samples to its function, or
    (``inclusive``) to every distinct function on its stack, so a function's count is the
    samples taken while it, or anything it called, was running."""
    by_id = {node["id"]: node for node in nodes}
    parent: dict[int, int] = {}
    for node in nodes:
        for child in node.get("children", ()):
            parent[child] = node["id"]
    for node in nodes:
        n = node.get("hitCount", 0)
        if not n:
            continue
        if not inclusive:
            hits[_label(node)] += n
            continue
        if _label(node) not in _NOT_WORK:
            hits[_WORK] += n
        seen: set[str] = set()
        at: int | None = node["id"]
        while at is not None:
            seen.add(_label(by_id[at]))
            at = parent.get(at)
        for label in seen:
            hits[label] += n


async def profile(
    corpus: Path, step: int, runs: int, world_kind: str, inclusive: bool = False
) -> Counter[str]:
    """Samples per function over every ``step``-th corpus page, ``runs`` extractions each
    (after one warm-up): self samples, or with ``inclusive`` the samples under each function."""
    files = corpus_files(corpus)[::step]
    hits: Counter[str] = Counter()
    async with async_playwright() as pw:
        world = World(await register_engine(pw) if world_kind == "isolated" else None)
        browser, context = await corpus_browser(pw)
        for name in files:
            page = await context.new_page()
            try:
                await load_corpus_page(page, corpus, name)
            except Exception as exc:  # reported, the page is left out
                print(f"{name}: not loaded ({str(exc).splitlines()[0][:80]})", file=sys.stderr)
                await page.close()
                continue
            book = RefBook(world)
            await extract_page(page, book)
            cdp = await context.new_cdp_session(page)
            await cdp.send("Profiler.enable")
            await cdp.send("Profiler.setSamplingInterval", {"interval": 100})
            await cdp.send("Profiler.start")
            for _ in range(runs):
                await extract_page(page, book)
            data = (await cdp.send("Profiler.stop"))["profile"]
            count_samples(data["nodes"], hits, inclusive)
            await cdp.detach()
            await page.close()
        await browser.close()
    return hits


def report(hits: Counter[str], top: int, inclusive: bool = False) -> str:
    work = {k: v for k, v in hits.items() if k not in _NOT_WORK}
    if inclusive:
        total = work.pop(_WORK, 0) or 1
        work = {k: v for k, v in work.items() if k != "(root)"}
    else:
        total = sum(work.values()) or 1
    lines = [f"{total} samples of work (idle and program time left out)", "",
             "| share | function |", "|---:|---|"]
    for fn, n in sorted(work.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"| {100 * n / total:.1f}% | {fn} |")
    if not inclusive:  # (inclusive counts overlap: no sum of them means anything)
        dom = sum(v for k, v in work.items() if k.endswith("(DOM)"))
        lines += ["", f"DOM and style calls: {100 * dom / total:.1f}% of the work."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--step", type=int, default=6, help="every N-th page of the corpus")
    parser.add_argument("--runs", type=int, default=5, help="profiled extractions per page")
    parser.add_argument("--world", choices=("isolated", "main"), default="isolated")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--inclusive", action="store_true",
                        help="count the samples under each function, not only its own")
    args = parser.parse_args()
    hits = asyncio.run(profile(args.corpus, args.step, args.runs, args.world, args.inclusive))
    print(report(hits, args.top, args.inclusive))


if __name__ == "__main__":
    main()
