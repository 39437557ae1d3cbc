"""What an eval run produces: ``results.json``, schema version 1.

```
{
  "schema": 1,
  "suite": {"name", "path", "content_hash", "tasks"},
  "run": {"webrefs", "git_commit", "playwright", "browser", "python", "started", "finished",
          "options": {...}, "seed", "shard", "pages": "live" | "replay" | "record"},
  "providers": {NAME: {"label", "baseline", "human", "settings", "tasks", "succeeded", "failed",
                       "invalid", "errors", "success_rate", "ci95": [lo, hi],
                       "tokens_per_success", "observation_tokens_per_success",
                       "cost_per_success", "median_steps", "tool_errors": {kind: n}}},
  "episodes": [Episode, ...]
}
```

``success_rate`` and ``ci95`` (a 95% Wilson interval) count only valid episodes: an
*invalid* episode (it left the recorded pages, or its reference could not run) and an
*error* (the provider failed: rate limit, timeout, crash) say nothing about the model and are
reported apart. Tokens are ``null`` when the provider does not report usage; they are never
guessed. Pure code: no browser.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from webrefs.errors import InvalidArgumentError

from ..suite.checks import CheckResult
from ..suite.inputs import MAX_RESULTS_BYTES, problems, read_json
from ..suite.redact import redact_urls

__all__ = [
    "RESULTS_SCHEMA",
    "Episode",
    "ProviderSummary",
    "Results",
    "RunInfo",
    "Status",
    "SuiteInfo",
    "ToolCall",
    "load_results",
    "merge_results",
    "summarize",
    "wilson",
]

RESULTS_SCHEMA = 1

Status = Literal["success", "failure", "invalid", "error"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(_Model):
    """One step of a trajectory: what the model called and the text it was shown back."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    output: str = ""
    """The tool message the model saw (capped at 20,000 characters)."""
    error: str | None = None
    """The error code when the call failed (``stale_ref``, ``blocked``, ...)."""
    tokens: int = 0
    """Tokens of ``output`` (o200k_base)."""
    safety: str | None = None
    """The safety policy's decision on the action when it was not ``auto``: ``level:outcome``
    (``notify:allowed``, ``confirm:approved``; the harness approves every action)."""


class Episode(_Model):
    """One task run by one provider."""

    task: str
    provider: str
    status: Status
    goal: str = ""
    """The goal the agent was given: for a task whose setup reads it from the page (a seeded
    benchmark's utterance), that one."""
    reason: str = ""
    """Why it failed, was invalid or errored (empty on success)."""
    steps: int = 0
    """Tool calls made."""
    answer: str = ""
    checks: list[CheckResult] = Field(default_factory=list)
    tool_errors: dict[str, int] = Field(default_factory=dict)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    """From the user's price table and the provider's reported usage; never guessed."""
    observation_tokens: int = 0
    """Tokens of everything the tools returned (snapshots, diffs, text, errors)."""
    system_prompt_tokens: int = 0
    wall_s: float = 0.0
    final_url: str = ""
    trajectory: list[ToolCall] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return (self.provider, self.task)


class ProviderSummary(_Model):
    label: str = ""
    """How the provider is shown (e.g. "model-free baseline: the reference solutions")."""
    baseline: bool = False
    """A model-free baseline, not an LLM."""
    human: bool = False
    """A human baseline: a person typed each action (the ``human`` provider)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    tasks: int = 0
    succeeded: int = 0
    failed: int = 0
    invalid: int = 0
    errors: int = 0
    success_rate: float | None = None
    ci95: tuple[float, float] | None = None
    tokens_per_success: float | None = None
    observation_tokens_per_success: float | None = None
    cost_per_success: float | None = None
    """US dollars per successful task (blank unless every success has a cost)."""
    median_steps: float | None = None
    tool_errors: dict[str, int] = Field(default_factory=dict)


class SuiteInfo(_Model):
    name: str
    path: str = ""
    content_hash: str = ""
    tasks: int = 0


class RunInfo(_Model):
    webrefs: str = ""
    git_commit: str | None = None
    playwright: str = ""
    browser: str = ""
    python: str = ""
    started: str = ""
    finished: str = ""
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    shard: str | None = None
    pages: Literal["live", "replay", "record"] = "live"
    model_calls: Literal["live", "replay", "record"] = "live"
    """Whether LLM providers' calls went to the network, were recorded, or were replayed."""
    interrupted: bool = False


