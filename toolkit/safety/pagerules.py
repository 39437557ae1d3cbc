"""The network rules compiled for the judge that runs inside pages and workers, pure.

Some connections never pass Chromium's request interception or Playwright's routing: a
worker's WebSocket, a WebTransport session, WebRTC. They are judged where they are made, by
webrefs' side-door guard (:mod:`webrefs.session.sidedoors`), from a table this module makes
of a :class:`~webrefs.safety.policy.SafetyPolicy` (JSON data, no code). That judge has no
resolver: it decides by the scheme, the name (domain patterns, metadata names) and, for an
address written in the URL, the address (link-local, metadata endpoints, non-public ranges).
A name only its addresses could decide (private-network blocking on, the name not allowed
exactly) is refused there.

Its address ranges err on refusing: :data:`NON_PUBLIC_V4` and :data:`NON_PUBLIC_V6` hold every
range :func:`~webrefs.safety.urls.address_class` calls non-public on any supported Python, so
the page-side judge never lets through an address the Python judge would refuse.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from typing import Any

from .policy import SafetyPolicy
from .urls import METADATA_ADDRESSES, METADATA_HOSTS, parse_host, split_host_pattern

__all__ = ["MODULE_MARK", "NON_PUBLIC_V4", "NON_PUBLIC_V6", "page_rules"]

MODULE_MARK = "webrefs-module-worker"
"""What the page-side guard adds to the fragment of a module worker's URL (a fragment is never
sent, but Chromium's interception reports it), so its script gets the guard as an import."""

NON_PUBLIC_V4: tuple[ipaddress.IPv4Network, ...] = tuple(ipaddress.IPv4Network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15",
    "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
))
"""IPv4 ranges that are not public (loopback, private, link-local, shared, documentation,
benchmarking, IETF, multicast, reserved, broadcast)."""
NON_PUBLIC_V6: tuple[ipaddress.IPv6Network, ...] = tuple(ipaddress.IPv6Network(n) for n in (
    "2001::/23", "2001:db8::/32", "3fff::/20",
))
"""IPv6 ranges inside the global unicast block ``2000::/3`` that are not public; every
address outside ``2000::/3`` is not public either (IPv4 inside IPv6 is judged as IPv4)."""


def _pattern(pattern: str) -> list[Any]:
    """``[host, wildcard, port]`` of a checked host pattern, the host as the URL parser
    writes it (IPv6 without brackets, IPv4 dotted, names in punycode)."""
    host, port = split_host_pattern(pattern)
    if host == "*":
        return ["*", False, port]
    if host.startswith("*."):
        return [parse_host(host[2:])[0], True, port]
    return [parse_host(host)[0], False, port]


def _hextets(address: ipaddress.IPv6Address) -> list[int]:
    value = int(address)
    return [(value >> (112 - 16 * i)) & 0xFFFF for i in range(8)]


def page_rules(policy: SafetyPolicy) -> dict[str, Any]:
    """The table the page-side judge reads: ``on`` (any network rule), ``rtc`` (refuse
    WebRTC), ``allow`` (``None``: any host) and ``block`` as ``[host, wildcard, port]``,
    ``priv`` and ``link`` (the address rules), ``names`` (metadata host names), ``meta4`` /
    ``meta6`` (metadata addresses as an integer / eight 16-bit groups), ``np4`` / ``np6``
    (non-public ranges as ``[address, prefix length]``), ``moduleMark`` (:data:`MODULE_MARK`),
    and ``id``, a digest of the rest
    (a frame or worker runs one guard per distinct table)."""
    on = policy.network_rules
    v4 = [a for a in METADATA_ADDRESSES if isinstance(a, ipaddress.IPv4Address)]
    v6 = [a for a in METADATA_ADDRESSES if isinstance(a, ipaddress.IPv6Address)]
    table: dict[str, Any] = {
        "on": on,
        "rtc": on and policy.block_webrtc,
        "allow": None if policy.allowed_domains is None
        else [_pattern(p) for p in policy.allowed_domains],
        "block": [_pattern(p) for p in policy.blocked_domains],
        "priv": policy.enabled and policy.block_private_network,
        "link": policy.enabled and policy.block_link_local,
        "names": list(METADATA_HOSTS),
        "meta4": [int(a) for a in v4],
        "meta6": [_hextets(a) for a in v6],
        "np4": [[int(n.network_address), n.prefixlen] for n in NON_PUBLIC_V4],
        "np6": [[_hextets(n.network_address), n.prefixlen] for n in NON_PUBLIC_V6],
        "moduleMark": MODULE_MARK,
    }
    digest = hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()
    table["id"] = digest[:16]
    return table
