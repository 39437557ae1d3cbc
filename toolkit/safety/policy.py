"""The safety options: one frozen :class:`SafetyPolicy`, given to ``Browser.launch`` /
``Browser.connect`` and to the tool adapters. On by default with sane defaults: dangerous URL
schemes are blocked, sensitive actions of the model need consent, link-local (cloud metadata)
addresses are blocked; private-network blocking is available but off (users run local apps).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..errors import InvalidArgumentError

if TYPE_CHECKING:
    from .consent import ConsentRequest
    from .sensitive import Rule

__all__ = ["Consent", "SafetyPolicy"]

Consent = Callable[["ConsentRequest"], "Awaitable[bool | None] | bool | None"]
"""A consent callback: gets a :class:`~webrefs.safety.consent.ConsentRequest`, answers
``True`` (go ahead), ``False`` (refuse) or ``None`` (no one can decide here: refused, saying
so); sync or async."""


def _default_rules() -> tuple[Rule, ...]:
    from .sensitive import DEFAULT_RULES

    return DEFAULT_RULES


@dataclass(frozen=True)
class SafetyPolicy:
    """What the browser may reach and what the model may do without asking.

    ``SafetyPolicy()`` is the default of every Browser; ``SafetyPolicy.off()`` turns every
    rule off (a trusted sandbox). Every request of the context passes its routing (judged
    while a network rule is on, as by default); routing turns Playwright's HTTP cache off."""

    enabled: bool = True
    """Master switch; ``False`` turns every rule below off."""
    allowed_domains: tuple[str, ...] | None = None
    """Hosts the browser may reach; ``None`` means any host. Patterns: ``example.com`` (that
    host only), ``*.example.com`` (its sub-domains only: list both for both), ``*`` (any),
    an IP address, each optionally with ``:port``. Never matched as substrings:
    ``*.example.com`` does not match ``example.com.evil.test``."""
    blocked_domains: tuple[str, ...] = ()
    """Hosts the browser may never reach (same patterns); checked before ``allowed_domains``."""
    block_private_network: bool = False
    """Block loopback, private ranges (10/8, 172.16/12, 192.168/16, fc00::/7), link-local and
    other non-public addresses, in every spelling. Host names are then resolved (Chromium's
    ``--host-resolver-rules`` first) and judged by the addresses they resolve to. Hosts named
    exactly (no ``*``) in ``allowed_domains`` stay reachable (a local app you trust)."""
    block_link_local: bool = True
    """Block link-local addresses (169.254.0.0/16, fe80::/10), where cloud metadata services
    such as 169.254.169.254 answer, the metadata endpoints outside them
    (:data:`~webrefs.safety.urls.METADATA_ADDRESSES`: ``fd00:ec2::254``, ``fd20:ce::254``,
    ``100.100.100.200``, ``192.0.0.192``, ...) in every spelling, and well-known metadata host
    names (:data:`~webrefs.safety.urls.METADATA_HOSTS`), even when ``block_private_network``
    is off."""
    sensitive_actions: bool = True
    """Classify actions (:mod:`webrefs.safety.sensitive`) and ask for consent on ``confirm``."""
    rules: tuple[Rule, ...] = field(default_factory=_default_rules)
    """The classification rules (data: extend with ``DEFAULT_RULES + (Rule(...),)`` or
    replace)."""
    consent: Consent | None = None
    """Called for each ``confirm`` action with a ``ConsentRequest``; ``True`` runs it. Sync
    callbacks run on a worker thread (they may block on a human), async ones on the browser's
    loop. ``None``: ``confirm`` actions are refused with a message saying why."""
    consent_by: str = "the host's policy"
    """Who answers through ``consent``, as action results name them ("confirmed by ...",
    "... refused"): ``"the user"`` when the callback asks a person, ``"the host's policy"``
    (the default) when it decides by rule, ``"the eval harness"`` for the harness's sandbox."""
    gate: Literal["tools", "all"] = "tools"
    """Whose actions need consent: the model's tool calls (``"tools"``; the host program's own
    ``Tab`` calls are classified and recorded but not stopped), or every action (``"all"``)."""
    sensitive_data: Mapping[str, str | Mapping[str, str]] = field(default_factory=dict)
    """Secrets the model names as ``<secret>name</secret>`` in ``web_fill``: ``{"name":
    "value"}`` (any allowed host) or ``{"*.bank.test": {"name": "value"}}`` (only there). The
    value is typed only on a matching host and never shown in a tool output."""
    block_service_workers: bool = True
    """Block service workers in contexts webrefs creates while a network rule is active (a
    worker's own fetches would not pass the context's routing)."""
    block_webrtc: bool = True
    """Refuse WebRTC peer connections (``RTCPeerConnection`` throws ``NotAllowedError`` in
    every frame) while a network rule is active: their UDP and TCP traffic goes to whatever
    address a page names, around the context's routing and any proxy. ``False`` lets pages
    use WebRTC unjudged."""

    def __post_init__(self) -> None:
        if not isinstance(self.consent_by, str) or not self.consent_by.strip():
            raise InvalidArgumentError("SafetyPolicy.consent_by must name who decides "
                                       "(for example 'the user').")
        if self.gate not in ("tools", "all"):
            raise InvalidArgumentError(f"SafetyPolicy.gate must be 'tools' or 'all', "
                                       f"got {self.gate!r}.")
        from .urls import check_pattern

        for name in ("allowed_domains", "blocked_domains"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, str):
                raise InvalidArgumentError(f"SafetyPolicy.{name} must be a list of host "
                                           "patterns, not a string.")
            object.__setattr__(self, name, tuple(check_pattern(p) for p in value))
        if not isinstance(self.sensitive_data, Mapping):
            raise InvalidArgumentError("SafetyPolicy.sensitive_data must be a dict.")
        for key, value in self.sensitive_data.items():
            if isinstance(value, Mapping):
                check_pattern(key)
                if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                    raise InvalidArgumentError(
                        f"SafetyPolicy.sensitive_data[{key!r}] must map names to strings.")
            elif not isinstance(value, str):
                raise InvalidArgumentError(
                    f"SafetyPolicy.sensitive_data[{key!r}] must be a string or a dict.")
        object.__setattr__(self, "rules", tuple(self.rules))

    @classmethod
    def off(cls) -> SafetyPolicy:
        """Every rule off: for trusted sandboxes only."""
        return cls(enabled=False)

    @property
    def network_rules(self) -> bool:
        """Whether requests need judging by host (domains, private or link-local blocking)."""
        return self.enabled and (self.allowed_domains is not None or bool(self.blocked_domains)
                                 or self.block_private_network or self.block_link_local)

    @property
    def classifies(self) -> bool:
        """Whether actions are classified."""
        return self.enabled and self.sensitive_actions