class Results(_Model):
    schema_version: int = Field(RESULTS_SCHEMA, alias="schema")
    suite: SuiteInfo
    run: RunInfo = Field(default_factory=RunInfo)
    providers: dict[str, ProviderSummary] = Field(default_factory=dict)
    episodes: list[Episode] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def to_json(self) -> str:
        """The results file's text; every URL in it without credentials
        (:func:`~webrefs.evals.suite.redact.redact_urls`)."""
        return redact_urls(json.dumps(self.model_dump(mode="json", by_alias=True), indent=1,
                                      ensure_ascii=False)) + "\n"

    def redacted(self) -> Results:
        """These results as their file holds them: every URL without credentials."""
        return Results.model_validate(json.loads(self.to_json()))

    def write(self, path: Path) -> None:
        """Write atomically (a crash never leaves half a file). A lone surrogate (a page's, or
        a ``\\ud800`` escape in a results file read back) is written as ``?``, so one
        character never costs the whole file."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8", errors="replace")
        tmp.replace(path)


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (95% by default); ``None`` when ``n`` is 0."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, round(centre - half, 4)), min(1.0, round(centre + half, 4)))


def summarize(episodes: Iterable[Episode], *, label: str = "", baseline: bool = False,
              settings: dict[str, Any] | None = None, human: bool = False) -> ProviderSummary:
    """The summary of one provider's episodes."""
    eps = list(episodes)
    counts = Counter(e.status for e in eps)
    valid = counts["success"] + counts["failure"]
    wins = [e for e in eps if e.status == "success"]
    tokens = [(e.prompt_tokens or 0) + (e.completion_tokens or 0) for e in wins
              if e.prompt_tokens is not None]
    tool_errors: Counter[str] = Counter()
    for e in eps:
        tool_errors.update(e.tool_errors)
    return ProviderSummary(
        label=label,
        baseline=baseline,
        human=human,
        settings=settings or {},
        tasks=len(eps),
        succeeded=counts["success"],
        failed=counts["failure"],
        invalid=counts["invalid"],
        errors=counts["error"],
        success_rate=round(counts["success"] / valid, 4) if valid else None,
        ci95=wilson(counts["success"], valid),
        tokens_per_success=(round(sum(tokens) / len(tokens), 1)
                            if wins and len(tokens) == len(wins) else None),
        observation_tokens_per_success=(
            round(sum(e.observation_tokens for e in wins) / len(wins), 1) if wins else None),
        cost_per_success=(round(sum(e.cost_usd or 0 for e in wins) / len(wins), 6)
                          if wins and all(e.cost_usd is not None for e in wins) else None),
        median_steps=statistics.median(e.steps for e in eps) if eps else None,
        tool_errors=dict(sorted(tool_errors.items())),
    )


def load_results(path: str | Path) -> Results:
    """A ``results.json`` (or the folder holding one). Whatever is wrong with the file (not
    there, too big, not JSON, nested too deep, not following this schema) is one
    :class:`InvalidArgumentError` naming the file and the first problem."""
    p = Path(path)
    if p.is_dir():
        p = p / "results.json"
    if not p.is_file():
        raise InvalidArgumentError(f"Cannot read results from {p}: there is no such file.")
    raw = read_json(p, "Results file", max_bytes=MAX_RESULTS_BYTES)
    if not isinstance(raw, dict) or raw.get("schema") != RESULTS_SCHEMA or isinstance(
            raw.get("schema"), bool):
        raise InvalidArgumentError(
            f"{p} is not a webrefs results file of schema {RESULTS_SCHEMA}.")
    try:
        return Results.model_validate(raw)
    except ValidationError as exc:
        raise InvalidArgumentError(
            f"{p} is not a valid webrefs results file: {problems(exc)}.",
            hint="Was it changed by hand, or written by another version of webrefs?") from None


def resummarize(results: Results) -> Results:
    """Recompute every provider's summary from the episodes (keeping labels and settings)."""
    by_provider: dict[str, list[Episode]] = {}
    for e in results.episodes:
        by_provider.setdefault(e.provider, []).append(e)
    providers = {}
    for name, eps in by_provider.items():
        old = results.providers.get(name, ProviderSummary())
        providers[name] = summarize(eps, label=old.label, baseline=old.baseline, human=old.human,
                                    settings=old.settings)
    for name, old in results.providers.items():
        providers.setdefault(name, summarize([], label=old.label, baseline=old.baseline,
                                             human=old.human, settings=old.settings))
    return results.model_copy(update={"providers": providers})


def merge_results(parts: Sequence[Results]) -> Results:
    """Join the results of the shards of one run (same suite), summaries recomputed."""
    if not parts:
        raise InvalidArgumentError("Nothing to merge.")
    first = parts[0]
    for other in parts[1:]:
        if other.suite.content_hash != first.suite.content_hash:
            raise InvalidArgumentError(
                f"Cannot merge runs of different suites ({first.suite.name} "
                f"{first.suite.content_hash[:12]} vs {other.suite.name} "
                f"{other.suite.content_hash[:12]}).")
    seen: dict[tuple[str, str], Episode] = {}
    for part in parts:
        for e in part.episodes:
            seen[e.key] = e
    providers: dict[str, ProviderSummary] = {}
    for part in parts:
        providers.update(part.providers)
    run = first.run.model_copy(update={
        "shard": None,
        "started": min(p.run.started for p in parts),
        "finished": max(p.run.finished for p in parts),
        "interrupted": any(p.run.interrupted for p in parts),
    })
    merged = Results(suite=first.suite, run=run, providers=providers,
                     episodes=sorted(seen.values(), key=lambda e: (e.provider, e.task)))
    return resummarize(merged)
