"""Recorded model calls (vcrpy cassettes): record a provider's HTTP traffic once, replay it
offline to the same score.

One cassette per task and provider (``cassettes/<provider>/<task>.yaml``, beside the run's
recorded pages). Requests match on method, path and body, so a replay is exact: the prompt
must be byte-identical, which fixed origins and seeded pages make it. A request with no
recording raises :class:`ReplayMiss`, which says which request differed and how; the episode
is then *invalid*, not a model failure.

Credentials never reach a cassette: ``Authorization``, ``x-api-key``, ``api-key``, cookies,
the URL's user-info and key-like query values are scrubbed when a request is recorded, and
``Set-Cookie`` when a response is. Cassettes are read as plain data (:mod:`.safeyaml`).

Model calls of a process are serialized while a cassette is in use (vcrpy patches the HTTP
clients process-wide); browser work of parallel episodes still overlaps.

The fence marker around page content is derived from the run's seed and a secret made for the
run (never from the seed alone, which a page could know). A recording keeps that secret in
``fence.key`` at the top of each folder it writes (``pages/``, ``cassettes/``), and a replay
reads it back, so the prompts it sends are the recorded ones byte for byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
import re
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from webrefs.errors import InvalidArgumentError, WebrefsError, missing_extra

from ..suite.redact import redact_url, redact_urls
from .safeyaml import CassetteYaml

__all__ = [
    "FENCE_KEY_FILE",
    "SECRET_HEADERS",
    "CassetteMode",
    "ReplayMiss",
    "cassette",
    "cassette_path",
    "divergence",
    "model_io_lock",
    "provider_slug",
    "read_fence_key",
    "scrub_request",
    "write_fence_key",
]

CassetteMode = Literal["record", "replay"]

SECRET_HEADERS = ("authorization", "x-api-key", "api-key", "cookie", "proxy-authorization",
                  "x-goog-api-key", "openai-organization", "openai-project")
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")

_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary())


class ReplayMiss(WebrefsError):
    """A model request has no recording in the cassette: the replay cannot go on."""

    code = "replay_miss"


def provider_slug(name: str) -> str:
    """A folder name for a provider (``openai:gpt-4.1-mini`` -> ``openai_gpt-4.1-mini``)."""
    return _SLUG.sub("_", name).strip("_") or "provider"


def cassette_path(folder: Path, provider: str, task: str) -> Path:
    return folder / provider_slug(provider) / f"{task}.yaml"


FENCE_KEY_FILE = "fence.key"
"""The file, at the top of a recording's folder, that keeps the run's fence key."""
_KEY = re.compile(r"[0-9a-f]{16,128}")


def read_fence_key(folder: Path) -> str | None:
    """The fence key a recording in ``folder`` kept, or ``None`` when it kept none. A file
    that is not a key raises :class:`InvalidArgumentError`."""
    path = folder / FENCE_KEY_FILE
    if not path.is_file():
        return None
    try:
        key = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidArgumentError(f"{path} cannot be read: {exc}") from None
    if not _KEY.fullmatch(key):
        raise InvalidArgumentError(f"{path} does not hold a fence key.",
                                   hint="Record the run again.")
    return key


def write_fence_key(folder: Path, key: str) -> None:
    """Keep ``key`` in ``folder`` (created when needed) for the replays of its recording."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FENCE_KEY_FILE).write_text(key + "\n", encoding="utf-8")


def model_io_lock() -> asyncio.Lock:
    """The lock that serializes model calls while cassettes patch the HTTP clients: one per
    event loop (a lock waited on is bound to its loop, and each run may have its own)."""
    loop = asyncio.get_running_loop()
    lock = _LOCKS.get(loop)
    if lock is None:
        lock = _LOCKS[loop] = asyncio.Lock()
    return lock


def scrub_request(request: Any) -> Any:
    """Drop credentials from a request before it is written to a cassette: secret headers,
    the URL's user-info and key-like query values
    (:func:`~webrefs.evals.suite.redact.redact_url`)."""
    for name in list(request.headers):
        if name.lower() in SECRET_HEADERS:
            del request.headers[name]
    request.uri = redact_url(request.uri)
    return request


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers", {})
    for name in list(headers):
        if name.lower() in ("set-cookie", "openai-organization", "openai-project"):
            del headers[name]
    return response


