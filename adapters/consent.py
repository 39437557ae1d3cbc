"""Consent asked of a person through an adapter's own channel (a LangGraph interrupt, an MCP
elicitation): the question shown, the answers that mean yes, and the refusal the model reads.

The adapters share these so that every way of asking says the same thing. An adapter that
asks builds its tools on a policy whose consent callback answers only what a person already
approved (:class:`Approvals`); the tool call ends in a :class:`~webrefs.errors.ConsentError`
that the adapter turns into a question, and on a yes the call is made again.
"""

from __future__ import annotations

from typing import Any

from webrefs import ConsentRequest
from webrefs.errors import ConsentError

__all__ = ["Approvals", "approved", "askable", "question", "rejected"]


class Approvals:
    """Actions a person approved, each used once: the consent callback of the tools' policy
    (``SafetyPolicy(consent=approvals)``). It answers ``None`` (nobody can decide here) for
    anything not approved, so the call ends in a :class:`ConsentError` the adapter asks
    about."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def __call__(self, request: ConsentRequest) -> bool | None:
        if request.key in self.keys:
            self.keys.discard(request.key)
            return True
        return None

    def add(self, request: ConsentRequest) -> None:
        self.keys.add(request.key)


def askable(err: ConsentError) -> ConsentRequest | None:
    """The request a person may be asked about, when ``err`` is an undecided ``confirm``."""
    request = err.request
    if (not isinstance(request, ConsentRequest) or err.refused or err.decision is None
            or request.level != "confirm"):
        return None
    return request


def question(tool: str, request: ConsentRequest) -> str:
    """The question a person answers."""
    what = request.target_name or request.target or "the page"
    sends = f" to send {request.effect.describe()}" if request.effect is not None else ""
    return (f"Allow {tool} on {what} at {request.url}{sends}? "
            f"({'; '.join(request.reasons)})")


def approved(answer: Any) -> bool:
    """A resume value meaning yes: ``"approve"``/``"yes"``/``True``, or a dict with
    ``{"approved": True}`` or ``{"action": "approve"}``."""
    if isinstance(answer, dict):
        answer = answer.get("approved", answer.get("action", answer.get("decision")))
    if isinstance(answer, bool):
        return answer
    return str(answer).strip().lower() in ("approve", "approved", "yes", "y", "accept", "ok")


def rejected(tool: str, err: ConsentError, request: ConsentRequest) -> ConsentError:
    """What the model reads when the person said no."""
    return ConsentError(
        f"The user rejected {tool} on {request.target_name or request.target}; "
        "it was not done.",
        hint="Do not try it again; continue without it or ask the user what to do.",
        request=request, refused=True, decision=err.decision)
