"""The ``heuristic`` eval provider: a generic, model-free policy, the floor any LLM must beat.

It reads the goal and each outline and picks actions by matching goal words to roles and
names: it fills the field whose label matches the words around a value in the goal (a
quoted text, an email address, a date, a number, a name), picks options and radio buttons
whose names share words with the goal, clicks the button or link whose name best matches
the goal, and answers questions with the sentence of ``web_get_text`` that shares most words
with the question. One policy for every task: no task ids, no per-task code.

:class:`HeuristicPolicy` is pure (no browser, no LangChain); :class:`HeuristicChatModel` wraps
it as a LangChain chat model for the agent loop.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webrefs.errors import missing_extra

try:
    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.messages import BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.evals.baselines.heuristic", "langchain") from exc

from pydantic import PrivateAttr

from .offline_model import OfflineChatModel, message_text

__all__ = ["Element", "HeuristicChatModel", "HeuristicPolicy", "goal_values", "parse_outline"]

_LINE = re.compile(r"^[+~]?\s*-\s+(?P<role>[\w-]+)(?:\s+\"(?P<name>(?:[^\"\\]|\\.)*)\")?"
                   r"(?P<rest>.*?)\[ref=(?P<ref>[\w-]+)\]")
_ATTR_VALUE = re.compile(r'\[value="((?:[^"\\]|\\.)*)"\]')
_ATTR_OPTIONS = re.compile(r"\[options=([^\]]*)\]")
_WORD = re.compile(r"[a-z0-9]+")


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP = _set("""a an the and or of to in on at for from by with as is are was be me my i you your it
its this that these those what which who how much many does do did can could would
should will please tell find give get set make let us our there their then than if
into about new all any some one not no only just answer""")
VERBS = _set("""add buy order send email reply book search archive delete remove change turn stop
keep switch sign create subscribe donate open use browse refuse rename cost costs
weigh weighs built restored happen found show""")
NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}
MONTHS = {m: i for i, m in enumerate((
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december"), 1)}
SUBMIT = _set("""send save submit place confirm search apply continue subscribe donate post
calculate verify create sign yes""")
FILLABLE = frozenset({"textbox", "searchbox", "spinbutton"})
CLICKABLE = frozenset({"button", "link", "tab", "option", "menuitem", "switch"})


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class Element:
    """One line of an outline that carries a ref."""

    role: str
    name: str
    ref: str
    value: str | None = None
    options: tuple[str, ...] = ()
    checked: bool = False
    disabled: bool = False


def parse_outline(text: str) -> list[Element]:
    """The elements of an outline (snapshot or diff), in order."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        rest = m.group("rest")
        value = _ATTR_VALUE.search(rest)
        options = _ATTR_OPTIONS.search(rest)
        out.append(Element(
            role=m.group("role").lower(), name=(m.group("name") or "").replace('\\"', '"'),
            ref=m.group("ref"), value=value.group(1) if value else None,
            options=tuple(options.group(1).split("|")) if options else (),
            checked="[checked]" in rest, disabled="[disabled]" in rest))
    return out


@dataclass(frozen=True)
class Value:
    """A value the goal gives, with the words around it (what it is for)."""

    text: str
    kind: str
    """quoted, email, date, card, address, number, name or place."""
    context: tuple[str, ...]


def _iso(day: str, month: str, year: str) -> str:
    return f"{int(year):04d}-{MONTHS[month.lower()]:02d}-{int(day):02d}"


