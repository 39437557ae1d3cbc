"""Finding a browser and the flags it runs with (no browser started)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from webrefs.errors import BrowserNotFoundError
from webrefs.session import launcher

from tests.session.test_discovery import playwright_says


def test_explicit_path_must_be_executable(tmp_path: Path) -> None:
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\n")
    with pytest.raises(BrowserNotFoundError, match="not an executable"):
        launcher.find_chromium(str(fake))
    fake.chmod(0o755)
    assert launcher.find_chromium(str(fake)) == str(fake)


def test_playwright_browser_wins_over_system(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    own = Path(playwright_says())  # where this Playwright keeps the Chromium it drives
    assert own.is_relative_to(tmp_path)
    own.parent.mkdir(parents=True)
    own.write_text("")
    own.chmod(0o755)
    assert launcher.find_chromium() == str(own)


def test_system_browser_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    binary = tmp_path / "bin" / "chromium-browser"
    binary.parent.mkdir()
    binary.write_text("")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", str(binary.parent))
    monkeypatch.setattr(launcher, "_USUAL_PLACES", ())
    assert launcher.find_chromium() == str(binary)


def test_no_browser_names_the_remedy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(launcher, "_USUAL_PLACES", ())
    with pytest.raises(BrowserNotFoundError) as info:
        launcher.find_chromium()
    assert "apt-get install -y chromium" in str(info.value)
    assert "playwright install chromium" in str(info.value)


def test_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launcher, "_is_root", lambda: True)
    args = launcher.chromium_args(("--lang=de", "--no-first-run"))
    for flag in ("--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--no-sandbox", "--lang=de"):
        assert flag in args
    assert args.count("--no-first-run") == 1
    monkeypatch.setattr(launcher, "_is_root", lambda: False)
    assert "--no-sandbox" not in launcher.chromium_args()


def test_is_root_matches_the_process() -> None:
    assert launcher._is_root() == (os.geteuid() == 0)


def test_options_are_frozen() -> None:
    opts = launcher.BrowserOptions()
    with pytest.raises(AttributeError):
        opts.headless = False  # type: ignore[misc]
