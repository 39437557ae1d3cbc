"""What a request does, judged by the same rules as actions (pure: no browser).

An action is judged by what it is called (:func:`webrefs.safety.sensitive.classify`); the
requests it causes are judged here by what they do, before they are sent. A request is an
:class:`Effect` when it can change something on a server:

- ``submit``: a navigation (top-level or a frame) that carries a body or a method other than
  GET and HEAD: a form submission;
- ``send``: any other request with POST, PUT, PATCH or DELETE (``fetch``, XHR, beacons,
  workers' requests);
- ``navigate``: a GET (or HEAD) navigation, which a link to ``.../delete`` can make harmful.

Other requests (images, scripts, style sheets, GET ``fetch``) are not effects: they read.

:func:`classify_effect` gives an effect its level from the policy's rules:

- ``request`` rules (:class:`~webrefs.safety.sensitive.Rule` with ``on="request"``) look at
  ``"METHOD /path"`` (camelCase split into words; for a navigation only the path, so a search's
  query never counts, for other methods the query too); their ``actions`` name effect kinds;
- ``target`` rules look at the submitting control's visible text (and its label) and at the
  choices made in the submitted form (selected options, checked boxes and radios), escalating
  as for actions when the page or the request is sensitive;
- ``url`` rules (the page's and the request's address) and ``text`` rules (the page's text) only
  make the page sensitive: by themselves they never raise an effect;
- a payment card number anywhere in the request (its URL or body: a Luhn-valid run of 14 to 19
  digits with a card network's prefix and length, spaces and dashes allowed) needs ``confirm``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, unquote_plus, urlsplit

from .sensitive import LEVELS, Level, Rule, compiled

__all__ = ["BODY_CHARS", "CARD_REASON", "EFFECT_KINDS", "JUDGED_METHODS", "MAX_CARD_CHECKS",
           "Effect", "EffectKind",
           "EffectVerdict", "FormContext", "body_text", "card_numbers", "classify_effect",
           "effect_kind", "luhn_valid", "mask_cards", "request_subject"]

EffectKind = Literal["navigate", "submit", "send"]
EFFECT_KINDS: tuple[EffectKind, ...] = ("navigate", "submit", "send")
JUDGED_METHODS = ("POST", "PUT", "PATCH", "DELETE")
"""Methods of a non-navigation request that make it an effect."""
BODY_CHARS = 65_536
"""How much of a request's body is read for card numbers."""
CARD_REASON = "the request carries a payment card number"
MAX_CARD_CHECKS = 2000
"""Most candidate card numbers checked in one request."""

_SPLIT_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# a run of 14 or more digits, single spaces or dashes allowed between them (a card number is
# a run of its groups: 14 to 19 digits)
_DIGIT_RUN = re.compile(r"(?<![0-9])[0-9](?:[ \-]?[0-9]){13,}")
# card networks by prefix and length (Visa, Mastercard, American Express, Discover, Diners
# Club, JCB, UnionPay); 13-digit Visa numbers are left out, since phone numbers with a
# country code starting with 4 look like them
_NETWORKS: tuple[tuple[re.Pattern[str], tuple[int, ...]], ...] = (
    (re.compile(r"^4"), (16, 19)),
    (re.compile(r"^(5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)"), (16,)),
    (re.compile(r"^3[47]"), (15,)),
    (re.compile(r"^(6011|64[4-9]|65)"), (16, 17, 18, 19)),
    (re.compile(r"^(30[0-5]|36|38|39)"), (14, 15, 16, 17, 18, 19)),
    (re.compile(r"^(352[89]|35[3-8][0-9])"), (16, 17, 18, 19)),
    (re.compile(r"^62"), (16, 17, 18, 19)),
)
_FIRST_DIGITS = frozenset("23456")


