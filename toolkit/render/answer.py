"""What the page said in answer to an action: pure logic, no browser.

The actions layer reads a small probe of the page in webrefs' world before an action (when the
readiness monitor is armed) and after the page settled (:mod:`webrefs.actions.answer`). This
module turns the two reads into a :class:`~webrefs.PageAnswer` and the answer into the words a
model reads:

- :func:`parse_probe` checks a read field by field (it is data from a page's document: every
  string is capped, every list bounded, anything of the wrong type dropped);
- :func:`page_answer` decides what counts as the answer: on the same document, what appeared
  or changed (live regions, dialogs, toasts, fields marked invalid, the browser's own form
  check, the title, the clicked column's order) and, for a click, whether nothing at all
  changed; on a new document, its title, its open dialogs and live regions, fields marked
  invalid, and error- or status-like text at the top of its main content;
- :func:`answer_text` writes it in at most ``max_tokens`` tokens (120 by default), each page
  string quoted by :func:`webrefs.quoting.quote`, with a note saying where to read the rest
  when something had to be cut. Nothing is written when the page said nothing new.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..models import AnswerItem, PageAnswer
from ..quoting import named, quote
from .tokens import count_tokens

__all__ = ["ANSWERED_ACTIONS", "ANSWER_MAX_TOKENS", "Probe", "answer_text", "own_title",
           "page_answer", "parse_probe"]

ANSWERED_ACTIONS = frozenset({"click", "fill", "select", "check", "press_key", "type", "goto",
                              "go_back", "go_forward"})
"""Actions whose results carry the page's answer."""
ANSWER_MAX_TOKENS = 120
"""Most tokens the page's answer may add to an action result."""
_FIELD_ACTIONS = frozenset({"fill", "select", "check", "press_key", "type"})
"""Actions that change a field's value: the field's own check is read after them."""
_SUBMITTING = frozenset({"click", "press_key", "type"})
"""Actions that can submit a form: the browser's form check is reported after them (a page
script's own ``checkValidity()`` fires the same events, so after other actions it is not)."""

MAX_TEXT = 300
"""Longest text kept of one region, message or notice (the probe caps it too)."""
MAX_NAME = 80
MAX_VALUE = 40
MAX_ROW = 120
"""Longest first row said after a sort."""
MAX_REGIONS = 40
MAX_FIELDS = 10
MAX_ITEMS = 8
_MAX_FRESH_LIVE = 3
_MAX_NOTICES = 2

_LIVE_ROLES = frozenset({"status", "alert", "log", ""})
_FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
                          "spinbutton", "slider", "switch", "field"})
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
_SORTS = frozenset({"ascending", "descending", "other", "none", ""})
_REFUSAL = re.compile(
    r"\b(not|no|error|errors|invalid|wrong|incorrect|fail|failed|failure|must|cannot|can't|"
    r"couldn't|unable|required|denied|expired|missing|too (long|short|many|few))\b",
    re.IGNORECASE)
_ORDER = {"title": 0, "form_check": 1, "field_check": 2, "invalid": 3, "dialog": 4, "live": 5,
          "toast": 6, "notice": 7, "sort": 8}


# -- reading a probe -------------------------------------------------------------------------
@dataclass(frozen=True)
class Region:
    """A live region, dialog or toast as one read saw it."""

    id: int
    kind: str
    """``live``, ``dialog`` or ``toast``."""
    role: str
    name: str
    text: str
    said: bool = False
    """Something inside it changed since the probe was armed (the page said it again)."""


@dataclass(frozen=True)
class Field:
    """A field the page marked invalid, or one the browser's form check stopped at."""

    id: int
    role: str
    name: str
    ref: str | None
    message: str


@dataclass(frozen=True)
class Header:
    """The column header an action targets: its name, ``aria-sort`` and the column's first
    values in the order shown."""

    name: str
    sort: str
    first: tuple[str, ...]
    row: str = ""
    """The first row's cells joined by ``" | "`` (which item now comes first)."""


@dataclass(frozen=True)
class Probe:
    """One read of a document (see :mod:`webrefs.actions.answer` for the page side)."""

    token: str
    """The token of the action that armed this document (empty: none did; a new document)."""
    mutations: int = 0
    """DOM changes since the probe was armed (0 in a new document)."""
    opaque: bool = False
    """Part of the page shows what no DOM change reveals (a frame, canvas or video, a custom
    element that may hold a closed shadow tree): that nothing changed cannot be told."""
    title: str = ""
    scroll: tuple[float, float] = (0.0, 0.0)
    regions: tuple[Region, ...] = ()
    invalid: tuple[Field, ...] = ()
    checks: tuple[Field, ...] = ()
    """Fields the browser's form check fired ``invalid`` at since the probe was armed."""
    field_message: str | None = None
    """The target's own ``validationMessage`` (``None``: the target is not a form field)."""
    target_state: str = ""
    """The target's checked state and value, to tell whether a click changed it."""
    focuses: bool = False
    """The target takes focus or opens a picker when clicked (a text field, a select)."""
    header: Header | None = None
    notices: tuple[tuple[str, str], ...] = ()
    """(role, text) of error- or status-like text at the top of the main content."""


