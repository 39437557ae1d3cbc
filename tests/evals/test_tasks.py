"""The task format: validation that names the bad field, the schema, suites by name or path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from webrefs.errors import InvalidArgumentError
from webrefs.evals.reports.results import wilson
from webrefs.evals.running.runner import select_tasks
from webrefs.evals.suite.tasks import (
    AnswerStep,
    ElementCheck,
    Suite,
    Task,
    ToolStep,
    builtin_suites,
    load_suite,
    suite_schema,
)

from tests.helpers.paths import DATA

MINI = DATA / "suites" / "mini.json"


def _task(**changes: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": "t1", "start_url": "/", "goal": "Do it.",
        "success": [{"type": "answer", "contains": "ok"}],
        "reference": [{"tool": "web_snapshot"}, {"answer": "ok"}],
    }
    task.update(changes)
    return task


def _suite_file(tmp_path: Path, tasks: list[dict[str, Any]], **top: Any) -> Path:
    (tmp_path / "site").mkdir(exist_ok=True)
    data = {"schema": 1, "name": "s", "site": {"folder": "site", "origin": "http://s.webrefs.test"},
            "tasks": tasks, **top}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data))
    return path


def test_builtin_demo_suite_loads_with_its_site_and_hash() -> None:
    assert "demo" in builtin_suites()
    loaded = load_suite("demo")
    assert loaded.suite.name == "demo" and loaded.site_dir is not None
    assert (loaded.site_dir / "index.html").is_file()
    assert len(loaded.content_hash) == 64
    task = loaded.suite.tasks[0]
    assert loaded.start_url(task) == "http://demo.webrefs.test/index.html"
    assert isinstance(task.reference[-1], AnswerStep)


def test_mini_suite_parses_every_check_and_step_kind() -> None:
    suite = load_suite(MINI).suite
    kinds = {c.type for t in suite.tasks for c in t.success}
    assert kinds == {"answer", "url", "request", "text", "js", "element"}
    order = suite.task("order-brass")
    step = order.reference_calls[2]
    assert isinstance(step, ToolStep) and step.target is not None
    assert step.target.role == ("combobox",)  # one role given as a string becomes a tuple
    checks = [c for c in suite.task("newsletter").success if isinstance(c, ElementCheck)]
    assert checks[0].checked is True and checks[0].present


def test_the_hash_covers_the_site_files(tmp_path: Path) -> None:
    path = _suite_file(tmp_path, [_task()])
    (tmp_path / "site" / "a.html").write_text("one")
    first = load_suite(path).content_hash
    (tmp_path / "site" / "a.html").write_text("two")
    assert load_suite(path).content_hash != first


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"goal": ""}, "goal"),
        ({"success": []}, "success"),
        ({"success": [{"type": "colour", "is": "red"}]}, "success.0"),
        ({"success": [{"type": "answer"}]}, "success.0"),
        ({"success": [{"type": "url", "pattern": "("}]}, "success.0.url.pattern"),
        ({"reference": [{"answer": "x"}, {"tool": "web_snapshot"}]}, "answer step"),
        ({"reference": [{"tool": "web_click", "targett": {"role": "link"}}]}, "reference.0"),
        ({"id": "has space"}, "id"),
        ({"max_steps": 0}, "max_steps"),
    ],
)
def test_a_bad_task_is_an_error_naming_the_field(tmp_path: Path, change: dict[str, Any],
                                                 field: str) -> None:
    path = _suite_file(tmp_path, [_task(**change)])
    with pytest.raises(InvalidArgumentError, match="does not follow the task format") as info:
        load_suite(path)
    assert field in str(info.value)
    assert "webrefs eval schema" in str(info.value)


def test_duplicate_ids_unknown_schema_and_missing_site(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="two tasks have the id 't1'"):
        load_suite(_suite_file(tmp_path, [_task(), _task()]))
    with pytest.raises(InvalidArgumentError, match="schema 2 is not supported"):
        load_suite(_suite_file(tmp_path, [_task()], schema=2))
    path = _suite_file(tmp_path, [_task()], site={"folder": "nowhere",
                                                  "origin": "http://s.webrefs.test"})
    with pytest.raises(InvalidArgumentError, match="site folder"):
        load_suite(path)


def test_unreadable_files_and_unknown_names(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="neither a builtin suite nor a file"):
        load_suite("no-such-suite")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidArgumentError, match="not readable JSON"):
        load_suite(bad)


def test_origins_must_be_fixed_test_hosts() -> None:
    with pytest.raises(ValidationError):
        Suite.model_validate({"name": "s", "site": {"folder": "x", "origin": "http://127.0.0.1:8000"},
                              "tasks": [_task()]})


def test_the_schema_is_json_schema_of_the_file_format() -> None:
    schema = suite_schema()
    assert schema["title"] == "webrefs eval suite"
    assert "schema" in schema["properties"] and "tasks" in schema["properties"]
    text = json.dumps(schema)
    for kind in ("UrlCheck", "ElementCheck", "TextCheck", "JsCheck", "AnswerCheck",
                 "RequestCheck", "ToolStep", "AnswerStep"):
        assert kind in text


def test_shards_split_deterministically_and_cover_the_suite() -> None:
    tasks = load_suite(MINI).suite.tasks
    parts = [select_tasks(tasks, only=None, shard=(i, 3)) for i in (1, 2, 3)]
    ids = [t.id for part in parts for t in part]
    assert sorted(ids) == sorted(t.id for t in tasks) and len(set(ids)) == len(ids)
    assert [t.id for t in select_tasks(tasks, only=None, shard=(2, 3))] == [t.id for t in parts[1]]
    with pytest.raises(InvalidArgumentError, match="Shard 4/3"):
        select_tasks(tasks, only=None, shard=(4, 3))
    with pytest.raises(InvalidArgumentError, match="Unknown task id"):
        select_tasks(tasks, only=("nope",), shard=None)


def test_wilson_interval() -> None:
    assert wilson(0, 0) is None
    lo, hi = wilson(8, 10) or (0, 0)
    assert (round(lo, 3), round(hi, 3)) == (0.49, 0.943)
    assert wilson(10, 10) == (0.7225, 1.0)
    assert wilson(0, 5) is not None and wilson(0, 5)[0] == 0.0  # type: ignore[index]


def test_task_properties() -> None:
    task = Task.model_validate(_task())
    assert [s.tool for s in task.reference_calls] == ["web_snapshot"]
    assert task.reference_answer is not None and task.reference_answer.answer == "ok"
