"""Running the MiniWoB++ suite over several seeds, and the per-task table.

    python -m webrefs.evals.miniwob --seeds 5 --provider reference --provider heuristic \\
        --workers 2 --out runs/miniwob [--no-time-limit]

runs ``webrefs eval run --suite miniwob --seed S`` for S = 0..N-1 (one results folder per
seed, ``OUT/seed-S``; each is a normal run: reports, compare, resume), then writes
``OUT/miniwob.md``: per task and provider the successes over the seeds and the mean reward,
the totals, episodes per minute, and the tasks not run because the tools cannot express them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..reports.results import Episode, Results, load_results
from ..running.episode import EpisodeOptions
from ..running.runner import RunOptions, run_suite
from .catalog import NOT_EXPRESSIBLE

__all__ = ["main", "reward_of", "table"]


def reward_of(episode: Episode) -> float | None:
    """The page's reward of an episode (``None`` when no reward check ran)."""
    return next((c.value for c in episode.checks if c.type == "reward"), None)


def table(runs: Sequence[Results], *, minutes: float | None = None,
          workers: int | None = None) -> str:
    """The per-task table of runs of the suite (one per seed), as markdown."""
    providers = sorted({e.provider for r in runs for e in r.episodes})
    tasks = sorted({e.task for r in runs for e in r.episodes})
    cell: dict[tuple[str, str], list[Episode]] = {}
    for r in runs:
        for e in r.episodes:
            cell.setdefault((e.task, e.provider), []).append(e)
    limit = runs[0].run.options.get("time_limit", True) if runs else True
    lines = [f"MiniWoB++ through webrefs: {len(runs)} seed(s), time limit "
             f"{'kept' if limit else 'lifted'}; success = the page's reward > 0 "
             "(successes / valid episodes, mean reward; an episode whose reward was not read, "
             "because the policy gave up, counts -1).", ""]
    lines.append("| task | " + " | ".join(providers) + " |")
    lines.append("|---|" + "---:|" * len(providers))
    wins_of: Counter[str] = Counter()
    runs_of: Counter[str] = Counter()
    rewards_of: dict[str, list[float]] = {p: [] for p in providers}
    for task in tasks:
        row = [task]
        for p in providers:
            eps = [e for e in cell.get((task, p), []) if e.status in ("success", "failure")]
            wins = sum(e.status == "success" for e in eps)
            rewards = [-1.0 if (x := reward_of(e)) is None else x for e in eps]
            mean = f" ({statistics.fmean(rewards):+.2f})" if rewards else ""
            row.append(f"{wins}/{len(eps)}{mean}")
            wins_of[p] += wins
            runs_of[p] += len(eps)
            rewards_of[p].extend(rewards)
        lines.append("| " + " | ".join(row) + " |")
    summary = ["**all**"]
    for p in providers:
        rate = f"{100 * wins_of[p] / runs_of[p]:.1f}%" if runs_of[p] else "-"
        mean = (f", mean reward {statistics.fmean(rewards_of[p]):+.2f}" if rewards_of[p]
                else "")
        summary.append(f"{wins_of[p]}/{runs_of[p]} = {rate}{mean}")
    lines.append("| " + " | ".join(summary) + " |")
    episodes = sum(len(r.episodes) for r in runs)
    if minutes:
        lines += ["", f"{episodes} episodes in {minutes:.1f} min = {episodes / minutes:.1f} "
                      f"episodes per minute" + (f" ({workers} worker(s))" if workers else "")]
    lines += ["", f"Not run: {len(NOT_EXPRESSIBLE)} tasks left out.", ""]
    lines += [f"- `{t}`: {why}" for t, why in sorted(NOT_EXPRESSIBLE.items())]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webrefs.evals.miniwob",
                                     description="Run the MiniWoB++ suite over seeds 0..N-1.")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--provider", action="append", dest="providers", metavar="P")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--task", action="append", dest="tasks", metavar="ID")
    parser.add_argument("--out", type=Path, default=Path("eval-results/miniwob"))
    parser.add_argument("--no-time-limit", dest="time_limit", action="store_false")
    parser.add_argument("--report-only", action="store_true",
                        help="only write the table from the seed folders already in --out")
    args = parser.parse_args(list(argv) if argv is not None else None)
    runs: list[Results] = []
    started = time.monotonic()
    for seed in range(args.seeds):
        folder = args.out / f"seed-{seed}"
        if not args.report_only:
            options = RunOptions(
                suite="miniwob", providers=tuple(args.providers or ("reference",)),
                out=folder, workers=args.workers,
                tasks=tuple(args.tasks) if args.tasks else None,
                episode=EpisodeOptions(seed=seed, time_limit=args.time_limit))
            asyncio.run(run_suite(options))
        runs.append(load_results(folder / "results.json"))
    minutes = None if args.report_only else (time.monotonic() - started) / 60
    text = table(runs, minutes=minutes, workers=args.workers)
    (args.out / "miniwob.md").write_text(text, encoding="utf-8")
    print(text)
    return 0
