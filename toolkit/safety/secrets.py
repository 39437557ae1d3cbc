"""Secrets the model names but never sees: ``<secret>name</secret>`` placeholders, which values a
field may receive, and redaction of every value from text and data.

**Where a secret may be typed.** An unscoped secret (``{"name": "value"}``) goes into fields of
any http(s) origin; a scoped one (``{"*.bank.test": {...}}``) only into fields whose *own*
frame's origin matches the pattern. The caller passes the field's frame origin
(``self.origin`` read in that frame), not the top page's URL: a frame of another origin on
the bank's page, a blank frame it wrote, or a sandboxed frame (origin ``"null"``) gets
nothing.

**Redaction** (:class:`Redactor`, :func:`redact`) replaces every whole occurrence of a value,
as it is or encoded, by its placeholder. Each character may appear in any of its common
spellings, mixed freely (so ``encodeURIComponent``, which leaves ``!'()*~`` alone, and
Python's ``quote``, which does not, are both caught):

- URL percent-encoding of its UTF-8 bytes, hex digits in either case, encoded again
  (``%2540``), ``+`` for a space (forms), and JavaScript ``escape()`` (``%E9``, ``%u20AC``);
- HTML character references: named, decimal, hex, escaped again (``&amp;lt;``);
- backslash escapes at any depth: JSON and JavaScript (``\\"``, ``\\u00e9``, ``\\x21``,
  ``\\n``), JSON inside JSON (``\\\\\\"``);
- the signs of those escapes percent-encoded in turn (an escaped value put into a URL:
  ``encodeURIComponent(JSON.stringify(...))``);
- a run of white space as any run of white space (pages and snapshots fold them), and white
  space at the value's ends as none (pages trim).

Each character takes the first of its spellings that fits, the longest tried first, and the
next character never makes it go back and try another; so a value that itself holds what
looks like an escape (a literal ``%25``, ``&amp;`` or a backslash before ``%``) can be missed
in some spellings. Random passwords of letters, digits, punctuation, symbols, spaces and
non-ASCII letters are caught in every spelling listed (a property test).

Base64 and base64url of the value are caught too, at each of the three byte alignments the
value can have inside longer base64 (so ``btoa("user:" + value)``, a Basic auth header, is
caught as well as ``btoa(value)``): the characters that hold only the value's bits are
replaced; the one or two at each end that also hold a neighbour's bits stay.

**Only whole values are matched, never a prefix or part.** If a part of a value were
replaced, a page could print guesses and learn from what was redacted, one character at a
time. So text is redacted *before* anything cuts it: the snapshot tree, ``get_text`` and the
dialogs a tab records are redacted as they are read (the extractor keeps
:attr:`Redactor.slack` characters more of each text for that), and while a tool call runs
every cut helper (``webrefs.errors.cap``, ``elide``, ``clip``, ``fence.clean_line``) redacts
first (:func:`webrefs.errors.redacting`). Cutting a placeholder leaks nothing. What leaves
the tool registry (text, artifact, error, system prompt) is then redacted whole, once, and a
consent request before a callback sees it (``consent.ask``).

**Short values.** A value shorter than :data:`MIN_REDACT_CHARS` (3) is never searched for:
it would match everywhere, so redaction cannot protect it (the placeholder still keeps it out
of the model's own words). From 3 characters up to :data:`MIN_ENCODED_CHARS` (6) a value is
matched (in every spelling above, base64 aside) only where it stands apart: not inside a
longer run of letters and digits, so a PIN ``1234`` is hidden in ``PIN: 1234`` but
``order 5123456`` is left alone. From 6 characters on a value is matched anywhere, base64
included (its cores are then 6 characters or more; shorter cores would match ordinary
base64 such as images).

Redaction catches a page that shows a secret the way pages usually do; a page that holds the
secret and wants it out can always change it further (reverse it, split it), which is why a
scoped secret is typed only into frames of its own site.
"""

from __future__ import annotations

import base64
import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from html.entities import codepoint2name
from typing import Any, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel

