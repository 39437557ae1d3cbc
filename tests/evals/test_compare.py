"""Comparing two runs: fixed and broken tasks, the exact McNemar test, warnings when the runs
are not like for like, and the text shown in a terminal."""

from __future__ import annotations

from math import comb
from typing import Any

import pytest
from webrefs.evals.reports.compare import compare, mcnemar_exact, render_comparison
from webrefs.evals.reports.results import Episode, Results, Status

from tests.evals.factories import episode, results_of


def run(statuses: dict[str, Status], provider: str = "gpt", **kwargs: Any) -> Results:
    return results_of([episode(task, provider, status) for task, status in statuses.items()],
                      **kwargs)


def many(fixed: int, broken: int, same_ok: int = 0, same_fail: int = 0
         ) -> tuple[dict[str, Status], dict[str, Status]]:
    """Statuses before and after with that many fixed, broken and unchanged tasks."""
    before: dict[str, Status] = {}
    after: dict[str, Status] = {}
    groups: list[tuple[str, int, Status, Status]] = [
        ("fix", fixed, "failure", "success"), ("break", broken, "success", "failure"),
        ("ok", same_ok, "success", "success"), ("bad", same_fail, "failure", "failure")]
    for prefix, n, x, y in groups:
        for i in range(n):
            before[f"{prefix}-{i}"], after[f"{prefix}-{i}"] = x, y
    return before, after


def test_mcnemar_hand_computed() -> None:
    assert mcnemar_exact(8, 0) == pytest.approx(2 * 0.5**8) == pytest.approx(0.0078125)
    assert mcnemar_exact(0, 8) == mcnemar_exact(8, 0)
    assert mcnemar_exact(1, 0) == 1.0  # one task: a coin flip
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0  # capped, never above 1
    # 9 fixed, 2 broken: 2 * (C(11,0) + C(11,1) + C(11,2)) / 2**11 = 2 * 67 / 2048
    assert mcnemar_exact(9, 2) == pytest.approx(2 * (1 + 11 + 55) / 2048)
    assert mcnemar_exact(9, 2) == pytest.approx(
        2 * sum(comb(11, i) for i in range(3)) * 0.5**11)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_mcnemar_on_many_pairs_stays_finite() -> None:
    p = mcnemar_exact(600, 500)
    assert 0.0 < p < 0.01


def test_fixed_and_broken_tasks_are_listed() -> None:
    a = run({"t1": "failure", "t2": "success", "t3": "success", "t4": "failure",
             "t5": "success"})
    b = run({"t1": "success", "t2": "failure", "t3": "success", "t4": "failure",
             "t5": "error", "t6": "success"})
    c = compare(a, b)
    [p] = c.providers
    assert p.provider == "gpt"
    assert p.tasks == ["t1", "t2", "t3", "t4", "t5"]
    assert p.fixed == ["t1"] and p.broken == ["t2"]
    assert [(o.task, o.before, o.after) for o in p.other] == [("t5", "success", "error")]
    assert p.only_in_b == ["t6"] and p.only_in_a == []
    assert p.trials == 4  # t5 is not a valid pair
    assert (p.a_succeeded, p.b_succeeded) == (2, 2)
    assert p.a_rate == p.b_rate == 0.5 and p.difference == 0.0
    assert p.a_ci95 is not None and p.a_ci95 == p.b_ci95
    assert p.p_value == 1.0 and not p.significant


def test_eight_fixed_is_larger_than_noise() -> None:
    before, after = many(fixed=8, broken=0, same_ok=4, same_fail=4)
    c = compare(run(before), run(after))
    [p] = c.providers
    assert len(p.fixed) == 8 and p.broken == []
    assert p.trials == 16
    assert p.a_rate == pytest.approx(4 / 16) and p.b_rate == pytest.approx(12 / 16)
    assert p.difference == pytest.approx(0.5)
    assert p.p_value == pytest.approx(0.0078125)
    assert p.significant
    text = render_comparison(c)
    assert "| gpt | 16 | 25.0% (" in text
    assert "+50.0 pts | 8 / 0 | 0.007812 | yes, larger than noise |" in text


def test_one_changed_task_is_not_larger_than_noise() -> None:
    before, after = many(fixed=1, broken=0, same_ok=10, same_fail=9)
    c = compare(run(before), run(after))
    [p] = c.providers
    assert p.fixed == ["fix-0"]
    assert p.difference == pytest.approx(0.05)
    assert p.p_value == 1.0
    assert not p.significant
    assert "no, within noise" in render_comparison(c)


def test_only_providers_in_both_runs_are_compared() -> None:
    a = results_of([episode("t", "gpt"), episode("t", "old")])
    b = results_of([episode("t", "gpt"), episode("t", "new")])
    c = compare(a, b)
    assert [p.provider for p in c.providers] == ["gpt"]
    assert c.only_in_a == ["old"] and c.only_in_b == ["new"]
    text = render_comparison(c)
    assert "Only in the first run: old" in text and "Only in the second run: new" in text


def test_no_paired_trials() -> None:
    a = run({"t": "invalid"})
    b = run({"t": "invalid"})
    [p] = compare(a, b).providers
    assert p.trials == 0 and p.a_rate is None and p.difference is None
    assert p.a_ci95 is None and p.p_value == 1.0
    assert "no paired trials" in render_comparison(compare(a, b))


def test_like_for_like_runs_give_no_warnings() -> None:
    a, b = run({"t": "success"}), run({"t": "failure"})
    assert compare(a, b).warnings == []
    assert "Warnings" not in render_comparison(compare(a, b))


def test_warns_when_suites_or_options_differ() -> None:
    a = run({"t": "success"}, content_hash="a" * 64, options={"max_tokens": 4000, "x": 1})
    b = run({"t": "success"}, content_hash="b" * 64, options={"max_tokens": 2000},
            pages="live", settings={"gpt": {"temperature": 1}})
    c = compare(a, b)
    assert any("different suites" in w and "aaaaaaaaaaaa" in w and "bbbbbbbbbbbb" in w
               for w in c.warnings)
    [options] = [w for w in c.warnings if "different options" in w]
    assert "max_tokens: 4000 → 2000" in options and "x: 1 → (unset)" in options
    assert any("replay in the first run and live in the second" in w for w in c.warnings)
    assert any("gpt ran with different settings (temperature)" in w for w in c.warnings)
    text = render_comparison(c)
    assert text.count("- ⚠ ") == 4


def test_rendered_lists_fixed_and_broken() -> None:
    a = run({"t1": "failure", "t2": "success", "t3": "success"})
    b = run({"t1": "success", "t2": "failure", "t3": "invalid"})
    text = render_comparison(compare(a, b))
    assert "- fixed (1): t1" in text
    assert "- broken (1): t2" in text
    assert "- other changes (not counted): t3 success → invalid" in text


def test_a_repeated_episode_counts_once() -> None:
    a = results_of([episode("t", "gpt", "failure"), episode("t", "gpt", "success")])
    b = results_of([Episode(task="t", provider="gpt", status="success")])
    [p] = compare(a, b).providers
    assert p.trials == 1 and p.fixed == [] and p.broken == []  # the last one stands
