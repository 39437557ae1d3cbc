"""Rendering under a token budget, on saved real pages.

For every page of the corpus (served from a local route, every other request aborted):

- extract the page with webrefs' extractor and render it at 1000, 2000 and 4000 tokens;
- budget compliance: exact tiktoken count of the whole text <= budget;
- interactive recall: share of the interactive elements of Playwright's
  ``page.aria_snapshot(mode="ai")`` (role + name) that appear with a ref in our snapshot,
  against the naive alternative: the same Playwright snapshot cut to the same token count;
- render time of the largest trees (render alone, no browser);
- compression: raw-HTML tokens / snapshot tokens.

    python benchmarks/bench_render.py [--corpus DIR] [--limit N] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from webrefs import Browser, render
from webrefs.models import INTERACTIVE_ROLES, PageTree
from webrefs.render.tokens import TokenCounter
from webrefs.snapshot.extract import extract_page

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = (1000, 2000, 4000)
HOST = "http://corpus.test/"
_LINE = re.compile(r'^\s*- (?P<role>[a-z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*)$')


def norm(name: str) -> str:
    return " ".join(name.replace('\\"', '"').split()).lower()[:40]


def reference_elements(aria: str) -> list[tuple[str, str, int]]:
    """(role, normalized name, line number) of interactive elements in an ai-mode snapshot."""
    out = []
    for i, line in enumerate(aria.split("\n")):
        m = _LINE.match(line)
        if m and m.group("role") in INTERACTIVE_ROLES and "[ref=" in m.group("rest"):
            out.append((m.group("role"), norm(m.group("name") or ""), i))
    return out


def hits(reference: list[tuple[str, str, int]], found: Counter[tuple[str, str]]) -> int:
    left = Counter(found)
    hit = 0
    for role, name, _ in reference:
        if left[(role, name)] > 0:
            left[(role, name)] -= 1
            hit += 1
    return hit


def recall(reference: list[tuple[str, str, int]], found: Counter[tuple[str, str]]) -> float:
    return hits(reference, found) / len(reference) if reference else 1.0


def naive_found(aria: str, reference: list[tuple[str, str, int]], counter: TokenCounter,
                budget: int) -> Counter[tuple[str, str]]:
    """Elements whose whole line survives when the snapshot is cut to ``budget`` tokens."""
    cut = counter.head(aria, budget)
    complete = cut.count("\n")  # lines fully inside the cut
    return Counter((r, n) for r, n, i in reference if i < complete)


def read_page(browser: Browser, corpus: Path, file: str) -> tuple[PageTree, str]:
    tab = browser.new_tab()
    core = tab.core
    body = (corpus / file).read_bytes()
    url = HOST + file

    async def go() -> tuple[PageTree, str]:
        page = core.page

        async def handler(route: Any) -> None:
            if route.request.url == url:
                await route.fulfill(body=body, content_type="text/html; charset=utf-8")
            else:
                await route.abort()

        await page.route("**/*", handler)
        await page.goto(url, wait_until="load", timeout=30_000)
        aria = await page.aria_snapshot(mode="ai", timeout=30_000)
        tree = await extract_page(core.page, core.refs)
        return tree, aria

    try:
        return tab.runner.run(core.call("benchmark", go))
    finally:
        tab.close()


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return 0.0
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[k]


def run(args: argparse.Namespace) -> dict[str, Any]:
    corpus = Path(args.corpus)
    if not corpus.is_absolute():
        corpus = (ROOT / corpus).resolve()
    with open(corpus / "INDEX.tsv", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    if args.limit:
        rows = rows[: args.limit]
    counter = TokenCounter("o200k_base")
    per_budget: dict[int, dict[str, list[float]]] = {
        b: {"ok": [], "ours": [], "naive": [], "ratio": [], "tokens": [], "big_ours": [],
            "big_naive": [], "hits_ours": [], "hits_naive": [], "total": []}
        for b in BUDGETS
    }
    ceiling: list[float] = []
    trees: list[tuple[int, PageTree]] = []
    failed: list[str] = []
    browser = Browser.launch()
    try:
        for row in rows:
            file = row["file"]
            try:
                tree, aria = read_page(browser, corpus, file)
            except Exception as exc:  # a page that cannot be read is reported, not fatal
                failed.append(f"{file}: {type(exc).__name__}: {str(exc)[:120]}")
                continue
            reference = reference_elements(aria)
            raw = int(row.get("raw_html_tokens_o200k") or 0)
            size = sum(1 for _ in _walk(tree))
            trees.append((size, tree))
            full = render(tree, max_tokens=10**6, max_chars=10**8, max_nodes=10**6)
            ceiling.append(recall(reference, _ours(full.refs)))
            for b in BUDGETS:
                snap = render(tree, max_tokens=b, max_chars=b * 10, max_nodes=10**6)
                exact = counter.exact(snap.text)
                stats = per_budget[b]
                stats["ok"].append(1.0 if exact <= b and len(snap.text) <= b * 10 else 0.0)
                h_ours = hits(reference, _ours(snap.refs))
                h_naive = hits(reference, naive_found(aria, reference, counter, b))
                n = len(reference)
                stats["ours"].append(h_ours / n if n else 1.0)
                stats["naive"].append(h_naive / n if n else 1.0)
                stats["hits_ours"].append(h_ours)
                stats["hits_naive"].append(h_naive)
                stats["total"].append(n)
                if n and counter.exact(aria) > b:
                    stats["big_ours"].append(h_ours / n)
                    stats["big_naive"].append(h_naive / n)
                stats["tokens"].append(exact)
                if raw:
                    stats["ratio"].append(raw / max(exact, 1))
            print(f"{file}: nodes={size} ref_interactive={len(reference)}", file=sys.stderr)
    finally:
        browser.close()

    trees.sort(key=lambda t: -t[0])
    largest = trees[: max(1, len(trees) // 10)]
    # wall time is what a caller waits; CPU time of this thread is what render costs when
    # other processes share the machine
    times: list[float] = []
    cpu: list[float] = []
    for _, tree in largest:
        render(tree, max_tokens=2000)  # warm the line cache as a repeated snapshot would
        runs, cpus = [], []
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.thread_time()
            render(tree, max_tokens=2000)
            runs.append((time.perf_counter() - t0) * 1000)
            cpus.append((time.thread_time() - c0) * 1000)
        times.append(statistics.median(runs))
        cpu.append(statistics.median(cpus))
    cold: list[float] = []
    for _, tree in largest:
        _counter_reset()  # every line encoded afresh, as for a page never seen before
        c0 = time.thread_time()
        render(tree, max_tokens=2000)
        cold.append((time.thread_time() - c0) * 1000)

    result: dict[str, Any] = {
        "pages": len(trees),
        "failed": failed,
        "ceiling_recall_mean": statistics.fmean(ceiling) if ceiling else 0.0,
        "largest_trees": [t[0] for t in largest],
        "render_ms_p50": percentile(times, 0.5),
        "render_ms_p90": percentile(times, 0.9),
        "render_cpu_ms_p50": percentile(cpu, 0.5),
        "render_cpu_ms_p90": percentile(cpu, 0.9),
        "render_cpu_ms_cold_p90": percentile(cold, 0.9),
        "load_average": list(os.getloadavg()),
        "budgets": {},
    }
    for b, s in per_budget.items():
        ours = statistics.fmean(s["ours"]) if s["ours"] else 0.0
        naive = statistics.fmean(s["naive"]) if s["naive"] else 0.0
        result["budgets"][b] = {
            "compliance": statistics.fmean(s["ok"]) if s["ok"] else 0.0,
            "recall_ours": ours,
            "recall_naive": naive,
            "recall_ratio": ours / naive if naive else float("inf"),
            "pooled_ours": sum(s["hits_ours"]) / max(1, sum(s["total"])),
            "pooled_naive": sum(s["hits_naive"]) / max(1, sum(s["total"])),
            "pages_over_budget": len(s["big_ours"]),
            "over_ours": statistics.fmean(s["big_ours"]) if s["big_ours"] else 0.0,
            "over_naive": statistics.fmean(s["big_naive"]) if s["big_naive"] else 0.0,
            "compression_median": statistics.median(s["ratio"]) if s["ratio"] else 0.0,
            "tokens_median": statistics.median(s["tokens"]) if s["tokens"] else 0.0,
        }
    return result


def _counter_reset() -> None:
    from webrefs import render as render_module_fn

    module = sys.modules[render_module_fn.__module__]
    for counter in module._counters.values():
        counter._cache.clear()


def _ours(refs: dict[str, Any]) -> Counter[tuple[str, str]]:
    return Counter((r.role, norm(r.name or r.text)) for r in refs.values())


def _walk(tree: PageTree) -> Any:
    stack = [tree.root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def table(result: dict[str, Any]) -> str:
    lines = [
        "| budget (tokens) | compliance | recall per page: webrefs / naive (ratio) "
        "| pages whose Playwright snapshot exceeds the budget: n, webrefs / naive (ratio) "
        "| pooled recall: webrefs / naive (ratio) | median compression |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for b, s in result["budgets"].items():
        def r(a: float, c: float) -> str:
            return f"{a:.1%} / {c:.1%} ({a / c if c else float('inf'):.2f}x)"
        lines.append(
            f"| {b} | {s['compliance']:.0%} | {r(s['recall_ours'], s['recall_naive'])} "
            f"| {s['pages_over_budget']}: {r(s['over_ours'], s['over_naive'])} "
            f"| {r(s['pooled_ours'], s['pooled_naive'])} | {s['compression_median']:.0f}x |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="../shared/corpus",
                        help="corpus folder with INDEX.tsv (relative to the repository root)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages")
    parser.add_argument("--json", default=None, help="also write the numbers to this file")
    args = parser.parse_args()
    result = run(args)
    print(table(result))
    print(f"pages={result['pages']} failed={len(result['failed'])} "
          f"ceiling recall (no budget)={result['ceiling_recall_mean']:.1%} "
          f"render wall p50={result['render_ms_p50']:.1f} ms p90={result['render_ms_p90']:.1f} ms, "
          f"CPU p50={result['render_cpu_ms_p50']:.1f} ms p90={result['render_cpu_ms_p90']:.1f} ms "
          f"(cold line cache CPU p90={result['render_cpu_ms_cold_p90']:.1f} ms) on the "
          f"{len(result['largest_trees'])} largest trees "
          f"({min(result['largest_trees'])}-{max(result['largest_trees'])} nodes); "
          f"load average {result['load_average'][0]:.1f}")
    for f in result["failed"]:
        print("failed:", f)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
