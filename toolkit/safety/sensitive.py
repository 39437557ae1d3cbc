"""Which actions are sensitive: rules as data, and the pure classifier.

Each :class:`Rule` looks at one thing (the page's URL, its visible text, the target's name and
visible text, the kind of action, or the address of a request an action causes) and gives a
level: ``auto`` < ``notify`` < ``confirm`` < ``block``. The
decision is the highest level any rule gives. A target rule may name an ``escalate`` level,
used when the page itself is sensitive too (a URL or text rule matched): "Submit" is only
noted on a blog, but needs consent on a checkout page. ``request`` rules judge only the requests
an action causes (:mod:`webrefs.safety.effects`), never the action itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ..errors import InvalidArgumentError
from ..models import SafetyDecision

__all__ = ["DEFAULT_RULES", "LEVELS", "RULE_SUBJECTS", "TARGET_ACTIONS", "Level", "Rule",
           "classify", "compiled"]

Level = Literal["auto", "notify", "confirm", "block"]
LEVELS: tuple[Level, ...] = ("auto", "notify", "confirm", "block")
"""Levels from least to most guarded."""
TARGET_ACTIONS = ("click", "check", "select", "press_key")
"""Actions whose target's name is judged (they commit something; typing text does not)."""
RULE_SUBJECTS = ("url", "text", "target", "action", "request")
"""What a rule can look at (see :class:`Rule`)."""


@dataclass(frozen=True)
class Rule:
    """One classification rule: ``pattern`` (a case-insensitive regular expression) searched
    in what ``on`` names; when it matches, the action gets at least ``level``.

    ``on``: ``url`` (the page's address; for a request, also the request's), ``text`` (the
    page's visible text), ``target`` (the target's role, name and visible text; for a
    request, the submitting control's text and the form's choices), ``action`` (the action's
    name; for a request, its kind), ``request`` (``"METHOD /path"`` of a request an action
    causes, see :mod:`webrefs.safety.effects`)."""

    on: Literal["url", "text", "target", "action", "request"]
    pattern: str
    level: Level
    reason: str
    """Said to the model and to the consent callback (``"looks like a payment"``)."""
    escalate: Level | None = None
    """For target rules: the level when a URL or text rule matched too."""
    actions: tuple[str, ...] = ()
    """Actions the rule applies to (empty: all; target rules: :data:`TARGET_ACTIONS`). For the
    requests an action causes, the effect kinds: ``navigate``, ``submit``, ``send``."""

    def __post_init__(self) -> None:
        if self.on not in RULE_SUBJECTS:
            raise InvalidArgumentError(f"Rule.on must be one of {', '.join(RULE_SUBJECTS)}, "
                                       f"got {self.on!r}.")
        if isinstance(self.actions, str):
            raise InvalidArgumentError("Rule.actions must be a tuple of names, not a string.")
        object.__setattr__(self, "actions", tuple(self.actions))
        for level in (self.level, self.escalate):
            if level is not None and level not in LEVELS:
                raise InvalidArgumentError(f"Rule level must be one of {LEVELS}, "
                                           f"got {level!r}.")
        try:
            compiled(self.pattern)
        except re.error as exc:
            raise InvalidArgumentError(f"Rule pattern {self.pattern!r} is not a valid "
                                       f"regular expression: {exc}.") from None


@lru_cache(maxsize=512)
def compiled(pattern: str) -> re.Pattern[str]:
    """A rule's pattern, compiled case-insensitively (cached)."""
    return re.compile(pattern, re.IGNORECASE)


