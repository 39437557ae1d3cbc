"""Success checks: does the end state of an episode meet a task's ``success`` list?

Each check gives a :class:`CheckResult` that says why it failed, in words a suite author can
act on. Answer, URL and request checks are pure (:func:`check_pure`); element, text,
JavaScript and reward checks read the live page through the public :class:`~webrefs.Tab`
host calls (:func:`check_all`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict
from webrefs import Tab, WebrefsError
from webrefs.models import Node, PageTree, RequestRecord

from .tasks import (
    AnswerCheck,
    Check,
    ElementCheck,
    JsCheck,
    RequestCheck,
    RewardCheck,
    TextCheck,
    UrlCheck,
)

__all__ = ["CheckResult", "check_all", "check_pure", "form_fields", "reward_result"]


class CheckResult(BaseModel):
    """The outcome of one check."""

    model_config = ConfigDict(frozen=True)

    type: str
    ok: bool
    why: str = ""
    """Why it failed (empty when it held)."""
    value: float | None = None
    """The number a check read (a reward check's reward)."""


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def form_fields(record: RequestRecord) -> dict[str, str]:
    """The fields a request carried: its query string, and a URL-encoded or JSON-object body.
    A field sent several times keeps its last value."""
    fields = {k: v[-1] for k, v in parse_qs(urlsplit(record.url).query).items()}
    body = record.post_data
    if body:
        parsed: object = None
        if body.lstrip().startswith("{"):
            try:
                parsed = json.loads(body)
            except json.JSONDecodeError:
                parsed = None
        if isinstance(parsed, dict):
            fields.update({str(k): v if isinstance(v, str) else json.dumps(v)
                           for k, v in parsed.items()})
        else:
            fields.update({k: v[-1] for k, v in
                           parse_qs(body, keep_blank_values=True).items()})
    return fields


def _check_answer(check: AnswerCheck, answer: str) -> CheckResult:
    got = answer.strip()
    fails = []
    if check.contains is not None and check.contains.lower() not in got.lower():
        fails.append(f"does not contain {check.contains!r}")
    if check.equals is not None and check.equals.strip().lower() != got.lower():
        fails.append(f"is not {check.equals!r}")
    if check.regex is not None and not re.search(check.regex, got, re.IGNORECASE):
        fails.append(f"does not match /{check.regex}/")
    if fails:
        return CheckResult(type="answer", ok=False,
                           why=f"the answer {_short(got)!r} " + " and ".join(fails))
    return CheckResult(type="answer", ok=True)


def _check_request(check: RequestCheck, requests: Sequence[RequestRecord]) -> CheckResult:
    pattern = re.compile(check.url)
    candidates = [r for r in requests
                  if r.method.upper() == check.method.upper() and pattern.search(r.url)]
    if not candidates:
        return CheckResult(type="request", ok=False,
                           why=f"no {check.method.upper()} request to a URL matching "
                               f"/{check.url}/ was sent ({len(requests)} requests seen)")
    closest: list[str] = []
    for record in reversed(candidates):
        fields = form_fields(record)
        wrong = [f"{k}={fields.get(k)!r} (wanted {v!r})" for k, v in check.form.items()
                 if fields.get(k) != v]
        if not wrong:
            return CheckResult(type="request", ok=True)
        if not closest or len(wrong) < len(closest):
            closest = wrong
    return CheckResult(type="request", ok=False,
                       why=f"{len(candidates)} matching request(s), none with the fields; "
                           f"closest had " + ", ".join(closest))


def check_pure(check: Check, *, answer: str, url: str,
               requests: Sequence[RequestRecord]) -> CheckResult | None:
    """Answer, URL and request checks; ``None`` for checks that need the page."""
    if isinstance(check, AnswerCheck):
        return _check_answer(check, answer)
    if isinstance(check, UrlCheck):
        if re.search(check.pattern, url):
            return CheckResult(type="url", ok=True)
        return CheckResult(type="url", ok=False,
                           why=f"the final URL {_short(url)!r} does not match /{check.pattern}/")
    if isinstance(check, RequestCheck):
        return _check_request(check, requests)
    return None


def _nodes(tree: PageTree) -> Iterable[Node]:
    stack = [tree.root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _state_problems(check: ElementCheck, node: Node) -> list[str]:
    problems = []
    for state in ("checked", "selected", "disabled", "expanded"):
        want = getattr(check, state)
        if want is None:
            continue
        have = node.states.get(state, False) is True
        if have != want:
            problems.append(f"{state} is {str(have).lower()}")
    if check.value is not None and (node.value or "") != check.value:
        problems.append(f"value is {_short(node.value or '', 60)!r}")
    return problems


def _check_element(check: ElementCheck, tree: PageTree) -> CheckResult:
    def named(node: Node) -> bool:
        if node.role != check.role:
            return False
        if check.name is None:
            return True
        name = node.name.strip().lower()
        return name == check.name.lower() if check.exact else check.name.lower() in name

    matches = [n for n in _nodes(tree) if named(n)]
    what = f"{check.role}" + (f" named {check.name!r}" if check.name else "")
    if not check.present:
        if matches:
            return CheckResult(type="element", ok=False, why=f"a {what} is still on the page")
        return CheckResult(type="element", ok=True)
    if not matches:
        return CheckResult(type="element", ok=False, why=f"no {what} on the page")
    problems: list[str] = []
    for node in matches:
        problems = _state_problems(check, node)
        if not problems:
            return CheckResult(type="element", ok=True)
    return CheckResult(type="element", ok=False,
                       why=f"the {what} is there but its " + " and ".join(problems))


def reward_result(check: RewardCheck, value: object) -> CheckResult:
    """A reward check against what its expression returned: a number, or an object with
    ``reward`` (and optionally ``done`` and ``reason``)."""
    done, reason = True, ""
    if isinstance(value, dict):
        done = value.get("done", True) is not False
        reason = str(value.get("reason") or "")
        value = value.get("reward")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return CheckResult(type="reward", ok=False,
                           why=f"the page gave no reward (got {_short(repr(value), 60)})")
    reward = float(value)
    if not done:
        return CheckResult(type="reward", ok=False, value=reward,
                           why="the page's task is not finished (no reward given)")
    if reward > check.above:
        return CheckResult(type="reward", ok=True, value=reward)
    because = f" ({_short(reason, 80)})" if reason else ""
    return CheckResult(type="reward", ok=False, value=reward,
                       why=f"the reward is {reward:g}{because}, not above {check.above:g}")


async def check_all(
    checks: Sequence[Check],
    *,
    tab: Tab | None,
    answer: str,
    requests: Sequence[RequestRecord],
) -> list[CheckResult]:
    """Every check of a task against the end of an episode (``tab``: the active tab, or
    ``None`` when the browser is gone, which fails the checks that need a page)."""
    url = tab.url if tab is not None else ""
    results: list[CheckResult] = []
    tree: PageTree | None = None
    text: str | None = None
    for check in checks:
        pure = check_pure(check, answer=answer, url=url, requests=requests)
        if pure is not None:
            results.append(pure)
            continue
        if tab is None:
            results.append(CheckResult(type=check.type, ok=False, why="no page is open"))
            continue
        try:
            if isinstance(check, ElementCheck):
                if tree is None:
                    tree = await tab.aread_tree()
                results.append(_check_element(check, tree))
            elif isinstance(check, TextCheck):
                if text is None:
                    text = str(await tab.aevaluate(
                        "() => document.body ? document.body.innerText : ''"))
                found = check.contains.lower() in text.lower()
                if found == check.present:
                    results.append(CheckResult(type="text", ok=True))
                else:
                    where = "is on" if found else "is not on"
                    results.append(CheckResult(type="text", ok=False,
                                               why=f"{check.contains!r} {where} the page"))
            elif isinstance(check, RewardCheck):
                results.append(reward_result(check, await tab.aevaluate(check.expression)))
            elif isinstance(check, JsCheck):
                value = await tab.aevaluate(check.expression)
                if value:
                    results.append(CheckResult(type="js", ok=True))
                else:
                    what = check.description or _short(check.expression, 80)
                    results.append(CheckResult(type="js", ok=False,
                                               why=f"{what}: got {value!r}"))
        except WebrefsError as err:
            results.append(CheckResult(type=check.type, ok=False,
                                       why=f"could not read the page: {err.message[:200]}"))
    return results
