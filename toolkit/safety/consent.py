"""Consent for sensitive actions: the request a callback gets, asking it (sync or async), and
whose call is running (the model's tool call or the host program's own). A request never
shows a secret's value: :func:`ask` redacts it before the callback sees it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..models import HeldRequest
from .secrets import all_secrets, redact_data

__all__ = ["MODEL_CALL", "ConsentRequest", "ConsentRules", "ask", "is_gated"]

MODEL_CALL: ContextVar[bool] = ContextVar("webrefs_model_call", default=False)
"""True while a tool call of the model runs (set by the tool registry)."""


@dataclass(frozen=True)
class ConsentRequest:
    """What a consent callback is asked about."""

    action: str
    """``click``, ``fill``, ``upload``, ``goto``, ..."""
    target: str | None
    """The target as the model gave it (a ref or a description)."""
    target_name: str
    """Role and name of the element (``button "Pay 5000 EUR"``), when known."""
    url: str
    """The page the action runs on."""
    level: str
    reasons: tuple[str, ...]
    details: dict[str, Any] = field(default_factory=dict)
    """More about the action (``{"value": ...}`` is never included for secrets)."""
    effect: HeldRequest | None = None
    """When set, consent is asked for this request the action caused (held before it was
    sent), not for the action itself, which has run; ``level`` and ``reasons`` are the
    request's. ``action`` is ``"page"`` (and ``target`` ``None``) for a request the page sent
    while no action ran."""

    @property
    def key(self) -> str:
        """Stable identity of the request (action, target and page; and the held request)."""
        key = f"{self.action}|{self.target or ''}|{self.target_name}|{self.url}"
        if self.effect is not None:
            key += f"|{self.effect.method} {self.effect.url}"
        return key

    def describe(self) -> str:
        what = f"{self.action} on {self.target_name or self.target or 'the page'}"
        if self.effect is not None:
            cause = (f"the page at {self.url}" if self.action == "page"
                     else f"{what} at {self.url}")
            return f"{cause} is sending {self.effect.describe()}: {'; '.join(self.reasons)}"
        return f"{what} at {self.url}: {'; '.join(self.reasons)}"


class ConsentRules(Protocol):
    """The fields of a ``SafetyPolicy`` consent reads."""

    @property
    def sensitive_data(self) -> Mapping[str, str | Mapping[str, str]]: ...
    @property
    def classifies(self) -> bool: ...
    @property
    def gate(self) -> str: ...
    @property
    def consent(self) -> Callable[[ConsentRequest], Any] | None: ...


def is_gated(policy: ConsentRules) -> bool:
    """Whether consent applies to the call running now (a model call, or ``gate="all"``)."""
    return policy.classifies and (policy.gate == "all" or MODEL_CALL.get())


async def ask(policy: ConsentRules, request: ConsentRequest) -> bool | None:
    """The callback's answer: ``None`` when there is no callback or it answered ``None`` (no
    one can decide here). A sync callback runs on a worker thread, so one that waits for a
    human does not stop the browser's loop."""
    callback = policy.consent
    if callback is None:
        return None
    if policy.sensitive_data:  # the request shows no secret (the same one the error carries)
        request = redact_data(request, all_secrets(policy))
    if inspect.iscoroutinefunction(callback):
        answer: Any = await callback(request)
    else:
        answer = await asyncio.to_thread(callback, request)
        if inspect.isawaitable(answer):
            answer = await answer
    return None if answer is None else bool(answer)
