"""The MiniWoB++ task list, what the tools can express, and the suite file built from it."""

from __future__ import annotations

import json

import pytest
from webrefs.errors import InvalidArgumentError
from webrefs.evals.miniwob import catalog
from webrefs.evals.miniwob.reference import NO_REFERENCE_YET, POLICIES
from webrefs.evals.running.runner import select_tasks
from webrefs.evals.suite.tasks import RewardCheck, load_suite

pytest.importorskip("miniwob")  # the suite's pages; `pip install 'webrefs[miniwob]'`


def test_the_benchmark_is_the_packages_registered_tasks() -> None:
    import miniwob  # noqa: F401 - registers its environments
    from gymnasium import registry

    registered = {k.split("/")[1].removesuffix("-v1") for k in registry
                  if k.startswith("miniwob/") and not k.startswith("miniwob/flight.")}
    assert set(catalog.TASKS) == registered
    assert len(catalog.TASKS) == 125


def test_every_task_is_in_the_suite_or_says_why_not() -> None:
    loaded = load_suite("miniwob")
    ids = {t.id for t in loaded.suite.tasks}
    assert ids | set(loaded.suite.excluded) == set(catalog.TASKS)
    assert not ids & set(loaded.suite.excluded)
    assert set(loaded.suite.excluded) == set(catalog.NOT_EXPRESSIBLE)
    for name, why in loaded.suite.excluded.items():
        assert why.startswith("left out: not expressible") or (why.startswith(
            "left out: expressible now") and "no reference yet" in why), name
    for name in (t for t in catalog.TASKS if t.startswith("drag-")):  # web_drag or why not
        assert "web_drag" in catalog.TOOLS.get(name, ()) or "drag" in \
            catalog.NOT_EXPRESSIBLE[name], name
    assert len(ids) == len(catalog.expressible()) >= 70


def test_the_suite_file_is_built_from_the_catalog() -> None:
    assert json.loads(catalog.SUITE_FILE.read_text(encoding="utf-8")) == catalog.build_suite()


def test_tasks_start_seeded_and_score_with_the_pages_reward() -> None:
    loaded = load_suite("miniwob")
    assert loaded.site_dir is not None and (loaded.site_dir / "core" / "core.js").is_file()
    for task in loaded.suite.tasks:
        assert task.setup is not None and task.setup.goal
        assert "Math.seedrandom(seed)" in task.setup.script
        assert "core.startEpisodeReal()" in task.setup.script
        assert [type(c) for c in task.success] == [RewardCheck]
        assert task.reference_policy == "webrefs.evals.miniwob.reference:reference_model"
        assert loaded.start_url(task) == f"http://miniwob.webrefs.test/miniwob/{task.id}.html"


def test_every_expressible_task_has_a_policy_or_a_stated_gap() -> None:
    for name in catalog.expressible():
        assert (name in POLICIES) != (name in NO_REFERENCE_YET), name
    assert not set(POLICIES) - set(catalog.expressible())


def test_a_task_that_is_not_expressible_cannot_be_selected() -> None:
    loaded = load_suite("miniwob")
    with pytest.raises(InvalidArgumentError, match="drag-cube"):
        select_tasks(loaded.suite.tasks, only=("drag-cube",), shard=None)