DIFF_CHARS = 700
"""Budget of the observation diff a replay miss shows (its message is capped at 1000)."""
DIFF_LINES = 24


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p)
                         for p in content)
    return "" if content is None else str(content)


def recorded_observations(path: Path) -> list[list[str]]:
    """What each recorded model request showed the model, in order: the text of its
    system, user and tool messages (the model's own turns are the recording's answers).
    A cassette that cannot be read gives ``[]``."""
    try:
        data = CassetteYaml.deserialize(path.read_text(encoding="utf-8"))
    except Exception:  # unreadable: the miss is told without a diff
        return []
    out: list[list[str]] = []
    for item in (data or {}).get("interactions", []) if isinstance(data, dict) else []:
        body = (item.get("request") or {}).get("body") if isinstance(item, dict) else None
        if isinstance(body, bytes):
            body = body.decode("utf-8", "replace")
        try:
            sent = json.loads(body) if isinstance(body, str) else None
        except ValueError:
            sent = None
        messages = sent.get("messages") if isinstance(sent, dict) else None
        if not isinstance(messages, list):
            continue
        out.append([_text(m.get("content")) for m in messages
                    if isinstance(m, dict) and m.get("role") in ("system", "user", "tool")])
    return out


def divergence(path: Path, turn: int, shown: list[str]) -> str | None:
    """Where a replay left its recording: ``turn`` is the model request that missed (1 for
    the first), ``shown`` the texts of its system, user and tool messages. Names the step
    whose observation first differs from the recorded request of that turn and gives the
    differing lines as a unified diff, budgeted and with credentials out of every URL;
    ``None`` when the recording has no request to compare with."""
    recorded = recorded_observations(path)
    if not recorded:
        return None
    before = recorded[min(turn, len(recorded)) - 1]
    first = next((i for i, (a, b) in enumerate(zip(before, shown, strict=False)) if a != b),
                 min(len(before), len(shown)))
    if first >= len(before) and first >= len(shown):
        return None
    old = before[first] if first < len(before) else ""
    new = shown[first] if first < len(shown) else ""
    # messages are the system prompt, the goal, then one tool result per step
    where = ("the system prompt" if first == 0 else "the goal" if first == 1
             else f"the result of step {first - 1}")
    lines = [line for line in difflib.unified_diff(
        old.splitlines(), new.splitlines(), "recorded", "replayed", n=0, lineterm="")]
    diff = "\n".join(lines[:DIFF_LINES])
    if len(diff) > DIFF_CHARS:
        diff = diff[:DIFF_CHARS] + "\n..."
    elif len(lines) > DIFF_LINES:
        diff += f"\n... ({len(lines) - DIFF_LINES} more lines)"
    return redact_urls(f"The replay diverged at model request {turn}: {where} differs from "
                       f"the recording.\n{diff}")


def _vcr() -> Any:
    try:
        import vcr
    except ImportError as exc:
        raise missing_extra("webrefs.evals.models.recording", "evals") from exc
    return vcr


@contextlib.contextmanager
def cassette(path: Path, mode: CassetteMode) -> Iterator[None]:
    """Record into, or replay from, the cassette at ``path`` for the calls made inside."""
    vcr = _vcr()
    from vcr.errors import CannotOverwriteExistingCassetteException

    recorder = vcr.VCR(
        record_mode="new_episodes" if mode == "record" else "none",
        match_on=["method", "path", "body"],
        before_record_request=scrub_request,
        before_record_response=_scrub_response,
        decode_compressed_response=True,
        filter_headers=list(SECRET_HEADERS),
        serializer="webrefs-yaml",
    )
    recorder.register_serializer("webrefs-yaml", CassetteYaml)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with recorder.use_cassette(str(path)):
            yield
    except CannotOverwriteExistingCassetteException as exc:
        detail = redact_urls(" ".join(str(exc).split()))
        raise ReplayMiss(
            f"A model request has no recording in {path.name}: {detail[:600]}",
            hint="The prompt changed since the recording (another webrefs version, options, "
                 "or pages); record this provider again.",
        ) from None
