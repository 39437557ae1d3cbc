"""The Ray executor: a run's episodes as Ray tasks on worker actors, each with its own browser.

``RunOptions.ray`` (``--ray``) says which cluster: ``local`` starts one for the run (a worker
process per slot on this machine), ``auto`` joins the cluster this machine belongs to, and
anything else is a cluster address. ``workers`` actors are made (:class:`EpisodeWorker`), each
declaring :data:`EPISODE_CPUS` CPU and :data:`EPISODE_MEMORY` bytes so Ray packs them; each
serves the suite's site on its own loopback and launches its browser once (or attaches to
its own address from ``--browser-endpoint``: see :mod:`.endpoints`), then plays
episodes one at a time, each in a fresh context, through the same :meth:`Plan.play_task` the
local executor uses.

Recordings travel with the episodes: the driver sends the task's recorded pages and
cassette to the worker playing it, and a worker sends back what it recorded, which the driver
writes into its own ``--out``. Results are written on the driver after every episode, as in
a local run. A worker that dies during an episode (its process killed, its node lost) is
replaced, and the episode is tried once more on the new worker; if that one dies too, the
episode is an ``error`` naming the cause. Ctrl-C cancels what is outstanding and keeps what
finished.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import shutil
import socket
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from webrefs import Browser
from webrefs.errors import InvalidArgumentError, WebrefsError

from ..models.providers import Provider
from ..reports.results import Episode
from ..suite.codescope import CodeScope
from ..suite.tasks import Task
from .endpoints import worker_endpoints
from .plan import Plan, open_browser, site

__all__ = ["EPISODE_CPUS", "EPISODE_MEMORY", "RAY_INSTALL", "EpisodeWorker", "run_on_ray"]

EPISODE_CPUS = 1.0
"""CPUs a worker (one browser, one episode at a time) declares."""
EPISODE_MEMORY = 1536 * 2**20
"""Memory a worker declares: its process, a headless Chromium with one context, and the
episode (benchmarks/bench_ray.py measured a peak of about 1.35 GB resident)."""
LOCAL_OBJECT_STORE = 96 * 2**20
"""Object store of a cluster started for the run: episodes and recordings are small."""
RAY_INSTALL = "pip install 'webrefs[ray]'"
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a cluster address to take a connection."""

Files = dict[str, bytes]
"""Recordings on their way: ``pages/<path>`` or ``cassettes/<path>`` -> the file's bytes."""