def _text(value: object, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        return ""
    folded = " ".join(value.split())
    return folded[:limit]


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return int(value)


def _role(value: object, allowed: frozenset[str], default: str = "") -> str:
    role = _text(value, 20).lower()
    return role if role in allowed else default


def _list(value: object, limit: int) -> list[Any]:
    return list(value[:limit]) if isinstance(value, list) else []


def _ref(value: object, known_ref: Callable[[str], bool] | None) -> str | None:
    if not isinstance(value, str) or not value or len(value) > 24 or known_ref is None:
        return None
    try:
        return value if known_ref(value) else None
    except Exception:  # a ref the book cannot parse is not one it issued
        return None


def _fields(raw: object, known_ref: Callable[[str], bool] | None) -> tuple[Field, ...]:
    out = []
    for entry in _list(raw, MAX_FIELDS):
        if isinstance(entry, dict):
            out.append(Field(_int(entry.get("id")),
                             _role(entry.get("role"), _FIELD_ROLES, "field"),
                             _text(entry.get("name"), MAX_NAME),
                             _ref(entry.get("ref"), known_ref), _text(entry.get("msg"))))
    return tuple(out)


def _regions(raw: object) -> tuple[Region, ...]:
    out = []
    for entry in _list(raw, MAX_REGIONS):
        if not isinstance(entry, dict):
            continue
        kind = entry.get("kind")
        if kind == "dialog":
            role = _role(entry.get("role"), _DIALOG_ROLES, "dialog")
        elif kind in ("live", "toast"):
            role = _role(entry.get("role"), _LIVE_ROLES)
        else:
            continue
        out.append(Region(_int(entry.get("id")), str(kind), role,
                          _text(entry.get("name"), MAX_NAME), _text(entry.get("text")),
                          entry.get("said") is True))
    return tuple(out)


def _header(raw: object) -> Header | None:
    if not isinstance(raw, dict):
        return None
    first = tuple(_text(v, MAX_VALUE) for v in _list(raw.get("first"), 3))
    return Header(_text(raw.get("name"), MAX_NAME), _role(raw.get("sort"), _SORTS), first,
                  _text(raw.get("row"), MAX_ROW))


def parse_probe(raw: object, known_ref: Callable[[str], bool] | None = None) -> Probe | None:
    """A probe read from its JSON value, or ``None`` when it is not one. ``known_ref`` says
    whether a ref the page's registry gave a field was issued by this tab (others are
    dropped)."""
    if not isinstance(raw, dict):
        return None
    scroll = _list(raw.get("scroll"), 2)
    target = raw.get("target") if isinstance(raw.get("target"), dict) else {}
    assert isinstance(target, dict)
    message = target.get("field")
    notices = []
    for entry in _list(raw.get("notices"), _MAX_NOTICES):
        if isinstance(entry, dict) and _text(entry.get("text")):
            notices.append((_role(entry.get("role"), _LIVE_ROLES), _text(entry.get("text"))))
    return Probe(
        token=_text(raw.get("token"), 64),
        mutations=_int(raw.get("mut")),
        opaque=raw.get("opaque") is not False,
        title=_text(raw.get("title"), 200),
        scroll=(float(_int(scroll[0])), float(_int(scroll[1]))) if len(scroll) == 2
        else (0.0, 0.0),
        regions=_regions(raw.get("regions")),
        invalid=_fields(raw.get("invalid"), known_ref),
        checks=_fields(raw.get("checks"), known_ref),
        field_message=_text(message) if isinstance(message, str) else None,
        target_state=_text(target.get("state"), 200),
        focuses=target.get("focuses") is True,
        header=_header(target.get("header")),
        notices=tuple(notices),
    )


# -- what counts as the answer ---------------------------------------------------------------
def _field_item(kind: str, f: Field) -> AnswerItem:
    return AnswerItem(kind=kind, role=f.role, name=f.name, text=f.message, ref=f.ref)


def _region_item(r: Region, text: str) -> AnswerItem:
    return AnswerItem(kind=r.kind, role=r.role, name=r.name, text=text)


def _again(r: Region) -> bool:
    """Whether words a region shows again, unchanged, are worth saying again: an alert, or
    words of refusal (a second "Not saved: ..." tells the fix did not work; a second "Settings
    saved." or a table's "1 items match" re-rendered tells nothing)."""
    return r.role == "alert" or bool(_REFUSAL.search(r.text))


def _changed_regions(before: Probe, after: Probe) -> list[AnswerItem]:
    seen = {r.id: r for r in before.regions}
    now = {r.id for r in after.regions}
    # a region the page replaced by a new one with the same words (re-rendered) is the same
    gone = {(r.kind, r.role, r.text) for r in before.regions if r.id not in now}
    items = []
    for r in after.regions:
        old = seen.get(r.id)
        if r.kind == "dialog":
            if old is None and (r.kind, r.role, r.text) not in gone:
                items.append(_region_item(r, r.text))
            continue
        if not r.text:
            continue
        if old is None:
            if (r.kind, r.role, r.text) not in gone or _again(r):
                items.append(_region_item(r, r.text))
        elif old.text == r.text:
            if r.said and _again(r):
                items.append(_region_item(r, r.text))
        else:
            # a log that grew says what was added, not all it holds
            grew = old.text and r.text.startswith(old.text) and len(r.text) > len(old.text)
            items.append(_region_item(r, r.text[len(old.text):].strip() if grew else r.text))
    return items


_TITLE_SEPARATORS = (" - ", " – ", " — ", " | ", " · ", " :: ")


def own_title(title: str, before: str) -> str:
    """``title`` without the site's name when the page before had the same one after the
    same separator (``"Verify - Harbour ID"`` after ``"Sign in - Harbour ID"``: ``"Verify"``):
    the model has read it already."""
    for sep in _TITLE_SEPARATORS:
        head, found, tail = title.rpartition(sep)
        if found and head.strip() and tail.strip() and before.endswith(sep + tail):
            return head.strip()
    return title


def _new_page_items(before: Probe | None, after: Probe) -> list[AnswerItem]:
    items: list[AnswerItem] = []
    if after.title:
        title = own_title(after.title, before.title) if before is not None else after.title
        items.append(AnswerItem(kind="title", text=title))
    items.extend(_field_item("invalid", f) for f in after.invalid if f.message)
    items.extend(_region_item(r, r.text) for r in after.regions if r.kind == "dialog")
    live = [r for r in after.regions if r.kind != "dialog" and r.text]
    items.extend(_region_item(r, r.text) for r in live[:_MAX_FRESH_LIVE])
    items.extend(AnswerItem(kind="notice", role=role, text=text)
                 for role, text in after.notices)
    return items


def _same_page_items(before: Probe, after: Probe, action: str) -> list[AnswerItem]:
    items: list[AnswerItem] = []
    if after.title and after.title != before.title:
        items.append(AnswerItem(kind="title", text=after.title))
    checks = after.checks if action in _SUBMITTING else ()
    items.extend(_field_item("form_check", f) for f in checks)
    if (action in _FIELD_ACTIONS and after.field_message
            and after.field_message != before.field_message and not checks):
        items.append(AnswerItem(kind="field_check", text=after.field_message))
    old = {f.id: f.message for f in before.invalid}
    items.extend(_field_item("invalid", f) for f in after.invalid
                 if f.id not in old or old[f.id] != f.message)
    items.extend(_changed_regions(before, after))
    if before.header is not None and after.header is not None and (
            before.header.sort != after.header.sort or before.header.first != after.header.first):
        items.append(AnswerItem(kind="sort", name=after.header.name, text=after.header.sort,
                                values=list(after.header.first), row=after.header.row))
    return items


def _deduplicated(items: list[AnswerItem]) -> list[AnswerItem]:
    """Most telling first; an item whose text an earlier one already says is left out."""
    kept: list[AnswerItem] = []
    for item in sorted(items, key=lambda i: _ORDER[i.kind]):
        said = item.kind not in ("title", "sort") and item.text and any(
            k.kind not in ("title", "sort") and item.text in k.text for k in kept)
        if not said:
            kept.append(item)
    return kept[:MAX_ITEMS]


def page_answer(before: Probe | None, after: Probe | None, *, action: str, new_page: bool,
                quiet: bool, frame: bool = False) -> PageAnswer | None:
    """What the page said in answer to ``action``, from the reads before it and after it
    settled; ``None`` when it said nothing new.

    ``new_page``: the action led to another document (``after`` is read from it; a read
    whose token is not the action's is from another document too). ``quiet``: nothing
    outside the document happened (no navigation, native dialog, new tab or download), so a
    click that changed nothing in it changed nothing at all. ``frame``: the reads are of a
    child frame, whose title no one sees (it is left out).
    """
    if after is None or action not in ANSWERED_ACTIONS:
        return None
    if before is None or new_page or not after.token or after.token != before.token:
        items = [i for i in _deduplicated(_new_page_items(before, after))
                 if not (frame and i.kind == "title")]
        return PageAnswer(items=items, new_page=True) if items else None
    items = [i for i in _deduplicated(_same_page_items(before, after, action))
             if not (frame and i.kind == "title")]
    if items:
        return PageAnswer(items=items)
    unchanged = (action == "click" and quiet and after.mutations == 0 and not after.opaque
                 and not before.opaque
                 and after.scroll == before.scroll and after.title == before.title
                 and after.target_state == before.target_state and not after.focuses)
    return PageAnswer(unchanged=True) if unchanged else None


# -- the words a model reads -----------------------------------------------------------------
_CUT_NOTE = " (cut; web_snapshot shows the rest)"


def _field_words(item: AnswerItem) -> str:
    who = named(item.role or "field", item.name, MAX_NAME)
    return f"{item.ref} {who}" if item.ref else who


def _piece(item: AnswerItem, limit: int) -> tuple[str, str]:
    """(the sentence an item goes in, its words), page strings quoted and cut to ``limit``."""
    said = quote(item.text, limit)
    if item.kind == "title":
        return "title", quote(item.text, min(limit, 120))
    if item.kind == "form_check":
        return "form", f"{_field_words(item)}: {said}"
    if item.kind == "field_check":
        return "field", said
    if item.kind == "invalid":
        how = f"invalid: {said}" if item.text else "marked invalid"
        return "says", f"{_field_words(item)} {how}"
    if item.kind == "dialog":
        head = named(item.role or "dialog", item.name, MAX_NAME)
        return "says", f"{head} opened: {said}" if item.text else f"{head} opened"
    if item.kind == "sort":
        column = quote(item.name, MAX_NAME)
        order = f"now sorted {item.text}" if item.text not in ("", "none") else "re-ordered"
        values = ", ".join(quote(v, min(limit, MAX_VALUE)) for v in item.values)
        row = f"; first row {quote(item.row, min(limit, MAX_ROW))}" if item.row else ""
        return "sort", f"Column {column} {order}" + (f"; first values {values}" if values
                                                      else "") + row
    role = item.role or ("toast" if item.kind == "toast" else "")
    return "says", f"{role} {said}" if role else said


def _words(answer: PageAnswer, items: Sequence[AnswerItem], limit: int) -> str:
    groups: dict[str, list[str]] = {}
    for item in items:
        group, words = _piece(item, limit)
        groups.setdefault(group, []).append(words)
    sentences = []
    if "title" in groups:
        sentences.append(("New page " if answer.new_page else "The page title is now ")
                         + groups["title"][0] + ".")
    if "form" in groups:
        sentences.append("The browser did not send the form: " + "; ".join(groups["form"])
                         + ".")
    if "field" in groups:
        sentences.append("The field now fails the browser's check: " + groups["field"][0]
                         + ".")
    if "says" in groups:
        sentences.append("The page says: " + "; ".join(groups["says"]) + ".")
    sentences.extend(s + "." for s in groups.get("sort", []))
    return " ".join(sentences)


def _fits(text: str, max_tokens: int, encoding: str) -> bool:
    # a token is at least one character: a text no longer than the budget needs no count
    return len(text) <= max_tokens or count_tokens(text, encoding) <= max_tokens


def answer_text(answer: PageAnswer | None, *, max_tokens: int = ANSWER_MAX_TOKENS,
                encoding: str = "o200k_base") -> str:
    """The answer as one or a few sentences of at most ``max_tokens`` tokens (``""`` when
    there is none). When it does not fit, page strings are shortened (ending in ``…``), then
    the least telling items left out, and a note says where to read the rest."""
    if answer is None:
        return ""
    if answer.unchanged and not answer.items:
        return "Nothing on the page changed."
    items = list(answer.items)
    if not items:
        return ""
    text = _words(answer, items, MAX_TEXT)
    if _fits(text, max_tokens, encoding):
        return text
    for limit in (160, 100, 60):
        text = _words(answer, items, limit) + _CUT_NOTE
        if _fits(text, max_tokens, encoding):
            return text
    while len(items) > 1:
        items.pop()
        text = _words(answer, items, 60) + _CUT_NOTE
        if _fits(text, max_tokens, encoding):
            return text
    for limit in (40, 20, 8):
        text = _words(answer, items, limit) + _CUT_NOTE
        if _fits(text, max_tokens, encoding):
            return text
    return "The page showed more than fits here; web_snapshot shows it."

