"""Consent asked of a person through an adapter's own channel (a LangGraph interrupt, an MCP
elicitation): the question shown, the answers that mean yes, and the refusal the model reads.

The adapters share these so that every way of asking says the same thing. An adapter that
asks builds its tools on a policy whose consent callback answers only what a person already
approved (:class:`Approvals`); the tool call ends in a :class:`~webrefs.errors.ConsentError`
that the adapter turns into a question, and on a yes the call is made again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from webrefs import ConsentRequest
from webrefs.errors import ConsentError

__all__ = ["Approvals", "Decision", "approved", "askable", "decide", "question", "rejected"]


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


@dataclass(frozen=True)
class Decision:
    """What a person decided about one action: ``approve`` it, ``edit`` it (run it with
    ``args`` instead) or ``reject`` it (with their ``message``, if any)."""

    kind: Literal["approve", "edit", "reject"]
    args: dict[str, Any] | None = None
    message: str = ""


def decide(answer: Any, tool: str = "") -> Decision:
    """The decision a resume value carries. LangChain's human-in-the-loop response
    (``{"decisions": [{"type": "approve"}]}``, ``{"type": "edit", "edited_action": {"name":
    ..., "args": {...}}}``, ``{"type": "reject", "message": ...}``), one such decision, or a
    short form :func:`approved` reads. An edit that names another tool is a rejection."""
    if isinstance(answer, dict) and isinstance(answer.get("decisions"), list):
        answer = answer["decisions"][0] if answer["decisions"] else None
    if isinstance(answer, dict) and answer.get("type") in ("approve", "edit", "reject"):
        message = answer.get("message")
        said = message if isinstance(message, str) else ""
        if answer["type"] == "edit":
            action = answer.get("edited_action")
            args = action.get("args") if isinstance(action, dict) else None
            name = action.get("name", tool) if isinstance(action, dict) else tool
            if isinstance(args, dict) and (not tool or name == tool):
                return Decision("edit", dict(args))
            return Decision("reject", message=said or "an edit must keep the tool and give "
                            "its arguments")
        return Decision(answer["type"], message=said)
    return Decision("approve" if approved(answer) else "reject")


def approved(answer: Any) -> bool:
    """A resume value meaning yes: ``"approve"``/``"yes"``/``True``, a dict with
    ``{"approved": True}`` or ``{"action": "approve"}``, or an approving decision of
    LangChain's human-in-the-loop shape (see :func:`decide`)."""
    if isinstance(answer, dict) and ("decisions" in answer or "type" in answer):
        return decide(answer).kind == "approve"
    if isinstance(answer, dict):
        answer = answer.get("approved", answer.get("action", answer.get("decision")))
    if isinstance(answer, bool):
        return answer
    return str(answer).strip().lower() in ("approve", "approved", "yes", "y", "accept", "ok")


def rejected(tool: str, err: ConsentError, request: ConsentRequest,
             message: str = "") -> ConsentError:
    """What the model reads when the person said no (and why, when they said)."""
    why = f' They said: "{" ".join(message.split())[:300]}".' if message.strip() else ""
    return ConsentError(
        f"The user rejected {tool} on {request.target_name or request.target}; "
        f"it was not done.{why}",
        hint="Do not try it again; continue without it or ask the user what to do.",
        request=request, refused=True, decision=err.decision)
