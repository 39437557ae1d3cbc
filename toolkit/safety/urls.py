"""URL rules, pure: schemes, hosts as the browser reads them (user-info, backslashes, odd IPv4
spellings, IPv6-mapped addresses), exact host patterns, address classes, cloud metadata
endpoints, and Chromium's ``--host-resolver-rules``. No network: resolving a name is the
caller's job (:func:`host_to_resolve` names the host only when the name alone cannot decide,
so a name the rules refuse is never looked up; :func:`judge_url` takes the addresses).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Protocol
from urllib.parse import unquote, urlsplit

from ..errors import InvalidArgumentError

__all__ = [
    "ALLOWED_SCHEMES",
    "BLOCKED_SCHEMES",
    "METADATA_ADDRESSES",
    "METADATA_HOSTS",
    "NetworkRules",
    "ParsedUrl",
    "Verdict",
    "address_class",
    "check_pattern",
    "effective_address",
    "host_matches",
    "host_to_resolve",
    "is_metadata_address",
    "judge_url",
    "map_host",
    "parse_host",
    "parse_ipv4",
    "parse_resolver_rules",
    "parse_url",
    "split_host_pattern",
]

ALLOWED_SCHEMES = ("http", "https", "ws", "wss")
"""Schemes whose requests are judged by host; top-level pages may also be ``about:blank``."""
BLOCKED_SCHEMES = ("file", "javascript", "data", "blob", "chrome", "chrome-extension",
                   "chrome-untrusted", "devtools", "view-source", "filesystem", "ftp")
"""Schemes a top-level page may never have (``data:`` and ``blob:`` stay usable inside a
page: images, workers, iframes)."""
METADATA_HOSTS = ("metadata.google.internal", "metadata.goog", "metadata",
                  "instance-data", "instance-data.ec2.internal", "metadata.tencentyun.com")
"""Names of cloud metadata services (blocked with ``block_link_local``): Google Cloud's two,
the bare ``metadata`` some clouds resolve, AWS's ``instance-data`` names, Tencent Cloud's."""
METADATA_ADDRESSES: tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, ...] = tuple(
    ipaddress.ip_address(a) for a in (
        "fd00:ec2::254",       # AWS instance metadata (IPv6)
        "fd00:ec2::23",        # AWS EKS Pod Identity agent (IPv6)
        "fd20:ce::254",        # Google Cloud metadata server (IPv6)
        "fd00:c1::a9fe:a9fe",  # Oracle Cloud instance metadata (IPv6)
        "fd00:42::42",         # Scaleway metadata (IPv6)
        "100.100.100.200",     # Alibaba Cloud metadata
        "192.0.0.192",         # Oracle Cloud Classic metadata
        "168.63.129.16",       # Azure platform endpoint (WireServer)
    ))
"""Cloud metadata endpoints outside the link-local ranges (169.254.0.0/16 and fe80::/10,
where AWS, Azure, Google Cloud, Oracle, DigitalOcean, OpenStack and most others answer at
169.254.169.254): blocked with ``block_link_local``, in every spelling of the address."""

_STRIP = re.compile(r"[\t\n\r]")


class NetworkRules(Protocol):
    """The fields of a ``SafetyPolicy`` the URL rules read."""

    @property
    def enabled(self) -> bool: ...
    @property
    def allowed_domains(self) -> tuple[str, ...] | None: ...
    @property
    def blocked_domains(self) -> tuple[str, ...]: ...
    @property
    def block_private_network(self) -> bool: ...
    @property
    def block_link_local(self) -> bool: ...


@dataclass(frozen=True)
class Verdict:
    """Whether a URL may be reached, and by which rule it was judged."""

    allowed: bool
    rule: str = "allowed"
    """``scheme``, ``invalid-host``, ``blocked-domain``, ``not-allowed-domain``,
    ``link-local`` (link-local addresses and cloud metadata endpoints), ``private-network`` or
    ``allowed``."""
    reason: str = ""


@dataclass(frozen=True)
class ParsedUrl:
    scheme: str
    host: str
    """Lower-case host as the browser reads it: IPv4 in dotted form, IPv6 without brackets."""
    port: int | None
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    """The host as an address when it is one (any spelling)."""
    invalid: bool = False


def parse_ipv4(host: str) -> ipaddress.IPv4Address | bool | None:
    """The host as the WHATWG URL standard (and Chromium) reads IPv4: up to four parts, each
    decimal, ``0x`` hex or ``0``-prefixed octal, the last filling the remaining bytes
    (``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376``, ``169.254.43518``).

    ``None``: not an IPv4 spelling (a domain name); ``False``: looks numeric but is out of
    range (the browser rejects the URL)."""
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]
    if not parts or not _numeric(parts[-1]):
        return None
    if len(parts) > 4:
        return False
    numbers: list[int] = []
    for part in parts:
        value = _number(part)
        if value is None:
            return False
        numbers.append(value)
    if any(n > 255 for n in numbers[:-1]):
        return False
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        return False
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return ipaddress.IPv4Address(value)


def _numeric(part: str) -> bool:
    low = part.lower()
    if low.startswith("0x"):
        return all(c in "0123456789abcdef" for c in low[2:])
    return part.isdigit() and part.isascii()


def _number(part: str) -> int | None:
    if part == "":
        return None
    low = part.lower()
    try:
        if low.startswith("0x"):
            return int(low[2:] or "0", 16)
        if len(part) > 1 and part.startswith("0"):
            return int(part, 8)
        return int(part, 10)
    except ValueError:
        return None


def parse_host(host: str) -> tuple[str, ipaddress.IPv4Address | ipaddress.IPv6Address | None,
                                   bool]:
    """``(canonical host, address or None, invalid)`` for a raw host string."""
    raw = unquote(host).strip().lower()
    if raw.startswith("[") and raw.endswith("]"):
        raw = raw[1:-1]
    if ":" in raw:
        try:
            v6 = ipaddress.IPv6Address(raw.split("%", 1)[0])
        except ValueError:
            return raw, None, True
        return str(v6), v6, False
    if raw.endswith(".") and len(raw) > 1:
        raw = raw[:-1]
    v4 = parse_ipv4(raw)
    if v4 is False:
        return raw, None, True
    if isinstance(v4, ipaddress.IPv4Address):
        return str(v4), v4, False
    if not raw.isascii():
        try:
            raw = raw.encode("idna").decode("ascii")
        except UnicodeError:
            return raw, None, True
    if not raw or any(c in raw for c in " <>^|%\\/\"'`{}@#?"):
        return raw, None, True
    return raw, None, False


def parse_url(url: str) -> ParsedUrl:
    """Scheme, host, port and address of ``url`` as the browser reads them (tabs and
    newlines removed, ``\\`` read as ``/`` in special schemes, user-info dropped)."""
    text = _STRIP.sub("", url).strip(" \x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e"
                                     "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b"
                                     "\x1c\x1d\x1e\x1f")
    scheme, sep, _rest = text.partition(":")
    scheme = scheme.lower() if sep and re.fullmatch(r"[a-zA-Z][a-zA-Z0-9+.-]*", scheme) else ""
    if scheme in ("http", "https", "ws", "wss", "ftp"):
        text = text.replace("\\", "/")
        # special schemes: any number of slashes before the authority
        text = re.sub(r"^([a-zA-Z][a-zA-Z0-9+.-]*):/*", lambda m: m.group(1) + "://", text)
    try:
        parts = urlsplit(text)
        netloc = parts.netloc.rpartition("@")[2]
    except ValueError:
        return ParsedUrl(scheme, "", None, None, invalid=True)
    host_part, port = netloc, None
    if host_part.startswith("["):
        end = host_part.find("]")
        rest = host_part[end + 1:] if end >= 0 else ""
        host_part = host_part[: end + 1] if end >= 0 else host_part
        port_text = rest[1:] if rest.startswith(":") else ""
    elif ":" in host_part:
        host_part, _, port_text = host_part.rpartition(":")
    else:
        port_text = ""
    invalid = False
    if port_text:
        if port_text.isdigit() and int(port_text) < 65536:
            port = int(port_text)
        else:
            invalid = True
    if port is None and scheme in _DEFAULT_PORTS:
        port = _DEFAULT_PORTS[scheme]
    host, address, bad = parse_host(host_part) if host_part else ("", None, False)
    return ParsedUrl(scheme, host, port, address, invalid or bad)


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def check_pattern(pattern: object) -> str:
    """A host pattern, lower-cased; an :class:`InvalidArgumentError` for a bad one."""
    if not isinstance(pattern, str) or not pattern.strip():
        raise InvalidArgumentError(f"A host pattern must be a non-empty string, got "
                                   f"{pattern!r}.")
    p = pattern.strip().lower()
    if "://" in p:
        p = p.split("://", 1)[1]
    p = p.rstrip("/")
    host = p
    if not host.startswith("[") and host.count(":") == 1:
        host, _, port = host.partition(":")
        if not port.isdigit():
            raise InvalidArgumentError(f"Host pattern {pattern!r} has a bad port.")
    body = host[2:] if host.startswith("*.") else host
    if host != "*" and ("*" in body or not body or "/" in body):
        raise InvalidArgumentError(
            f"Host pattern {pattern!r} is not supported: use 'example.com', '*.example.com' "
            "(sub-domains), '*', or an address, optionally with ':port'.")
    return p


def split_host_pattern(pattern: str) -> tuple[str, int | None]:
    """The host part and the port (``None`` when it names none) of a checked host pattern:
    ``[::1]:8080`` gives ``("[::1]", 8080)``, ``a.test:80`` gives ``("a.test", 80)``."""
    host, port = pattern, None
    if pattern.startswith("["):
        end = pattern.find("]")
        host = pattern[: end + 1]
        if pattern[end + 1:].startswith(":"):
            port = int(pattern[end + 2:])
    elif pattern.count(":") == 1:
        host, _, port_text = pattern.partition(":")
        port = int(port_text)
    return host, port


def host_matches(parsed: ParsedUrl, pattern: str) -> bool:
    """Whether the URL's host (and port, when the pattern names one) matches ``pattern``
    exactly: ``*.example.com`` matches ``a.example.com`` and ``a.b.example.com``, never
    ``example.com`` itself nor ``example.com.evil.test``."""
    host_pattern, port = split_host_pattern(pattern)
    if port is not None and parsed.port != port:
        return False
    if host_pattern == "*":
        return True
    if host_pattern.startswith("*."):
        suffix = parse_host(host_pattern[2:])[0]
        return parsed.host.endswith("." + suffix) and parsed.address is None
    return parsed.host == parse_host(host_pattern)[0]


def effective_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address
                      ) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address a packet really goes to: the IPv4 address inside an IPv6 one (mapped,
    6to4, Teredo, NAT64 ``64:ff9b::/96``, IPv4-compatible ``::a.b.c.d``), else itself."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address.teredo:
            inner = address.teredo[1]
        if inner is None and address in ipaddress.IPv6Network("64:ff9b::/96"):
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is None and int(address) >> 32 == 0 and int(address) > 1:
            inner = ipaddress.IPv4Address(int(address))  # IPv4-compatible ::a.b.c.d
        if inner is not None:
            return inner
    return address


def is_metadata_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``address`` (any spelling, IPv4 inside IPv6 included) is one of
    :data:`METADATA_ADDRESSES`."""
    return effective_address(address) in METADATA_ADDRESSES


