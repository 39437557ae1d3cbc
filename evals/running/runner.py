"""Running a suite: every task with every provider, in parallel contexts of its browsers.

:func:`run_suite` serves the suite's site under its fixed origin (or replays recorded pages),
launches Chromium (or attaches over CDP to one browser, or to one per worker: see
:mod:`.endpoints`), runs the episodes (``workers`` at a time, each in a fresh context of its
worker's browser), and writes ``results.json`` after every episode, so an interrupted run
keeps what finished and ``resume`` picks up from there. ``shard=(i, n)`` runs a
deterministic i-th of n parts of the suite (join the parts with
:func:`~webrefs.evals.reports.results.merge_results`).

Everything that produced a result is recorded with it: versions, git commit, suite hash,
options, seed, providers' settings, times.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import platform
import secrets
import subprocess
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

import webrefs
from webrefs import Browser
from webrefs.errors import InvalidArgumentError, WebrefsError

from ..models.providers import Provider, resolve_provider
from ..models.recording import FENCE_KEY_FILE, read_fence_key, write_fence_key
from ..reports.results import (
    Episode,
    Results,
    RunInfo,
    SuiteInfo,
    load_results,
    resummarize,
    summarize,
)
from ..suite.codescope import CodeScope, code_fields
from ..suite.tasks import Task, load_suite
from .endpoints import worker_endpoints
from .plan import Plan, RunOptions, open_browser, site

__all__ = ["RunOptions", "fence_key_for", "run_suite", "select_tasks"]


def select_tasks(tasks: tuple[Task, ...], *, only: tuple[str, ...] | None,
                 shard: tuple[int, int] | None) -> list[Task]:
    """The tasks of a run: ``only`` these ids, then this shard's share (by position in the
    id-sorted list, so every shard of the same suite agrees)."""
    chosen = list(tasks)
    if only is not None:
        known = {t.id for t in tasks}
        missing = sorted(set(only) - known)
        if missing:
            raise InvalidArgumentError(f"Unknown task id(s): {', '.join(missing)}.",
                                       hint=f"Tasks: {', '.join(sorted(known))}.")
        chosen = [t for t in chosen if t.id in set(only)]
    if shard is not None:
        index, count = shard
        if not (count >= 1 and 1 <= index <= count):
            raise InvalidArgumentError(f"Shard {index}/{count} is not valid; use i/n with "
                                       "1 <= i <= n.")
        order = sorted(chosen, key=lambda t: t.id)
        keep = {t.id for pos, t in enumerate(order) if pos % count == index - 1}
        chosen = [t for t in chosen if t.id in keep]
    return chosen


def _git_commit() -> str | None:
    root = Path(webrefs.__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


async def _close_all(browsers: Iterable[Browser]) -> None:
    for browser in list(browsers):
        with contextlib.suppress(WebrefsError):
            await browser.aclose()


ProgressFn = Callable[[Episode, int, int], None]


def fence_key_for(options: RunOptions, *, replays_calls: bool) -> str:
    """The run's fence key, the secret the page-content fence markers derive from (with the
    seed): the recording's when model calls (``replays_calls``) or pages are replayed, the one
    already kept in the output folder when recording into it again (its recordings share
    one), else a new one, so two live runs with the same seed have different markers. Raises
    :class:`InvalidArgumentError` when recorded model calls kept no key (an older webrefs
    recorded them, with other prompts)."""
    if replays_calls and options.cassettes is not None and options.cassettes.is_dir():
        key = read_fence_key(options.cassettes)
        if key is None:
            raise InvalidArgumentError(
                f"{options.cassettes} has no {FENCE_KEY_FILE}: these model calls were recorded "
                "by an older webrefs, whose prompts differ from this one's.",
                hint="Record them again ('webrefs eval record').")
        return key
    if options.pages is not None:
        key = read_fence_key(options.pages)
        if key is not None:
            return key
    if options.record:
        for folder in (options.out / "cassettes", options.out / "pages"):
            key = read_fence_key(folder)
            if key is not None:
                return key
    return secrets.token_hex(16)


async def run_suite(options: RunOptions, *, progress: ProgressFn | None = None) -> Results:
    """Run the suite; ``progress(episode, done, total)`` is called after each episode.

    Raises :class:`InvalidArgumentError` for a bad suite, provider, shard or task id before
    anything runs. Ctrl-C (cancellation) stops the run after writing what finished."""
    if options.workers < 1:
        raise InvalidArgumentError("workers must be at least 1.")
    if options.record and options.pages is not None:
        raise InvalidArgumentError("Record or replay pages, not both.")
    loaded = load_suite(options.suite)
    code = CodeScope(root=Path(loaded.root), allow_any=options.allow_code,
                     suite=loaded.suite.name)
    for name, spec in code_fields(loaded.suite):  # refused before anything is imported
        code.check(spec, name)
    named: dict[str, str | Provider] = {}
    for p in options.providers:  # each name once, in the order given
        named.setdefault(p.name if isinstance(p, Provider) else p, p)
    providers: list[Provider] = [
        p if isinstance(p, Provider) else resolve_provider(p, code=code,
                                                           **options.provider_settings)
        for p in named.values()
    ]
    if options.workers > 1 and any(p.human for p in providers):
        raise InvalidArgumentError("The human provider plays one episode at a time.",
                                   hint="Run it with --workers 1.")
    tasks = select_tasks(loaded.suite.tasks, only=options.tasks, shard=options.shard)
    endpoints = worker_endpoints(options.browser_endpoint, options.workers)
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.json"
    done: dict[tuple[str, str], Episode] = {}
    if options.resume and results_path.exists():
        previous = load_results(results_path)
        if previous.suite.content_hash != loaded.content_hash:
            raise InvalidArgumentError(
                f"{results_path} is from another version of suite {previous.suite.name}; "
                "cannot resume it.", hint="Use another --out folder, or drop --resume.")
        done = {e.key: e for e in previous.episodes if e.status != "error"}
    pages_out = out / "pages" if options.record else None
    if pages_out is not None:
        pages_out.mkdir(parents=True, exist_ok=True)
    if options.record and options.cassettes is not None:
        raise InvalidArgumentError("Record model calls or replay them, not both.")
    calls_of_models = any(not p.baseline for p in providers)
    fence_key = fence_key_for(options, replays_calls=calls_of_models)
    if pages_out is not None:
        write_fence_key(pages_out, fence_key)
        if calls_of_models:
            write_fence_key(out / "cassettes", fence_key)

    run = RunInfo(
        webrefs=webrefs.__version__, git_commit=_git_commit(),
        playwright=importlib.metadata.version("playwright"), python=platform.python_version(),
        started=_now(), options={**options.episode.as_dict(), "workers": options.workers,
                                 "providers": [p.name for p in providers]},
        seed=options.episode.seed,
        shard=f"{options.shard[0]}/{options.shard[1]}" if options.shard else None,
        pages="replay" if options.pages else ("record" if options.record else "live"),
        model_calls=("record" if options.record else
                     "replay" if options.cassettes is not None else "live"),
    )
    results = Results(
        suite=SuiteInfo(name=loaded.suite.name, path=loaded.path,
                        content_hash=loaded.content_hash, tasks=len(tasks)),
        run=run,
        providers={p.name: summarize([], label=p.label, baseline=p.baseline,
                                     settings=p.settings, human=p.human) for p in providers},
        episodes=[e for e in done.values() if e.task in {t.id for t in tasks}],
    )
    todo = [(t, p) for p in providers for t in tasks if (p.name, t.id) not in done]
    total = len(todo) + len(results.episodes)
    lock = asyncio.Lock()

    def save() -> None:
        nonlocal results
        results = resummarize(results)
        results.write(results_path)

    plan = Plan(options=options, loaded=loaded, fence_key=fence_key, pages_out=pages_out,
                pages_in=options.pages,
                cassettes_out=out / "cassettes" if options.record else None,
                cassettes_in=options.cassettes)

    async def keep(episode: Episode) -> None:
        async with lock:
            results.episodes.append(episode)
            save()
            if progress is not None:
                progress(episode, len(results.episodes), total)

    def close() -> None:
        results.run.finished = _now()
        results.episodes.sort(key=lambda e: (e.provider, e.task))
        save()

    if options.ray is not None:
        from .cluster import run_on_ray

        def started(browser_version: str) -> None:
            results.run.browser = browser_version
            save()

        try:
            await run_on_ray(plan, todo, keep=keep, started=started)
        except (asyncio.CancelledError, KeyboardInterrupt):
            results.run.interrupted = True
            raise
        finally:
            close()
        return results
    with site(loaded, replaying=options.pages is not None, code=code) as ports:
        browsers: dict[str | None, Browser] = {}
        try:
            for endpoint in dict.fromkeys(endpoints):  # a browser per distinct address
                browsers[endpoint] = await open_browser(options, ports, endpoint=endpoint)
        except BaseException:
            await _close_all(browsers.values())
            raise
        results.run.browser = browsers[endpoints[0]].version
        save()
        slots: asyncio.Queue[Browser] = asyncio.Queue()
        for endpoint in endpoints:  # a worker slot is its browser, taken for an episode
            slots.put_nowait(browsers[endpoint])
        # episodes of own-browser tasks take turns per browser attached over CDP
        alone = {id(b): asyncio.Lock() for b in browsers.values()}

        def lost() -> bool:
            return any(b.closed for b in browsers.values())

        async def one(task: Task, provider: Provider) -> None:
            browser = await slots.get()
            try:
                if lost():
                    return
                episode = await plan.play_task(browser, ports, task, provider,
                                               alone[id(browser)])
            finally:
                slots.put_nowait(browser)
            await keep(episode)

        jobs = [asyncio.ensure_future(one(t, p)) for t, p in todo]
        try:
            await asyncio.gather(*jobs)
        except (asyncio.CancelledError, KeyboardInterrupt):
            for job in jobs:
                job.cancel()
            results.run.interrupted = True
            raise
        finally:
            if lost() and len(results.episodes) < total:
                results.run.interrupted = True
            close()
            await _close_all(browsers.values())
    if results.run.interrupted:
        raise WebrefsError(
            f"The browser closed during the run; {len(results.episodes)} of {total} episodes "
            f"finished and are kept in {results_path}.",
            hint="Run again with --resume to finish the rest.",
        )
    return results
