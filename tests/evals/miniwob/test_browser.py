"""MiniWoB++ end to end through the real harness: the reference solves representative tasks
over seeds, the page's reward is read, the time limit holds by default and can be lifted,
and a seeded episode shows the same goal and page every time."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from webrefs import Browser
from webrefs.evals import cli
from webrefs.evals.miniwob.policy import Play, PolicyChatModel, look
from webrefs.evals.miniwob.seeds import reward_of
from webrefs.evals.miniwob.site import ORIGIN, SETUP_JS, MiniwobHandler
from webrefs.evals.models.providers import Provider
from webrefs.evals.running.episode import EpisodeOptions
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.running.sites import host_resolver_rules, origin_host, serve_folder
from webrefs.evals.suite.tasks import load_suite

pytest.importorskip("miniwob")
pytestmark = [pytest.mark.browser]

SAMPLE = ("click-button", "click-checkboxes", "enter-text", "read-table", "choose-list",
          "click-tab-2", "odd-or-even", "multi-layouts", "drag-items", "drag-sort-numbers")


def run(tmp: Path, seed: int, tasks: tuple[str, ...], providers: tuple[Any, ...] = ("reference",),
        **episode: Any) -> Any:
    return run_suite(RunOptions(suite="miniwob", providers=providers, out=tmp / f"s{seed}",
                                tasks=tasks, workers=2,
                                episode=EpisodeOptions(seed=seed, **episode)))


@pytest.mark.timeout(240)
def test_the_reference_solves_representative_tasks_over_seeds(tmp_path: Path) -> None:
    # the time limit lifted: a loaded test machine must not decide the outcome (the next
    # test shows the limit itself)
    for seed in (0, 1):
        results = asyncio.run(run(tmp_path, seed, SAMPLE, time_limit=False))
        assert {e.task for e in results.episodes} == set(SAMPLE)
        failed = {e.task: e.reason for e in results.episodes if e.status != "success"}
        assert failed == {}, f"seed {seed}"
        for e in results.episodes:
            reward = reward_of(e)
            assert reward is not None and reward > 0.99, (e.task, reward)
            assert e.tool_errors == {}, e.task
        assert results.run.options["time_limit"] is False


class _Slow:
    """A policy that waits past click-test's 10 s limit, then clicks its button."""

    def __init__(self, wait_s: float) -> None:
        self.wait_s = wait_s

    def __call__(self, goal: str) -> Play:
        page = yield from look()
        time.sleep(self.wait_s)  # the model thinking: runs on LangChain's worker thread
        button = page.first("button")
        assert button is not None and button.ref is not None
        yield ("web_click", {"ref": button.ref})
        return None


@pytest.mark.timeout(120)
def test_the_time_limit_holds_by_default_and_can_be_lifted(tmp_path: Path) -> None:
    slow = Provider(name="slow", label="waits 10.5 s", baseline=True,
                    make_model=lambda task: PolicyChatModel(policy=_Slow(10.5)))

    async def both() -> tuple[Any, Any]:
        return await asyncio.gather(
            run(tmp_path / "kept", 0, ("click-test",), (slow,)),
            run(tmp_path / "lifted", 0, ("click-test",), (slow,), time_limit=False))

    kept, lifted = asyncio.run(both())
    [timed_out], [done] = kept.episodes, lifted.episodes
    assert timed_out.status == "failure" and reward_of(timed_out) == -1
    assert "timed out" in timed_out.reason
    assert done.status == "success" and reward_of(done) is not None
    assert reward_of(done) > 0.99
    assert lifted.run.options["time_limit"] is False


def test_tasks_that_are_not_expressible_are_listed_and_never_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "--suite", "miniwob", "--task", "click-test", "--quiet",
                     "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    excluded = load_suite("miniwob").suite.excluded
    assert f"not run: {len(excluded)} task(s)" in out and "drag-cube" in out
    results = (tmp_path / "results.json").read_text(encoding="utf-8")
    assert "drag-cube" not in results and '"task": "click-test"' in results


@pytest.mark.timeout(120)
def test_a_seeded_episode_shows_the_same_goal_and_page(tmp_path: Path) -> None:
    loaded = load_suite("miniwob")
    assert loaded.site_dir is not None

    async def episode(browser: Browser, seed: int) -> tuple[str, str]:
        ctx = await browser.anew_context(seed=seed)
        try:
            tab = await ctx.anew_tab(f"{ORIGIN}/miniwob/click-checkboxes.html")
            goal = await tab.aevaluate(SETUP_JS, {"seed": seed, "time_limit": True})
            return str(goal), (await tab.asnapshot()).text
        finally:
            await ctx.aclose()

    async def main() -> list[tuple[str, str]]:
        with serve_folder(loaded.site_dir, MiniwobHandler) as port:
            rules = host_resolver_rules({origin_host(ORIGIN): port})
            browser = await Browser.alaunch(args=(f"--host-resolver-rules={rules}",))
            try:
                return [await episode(browser, s) for s in (3, 3, 4)]
            finally:
                await browser.aclose()

    first, again, other = asyncio.run(main())
    assert first == again
    assert first[0].startswith("Select ") and first[0] != other[0]
    assert "checkbox" in first[1] and first[1] != other[1]


def _copy_wait_paste(barrier: threading.Barrier) -> Any:
    """copy-paste's policy with a pause between copying and pasting until the other episode
    has copied too: with one clipboard for both, one of them pastes the other's text."""
    def play(goal: str) -> Play:
        page = yield from look()
        boxes = page.all("textbox")
        source = next(b for b in boxes if b.value)
        target = [b for b in boxes if not b.value][-1]
        yield ("web_press_key", {"key": "ControlOrMeta+A", "ref": source.ref})
        yield ("web_press_key", {"key": "ControlOrMeta+C", "ref": source.ref})
        barrier.wait()  # runs on LangChain's worker thread, like a model thinking
        yield ("web_press_key", {"key": "ControlOrMeta+V", "ref": target.ref})
        submit = page.first("button", "Submit")
        assert submit is not None and submit.ref is not None
        yield ("web_click", {"ref": submit.ref})
        return None
    return play


@pytest.mark.timeout(240)
def test_clipboard_tasks_run_in_a_browser_of_their_own(tmp_path: Path) -> None:
    tasks = ("copy-paste", "copy-paste-2")
    loaded = load_suite("miniwob")
    assert all(loaded.suite.task(t).own_browser for t in tasks)

    def both(suite: str, out: Path) -> dict[str, str]:
        barrier = threading.Barrier(2, timeout=90)
        copier = Provider(name="copier", label="copies, waits, pastes", baseline=True,
                          make_model=lambda task: PolicyChatModel(policy=_copy_wait_paste(
                              barrier)))
        results = asyncio.run(run_suite(RunOptions(
            suite=suite, providers=(copier,), out=out, tasks=tasks, workers=2,
            episode=EpisodeOptions(seed=2, time_limit=False))))
        return {e.task: e.status for e in results.episodes}

    assert both("miniwob", tmp_path / "own") == {t: "success" for t in tasks}
    # the same episodes in contexts of one shared browser: one pastes the other's text
    shared = json.loads(Path(loaded.path).read_text(encoding="utf-8"))
    for task in shared["tasks"]:
        task.pop("own_browser", None)
    (tmp_path / "shared.json").write_text(json.dumps(shared), encoding="utf-8")
    statuses = both(str(tmp_path / "shared.json"), tmp_path / "shared")
    assert sorted(statuses.values()) == ["failure", "success"]
