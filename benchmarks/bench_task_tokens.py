"""What an agent reads per task: tokens of everything the model is shown, per builtin task.

    python benchmarks/bench_task_tokens.py [--workers 2] [--json OUT] [--write-readme]

Every task of the builtin eval suite (48 tasks on the bundled sites) is played by its
reference solution three ways, in one run of this script:

- **webrefs, after_action="none"** and **webrefs, after_action="diff"**: the suite
  through :func:`webrefs.evals.running.runner.run_suite` with the ``reference`` provider and
  otherwise default options (3000-token snapshot budget). Counted: the system prompt plus
  every tool result the model was shown (``Episode.system_prompt_tokens`` + each
  ``ToolCall.tokens``).
- **peer (playwright-mcp style)**: the same reference calls replayed on a fresh context of
  another browser, with Playwright's ``page.aria_snapshot(mode="ai")`` of the whole active
  page taken after every call; its tokens replace the tool result (the way playwright-mcp
  answers every tool with a full page snapshot). The system prompt is counted the same as for
  webrefs. The calls are made through webrefs' tools with ``after_action="none"``, so the
  trajectory (tools, arguments, readiness waits) is the one of the "none" run; the script
  checks that it is. "peer, per action" counts a snapshot only where playwright-mcp would
  send a new one: after each action, and for a first read before any action (a
  ``web_snapshot`` or ``web_get_text`` right after an action would re-read a page whose
  snapshot the action already returned).

``--deltas`` measures ``after_action="diff"`` against ``"none"`` only (no peer). The
reference player reads what each result gives it, as a model would
(:class:`~webrefs.evals.baselines.scripted.ScriptedModel`): refs from the changes' added and
changed lines too, and no bare ``web_snapshot`` right after an action whose result carried the
active tab's page or its changes; so the "diff" run is a model that reads the changes.

Tokens are o200k_base (``webrefs.render.tokens.count_tokens``). Tool schemas and the user's
goal are not counted (the same on both sides, or the peer's own). Where the webrefs tokens go:
system prompt, ``web_snapshot`` results, diffs (the part of an action result after "Changes
since the last snapshot"), ``web_get_text`` results, and action summaries (the rest of each
action result: its one-line summary, and error messages).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from webrefs import Browser, WebrefsError
from webrefs.evals.baselines.scripted import ScriptedModel
from webrefs.evals.reports.results import Episode, Results
from webrefs.evals.running.episode import EpisodeOptions
from webrefs.evals.running.runner import RunOptions, run_suite
from webrefs.evals.running.sites import host_resolver_rules, load_handler, origin_host, serve_folder
from webrefs.evals.suite.checks import check_all
from webrefs.evals.suite.tasks import AnswerCheck, LoadedSuite, Task, load_suite
from webrefs.render.tokens import count_tokens
from webrefs.tools import WebTools

README = Path(__file__).resolve().parent / "README.md"
START, END = "<!-- task-tokens:start -->", "<!-- task-tokens:end -->"
READS = ("web_snapshot", "web_get_text")
DIFF_HEAD = "\n\nChanges since the last snapshot:\n"
SNAP_HEAD = "\n\nPage now:\n"
CATEGORIES = ("system prompt", "snapshots", "diffs", "get_text text", "action summaries")


# -- webrefs side ----------------------------------------------------------------------------
@dataclass
class Side:
    """One task as one way of observing it shows it to the model."""

    total: int = 0
    parts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    steps: int = 0
    success: bool = False
    reason: str = ""
    """Why the task failed (empty on success)."""


def webrefs_side(episode: Episode) -> Side:
    side = Side(steps=episode.steps, success=episode.status == "success",
                reason=episode.reason)
    side.parts["system prompt"] = episode.system_prompt_tokens
    for call in episode.trajectory:
        if call.tool == "web_snapshot" and call.error is None:
            side.parts["snapshots"] += call.tokens
        elif call.tool == "web_get_text" and call.error is None:
            side.parts["get_text text"] += call.tokens
        else:
            for marker, part in ((DIFF_HEAD, "diffs"), (SNAP_HEAD, "snapshots")):
                if marker in call.output:
                    summary = count_tokens(call.output.split(marker, 1)[0])
                    side.parts[part] += call.tokens - summary
                    side.parts["action summaries"] += summary
                    break
            else:
                side.parts["action summaries"] += call.tokens
    side.total = sum(side.parts.values())
    return side


async def run_webrefs(after: str, out: Path, workers: int,
                      only: tuple[str, ...] | None) -> Results:
    options = RunOptions(suite="builtin", providers=("reference",), out=out, workers=workers,
                         tasks=only,
                         episode=EpisodeOptions(after_action=after))  # type: ignore[arg-type]
    return await run_suite(options)


# -- peer side -------------------------------------------------------------------------------
@dataclass
class PeerTask:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    snapshot_tokens: list[int] = field(default_factory=list)
    success: bool = False
    answer_seen: bool | None = None
    """For tasks checked on their answer: whether the expected answer is in what the peer
    showed (``None`` for tasks without an answer check)."""
    error: str = ""


def _answer_seen(checks: tuple[Any, ...], shown: str) -> bool | None:
    answer_checks = [c for c in checks if isinstance(c, AnswerCheck)]
    if not answer_checks:
        return None
    low = shown.lower()
    for check in answer_checks:
        if check.contains is not None and check.contains.lower() not in low:
            return False
        if check.equals is not None and check.equals.lower() not in low:
            return False
        if check.regex is not None and not re.search(check.regex, shown, re.IGNORECASE):
            return False
    return True


async def peer_task(browser: Browser, loaded: LoadedSuite, task: Task) -> PeerTask:
    result = PeerTask()
    ctx = await browser.anew_context(seed=0)
    try:
        await ctx.anew_tab(loaded.start_url(task))
        tools = WebTools(ctx, after_action="none")
        model = ScriptedModel(task)
        observation: str | None = None
        shown: list[str] = []
        while True:
            call = model.next_call(observation)
            if call is None:
                break
            name, args = call
            out = await tools.arun(name, args)
            observation = out.content
            result.calls.append((name, dict(args)))
            tab = ctx.active_tab
            page = tab.page
            snapshot = await tab.runner.arun(page.aria_snapshot(mode="ai", timeout=30_000))
            shown.append(snapshot)
            result.snapshot_tokens.append(count_tokens(snapshot))
        answer = model.answer()
        checks = await check_all(task.success, tab=ctx.active_tab, answer=answer,
                                 requests=ctx.requests)
        result.success = all(c.ok for c in checks)
        result.error = "; ".join(c.why for c in checks if not c.ok)
        result.answer_seen = _answer_seen(tuple(task.success), "\n".join(shown))
    except WebrefsError as err:
        result.error = f"{type(err).__name__}: {err.message[:200]}"
    finally:
        await ctx.aclose()
    return result


async def run_peer(loaded: LoadedSuite, tasks: list[Task], workers: int) -> dict[str, PeerTask]:
    site = loaded.suite.site
    assert site is not None and loaded.site_dir is not None
    handler = load_handler(site.handler)
    results: dict[str, PeerTask] = {}
    with serve_folder(loaded.site_dir, handler) as port:
        rules = host_resolver_rules({origin_host(site.origin): port})
        browser = await Browser.alaunch(headless=True, args=(f"--host-resolver-rules={rules}",))
        try:
            gate = asyncio.Semaphore(workers)

            async def one(task: Task) -> None:
                async with gate:
                    results[task.id] = await peer_task(browser, loaded, task)

            await asyncio.gather(*(one(t) for t in tasks))
        finally:
            await browser.aclose()
    return results


def peer_sides(task_id: str, peer: PeerTask, system: int) -> tuple[Side, Side]:
    every = Side(steps=len(peer.calls), success=peer.success, reason=peer.error)
    lean = Side(steps=len(peer.calls), success=peer.success, reason=peer.error)
    every.parts["system prompt"] = lean.parts["system prompt"] = system
    acted = False
    for (name, _), tokens in zip(peer.calls, peer.snapshot_tokens, strict=True):
        every.parts["snapshots"] += tokens
        if name not in READS or not acted:
            lean.parts["snapshots"] += tokens
        acted = acted or name not in READS
    every.total = sum(every.parts.values())
    lean.total = sum(lean.parts.values())
    return every, lean


# -- deltas ----------------------------------------------------------------------------------
def delta_report(rows: dict[str, dict[str, Side]]) -> str:
    names = {"none": 'after_action="none"', "diff": 'after_action="diff"'}
    tasks = sorted(rows)
    n = len(tasks)
    lines = ["| observed as | success | median tokens / task | p90 | total | median steps |",
             "|---|---:|---:|---:|---:|---:|"]
    for key, label in names.items():
        col = [rows[t][key].total for t in tasks]
        wins = sum(rows[t][key].success for t in tasks)
        steps = statistics.median(rows[t][key].steps for t in tasks)
        lines.append(f"| {label} | {wins}/{n} | {statistics.median(col):,.0f} | "
                     f"{p90(col):,.0f} | {sum(col):,} | {steps:g} |")
    for key in ("diff",):
        per = [rows[t][key].total / rows[t]["none"].total for t in tasks]
        at_most = sum(rows[t][key].total <= rows[t]["none"].total for t in tasks)
        lines.append("")
        lines.append(f"{names[key]} / none, per task: median {statistics.median(per):.2f}x, "
                     f"p90 {p90(per):.2f}x; at most none on {at_most}/{n} tasks.")
    failed = [f"{names[k]}: {t} ({rows[t][k].reason[:200]})" for k in names for t in tasks
              if not rows[t][k].success]
    if failed:
        lines += ["", "Failed: " + "; ".join(failed) + "."]
    lines += ["", "| part (sum) | " + " | ".join(names.values()) + " |",
              "|---|" + "---:|" * len(names)]
    for part in CATEGORIES:
        lines.append(f"| {part} | " + " | ".join(
            f"{sum(rows[t][k].parts[part] for t in tasks):,}" for k in names) + " |")
    return "\n".join(lines)


# -- report ----------------------------------------------------------------------------------
def where_tokens_go(rows: dict[str, dict[str, Side]], diff_runs: list[Episode],
                    none_runs: list[Episode], peer: dict[str, PeerTask]) -> str:
    """A paragraph on where the tokens go, from this run's numbers."""
    total = {k: sum(r[k].total for r in rows.values()) for k in ("none", "diff", "peer")}
    part = {k: {p: sum(r[k].parts[p] for r in rows.values()) for p in CATEGORIES}
            for k in ("none", "diff")}
    ours = [c.tokens for e in none_runs for c in e.trajectory if c.tool == "web_snapshot"]
    aria = [t for p in peer.values() for t in p.snapshot_tokens]
    nav = nav_count = 0  # pages an action's result carried after a navigation
    for episode in diff_runs:
        for call in episode.trajectory:
            if SNAP_HEAD in call.output:
                head = call.output.split(SNAP_HEAD, 1)[0]
                nav += call.tokens - count_tokens(head)
                nav_count += 1
    return (
        f"**Where the tokens go.** With `after_action=\"none\"` the model reads "
        f"{part['none']['snapshots']:,} snapshot tokens "
        f"({100 * part['none']['snapshots'] / total['none']:.0f}%), the system prompt "
        f"({100 * part['none']['system prompt'] / total['none']:.0f}%, "
        f"{part['none']['system prompt'] // max(1, len(rows)):,} per task), action summaries "
        f"({100 * part['none']['action summaries'] / total['none']:.0f}%) and get_text text "
        f"({100 * part['none']['get_text text'] / total['none']:.0f}%). A webrefs snapshot of "
        f"these pages has a median of {statistics.median(ours):.0f} tokens against "
        f"{statistics.median(aria):.0f} for the whole-page aria snapshot, and the peer pays "
        "that after every call, reads included, so its snapshots are "
        f"{100 * (total['peer'] - part['none']['system prompt']) / total['peer']:.0f}% of "
        f"all it shows. With `after_action=\"diff\"` an action's result carries "
        f"{part['diff']['diffs']:,} tokens of changes and {nav:,} tokens of whole pages (the "
        f"{nav_count} results after a navigation, or where the changes would cost more than "
        "the page), and the reference player asks for no snapshot an action's result already "
        f"gave it; {total['diff'] / total['none']:.2f}x the \"none\" total."
    )


