"""Finding Playwright's own Chromium through Playwright's public API only."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from playwright.async_api import async_playwright
from playwright.sync_api import sync_playwright
from webrefs.session import launcher

from tests.helpers.parsing import parse_source


def playwright_says() -> str:
    """The Chromium path the installed Playwright reports (public API), for the current env."""
    with sync_playwright() as playwright:
        path: str = playwright.chromium.executable_path
    return path


def _install(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    path.chmod(0o755)
    return path


def test_launcher_uses_no_private_playwright_module() -> None:
    tree = parse_source(inspect.getsource(launcher))
    imported = [
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    ] + [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
         for alias in node.names]
    assert not [m for m in imported if "_impl" in m], imported
    assert "_impl" not in inspect.getsource(launcher)


def test_only_the_revision_playwright_drives_is_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    system = _install(tmp_path / "bin" / "chromium")
    monkeypatch.setenv("PATH", str(system.parent))
    monkeypatch.setattr(launcher, "_USUAL_PLACES", ())
    # another Playwright version's download: not the browser this Playwright can drive
    _install(tmp_path / "chromium-1" / "chrome-linux64" / "chrome")
    _install(tmp_path / "chromium-1" / "chrome-linux" / "chrome")
    assert launcher.find_chromium() == str(system)
    own = _install(Path(playwright_says()))
    assert launcher.find_chromium() == str(own)


async def test_discovery_works_inside_a_running_loop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    async with async_playwright() as playwright:
        assert launcher.bundled_chromium(playwright) is None  # not installed yet
        own = _install(Path(playwright.chromium.executable_path))
        assert launcher.bundled_chromium(playwright) == str(own)
        assert launcher.find_chromium() == str(own)  # the sync API runs off this loop's thread
        assert launcher.find_chromium(bundled=launcher.bundled_chromium(playwright)) == str(own)


def test_a_bundled_path_that_is_not_installed_falls_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    system = _install(tmp_path / "bin" / "google-chrome")
    monkeypatch.setenv("PATH", str(system.parent))
    monkeypatch.setattr(launcher, "_USUAL_PLACES", ())
    assert launcher.find_chromium(bundled=str(tmp_path / "missing" / "chrome")) == str(system)
    assert launcher.find_chromium(bundled=None) == str(system)
