"""The runner on a real browser: statuses, determinism, record/replay with no server, shards,
resume, a remote browser over CDP; the fence marker is new each live run and the recorded one
in a replay.

The mini suite (tests/data/suites/mini.json) is served under http://mini.webrefs.test; every
other host name resolves to nothing in the eval browser, so no episode can leave the machine.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from webrefs.evals.reports.results import Results, load_results, merge_results
from webrefs.evals.running.episode import EpisodeOptions
from webrefs.evals.running.runner import RunOptions, run_suite

from tests.helpers.debugged import DebuggedChromium
from tests.helpers.paths import DATA
from tests.helpers.relay import Relay

MINI = str(DATA / "suites" / "mini.json")
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run(out: Path, **changes: Any) -> Results:
    options = RunOptions(suite=MINI, out=out, **changes)
    return asyncio.run(run_suite(options))


FENCE = re.compile(r"(<<<(?:end of )?page content )([0-9a-f]{12,18})")


def markers(results: Results) -> set[str]:
    """The fence markers the episodes' tool outputs show."""
    return {m.group(2) for e in results.episodes for c in e.trajectory
            for m in FENCE.finditer(c.output)}


def comparable(results: Results, *, marker: bool = False) -> dict[str, Any]:
    """results.json without what changes from run to run (times, paths, and unless
    ``marker``, the fence marker, which a live run draws anew)."""
    data = json.loads(results.to_json())
    for key in ("started", "finished", "browser"):
        data["run"].pop(key)
    data["suite"].pop("path")
    for e in data["episodes"]:
        e.pop("wall_s")
        if not marker:
            for call in e["trajectory"]:
                call["output"] = FENCE.sub(r"\1(marker)", call["output"])
    return data


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return run(tmp_path_factory.mktemp("run1"), workers=2)


def test_statuses_reasons_and_metrics(first_run: Results) -> None:
    by_task = {e.task: e for e in first_run.episodes}
    assert {t: e.status for t, e in by_task.items()} == {
        "lantern-hours": "success", "order-brass": "success", "newsletter": "success",
        "wrong-answer": "failure", "broken-reference": "failure",
    }
    assert "does not contain '58'" in by_task["wrong-answer"].reason
    broken = by_task["broken-reference"]
    assert "Step 2 (web_click) needs a link named 'Careers'" in broken.reason
    assert [c.tool for c in broken.trajectory] == ["web_snapshot"]  # steps before it are kept
    lantern = by_task["lantern-hours"]
    assert lantern.answer == "It burns for 20 hours."
    assert lantern.final_url == "http://mini.webrefs.test/storm.html"
    assert lantern.steps == len(lantern.trajectory) == 6
    assert lantern.observation_tokens == sum(c.tokens for c in lantern.trajectory) > 0
    assert lantern.system_prompt_tokens > 0 and lantern.prompt_tokens is None
    first = lantern.trajectory[0]
    assert first.tool == "web_snapshot" and "[ref=" in first.output
    order = by_task["order-brass"]
    assert all(c.ok for c in order.checks) and len(order.checks) == 3
    summary = first_run.providers["reference"]
    assert (summary.tasks, summary.succeeded, summary.failed) == (5, 3, 2)
    assert summary.success_rate == 0.6 and summary.ci95 is not None
    assert summary.baseline and "model-free baseline" in summary.label
    assert summary.tokens_per_success is None  # the scripted model reports no usage
    run_info = first_run.run
    assert run_info.webrefs and run_info.playwright and run_info.browser
    assert run_info.options["max_tokens"] == 3000 and run_info.options["workers"] == 2
    assert first_run.suite.content_hash and first_run.suite.tasks == 5


def test_the_same_inputs_give_the_same_results(first_run: Results, tmp_path: Path) -> None:
    again = run(tmp_path, workers=1)
    # the same seed, no recording: the fence marker is new each run (a page that knows the
    # seed cannot know it), and nothing else differs
    assert markers(first_run) and markers(again)
    assert markers(first_run).isdisjoint(markers(again))
    assert not (tmp_path / "pages").exists()  # nothing recorded, no key kept
    assert comparable(again) == {**comparable(first_run), "run": {
        **comparable(first_run)["run"], "options": {**first_run.run.options, "workers": 1}}}


