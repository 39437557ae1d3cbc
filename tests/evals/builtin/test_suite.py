"""The builtin suite proves itself: every reference solution succeeds on the live sites with no
tool error, played by a scripted model behind a real OpenAI client, alike in a local run and
(a sample of every site's tasks) on a Ray cluster; that run, recorded (pages and model
calls), replays to equal results with no server and no model answering (every third
task, and every task with a tag at most two tasks carry); and the shipped recordings
replay a sample of tasks with no server running."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webrefs.evals import cli
from webrefs.evals.reports.results import Results
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.suite.tasks import load_suite

from tests.evals.test_runner import comparable
from tests.helpers.openai_server import ScriptedOpenAIServer

# whole suites, each holding two browsers (or a Ray cluster of two) busy: one at a time
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("whole-suite")]

SUITE = load_suite("builtin")
PAGES = Path(SUITE.path).parent.parent / "builtin" / "pages"
TAGS = {"form", "search", "navigation", "widget", "iframe", "shadow", "scroll", "popup",
        "dialog", "read", "multi-step"}
SAMPLE = ("shop-order-print", "mail-keys-tomasz", "admin-delete-bruno", "travel-lisbon-oslo",
          "table-shackle-stock", "wiki-ferry-news", "account-sign-in", "widget-donate",
          "widget-review", "widget-shipping-cost")
SITE = {t.id: t.start_url.split("/")[1] for t in SUITE.suite.tasks}
"""Each task's site (the first part of its start URL's path)."""
_RARE = {tag for tag, n in Counter(t for task in SUITE.suite.tasks for t in task.tags).items()
         if n <= 2}
REPLAYED = tuple(task.id for i, task in enumerate(SUITE.suite.tasks)
                 if i % 3 == 0 or _RARE & set(task.tags))
"""The tasks whose recording is replayed (a replay costs what the live run did)."""


def test_suite_shape() -> None:
    tasks = SUITE.suite.tasks
    assert SUITE.suite.name == "builtin" and cli.DEFAULT_SUITE == "builtin"
    assert len(tasks) >= 40
    tags = Counter(t for task in tasks for t in task.tags)
    assert set(tags) <= TAGS and set(tags) == TAGS, set(tags) ^ TAGS
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
    assert sum(len(t.reference_calls) >= 5 for t in tasks) >= 10
    sites = Counter(SITE[t.id] for t in tasks)
    assert len(sites) == 8 and min(sites.values()) >= 4, sites
    for task in tasks:  # never "the agent said so": questions check answers, the rest state
        kinds = {c.type for c in task.success}
        assert kinds - {"answer"} or "read" in task.tags, task.id


MODEL = "openai:scripted-model"


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedOpenAIServer]:
    """A scripted model behind an OpenAI-compatible server on loopback: it plays each task's
    reference solution, reading refs from the tool results as a model would."""
    with pytest.MonkeyPatch.context() as env, ScriptedOpenAIServer(SUITE.suite.tasks) as server:
        env.setenv("OPENAI_API_KEY", "sk-test-NOT-A-REAL-KEY-0123456789abcdef")
        yield server


def options(model: ScriptedOpenAIServer, out: Path, **changes: Any) -> RunOptions:
    return RunOptions(suite="builtin", providers=(MODEL,), out=out, workers=2,
                      provider_settings={"base_url": model.base_url, "temperature": 0.0},
                      **changes)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory,
              model: ScriptedOpenAIServer) -> tuple[Path, Results]:
    """The scripted model over the whole suite, live, in two contexts of one local browser,
    its pages and model calls recorded; the run's folder and results."""
    out = tmp_path_factory.mktemp("local")
    return out, asyncio.run(run_suite(options(model, out, record=True)))


def same_results(results: Results, *, marker: bool = False) -> dict[str, object]:
    """What must not change between a local and a Ray run: all of results.json but times,
    the browser's version and whether pages and model calls were live, recorded or replayed
    (and unless ``marker``, the fence marker a live run draws anew)."""
    data = comparable(results, marker=marker)
    data["run"].pop("pages")
    data["run"].pop("model_calls")
    return data


@pytest.mark.timeout(1200)
def test_reference_solves_every_task(local_run: tuple[Path, Results]) -> None:
    results = local_run[1]
    failed = {e.task: e.reason for e in results.episodes if e.status != "success"}
    assert failed == {}
    errors = {e.task: e.tool_errors for e in results.episodes if e.tool_errors}
    assert errors == {}
    assert len(results.episodes) == len(SUITE.suite.tasks)


