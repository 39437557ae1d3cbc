"""Extraction A/B: this checkout's ``extract_page`` against other checkouts', interleaved.

Runs between separate benchmark runs on a shared machine move by up to a fifth, more than
most changes are worth. This script loads this checkout's webrefs and one or more other
checkouts of the repository (``git worktree add DIR COMMIT``) into one process, under other
package names, and reads every corpus page with each of them in turn, Playwright's AI
snapshot after each round, so that every version meets the same machine moment. Per page:
the best of ``--repeat`` rounds for each version (rounded up to a whole number of rotations:
each round starts one version later, so every version takes every place equally often), its
in-page time, and Playwright's best.

    python benchmarks/ab_extract.py --against ../old-checkout [--against DIR] [--repeat 3]
        [--limit N] [--json FILE]

A checkout from before webrefs' own JavaScript world (no ``snapshot/world.py``) reads pages
in their own world, as it did. Each version keeps its own ref registry in the page.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from corpus import (
    DEFAULT_CORPUS,
    REPO,
    corpus_browser,
    corpus_files,
    load_corpus_page,
)
from playwright.async_api import async_playwright

# where a checkout keeps the parts of the ``webrefs`` package (pyproject's package-dir)
_PARTS = {"": "toolkit", "adapters": "adapters", "prompts": "prompts", "evals": "evals"}


@dataclass
class Version:
    label: str
    extract: ModuleType
    refs: ModuleType
    world: ModuleType | None
    made: Any = None
    """The version's ``World`` once Playwright runs (``None``: the page's own world)."""


@dataclass
class Row:
    file: str
    ms: dict[str, float] = field(default_factory=dict)
    js: dict[str, float] = field(default_factory=dict)
    aria: float = 0.0
    error: str | None = None


def _alias(checkout: Path, name: str, into: Path) -> None:
    """Make ``into/name`` a package laid out as an installed webrefs of ``checkout``."""
    package = into / name
    package.mkdir()
    for item in (checkout / _PARTS[""]).iterdir():
        (package / item.name).symlink_to(item)
    for sub, folder in _PARTS.items():
        if sub and (checkout / folder).is_dir() and not (package / sub).exists():
            (package / sub).symlink_to(checkout / folder)


def load(label: str, package: str) -> Version:
    try:
        world: ModuleType | None = importlib.import_module(f"{package}.snapshot.world")
    except ModuleNotFoundError:
        world = None
    return Version(label, importlib.import_module(f"{package}.snapshot.extract"),
                   importlib.import_module(f"{package}.snapshot.refs"), world)


def whole_rotations(repeat: int, versions: int) -> int:
    """Timed rounds: at least ``repeat``, a whole number of rotations of the versions."""
    return -(-repeat // versions) * versions


async def run(versions: list[Version], corpus: Path, limit: int | None,
              repeat: int) -> list[Row]:
    rows: list[Row] = []
    rounds = whole_rotations(repeat, len(versions))
    async with async_playwright() as pw:
        for v in versions:
            if v.world is not None:
                v.made = v.world.World(await v.world.register_engine(pw))
        browser, context = await corpus_browser(pw)
        for i, name in enumerate(corpus_files(corpus)[:limit]):
            row = Row(name)
            page = await context.new_page()
            try:
                await load_corpus_page(page, corpus, name)
                books = {}
                for n, v in enumerate(versions):
                    book = v.refs.RefBook(v.made) if v.made is not None else v.refs.RefBook()
                    book.registry_key = f"{book.registry_key}_{n}"
                    books[v.label] = book
                times: dict[str, list[float]] = {v.label: [] for v in versions}
                js: dict[str, list[float]] = {v.label: [] for v in versions}
                aria: list[float] = []
                # each round starts one version later, so that every version takes every
                # place equally often: the place matters (with the order alternating, a
                # checkout read last in two rounds of three measured 0.973 of an identical
                # copy's time per page)
                for k in range(rounds + 1):  # round 0 warms every version up
                    shift = k % len(versions)
                    for v in versions[shift:] + versions[:shift]:
                        # full reads: a version that keeps its last read forgets it
                        kept = getattr(books[v.label], "kept", None)
                        if kept is not None:
                            kept.clear()
                        t0 = time.perf_counter()
                        tree = await v.extract.extract_page(page, books[v.label])
                        if k:
                            times[v.label].append((time.perf_counter() - t0) * 1000)
                            js[v.label].append(tree.stats.js_time_ms)
                    t0 = time.perf_counter()
                    await page.aria_snapshot(mode="ai")
                    if k:
                        aria.append((time.perf_counter() - t0) * 1000)
                row.ms = {label: min(ts) for label, ts in times.items()}
                row.js = {label: min(ts) for label, ts in js.items()}
                row.aria = min(aria)
            except Exception as exc:  # reported per page
                row.error = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            await page.close()
            rows.append(row)
            shown = ", ".join(f"{label} {ms:.1f}" for label, ms in row.ms.items())
            print(f"[{i + 1}] {name}: {shown}, aria {row.aria:.1f}"
                  f"{' ERROR ' + row.error if row.error else ''}", file=sys.stderr)
        await browser.close()
    return rows


def report(rows: list[Row], labels: list[str], repeat: int) -> str:
    ok = [r for r in rows if r.error is None]
    med = statistics.median
    out = [f"{len(ok)} of {len(rows)} pages, best of {repeat} interleaved rounds per version.",
           "", "| version | per-page median ratio to the AI snapshot | median end to end "
           "| median in-page |", "|---|---|---|---|"]
    for label in labels:
        out.append(f"| {label} | {med(r.ms[label] / r.aria for r in ok):.3f} "
                   f"| {med(r.ms[label] for r in ok):.1f} ms "
                   f"| {med(r.js[label] for r in ok):.1f} ms |")
    base = labels[0]
    out += ["", f"| {base} against | end to end, per-page median | totals "
            "| in the page, per-page median |", "|---|---|---|---|"]
    for label in labels[1:]:
        inpage = [r.js[base] / r.js[label] for r in ok if r.js[label] > 0]
        out.append(f"| {label} | {med(r.ms[base] / r.ms[label] for r in ok):.3f} "
                   f"| {sum(r.ms[base] for r in ok) / sum(r.ms[label] for r in ok):.3f} "
                   f"| {med(inpage) if inpage else 0:.3f} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, action="append", required=True,
                        help="another checkout of the repository (repeatable)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds per page")
    parser.add_argument("--json", type=Path, default=None, help="also write raw results here")
    args = parser.parse_args()
    versions = [load("this checkout", "webrefs")]
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        for n, checkout in enumerate(args.against):
            checkout = checkout.resolve()
            if checkout == REPO:
                parser.error(f"{checkout} is this checkout")
            _alias(checkout, f"webrefs_ab{n}", Path(tmp))
            versions.append(load(checkout.name, f"webrefs_ab{n}"))
        rows = asyncio.run(run(versions, args.corpus, args.limit, args.repeat))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1))
    print(report(rows, [v.label for v in versions], whole_rotations(args.repeat, len(versions))))


if __name__ == "__main__":
    main()
