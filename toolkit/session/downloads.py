"""Downloads a page starts: saved under a sanitized, unique name in the browser's downloads
folder, or cancelled when downloads are off. Runs on the Browser's loop; never raises (the
outcome is written into the entry the tab keeps, for actions to report)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Download
from playwright.async_api import Error as PlaywrightError

__all__ = ["sanitize_filename", "save_download", "unique_path"]


_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]+")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
             *(f"lpt{i}" for i in range(1, 10))}


def sanitize_filename(name: str, *, max_len: int = 120) -> str:
    """A file name safe on every OS: no folders, no control or reserved characters, no
    leading dots, not empty, not a reserved device name, at most ``max_len`` characters."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).strip().strip(".").strip()
    if not base:
        base = "download"
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    if stem.lower() in _RESERVED:
        stem = "_" + stem
    ext = ext[:16]
    room = max_len - (len(ext) + 1 if ext else 0)
    stem = stem[: max(room, 1)]
    return f"{stem}.{ext}" if ext else stem



def unique_path(folder: Path, name: str) -> Path:
    """``folder/name``, or ``folder/name (2).ext`` and so on when that exists."""
    candidate = folder / name
    stem, suffix = candidate.stem, candidate.suffix
    n = 2
    while candidate.exists():
        candidate = folder / f"{stem} ({n}){suffix}"
        n += 1
    return candidate


async def save_download(download: Download, folder: str | None, entry: dict[str, Any]) -> None:
    """Save ``download`` into ``folder`` under a sanitized unique name, or cancel it when
    downloads are off (no folder); record the outcome in ``entry`` (``saved``, ``error``)."""
    if not folder:
        with contextlib.suppress(PlaywrightError):
            await download.cancel()
        entry["error"] = "downloads are off (no downloads_dir configured)"
        return
    target = Path(folder).expanduser().resolve()
    try:
        target.mkdir(parents=True, exist_ok=True)
        path = unique_path(target, sanitize_filename(download.suggested_filename))
        await asyncio.wait_for(download.save_as(path), 120)
        entry["saved"] = str(path)
    except (PlaywrightError, OSError, TimeoutError) as exc:
        entry["error"] = (str(exc).splitlines() or ["failed"])[0][:200]