from ..errors import InvalidArgumentError
from .urls import host_matches, parse_url

__all__ = ["MIN_ENCODED_CHARS", "MIN_REDACT_CHARS", "PLACEHOLDER", "Redactor", "SecretRules",
           "all_secrets", "has_placeholder", "placeholder", "redact", "redact_data", "redactor",
           "same_origin", "secrets_for", "substitute"]

PLACEHOLDER = re.compile(r"<secret>\s*([A-Za-z0-9_.\-]{1,100})\s*</secret>")
"""How the model names a secret in ``web_fill``."""
MIN_REDACT_CHARS = 3
"""Shorter secret values are not searched for in text (they would match everywhere)."""
MIN_ENCODED_CHARS = 6
"""Shorter values (from :data:`MIN_REDACT_CHARS`) are matched only apart from letters and
digits around them, and not in base64; from this length on, anywhere and in base64 too."""
MAX_SLACK_CHARS = 4000
"""Most extra characters the extractor keeps of each text so a value is redacted before the
text is cut (a longer encoded value straddling a cut keeps its head)."""


def placeholder(name: str) -> str:
    return f"<secret>{name}</secret>"


def has_placeholder(text: str) -> bool:
    return bool(PLACEHOLDER.search(text))


class SecretRules(Protocol):
    """The field of a ``SafetyPolicy`` secrets are read from."""

    @property
    def sensitive_data(self) -> Mapping[str, str | Mapping[str, str]]: ...


def all_secrets(policy: SecretRules) -> dict[str, str]:
    """Every secret value by name, whatever its domain (what redaction looks for)."""
    out: dict[str, str] = {}
    for key, value in policy.sensitive_data.items():
        if isinstance(value, Mapping):
            out.update({str(k): str(v) for k, v in value.items()})
        else:
            out[key] = str(value)
    return out


def secrets_for(policy: SecretRules, origin: str) -> dict[str, str]:
    """The secrets that may be typed into a field whose frame has ``origin`` (an origin such
    as ``https://bank.test``, or a URL): unscoped ones on any http(s) origin, scoped ones only
    where the host matches their pattern. An opaque origin (``"null"``: sandboxed frames,
    ``data:`` documents) and anything off http(s) get none."""
    parsed = parse_url(origin)
    if parsed.scheme not in ("http", "https") or parsed.invalid or not parsed.host:
        return {}
    out: dict[str, str] = {}
    for key, value in policy.sensitive_data.items():
        if isinstance(value, Mapping):
            if host_matches(parsed, key.lower().split("://", 1)[-1].rstrip("/")):
                out.update({str(k): str(v) for k, v in value.items()})
        else:
            out.setdefault(key, str(value))
    return out


def same_origin(origin: str, url: str) -> bool:
    """Whether ``url`` is of ``origin`` (scheme, host and port; default ports filled in);
    an opaque origin (``"null"``) is no one's."""
    a, b = urlsplit(origin.strip()), urlsplit(url.strip())
    try:
        ports = (a.port or _DEFAULT_PORTS.get(a.scheme.lower()),
                 b.port or _DEFAULT_PORTS.get(b.scheme.lower()))
    except ValueError:
        return False
    return (a.scheme.lower() in _DEFAULT_PORTS and bool(a.hostname)
            and (a.scheme.lower(), a.hostname) == (b.scheme.lower(), b.hostname)
            and ports[0] == ports[1])


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _where(origin: str) -> str:
    parsed = parse_url(origin)
    if parsed.scheme in ("http", "https") and parsed.host and not parsed.invalid:
        return f"a field of {parsed.host}"
    return "a field whose frame has no site of its own (sandboxed, data: or blank)"