@pytest.mark.timeout(1200)
def test_a_sample_of_the_suite_on_ray_equals_the_local_run(local_run: tuple[Path, Results],
                                                          model: ScriptedOpenAIServer,
                                                          tmp_path: Path) -> None:
    """The sample's tasks (every site of the suite) run on a Ray cluster started for it (two
    worker processes, each with its own site server and browser, asking the same model):
    each episode is what it was in the local run of the whole suite, call by call. (The
    Ray machinery on its own, recordings and resume included, is ``tests/evals/test_ray.py``.)"""
    assert {SITE[t] for t in SAMPLE} == set(SITE.values())
    on_ray = asyncio.run(run_suite(options(model, tmp_path, ray="local", tasks=SAMPLE)))
    ray_data, local_data = same_results(on_ray), same_results(local_run[1])
    local_data["episodes"] = [e for e in local_data["episodes"] if e["task"] in SAMPLE]
    assert len(ray_data["episodes"]) == len(SAMPLE)
    assert ray_data["episodes"] == local_data["episodes"], \
        _where_they_differ(ray_data, local_data)
    assert on_ray.run.browser == local_run[1].run.browser


def _where_they_differ(a: dict[str, Any], b: dict[str, Any]) -> str:
    """The first episode (by task) and call where two runs' results differ, for the failure
    message (a whole results.json is cut short by pytest)."""
    for x, y in zip(a["episodes"], b["episodes"], strict=False):
        if x == y:
            continue
        for key in sorted(set(x) | set(y)):
            if key == "trajectory" and x.get(key) != y.get(key):
                for i, (c, d) in enumerate(zip(x[key], y[key], strict=False)):
                    if c != d:
                        return f"{x['task']}: call {i}: {c!r:.1500} / {d!r:.1500}"
                return f"{x['task']}: {len(x[key])} calls against {len(y[key])}"
            if x.get(key) != y.get(key):
                return f"{x['task']}: {key}: {x.get(key)!r:.500} / {y.get(key)!r:.500}"
    return "the episodes agree; the rest of results.json differs"


def test_every_task_has_a_shipped_recording() -> None:
    assert sorted(p.stem for p in PAGES.glob("*.har")) == sorted(t.id for t in SUITE.suite.tasks)


@pytest.mark.timeout(600)
def test_recordings_replay_with_the_server_stopped(tmp_path: Path) -> None:
    results = asyncio.run(run_suite(RunOptions(suite="builtin", providers=("reference",),
                                               out=tmp_path, pages=PAGES, tasks=SAMPLE,
                                               workers=2)))
    assert results.run.pages == "replay"
    assert {e.task: e.status for e in results.episodes} == dict.fromkeys(SAMPLE, "success"), \
        {e.task: e.reason for e in results.episodes if e.status != "success"}


def _episodes(results: Results) -> list[dict[str, object]]:
    episodes = json.loads(results.to_json())["episodes"]
    for e in episodes:
        e.pop("wall_s")
    return list(episodes)


@pytest.mark.timeout(900)
def test_a_recorded_run_of_the_suite_replays_to_equal_results(
        local_run: tuple[Path, Results], model: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """The local run's recording (pages and model calls) replayed with no site server and no
    request reaching the model: every result is the same, field by field but the wall time
    (the pages run on the episode's clock, so even a page's own timers show the same thing
    at the same step). The tasks replayed are every third of the suite and those with a rare
    tag: every site and every tag are among them."""
    out, recorded = local_run
    assert recorded.run.pages == "record" and len(recorded.episodes) == len(SUITE.suite.tasks)
    tags = {t.id: t.tags for t in SUITE.suite.tasks}
    assert {SITE[t] for t in REPLAYED} == set(SITE.values())
    assert {tag for t in REPLAYED for tag in tags[t]} == TAGS
    asked = len(model.requests)
    replayed = asyncio.run(run_suite(options(model, tmp_path / "rep", pages=out / "pages",
                                             cassettes=out / "cassettes", tasks=REPLAYED)))
    assert replayed.run.pages == "replay"
    assert len(model.requests) == asked  # every answer came from the recording
    want = [e for e in _episodes(recorded) if e["task"] in REPLAYED]
    assert len(want) == len(REPLAYED)
    assert _episodes(replayed) == want