def p90(values: list[int] | list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def report(rows: dict[str, dict[str, Side]], mismatched: list[str], peer: dict[str, PeerTask],
           load: tuple[tuple[float, ...], tuple[float, ...]], wall: float, notes: str) -> str:
    names = {"none": 'webrefs, after_action="none"', "diff": 'webrefs, after_action="diff"',
             "peer": "peer: aria_snapshot after every call",
             "lean": "peer: aria_snapshot per action"}
    tasks = sorted(rows)
    col = {k: [rows[t][k].total for t in tasks] for k in names}
    n = len(tasks)
    lines = [
        f"Measured on {n} builtin tasks in one run of {wall / 60:.1f} min; load average "
        f"{load[0][0]:.1f} at the start and {load[1][0]:.1f} at the end (1-min; other jobs "
        "shared the 2 cores, which changes times, not tokens). Tokens are o200k_base; every "
        "figure counts the system prompt plus what each tool call showed the model.",
        "",
        "| observed as | success | median tokens / task | p90 | total | median steps |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for key, label in names.items():
        wins = sum(rows[t][key].success for t in tasks)
        steps = statistics.median(rows[t][key].steps for t in tasks)
        lines.append(f"| {label} | {wins}/{n} | {statistics.median(col[key]):,.0f} | "
                     f"{p90(col[key]):,.0f} | {sum(col[key]):,} | {steps:g} |")
    lines += ["", "| ratio (target <= 0.33x) | of medians | of p90s | of totals | "
              "per-task median | per-task p90 |", "|---|---:|---:|---:|---:|---:|"]
    for ours in ("none", "diff"):
        for peer_key in ("peer", "lean"):
            per_task = [rows[t][ours].total / rows[t][peer_key].total for t in tasks]
            lines.append(
                f"| {ours} / {names[peer_key].split(': ')[1]} | "
                f"{statistics.median(col[ours]) / statistics.median(col[peer_key]):.2f}x | "
                f"{p90(col[ours]) / p90(col[peer_key]):.2f}x | "
                f"{sum(col[ours]) / sum(col[peer_key]):.2f}x | "
                f"{statistics.median(per_task):.2f}x | {p90(per_task):.2f}x |")
    obs = {k: [rows[t][k].total - rows[t][k].parts["system prompt"] for t in tasks]
           for k in names}
    lines += ["", "Tool results only (system prompt left out on both sides): median "
              + ", ".join(f"{k} {statistics.median(obs[k]):,.0f}" for k in names)
              + f"; ratio of totals none/peer {sum(obs['none']) / sum(obs['peer']):.2f}x, "
              f"diff/peer {sum(obs['diff']) / sum(obs['peer']):.2f}x, none/per-action "
              f"{sum(obs['none']) / sum(obs['lean']):.2f}x."]
    lines += ["", "Where the tokens go (sum over all tasks, share of each total):", "",
              "| part | " + " | ".join(names[k] for k in names) + " |",
              "|---|" + "---:|" * len(names)]
    for part in CATEGORIES:
        cells = []
        for key in names:
            amount = sum(rows[t][key].parts[part] for t in tasks)
            cells.append(f"{amount:,} ({100 * amount / max(1, sum(col[key])):.0f}%)")
        lines.append(f"| {part} | " + " | ".join(cells) + " |")
    seen = [p.answer_seen for p in peer.values() if p.answer_seen is not None]
    unseen = sorted(t for t, p in peer.items() if p.answer_seen is False)
    lines += ["", f"Peer replay checks: the replayed calls matched the \"none\" run's tools and "
              f"arguments on {n - len(mismatched)}/{n} tasks"
              + (f" (differ: {', '.join(mismatched)})" if mismatched else "")
              + f"; on {sum(seen)}/{len(seen)} tasks checked on their answer, the expected "
              "answer appears in the aria snapshots the peer showed"
              + (f" (not in: {', '.join(unseen)}; an answer the model must work out, "
                 "such as a difference, cannot appear on the page)" if unseen else "") + "."]
    failed = [f"{names[k]}: {t} ({rows[t][k].reason[:300]})" for k in ("none", "diff", "peer")
              for t in tasks if not rows[t][k].success]
    if failed:
        lines += ["", "Failed episodes (success is not equal across the three when this list is "
                  "not empty): " + "; ".join(failed) + "."]
    lines += ["", notes]
    lines += ["", "<details><summary>Per task (tokens)</summary>", "",
              "| task | steps | none | diff | peer, every call | peer, per action | "
              "none / peer | diff / peer |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in tasks:
        r = rows[t]
        lines.append(f"| {t} | {r['none'].steps} | {r['none'].total:,} | {r['diff'].total:,} | "
                     f"{r['peer'].total:,} | {r['lean'].total:,} | "
                     f"{r['none'].total / r['peer'].total:.2f} | "
                     f"{r['diff'].total / r['peer'].total:.2f} |")
    lines += ["", "</details>"]
    return "\n".join(lines)


def write_readme(body: str) -> None:
    section = (f"{START}\n## What an agent reads per task\n\n"
               "`python benchmarks/bench_task_tokens.py --workers 2 --write-readme` "
               "(needs Chromium; `--json FILE` keeps the raw numbers). See the script's "
               "docstring for what is counted.\n\n" + body + f"\n{END}")
    text = README.read_text(encoding="utf-8")
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    README.write_text(text, encoding="utf-8")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the raw per-task numbers here")
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--task", action="append", help="only this task (repeatable)")
    parser.add_argument("--runs", type=Path,
                        help="keep the webrefs runs' results.json here (default: a temp dir)")
    parser.add_argument("--deltas", action="store_true",
                        help="diff against none only, with a model that reads the changes")
    args = parser.parse_args()
    load_start, started = os.getloadavg(), time.monotonic()
    loaded = load_suite("builtin")
    only = tuple(args.task) if args.task else None
    tasks = [t for t in loaded.suite.tasks if only is None or t.id in only]
    if args.deltas:
        with tempfile.TemporaryDirectory(prefix="bench-task-tokens-") as tmp:
            where = args.runs or Path(tmp)
            runs = {after: await run_webrefs(after, where / after, args.workers, only)
                    for after in ("none", "diff")}
        eps = {after: {e.task: e for e in r.episodes} for after, r in runs.items()}
        rows = {t.id: {"none": webrefs_side(eps["none"][t.id]),
                       "diff": webrefs_side(eps["diff"][t.id])} for t in tasks}
        body = delta_report(rows)
        print(f"{len(tasks)} tasks, {(time.monotonic() - started) / 60:.1f} min\n\n{body}")
        if args.json:
            args.json.write_text(json.dumps({t: {k: asdict(s) for k, s in r.items()}
                                             for t, r in rows.items()}, indent=1),
                                 encoding="utf-8")
        return
    with tempfile.TemporaryDirectory(prefix="bench-task-tokens-") as tmp:
        where = args.runs or Path(tmp)
        runs = {after: await run_webrefs(after, where / after, args.workers, only)
                for after in ("none", "diff")}
    peer = await run_peer(loaded, tasks, args.workers)
    wall = time.monotonic() - started
    episodes = {after: {e.task: e for e in r.episodes} for after, r in runs.items()}
    rows: dict[str, dict[str, Side]] = {}
    mismatched = []
    for task in tasks:
        none = episodes["none"][task.id]
        every, lean = peer_sides(task.id, peer[task.id], none.system_prompt_tokens)
        diff = episodes["diff"][task.id]
        rows[task.id] = {"none": webrefs_side(none), "diff": webrefs_side(diff),
                         "peer": every, "lean": lean}
        if [(c.tool, c.args) for c in none.trajectory] != peer[task.id].calls:
            mismatched.append(task.id)
    notes = where_tokens_go(rows, list(episodes["diff"].values()),
                            list(episodes["none"].values()), peer)
    body = report(rows, mismatched, peer, (load_start, os.getloadavg()), wall, notes)
    print(body)
    if args.json:
        args.json.write_text(json.dumps({t: {k: asdict(s) for k, s in r.items()}
                                         for t, r in rows.items()}, indent=1), encoding="utf-8")
    if args.write_readme:
        write_readme(body)


if __name__ == "__main__":
    asyncio.run(main())
