"""Reference policies for the email-inbox family: find an email by its sender, then forward,
reply to, star or delete it (the goal in several phrasings).

Contract: the policy reads the goal and the inbox as the tools show it, nothing else. A full
snapshot lists each email as a row whose first text is the sender, with a trash and a star
icon (``[hint="trash"]``, ``[hint="star"]``); rows below the list's fold are listed too and
a click on their ref scrolls them into view, so no scrolling is needed. Opening an email shows
"Reply" and "Forward"; the reply view has one text box, the forward view a "to" field and the
body, and both a send icon (``[hint="send-reply"]``, ``[hint="send-forward"]``). The icons
are images that have no size until they have loaded; a click the tool refuses as "not visible"
is tried again after a new snapshot.

The goal is read as :class:`Order`: what to do (forward, reply, star, delete), whose email,
and the recipient or the reply's text. The fixed phrasing of email-inbox ("Find the email by
X and forward that email to Y.") is matched exactly; the free phrasings of the ``-nl`` tasks
are read with the inbox's senders in hand: the senders the goal names, the action from its
words (a quoted text is a reply), and, when a forward names two senders, which one wrote the
email from the words around each ("from X", "to Y", "X's email"). The goal is read as it is
written: a few of the page's templates swap the two names ("Find the email from DEST and
forward it to NAME.") and are then answered the way they read, which the page scores as a
failure. When the sender is not in the inbox, or the goal cannot be read, the policy stops
with a :class:`~webrefs.evals.baselines.scripted.ScriptError` saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .outline import Item, Outline
from .policy import Play, Policy, click, fill, look, stuck

__all__ = ["POLICIES", "Order", "Row", "email_inbox", "inbox", "read_order"]

_FIXED = (
    (re.compile(r"^Find the email by (?P<sender>.+?) and forward that email to "
                r"(?P<to>.+)\.$"), "forward"),
    (re.compile(r'^Find the email by (?P<sender>.+?) and reply to them with the text '
                r'"(?P<text>.*)"\.$'), "reply"),
    (re.compile(r"^Find the email by (?P<sender>.+?) and click the trash icon"), "delete"),
    (re.compile(r"^Find the email by (?P<sender>.+?) and click the star icon"), "star"),
)
"""The phrasings of email-inbox and its single-action variants."""

_DELETE = re.compile(r"\bdelet|\btrash\b|\brid of\b|\bremove\b|\bthrow away\b|"
                     r"\bout of my inbox\b|\brecycling\b|\bdon't want\b", re.IGNORECASE)
_STAR = re.compile(r"\bimi?por|\bstar\b|\bflag\b|\bmark\b", re.IGNORECASE)

_FROM = re.compile(r"\b(?:from|by|author)\s+$", re.IGNORECASE)
_TO = re.compile(r"\bto\s+$", re.IGNORECASE)
_WROTE = re.compile(r"^(?:'s|s\b|\s+(?:sent|wrote|wants his|email|mail|e-mail)\b)(?!\s*inbox)",
                    re.IGNORECASE)
_GETS = re.compile(r"\b(?:send|give|forward|email|let|put|make sure)\s+$", re.IGNORECASE)
_WAITS = re.compile(r"^\s+(?:wants|is waiting|must|needs|recieve|receive)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Order:
    """What the goal asks: ``action`` is ``forward``, ``reply``, ``star`` or ``delete``;
    ``to`` is a forward's recipient, ``text`` a reply's text."""

    action: str
    sender: str
    to: str = ""
    text: str = ""


@dataclass(frozen=True)
class Row:
    """One email of the inbox list: the row, its sender, its trash and star icons."""

    item: Item
    sender: str
    trash: Item | None
    star: Item | None


def inbox(page: Outline) -> list[Row]:
    """The emails of a full snapshot: the rows that hold a trash icon, sender first."""
    rows = []
    items = page.items
    for index, item in enumerate(items):
        if item.ref is None or item.role != "text":
            continue
        children = list(_children(items, index))
        trash = next((c for c in children if c.attrs.get("hint") == "trash"), None)
        if trash is None:
            continue
        star = next((c for c in children if c.attrs.get("hint") == "star"), None)
        texts = [c.name for c in children if c.name]
        sender = texts[0] if texts else item.name.split(" ")[0]
        rows.append(Row(item, sender, trash, star))
    return rows


def _children(items: list[Item], index: int) -> Iterator[Item]:
    """The lines nested one level under ``items[index]``."""
    depth = items[index].depth
    for item in items[index + 1:]:
        if item.depth <= depth:
            return
        if item.depth == depth + 1:
            yield item


def read_order(goal: str, senders: list[str]) -> Order:
    """The goal as an :class:`Order`, ``senders`` being the inbox's (which the free
    phrasings are read against)."""
    goal = goal.strip()
    for pattern, action in _FIXED:
        m = pattern.search(goal)
        if m:
            found = m.groupdict()
            return Order(action, found["sender"], found.get("to") or "", found.get("text") or "")
    text, rest = _quoted_text(goal)
    named = _named(rest, senders)
    if not named:
        raise stuck(f"the goal {goal!r} names none of the inbox's senders "
                    f"({', '.join(sorted(set(senders))) or 'none shown'})")
    masked = rest
    for name in named:
        masked = _mention(name).sub("NAME", masked)
    action = _action(masked, bool(text))
    if action == "forward":
        sender, to = _roles(rest, named, goal)
        return Order(action, sender, to=to)
    return Order(action, _one_sender(rest, named, goal), text=text)


def _quoted_text(goal: str) -> tuple[str, str]:
    """A reply's text, between the goal's first and last double quote (one template doubles
    its quotes, ``""MSG" "``), and the goal without it."""
    first, last = goal.find('"'), goal.rfind('"')
    if first < 0 or last <= first:
        return "", goal
    return goal[first + 1:last].strip(' "'), f"{goal[:first]} {goal[last + 1:]}"


def _action(masked: str, quotes: bool) -> str:
    """What the goal asks, from its words (senders masked as NAME)."""
    if quotes:
        return "reply"
    if _DELETE.search(masked):
        return "delete"
    if _STAR.search(masked):
        return "star"
    return "forward"


def _mention(name: str, loose: bool = False) -> re.Pattern[str]:
    """``name`` as a word of the goal (``NAMEs`` too; with ``loose``, glued to the word
    before, as in ``AnswerNAME's``)."""
    before = "" if loose else r"(?<![\w-])"
    return re.compile(before + re.escape(name) + r"(?=s?(?![\w-]))")


def _named(text: str, senders: list[str]) -> list[str]:
    """The inbox's senders that ``text`` names, in the order it names them."""
    for loose in (False, True):
        spans = [(m.start(), m.end(), name) for name in set(senders)
                 for m in _mention(name, loose).finditer(text)]
        # a name inside a longer one ("Ann" in "Jo Ann", "Alys" in "Alyss") is not named
        kept = [(start, name) for start, end, name in spans
                if not any(s <= start and end <= e and e - s > end - start
                           for s, e, _ in spans)]
        if kept:
            return list(dict.fromkeys(name for _, name in sorted(kept)))
    return []


def _cues(text: str, name: str) -> set[str]:
    """The words around each mention of ``name``: "from" (from/by NAME), "to" (to NAME),
    "wrote" (NAME's, NAME sent), "gets" (send NAME, NAME wants)."""
    cues = set()
    for m in _mention(name).finditer(text):
        before, after = text[:m.start()], text[m.end():]
        for cue, pattern, where in (("from", _FROM, before), ("to", _TO, before),
                                    ("wrote", _WROTE, after), ("gets", _GETS, before),
                                    ("gets", _WAITS, after)):
            if pattern.search(where):
                cues.add(cue)
    return cues


def _roles(text: str, named: list[str], goal: str) -> tuple[str, str]:
    """A forward's sender and recipient among the senders the goal names."""
    if len(named) == 1:
        if len(_mention(named[0]).findall(text)) > 1:  # the sender forwards to a namesake
            return named[0], named[0]
        raise stuck(f"the goal {goal!r} names one sender and no recipient in the inbox")
    if len(named) > 2:
        raise stuck(f"the goal {goal!r} names more than two of the inbox's senders")
    a, b = named
    cues = {a: _cues(text, a), b: _cues(text, b)}
    for cue, writes in (("from", True), ("to", False), ("wrote", True), ("gets", False)):
        has = [n for n in named if cue in cues[n]]
        if len(has) == 1:
            other = b if has[0] == a else a
            return (has[0], other) if writes else (other, has[0])
    raise stuck(f"cannot tell who wrote the email and who gets it in {goal!r}")


def _one_sender(text: str, named: list[str], goal: str) -> str:
    """The sender of a reply, star or delete: the one named, or the one written of as the
    sender."""
    if len(named) == 1:
        return named[0]
    writers = [n for n in named if _cues(text, n) & {"from", "wrote"}]
    if len(writers) == 1:
        return writers[0]
    raise stuck(f"the goal {goal!r} names several of the inbox's senders: {named}")


_TRIES = 3


def _click_icon(page: Outline, find: Callable[[Outline], Item | None], what: str,
                full: bool = False) -> Play:
    """Click the icon ``find`` picks. An icon is an image: until it has loaded it has no size,
    and the click tool refuses it as not visible ("take a new snapshot"); then the policy
    looks again (``full``: a full snapshot) and clicks again, up to three times."""
    for _ in range(_TRIES):
        result = yield from click(find(page), what)
        if not ("[not_actionable]" in result and "not visible" in result):
            return None
        page = yield from look(full=full)
    raise stuck(f"the {what} stayed without a visible box in {_TRIES} snapshots")


def _row_icon(sender: str, hint: str) -> Callable[[Outline], Item | None]:
    """The ``hint`` icon (trash, star) of the first email from ``sender``."""
    def find(page: Outline) -> Item | None:
        row = next((r for r in inbox(page) if r.sender == sender), None)
        if row is None:
            return None
        return row.trash if hint == "trash" else row.star
    return find


def _send_icon(page: Outline) -> Item | None:
    return next((i for i in page.all("text") if i.attrs.get("hint", "").startswith("send")),
                None)


def _reply(text: str) -> Play:
    page = yield from look()
    yield from click(page.first("text", "Reply"), "'Reply' button")
    page = yield from look()
    yield from fill(page.first("textbox"), text, "reply text box")
    yield from _click_icon(page, _send_icon, "send icon")
    return None


def _forward(to: str) -> Play:
    page = yield from look()
    yield from click(page.first("text", "Forward"), "'Forward' button")
    page = yield from look()
    boxes = page.all("textbox")
    field = next((b for b in boxes if b.attrs.get("hint") in ("to:", "forward-sender")),
                 next((b for b in boxes if not b.value), None))
    yield from fill(field, to, "'to' field")
    yield from _click_icon(page, _send_icon, "send icon")
    return None


def email_inbox(goal: str) -> Play:
    """Every email-inbox task: read the order, find the sender's email, carry it out."""
    page = yield from look(full=True)
    rows = inbox(page)
    order = read_order(goal, [r.sender for r in rows])
    row = next((r for r in rows if r.sender == order.sender), None)
    if row is None:
        raise stuck(f"the inbox shows no email from {order.sender!r}")
    if order.action in ("delete", "star"):
        hint = "trash" if order.action == "delete" else "star"
        yield from _click_icon(page, _row_icon(order.sender, hint),
                               f"{hint} icon of {order.sender!r}'s email", full=True)
    else:
        yield from click(row.item, f"email from {order.sender!r}")
        if order.action == "reply":
            yield from _reply(order.text)
        else:
            yield from _forward(order.to)
    return None


POLICIES: dict[str, Policy] = {task: email_inbox for task in (
    "email-inbox", "email-inbox-delete", "email-inbox-forward", "email-inbox-forward-nl",
    "email-inbox-forward-nl-turk", "email-inbox-important", "email-inbox-nl-turk",
    "email-inbox-noscroll", "email-inbox-reply", "email-inbox-star-reply")}
"""The reference policy of each email-inbox task (by task name)."""
