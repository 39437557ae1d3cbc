"""Where a run's fence key comes from (pure: no browser): new for a live run, the recording's
for a replay, the one already kept when recording into a folder again; recorded model calls
that kept none are refused up front, with the remedy."""

from __future__ import annotations

from pathlib import Path

import pytest
from webrefs.errors import InvalidArgumentError
from webrefs.evals.models.recording import FENCE_KEY_FILE, read_fence_key, write_fence_key
from webrefs.evals.running.runner import RunOptions, fence_key_for


def test_a_live_run_draws_a_new_key_each_time(tmp_path: Path) -> None:
    options = RunOptions(out=tmp_path)
    first = fence_key_for(options, replays_calls=True)
    assert first != fence_key_for(options, replays_calls=True)
    assert len(first) == 32


def test_a_replay_uses_the_recorded_key(tmp_path: Path) -> None:
    write_fence_key(tmp_path / "cassettes", "ab" * 16)
    write_fence_key(tmp_path / "pages", "cd" * 16)
    both = RunOptions(out=tmp_path / "out", cassettes=tmp_path / "cassettes",
                      pages=tmp_path / "pages")
    assert fence_key_for(both, replays_calls=True) == "ab" * 16  # what model calls need
    assert fence_key_for(both, replays_calls=False) == "cd" * 16  # baselines: the pages'
    pages = RunOptions(out=tmp_path / "out", pages=tmp_path / "pages")
    assert fence_key_for(pages, replays_calls=True) == "cd" * 16


def test_recording_into_a_folder_again_keeps_its_key(tmp_path: Path) -> None:
    write_fence_key(tmp_path / "pages", "ef" * 16)
    again = RunOptions(out=tmp_path, record=True)
    assert fence_key_for(again, replays_calls=False) == "ef" * 16


def test_model_calls_recorded_without_a_key_are_refused(tmp_path: Path) -> None:
    (tmp_path / "cassettes" / "openai_m").mkdir(parents=True)
    options = RunOptions(out=tmp_path / "out", cassettes=tmp_path / "cassettes")
    with pytest.raises(InvalidArgumentError, match=r"no fence\.key.*older webrefs") as info:
        fence_key_for(options, replays_calls=True)
    assert info.value.hint and "Record them again" in info.value.hint
    assert fence_key_for(options, replays_calls=False)  # baselines replay no model calls


def test_a_key_file_that_holds_no_key_is_an_error(tmp_path: Path) -> None:
    (tmp_path / FENCE_KEY_FILE).write_text("../../etc/passwd\n")
    with pytest.raises(InvalidArgumentError, match="does not hold a fence key"):
        read_fence_key(tmp_path)
    assert read_fence_key(tmp_path / "nowhere") is None
