"""Two runs side by side: which tasks each provider fixed or broke, and whether the change in
its success rate is larger than noise.

For every provider present in both runs, :func:`compare` pairs the tasks it ran in both. A
pair where both episodes are valid (success or failure) is a *paired trial*; the success
rates, their difference and the 95% Wilson intervals are taken over these trials only, so
both sides count the same tasks. *Fixed* is failure → success, *broken* success → failure;
every other change of status (to or from invalid or error) is listed apart and is not
counted, because an invalid episode or a provider error says nothing about the model.

Whether the difference is larger than noise is an exact two-sided McNemar test on the
discordant pairs: with ``b`` fixed and ``c`` broken, under "no change" each discordant pair
is a fair coin, so ``p = min(1, 2 · P(X ≤ min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)``;
the change is significant when ``p < 0.05``. With no discordant pair ``p`` is 1.

:attr:`Comparison.warnings` says when the runs are not like for like: different suites
(content hash), different options, pages live in one and replayed in the other, or a
provider with different settings. Pure code: no browser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from math import comb
from typing import Any

from .results import Episode, Results, Status, wilson

__all__ = [
    "ALPHA",
    "Comparison",
    "ProviderComparison",
    "StatusChange",
    "compare",
    "mcnemar_exact",
    "render_comparison",
]

ALPHA = 0.05
_VALID: frozenset[str] = frozenset({"success", "failure"})


@dataclass(frozen=True)
class StatusChange:
    """A task whose status changed in a way that is neither fixed nor broken."""

    task: str
    before: Status
    after: Status


@dataclass(frozen=True)
class ProviderComparison:
    """One provider in both runs."""

    provider: str
    tasks: list[str]
    """Tasks run in both (in the first run's order)."""
    trials: int
    """Paired trials: tasks valid (success or failure) in both runs."""
    a_succeeded: int
    b_succeeded: int
    fixed: list[str]
    """Failure in the first run, success in the second."""
    broken: list[str]
    """Success in the first run, failure in the second."""
    other: list[StatusChange]
    """Changes to or from invalid or error (not counted in the rates or the test)."""
    p_value: float
    a_ci95: tuple[float, float] | None
    b_ci95: tuple[float, float] | None
    only_in_a: list[str] = field(default_factory=list)
    """Tasks this provider ran only in the first run."""
    only_in_b: list[str] = field(default_factory=list)

    @property
    def a_rate(self) -> float | None:
        return self.a_succeeded / self.trials if self.trials else None

    @property
    def b_rate(self) -> float | None:
        return self.b_succeeded / self.trials if self.trials else None

    @property
    def difference(self) -> float | None:
        """``b_rate - a_rate`` (positive: the second run is better)."""
        if self.a_rate is None or self.b_rate is None:
            return None
        return self.b_rate - self.a_rate

    @property
    def significant(self) -> bool:
        """Larger than noise: the McNemar p-value is below :data:`ALPHA`."""
        return self.p_value < ALPHA


@dataclass(frozen=True)
class Comparison:
    """Everything :func:`render_comparison` prints."""

    a: str
    """One line describing the first run."""
    b: str
    providers: list[ProviderComparison]
    only_in_a: list[str]
    """Providers of the first run only."""
    only_in_b: list[str]
    warnings: list[str]


def mcnemar_exact(fixed: int, broken: int) -> float:
    """The exact two-sided McNemar p-value for ``fixed`` and ``broken`` discordant pairs."""
    if fixed < 0 or broken < 0:
        raise ValueError("counts cannot be negative")
    n = fixed + broken
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(fixed, broken) + 1))
    return min(1.0, 2 * tail / (1 << n))


def _describe(results: Results) -> str:
    run = results.run
    parts = [f"suite {results.suite.name}"]
    if results.suite.content_hash:
        parts[0] += f" ({results.suite.content_hash[:12]})"
    parts.append(f"webrefs {run.webrefs or '?'}")
    if run.git_commit:
        parts.append(f"commit {run.git_commit[:12]}")
    if run.started:
        parts.append(f"started {run.started}")
    parts.append(f"pages {run.pages}")
    return ", ".join(parts)


def _by_task(results: Results, provider: str) -> dict[str, Episode]:
    return {e.task: e for e in results.episodes if e.provider == provider}


_MISSING = object()


def _differing_keys(x: dict[str, Any], y: dict[str, Any]) -> list[str]:
    return sorted(k for k in x.keys() | y.keys() if x.get(k, _MISSING) != y.get(k, _MISSING))


def _show(value: Any) -> str:
    return "(unset)" if value is _MISSING else json.dumps(value, sort_keys=True, default=str)


def _run_warnings(a: Results, b: Results) -> list[str]:
    out = []
    if a.suite.content_hash != b.suite.content_hash or a.suite.name != b.suite.name:
        out.append(f"The runs used different suites: {a.suite.name} "
                   f"({a.suite.content_hash[:12] or 'no hash'}) vs {b.suite.name} "
                   f"({b.suite.content_hash[:12] or 'no hash'}); tasks of the same id may "
                   "differ.")
    keys = _differing_keys(a.run.options, b.run.options)
    if keys:
        diffs = "; ".join(f"{k}: {_show(a.run.options.get(k, _MISSING))} → "
                          f"{_show(b.run.options.get(k, _MISSING))}" for k in keys)
        out.append(f"The runs used different options: {diffs}.")
    if a.run.pages != b.run.pages:
        out.append(f"Pages were {a.run.pages} in the first run and {b.run.pages} in the "
                   "second.")
    for results, which in ((a, "first"), (b, "second")):
        if results.run.interrupted:
            out.append(f"The {which} run was interrupted; its results are partial.")
    return out


