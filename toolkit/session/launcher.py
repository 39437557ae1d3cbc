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


# Playwright passes its own --disable-features list; Chromium keeps only the last one given, so
# ours repeats Playwright's (what it needs to drive pages) and adds the services that phone home.
_PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
)
QUIET_DISABLED_FEATURES = (
    # autofill: no form signatures sent to content-autofill.googleapis.com
    "AutofillServerCommunication", "AutofillCrowdsourcing", "AutofillUpstream",
    # model and hint downloads (optimization guide), translation, suggestions
    "OptimizationGuideModelDownloading", "OptimizationHintsFetching",
    "OptimizationTargetPrediction", "Translate", "InterestFeedContentSuggestions",
    "DialMediaRouteProvider", "GlobalMediaControls",
    # component updates (certificate transparency lists and the like)
    "CertificateTransparencyComponentUpdater",
    # sign-in and account checks against accounts.google.com
    "ChromeSignin", "SigninInterception", "AccountConsistency",
    # safe browsing pings, lookups and reporting
    "SafeBrowsingEnhancedProtection", "SafeBrowsingRealTimeUrlLookup", "ClientSideDetection",
    # speculative connections and the privacy sandbox's own fetches
    "PrivacySandboxSettings4", "Prerender2", "PreloadingHeuristicsMLModel",
)
"""Chromium features turned off so the browser sends nothing the pages did not ask for."""

QUIET_SWITCHES = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-client-side-phishing-detection",
    "--safebrowsing-disable-auto-update",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--no-pings",
    "--no-service-autorun",
    "--disable-default-apps",
    "--disable-field-trial-config",
    "--disable-search-engine-choice-screen",
    "--variations-server-url=http://127.0.0.1:9/",
    "--autofill-server-url=http://127.0.0.1:9/",
    "--google-base-url=http://127.0.0.1:9/",
    "--gaia-url=http://127.0.0.1:9/",
    "--lso-url=http://127.0.0.1:9/",
    "--google-apis-url=http://127.0.0.1:9/",
    "--component-updater=url-source=http://127.0.0.1:9/",
)
"""Switches for a browser that stays quiet: no updates, variations, metrics, sign-in, safe
browsing or autofill server traffic. The service URLs point at a closed local port, so a
service that still tries reaches nothing."""


def chromium_args(extra: tuple[str, ...] = ()) -> list[str]:
    """Flags for a quiet, isolated agent browser (``--no-sandbox`` only as root).

    A ``--disable-features=`` in ``extra`` is merged into ours (Chromium reads only one).
    """
    disabled = [*_PLAYWRIGHT_DISABLED_FEATURES, *QUIET_DISABLED_FEATURES]
    rest: list[str] = []
    for arg in extra:
        if arg.startswith("--disable-features="):
            disabled.extend(f for f in arg.split("=", 1)[1].split(",") if f)
        else:
            rest.append(arg)
    args = [
        *QUIET_SWITCHES,
        "--disable-features=" + ",".join(dict.fromkeys(disabled)),
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-quic",
    ]
    if _is_root():
        args.append("--no-sandbox")
    args.extend(a for a in rest if a not in args)
    return args
