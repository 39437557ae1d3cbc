"""Episodes per minute, locally and on Ray: the same builtin tasks with the ``reference``
provider, run by the local executor with 1 and 2 workers and by the Ray executor on a local
cluster with 1 and 2 workers.

    python benchmarks/bench_ray.py [--tasks 8] [--json OUT]

Also measured: Ray's own cost per episode (an actor call that sends a task and provider and
brings back a real episode of this run, median of many, with no browser work), the fixed cost
of starting a cluster and its workers, and the peak memory of each worker process with its
browser (sampled every 0.2 s; locally the one process and its browser, for all workers).
Everything is served on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ray
from webrefs.evals.models.providers import resolve_provider
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.suite.tasks import load_suite


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(pid: int) -> int:
    """Resident memory of a process and all its descendants (Linux /proc)."""
    todo, total = [pid], 0
    while todo:
        here = todo.pop()
        total += _rss(here)
        todo += _children(here)
    return total


class Peak:
    """Peak resident memory of process trees, sampled in a thread."""

    def __init__(self, roots: Callable[[], list[int]]) -> None:
        self.roots = roots
        self.peak: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for root in self.roots():
                self.peak[root] = max(self.peak.get(root, 0), tree_rss(root))
            self._stop.wait(0.2)

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def ray_workers() -> list[int]:
    """The pids of the Ray worker processes that hold an EpisodeWorker."""
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "EpisodeWorker" in cmd:
            out.append(int(proc.name))
    return out


def timed_run(tasks: tuple[str, ...], workers: int, ray_where: str | None,
              out: Path) -> dict[str, Any]:
    options = RunOptions(suite="builtin", tasks=tasks, workers=workers, out=out, ray=ray_where)
    me = os.getpid()
    roots = ray_workers if ray_where else (lambda: [me])
    with Peak(roots) as peak:
        start = time.perf_counter()
        results = asyncio.run(run_suite(options))
        wall = time.perf_counter() - start
    statuses = [e.status for e in results.episodes]
    return {"executor": "ray" if ray_where else "local", "workers": workers,
            "episodes": len(statuses), "succeeded": statuses.count("success"),
            "wall_s": round(wall, 2), "episodes_per_min": round(len(statuses) / wall * 60, 1),
            "episode_wall_s_sum": round(sum(e.wall_s or 0 for e in results.episodes), 2),
            "peak_mb_per_process": sorted(round(v / 2**20) for v in peak.peak.values())}


@ray.remote(num_cpus=0)
class Echo:
    def play(self, task: Any, provider: Any, files: dict[str, bytes], episode: Any) -> Any:
        return episode, {}


def overhead_ms(episode: Any, calls: int = 200) -> float:
    """Median round trip of an actor call carrying what an episode's call carries."""
    task = load_suite("builtin").suite.tasks[0]
    provider = resolve_provider("reference")
    echo = Echo.remote()  # type: ignore[attr-defined]
    ray.get(echo.play.remote(task, provider, {}, episode))
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        ray.get(echo.play.remote(task, provider, {}, episode))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    ids = tuple(t.id for t in load_suite("builtin").suite.tasks if not t.own_browser)
    tasks = ids[:: max(1, len(ids) // args.tasks)][: args.tasks]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            rows.append(timed_run(tasks, workers, None, Path(tmp) / f"local{workers}"))
            print(rows[-1], flush=True)
        start = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=96 * 2**20,
                 log_to_driver=False, configure_logging=False)
        cluster_start = time.perf_counter() - start
        for workers in (1, 2):
            rows.append(timed_run(tasks, workers, "local", Path(tmp) / f"ray{workers}"))
            print(rows[-1], flush=True)
        sample = json.loads((Path(tmp) / "ray1" / "results.json").read_text())["episodes"][0]
        from webrefs.evals.reports.results import Episode

        per_call = overhead_ms(Episode.model_validate(sample))
        ray.shutdown()
    report = {"tasks": list(tasks), "runs": rows, "cluster_start_s": round(cluster_start, 2),
              "ray_call_overhead_ms": round(per_call, 2),
              "episode_bytes": len(json.dumps(sample))}
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
