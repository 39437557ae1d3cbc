"""``webrefs demo``: an agent loop on the bundled demo site, offline, no API key.

It serves ``webrefs/evals/demo_site`` on 127.0.0.1 at a free port, loads the demo task from the
``webrefs.evals`` suite ``demo.json``, and lets a scripted model solve it through the tools:
the model writes each action as JSON in markdown (the text-mode format), the loop parses it
with :mod:`webrefs.tools.actionparse`, runs it with :class:`~webrefs.tools.WebTools`, and shows the
model what the tool returned. Every call and what the model saw is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

from webrefs.errors import WebrefsError
from webrefs.tools.actionparse import has_action, parse_actions

from .baselines.scripted import ScriptedModel
from .running.sites import serve_folder
from .suite.checks import check_pure
from .suite.tasks import Task, load_suite

__all__ = ["demo_site", "load_demo_task", "main", "run_demo"]


@contextlib.contextmanager
def demo_site() -> Iterator[str]:
    """Serve the bundled demo site on 127.0.0.1 at a free port; yields the base URL."""
    files = resources.files("webrefs.evals").joinpath("demo_site")
    with resources.as_file(files) as root, serve_folder(Path(root)) as port:
        yield f"http://127.0.0.1:{port}/"


def load_demo_task(task_id: str | None = None) -> Task:
    """A task of the packaged ``demo`` suite (the first when ``task_id`` is None)."""
    suite = load_suite("demo").suite
    return suite.tasks[0] if task_id is None else suite.task(task_id)


def _indent(text: str, limit: int) -> str:
    lines = text.splitlines() or [""]
    shown = lines[:limit]
    out = "\n".join(f"    | {line}" for line in shown)
    if len(lines) > limit:
        out += f"\n    | ... ({len(lines) - limit} more lines)"
    return out


def run_demo(
    *,
    headless: bool = True,
    max_tokens: int = 3000,
    after_action: str = "none",
    max_lines: int = 40,
    out: TextIO | None = None,
) -> int:
    """Run the demo task end to end; 0 when solved, 1 otherwise."""
    from webrefs import Browser, WebTools

    out = out or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    task = load_demo_task()
    with demo_site() as base, Browser.launch(headless=headless) as browser:
        start = base + task.start_url
        say(f"demo site: {base}")
        say(f"task:      {task.goal}")
        browser.new_tab(start)
        tools = WebTools(browser, max_tokens=max_tokens, after_action=after_action)
        model = ScriptedModel(task)
        say(f"tools:     {', '.join(tools.names)}")
        say()
        observation: str | None = None
        turn = calls = 0
        while True:
            turn += 1
            reply = model.reply(observation)
            if not has_action(reply):
                answer = reply
                break
            for action in parse_actions(reply, known=tools.names):
                say(f"[{turn}] model -> {action.tool}({json.dumps(action.args)})")
                calls += 1
                result = tools.run(action.tool, action.args)
                status = "error" if result.is_error else "ok"
                say(f"    model saw ({status}, {len(result.content)} chars):")
                say(_indent(result.content, max_lines))
                observation = result.content
            if turn > len(model.calls) + 2:
                answer = "(the script did not finish)"
                break
        url = browser.active_tab.url
    say()
    say(f"answer:    {answer}")
    results = [check_pure(c, answer=answer, url=url, requests=[]) for c in task.success]
    failed = [r.why for r in results if r is not None and not r.ok]
    if failed:
        say("result:    FAILED: " + "; ".join(failed))
        return 1
    say(f"result:    solved with {calls} tool calls")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``webrefs demo``."""
    parser = argparse.ArgumentParser(prog="webrefs demo", description="Run the offline demo agent.")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--max-tokens", type=int, default=3000, help="snapshot token budget")
    parser.add_argument("--after-action", choices=("none", "diff", "snapshot"), default="none",
                        help="what actions return besides their summary")
    parser.add_argument("--lines", type=int, default=40,
                        help="most lines of each tool result to print")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        return run_demo(headless=not args.headed, max_tokens=args.max_tokens,
                        after_action=args.after_action, max_lines=args.lines)
    except WebrefsError as err:
        print(f"demo failed: {err.for_model()}", file=sys.stderr)
        return 1