def goal_values(goal: str) -> list[Value]:
    """Values in the goal with their context words (the words just before and after)."""
    found: list[tuple[int, int, str, str]] = []
    patterns: list[tuple[str, str, Callable[[re.Match[str]], str]]] = [
        ("quoted", r"(?<![\w])'([^']+?)'(?![\w])|\"([^\"]+)\"", lambda m: m.group(1) or m.group(2)),
        ("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", lambda m: m.group(0)),
        ("card", r"\b\d{4}(?: \d{4}){3}\b", lambda m: m.group(0)),
        ("date", r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b",
         lambda m: _iso(m.group(1), m.group(2), m.group(3))),
        ("date", r"\b\d{4}-\d{2}-\d{2}\b", lambda m: m.group(0)),
        ("address", r"\b\d{1,4}(?: [A-Z][a-z]+)+ (?:Street|Road|Walk|Lane|Way|Avenue)\b",
         lambda m: m.group(0)),
        ("number", r"(?<![\w.,-])\d{1,5}(?: \d{3})?(?:[.,]\d\d)?(?![\w.-]*\w)",
         lambda m: m.group(0)),
        ("number", r"\b(" + "|".join(NUMBERS) + r")\b", lambda m: NUMBERS[m.group(1).lower()]),
        ("name", r"(?<=[a-z,] )([A-Z][a-z]+(?: [A-Z][a-z]+)+)", lambda m: m.group(1)),
        ("place", r"(?<=[a-z,] )([A-Z][a-z]+)\b", lambda m: m.group(1)),
    ]
    for kind, pattern, get in patterns:
        flags = re.IGNORECASE if kind in ("date",) else 0
        for m in re.finditer(pattern, goal, flags):
            if any(s <= m.start() < e or s < m.end() <= e for s, e, _, _ in found):
                continue
            found.append((m.start(), m.end(), kind, get(m)))
    out = []
    for start, end, kind, text in sorted(found):
        before = words(goal[:start])[-4:]
        after = words(goal[end:])[:3]
        out.append(Value(text, kind, tuple(before + after)))
    return out


def _label_score(label: str, value: Value) -> float:
    """How well a field's label matches what a value is for."""
    score = 0.0
    label_words = [w for w in words(label) if w not in STOP or w in ("to", "cc")]
    for w in label_words:
        for c in value.context:
            if w == c or (len(w) >= 4 and (w in c or c in w)):
                score += 1.0
    kinds = {"email": ("email", "to", "cc"), "date": ("date",), "card": ("card",),
             "name": ("name", "passenger", "holder", "from", "to"),
             "number": ("quantity", "weight", "postcode", "amount", "stock", "price"),
             "place": ("from", "to", "city"), "address": ("street", "address")}
    if any(k in label_words for k in kinds.get(value.kind, ())):
        score += 0.5
    return score


