"""Running a suite: every task with every provider, in parallel contexts of one browser.

:func:`run_suite` serves the suite's site under its fixed origin (or replays recorded pages),
launches Chromium (or attaches to one over CDP), runs the episodes (``workers`` at a time),
and writes ``results.json`` after every episode, so an interrupted run keeps what finished
and ``resume`` picks up from there. ``shard=(i, n)`` runs a deterministic i-th of n parts of
the suite (join the parts with :func:`~webrefs.evals.reports.results.merge_results`).

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import webrefs
from webrefs import Browser
from webrefs.errors import InvalidArgumentError, WebrefsError

from ..models.prices import Price, episode_cost
from ..models.providers import Provider, resolve_provider
from ..models.recording import (
    FENCE_KEY_FILE,
    CassetteMode,
    cassette_path,
    provider_slug,
    read_fence_key,
    write_fence_key,
)
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
from ..suite.tasks import LoadedSuite, Task, load_suite
from .episode import EpisodeOptions, run_episode
from .sites import host_resolver_rules, load_handler, origin_host, serve_folder

__all__ = ["RunOptions", "fence_key_for", "run_suite", "select_tasks"]


@dataclass(frozen=True)
class RunOptions:
    """One eval run."""

    suite: str = "demo"
    """A builtin suite name or a suite file."""
    providers: tuple[str | Provider, ...] = ("reference",)
    """Provider names (``reference``, ``openai:MODEL``, ...) or :class:`Provider` objects."""
    out: Path = Path("eval-results")
    """Folder for results.json, the reports, and recorded pages."""
    episode: EpisodeOptions = field(default_factory=EpisodeOptions)
    workers: int = 1
    """Episodes at a time, each in its own context of one browser."""
    shard: tuple[int, int] | None = None
    """``(i, n)``: run the i-th (1-based) of n deterministic parts of the suite."""
    tasks: tuple[str, ...] | None = None
    """Only these task ids."""
    resume: bool = False
    """Keep the episodes already in ``out/results.json`` and run the rest."""
    pages: Path | None = None
    """Replay each task's pages from ``pages/<task>.har`` (no site server, no network)."""
    record: bool = False
    """Record each task's pages into ``out/pages/<task>.har`` (``pages/<provider>/`` when an
    LLM provider runs) and the model calls of LLM providers into ``out/cassettes/``."""
    cassettes: Path | None = None
    """Replay model calls from ``cassettes/<provider>/<task>.yaml`` (no network for models)."""
    browser_endpoint: str | None = None
    """Attach to a running Chromium over CDP instead of launching one."""
    headless: bool = True
    prices: dict[str, Price] = field(default_factory=dict)
    """Price per provider name, for costs (see :mod:`.prices`)."""
    provider_settings: dict[str, Any] = field(default_factory=dict)
    """Settings for LLM providers: temperature, seed, max_tokens (output), base_url,
    text_actions."""
    allow_code: bool = False
    """Trust the suite's Python code: its ``site.handler`` and reference ``policy`` may name
    modules outside webrefs and the suite's folder (``--allow-code``; see
    :mod:`~webrefs.evals.suite.codescope`). Without it such a suite is refused before anything
    is imported or run."""


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


@contextlib.contextmanager
def _site(loaded: LoadedSuite, replaying: bool, code: CodeScope) -> Iterator[dict[str, int]]:
    """The site served locally (host -> port), unless pages are replayed."""
    site, folder = loaded.suite.site, loaded.site_dir
    if site is None or folder is None or replaying:
        yield {}
        return
    handler = load_handler(site.handler, code)
    with serve_folder(folder, handler) as port:
        yield {origin_host(site.origin): port}


