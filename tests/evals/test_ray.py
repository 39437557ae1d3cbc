"""Episodes on a Ray cluster (``--ray``): replays of four sites' tasks with the same results
as the run they were recorded from (a sample of the live suite is compared in
``tests/evals/builtin/test_suite.py``), recordings sent to
the workers and brought back, each worker attached to its own browser when asked, a worker
that dies retried once, and clear words for a cluster that cannot be reached or a machine
without Ray.

One local cluster of two worker processes serves the module (no dashboard, a small object
store); every page is served on the workers' own loopback.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import ray  # the ray extra is in [all]
from webrefs.errors import WebrefsError
from webrefs.evals.models.providers import Provider, resolve_provider
from webrefs.evals.reports.results import Results, load_results
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.suite.tasks import Task

from tests.evals.test_runner import comparable
from tests.helpers.debugged import DebuggedChromium
from tests.helpers.paths import ROOT
from tests.helpers.relay import Relay

# whole suites, each holding two browsers (or a Ray cluster of two) busy: one at a time
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("whole-suite")]

# Tasks of four builtin sites: the whole suite takes minutes on a 2-core machine.
TASKS = ("shop-two-mugs", "mail-door-code", "admin-dark-mode", "wiki-mill-restored")


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Any:
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20,
             log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
    yield
    ray.shutdown()


def run(out: Path, **changes: Any) -> Results:
    options = RunOptions(**{"suite": "builtin", "out": out, "tasks": TASKS, "workers": 2,
                            **changes})
    return asyncio.run(run_suite(options))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Results]:
    """The tasks recorded on the Ray workers (pages only: the reference makes no model
    calls)."""
    out = tmp_path_factory.mktemp("rec")
    return out, run(out, record=True, ray="local")


def test_recordings_made_on_the_workers_come_back(recorded: tuple[Path, Results]) -> None:
    out, results = recorded
    pages = out / "pages"
    assert sorted(p.stem for p in pages.glob("*.har")) == sorted(TASKS)
    assert (pages / "fence.key").is_file()
    assert {e.status for e in results.episodes} == {"success"}
    assert results.run.pages == "record"


BLOCKED = ("--host-resolver-rules=MAP * ~NOTFOUND",)
# (tasks of two sites, for runs whose workers die: one task's worker, or each's)
TWO = ("shop-two-mugs", "mail-door-code")


def test_a_replay_on_ray_equals_the_recorded_run(recorded: tuple[Path, Results],
                                                 tmp_path: Path) -> None:
    """The recording replayed on the workers (sent with each episode), each worker attached
    to its own browser by --browser-endpoint as a list (behind a relay of the test's), gives
    the recorded run's episodes, call by call. (The recording was made by workers that
    launched their own browsers; a local replay of a recorded run equals it too, in
    ``tests/evals/builtin/test_suite.py``.)"""
    pages = recorded[0] / "pages"
    with DebuggedChromium(tmp_path / "one", args=BLOCKED) as one, \
            DebuggedChromium(tmp_path / "two", args=BLOCKED) as two, \
            Relay(one.port) as first, Relay(two.port) as second:
        on_ray = run(tmp_path / "pool", pages=pages, ray="local",
                     browser_endpoint=f"{first.endpoint},{second.endpoint}")
        assert (first.upgrades(), second.upgrades()) == (1, 1)
        assert one.running() and two.running()
    assert on_ray.run.pages == "replay"
    assert {e.status for e in on_ray.episodes} == {"success"}
    assert comparable(on_ray, marker=True)["episodes"] == \
        comparable(recorded[1], marker=True)["episodes"]


def test_ctrl_c_keeps_what_finished_and_resume_runs_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "out"
    options = RunOptions(suite="builtin", out=out, tasks=TASKS, workers=1, ray="local")

    async def interrupted() -> None:
        me = asyncio.current_task()
        assert me is not None

        def stop_after_one(episode: Any, done: int, total: int) -> None:
            me.cancel()  # as Ctrl-C does to the run

        with pytest.raises(asyncio.CancelledError):
            await run_suite(options, progress=stop_after_one)

    asyncio.run(interrupted())
    kept = load_results(out / "results.json")
    assert kept.run.interrupted
    assert [e.status for e in kept.episodes] == ["success"]
    ran: list[str] = []
    resumed = asyncio.run(run_suite(replace(options, resume=True, workers=2),
                                    progress=lambda e, done, total: ran.append(e.task)))
    assert sorted(ran) == sorted(set(TASKS) - {kept.episodes[0].task})
    assert {e.task: e.status for e in resumed.episodes} == dict.fromkeys(TASKS, "success")


def _dying(folder: Path, deaths: dict[str, int]) -> Provider:
    """The reference provider, whose worker process dies at the start of the first
    ``deaths[task]`` episodes of each task named (counted in a file per task in ``folder``)."""
    reference = resolve_provider("reference")

    def make_model(task: Task) -> Any:
        marker = folder / task.id
        count = len(marker.read_text()) if marker.exists() else 0
        if count < deaths.get(task.id, 0):
            marker.write_text("x" * (count + 1))
            os._exit(1)
        return reference.make_model(task)

    return replace(reference, make_model=make_model)


def test_an_episode_whose_worker_died_is_tried_again_and_twice_is_an_error(
        recorded: tuple[Path, Results], tmp_path: Path) -> None:
    """One run on one worker attached to a browser of the test's: the worker of one task
    dies once (the task is played again on a new worker, which attaches where the dead one
    did, and succeeds), that of the other twice (an error naming the cause); neither is
    lost."""
    deaths = tmp_path / "deaths"
    deaths.mkdir()
    once, twice = TWO
    with DebuggedChromium(tmp_path / "one", args=BLOCKED) as one, Relay(one.port) as relay:
        results = run(tmp_path / "out", ray="local", workers=1, pages=recorded[0] / "pages",
                      providers=(_dying(deaths, {once: 1, twice: 2}),),
                      browser_endpoint=relay.endpoint, tasks=TWO)
        # the first worker, then one in the place of each of the first two that died (the
        # third death leaves nothing to play)
        assert relay.upgrades() == 3
    assert (deaths / once).read_text() == "x" and (deaths / twice).read_text() == "xx"
    by_task = {e.task: e for e in results.episodes}
    assert set(by_task) == set(TWO)  # nothing lost
    assert by_task[once].status == "success", by_task[once].reason
    died = by_task[twice]
    assert died.status == "error"
    assert died.reason.startswith("its Ray worker died twice:"), died.reason


def test_a_worker_that_cannot_open_its_browser_is_one_clear_error(tmp_path: Path) -> None:
    """Each worker opens its own browser; when it cannot, the run stops with the worker's
    reason and hint (not Ray's traceback), and results.json is still written."""
    with pytest.raises(WebrefsError) as caught:
        run(tmp_path / "out", ray="local", browser_endpoint="http://127.0.0.1:9")
    err = caught.value
    assert err.message.startswith("A Ray worker could not start: A remote browser cannot "
                                  "reach this machine's site server"), err.message
    assert "Traceback" not in str(err) and "File " not in str(err)
    assert err.hint and "--pages" in err.hint
    assert load_results(tmp_path / "out" / "results.json").episodes == []


def _cli(*args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = (f"{prelude}\nimport sys\nfrom webrefs.cli import main\n"
            f"sys.exit(main({list(args)!r}))")
    env = {**os.environ, "RAY_ADDRESS": ""}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=90, env=env, cwd=ROOT)


def test_an_unreachable_cluster_is_one_clear_line(tmp_path: Path) -> None:
    proc = _cli("eval", "run", "--suite", "demo", "--out", str(tmp_path / "out"),
                "--ray", "127.0.0.1:9")
    assert proc.returncode != 0
    assert "Could not reach the Ray cluster at '127.0.0.1:9'" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_without_ray_the_message_says_what_to_install(tmp_path: Path) -> None:
    proc = _cli("eval", "run", "--suite", "demo", "--out", str(tmp_path / "out"),
                "--ray", "local", prelude="import sys; sys.modules['ray'] = None")
    assert proc.returncode != 0
    assert "pip install 'webrefs[ray]'" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
