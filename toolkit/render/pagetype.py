"""What kind of page this is, from URL, title, form and text signals.

``guess_page(tree)`` returns one of :data:`PAGE_TYPES`. Each type collects points from cheap
signals (words in the URL and title, password fields, result lists, long text, how much of
the text is links, switches...); the best type wins when it reaches a minimum, else
``unknown``. ``classify_page(tree)``, what snapshots print as ``page=``, keeps only the types
of :data:`PRINTED`, the ones measured right on at least 95% of a labelled set of pages where
they are guessed, and says ``unknown`` otherwise: a wrong label misleads a model more than
none. Deterministic and pure.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..models import Node, PageTree

__all__ = ["PAGE_TYPES", "PRINTED", "PageSignals", "classify_page", "guess_page",
           "page_signals"]

PAGE_TYPES: tuple[str, ...] = (
    "search_engine", "search_results", "login", "register", "form", "article", "list",
    "email_compose", "email_inbox", "dashboard", "settings", "checkout", "unknown",
)

PRINTED: frozenset[str] = frozenset({
    "search_engine", "search_results", "login", "article", "email_compose", "email_inbox",
    "dashboard", "settings", "checkout",
})
"""The types shown in snapshots: each was right on at least 95% of the labelled pages where
it was guessed (``tests/data/pagetypes.json``, measured by ``benchmarks/bench_pagetype.py``
and enforced by ``tests/render/test_pagetype_labels.py``). ``form``, ``list`` and ``register``
are guessed but not shown: they were right too rarely."""

_INPUT_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
_WORDS = re.compile(r"[a-z]+")
_RECIPIENT = re.compile(r"(to|recipients?|send to)\b", re.IGNORECASE)
_TITLE_REGISTER = re.compile(r"\b(register|registration|sign ?up|create (an |your )?account)\b")
_TITLE_LOGIN = re.compile(r"\b(log ?in|sign ?in|logon)\b")
_MAIL_FOLDER = re.compile(r"\b(inbox|sent|drafts|archive|spam|junk|trash|outbox)\b")

_URL_WORDS: dict[str, tuple[str, ...]] = {
    "login": ("login", "signin", "sign", "logon", "auth", "session", "sso"),
    "register": ("register", "signup", "join", "registration", "create", "enroll"),
    "search_results": ("search", "results", "find", "query"),
    "email_compose": ("compose", "new", "draft", "write"),
    "email_inbox": ("inbox", "mail", "mailbox", "messages"),
    "dashboard": ("dashboard", "admin", "overview", "analytics", "console", "home"),
    "settings": ("settings", "preferences", "account", "profile", "options", "config"),
    "checkout": ("checkout", "cart", "basket", "payment", "billing", "order", "shipping"),
    "article": ("news", "article", "wiki", "wikipedia", "blog", "post", "posts", "story",
                "stories", "doc", "docs", "articles"),
}
_TEXT_WORDS: dict[str, tuple[str, ...]] = {
    "login": ("sign in", "log in", "login", "forgot password", "remember me"),
    "register": ("sign up", "create account", "create an account", "register",
                 "confirm password", "already have an account"),
    "checkout": ("place order", "card number", "shipping address", "order summary",
                 "payment method", "cvv", "billing address"),
    "email_compose": ("subject", "send", "cc", "bcc", "attach"),
    "email_inbox": ("inbox", "compose", "unread", "sent", "drafts", "spam"),
    "settings": ("settings", "preferences", "notifications", "privacy", "save changes"),
    "dashboard": ("dashboard", "overview", "analytics", "reports", "revenue", "activity"),
}


@dataclass
class PageSignals:
    roles: Counter[str] = field(default_factory=Counter)
    passwords: int = 0
    inputs: int = 0
    textareas: int = 0
    forms: int = 0
    search_inputs: int = 0
    text_chars: int = 0
    paragraphs: int = 0
    article: bool = False
    text: str = ""
    """Lower-cased visible text (first few thousand characters)."""
    url_words: set[str] = field(default_factory=set)
    query: bool = False
    """The URL carries a search query (q=, query=, search=...)."""
    search_value: bool = False
    """A search field holds a query."""
    title: str = ""
    """The lower-cased title and first top-level heading."""
    link_chars: int = 0
    """Characters of link names (a page of links is a portal, not a story)."""
    recipient: bool = False
    """A text field named like a mail recipient (To, Recipients)."""


def page_signals(tree: PageTree) -> PageSignals:
    sig = PageSignals()
    parts = urlsplit(tree.url)
    sig.url_words = set(_WORDS.findall((parts.path + " " + parts.netloc).lower()))
    sig.query = bool(re.search(r"(^|&)(q|query|search|s|k|p|keywords?|text)=[^&]", parts.query))
    chunks: list[str] = [tree.title]
    size = len(tree.title)
    roles: dict[str, int] = {}
    heading = ""
    stack: list[Node] = [tree.root]
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        role = n.role or ""
        tag = n.tag
        roles[role] = roles.get(role, 0) + 1
        attrs = n.attrs
        if attrs and tag == "input" and attrs.get("type", "").lower() == "password":
            sig.passwords += 1
        if role == "link":
            sig.link_chars += len(n.name)
        elif role == "heading" and not heading and n.name:
            heading = n.name
        if role in _INPUT_ROLES:
            sig.inputs += 1
            if _RECIPIENT.match(n.name.strip()):
                sig.recipient = True
            typ = attrs.get("type", "").lower() if attrs else ""
            if role == "searchbox" or typ == "search" or "search" in (
                    n.name + (attrs.get("placeholder", "") if attrs else "")).lower():
                sig.search_inputs += 1
                if n.value:
                    sig.search_value = True
        if tag == "textarea":
            sig.textareas += 1
        elif tag == "form" or role == "form":
            sig.forms += 1
        elif tag == "article" or role == "article":
            sig.article = True
        elif role == "paragraph" or tag == "p":
            sig.paragraphs += 1
        text = n.text
        if text:
            sig.text_chars += len(text)
        if size < 3000:
            own = text or (n.name if role in ("button", "link", "heading") else "")
            if own:
                chunks.append(own)
                size += len(own) + 1
        children = n.children
        if children:
            extend(reversed(children))
    sig.roles = Counter(roles)
    sig.text = " ".join(chunks).lower()
    sig.title = f"{tree.title} {heading}".lower()
    return sig


_PHRASES: dict[str, re.Pattern[str]] = {
    kind: re.compile(r"\b(" + "|".join(re.escape(p) for p in phrases) + r")\b")
    for kind, phrases in _TEXT_WORDS.items()
}


def _phrases_found(kind: str, text: str) -> int:
    return len(set(_PHRASES[kind].findall(text)))


def guess_page(tree: PageTree) -> str:
    """The best-scoring of :data:`PAGE_TYPES` for ``tree`` (``unknown`` below the minimum),
    whether or not that type is trusted enough to be printed."""
    sig = page_signals(tree)
    links = sig.roles["link"]
    items = sig.roles["listitem"] + sig.roles["row"] + sig.roles["article"]
    checkboxes = sig.roles["checkbox"] + sig.roles["switch"]
    score: dict[str, float] = dict.fromkeys(PAGE_TYPES, 0.0)

    for kind, words in _URL_WORDS.items():
        if sig.url_words & set(words):
            score[kind] += 2.0
    for kind in _TEXT_WORDS:
        score[kind] += min(3.0, float(_phrases_found(kind, sig.text)))

    if sig.passwords == 1 and sig.inputs <= 4:
        score["login"] += 4.0
    if sig.passwords >= 2:
        score["register"] += 4.0
    elif sig.passwords == 1 and sig.inputs >= 4:
        score["register"] += 2.5
    if _TITLE_REGISTER.search(sig.title):  # the page's title says which of the two it is
        score["register"] += 2.0
        score["login"] -= 2.0
    elif _TITLE_LOGIN.search(sig.title):
        score["login"] += 2.0
        score["register"] -= 2.0
    if sig.paragraphs >= 5 or sig.text_chars > 5000:  # a sign-in box on a long page
        score["login"] -= 3.0
        score["register"] -= 3.0
    if sig.passwords == 0:
        score["login"] -= 3.0
        score["register"] -= 1.5
    searched = sig.query or sig.search_value
    if searched and sig.search_inputs:
        score["search_results"] += 3.0 + min(2.0, links / 20)
    if (sig.search_inputs and not searched and links <= 4 and sig.inputs <= 2
            and not sig.passwords and items < 5):  # the page is its search box
        score["search_engine"] += 3.5 if sig.text_chars < 800 else 1.0
    elif sig.search_inputs and "search" in sig.url_words and items >= 5:
        score["search_results"] += 2.0  # a search page listing what it found
    if sig.inputs >= 3 and sig.passwords == 0:
        score["form"] += 2.0 + min(2.0, (sig.inputs - 3) / 2)
        score["checkout"] += 1.0
    if sig.textareas and sig.inputs >= 2:
        score["email_compose"] += 1.5
    if sig.textareas == 0 or not sig.recipient:
        score["email_compose"] -= 3.0
    if checkboxes >= 4 and sig.inputs <= checkboxes:
        score["settings"] += 2.0
        score["email_inbox"] += 1.0
    if items >= 10 and sig.inputs <= 2:
        score["email_inbox"] += 0.5
    if not (_MAIL_FOLDER.search(sig.title) and items >= 1):
        score["email_inbox"] -= 4.0  # a mail site's other pages: a message, contacts
    if sig.article:
        score["article"] += 2.5
    if sig.paragraphs >= 5 or sig.text_chars > 3000:
        score["article"] += 2.0
    if sig.roles["heading"] >= 6 and sig.text_chars > 1500:
        score["article"] += 1.0
    if sig.inputs >= 3:
        score["article"] -= 1.5
    if sig.text_chars < 800:
        score["article"] -= 4.0  # a few lines: a message, a notice, a list of headlines
    density = sig.link_chars / max(sig.text_chars, 1)
    if density > 1.0 or (density > 0.4 and sig.paragraphs < 15):
        score["article"] -= 3.0  # mostly links: a portal or an index, not a story
    if sig.paragraphs >= 5 or sig.text_chars > 3000:
        score["form"] -= 3.0  # a comment box under a story
    if items >= 15 and sig.text_chars < 6000 and sig.paragraphs < 8:
        score["list"] += 3.0
    regions = sig.roles["region"] + sig.roles["table"] + sig.roles["figure"]
    if regions >= 3:
        score["dashboard"] += 1.5
    for kind in ("email_inbox", "email_compose", "dashboard", "settings", "checkout"):
        if score[kind] < 3.0:
            score[kind] = min(score[kind], 0.0)

    best = max(PAGE_TYPES[:-1], key=lambda k: (score[k], -PAGE_TYPES.index(k)))
    return best if score[best] >= 3.0 else "unknown"


def classify_page(tree: PageTree) -> str:
    """One of :data:`PRINTED` for ``tree``, or ``unknown``: the guess of :func:`guess_page`
    when it is of a type this classifier gets right often enough to be shown."""
    kind = guess_page(tree)
    return kind if kind in PRINTED else "unknown"
