"""How an episode's model sees pages: ``dom``, ``vision`` or ``hybrid``, asked for by the run
(``--mode``) or taken from the provider's capabilities; in vision and hybrid modes the
screenshot tool is offered and its image is placed for the provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from webrefs.evals.miniwob.policy import Play, PolicyChatModel, act, click, look
from webrefs.evals.models.providers import Provider, resolve_provider
from webrefs.evals.running.episode import EpisodeOptions
from webrefs.tools.capabilities import Capabilities

from tests.evals.test_harness_episode import events, run, suite_file  # noqa: F401

pytestmark = [pytest.mark.browser]


def shot_then_press(goal: str) -> Play:
    yield from act("web_screenshot")
    page = yield from look()
    yield from click(page.first("button", "Press"), "Press button")
    return None


def _provider(caps: Capabilities) -> Provider:
    def make(task: Any) -> PolicyChatModel:
        return PolicyChatModel(policy=shot_then_press)

    return Provider(name="seeing", label="a scripted policy that looks", baseline=True,
                    make_model=make, capabilities=caps)


def test_a_provider_that_reads_images_gets_hybrid_mode_by_default(
        tmp_path: Path, events: list[str]) -> None:  # noqa: F811
    results = run(suite_file(tmp_path), tmp_path / "out", _provider(Capabilities(images=True)))
    [episode] = results.episodes
    assert episode.status == "success", episode.reason
    shot = episode.trajectory[0]
    assert shot.tool == "web_screenshot" and shot.error is None, shot.output
    assert "elements are drawn" in shot.output


def test_the_run_can_ask_for_dom_or_vision(tmp_path: Path, events: list[str]) -> None:  # noqa: F811
    suite = suite_file(tmp_path)
    seeing = _provider(Capabilities(images=True))
    dom = run(suite, tmp_path / "dom", seeing, episode=EpisodeOptions(mode="dom"))
    assert dom.episodes[0].trajectory[0].error is not None  # no screenshot tool offered
    vision = run(suite, tmp_path / "vision", seeing, episode=EpisodeOptions(mode="vision"))
    steps = vision.episodes[0].trajectory
    assert steps[0].error is None and steps[1].tool == "web_snapshot"
    assert steps[1].error is not None  # vision mode: pages are seen as screenshots only


def test_provider_modes_come_from_the_capability_table() -> None:
    assert resolve_provider("reference").mode() == "dom"
    assert _provider(Capabilities(images=True)).mode() == "hybrid"
    assert _provider(Capabilities(images=True)).mode("vision") == "vision"
    assert _provider(Capabilities()).mode() == "dom"


def shot_then_press_at_point(goal: str) -> Play:
    from webrefs.evals.miniwob.policy import Result

    result = yield from act("web_screenshot", marks=False)
    assert isinstance(result, Result) and result.images, "the policy saw no image"
    page = yield from look()
    yield from click(page.first("button", "Press"), "Press button")
    return None


def test_a_task_that_needs_to_see_gets_the_screenshot_and_points_in_dom_mode(
        tmp_path: Path, events: list[str]) -> None:  # noqa: F811
    def make(task: Any) -> PolicyChatModel:
        return PolicyChatModel(policy=shot_then_press_at_point)

    reference_like = Provider(name="seeing", label="a scripted policy that looks",
                              baseline=True, make_model=make,
                              capabilities=resolve_provider("reference").capabilities,
                              sees="dom")
    assert reference_like.mode() == "dom"
    suite = suite_file(tmp_path, tools=["web_screenshot"])
    results = run(suite, tmp_path / "out", reference_like)
    [episode] = results.episodes
    assert episode.status == "success", episode.reason
    shot = episode.trajectory[0]
    assert shot.error is None and "x and y of web_click" in shot.output, shot.output
    # without the tool named by the task, a dom episode offers no screenshot
    plain = run(suite_file(tmp_path / "plain"), tmp_path / "plain-out", reference_like)
    assert plain.episodes[0].trajectory[0].error is not None