def effect_kind(method: str, resource_type: str, navigation: bool) -> EffectKind | None:
    """The kind of effect a request is, or ``None`` when it only reads."""
    method = method.upper()
    if navigation or resource_type == "document":
        return "navigate" if method in ("GET", "HEAD") else "submit"
    return "send" if method in JUDGED_METHODS else None


@dataclass(frozen=True)
class Effect:
    """A request about to be sent, with what is known of where it came from."""

    method: str
    url: str
    kind: EffectKind
    body: str = ""
    """The body as text (:func:`body_text`)."""
    page_url: str = ""
    """The address of the page that sends it."""
    page_text: str = ""
    """The visible text of that page, when read."""
    submitter: str = ""
    """The visible text and label of the control that submitted the form, when known (for an
    implicit submission, such as Enter in a field, the form's default button)."""
    choices: tuple[str, ...] = ()
    """Labels of the choices made in the submitted form: selected options, checked boxes."""


@dataclass(frozen=True)
class FormContext:
    """The form an action's element belongs to, as the page showed it before the action: a
    form submission's own request cannot wait for a page read (the browser holds every
    DevTools call to a frame while a navigation of it is pending), so what the rules need of
    the form is read before the action and matched to the request by address and method."""

    action: str
    """The absolute address the form submits to (for the control that submits it)."""
    method: str
    """``GET`` or ``POST``."""
    submitter: str = ""
    """The visible text and label of the control that submits it: the action's element when
    it is a submit button of the form, else the form's default button."""
    choices: tuple[str, ...] = ()
    """Labels of the choices that differ from the form's defaults, and those the action makes
    (a select's options)."""

    def matches(self, method: str, url: str) -> bool:
        """Whether a request (``method``, ``url``) is this form's submission (for GET, the
        query is the form's fields and is not compared)."""
        if method.upper() != self.method.upper():
            return False
        mine, theirs = self.action.split("#")[0], url.split("#")[0]
        if method.upper() == "GET":
            mine, theirs = mine.split("?")[0], theirs.split("?")[0]
        return mine == theirs


@dataclass(frozen=True)
class EffectVerdict:
    """How the rules judged an :class:`Effect`."""

    level: Level
    reasons: tuple[str, ...]
    page_text_matters: bool
    """A target rule matched that the page's text could still raise (the verdict was made
    without the page's text, or with text that did not make the page sensitive)."""
    cards: int = 0
    """How many payment card numbers the request carries."""


def luhn_valid(digits: str) -> bool:
    """Whether a string of digits passes the Luhn check."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _is_card(digits: str) -> bool:
    return (digits[:1] in _FIRST_DIGITS
            and any(p.match(digits) and len(digits) in lengths for p, lengths in _NETWORKS)
            and luhn_valid(digits))


def _card_in(run: str, budget: list[int]) -> str | None:
    """The card number a run of digit groups holds: the whole run, or a sequence of its
    groups (``qty 2 4111 1111 1111 1111`` joins a quantity to a card). Each sequence of the
    right length that is checked spends one of ``budget``."""
    groups = [g for g in re.split(r"[ \-]", run) if g]
    for i in range(len(groups)):
        if budget[0] <= 0:
            return None
        if groups[i][:1] not in _FIRST_DIGITS:
            continue
        digits = ""
        for j in range(i, min(i + 19, len(groups))):  # 19 digits at most
            digits += groups[j]
            if len(digits) > 19 or budget[0] <= 0:
                break
            if len(digits) >= 14:
                budget[0] -= 1
                if _is_card(digits):
                    return digits
    return None


def card_numbers(text: str) -> list[str]:
    """The payment card numbers in ``text`` (digits only), in order (at most
    :data:`MAX_CARD_CHECKS` candidate numbers are checked: a body of nothing but digit groups
    cannot make this slow)."""
    found: list[str] = []
    budget = [MAX_CARD_CHECKS]
    for match in _DIGIT_RUN.finditer(text):
        card = _card_in(match.group(), budget)
        if card is not None:
            found.append(card)
        if budget[0] <= 0:
            break
    return found


def mask_cards(text: str) -> str:
    """``text`` with every run of digits holding a card number shown only by the card's last
    four digits."""
    budget = [MAX_CARD_CHECKS]

    def mask(match: re.Match[str]) -> str:
        card = _card_in(match.group(), budget)
        return f"[card ending {card[-4:]}]" if card is not None else match.group()

    return _DIGIT_RUN.sub(mask, text)


def body_text(body: bytes | str | None, content_type: str = "") -> str:
    """A request body as text for the rules (first :data:`BODY_CHARS`): a URL-encoded form is
    decoded (``+`` is a space); anything else is read as UTF-8, unreadable bytes replaced."""
    if body is None:
        return ""
    raw = body[: BODY_CHARS * 3]
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if "x-www-form-urlencoded" in content_type.lower() or (
            not content_type and re.fullmatch(r"[\w.%+\-*~]*=[^\s]*", text[:2000])):
        text = unquote_plus(text)
    return text[:BODY_CHARS]


def request_subject(method: str, url: str, kind: EffectKind) -> str:
    """What ``request`` rules search: ``"METHOD /path"``, the query added for methods other
    than GET and HEAD; percent-escapes decoded and camelCase split into words."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return method.upper()
    where = unquote(parts.path)
    if kind != "navigate" and parts.query:
        where += "?" + unquote_plus(parts.query)
    return f"{method.upper()} {_SPLIT_CAMEL.sub(' ', where)}"


