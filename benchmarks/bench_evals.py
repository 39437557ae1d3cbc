"""Eval throughput: tasks per minute of the reference provider at 1, 2 and 4 workers, and peak
memory per worker, on this machine, in one run.

    python benchmarks/bench_evals.py [--copies 4] [--workers 1 2 4]

The suite is the harness's test suite (tests/data/suites/mini.json, 5 tasks on a local
shop site) with every task copied ``--copies`` times, so each worker count runs the same
episodes. Memory is the resident set of this process and every process under it (the
browser included), sampled every 100 ms. "Per extra worker" is the peak above the 1-worker
run's peak, divided by the workers added: what one more parallel episode costs. The 1-worker
run is the reference the others are compared with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from webrefs.evals.running.runner import RunOptions, run_suite

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "data" / "suites" / "mini.json"


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants, in MB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e6


class Sampler:
    def __init__(self) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _tree_rss_mb(os.getpid()))
            time.sleep(0.1)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def copied_suite(folder: Path, copies: int) -> Path:
    raw = json.loads(MINI.read_text())
    shutil.copytree(MINI.parent / raw["site"]["folder"], folder / "site")  # beside the suite
    raw["site"]["folder"] = "site"
    raw["tasks"] = [{**t, "id": f"{t['id']}-{i}"} for i in range(copies) for t in raw["tasks"]]
    path = folder / "bench-suite.json"
    path.write_text(json.dumps(raw))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    idle = _tree_rss_mb(os.getpid())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        suite = copied_suite(Path(tmp), args.copies)
        for workers in args.workers:
            out = Path(tmp) / f"w{workers}"
            with Sampler() as sampler:
                t0 = time.perf_counter()
                results = asyncio.run(run_suite(RunOptions(suite=str(suite), out=out,
                                                           workers=workers)))
                elapsed = time.perf_counter() - t0
            n = len(results.episodes)
            ok = results.providers["reference"].succeeded
            rows.append((workers, n, ok, elapsed, n / elapsed * 60, sampler.peak))
    base, base_peak = rows[0][4], rows[0][5]
    print(f"machine: {os.cpu_count()} cores; suite: mini x{args.copies}; idle process "
          f"{idle:.0f} MB")
    print("| workers | episodes | succeeded | wall s | tasks/min | vs 1 worker "
          "| peak MB (all processes) | MB per extra worker |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for workers, n, ok, elapsed, rate, peak in rows:
        extra = f"{(peak - base_peak) / (workers - 1):.0f}" if workers > 1 else "-"
        print(f"| {workers} | {n} | {ok} | {elapsed:.1f} | {rate:.1f} | {rate / base:.2f}x "
              f"| {peak:.0f} | {extra} |")


if __name__ == "__main__":
    main()
