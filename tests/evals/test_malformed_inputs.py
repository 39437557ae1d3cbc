"""Malformed files given to ``webrefs eval``: every command that reads them says what is wrong
in one line and exits with 2, never a traceback, and loses nothing.

The table is the commands that read a results file (``report``, ``compare`` on either side,
``merge``, ``run --resume``) by the ways such a file can be broken, run whole through the
command's entry point and in part as separate processes; plus a suite file nested far
deeper than any parser recursion goes (``run`` and ``validate``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from webrefs.evals.cli import main
from webrefs.evals.suite.inputs import MAX_RESULTS_BYTES
from webrefs.evals.suite.tasks import load_suite

from tests.evals.factories import episode, results_of
from tests.helpers.paths import DATA

MINI = str(DATA / "suites" / "mini.json")
DEEP = 100_000


def webrefs(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webrefs.cli", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def head(path: Path) -> tuple[int, bytes]:
    with path.open("rb") as f:
        return path.stat().st_size, f.read(4096)


def valid() -> dict[str, Any]:
    """A sound results file of the mini suite (its hash, so ``--resume`` would accept it)."""
    run = results_of([episode("lantern-hours", "reference"), episode("newsletter", "reference")],
                     suite="mini", content_hash=load_suite(MINI).content_hash)
    data: dict[str, Any] = json.loads(run.to_json())
    return data


def _changed(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        data = valid()
        change(data)
        path.write_text(json.dumps(data), encoding="utf-8")
    return write


def _deep(path: Path) -> None:
    path.write_text('{"schema": 1, "suite": ' + "[" * DEEP + "]" * DEEP + "}")


def _long_number(path: Path) -> None:  # past Python's 4,300-digit limit for int()
    path.write_text(json.dumps(valid()).replace('"steps": 2', '"steps": 1' + "0" * 5000, 1))


def _huge(path: Path) -> None:  # sparse: takes no disk, refused by its size alone
    with path.open("wb") as f:
        f.write(b'{"schema": 1, "episodes": [')
        f.truncate(MAX_RESULTS_BYTES + 1)


def _truncated(path: Path) -> None:
    text = json.dumps(valid())
    path.write_text(text[: len(text) // 2])


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["episodes"][0][key] = value
    return change


def _drop_task(data: dict[str, Any]) -> None:
    del data["episodes"][0]["task"]


MALFORMED: dict[str, tuple[Callable[[Path], None], str]] = {
    "nested too deep": (_deep, "more than 100 levels deep"),
    "a status that is not one": (_changed(_set("status", "great")), "episodes.0.status"),
    "a wrong type": (_changed(_set("steps", "three")), "episodes.0.steps"),
    "a missing field": (_changed(_drop_task), "episodes.0.task: Field required"),
    "episodes not a list": (_changed(lambda d: d.update(episodes="many")), "episodes"),
    "a number past the digit limit": (_long_number, "not readable JSON"),
    "a huge file": (_huge, "at most 256 MiB is read"),
    "cut short": (_truncated, "not readable JSON"),
}

Command = Callable[[Path, Path, Path], list[str]]
COMMANDS: dict[str, Command] = {
    "report": lambda bad, good, out: ["report", str(bad.parent)],
    "compare (first)": lambda bad, good, out: ["compare", str(bad), str(good)],
    "compare (second)": lambda bad, good, out: ["compare", str(good), str(bad)],
    "merge": lambda bad, good, out: ["merge", str(good), str(bad), "--out", str(out)],
    "run --resume": lambda bad, good, out: [
        "run", "--suite", MINI, "--task", "newsletter", "--out", str(bad.parent), "--resume",
        "--quiet"],
}


def files(tmp: Path) -> tuple[Path, dict[str, Path]]:
    """A sound results file and one of each malformed kind, each in a folder of its own."""
    good = tmp / "good" / "results.json"
    good.parent.mkdir()
    good.write_text(json.dumps(valid()), encoding="utf-8")
    bad = {}
    for kind, (write, _says) in MALFORMED.items():
        path = bad[kind] = tmp / kind.replace(" ", "-") / "results.json"
        path.parent.mkdir()
        write(path)
    return good, bad


def refused(command: str, kind: str, bad: Path, out: Path, before: tuple[int, bytes],
            code: int, out_text: str, err: str) -> None:
    """The command said in one line what is wrong with ``bad`` and changed nothing."""
    where = f"{command} on a results file with {kind}"
    assert code == 2, f"{where}: {code}\n{err[-2000:]}"
    assert "Traceback" not in err + out_text, f"{where}:\n{err[-2000:]}"
    assert err.startswith("webrefs eval: ") and err.count("\n") == 1, f"{where}:\n{err[-2000:]}"
    assert str(bad) in err and MALFORMED[kind][1] in err, f"{where}: {err}"
    assert head(bad) == before, f"{where}: the file changed"
    assert not out.exists() and not (bad.parent / "report.md").exists(), where


def test_every_command_refuses_every_malformed_results_file_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole table, through the command's entry point in this process."""
    good, bad = files(tmp_path)
    for command, args in COMMANDS.items():
        for kind, path in bad.items():
            before = head(path)
            out = tmp_path / f"merged-{path.parent.name}"
            code = main(args(path, good, out))
            captured = capsys.readouterr()
            refused(command, kind, path, out, before, code, captured.out, captured.err)