def import_ray() -> Any:
    """The ``ray`` module, or a clear error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise InvalidArgumentError(
            "Running episodes on Ray (--ray) needs the ray package, which is not installed.",
            hint=f"Install it with: {RAY_INSTALL}") from None
    return ray


def _unreachable(where: str) -> str | None:
    """Why a ``HOST:PORT`` (or ``ray://HOST:PORT``) address takes no connection, found in a
    few seconds (Ray itself keeps trying for minutes); None when it does, or for another
    kind of address."""
    host, sep, port = where.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return None
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def connect(ray: Any, where: str, workers: int) -> bool:
    """Join (or, for ``local``, start) the cluster; True when this call initialized Ray."""
    if ray.is_initialized():
        return False
    hint = ("Give the address of a running cluster's head (HOST:PORT or ray://HOST:PORT), "
            "'auto' on a machine of the cluster, or 'local' to start one for this run.")
    why = None if where in ("local", "auto") else _unreachable(where)
    if why is not None:
        raise InvalidArgumentError(f"Could not reach the Ray cluster at {where!r}: {why}.",
                                   hint=hint)
    common: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": False}
    try:
        if where == "local":
            ray.init(num_cpus=max(1, workers), object_store_memory=LOCAL_OBJECT_STORE,
                     **common)
        else:
            ray.init(address=where, **common)
    except Exception as exc:  # Ray raises ConnectionError, ValueError, RuntimeError...
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise InvalidArgumentError(
            f"Could not reach the Ray cluster at {where!r}: {first}",
            hint=hint) from None
    return True


def _gather(folder: Path, prefix: str) -> Files:
    return {f"{prefix}/{p.relative_to(folder).as_posix()}": p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _empty(folder: Path | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)


def _place(files: Files, folders: dict[str, Path | None]) -> None:
    """Write each ``prefix/path`` into ``folders[prefix]``, never outside it."""
    for name, data in files.items():
        prefix, _, rel = name.partition("/")
        base = folders.get(prefix)
        if base is None or not rel:
            continue
        target = (base / rel).resolve()
        if not target.is_relative_to(base.resolve()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


class EpisodeWorker:
    """One worker slot: the suite's site on this machine's loopback and a browser launched
    once, then episodes one at a time (Ray makes this class an actor; it runs on its own too,
    which is how its tests drive it)."""

    def __init__(self, plan: Plan, endpoint: str | None = None) -> None:
        self._endpoint = endpoint
        self._dir = Path(tempfile.mkdtemp(prefix="webrefs-worker-"))
        self._plan = replace(
            plan,
            pages_out=self._dir / "pages" if plan.pages_out is not None else None,
            pages_in=self._dir / "pages_in" if plan.pages_in is not None else None,
            cassettes_out=self._dir / "cassettes" if plan.cassettes_out is not None else None,
            cassettes_in=self._dir / "cassettes_in" if plan.cassettes_in is not None else None,
        )
        self._stack = contextlib.ExitStack()
        self._ports: dict[str, int] = {}
        self._browser: Browser | None = None
        self._alone = asyncio.Lock()

    async def start(self) -> str:
        """Serve the site and launch the browser (or attach to the worker's own
        ``endpoint``); the browser's version."""
        plan = self._plan
        loaded = plan.loaded
        code = CodeScope(root=Path(loaded.root), allow_any=plan.options.allow_code,
                         suite=loaded.suite.name)
        self._ports = self._stack.enter_context(
            site(loaded, replaying=plan.pages_in is not None, code=code))
        self._browser = await open_browser(plan.options, self._ports,
                                           endpoint=self._endpoint)
        return self._browser.version

    async def play(self, task: Task, provider: Provider, given: Files) -> tuple[Episode, Files]:
        """One episode with the recordings it replays (``given``); the episode and what it
        recorded."""
        plan = self._plan
        if self._browser is None:
            await self.start()
        assert self._browser is not None
        for folder in (plan.pages_out, plan.pages_in, plan.cassettes_out, plan.cassettes_in):
            _empty(folder)
        _place(given, {"pages": plan.pages_in, "cassettes": plan.cassettes_in})
        episode = await plan.play_task(self._browser, self._ports, task, provider, self._alone)
        made: Files = {}
        if plan.pages_out is not None:
            made.update(_gather(plan.pages_out, "pages"))
        if plan.cassettes_out is not None:
            made.update(_gather(plan.cassettes_out, "cassettes"))
        return episode, made

    async def close(self) -> None:
        """Close the browser and the site; remove the worker's folder."""
        if self._browser is not None:
            with contextlib.suppress(WebrefsError):
                await self._browser.aclose()
        self._stack.close()
        shutil.rmtree(self._dir, ignore_errors=True)


def inputs_for(plan: Plan, task: Task, provider: Provider) -> Files:
    """The recordings an episode replays, as files to send: its pages (with the body files
    its HAR names) and its cassette."""
    files: Files = {}
    if plan.pages_in is not None:
        har = plan.har_for(plan.pages_in, provider, task, writing=False)
        if har.is_file():
            files[f"pages/{har.relative_to(plan.pages_in).as_posix()}"] = har.read_bytes()
            with contextlib.suppress(ValueError, OSError):
                for entry in json.loads(har.read_bytes()).get("log", {}).get("entries", []):
                    for part in ("request", "response"):
                        body = entry.get(part) or {}
                        body = body.get("content") or body.get("postData") or {}
                        name = body.get("_file") if isinstance(body, dict) else None
                        extra = har.parent / name if isinstance(name, str) else None
                        if extra is not None and extra.is_file():
                            rel = extra.relative_to(plan.pages_in).as_posix()
                            files[f"pages/{rel}"] = extra.read_bytes()
    calls, mode = plan.calls_for(provider, task)
    if mode == "replay" and calls is not None and plan.cassettes_in is not None \
            and calls.is_file():
        files[f"cassettes/{calls.relative_to(plan.cassettes_in).as_posix()}"] = \
            calls.read_bytes()
    return files


def _died(ray: Any, exc: BaseException) -> bool:
    exceptions = ray.exceptions
    return isinstance(exc, exceptions.RayActorError | exceptions.WorkerCrashedError)


def _cause(exc: BaseException) -> str:
    """What went wrong on a worker, in one line: the worker's own exception (Ray wraps it with
    the worker's traceback), a webrefs error by its message."""
    cause = getattr(exc, "cause", None)
    cause = cause if isinstance(cause, BaseException) else exc
    if isinstance(cause, WebrefsError):
        return cause.message[:300]
    text = " ".join(str(cause).split())
    return f"{type(cause).__name__}: {text[:300]}"


async def run_on_ray(plan: Plan, todo: list[tuple[Task, Provider]], *,
                     keep: Callable[[Episode], Awaitable[None]],
                     started: Callable[[str], None]) -> None:
    """Play ``todo`` on the cluster ``plan.options.ray`` names, ``keep`` each episode as it
    ends (``started`` gets the workers' browser version first)."""
    ray = import_ray()
    options = plan.options
    slots = max(1, min(options.workers, len(todo)))
    endpoints = worker_endpoints(options.browser_endpoint, options.workers)[:slots]
    own_init = connect(ray, options.ray or "local", slots)
    remote = ray.remote(num_cpus=EPISODE_CPUS, memory=EPISODE_MEMORY,
                        max_restarts=0, max_concurrency=1)(EpisodeWorker)
    actors: list[Any] = []
    endpoint_of: dict[int, str | None] = {}  # an actor's browser address, by id

    def make(endpoint: str | None) -> Any:
        actor = remote.remote(plan, endpoint)
        endpoint_of[id(actor)] = endpoint
        return actor

    busy: dict[asyncio.Future[Any], tuple[Any, Any, Task, Provider, int]] = {}
    try:
        if not todo:
            return
        actors = [make(endpoint) for endpoint in endpoints]
        try:
            versions = await asyncio.gather(*(a.start.remote() for a in actors))
        except Exception as exc:  # RayTaskError wrapping the worker's WebrefsError
            cause = getattr(exc, "cause", None)
            hint = cause.hint if isinstance(cause, WebrefsError) else None
            raise WebrefsError(f"A Ray worker could not start: {_cause(exc)}",
                               hint=hint or "Each worker needs webrefs and a Chromium "
                                            "('webrefs doctor' on the worker machine)."
                               ) from None
        started(str(versions[0]))
        queue = collections.deque((t, p, 0) for t, p in todo)
        idle = list(actors)
        while queue or busy:
            while idle and queue:
                task, provider, tries = queue.popleft()
                actor = idle.pop()
                ref = actor.play.remote(task, provider, inputs_for(plan, task, provider))
                busy[asyncio.ensure_future(ref)] = (ref, actor, task, provider, tries)
            finished, _ = await asyncio.wait(busy, return_when=asyncio.FIRST_COMPLETED)
            for fut in finished:
                _, actor, task, provider, tries = busy.pop(fut)
                failure = fut.exception()
                if failure is None:
                    episode, made = fut.result()
                    _place(made, {"pages": plan.pages_out, "cassettes": plan.cassettes_out})
                    idle.append(actor)
                    await keep(episode)
                    continue
                if not _died(ray, failure):  # never expected: an episode reports what goes wrong
                    idle.append(actor)
                    await keep(Episode(task=task.id, provider=provider.name, status="error",
                                       reason=_cause(failure), tags=list(task.tags)))
                    continue
                actors.remove(actor)  # the worker died: a new one takes its place
                fresh = make(endpoint_of[id(actor)])  # attached where the dead one was
                actors.append(fresh)
                idle.append(fresh)
                if tries == 0:
                    queue.appendleft((task, provider, 1))
                else:
                    await keep(Episode(
                        task=task.id, provider=provider.name, status="error",
                        reason=f"its Ray worker died twice: {_cause(failure)}",
                        tags=list(task.tags)))
    finally:
        for fut, (ref, *_rest) in busy.items():  # Ctrl-C: what is outstanding is cancelled
            fut.cancel()
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=False)
        for actor in actors:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(actor.close.remote(), timeout=10)
            with contextlib.suppress(Exception):
                ray.kill(actor)
        if own_init:
            ray.shutdown()
