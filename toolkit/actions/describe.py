"""Matching a description ("Search button", "email field") against the refs of a snapshot.

Pure logic, no browser. A description is scored against each ref's role, name, text,
placeholder, label-like attributes and id; :func:`choose` acts only on a single clear winner
and otherwise raises with the candidates and their scores, so nothing is clicked by guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..errors import AmbiguousTargetError, NoMatchError
from ..models import NodeRef
from ..quoting import named

__all__ = ["MIN_MARGIN", "MIN_SCORE", "Candidate", "choose", "score_refs"]

MIN_SCORE = 0.5
"""A candidate scoring below this is never acted on."""
MIN_MARGIN = 0.15
"""The winner must beat the runner-up by at least this much."""

# Words in a description that name a kind of element, and the roles they stand for.
_ROLE_WORDS: dict[str, frozenset[str]] = {
    "button": frozenset({"button"}),
    "btn": frozenset({"button"}),
    "link": frozenset({"link"}),
    "field": frozenset({"textbox", "searchbox", "combobox", "spinbutton"}),
    "input": frozenset({"textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio"}),
    "textbox": frozenset({"textbox", "searchbox"}),
    "textarea": frozenset({"textbox"}),
    "box": frozenset({"textbox", "searchbox", "checkbox", "combobox"}),
    "searchbox": frozenset({"searchbox", "textbox"}),
    "checkbox": frozenset({"checkbox"}),
    "check": frozenset({"checkbox"}),
    "radio": frozenset({"radio"}),
    "option": frozenset({"option", "radio", "menuitemradio"}),
    "switch": frozenset({"switch", "checkbox"}),
    "toggle": frozenset({"switch", "checkbox", "button"}),
    "dropdown": frozenset({"combobox", "listbox", "button"}),
    "select": frozenset({"combobox", "listbox"}),
    "combobox": frozenset({"combobox"}),
    "menu": frozenset({"menu", "menuitem", "combobox", "button"}),
    "tab": frozenset({"tab"}),
    "slider": frozenset({"slider"}),
    "image": frozenset({"img", "image"}),
    "heading": frozenset({"heading"}),
}
_STOP = frozenset({"the", "a", "an", "to", "of", "on", "in", "for", "with", "and", "my", "your"})
_FIELD_WEIGHTS = (
    ("name", 1.0),
    ("aria-label", 1.0),
    ("placeholder", 0.95),
    ("title", 0.9),
    ("alt", 0.9),
    ("text", 0.85),
    ("value", 0.7),
    ("label", 0.95),
    ("id", 0.6),
    ("name_attr", 0.6),
)


@dataclass(frozen=True)
class Candidate:
    """A ref a description may mean, with its score (0..1) and a short label."""

    ref: str
    score: float
    label: str

    def as_tuple(self) -> tuple[str, float, str]:
        return (self.ref, self.score, self.label)


def _words(text: str) -> list[str]:
    text = text.lower().replace("-", "").replace("_", " ").replace("'", "")
    out = []
    for w in re.findall(r"[^\W_]+", text):
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


def _split_description(description: str) -> tuple[list[str], frozenset[str]]:
    words = [w for w in _words(description) if w not in _STOP]
    roles: set[str] = set()
    rest: list[str] = []
    for w in words:
        if w in _ROLE_WORDS:
            roles |= _ROLE_WORDS[w]
        else:
            rest.append(w)
    if not rest and roles:
        # "Search" alone is a name; "button" alone is only a kind.
        return [], frozenset(roles)
    return rest, frozenset(roles)


def _token_match(word: str, tokens: list[str]) -> float:
    best = 0.0
    for t in tokens:
        if t == word:
            return 1.0
        if len(word) >= 4 and (t.startswith(word) or word.startswith(t)) and len(t) >= 3:
            best = max(best, 0.85)
        elif len(word) >= 4 and len(t) >= 4:
            r = SequenceMatcher(None, word, t).ratio()
            if r >= 0.8:
                best = max(best, r * 0.9)
    return best


def _field_score(query: list[str], text: str) -> float:
    tokens = [w for w in _words(text) if w not in _STOP][:60]
    if not tokens:
        return 0.0
    if tokens == query:
        return 1.0
    matched = [_token_match(q, tokens) for q in query]
    coverage = sum(matched) / len(query)
    if coverage == 0:
        return 0.0
    precision = min(1.0, sum(1 for m in matched if m > 0) / len(tokens))
    return coverage * (0.6 + 0.4 * precision)


def _fields(node: NodeRef) -> Iterable[tuple[str, str]]:
    yield "name", node.name
    yield "text", node.text
    for key in ("aria-label", "placeholder", "title", "alt", "value", "id", "label"):
        if node.attrs.get(key):
            yield key, node.attrs[key]
    if node.attrs.get("name"):
        yield "name_attr", node.attrs["name"]


def _label(node: NodeRef) -> str:
    return named(node.role, node.name or node.attrs.get("placeholder", "") or node.text)


def score(description: str, node: NodeRef) -> float:
    """How well ``description`` fits ``node``, from 0 (not at all) to 1."""
    query, roles = _split_description(description)
    role_fits = node.role in roles or (
        node.tag in ("input", "textarea") and bool(roles & {"textbox", "searchbox"})
    )
    if not query:
        return 0.6 if role_fits else 0.0
    weights = dict(_FIELD_WEIGHTS)
    base = max((weights.get(k, 0.5) * _field_score(query, v) for k, v in _fields(node)),
               default=0.0)
    if base == 0.0:
        return 0.0
    if roles:
        base = base * 0.85 + 0.15 if role_fits else base * 0.6
    return round(min(base, 1.0), 3)


def score_refs(description: str, refs: Mapping[str, NodeRef], *, limit: int = 5) -> list[Candidate]:
    """Candidates with a positive score, best first (ties keep snapshot order)."""
    scored = [
        Candidate(ref, s, _label(node))
        for ref, node in refs.items()
        if (s := score(description, node)) > 0
    ]
    scored.sort(key=lambda c: -c.score)
    return scored[:limit]


def choose(description: str, refs: Mapping[str, NodeRef]) -> Candidate:
    """The single clear winner for ``description``, or raise.

    Raises :class:`NoMatchError` when nothing scores :data:`MIN_SCORE` and
    :class:`AmbiguousTargetError` when the best two are within :data:`MIN_MARGIN`.
    Both carry the candidates (ref, score, label) so the caller can pick one by ref.
    """
    candidates = score_refs(description, refs)
    listed = "; ".join(f"{c.ref} {c.label} ({c.score:.2f})" for c in candidates)
    shown = description.strip()[:80]
    if not candidates or candidates[0].score < MIN_SCORE:
        raise NoMatchError(
            f"Nothing in the current snapshot matches {shown!r}."
            + (f" Closest: {listed}." if candidates else ""),
            hint="Take a new snapshot and use a ref such as e5.",
            candidates=[c.as_tuple() for c in candidates],
        )
    best = candidates[0]
    if len(candidates) > 1 and best.score - candidates[1].score < MIN_MARGIN:
        close = [c for c in candidates if best.score - c.score < MIN_MARGIN]
        raise AmbiguousTargetError(
            f"{shown!r} matches {len(close)} elements: {listed}.",
            hint="Use the ref of the one you mean.",
            candidates=[c.as_tuple() for c in candidates],
        )
    return best
