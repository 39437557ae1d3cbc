"""Finding a Chromium to launch, and the flags to launch it with. Pure logic, no browser."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BrowserNotFoundError

__all__ = ["BrowserOptions", "chromium_args", "find_chromium"]

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_USUAL_PLACES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)

INSTALL_HINT = (
    "Install one: on Debian/Ubuntu 'apt-get update && apt-get install -y chromium'; "
    "elsewhere 'python -m playwright install chromium'; or pass executable_path=... "
    "pointing at a Chrome or Chromium binary."
)


@dataclass(frozen=True)
class BrowserOptions:
    """How :meth:`Browser.launch` starts Chromium."""

    headless: bool = True
    """Run without a window."""
    executable_path: str | None = None
    """Browser binary to use; found automatically when ``None``."""
    user_data_dir: str | None = None
    """Persistent profile folder; a fresh temporary profile (removed on close) when ``None``."""
    viewport: tuple[int, int] = (1280, 720)
    """Page viewport (width, height) in CSS pixels."""
    args: tuple[str, ...] = ()
    """Extra command-line flags for Chromium."""
    downloads_dir: str | None = None
    """Folder for downloads. ``None`` turns downloads off."""
    timeout_ms: int = 30_000
    """Upper bound for launching and for navigation."""
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment variables for the browser process."""


def _playwright_chromium() -> str | None:
    """Playwright's own downloaded Chromium, when one is installed."""
    try:
        from playwright._impl._driver import compute_driver_executable  # noqa: F401
    except ImportError:  # pragma: no cover - playwright is a core dependency
        return None
    root = Path(
        os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright"
    )
    if not root.is_dir():
        return None
    candidates = sorted(root.glob("chromium-*/chrome-linux*/chrome"), reverse=True)
    candidates += sorted(root.glob("chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/*"))
    candidates += sorted(root.glob("chromium-*/chrome-win*/chrome.exe"))
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return None


def find_chromium(executable_path: str | None = None) -> str:
    """Return the browser binary to launch, or raise :class:`BrowserNotFoundError`.

    Order: an explicit path; Playwright's own Chromium; a system Chromium or Chrome on ``PATH``
    or in the usual install locations.
    """
    if executable_path:
        if Path(executable_path).is_file() and os.access(executable_path, os.X_OK):
            return executable_path
        raise BrowserNotFoundError(
            f"executable_path {executable_path!r} is not an executable file.", hint=INSTALL_HINT
        )
    own = _playwright_chromium()
    if own:
        return own
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    for place in _USUAL_PLACES:
        if Path(place).is_file() and os.access(place, os.X_OK):
            return place
    raise BrowserNotFoundError("No Chromium or Chrome browser was found.", hint=INSTALL_HINT)


def _is_root() -> bool:
    return sys.platform != "win32" and hasattr(os, "geteuid") and os.geteuid() == 0


def chromium_args(extra: tuple[str, ...] = ()) -> list[str]:
    """Flags for a quiet, isolated agent browser (``--no-sandbox`` only as root)."""
    args = [
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-quic",
    ]
    if _is_root():
        args.append("--no-sandbox")
    args.extend(a for a in extra if a not in args)
    return args