def _higher(a: Level, b: Level) -> Level:
    return a if LEVELS.index(a) >= LEVELS.index(b) else b


def classify_effect(rules: Iterable[Rule], effect: Effect) -> EffectVerdict:
    """The level of ``effect`` by ``rules`` (see the module docstring)."""
    level: Level = "auto"
    reasons: list[str] = []
    context: list[str] = []
    page_sensitive = False
    target_hits: list[Rule] = []
    subject_of_request = request_subject(effect.method, effect.url, effect.kind)
    chosen = " | ".join(x for x in (effect.submitter, *effect.choices) if x)
    for rule in rules:
        if rule.actions and effect.kind not in rule.actions:
            continue
        pattern = compiled(rule.pattern)
        if rule.on == "request":
            if pattern.search(subject_of_request):
                level = _higher(level, rule.level)
                if rule.reason not in reasons:
                    reasons.append(rule.reason)
        elif rule.on == "url":
            if any(u and pattern.search(u) for u in (effect.page_url, effect.url)):
                page_sensitive = True
                context.append(rule.reason)
        elif rule.on == "text":
            if effect.page_text and pattern.search(effect.page_text):
                page_sensitive = True
                context.append(rule.reason)
        elif rule.on == "target":
            if chosen and pattern.search(chosen):
                target_hits.append(rule)
        elif rule.on == "action" and pattern.search(effect.kind):
            level = _higher(level, rule.level)
            if rule.reason not in reasons:
                reasons.append(rule.reason)
    text_matters = False
    escalated = False
    for rule in target_hits:
        rises = rule.escalate is not None and LEVELS.index(rule.escalate) > LEVELS.index(
            rule.level)
        got = rule.escalate if (page_sensitive and rule.escalate) else rule.level
        text_matters = text_matters or (rises and not page_sensitive)
        escalated = escalated or (rises and page_sensitive)
        level = _higher(level, got)
        if rule.reason not in reasons:
            reasons.append(rule.reason)
    cards = len(card_numbers(f"{unquote_plus(effect.url)}\n{effect.body}"))
    if cards:
        level = _higher(level, "confirm")
        reasons.append(CARD_REASON)
    if escalated:  # what made the page sensitive counts only where it raised a level
        reasons.extend(r for r in context if r not in reasons)
    return EffectVerdict(level=level, reasons=tuple(reasons), page_text_matters=text_matters,
                         cards=cards)
