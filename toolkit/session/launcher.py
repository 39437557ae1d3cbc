"""Finding a Chromium to launch, and the flags to launch it with. No browser is started:
Playwright's own Chromium is found through its public API (``chromium.executable_path``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import BrowserNotFoundError, InvalidArgumentError

__all__ = ["BrowserOptions", "bundled_chromium", "chromium_args", "find_chromium",
           "proxy_settings"]

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
    proxy: str | dict[str, str] | None = None
    """Send all traffic through this proxy: a URL (``http://user:pass@proxy:3128``,
    ``socks5://proxy:1080``) or Playwright's form (``{"server", "username", "password",
    "bypass"}``)."""
    user_agent: str | None = None
    """The ``User-Agent`` pages see (header and ``navigator.userAgent``)."""
    locale: str | None = None
    """Browser locale such as ``de-DE`` (``navigator.language``, ``Accept-Language``)."""
    timezone_id: str | None = None
    """IANA time zone such as ``Europe/Berlin`` for the pages' clocks."""
    device: str | None = None
    """Emulate a device by its name in Playwright's device descriptors (``"iPhone 13"``,
    ``"Pixel 7"``): its viewport, user agent, scale factor and touch. ``user_agent`` (and the
    other options here) still override."""
    extra_http_headers: dict[str, str] | None = None
    """Headers sent with every request of the context."""
    geolocation: tuple[float, float] | None = None
    """``(latitude, longitude)`` pages get from ``navigator.geolocation`` (grant the
    ``"geolocation"`` permission to let them read it)."""
    permissions: tuple[str, ...] = ()
    """Permissions granted to every origin (``"geolocation"``, ``"notifications"``, ...)."""
    storage_state: str | None = None
    """A file written by :meth:`Browser.save_storage_state` (cookies and local storage) to
    start from: log in once, reuse the session. Not with ``user_data_dir`` (a profile keeps
    its own state)."""


def proxy_settings(proxy: str | dict[str, str] | None) -> dict[str, str] | None:
    """Playwright's proxy settings for a proxy URL (credentials taken out of the URL) or a
    settings dict."""
    if proxy is None:
        return None
    if isinstance(proxy, dict):
        if not proxy.get("server"):
            raise InvalidArgumentError("proxy needs a 'server', e.g. 'http://proxy:3128'.")
        return {str(k): str(v) for k, v in proxy.items()}
    if not isinstance(proxy, str) or not proxy.strip():
        raise InvalidArgumentError("proxy must be a URL such as 'http://proxy:3128' or a dict.")
    parts = urlsplit(proxy.strip() if "://" in proxy else "http://" + proxy.strip())
    if not parts.hostname:
        raise InvalidArgumentError(f"proxy {proxy[:100]!r} names no host.")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    server = f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")
    out = {"server": server}
    if parts.username:
        out["username"] = unquote(parts.username)
        out["password"] = unquote(parts.password or "")
    return out


def _usable(path: str | None) -> str | None:
    return path if path and Path(path).is_file() and os.access(path, os.X_OK) else None


def bundled_chromium(playwright: Any) -> str | None:
    """The Chromium that this Playwright installs and drives (``python -m playwright install
    chromium``), read from a started Playwright's public ``chromium.executable_path``;
    ``None`` when it is not installed. Works with sync and async Playwright objects."""
    try:
        path = playwright.chromium.executable_path
    except Exception:  # an unknown platform: Playwright cannot name a path
        return None
    return _usable(path if isinstance(path, str) else None)


def _ask_playwright() -> str | None:
    from playwright.sync_api import Error, sync_playwright

    try:
        with sync_playwright() as playwright:
            return bundled_chromium(playwright)
    except Error:  # the driver did not start: no bundled browser can be used either
        return None


def _playwright_chromium() -> str | None:
    """Playwright's own Chromium, when one is installed (asks a short-lived Playwright; the
    sync API cannot run on a thread with a running event loop, so it then runs on another)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _ask_playwright()
    with ThreadPoolExecutor(1, thread_name_prefix="webrefs-find") as pool:
        return pool.submit(_ask_playwright).result()


_ASK = object()


def find_chromium(executable_path: str | None = None, *, bundled: Any = _ASK) -> str:
    """Return the browser binary to launch, or raise :class:`BrowserNotFoundError`.

    Order: an explicit path; Playwright's own Chromium (``bundled``, when the caller has
    already asked a started Playwright with :func:`bundled_chromium`; else Playwright is
    asked); a system Chromium or Chrome on ``PATH`` or in the usual install locations.
    """
    if executable_path:
        if _usable(executable_path):
            return executable_path
        raise BrowserNotFoundError(
            f"executable_path {executable_path!r} is not an executable file.", hint=INSTALL_HINT
        )
    own = _playwright_chromium() if bundled is _ASK else _usable(bundled)
    if own:
        return own
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    for place in _USUAL_PLACES:
        if _usable(place):
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

UNSEEN_UI_DISABLED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup",
                               "WebUIOmniboxFullPopup")
"""Chromium features turned off because an agent's browser never shows them. In recent
versions (156, for one) each tab loads its address bar's suggestion popup as two web pages of
their own (``chrome://omnibox-popup.top-chrome/``), headless too; they cost as much CPU as
the tab's own page. With them off, a browser with a window draws the popup with its own views."""

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
    disabled = [*_PLAYWRIGHT_DISABLED_FEATURES, *QUIET_DISABLED_FEATURES,
                *UNSEEN_UI_DISABLED_FEATURES]
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