def substitute(text: str, policy: SecretRules, origin: str) -> tuple[str, list[str]]:
    """``text`` with each placeholder replaced by its value, and the names used. ``origin``
    is the origin of the frame the field is in. An unknown name, or one not allowed there,
    is an :class:`InvalidArgumentError`."""
    names = PLACEHOLDER.findall(text)
    if not names:
        return text, []
    known = all_secrets(policy)
    allowed = secrets_for(policy, origin)
    for name in names:
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise InvalidArgumentError(
                f"There is no secret named {name[:60]!r}.",
                hint=f"Secrets you may use: {listed}.")
        if name not in allowed:
            raise InvalidArgumentError(
                f"The secret {name[:60]!r} may not be typed into {_where(origin)}; nothing "
                "was typed.",
                hint="Use it only in a field of the site it belongs to (a frame of another "
                "site on that page is not that site).")
    return PLACEHOLDER.sub(lambda m: allowed[m.group(1)], text), names


# -- patterns ---------------------------------------------------------------------------------
def _hex(number: int, width: int = 0) -> str:
    """A pattern for ``number`` in hex, either case, zero-padded to ``width``."""
    digits = format(number, "x").rjust(width, "0")
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits)


_PCT = "%(?:25)*"  # a percent sign, maybe itself percent-encoded (%2520)
# the signs that start an HTML reference or an escape, as they are or percent-encoded (an
# escaped value put into a URL: encodeURIComponent(JSON.stringify(value)))
_AND, _SEMI, _HASH = f"(?:&|{_PCT}26)", f"(?:;|{_PCT}3[bB])", f"(?:#|{_PCT}23)"
_AMP = f"{_AND}(?:amp{_SEMI})*"  # an ampersand, maybe itself escaped (&amp;lt;)
_ONE_BS = f"(?:\\\\|{_PCT}5[cC])"
_BS = _ONE_BS + "+"  # one or more backslashes (an escape, maybe escaped again)
_SHORT_ESCAPES = {"\n": "n", "\t": "t", "\r": "r", "\b": "b", "\f": "f", "\v": "v", "\0": "0"}
_WHITE = (" ", "\t", "\n", "\r", "\xa0")


@lru_cache(maxsize=4096)
def _spelling(ch: str) -> str:
    """A pattern for one character: itself or one of its encodings, maybe after escaping
    backslashes (a backslash escape of a quote, then put into JSON or a URL)."""
    cp = ord(ch)
    # the longest spellings first: a character takes the first that fits, and the next one
    # never makes it try another (see _Secret.match)
    refs = [f"{_HASH}(?:0*{cp}|[xX]0*{_hex(cp)})"]  # HTML references: &#233; &#xE9; &eacute;
    name = codepoint2name.get(cp)
    if name:
        refs.append(name)
    if ch == "'":
        refs.append("apos")
    plain = [f"{_AMP}(?:{'|'.join(refs)}){_SEMI}",
             "".join(_PCT + _hex(b, 2) for b in ch.encode("utf-8"))]
    if 128 <= cp < 256:
        plain.append(_PCT + _hex(cp, 2))  # escape(): Latin-1
    elif 256 <= cp <= 0xFFFF:
        plain.append(_PCT + "[uU]" + _hex(cp, 4))  # escape(): %uXXXX
    plain.append(re.escape(ch))
    escaped = []  # after at least one backslash
    if cp <= 0xFFFF:
        escaped.append(f"[uU]{_hex(cp, 4)}")
    else:
        high, low = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
        escaped.append(f"u{_hex(high, 4)}{_BS}u{_hex(low, 4)}")
        escaped.append(f"u\\{{0*{_hex(cp)}\\}}")
    if cp < 256:
        escaped.append(f"[xX]{_hex(cp, 2)}")
    if ch in _SHORT_ESCAPES:
        escaped.append(_SHORT_ESCAPES[ch])
    # as few escaping backslashes as fit: the rest may start the next character's escape
    return f"(?:{_ONE_BS}*?(?:{'|'.join(plain)})|{_BS}(?:{'|'.join(escaped)}))"


@lru_cache(maxsize=64)
def _white_unit(run: str) -> str:
    """White space, any: the run's own characters and the usual ones, in their spellings,
    or a form's + for a space (maybe percent-encoded again: a form value put into a URL)."""
    alts = [r"\s", f"\\+|{_PCT}2[bB]"]
    return "(?:" + "|".join(alts + [_spelling(ch) for ch in sorted(set(_WHITE) | set(run))]) + ")"


