"""A scripted "model" that plays a task's reference solution, reading refs from what it is
shown, never from a hard-coded list. It is the ``reference`` eval provider, and stands in for an
LLM in the demo, the examples and the adapter tests, so an agent loop runs offline and
deterministically.

A reference step such as::

    {"tool": "web_fill", "target": {"role": ["searchbox"], "name": "Search"},
     "args": {"value": "lighthouse"}}

is emitted with ``args["ref"]`` looked up in the newest outline (snapshot or diff) the model
saw: the first line whose role is one of ``role`` and whose name contains ``name``.

It reads what each result gave it, as a model would: the changes an action returns
(``after_action="diff"``) are outlines too (their added and changed lines, never a ref a newer
diff named as removed), and a bare ``web_snapshot`` step right after an action whose result
already carried the active tab's page, its changes, or that nothing else changed (with at
most ``web_get_text`` calls between, which change nothing) is left out, and so is a last
bare ``web_get_text`` when such a result already shows what the answer is read from.
With ``after_action="none"`` results carry no page, so every step is played.
Pure code: no browser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from webrefs.errors import WebrefsError
from webrefs.render.diff import refs_in_runs
from webrefs.tools.fmt import CHANGES, NO_OTHER_CHANGE, PAGE_NOW

from ..suite.tasks import AnswerSpec, Task, ToolStep

__all__ = ["ScriptError", "ScriptedModel", "find_ref"]

_LINE = re.compile(
    r"^\+?\s*-\s+(?P<role>[\w-]+)(?:\s+\"(?P<name>(?:[^\"\\]|\\.)*)\")?(?P<rest>.*?)"
    r"\[ref=(?P<ref>[\w-]+)\]"
)


_CHANGE = re.compile(r"^(\s*)[+~] (?=[\w-]+)")
"""An added or changed element's line in a diff (``+ button ...``, ``  ~ textbox ...``)."""
_WAS = re.compile(r"  \(was: .*\)$")
_REMOVED = "- removed: "
_READS = frozenset({"web_snapshot", "web_get_text", "web_tabs", "web_screenshot"})
"""Tools whose result is not an action's."""
_SWITCHED = "the active tab changed"
"""In a result whose page may not be the active tab's (the tools switched tabs)."""

_FENCE = re.compile(r"^<<<(?:end of )?page content [0-9a-f]+[^\n]*>>>$\n?", re.M)
"""The lines that fence page content in tool outputs (read past, as a model would)."""

class ScriptError(WebrefsError):
    """The script cannot go on: the page does not show what the next step needs."""

    code = "script_failed"


def find_ref(snapshot_text: str, roles: Sequence[str], name: str | None = None,
             *, exact: bool = False, skip: set[str] | frozenset[str] = frozenset()
             ) -> str | None:
    """Ref of the first outline line with one of ``roles`` whose name contains ``name``
    (case-insensitive; equals it with ``exact``), refs in ``skip`` left out."""
    wanted = {r.lower() for r in roles}
    for line in snapshot_text.splitlines():
        m = _LINE.match(line)
        if not m or m.group("role").lower() not in wanted or m.group("ref") in skip:
            continue
        label = (m.group("name") or "").replace('\\"', '"').lower()
        if name is None or (label == name.lower() if exact else name.lower() in label):
            return m.group("ref")
    return None


def _diff_outline(text: str) -> tuple[str, frozenset[str]]:
    """A result holding a diff as outline lines (each added or changed element as ``- role
    ...``; a removed text, a context line and the old state left out), with the refs the diff
    names as removed."""
    lines: list[str] = []
    removed: set[str] = set()
    for line in text.split("\n"):
        if line.startswith(_REMOVED):
            removed.update(refs_in_runs(line[len(_REMOVED):]))
        elif _CHANGE.match(line):
            lines.append(_WAS.sub("", _CHANGE.sub(r"\1- ", line, count=1)))
        elif not line.startswith("- "):
            lines.append(line)
    return "\n".join(lines), frozenset(removed)