def address_class(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """``public``, or why not: ``loopback``, ``link-local``, ``private``, ``unspecified``,
    ``multicast``, ``reserved`` (IPv4 inside IPv6 is judged as IPv4)."""
    address = effective_address(address)
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_unspecified:
        return "unspecified"
    if address.is_multicast:
        return "multicast"
    if address.is_private or getattr(address, "is_site_local", False):
        return "private"
    if address.is_reserved or not address.is_global:
        return "reserved"
    return "public"


def host_to_resolve(url: str, policy: NetworkRules, *, top_level: bool = False) -> str | None:
    """The host name whose addresses :func:`judge_url` needs, else ``None``: only when
    private-network blocking is on, the host is a name rather than an address, the name alone
    does not decide (a name the domain rules or the metadata names refuse is never looked up)
    and it is not a host named exactly in ``allowed_domains`` (trusted whatever it resolves
    to)."""
    if not (policy.enabled and policy.block_private_network):
        return None
    parsed = parse_url(url)
    if parsed.scheme not in ALLOWED_SCHEMES or parsed.address is not None or parsed.invalid:
        return None
    if not parsed.host or _by_name(url, parsed, policy, top_level) is not None:
        return None
    if _trusted(parsed, policy):
        return None
    return parsed.host


def _trusted(parsed: ParsedUrl, policy: NetworkRules) -> bool:
    """A host named exactly (no ``*``) in ``allowed_domains``."""
    return policy.allowed_domains is not None and any(
        "*" not in p and host_matches(parsed, p) for p in policy.allowed_domains)


def _by_name(url: str, parsed: ParsedUrl, policy: NetworkRules,
             top_level: bool) -> Verdict | None:
    """The verdict the scheme and the host's name give on their own, or ``None`` when the
    host's addresses still have to be judged."""
    scheme = parsed.scheme
    if scheme not in ALLOWED_SCHEMES:
        if scheme == "about":
            ok = not top_level or url.strip().lower() in ("about:blank", "about:srcdoc")
            return Verdict(ok) if ok else Verdict(False, "scheme",
                                                  "only about:blank is allowed")
        if not top_level and scheme in ("data", "blob"):
            return Verdict(True)
        what = f"{scheme}:" if scheme else "a URL without a scheme"
        return Verdict(False, "scheme", f"{what} URLs are blocked (allowed: http, https)")
    if parsed.invalid or not parsed.host:
        return Verdict(False, "invalid-host", "the host is not valid")
    for pattern in policy.blocked_domains:
        if host_matches(parsed, pattern):
            return Verdict(False, "blocked-domain", f"{parsed.host} matches blocked "
                                                    f"domain {pattern!r}")
    if policy.allowed_domains is not None and not any(
            host_matches(parsed, p) for p in policy.allowed_domains):
        return Verdict(False, "not-allowed-domain",
                       f"{parsed.host} is not among the allowed domains")
    if policy.block_link_local and parsed.host in METADATA_HOSTS:
        return Verdict(False, "link-local", f"{parsed.host} is a cloud metadata service")
    return None


def judge_url(url: str, policy: NetworkRules, *, top_level: bool = True,
              addresses: Sequence[str] | None = None) -> Verdict:
    """May the browser reach ``url``? ``top_level`` for a page in a tab (stricter schemes);
    ``addresses`` are what the host resolves to (needed when :func:`host_to_resolve` names
    it; without them such a name is refused)."""
    if not policy.enabled:
        return Verdict(True)
    parsed = parse_url(url)
    by_name = _by_name(url, parsed, policy, top_level)
    if by_name is not None:
        return by_name
    found = [parsed.address] if parsed.address is not None else []
    trusted = _trusted(parsed, policy)
    if parsed.address is None and policy.block_private_network and not trusted:
        if addresses is None or not addresses:
            return Verdict(False, "private-network",
                           f"{parsed.host} could not be resolved to check its address")
        for text in addresses:
            try:
                found.append(ipaddress.ip_address(text.split("%", 1)[0]))
            except ValueError:
                return Verdict(False, "private-network", f"{parsed.host} resolved to "
                                                         "an unreadable address")
    fences = policy.block_link_local or policy.block_private_network
    for address in found:
        shown = parsed.host if parsed.host == str(address) else f"{parsed.host} ({address})"
        if fences and is_metadata_address(address):
            return Verdict(False, "link-local", f"{shown} is a cloud metadata address")
        kind = address_class(address)
        if kind == "link-local" and fences:
            return Verdict(False, "link-local", f"{shown} is a link-local address, where "
                                                "cloud metadata services answer")
        if kind != "public" and policy.block_private_network and not trusted:
            via = "" if parsed.address is not None else f" (resolves to {address})"
            return Verdict(False, "private-network",
                           f"{parsed.host}{via} is a {kind} address")
    return Verdict(True)


def parse_resolver_rules(args: Sequence[str]) -> list[tuple[str, str]]:
    """``(pattern, target)`` pairs from Chromium's ``--host-resolver-rules=MAP a b, ...``
    (``EXCLUDE`` rules map to ``""``: resolved normally)."""
    out: list[tuple[str, str]] = []
    for arg in args:
        if not arg.startswith("--host-resolver-rules="):
            continue
        for rule in arg.split("=", 1)[1].split(","):
            words = rule.split()
            if len(words) == 3 and words[0].upper() == "MAP":
                out.append((words[1].lower(), words[2]))
            elif len(words) == 2 and words[0].upper() == "EXCLUDE":
                out.append((words[1].lower(), ""))
    return out


def map_host(host: str, rules: Sequence[tuple[str, str]]) -> str | None:
    """The address a host-resolver rule maps ``host`` to (first match); ``""`` for an
    ``EXCLUDE`` rule; ``None`` when no rule matches."""
    for pattern, target in rules:
        if fnmatchcase(host, pattern):
            if target in ("", "~NOTFOUND"):
                return target
            return target.rsplit(":", 1)[0] if target.count(":") == 1 else target.strip("[]")
    return None