@lru_cache(maxsize=4096)
def _unit(run: str, after: str = "") -> re.Pattern[str]:
    """The compiled pattern of one character of a value, or of a run of white space (any run
    of white space or its spellings) followed in the value by ``after``; compiled once per
    character, whatever the value."""
    if run.isspace():  # before a +, the shortest run: the + may look like a form's space
        return re.compile(_white_unit(run) + ("+?" if after == "+" else "+"))
    return re.compile(_spelling(run))


def _units(value: str) -> list[re.Pattern[str]]:
    runs = re.findall(r"\s+|\S", value.strip())
    return [_unit(run, runs[i + 1][:1] if i + 1 < len(runs) and run.isspace() else "")
            for i, run in enumerate(runs)]


def _base64_forms(value: str) -> list[str]:
    """Base64 and base64url of ``value``: whole, and the characters that carry only its bits
    at each alignment inside longer base64 (longest first)."""
    raw = value.encode("utf-8")
    forms: set[str] = set()
    whole = base64.b64encode(raw).decode()
    forms |= {whole, whole.rstrip("=")}
    for shift in range(3):
        enc = base64.b64encode(b"\0" * shift + raw).decode().rstrip("=")
        first = -(-8 * shift // 6)  # the first character holding only the value's bits
        last = (8 * shift + 8 * len(raw)) // 6  # one past the last such character
        core = enc[first:last]
        if len(core) >= MIN_ENCODED_CHARS:
            forms.add(core)
    forms |= {f.replace("+", "-").replace("/", "_") for f in forms}
    return sorted(forms, key=len, reverse=True)


_B64_SIGNS = {"+": f"(?:\\+|{_PCT}2[bB])", "/": f"(?:/|{_PCT}2[fF])", "=": f"(?:=|{_PCT}3[dD])"}


def _base64_pattern(form: str) -> str:
    """``form`` (base64 text), its ``+``, ``/`` and ``=`` maybe percent-encoded (in a URL)."""
    return "".join(_B64_SIGNS.get(c, c) for c in form)


def _longest_spelling(value: str) -> int:
    """Length of the value in the longest of its usual encodings: percent-encoded UTF-8 (as
    long as JSON's ``\\uXXXX`` of any character beyond ASCII, longer than HTML's and
    base64); a value escaped character by character (``&#105;``) may be longer."""
    return 3 * len(value.encode("utf-8"))


_KEEP = r"<secret>\s*[A-Za-z0-9_.\-]{1,100}\s*</secret>"  # a placeholder: kept as it is
_B64_HEAD = 6
"""Characters a base64 form is first searched for by (it has no +, / or = among them)."""
_LEAD = 6
"""Characters of a value the search for places to try it matches in one pattern."""


@dataclass(frozen=True)
class _Secret:
    name: str
    value: str
    """Without white space at its ends (pages trim)."""
    units: tuple[re.Pattern[str], ...]
    short: bool
    """Matched only apart from letters and digits (and not in base64)."""

    def match(self, text: str, at: int) -> int | None:
        """Where a whole spelling of the value starting at ``at`` ends, or ``None``. Each
        character takes the first of its spellings that fits (encoded ones before the
        character itself), without going back to try another."""
        pos = at
        for unit in self.units:
            m = unit.match(text, pos)
            if m is None:
                return None
            pos = m.end()
        if self.short and ((self.value[0].isalnum() and at > 0 and _alnum(text[at - 1]))
                           or (self.value[-1].isalnum() and pos < len(text)
                               and _alnum(text[pos]))):
            return None
        return pos


def _ahead(chars: set[str]) -> str:
    """A look at the first character: it lets a search skip most places at once."""
    return "(?=[" + "".join(re.escape(c) for c in sorted(chars)) + "])"


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _secret(name: str, value: str) -> _Secret:
    core = value.strip()
    return _Secret(name, core, tuple(_units(core)), len(core) < MIN_ENCODED_CHARS)


@dataclass(frozen=True)
class _Head:
    """A plain string a spelling of a value starts with (its first letters and digits, which
    every usual encoding leaves as they are, or the first characters of a base64 form): found
    by a plain string search, then checked with ``pattern`` (the value's first characters in
    any spelling, or the whole base64 form with its signs maybe percent-encoded)."""

    index: int
    text: str
    pattern: re.Pattern[str]
    base64: bool = False


def _alnum_head(value: str) -> str:
    m = re.match(r"[0-9A-Za-z]{1,6}", value)
    return m.group(0) if m is not None else ""


class Redactor:
    """Every secret of a mapping, ready to search for; calling it redacts a text.

    Build it with :func:`redactor` (cached). Places where a spelling may start are found by
    plain string searches (a value's first letters and digits, a base64 form's first
    characters) and by one pattern for spellings that start with a sign (``%``, ``&``, a
    backslash, or a value's own first character when it is no letter or digit) and for
    placeholders; a value is then followed character by character with patterns compiled once
    per character, so a long value costs no more to prepare than a short one. An empty
    redactor (no value long enough) changes nothing and is false."""

    def __init__(self, secrets: tuple[tuple[str, str], ...]) -> None:
        searched = sorted(((n, v) for n, v in secrets if len(v.strip()) >= MIN_REDACT_CHARS),
                          key=lambda p: (-len(p[1].strip()), p[0]))
        self._secrets = [_secret(n, v) for n, v in searched]
        self._heads: list[_Head] = []
        leads: list[str] = []
        loose: list[str] = []  # base64 forms that start with a sign (rare)
        signs = {"<", "\\", "%", "&"}
        for i, (_, value) in enumerate(searched):
            core = value.strip()
            # (a short value's rule on letters and digits around it is checked by
            # _Secret.match: in JSON, "\n1234" has a letter before the 1)
            lead = "".join(u.pattern for u in _units(core)[:_LEAD])
            leads.append(lead)
            head = _alnum_head(core)
            if head:
                self._heads.append(_Head(i, head, re.compile(lead)))
            else:
                signs.add(core[0])
            if len(core) < MIN_ENCODED_CHARS:
                continue
            for form in _base64_forms(core):
                plain = re.match(r"[^+/=]*", form)
                if plain is not None and len(plain.group(0)) >= _B64_HEAD:
                    self._heads.append(_Head(i, plain.group(0)[:_B64_HEAD],
                                             re.compile(_base64_pattern(form)), base64=True))
                else:
                    loose.append(f"(?P<b{i}_{len(loose)}>{_base64_pattern(form)})")
        self._signs = (re.compile(_ahead(signs) + "(?:" + "|".join(
            [f"(?P<k>{_KEEP})", *leads]) + ")")
            if searched else None)
        """Placeholders, and spellings that start with a sign."""
        self._loose = re.compile("|".join(loose)) if loose else None
        self.slack: int = min(MAX_SLACK_CHARS, max((_longest_spelling(v) for _, v in searched),
                                                   default=0))
        """Extra characters a text must keep past a cut so a value straddling the cut is
        still whole when redacted."""

    def __bool__(self) -> bool:
        return self._signs is not None

    def _next_head(self, text: str, pos: int) -> int | None:
        """Where the first spelling found by a plain string search starts, from ``pos``."""
        best: int | None = None
        for head in self._heads:
            i = text.find(head.text, pos)
            while i != -1 and (best is None or i < best):
                if head.pattern.match(text, i) is not None:
                    best = i
                    break
                i = text.find(head.text, i + 1)
        if self._loose is not None:
            m = self._loose.search(text, pos)
            if m is not None and (best is None or m.start() < best):
                best = m.start()
        return best

    def _at(self, text: str, at: int) -> tuple[int, str] | None:
        """The end and name of a secret spelled from ``at``: a value (longest first), else a
        base64 form."""
        for secret in self._secrets:
            end = secret.match(text, at)
            if end is not None and end > at:
                return end, secret.name
        for head in self._heads:
            if head.base64 and text.startswith(head.text, at):
                m = head.pattern.match(text, at)
                if m is not None:
                    return m.end(), self._secrets[head.index].name
        if self._loose is not None:
            m = self._loose.match(text, at)
            if m is not None and m.lastgroup is not None:
                return m.end(), self._secrets[int(m.lastgroup[1:].split("_", 1)[0])].name
        return None

    def __call__(self, text: str) -> str:
        """``text`` with every secret value (in every spelling) replaced by its placeholder;
        the same object when nothing was found."""
        if self._signs is None or not text:
            return text
        parts: list[str] = []
        done = pos = 0
        head: int | None = None  # the next place a plain search found, kept until passed
        more = bool(self._heads) or self._loose is not None
        while True:
            m = self._signs.search(text, pos)
            if more and (head is None or head < pos):
                head = self._next_head(text, pos)
                more = head is not None
            at = m.start() if m is not None else None
            if head is not None and head >= pos and (at is None or head < at):
                at = head
            elif m is not None and m.lastgroup == "k":
                pos = m.end()  # a placeholder stays as it is
                continue
            if at is None:
                break
            found = self._at(text, at)
            if found is None:
                pos = at + 1
                continue
            end, name = found
            parts += [text[done:at], placeholder(name)]
            done = pos = end
        if not parts:
            return text
        parts.append(text[done:])
        return "".join(parts)

    def mentions(self, text: str) -> bool:
        """Whether ``text`` may hold a secret: the first characters of a value (in any
        spelling, escaped for JSON too) or a base64 form are somewhere in it. ``False`` is
        sure; ``True`` may be wrong."""
        if self._signs is None:
            return False
        if any(m.lastgroup != "k" for m in self._signs.finditer(text)):
            return True
        return self._next_head(text, 0) is not None

    def data(self, value: Any) -> Any:
        """:func:`redact_data` with this redactor."""
        if self._signs is None:
            return value
        if isinstance(value, BaseModel):  # one look at the whole model before a walk
            try:
                if not self.mentions(value.model_dump_json()):
                    return value
            except ValueError:  # a field JSON cannot hold: walk it all
                pass
        return _walk(value, self)


@lru_cache(maxsize=16)
def _compiled(items: tuple[tuple[str, str], ...]) -> Redactor:
    return Redactor(items)


def redactor(secrets: Mapping[str, str]) -> Redactor:
    """The (cached) :class:`Redactor` of ``secrets`` (name to value)."""
    return _compiled(tuple(sorted((str(k), str(v)) for k, v in secrets.items())))


def redact(text: str, secrets: Mapping[str, str]) -> str:
    """``text`` with every secret value, in every spelling the module docstring lists,
    replaced by its placeholder."""
    if not secrets or not text:
        return text
    return redactor(secrets)(text)


def redact_data(value: Any, secrets: Mapping[str, str]) -> Any:
    """``value`` with every string in it redacted: strings, lists, tuples, dicts (keys too),
    pydantic models (their serialized fields) and dataclass instances, rebuilt only where
    something changed (the same object otherwise)."""
    if not secrets:
        return value
    return redactor(secrets).data(value)


def _walk(value: Any, sub: Redactor) -> Any:
    if isinstance(value, str):
        return sub(value)
    if isinstance(value, BaseModel):
        update: dict[str, Any] = {}
        for name, info in type(value).model_fields.items():
            if info.exclude:
                continue
            old = getattr(value, name)
            new = _walk(old, sub)
            if new is not old:
                update[name] = new
        return value.model_copy(update=update) if update else value
    if isinstance(value, (list, tuple)):
        items = [_walk(v, sub) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        pairs = [(_walk(k, sub), _walk(v, sub)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(),
                                                                strict=True)):
            return value
        return dict(pairs)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f for f in dataclasses.fields(value) if f.init]
        changed = {}
        for f in fields:
            old = getattr(value, f.name)
            new = _walk(old, sub)
            if new is not old:
                changed[f.name] = new
        return dataclasses.replace(value, **changed) if changed else value
    return value
