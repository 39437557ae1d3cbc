"""What a run's every episode shares, wherever it runs: the run's options
(:class:`RunOptions`), the site served on loopback and the browser opened for it
(:func:`site`, :func:`open_browser`), and :class:`Plan`, which plays one episode in a browser
and says where its recordings go. The local executor (:mod:`.runner`) and the Ray executor
(:mod:`.cluster`) both play episodes through :meth:`Plan.play`, so an episode is the same
whichever runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webrefs import Browser
from webrefs.errors import InvalidArgumentError, WebrefsError

from ..models.prices import Price, episode_cost
from ..models.providers import Provider
from ..models.recording import CassetteMode, cassette_path, provider_slug
from ..reports.results import Episode
from ..suite.codescope import CodeScope
from ..suite.tasks import LoadedSuite, Task
from .episode import EpisodeOptions, run_episode
from .sites import host_resolver_rules, load_handler, origin_host, serve_folder

__all__ = ["Plan", "RunOptions", "open_browser", "site"]


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
    """Attach to running Chromiums over CDP instead of launching one: one address for every
    worker, a template naming ``{worker}`` (numbered from 0) or a comma-separated list with an
    address per worker (see :mod:`.endpoints`)."""
    headless: bool = True
    prices: dict[str, Price] = field(default_factory=dict)
    """Price per provider name, for costs (see :mod:`.prices`)."""
    provider_settings: dict[str, Any] = field(default_factory=dict)
    """Settings for LLM providers: temperature, seed, max_tokens (output), base_url,
    text_actions."""
    ray: str | None = None
    """Run the episodes on a Ray cluster instead of this process: ``auto`` (the cluster this
    machine belongs to), ``local`` (a cluster started for this run) or a cluster address
    (``HOST:PORT``, ``ray://HOST:PORT``); see :mod:`.cluster`. ``workers`` is then the number
    of worker actors, each with a browser of its own."""
    allow_code: bool = False
    """Trust the suite's Python code: its ``site.handler`` and reference ``policy`` may name
    modules outside webrefs and the suite's folder (``--allow-code``; see
    :mod:`~webrefs.evals.suite.codescope`). Without it such a suite is refused before anything
    is imported or run."""


@contextlib.contextmanager
def site(loaded: LoadedSuite, replaying: bool, code: CodeScope) -> Iterator[dict[str, int]]:
    """The site served locally (host -> port), unless pages are replayed."""
    site, folder = loaded.suite.site, loaded.site_dir
    if site is None or folder is None or replaying:
        yield {}
        return
    handler = load_handler(site.handler, code)
    with serve_folder(folder, handler) as port:
        yield {origin_host(site.origin): port}


async def open_browser(options: RunOptions, ports: dict[str, int], *,
                       endpoint: str | None = None) -> Browser:
    """Attach to ``endpoint`` (a worker's address from ``options.browser_endpoint``), or
    launch a Chromium that reaches the site's fixed origins on ``ports``."""
    if endpoint:
        if ports:
            raise InvalidArgumentError(
                "A remote browser cannot reach this machine's site server by its fixed origin.",
                hint="Record the pages first ('webrefs eval record'), then run with --pages.",
            )
        return await Browser.aconnect(endpoint)
    args = [f"--host-resolver-rules={host_resolver_rules(ports)}"]
    return await Browser.alaunch(headless=options.headless, args=tuple(args))


@dataclass(frozen=True)
class Plan:
    """How the episodes of one run are played: the suite, the run's options and fence key,
    and the folders recordings are read from and written to (the run's own, or a worker's
    copies of them)."""

    options: RunOptions
    loaded: LoadedSuite
    fence_key: str
    pages_out: Path | None = None
    """Recorded pages are written here (``--record``)."""
    pages_in: Path | None = None
    """Recorded pages are replayed from here (``--pages``)."""
    cassettes_out: Path | None = None
    """Model calls are recorded here (``--record``)."""
    cassettes_in: Path | None = None
    """Model calls are replayed from here (``--cassettes``)."""

    def har_for(self, folder: Path, provider: Provider, task: Task, *, writing: bool) -> Path:
        """Baselines share ``<task>.har``; an LLM provider's own recording is in its folder."""
        own = folder / provider_slug(provider.name) / f"{task.id}.har"
        if provider.baseline:
            return folder / f"{task.id}.har"
        if writing:
            own.parent.mkdir(parents=True, exist_ok=True)
            return own
        return own if own.exists() else folder / f"{task.id}.har"

    def calls_for(self, provider: Provider,
                  task: Task) -> tuple[Path | None, CassetteMode | None]:
        """The episode's cassette and whether it is recorded or replayed (none for baselines)."""
        if provider.baseline:
            return None, None
        if self.cassettes_out is not None:
            return cassette_path(self.cassettes_out, provider.name, task.id), "record"
        if self.cassettes_in is not None:
            return cassette_path(self.cassettes_in, provider.name, task.id), "replay"
        return None, None

    async def play_task(self, browser: Browser, ports: dict[str, int], task: Task,
                        provider: Provider, alone: asyncio.Lock) -> Episode:
        """One episode in ``browser``, or in a browser of its own when the task asks for one
        (launched for it; over CDP such episodes take turns through ``alone``)."""
        if not task.own_browser:
            return await self.play(browser, task, provider)
        if self.options.browser_endpoint:  # one browser for all: such episodes take turns
            async with alone:
                return await self.play(browser, task, provider)
        try:
            own = await open_browser(self.options, ports)
        except WebrefsError as err:
            return Episode(task=task.id, provider=provider.name, status="error",
                           reason=f"no browser of its own: {err.message[:300]}",
                           tags=list(task.tags))
        try:
            return await self.play(own, task, provider)
        finally:
            with contextlib.suppress(WebrefsError):
                await own.aclose()

    async def play(self, where: Browser, task: Task, provider: Provider) -> Episode:
        """One episode in ``where``, its cost set; what goes wrong is in the episode, never
        raised (a cancellation is passed on once the episode has ended)."""
        calls, calls_mode = self.calls_for(provider, task)
        pages_out, pages_in = self.pages_out, self.pages_in
        running = asyncio.ensure_future(run_episode(
            where, self.loaded, task, provider, self.options.episode,
            record_har=self.har_for(pages_out, provider, task, writing=True)
            if pages_out else None,
            replay_har=self.har_for(pages_in, provider, task, writing=False)
            if pages_in else None,
            calls=calls, calls_mode=calls_mode, fence_key=self.fence_key,
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
            episode = Episode(task=task.id, provider=provider.name, status="error",
                              reason="the browser closed during the episode",
                              tags=list(task.tags))
        elif (failed := running.exception()) is not None:  # never expected
            episode = Episode(task=task.id, provider=provider.name, status="error",
                              reason=f"{type(failed).__name__}: "
                                     f"{' '.join(str(failed).split())[:300]}",
                              tags=list(task.tags))
        else:
            episode = running.result()
        cost = episode_cost(self.options.prices.get(provider.name), episode.prompt_tokens,
                            episode.completion_tokens)
        if cost is not None:
            episode = episode.model_copy(update={"cost_usd": cost})
        return episode
