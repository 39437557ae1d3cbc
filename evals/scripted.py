"""A scripted "model" that solves a task from its reference solution, reading refs from what it
is shown, never from a hard-coded list. Used by the demo, the examples and the adapter tests in
place of an LLM, so an agent loop runs offline and deterministically.

A task (``webrefs.evals`` suite data) lists solution steps such as::

    {"tool": "web_fill", "ref": {"roles": ["searchbox"], "name": "Search"},
     "args": {"value": "lighthouse"}}

Before emitting that call, :class:`ScriptedModel` looks up the ref in the latest snapshot it
saw: the first line whose role is one of ``roles`` and whose name contains ``name``.
Pure code: no browser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from webrefs.errors import WebrefsError

__all__ = [
    "RefQuery",
    "ScriptError",
    "ScriptedModel",
    "Step",
    "Task",
    "find_ref",
    "load_suite",
]

_LINE = re.compile(
    r"^\+?\s*-\s+(?P<role>[\w-]+)(?:\s+\"(?P<name>(?:[^\"\\]|\\.)*)\")?(?P<rest>.*?)"
    r"\[ref=(?P<ref>[\w-]+)\]"
)


class ScriptError(WebrefsError):
    """The script cannot go on: the page does not show what the next step needs."""

    code = "script_failed"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RefQuery(_Model):
    """Which snapshot line a step acts on."""

    roles: tuple[str, ...]
    """Accepted roles, e.g. ``("searchbox", "textbox")``."""
    name: str | None = None
    """Case-insensitive substring of the accessible name."""


class Step(_Model):
    """One tool call of a reference solution."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    ref: RefQuery | None = None
    """When set, ``args["ref"]`` is looked up in the latest snapshot."""


class Answer(_Model):
    pattern: str
    """Regex searched in the tool results seen, newest first; its groups fill ``template``."""
    template: str = "{0}"


class Success(_Model):
    answer_contains: str | None = None
    url_contains: str | None = None


class Task(_Model):
    id: str
    goal: str
    start: str
    """Start page, relative to the suite's site."""
    solution: tuple[Step, ...]
    answer: Answer
    success: Success = Field(default_factory=Success)

    def check(self, answer: str, url: str) -> list[str]:
        """Unmet success conditions (empty when the task is solved)."""
        failed = []
        want = self.success.answer_contains
        if want is not None and want.lower() not in answer.lower():
            failed.append(f"the answer does not contain {want!r}")
        where = self.success.url_contains
        if where is not None and where not in url:
            failed.append(f"the final URL {url!r} does not contain {where!r}")
        return failed


def load_suite(data: str | bytes | dict[str, Any]) -> list[Task]:
    """Tasks of a suite file (JSON text or an already parsed dict)."""
    raw = json.loads(data) if isinstance(data, str | bytes) else data
    return [Task.model_validate(t) for t in raw["tasks"]]


def find_ref(snapshot_text: str, roles: Sequence[str], name: str | None = None) -> str | None:
    """Ref of the first outline line with one of ``roles`` whose name contains ``name``."""
    wanted = {r.lower() for r in roles}
    for line in snapshot_text.splitlines():
        m = _LINE.match(line)
        if not m or m.group("role").lower() not in wanted:
            continue
        label = (m.group("name") or "").lower()
        if name is None or name.lower() in label:
            return m.group("ref")
    return None


class ScriptedModel:
    """Plays a task's reference solution one call at a time, reading what the tools return.

    ``next_call(observation)`` takes the text the previous tool returned (``None`` at the
    start) and gives the next ``(tool, args)``, or ``None`` when the script is done; then
    ``answer()`` is the final reply. ``reply(observation)`` does the same as text, in the
    JSON-in-markdown action format, for text-only loops.
    """

    def __init__(self, task: Task) -> None:
        self.task = task
        self._next = 0
        self._outlines: list[str] = []
        self._seen: list[str] = []
        self.log: list[tuple[str, dict[str, Any]]] = []
        """Calls emitted so far."""

    @property
    def done(self) -> bool:
        return self._next >= len(self.task.solution)

    def observe(self, observation: str | None) -> None:
        """Read a tool result: remember it, and the outline (snapshot or diff) when it holds
        refs."""
        if not observation:
            return
        self._seen.append(observation)
        if "[ref=" in observation:
            self._outlines.append(observation)

    def next_call(self, observation: str | None = None) -> tuple[str, dict[str, Any]] | None:
        self.observe(observation)
        if self.done:
            return None
        step = self.task.solution[self._next]
        args = dict(step.args)
        if step.ref is not None:
            ref = None
            for outline in reversed(self._outlines):  # newest first: snapshots and diffs
                ref = find_ref(outline, step.ref.roles, step.ref.name)
                if ref is not None:
                    break
            if ref is None:
                want = "/".join(step.ref.roles)
                if step.ref.name:
                    want += f" named {step.ref.name!r}"
                raise ScriptError(
                    f"Step {self._next + 1} ({step.tool}) needs a {want}, but the latest "
                    "snapshot shows none.",
                    hint="The page may not have loaded, or the outline format changed.",
                )
            args["ref"] = ref
        self._next += 1
        self.log.append((step.tool, args))
        return step.tool, args

    def answer(self) -> str:
        """The final reply, from the newest tool result that matches the answer pattern."""
        pattern = re.compile(self.task.answer.pattern, re.IGNORECASE)
        for text in reversed(self._seen):
            m = pattern.search(text)
            if m:
                return self.task.answer.template.format(*m.groups(), match=m.group(0))
        return "I could not find the answer."

    def reply(self, observation: str | None = None) -> str:
        """The next turn as text: a fenced JSON action, or the final answer."""
        call = self.next_call(observation)
        if call is None:
            return self.answer()
        tool, args = call
        body = json.dumps({"tool": tool, "args": args})
        return f"Next I call {tool}.\n```json\n{body}\n```"
