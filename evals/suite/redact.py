"""Credentials out of every URL the harness records.

A URL may carry credentials two ways: user-info (``http://user:pass@host/v1``, which an HTTP
client turns into a ``Basic`` authorization header) and key-like query or fragment values
(``?api-key=...``, ``?key=...``, ``#access_token=...``). :func:`redact_url` is the one rule:
it drops the user-info and replaces each key-like value with ``REDACTED``, leaving the rest
of the URL byte for byte. :func:`redact_urls` applies it to every URL in a text (an error
message, a JSON document, a report), stopping at quotes, backslashes, angle brackets and
white space, so JSON and HTML around a URL stay valid.

The harness applies it wherever a URL is recorded: provider settings (``--base-url``),
cassettes, ``results.json``, ``report.md`` and ``report.html``, the provider table and every
error line ``webrefs eval`` prints. The credentials themselves still reach the endpoint they
were given for. Pure code.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

__all__ = ["REDACTED", "redact_url", "redact_urls"]

REDACTED = "REDACTED"

_KEYLIKE = re.compile(
    r"(?i)(key|token|secret|passw|pwd|auth|credential|signature|session|^sig$)")
"""Parameter names whose values are credentials (``api-key``, ``key``, ``access_token``,
``X-Amz-Signature``, ``client_secret``, ``sig``, ...)."""
_AUTHORITY = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?//([^/?#]*)")
_AFTER_SCHEME = re.compile(r"""://[^\s"'<>\\`]+""")
"""What follows a URL's scheme in a text, up to a quote, backslash, bracket or white space."""


def _params(text: str) -> str:
    """``a=1&api_key=s`` with each key-like value replaced."""
    if "=" not in text or not _KEYLIKE.search(unquote_plus(text)):
        return text
    pieces = []
    for piece in text.split("&"):
        name, sep, _value = piece.partition("=")
        pieces.append(f"{name}={REDACTED}" if sep and _KEYLIKE.search(unquote_plus(name))
                      else piece)
    return "&".join(pieces)


def redact_url(url: str) -> str:
    """``url`` without user-info and with key-like query and fragment values replaced."""
    rest, hash_, fragment = url.partition("#")
    rest, mark, query = rest.partition("?")
    found = _AUTHORITY.match(rest)
    if found is not None:
        authority = found.group(2)
        if "@" in authority:
            host = authority.rpartition("@")[2]
            rest = rest[:found.start(2)] + host + rest[found.end(2):]
    else:  # no "//": "user:pass@host/v1" as some clients accept it
        head, slash, tail = rest.partition("/")
        if "@" in head:
            rest = head.rpartition("@")[2] + slash + tail
    return rest + mark + _params(query) + hash_ + _params(fragment)


def redact_urls(text: str) -> str:
    """``text`` with :func:`redact_url` applied to every ``scheme://...`` URL in it."""
    if "://" not in text:
        return text

    def one(found: re.Match[str]) -> str:
        rest = found.group(0)  # "://host/..."; the scheme before it needs no change
        return ":" + redact_url(rest[1:]) if "@" in rest or "=" in rest else rest

    return _AFTER_SCHEME.sub(one, text)
