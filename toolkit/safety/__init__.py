"""The safety layer: pure rules on actions, navigation, page text and secrets, with no
browser, enforced by the layers above it (the one action path and the context's routing).

- :mod:`~webrefs.safety.policy`: the frozen :class:`SafetyPolicy` (options, defaults).
- :mod:`~webrefs.safety.urls`: schemes, hosts, exact host patterns, address classes, cloud
  metadata endpoints.
- :mod:`~webrefs.safety.pagerules`: the network rules compiled for the judge that runs inside
  pages and workers (the side-door guard).
- :mod:`~webrefs.safety.sensitive`: which actions need consent (rules as data).
- :mod:`~webrefs.safety.consent`: the request a consent callback gets, and asking it.
- :mod:`~webrefs.safety.secrets`: ``<secret>name</secret>`` placeholders and redaction.
- :mod:`~webrefs.safety.fence`: cleaning page text and fencing it as data.
"""

from __future__ import annotations

from .consent import ConsentRequest
from .policy import Consent, SafetyPolicy
from .sensitive import DEFAULT_RULES, Rule, classify
from .urls import Verdict, judge_url

__all__ = ["DEFAULT_RULES", "Consent", "ConsentRequest", "Rule", "SafetyPolicy", "Verdict",
           "classify", "judge_url"]
