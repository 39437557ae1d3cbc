"""The builtin suite proves itself: every reference solution succeeds on the live sites with no
tool error, and the shipped recordings replay a sample of tasks with no server running."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from webrefs.evals import cli
from webrefs.evals.runner import RunOptions, run_suite
from webrefs.evals.tasks import load_suite

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SUITE = load_suite("builtin")
PAGES = Path(SUITE.path).parent.parent / "builtin" / "pages"
TAGS = {"form", "search", "navigation", "widget", "iframe", "shadow", "scroll", "popup",
        "dialog", "read", "multi-step"}
SAMPLE = ("shop-order-print", "mail-keys-tomasz", "admin-delete-bruno", "travel-lisbon-oslo",
          "table-shackle-stock", "wiki-ferry-news", "account-sign-in", "widget-donate",
          "widget-review", "widget-shipping-cost")


def test_suite_shape() -> None:
    tasks = SUITE.suite.tasks
    assert SUITE.suite.name == "builtin" and cli.DEFAULT_SUITE == "builtin"
    assert len(tasks) >= 40
    tags = Counter(t for task in tasks for t in task.tags)
    assert set(tags) <= TAGS and set(tags) == TAGS, set(tags) ^ TAGS
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
    assert sum(len(t.reference_calls) >= 5 for t in tasks) >= 10
    sites = Counter(t.start_url.split("/")[1] for t in tasks)
    assert len(sites) == 8 and min(sites.values()) >= 4, sites
    for task in tasks:  # never "the agent said so": questions check answers, the rest state
        kinds = {c.type for c in task.success}
        assert kinds - {"answer"} or "read" in task.tags, task.id


@pytest.mark.timeout(1200)
def test_reference_solves_every_task(tmp_path: Path) -> None:
    results = asyncio.run(run_suite(RunOptions(suite="builtin", providers=("reference",),
                                               out=tmp_path, workers=2)))
    failed = {e.task: e.reason for e in results.episodes if e.status != "success"}
    assert failed == {}
    errors = {e.task: e.tool_errors for e in results.episodes if e.tool_errors}
    assert errors == {}
    assert len(results.episodes) == len(SUITE.suite.tasks)


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
