"""``webrefs eval``: run suites, record and replay their pages, validate, compare and merge.

    webrefs eval run [--suite demo] [--provider reference ...] [--out DIR] [--workers N]
                     [--ray auto|ADDRESS|local]
                     [--shard i/N] [--pages DIR] [--resume] [--browser-endpoint URL]
                     [--record | --replay DIR | --cassettes DIR | --live] [--allow-code]
        (--out DIR on a folder that holds recordings replays them unless --live is given)
    webrefs eval record --suite S --out DIR       record each task's pages (HAR)
    webrefs eval validate SUITE [--allow-code]    check a suite file, say which of its
                                                  fields name code, run every reference
    webrefs eval schema                           the JSON Schema of a suite file
    webrefs eval compare A/results.json B/results.json
    webrefs eval merge SHARD... --out DIR
    webrefs eval report DIR                       write report.md and report.html again

A suite is data: its site must be in its own folder, and the Python code it names
(``site.handler``, reference ``policy``) must be webrefs' own or in its folder, unless
``--allow-code`` trusts it (see :mod:`.codescope`).

Exit codes: 0 done (for ``validate``: every reference passed), 1 a failure (a reference
failed, the browser died), 2 bad input (a malformed suite or results file, a suite reaching
out of its folder or naming code it may not, an unknown provider), 130 Ctrl-C. A message,
never a traceback; URLs in it without credentials.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webrefs.errors import InvalidArgumentError, WebrefsError

from .models.prices import load_prices
from .reports.compare import compare, render_comparison
from .reports.report import terminal_table, write_report
from .reports.results import Episode, Results, load_results, merge_results
from .running.episode import EpisodeOptions
from .running.runner import RunOptions, run_suite
from .suite.codescope import CodeScope, code_fields, page_scripts
from .suite.redact import redact_urls
from .suite.tasks import LoadedSuite, builtin_suites, load_suite, suite_schema

__all__ = ["main"]

DEFAULT_SUITE = "builtin"


def _shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not i/N (e.g. 1/4)") from None
    return i, n


def _add_run_options(p: argparse.ArgumentParser, *, providers: bool = True) -> None:
    p.add_argument("--suite", default=DEFAULT_SUITE,
                   help=f"builtin suite ({', '.join(builtin_suites())}) or a suite file")
    if providers:
        p.add_argument("--provider", action="append", dest="providers", metavar="P",
                       help="reference, or PROVIDER:MODEL for a LangChain chat model "
                            "(repeat to compare; default: reference)")
    p.add_argument("--out", type=Path, default=Path("eval-results"), help="output folder")
    p.add_argument("--task", action="append", dest="tasks", metavar="ID",
                   help="run only this task (repeatable)")
    p.add_argument("--workers", type=int, default=1, help="episodes in parallel")
    p.add_argument("--ray", default=None, metavar="auto|ADDRESS|local",
                   help="run each episode as a Ray task on a worker with a browser of its "
                        "own: 'auto' joins this machine's cluster, 'local' starts one, or a "
                        "cluster address; --workers is then the number of workers "
                        "(needs pip install 'webrefs[ray]')")
    p.add_argument("--shard", type=_shard, default=None, metavar="i/N",
                   help="run the i-th of N deterministic parts of the suite")
    p.add_argument("--max-tokens", type=int, default=3000, help="snapshot token budget")
    p.add_argument("--after-action", choices=("none", "diff", "snapshot"), default="none")
    p.add_argument("--mode", choices=("dom", "vision", "hybrid"), default=None,
                   help="how models see pages: the text outline (dom), screenshots with "
                        "marks (vision), or both (hybrid); default: per provider, from the "
                        "capability table (webrefs.tools.capabilities)")
    p.add_argument("--max-steps", type=int, default=None, help="override each task's max_steps")
    p.add_argument("--seed", type=int, default=0, help="seed of Math.random on every page")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per episode")
    p.add_argument("--no-time-limit", dest="time_limit", action="store_false",
                   help="lift tasks' own time limits (MiniWoB++ pages' timers)")
    p.add_argument("--step-ms", type=int, default=100, metavar="MS",
                   help="page time that passes before each tool call on the episode's clock "
                        "(0: the machine's clock)")
    p.add_argument("--browser-endpoint", default=None, metavar="URL",
                   help="attach to running Chromiums over CDP instead of launching one: one "
                        "address for every worker (http://host:9222), a template naming "
                        "{worker} (numbered from 0: http://browser-{worker}:9222) or a "
                        "comma-separated list with an address per worker")
    p.add_argument("--headed", action="store_true", help="show the browser")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_allow_code(p)


def _add_allow_code(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-code", action="store_true",
                   help="trust the suite's Python code: its site.handler and reference "
                        "policies may name modules outside webrefs and the suite's folder "
                        "(by default such a suite is refused before anything is imported)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="webrefs eval",
                                     description="Run and compare eval suites offline.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a suite with one or more providers")
    _add_run_options(run)
    run.add_argument("--pages", type=Path, default=None,
                     help="replay recorded pages from this folder (<task>.har)")
    run.add_argument("--cassettes", type=Path, default=None,
                     help="replay LLM providers' recorded calls from this folder")
    run.add_argument("--replay", type=Path, default=None, metavar="DIR",
                     help="replay a recorded run: --pages DIR/pages --cassettes DIR/cassettes")
    run.add_argument("--record", action="store_true",
                     help="record pages and LLM calls into --out (pages/, cassettes/)")
    run.add_argument("--resume", action="store_true", help="keep finished episodes in --out")
    run.add_argument("--live", action="store_true",
                     help="run live even when --out already holds recordings (by default "
                          "they are replayed)")
    model = run.add_argument_group("LLM providers")
    model.add_argument("--base-url", default=None,
                       help="an OpenAI-compatible endpoint (with openai:MODEL)")
    model.add_argument("--temperature", type=float, default=None)
    model.add_argument("--model-seed", type=int, default=None, help="the provider's seed")
    model.add_argument("--max-output-tokens", type=int, default=None)
    model.add_argument("--text-actions", action=argparse.BooleanOptionalAction, default=None,
                       help="JSON-in-markdown actions instead of tool calling (default: by "
                            "the capability table)")
    model.add_argument("--prices", type=Path, default=None,
                       help="a TOML price table (dollars per million tokens) for costs")
    model.add_argument("--retries", type=int, default=3,
                       help="retries of a failed model call before the episode is an error")
    rec = sub.add_parser("record", help="record each task's pages (HAR) with the reference")
    _add_run_options(rec, providers=False)
    val = sub.add_parser("validate", help="check a suite file and run every reference")
    val.add_argument("suite")
    val.add_argument("--workers", type=int, default=1)
    _add_allow_code(val)
    sub.add_parser("schema", help="print the JSON Schema of a suite file")
    cmp_ = sub.add_parser("compare", help="compare two runs")
    cmp_.add_argument("a", type=Path)
    cmp_.add_argument("b", type=Path)
    merge = sub.add_parser("merge", help="join the results of a run's shards")
    merge.add_argument("parts", type=Path, nargs="+")
    merge.add_argument("--out", type=Path, required=True)
    rep = sub.add_parser("report", help="write report.md and report.html for a results folder")
    rep.add_argument("folder", type=Path)
    return parser


def _options(args: argparse.Namespace, *, record: bool = False) -> RunOptions:
    episode = EpisodeOptions(max_tokens=args.max_tokens, after_action=args.after_action,
                             max_steps=args.max_steps, seed=args.seed, timeout_s=args.timeout,
                             retries=getattr(args, "retries", 3), time_limit=args.time_limit,
                             mode=getattr(args, "mode", None),
                             step_ms=max(0, args.step_ms))
    providers = tuple(getattr(args, "providers", None) or ("reference",))
    pages = getattr(args, "pages", None)
    cassettes = getattr(args, "cassettes", None)
    replay = getattr(args, "replay", None)
    if (replay is None and pages is None and cassettes is None and not record
            and not getattr(args, "record", False) and not getattr(args, "live", False)
            and getattr(args, "command", None) == "run" and holds_recordings(args.out)):
        # a run folder with recordings is replayed unless --live says so (what it holds:
        # pages, model calls or both)
        pages = args.out / "pages" if (args.out / "pages").is_dir() else None
        cassettes = args.out / "cassettes" if (args.out / "cassettes").is_dir() else None
    if replay is not None:
        pages = pages or replay / "pages"
        cassettes = cassettes or replay / "cassettes"
    settings = {
        "temperature": getattr(args, "temperature", None),
        "seed": getattr(args, "model_seed", None),
        "max_tokens": getattr(args, "max_output_tokens", None),
        "base_url": getattr(args, "base_url", None),
        "text_actions": getattr(args, "text_actions", None),
    }
    return RunOptions(
        suite=args.suite, providers=providers, out=args.out, episode=episode,
        workers=args.workers, shard=args.shard,
        tasks=tuple(args.tasks) if args.tasks else None,
        resume=getattr(args, "resume", False), pages=pages, cassettes=cassettes,
        record=record or getattr(args, "record", False),
        browser_endpoint=args.browser_endpoint, headless=not args.headed,
        provider_settings=settings,
        prices=load_prices(args.prices) if getattr(args, "prices", None) else {},
        allow_code=args.allow_code, ray=getattr(args, "ray", None),
    )


def holds_recordings(folder: Path) -> bool:
    """Whether ``folder`` is a run folder with recordings: pages (``pages/**.har``) or model
    calls (``cassettes/**.yaml``)."""
    return any(True for _ in (folder / "pages").rglob("*.har")) or \
        any(True for _ in (folder / "cassettes").rglob("*.yaml"))


def _write_reports(results: Results, folder: Path) -> list[Path]:
    return write_report(results, folder)


def _print_table(results: Results) -> None:
    from rich.console import Console  # the evals extra's

    console = Console() if sys.stdout.isatty() else Console(width=140)
    console.print(terminal_table(results))


async def _run(options: RunOptions, quiet: bool) -> Results:
    if quiet or not sys.stderr.isatty():
        def line(e: Episode, done: int, total: int) -> None:
            extra = f": {redact_urls(e.reason)[:120]}" if e.reason else ""
            print(f"[{done}/{total}] {e.provider} {e.task}: {e.status}{extra}",
                  file=sys.stderr, flush=True)
        return await run_suite(options, progress=line)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    wins: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), transient=False) as bar:
        handle = bar.add_task("starting", total=None)

        def update(e: Episode, done: int, total: int) -> None:
            seen[e.provider] += 1
            wins[e.provider] += e.status == "success"
            rates = ", ".join(f"{p} {wins[p]}/{seen[p]}" for p in seen)
            bar.update(handle, completed=done, total=total, description=rates)

        return await run_suite(options, progress=update)


def _cmd_run(args: argparse.Namespace, *, record: bool = False) -> int:
    options = _options(args, record=record)
    results = asyncio.run(_run(options, args.quiet))
    _print_table(results)
    excluded = load_suite(options.suite).suite.excluded
    if excluded:
        print(f"not run: {len(excluded)} task(s) of the benchmark are left out of suite "
              f"{results.suite.name} (see the suite file's 'excluded'): "
              + ", ".join(sorted(excluded)))
    written = _write_reports(results, options.out)
    print(f"results: {options.out / 'results.json'}"
          + "".join(f"\nreport:  {p}" for p in written))
    if record:
        print(f"pages:   {options.out / 'pages'}")
    return 0


def _print_code(loaded: LoadedSuite, allow_code: bool) -> None:
    """Which fields of the suite name code, and where that code is."""
    scope = CodeScope(root=Path(loaded.root), allow_any=allow_code, suite=loaded.suite.name)
    fields = code_fields(loaded.suite)
    by_spec: dict[str, list[str]] = {}
    for field, spec in fields:
        by_spec.setdefault(spec, []).append(field)
    for spec, names in by_spec.items():
        policies = all(n.endswith("reference policy") for n in names)
        named = (f"reference policy of {len(names)} tasks" if policies and len(names) > 1
                 else ", ".join(names))
        print(f"python code: {named}: {spec} ({scope.describe(scope.where(spec))})")
    if not fields:
        print("python code: none (no site.handler, no reference policy)")
    scripts = page_scripts(loaded.suite)
    if scripts:
        print("page scripts (JavaScript run in the browser): "
              + ", ".join(f"{kind} in {n} task(s)" for kind, n in scripts.items()))


def _cmd_validate(args: argparse.Namespace) -> int:
    loaded = load_suite(args.suite)
    print(f"suite {loaded.suite.name}: {len(loaded.suite.tasks)} task(s), format valid")
    _print_code(loaded, args.allow_code)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="webrefs-validate-") as tmp:
        options = RunOptions(suite=args.suite, providers=("reference",), out=Path(tmp),
                             workers=args.workers, allow_code=args.allow_code)
        results = asyncio.run(run_suite(options))
    def problem(e: Episode) -> str:
        """Why a reference does not prove its task (a step that erred proves nothing)."""
        if e.status != "success":
            return e.reason
        erred = [(i, c) for i, c in enumerate(e.trajectory, 1) if c.error]
        if erred:
            i, c = erred[0]
            return (f"step {i} ({c.tool}) failed with [{c.error}]: "
                    f"{' '.join(c.output.split())[:200]}")
        return ""

    bad = [e for e in results.episodes if problem(e)]
    for e in sorted(results.episodes, key=lambda e: e.task):
        why = problem(e)
        mark = "FAIL" if why else "ok  "
        print(f"{mark} {e.task} ({e.steps} steps)" + (f": {why}" if why else ""))
    if bad:
        print(f"{len(bad)} of {len(results.episodes)} reference solution(s) failed")
        return 1
    print(f"all {len(results.episodes)} reference solutions pass")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    a, b = load_results(args.a), load_results(args.b)
    print(render_comparison(compare(a, b)))
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    merged = merge_results([load_results(p) for p in args.parts])
    args.out.mkdir(parents=True, exist_ok=True)
    merged.write(args.out / "results.json")
    written = _write_reports(merged, args.out)
    _print_table(merged)
    print(f"results: {args.out / 'results.json'}" + "".join(f"\nreport:  {p}" for p in written))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    results = load_results(args.folder)
    for path in _write_reports(results, args.folder if args.folder.is_dir()
                               else args.folder.parent):
        print(f"report:  {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``webrefs eval``; returns the exit code."""
    args = _parser().parse_args(list(argv) if argv is not None else None)
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "record":
            return _cmd_run(args, record=True)
        if args.command == "validate":
            return _cmd_validate(args)
        if args.command == "schema":
            print(json.dumps(suite_schema(), indent=1))
            return 0
        if args.command == "compare":
            return _cmd_compare(args)
        if args.command == "merge":
            return _cmd_merge(args)
        return _cmd_report(args)
    except KeyboardInterrupt:
        out: Any = getattr(args, "out", None)
        where = f" in {out / 'results.json'}" if isinstance(out, Path) else ""
        print(f"\ninterrupted: the finished episodes are kept{where}; "
              "run again with --resume to finish", file=sys.stderr)
        return 130
    except InvalidArgumentError as err:
        print(f"webrefs eval: {redact_urls(str(err))}", file=sys.stderr)
        return 2
    except WebrefsError as err:
        print(f"webrefs eval: {redact_urls(str(err))}", file=sys.stderr)
        return 1