_W = r"(?<![a-z])"  # word start for English keywords (CJK has no word boundaries)
DEFAULT_RULES: tuple[Rule, ...] = (
    Rule("action", r"^(upload|evaluate)$", "confirm",
         "uploading files and running scripts always need consent"),
    Rule("url", _W + r"(checkout|payment|pay|billing|purchase|order|cart|login|signin|sign-in"
         r"|delete|account|admin|bank|transfer|wallet|password|unsubscribe)(?![a-z])",
         "notify", "the page's address looks sensitive (payment, account, admin or deletion)"),
    Rule("text", _W + r"(confirm (your )?(payment|purchase|order)|pay now|delete (your )?"
         r"account|close (your )?account|cannot be undone|can ?not be undone|can't be undone"
         r"|permanently delete|irreversible)|确认支付|立即支付|删除账户|注销|取消订阅|确认删除"
         r"|永久删除|不可恢复|无法撤销",
         "notify", "the page talks about a payment, a deletion or something irreversible"),
    Rule("target", _W + r"(pay|purchase|buy|place (the |your |my )?order|order now|checkout"
         r"|check out|delete|remove|erase|destroy|transfer|send money|donate|unsubscribe"
         r"|close account|book (now|it|this( [a-z]+)?)"
         r"|reserve|confirm (the |your |my |this )?(booking|reservation|order|purchase"
         r"|payment|subscription|donation|trip|flight|stay)|complete (the |your |my )?"
         r"(booking|reservation|purchase|order|donation)|make (a |the )?(booking"
         r"|reservation|donation)|subscribe (now|and pay|for)"
         r"|start (a |the |your |my )?(subscription|membership|trial)|renew)(?![a-z])"
         r"|支付|付款|购买|下单|删除|注销|转账|预订|订阅|捐款",
         "confirm", "the target looks like a payment, purchase or deletion"),
    Rule("target", _W + r"(submit|order|cancel|confirm|send|sign up|register|subscribe"
         r"|book)(?![a-z])|提交|确认|取消",
         "notify", "the target submits or cancels something", escalate="confirm"),
    Rule("request", _W + r"(delete|remove|erase|destroy|unsubscribe|deactivate|close[-_ ]?account"
         r"|cancel[-_ ]?(subscription|membership|account|order))(?![a-z])",
         "confirm", "the request deletes, cancels or unsubscribes something"),
    Rule("request", _W + r"(pay|payments?|purchase|buy|checkout|check[-_]out|place[-_ ]?order"
         r"|orders?|transfer|send[-_ ]?money|donate|donations?|withdraw|bookings?|reserve"
         r"|reservations?|subscriptions?)(?![a-z])",
         "confirm", "the request looks like a payment, a purchase or a transfer",
         actions=("submit", "send")),
)
"""The built-in rules (see :class:`Rule`); pass ``rules=DEFAULT_RULES + (...)`` to extend."""


def _higher(a: Level, b: Level) -> Level:
    return a if LEVELS.index(a) >= LEVELS.index(b) else b


def classify(rules: Iterable[Rule], *, action: str, url: str = "", page_text: str = "",
             target_name: str = "") -> SafetyDecision:
    """The level of ``action`` on a page at ``url`` showing ``page_text``, acting on an
    element named ``target_name`` (pure: no browser)."""
    level: Level = "auto"
    reasons: list[str] = []
    page_sensitive = False
    target_hits: list[Rule] = []
    for rule in rules:
        if rule.on == "request" or (rule.actions and action not in rule.actions):
            continue
        if rule.on == "action":
            subject = action
        elif rule.on == "url":
            subject = url
        elif rule.on == "text":
            subject = page_text
        else:
            if not rule.actions and action not in TARGET_ACTIONS:
                continue
            subject = target_name
        if not subject or not compiled(rule.pattern).search(subject):
            continue
        if rule.on == "target":
            target_hits.append(rule)
            continue
        if rule.on in ("url", "text"):
            page_sensitive = True
        level = _higher(level, rule.level)
        if rule.reason not in reasons:
            reasons.append(rule.reason)
    for rule in target_hits:
        got = rule.escalate if (page_sensitive and rule.escalate) else rule.level
        level = _higher(level, got)
        if rule.reason not in reasons:
            reasons.append(rule.reason)
    return SafetyDecision(level=level, reasons=reasons)