def test_the_command_line_refuses_malformed_results_files_in_one_line(tmp_path: Path) -> None:
    """The same as a user runs it: each command once, each on another kind of file."""
    good, bad = files(tmp_path)
    kinds = list(bad)
    for i, (command, args) in enumerate(COMMANDS.items()):
        kind = kinds[(3 * i) % len(kinds)]  # nested, number, missing field, cut short, type
        path = bad[kind]
        before = head(path)
        out = tmp_path / f"merged-{path.parent.name}"
        proc = webrefs("eval", *args(path, good, out))
        refused(command, kind, path, out, before, proc.returncode, proc.stdout, proc.stderr)


def test_a_price_table_nested_past_any_recursion_limit_is_one_line_and_exit_2(
        tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text("a = " + "[" * DEEP + "]" * DEEP + "\n")
    proc = webrefs("eval", "run", "--suite", MINI, "--prices", str(prices), "--out",
                   str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == (f"webrefs eval: Cannot read prices from {prices}: it nests arrays "
                           "or tables too deeply.\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_suite_nested_past_any_recursion_limit_is_one_line_and_exit_2(
        tmp_path: Path, command: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"schema": 1, "name": "deep", "tasks": [{"id": "t", "start_url": "/", '
                    '"goal": "g", "success": [{"type": "answer", "contains": "x"}], '
                    '"reference": [{"tool": "web_snapshot", "args": {"a": '
                    + "[" * DEEP + "]" * DEEP + "}}]}]}")
    args = ["eval", "run", "--suite", str(path), "--out", str(tmp_path / "out")] if (
        command == "run") else ["eval", "validate", str(path)]
    proc = webrefs(*args)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr == (f"webrefs eval: Suite file {path} nests arrays and objects more "
                           "than 100 levels deep.\n")
    assert not (tmp_path / "out").exists()


ODD: dict[str, Callable[[dict[str, Any]], None]] = {
    "a lone surrogate": lambda d: d["episodes"][0].update(task="t\ud800", answer="\ud800"),
    "no provider summaries": lambda d: d.update(providers={}),
    "an episode twice": lambda d: d["episodes"].append(d["episodes"][0]),
    "numbers out of range": lambda d: d["episodes"][0].update(steps=-5, wall_s=1e308,
                                                              cost_usd=float("inf")),
    "line breaks in names": lambda d: d["episodes"][0].update(provider="a\nb", task="t\r\nx"),
    "no episodes": lambda d: d.update(episodes=[]),
}


def test_odd_but_valid_results_files_are_reported_compared_and_merged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good" / "results.json"
    good.parent.mkdir()
    good.write_text(json.dumps(valid()), encoding="utf-8")
    for kind, change in ODD.items():
        odd = tmp_path / kind.replace(" ", "-") / "results.json"
        odd.parent.mkdir()
        _changed(change)(odd)
        merged = tmp_path / f"merged-{odd.parent.name}"
        for args in (["report", str(odd.parent)], ["compare", str(odd), str(good)],
                     ["compare", str(good), str(odd)],
                     ["merge", str(odd), str(good), "--out", str(merged)]):
            assert main(args) == 0, f"{args[0]} of results with {kind}: {capsys.readouterr()}"
        assert main(["report", str(merged)]) == 0, kind  # what merge wrote reads back
        capsys.readouterr()