class ScriptedModel:
    """Plays a task's reference solution one call at a time, reading what the tools return.

    ``next_call(observation)`` takes the text the previous tool returned (``None`` at the
    start) and gives the next ``(tool, args)``, or ``None`` when the script is done; then
    ``answer()`` is the final reply. ``reply(observation)`` does the same as text, in the
    JSON-in-markdown action format, for text-only loops.
    """

    def __init__(self, task: Task) -> None:
        self.task = task
        self.calls: tuple[ToolStep, ...] = task.reference_calls
        """The tool calls of the reference, in order."""
        self._next = 0
        self._outlines: list[tuple[str, frozenset[str]]] = []
        """Each outline read (a diff as outline lines), with the refs it names as removed."""
        self._seen: list[str] = []
        self._answered = False
        """The last result was an action's that carried the active tab's page or changes."""
        self.log: list[tuple[str, dict[str, Any]]] = []
        """Calls emitted so far."""

    @property
    def done(self) -> bool:
        return self._next >= len(self.calls)

    def observe(self, observation: str | None) -> None:
        """Read a tool result: remember it, and the outline (snapshot or diff) when it holds
        refs."""
        if not observation:
            return
        observation = _FENCE.sub("", observation)  # the page-content fence lines
        self._seen.append(observation)
        last = self.log[-1][0] if self.log else None
        if last != "web_get_text":  # reading the text changes nothing: what was shown holds
            self._answered = last not in _READS and last is not None \
                and _SWITCHED not in observation and (
                    PAGE_NOW in observation or CHANGES in observation
                    or observation.rstrip().endswith(NO_OTHER_CHANGE))
        if "\n[diff]" in observation or observation.startswith("[diff]"):
            self._outlines.append(_diff_outline(observation))
        elif "[ref=" in observation:
            self._outlines.append((observation, frozenset()))

    def next_call(self, observation: str | None = None) -> tuple[str, dict[str, Any]] | None:
        self.observe(observation)
        if self.done:
            return None
        step = self.calls[self._next]
        if self._answered and step.tool == "web_snapshot" and not step.args:
            self._next += 1  # the action's result showed the page already
            if self.done:
                return None
            step = self.calls[self._next]
        if self._answered and step.tool == "web_get_text" and not step.args \
                and self._next == len(self.calls) - 1 and self._shows_answer():
            self._next += 1  # the page the action's result showed holds the answer
            return None
        args = dict(step.args)
        if step.target is not None:
            target = step.target
            ref = None
            gone: set[str] = set()  # refs a newer diff named as removed
            for outline, removed in reversed(self._outlines):  # newest first
                ref = find_ref(outline, target.role, target.name, exact=target.exact,
                               skip=gone)
                if ref is not None:
                    break
                gone |= removed
            if ref is None:
                want = "/".join(target.role)
                if target.name:
                    want += f" named {target.name!r}"
                raise ScriptError(
                    f"Step {self._next + 1} ({step.tool}) needs a {want}, but the latest "
                    "snapshot shows none.",
                    hint="The page may not have loaded, or the outline format changed.",
                )
            args["ref"] = ref
        self._next += 1
        self.log.append((step.tool, args))
        return step.tool, args

    def _shows_answer(self) -> bool:
        """Whether the newest result holds what the answer is read from."""
        step = self.task.reference_answer
        if step is None or not isinstance(step.answer, AnswerSpec) or not self._seen:
            return False
        return re.search(step.answer.pattern, self._seen[-1], re.IGNORECASE) is not None

    def answer(self) -> str:
        """The final reply: the reference's fixed answer, or one read from the newest tool
        result that matches its pattern."""
        step = self.task.reference_answer
        if step is None:
            return "Done."
        if not isinstance(step.answer, AnswerSpec):
            return step.answer
        spec = step.answer
        pattern = re.compile(spec.pattern, re.IGNORECASE)
        for text in reversed(self._seen):
            m = pattern.search(text)
            if m:
                return spec.template.format(*m.groups(), match=m.group(0))
        return "I could not find the answer."

    def reply(self, observation: str | None = None) -> str:
        """The next turn as text: a fenced JSON action, or the final answer."""
        call = self.next_call(observation)
        if call is None:
            return self.answer()
        tool, args = call
        body = json.dumps({"tool": tool, "args": args})
        return f"Next I call {tool}.\n```json\n{body}\n```"
