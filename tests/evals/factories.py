"""Build :class:`Results` in code for the report and comparison tests.

``results_of`` takes episodes and provider descriptions and computes the summaries the way
the harness does (``summarize``), so the tests check the presentation, not hand-typed sums.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from webrefs.evals.reports.results import (
    Episode,
    Results,
    RunInfo,
    Status,
    SuiteInfo,
    ToolCall,
    summarize,
)
from webrefs.evals.suite.checks import CheckResult

SCRIPT_BREAK = "</script><script>window.__pwned = 1; alert(1)</script>"
IMG_ONERROR = '<img src=x onerror="window.__pwned = 2; alert(2)">'
HOSTILE = f"{SCRIPT_BREAK} {IMG_ONERROR} \u2028 <!-- & [link](javascript:alert(3)) | **x**"


def call(tool: str, output: str = "ok", *, error: str | None = None, tokens: int = 10,
         **args: Any) -> ToolCall:
    return ToolCall(tool=tool, args=args, output=output, error=error, tokens=tokens)


def episode(task: str, provider: str, status: Status = "success", *,
            steps: int | None = None, prompt: int | None = 1000, completion: int | None = 100,
            observation: int = 500, reason: str = "", answer: str = "",
            checks: Iterable[CheckResult] = (), trajectory: Iterable[ToolCall] | None = None,
            tool_errors: Mapping[str, int] | None = None, wall_s: float = 1.5) -> Episode:
    calls = list(trajectory) if trajectory is not None else [
        call("web_snapshot", "- heading \"Home\" [h1]"),
        call("web_click", "Clicked.", target="e3"),
    ]
    return Episode(
        task=task, provider=provider, status=status, reason=reason,
        steps=len(calls) if steps is None else steps, answer=answer, checks=list(checks),
        tool_errors=dict(tool_errors or {}), prompt_tokens=prompt,
        completion_tokens=completion, observation_tokens=observation, wall_s=wall_s,
        final_url="http://127.0.0.1/done", trajectory=calls,
    )


def results_of(episodes: Iterable[Episode], *, labels: Mapping[str, str] | None = None,
               baselines: Iterable[str] = (), suite: str = "demo",
               content_hash: str = "c0ffee" * 8, options: Mapping[str, Any] | None = None,
               pages: Literal["live", "replay", "record"] = "replay",
               settings: Mapping[str, Mapping[str, Any]] | None = None) -> Results:
    """A run of ``episodes`` with summaries computed from them."""
    eps = list(episodes)
    labels = labels or {}
    base = set(baselines)
    settings = settings or {}
    providers = {}
    for name in dict.fromkeys(e.provider for e in eps):
        providers[name] = summarize(
            [e for e in eps if e.provider == name], label=labels.get(name, ""),
            baseline=name in base, settings=dict(settings.get(name, {})))
    return Results(
        suite=SuiteInfo(name=suite, path="suites/demo.json", content_hash=content_hash,
                        tasks=len({e.task for e in eps})),
        run=RunInfo(webrefs="0.1.0", git_commit="1234567890abcdef1234", playwright="1.49.0",
                    browser="chromium 131.0", python="3.11.7",
                    started="2025-01-02T10:00:00+00:00", finished="2025-01-02T10:03:07+00:00",
                    options=dict(options or {"max_tokens": 4000}), seed=7,
                    pages=pages),
        providers=providers,
        episodes=eps,
    )


def sample() -> Results:
    """Three providers over four tasks: a model with tokens, a model without usage, and the
    reference baseline; one failure with failed checks, one invalid, one error."""
    eps = [
        episode("search", "gpt", answer="1887"),
        episode("login", "gpt", "failure", reason="the answer was wrong", answer="1999",
                checks=[CheckResult(type="answer", ok=False,
                                    why="the answer '1999' does not contain '1887'"),
                        CheckResult(type="url", ok=True)],
                tool_errors={"stale_ref": 2}),
        episode("cart", "gpt", prompt=3000, completion=200),
        episode("form", "gpt", "invalid", reason="left the recorded pages"),
        episode("search", "local", prompt=None, completion=None),
        episode("login", "local", prompt=None, completion=None),
        episode("cart", "local", "error", reason="rate limited", prompt=None, completion=None),
        episode("form", "local", prompt=None, completion=None, observation=800),
        episode("search", "reference", prompt=None, completion=None),
        episode("login", "reference", prompt=None, completion=None),
        episode("cart", "reference", prompt=None, completion=None),
        episode("form", "reference", prompt=None, completion=None),
    ]
    return results_of(eps, labels={"gpt": "gpt-4o-mini", "local": "llama 3.1 8b",
                                   "reference": "the reference solutions"},
                      baselines=["reference"], settings={"gpt": {"temperature": 0}})


def hostile() -> Results:
    """Hostile text in every field a page or model can fill, plus a normal episode."""
    bad = episode(
        "hostile-task", "gpt", "failure", reason=HOSTILE, answer=HOSTILE,
        checks=[CheckResult(type="text", ok=False, why=HOSTILE)],
        trajectory=[
            call("web_snapshot", HOSTILE),
            call("web_get_text", f"page says {HOSTILE}", error="blocked", query=HOSTILE),
            call("web_click", "Clicked.", target="e7"),
        ],
    )
    good = episode("plain-task", "gpt")
    other = episode("hostile-task", "reference", prompt=None, completion=None)
    return results_of([bad, good, other], labels={"gpt": HOSTILE}, baselines=["reference"])