@dataclass
class HeuristicPolicy:
    """Picks the next tool call from the goal and what the tools returned. Pure."""

    goal: str
    max_calls: int = 30
    outline: list[Element] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    used_values: set[str] = field(default_factory=set)
    done_refs: set[str] = field(default_factory=set)
    clicked_names: set[str] = field(default_factory=set)
    last_filled: str = ""
    need_snapshot: bool = True
    read_page: bool = False
    calls: int = 0

    def __post_init__(self) -> None:
        self.values = goal_values(self.goal)
        self.question = self.goal.rstrip().endswith("?") or bool(re.match(
            r"(what|how|which|who|when|where|in which|according)\b", self.goal.strip(), re.I))
        self.goal_words = [w for w in words(self.goal) if w not in STOP]
        self.topic = [w for w in self.goal_words if w not in VERBS]

    # -- reading results -----------------------------------------------------------------------
    def observe(self, tool: str | None, result: str) -> None:
        if "[ref=" in result and (tool == "web_snapshot" or result.startswith("[snapshot]")):
            self.outline = parse_outline(result)
            self.need_snapshot = False
        elif tool == "web_get_text":
            self.texts.append(result)
        if tool in ("web_click", "web_press_key", "web_scroll", "web_go_back") or \
                "navigated to" in result:
            self.need_snapshot = True
            if "navigated to" in result or "active tab changed" in result:
                self.read_page = False
                self.done_refs.clear()

    # -- choosing -------------------------------------------------------------------------------
    def _overlap(self, name: str, pool: Sequence[str]) -> float:
        ws = [w for w in words(name) if w not in STOP]
        if not ws:
            return 0.0
        hits = sum(1 for w in ws if any(w == g or (len(w) >= 4 and (w in g or g in w))
                                        for g in pool))
        return float(hits / len(ws) ** 0.5)

    def _fill(self) -> tuple[str, dict[str, Any]] | None:
        for el in self.outline:
            if el.ref in self.done_refs or el.disabled:
                continue
            editable_combo = el.role == "combobox" and not el.options
            if el.role not in FILLABLE and not editable_combo:
                continue
            if el.value and el.role != "spinbutton":
                continue
            best, best_score = None, 0.0
            for v in self.values:
                if v.text in self.used_values:
                    continue
                s = _label_score(el.name, v)
                if s > best_score:
                    best, best_score = v, s
            if best is None and el.role == "searchbox" and self.topic:
                text = " ".join(w for w in self.topic[:3])
                best = Value(text, "quoted", ())
            if best is None:
                continue
            self.done_refs.add(el.ref)
            self.used_values.add(best.text)
            value = best.text.replace(" ", "") if "postcode" in el.name.lower() else best.text
            self.last_filled = value
            return "web_fill", {"ref": el.ref, "value": value}
        return None

    def _choose(self) -> tuple[str, dict[str, Any]] | None:
        for el in self.outline:
            if el.ref in self.done_refs or el.disabled:
                continue
            if el.role in ("combobox", "listbox") and el.options:
                scored = [(self._overlap(o, self.goal_words), o) for o in el.options]
                score, option = max(scored)
                if score > 0 and option != el.value:
                    self.done_refs.add(el.ref)
                    return "web_select", {"ref": el.ref, "values": [option]}
            if el.role in ("radio", "checkbox") and not el.checked:
                wanted = self._overlap(el.name, self.goal_words) >= 0.5 or any(
                    w in ("terms", "agree") for w in words(el.name))
                if wanted:
                    self.done_refs.add(el.ref)
                    return "web_check", {"ref": el.ref, "checked": True}
        return None

    def _click(self) -> tuple[str, dict[str, Any]] | None:
        best: tuple[float, Element] | None = None
        filled = any(el.role in FILLABLE and el.ref in self.done_refs for el in self.outline)
        for el in self.outline:
            if el.role not in CLICKABLE or el.disabled or el.ref in self.done_refs:
                continue
            if el.name.lower() in self.clicked_names and el.role != "option":
                continue
            score = (self._overlap(el.name, self.topic)
                     + 0.5 * self._overlap(el.name, self.goal_words))
            if el.role == "option" and self.last_filled:
                score += 2 * self._overlap(el.name, words(self.last_filled))
            if el.role == "button" and filled and any(w in SUBMIT for w in words(el.name)):
                score += 1.0
            if best is None or score > best[0]:
                best = (score, el)
        if best is None or best[0] < 0.7:
            return None
        el = best[1]
        self.done_refs.add(el.ref)
        self.clicked_names.add(el.name.lower())
        if el.role == "option":
            self.last_filled = ""
        return "web_click", {"ref": el.ref}

    def next_call(self) -> tuple[str, dict[str, Any]] | None:
        """The next ``(tool, args)``, or ``None`` to answer."""
        if self.calls >= self.max_calls:
            return None
        self.calls += 1
        if self.need_snapshot or not self.outline:
            return "web_snapshot", {}
        if self.question and not self.read_page:
            self.read_page = True
            return "web_get_text", {"max_length": 8000}
        if self.question and self._best_sentence()[0] >= 0.6 * max(1, len(set(self.topic))):
            return None
        return self._fill() or self._choose() or self._click()

    def _best_sentence(self) -> tuple[float, str]:
        best = (0.0, "")
        for text in self.texts:
            for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
                ws = set(words(sentence))
                score = float(sum(1 for w in set(self.topic) if w in ws or
                                  any(len(w) >= 4 and w[:5] == x[:5] for x in ws)))
                if score > best[0] and re.search(r"\d|[A-Z]", sentence):
                    best = (score, sentence.strip())
        return best

    def answer(self) -> str:
        """The final reply: for a question, the sentence that best matches it."""
        if self.question:
            sentence = self._best_sentence()[1]
            return sentence or "I could not find the answer."
        return "Done."


class HeuristicChatModel(OfflineChatModel):
    """:class:`HeuristicPolicy` as a LangChain chat model: reads the goal from the first human
    message and each tool result, answers with one tool call per turn."""

    max_calls: int = 30
    _policy: HeuristicPolicy | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "webrefs-heuristic"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._policy is None:
            goal = self.goal_of(messages)
            self._policy = HeuristicPolicy(goal=goal, max_calls=self.max_calls)
        policy = self._policy
        for result in self.new_tool_results(messages):
            policy.observe(result.name, message_text(result))
        call = policy.next_call()
        message = (self.tool_call("final_answer", {"answer": policy.answer()}) if call is None
                   else self.tool_call(*call))
        return ChatResult(generations=[ChatGeneration(message=message)])