def _compare_provider(name: str, a: Results, b: Results) -> ProviderComparison:
    before, after = _by_task(a, name), _by_task(b, name)
    tasks = [t for t in before if t in after]
    fixed: list[str] = []
    broken: list[str] = []
    other: list[StatusChange] = []
    trials = a_won = b_won = 0
    for task in tasks:
        x, y = before[task].status, after[task].status
        if x in _VALID and y in _VALID:
            trials += 1
            a_won += x == "success"
            b_won += y == "success"
            if x != y:
                (fixed if y == "success" else broken).append(task)
        elif x != y:
            other.append(StatusChange(task, x, y))
    return ProviderComparison(
        provider=name, tasks=tasks, trials=trials, a_succeeded=a_won, b_succeeded=b_won,
        fixed=fixed, broken=broken, other=other,
        p_value=mcnemar_exact(len(fixed), len(broken)),
        a_ci95=wilson(a_won, trials), b_ci95=wilson(b_won, trials),
        only_in_a=[t for t in before if t not in after],
        only_in_b=[t for t in after if t not in before],
    )


def _providers_of(results: Results) -> list[str]:
    names = list(results.providers)
    return names + [n for n in dict.fromkeys(e.provider for e in results.episodes)
                    if n not in names]


def compare(a: Results, b: Results) -> Comparison:
    """Compare run ``a`` (before) with run ``b`` (after), provider by provider."""
    names_a, names_b = _providers_of(a), _providers_of(b)
    shared = [n for n in names_a if n in names_b]
    warnings = _run_warnings(a, b)
    for name in shared:
        sa, sb = a.providers.get(name), b.providers.get(name)
        if sa is not None and sb is not None and sa.settings != sb.settings:
            keys = ", ".join(_differing_keys(sa.settings, sb.settings))
            warnings.append(f"Provider {name} ran with different settings ({keys}).")
    return Comparison(
        a=_describe(a), b=_describe(b),
        providers=[_compare_provider(n, a, b) for n in shared],
        only_in_a=[n for n in names_a if n not in names_b],
        only_in_b=[n for n in names_b if n not in names_a],
        warnings=warnings,
    )


# -- text -------------------------------------------------------------------------------------
def _rate(rate: float | None, ci: tuple[float, float] | None) -> str:
    if rate is None:
        return "n/a"
    text = f"{100 * rate:.1f}%"
    return text + (f" ({100 * ci[0]:.1f}–{100 * ci[1]:.1f}%)" if ci else "")


def _verdict(p: ProviderComparison) -> str:
    if p.trials == 0:
        return "no paired trials"
    if p.significant:
        return "yes, larger than noise"
    return "no, within noise"


def _row(p: ProviderComparison) -> str:
    diff = "n/a" if p.difference is None else f"{100 * p.difference:+.1f} pts"
    cells = [p.provider, str(p.trials), _rate(p.a_rate, p.a_ci95), _rate(p.b_rate, p.b_ci95),
             diff, f"{len(p.fixed)} / {len(p.broken)}", f"{p.p_value:.4g}", _verdict(p)]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _details(p: ProviderComparison) -> list[str]:
    lines = [f"### {p.provider}", ""]
    lines.append(f"- fixed ({len(p.fixed)}): " + (", ".join(p.fixed) or "none"))
    lines.append(f"- broken ({len(p.broken)}): " + (", ".join(p.broken) or "none"))
    if p.other:
        lines.append("- other changes (not counted): " + ", ".join(
            f"{c.task} {c.before} → {c.after}" for c in p.other))
    if p.only_in_a or p.only_in_b:
        lines.append(f"- run in one side only: {len(p.only_in_a)} in the first, "
                     f"{len(p.only_in_b)} in the second")
    return [*lines, ""]


def render_comparison(c: Comparison) -> str:
    """The comparison as markdown for a terminal."""
    lines = ["# Comparison", "", f"- first:  {c.a}", f"- second: {c.b}", ""]
    if c.warnings:
        lines += ["**Warnings**", ""] + [f"- ⚠ {w}" for w in c.warnings] + [""]
    if not c.providers:
        lines += ["No provider ran in both runs.", ""]
    else:
        lines += ["| provider | paired tasks | first (95% CI) | second (95% CI) | change "
                  "| fixed / broken | McNemar p | larger than noise? |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += [_row(p) for p in c.providers]
        lines += ["", "Paired tasks: valid (success or failure) in both runs. McNemar: exact "
                  f"two-sided test on the fixed/broken pairs, significant when p < {ALPHA}.",
                  ""]
        for p in c.providers:
            lines += _details(p)
    if c.only_in_a:
        lines.append("Only in the first run: " + ", ".join(c.only_in_a))
    if c.only_in_b:
        lines.append("Only in the second run: " + ", ".join(c.only_in_b))
    return "\n".join(lines).rstrip() + "\n"
