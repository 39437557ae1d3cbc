"""Secrets the model names but never sees: ``<secret>name</secret>`` placeholders, which values
a host may receive, and redaction of every value (also URL-encoded or HTML-escaped) from text.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus

from .. import quoting
from ..errors import InvalidArgumentError
from .urls import host_matches, parse_url

if TYPE_CHECKING:
    from .policy import SafetyPolicy

__all__ = ["MIN_REDACT_CHARS", "PLACEHOLDER", "all_secrets", "has_placeholder", "placeholder",
           "redact", "secrets_for", "substitute"]

PLACEHOLDER = re.compile(r"<secret>\s*([A-Za-z0-9_.\-]{1,100})\s*</secret>")
"""How the model names a secret in ``web_fill``."""
MIN_REDACT_CHARS = 3
"""Shorter secret values are not searched for in text (they would match everywhere)."""


def placeholder(name: str) -> str:
    return f"<secret>{name}</secret>"


def has_placeholder(text: str) -> bool:
    return bool(PLACEHOLDER.search(text))


def all_secrets(policy: SafetyPolicy) -> dict[str, str]:
    """Every secret value by name, whatever its domain (what redaction looks for)."""
    out: dict[str, str] = {}
    for key, value in policy.sensitive_data.items():
        if isinstance(value, Mapping):
            out.update({str(k): str(v) for k, v in value.items()})
        else:
            out[key] = str(value)
    return out


def secrets_for(policy: SafetyPolicy, url: str) -> dict[str, str]:
    """The secrets that may be typed on the page at ``url``: unscoped ones on any host,
    scoped ones only on a host matching their pattern (and never off http(s))."""
    parsed = parse_url(url)
    if parsed.scheme not in ("http", "https") or parsed.invalid:
        return {}
    out: dict[str, str] = {}
    for key, value in policy.sensitive_data.items():
        if isinstance(value, Mapping):
            if host_matches(parsed, key.lower().split("://", 1)[-1].rstrip("/")):
                out.update({str(k): str(v) for k, v in value.items()})
        else:
            out.setdefault(key, str(value))
    return out


def substitute(text: str, policy: SafetyPolicy, url: str) -> tuple[str, list[str]]:
    """``text`` with each placeholder replaced by its value, and the names used. An unknown
    name, or one not allowed on this page's host, is an :class:`InvalidArgumentError`."""
    names = PLACEHOLDER.findall(text)
    if not names:
        return text, []
    known = all_secrets(policy)
    allowed = secrets_for(policy, url)
    for name in names:
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise InvalidArgumentError(
                f"There is no secret named {name[:60]!r}.",
                hint=f"Secrets you may use: {listed}.")
        if name not in allowed:
            raise InvalidArgumentError(
                f"The secret {name[:60]!r} may not be typed on this site "
                f"({parse_url(url).host or url[:80]}); nothing was typed.",
                hint="Use it only on the site it belongs to.")
    return PLACEHOLDER.sub(lambda m: allowed[m.group(1)], text), names


def _forms(value: str) -> list[str]:
    forms = {value, quote(value, safe=""), quote_plus(value), html.escape(value),
             html.escape(value, quote=False), json.dumps(value)[1:-1]}
    forms.add(quoting.escape(value))  # as webrefs writes a page string it quotes
    return sorted((f for f in forms if len(f) >= MIN_REDACT_CHARS), key=len, reverse=True)


def redact(text: str, secrets: Mapping[str, str]) -> str:
    """``text`` with every secret value (and its URL-encoded, HTML-escaped and JSON-escaped
    forms) replaced by its placeholder."""
    if not secrets or not text:
        return text
    pairs = sorted(((form, name) for name, value in secrets.items() for form in _forms(value)),
                   key=lambda p: len(p[0]), reverse=True)
    for form, name in pairs:
        if form in text:
            text = text.replace(form, placeholder(name))
    return text