async def _open_browser(options: RunOptions, ports: dict[str, int]) -> Browser:
    if options.browser_endpoint:
        if ports:
            raise InvalidArgumentError(
                "A remote browser cannot reach this machine's site server by its fixed origin.",
                hint="Record the pages first ('webrefs eval record'), then run with --pages.",
            )
        return await Browser.aconnect(options.browser_endpoint)
    args = [f"--host-resolver-rules={host_resolver_rules(ports)}"]
    return await Browser.alaunch(headless=options.headless, args=tuple(args))


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

    def har_for(folder: Path, provider: Provider, task: Task, *, writing: bool) -> Path:
        """Baselines share ``<task>.har``; an LLM provider's own recording is in its folder."""
        own = folder / provider_slug(provider.name) / f"{task.id}.har"
        if provider.baseline:
            return folder / f"{task.id}.har"
        if writing:
            own.parent.mkdir(parents=True, exist_ok=True)
            return own
        return own if own.exists() else folder / f"{task.id}.har"

    def calls_for(provider: Provider, task: Task) -> tuple[Path | None, CassetteMode | None]:
        if provider.baseline:
            return None, None
        if options.record:
            return cassette_path(out / "cassettes", provider.name, task.id), "record"
        if options.cassettes is not None:
            return cassette_path(options.cassettes, provider.name, task.id), "replay"
        return None, None

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

    with _site(loaded, replaying=options.pages is not None, code=code) as ports:
        browser = await _open_browser(options, ports)
        results.run.browser = browser.version
        save()
        gate = asyncio.Semaphore(options.workers)

        alone = asyncio.Lock()  # episodes of own-browser tasks when attached over CDP

        async def one(task: Task, provider: Provider) -> None:
            async with gate:
                if browser.closed:
                    return
                if task.own_browser and not options.browser_endpoint:
                    try:
                        own = await _open_browser(options, ports)
                    except WebrefsError as err:
                        episode = Episode(task=task.id, provider=provider.name, status="error",
                                          reason=f"no browser of its own: {err.message[:300]}",
                                          tags=list(task.tags))
                    else:
                        try:
                            episode = await _episode(own, task, provider)
                        finally:
                            with contextlib.suppress(WebrefsError):
                                await own.aclose()
                elif task.own_browser:  # one browser for all: such episodes take turns
                    async with alone:
                        episode = await _episode(browser, task, provider)
                else:
                    episode = await _episode(browser, task, provider)
                cost = episode_cost(options.prices.get(provider.name), episode.prompt_tokens,
                                    episode.completion_tokens)
                if cost is not None:
                    episode = episode.model_copy(update={"cost_usd": cost})
            async with lock:
                results.episodes.append(episode)
                save()
                if progress is not None:
                    progress(episode, len(results.episodes), total)

        async def _episode(where: Browser, task: Task, provider: Provider) -> Episode:
            """One episode in ``where``; what goes wrong is in the episode, never raised."""
            calls, calls_mode = calls_for(provider, task)
            running = asyncio.ensure_future(run_episode(
                where, loaded, task, provider, options.episode,
                record_har=har_for(pages_out, provider, task, writing=True)
                if pages_out else None,
                replay_har=har_for(options.pages, provider, task, writing=False)
                if options.pages else None,
                calls=calls, calls_mode=calls_mode, fence_key=fence_key,
            ))
            try:
                while not running.done():  # a dead browser may leave a call waiting forever
                    await asyncio.wait([running], timeout=0.5)
                    if where.closed and not running.done():
                        running.cancel()
                        with contextlib.suppress(asyncio.CancelledError, Exception):
                            await running
            except asyncio.CancelledError:  # interrupted: the episode ends before its browser
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await running
                raise
            if running.cancelled():
                return Episode(task=task.id, provider=provider.name, status="error",
                               reason="the browser closed during the episode",
                               tags=list(task.tags))
            failed = running.exception()
            if failed is not None:  # never expected (an episode reports what goes wrong)
                return Episode(task=task.id, provider=provider.name, status="error",
                               reason=f"{type(failed).__name__}: "
                                      f"{' '.join(str(failed).split())[:300]}",
                               tags=list(task.tags))
            return running.result()

        jobs = [asyncio.ensure_future(one(t, p)) for t, p in todo]
        try:
            await asyncio.gather(*jobs)
        except (asyncio.CancelledError, KeyboardInterrupt):
            for job in jobs:
                job.cancel()
            results.run.interrupted = True
            raise
        finally:
            results.run.finished = _now()
            if browser.closed and len(results.episodes) < total:
                results.run.interrupted = True
            results.episodes.sort(key=lambda e: (e.provider, e.task))
            save()
            with contextlib.suppress(WebrefsError):
                await browser.aclose()
    if results.run.interrupted:
        raise WebrefsError(
            f"The browser closed during the run; {len(results.episodes)} of {total} episodes "
            f"finished and are kept in {results_path}.",
            hint="Run again with --resume to finish the rest.",
        )
    return results
