"""Argument checks with no browser: clamps, value caps, upload roots, scroll
amounts, key names, snapshot diffs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from webrefs.actions.limits import (
    HARD_VALUE_CAP,
    MAX_TIMEOUT_MS,
    MIN_TIMEOUT_MS,
    check_upload_paths,
    check_value,
    clamp_ms,
    normalize_key,
    parse_scroll,
)
from webrefs.errors import InvalidArgumentError


def test_clamp_never_means_forever() -> None:
    assert clamp_ms(0, default=5000) == MIN_TIMEOUT_MS
    assert clamp_ms(-1, default=5000) == MIN_TIMEOUT_MS
    assert clamp_ms(None, default=5000) == 5000
    assert clamp_ms(10**12, default=5000) == MAX_TIMEOUT_MS
    for bad in ("5s", True, float("nan")):
        with pytest.raises(InvalidArgumentError):
            clamp_ms(bad, default=5000)


def test_value_caps() -> None:
    assert check_value("abc", 10) == "abc"
    with pytest.raises(InvalidArgumentError):
        check_value("x" * 11, 10)
    with pytest.raises(InvalidArgumentError):
        check_value("x" * (HARD_VALUE_CAP + 1), 10**9)
    with pytest.raises(InvalidArgumentError):
        check_value(5, 10)


def test_upload_paths_must_be_inside_roots(tmp_path: Path) -> None:
    root = tmp_path / "uploads"
    root.mkdir()
    good = root / "cv.pdf"
    good.write_text("x")
    outside = tmp_path / "secret.txt"
    outside.write_text("s")
    assert check_upload_paths(str(good), [str(root)]) == [str(good.resolve())]
    with pytest.raises(InvalidArgumentError):
        check_upload_paths(str(outside), [str(root)])
    with pytest.raises(InvalidArgumentError):  # .. cannot escape
        check_upload_paths(str(root / ".." / "secret.txt"), [str(root)])
    link = root / "link.txt"
    os.symlink(outside, link)
    with pytest.raises(InvalidArgumentError):  # nor can a symbolic link
        check_upload_paths(str(link), [str(root)])
    with pytest.raises(InvalidArgumentError):  # no roots: uploads are off
        check_upload_paths(str(good), [])
    with pytest.raises(InvalidArgumentError):
        check_upload_paths(str(root / "missing.pdf"), [str(root)])
    with pytest.raises(InvalidArgumentError):
        check_upload_paths([], [str(root)])


def test_parse_scroll() -> None:
    assert parse_scroll("down", None)[1].screens == 0.9
    assert parse_scroll("UP", 300) == ("up", parse_scroll("up", "300px")[1])
    assert parse_scroll("left", "2 screens")[1].screens == 2
    assert parse_scroll("right", "page")[1].screens == 1
    assert parse_scroll("down", "half")[1].screens == 0.5
    assert parse_scroll("down", "end")[1].pixels == 1_000_000
    for d, a in (("diagonal", None), ("down", 0), ("down", "much"), ("down", False)):
        with pytest.raises(InvalidArgumentError):
            parse_scroll(d, a)


@pytest.mark.parametrize(
    ("key", "norm"),
    [
        ("Enter", "Enter"), ("enter", "Enter"), ("Return", "Enter"), ("ctrl+a", "Control+a"),
        ("Control+A", "Control+A"), ("shift+tab", "Shift+Tab"), ("Cmd+Shift+K", "Meta+Shift+K"),
        ("esc", "Escape"), ("F5", "F5"), ("Control++", "Control++"), ("+", "+"),
        ("ArrowDown", "ArrowDown"), ("Shift", "Shift"),
    ],
)
def test_normalize_key(key: str, norm: str) -> None:
    assert normalize_key(key) == norm


@pytest.mark.parametrize("key", ["", "Hyper+a", "Control+", "NotAKey", "a" * 100, None])
def test_normalize_key_rejects(key: object) -> None:
    with pytest.raises(InvalidArgumentError):
        normalize_key(key)
