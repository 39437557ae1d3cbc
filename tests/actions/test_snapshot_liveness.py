"""A snapshot calls its page stuck only after two liveness probes in a row go unanswered
(pure: a stand-in tab, the reading replaced)."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest
from webrefs.errors import SnapshotError

# (the package's ``snapshot`` names the function, so the module is imported by its path)
snapshot_module = importlib.import_module("webrefs.actions.snapshot")

PROBE_S = 0.05


class _Tab:
    """What ``snapshot`` needs of a tab: an id, its lock and a liveness probe whose answers
    (each after ``PROBE_S``) are given in order."""

    id = "t1"

    def __init__(self, answers: list[bool]) -> None:
        self.answers = answers
        self.probes = 0
        self.second_probe = asyncio.Event()

    async def call(self, doing: str, fn: Any) -> Any:
        return await fn()

    async def responsive(self) -> bool:
        self.probes += 1
        if self.probes == 2:
            self.second_probe.set()
        await asyncio.sleep(PROBE_S)
        return self.answers.pop(0)


def _take(reading_s: float, monkeypatch: pytest.MonkeyPatch) -> None:
    async def take(tab: Any, overrides: dict[str, Any]) -> str:
        await asyncio.sleep(reading_s)
        return "the snapshot"

    monkeypatch.setattr(snapshot_module, "take_snapshot", take)


def test_a_read_that_outlasts_one_unanswered_probe_is_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the first probe goes unanswered (a loaded machine); the reading ends during the second
    # (once it has started: by an event, not by timing, which a loaded machine upsets)
    tab = _Tab([False, False])

    async def take(_tab: Any, overrides: dict[str, Any]) -> str:
        await tab.second_probe.wait()
        return "the snapshot"

    monkeypatch.setattr(snapshot_module, "take_snapshot", take)
    assert asyncio.run(snapshot_module.snapshot(tab, {})) == "the snapshot"  # type: ignore[arg-type]
    assert tab.probes == 2


def test_two_unanswered_probes_in_a_row_call_the_page_stuck(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _take(30.0, monkeypatch)
    tab = _Tab([False, False])
    with pytest.raises(SnapshotError, match="not responding"):
        asyncio.run(snapshot_module.snapshot(tab, {}))  # type: ignore[arg-type]
    assert tab.probes == 2


def test_an_answered_probe_leaves_the_reading_to_finish(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _take(PROBE_S * 4, monkeypatch)
    tab = _Tab([True])
    assert asyncio.run(snapshot_module.snapshot(tab, {})) == "the snapshot"  # type: ignore[arg-type]
    assert tab.probes == 1