def test_results_file_is_written_and_reloads(first_run: Results, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    first_run.write(path)
    raw = json.loads(path.read_text())
    assert raw["schema"] == 1 and set(raw) == {"schema", "suite", "run", "providers", "episodes"}
    assert load_results(path) == first_run


def test_recorded_pages_replay_to_the_same_result_with_no_server(tmp_path: Path) -> None:
    recorded = run(tmp_path / "rec", record=True, tasks=("lantern-hours", "order-brass"))
    pages = tmp_path / "rec" / "pages"
    assert sorted(p.name for p in pages.iterdir()) == ["fence.key", "lantern-hours.har",
                                                       "order-brass.har"]
    har = json.loads((pages / "lantern-hours.har").read_text())
    urls = {e["request"]["url"] for e in har["log"]["entries"]}
    assert "http://mini.webrefs.test/storm.html" in urls
    # Replaying starts no site server: the browser maps mini.webrefs.test nowhere, so any
    # request the recording does not answer fails.
    replayed = run(tmp_path / "rep", pages=pages, tasks=("lantern-hours", "order-brass"))
    assert replayed.run.pages == "replay"
    a, b = comparable(recorded, marker=True), comparable(replayed, marker=True)
    assert a["episodes"] == b["episodes"]  # the recorded fence marker too, byte for byte
    assert len(markers(recorded)) == 1 and markers(recorded) == markers(replayed)
    assert [e.status for e in replayed.episodes] == ["success", "success"]


def test_leaving_the_recording_makes_the_episode_invalid(tmp_path: Path) -> None:
    run(tmp_path / "rec", record=True, tasks=("newsletter",))
    pages = tmp_path / "rec" / "pages"
    # The lantern task starts on another page: its "recording" is the newsletter's.
    shutil.copy(pages / "newsletter.har", pages / "lantern-hours.har")
    results = run(tmp_path / "rep", pages=pages, tasks=("lantern-hours", "wrong-answer"))
    by_task = {e.task: e for e in results.episodes}
    assert by_task["lantern-hours"].status == "invalid"
    assert "left the recording: GET http://mini.webrefs.test/index.html" in (
        by_task["lantern-hours"].reason)
    assert by_task["wrong-answer"].status == "invalid"
    assert "no recording of this task" in by_task["wrong-answer"].reason
    summary = results.providers["reference"]
    assert summary.invalid == 2 and summary.success_rate is None and summary.ci95 is None


def test_shards_merge_to_the_whole_run(first_run: Results, tmp_path: Path) -> None:
    parts = [run(tmp_path / f"s{i}", shard=(i, 2)) for i in (1, 2)]
    assert sorted(len(p.episodes) for p in parts) == [2, 3]
    assert {p.run.shard for p in parts} == {"1/2", "2/2"}
    merged = merge_results(parts)
    whole = comparable(first_run)
    got = comparable(merged)
    assert got["episodes"] == whole["episodes"]
    assert got["providers"] == whole["providers"]


def test_resume_runs_only_what_is_missing(tmp_path: Path) -> None:
    run(tmp_path, tasks=("newsletter",))
    seen: list[str] = []
    options = RunOptions(suite=MINI, out=tmp_path, resume=True,
                         tasks=("newsletter", "wrong-answer"))
    results = asyncio.run(run_suite(options, progress=lambda e, d, t: seen.append(e.task)))
    assert seen == ["wrong-answer"]
    assert sorted(e.task for e in results.episodes) == ["newsletter", "wrong-answer"]


def test_options_reach_the_tools(tmp_path: Path) -> None:
    results = run(tmp_path, tasks=("newsletter",),
                  episode=EpisodeOptions(after_action="snapshot", max_tokens=400, seed=3))
    (episode,) = results.episodes
    check = episode.trajectory[-1]
    assert check.tool == "web_check" and "[ref=" in check.output  # the snapshot came along
    assert results.run.options["after_action"] == "snapshot" and results.run.seed == 3


def test_max_steps_bounds_the_episode(tmp_path: Path) -> None:
    results = run(tmp_path, tasks=("lantern-hours",), episode=EpisodeOptions(max_steps=2))
    (episode,) = results.episodes
    assert episode.status == "failure"
    assert episode.reason == "ran out of steps (max_steps=2)"


def test_a_remote_browser_over_cdp_runs_recorded_pages(tmp_path: Path) -> None:
    run(tmp_path / "rec", record=True, tasks=("newsletter",))
    with DebuggedChromium(tmp_path / "profile",
                          args=("--host-resolver-rules=MAP * ~NOTFOUND",)) as chrome:
        results = run(tmp_path / "remote", pages=tmp_path / "rec" / "pages",
                      tasks=("newsletter",), browser_endpoint=chrome.endpoint)
        assert [e.status for e in results.episodes] == ["success"]
        assert chrome.running(), "the run killed the remote browser"
        with pytest.raises(Exception, match="cannot reach this machine's site server"):
            run(tmp_path / "live", tasks=("newsletter",), browser_endpoint=chrome.endpoint)


def test_each_worker_attaches_to_its_own_browser(tmp_path: Path) -> None:
    """--browser-endpoint as a list: worker i plays its episodes in the i-th browser (each
    browser behind a relay of the test's, which sees the DevTools client come in)."""
    tasks = ("newsletter", "wrong-answer")
    recorded = run(tmp_path / "rec", record=True, tasks=tasks)
    blocked = ("--host-resolver-rules=MAP * ~NOTFOUND",)
    with DebuggedChromium(tmp_path / "one", args=blocked) as one, \
            DebuggedChromium(tmp_path / "two", args=blocked) as two, \
            Relay(one.port) as first, Relay(two.port) as second:
        results = run(tmp_path / "pool", pages=tmp_path / "rec" / "pages", tasks=tasks,
                      workers=2, browser_endpoint=f"{first.endpoint},{second.endpoint}")
        assert (first.upgrades(), second.upgrades()) == (1, 1)
        assert one.running() and two.running(), "the run closed a browser it attached to"
    assert comparable(results, marker=True)["episodes"] == \
        comparable(recorded, marker=True)["episodes"]
    with pytest.raises(Exception, match="lists 2 browsers for 3 workers"):  # before any run
        run(tmp_path / "short", pages=tmp_path / "rec" / "pages", tasks=tasks, workers=3,
            browser_endpoint="http://127.0.0.1:9,http://127.0.0.1:9")
    assert not (tmp_path / "short" / "results.json").exists()
