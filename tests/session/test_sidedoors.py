"""The side-door guard's parts: the rules table it reads, the page-side judge against the
Python one (the same verdict on every URL, never more lenient), what a worker script gets in
front of it, which responses may be worker scripts, and the flags a launched browser gets.
What the guard stops in real pages and workers is in ``tests/safety/test_side_doors.py``."""

from __future__ import annotations

import ipaddress
import json
import random
from collections.abc import Iterator
from urllib.parse import unquote

import pytest
from webrefs import Browser, Tab
from webrefs.safety import SafetyPolicy, judge_url
from webrefs.safety.pagerules import MODULE_MARK, NON_PUBLIC_V4, NON_PUBLIC_V6, page_rules
from webrefs.safety.urls import address_class
from webrefs.session.sidedoors import (
    SANDBOX_ISOLATION_FEATURE,
    WEBRTC_LAUNCH_FLAG,
    guard_source,
    is_worker_script,
    launch_flags,
    module_import,
    prefixed_script,
)

from tests.safety.test_rules import METADATA_SPELLINGS

POLICIES = {
    "default": SafetyPolicy(),
    "private": SafetyPolicy(block_private_network=True),
    "allow": SafetyPolicy(allowed_domains=("*.ok.test", "exact.test:8080", "10.0.0.5",
                                           "[::1]:9000", "bücher.test")),
    "block": SafetyPolicy(blocked_domains=("*.ads.test", "ads.test", "8.8.4.4")),
    "trusted": SafetyPolicy(block_private_network=True,
                            allowed_domains=("intranet.test", "10.0.0.7", "*")),
    "private-no-link": SafetyPolicy(block_link_local=False, block_private_network=True),
}
HOSTS = [
    "example.com", "EXAMPLE.com.", "a.ok.test", "a.b.ok.test", "ok.test", "ok.test.evil.test",
    "exact.test:8080", "exact.test", "exact.test:8081", "10.0.0.5", "167772165", "10.0.0.6",
    "[::1]:9000", "[::1]", "xn--bcher-kva.test", "bücher.test", "x.ads.test", "ads.test",
    "ads.test.example", "8.8.4.4", "8.8.8.8", "[2606:4700::1111]", "intranet.test",
    "10.0.0.7", "127.0.0.1", "127.1", "0x7f000001", "0", "[::]", "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]", "[64:ff9b::a00:1]", "[2002:a00:1::1]", "[fc00::1]", "[fe80::1]",
    "[ff02::1]", "[2001:db8::1]", "100.64.0.1", "192.168.1.1", "172.16.0.1", "172.32.0.1",
    "169.254.169.254", "2852039166", "0251.0376.0251.0376", "[::ffff:a9fe:a9fe]",
    "metadata.google.internal", "metadata.goog.", "instance-data", "224.0.0.1",
    "255.255.255.255", "user:pw@a.ok.test", "a.ok.test@evil.test",
    *(s for spellings in METADATA_SPELLINGS.values() for s in spellings),
]
URLS = [f"{scheme}://{host}/x" for host in HOSTS for scheme in ("ws", "wss", "https")] + [
    "ftp://example.com/", "ws://a.ok.test:8080/", "http://a.ok.test/"]
STRICTER = (ipaddress.IPv4Network("192.0.0.0/24"), ipaddress.IPv6Network("2001::/23"),
            ipaddress.IPv6Network("3fff::/20"))
"""Ranges the page-side judge refuses under private-network blocking where some Python
versions call an address public (their lists of special ranges differ)."""


@pytest.fixture(scope="module")
def judge_tab(browser: Browser) -> Iterator[Tab]:
    """A page holding a page-side judge per policy (``__judge_<name>``; the table's test-only
    ``expose`` field), and none of the context's own network rules in the way."""
    ctx = browser.new_context()
    ctx.set_safety(SafetyPolicy.off())
    tab = ctx.new_tab()
    for name, policy in POLICIES.items():
        table = {**page_rules(policy), "expose": f"__judge_{name.replace('-', '_')}"}
        table["id"] += name
        tab.evaluate(guard_source(table))
    yield tab
    ctx.close()


def _page_verdicts(tab: Tab, name: str, urls: list[str]) -> list[str | None]:
    fn = f"__judge_{name.replace('-', '_')}"
    return list(tab.evaluate(f"(urls) => urls.map((u) => globalThis.{fn}(u))", urls))


def _stricter_only(url: str) -> bool:
    host = url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    host = host[1:host.index("]")] if host.startswith("[") else host.split(":")[0]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in net for net in STRICTER if net.version == address.version)


@pytest.mark.parametrize("name", list(POLICIES))
def test_the_page_side_judge_agrees_with_the_python_judge(judge_tab: Tab, name: str) -> None:
    policy = POLICIES[name]
    page = _page_verdicts(judge_tab, name, URLS)
    disagreements = []
    for url, why in zip(URLS, page, strict=True):
        python = judge_url(url, policy, top_level=False)  # no addresses: names not resolved
        if python.allowed != (why is None) and not (why is not None and _stricter_only(url)):
            disagreements.append((url, python.rule, why))
    assert disagreements == []


def test_the_page_side_judge_reads_every_ipv4_address_as_python_does(judge_tab: Tab) -> None:
    rng = random.Random(29)
    edges = [int(n.network_address) + d for n in NON_PUBLIC_V4 for d in (-1, 0)]
    edges += [int(n.broadcast_address) + d for n in NON_PUBLIC_V4 for d in (0, 1)]
    numbers = [n % 2**32 for n in edges] + [rng.randrange(2**32) for _ in range(3000)]
    urls = [f"ws://{ipaddress.IPv4Address(n)}/" for n in numbers]
    page = _page_verdicts(judge_tab, "private", urls)
    for n, url, why in zip(numbers, urls, page, strict=True):
        public = address_class(ipaddress.IPv4Address(n)) == "public"
        if public:
            assert why is None or ipaddress.IPv4Address(n) in STRICTER[0], url
        else:
            assert why is not None, url


def test_the_page_side_judge_reads_ipv6_addresses_as_python_does(judge_tab: Tab) -> None:
    rng = random.Random(6)
    samples = [ipaddress.IPv6Address(rng.randrange(2**128)) for _ in range(500)]
    samples += [ipaddress.IPv6Address(rng.randrange(2**125) | (1 << 125)) for _ in range(500)]
    samples += [n.network_address for n in NON_PUBLIC_V6]
    samples += [ipaddress.IPv6Address(f"::ffff:{ipaddress.IPv4Address(rng.randrange(2**32))}")
                for _ in range(200)]
    urls = [f"ws://[{a}]/" for a in samples]
    page = _page_verdicts(judge_tab, "private", urls)
    for address, url, why in zip(samples, urls, page, strict=True):
        if address_class(address) != "public":
            assert why is not None, url
        elif why is not None:
            assert any(address in n for n in STRICTER if n.version == 6), (url, why)


def test_the_rules_table_is_data_and_its_id_follows_the_rules() -> None:
    table = page_rules(POLICIES["allow"])
    assert json.loads(json.dumps(table)) == table
    assert table["allow"][:3] == [["ok.test", True, None], ["exact.test", False, 8080],
                                  ["10.0.0.5", False, None]]
    assert ["::1", False, 9000] in table["allow"] and ["xn--bcher-kva.test", False, None] \
        in table["allow"]
    assert page_rules(SafetyPolicy())["id"] == page_rules(SafetyPolicy())["id"]
    assert page_rules(SafetyPolicy())["id"] != page_rules(POLICIES["private"])["id"]
    assert page_rules(SafetyPolicy())["rtc"] and not page_rules(
        SafetyPolicy(block_webrtc=False))["rtc"]
    assert not page_rules(SafetyPolicy.off())["on"]
    assert table["moduleMark"] == MODULE_MARK


def test_a_worker_script_gets_the_guard_first_and_keeps_its_mode() -> None:
    assert prefixed_script(b"go();", ["G();"]) == b"\nG();\ngo();"
    assert prefixed_script(b"'use strict';\ngo();", ["G();"]) == b"'use strict';\nG();\n\ngo();"
    assert prefixed_script(b'\xef\xbb\xbf"use strict"\ngo()', ["G();"]).startswith(
        b'\xef\xbb\xbf"use strict"\n;\nG();')
    module = prefixed_script(b'import x from "data:text/javascript,evil()";', ["G();", "H();"],
                             module=True)
    first, second, rest = module.split(b"\n", 3)[1:]
    assert first == module_import("G();").encode() and second == module_import("H();").encode()
    assert rest.startswith(b"import x")
    assert unquote(module_import("a = '%';").split(",", 1)[1][:-2]) == "a = '%';"


@pytest.mark.parametrize(("kind", "status", "mime", "is_script"), [
    ("Other", 200, "text/javascript", True), ("Other", 200, "text/plain", True),
    ("Other", 200, "", True), ("Other", 200, "text/html; charset=utf-8", True),
    ("Other", 200, "image/x-icon", False), ("Other", 200, "video/mp4", False),
    ("Other", 200, "text/csv", False), ("Other", 302, "text/javascript", False),
    ("Other", 404, "text/javascript", False), ("Script", 200, "text/javascript", False),
    ("Document", 200, "text/html", False),
])
def test_which_responses_may_be_worker_scripts(kind: str, status: int, mime: str,
                                               is_script: bool) -> None:
    headers = [{"name": "Content-Type", "value": mime}] if mime else []
    assert is_worker_script(kind, status, headers) is is_script


def test_a_launched_browser_under_a_network_rule_gets_the_guard_flags() -> None:
    assert launch_flags(SafetyPolicy.off()) == ()
    assert launch_flags(SafetyPolicy(block_link_local=False)) == ()  # no network rule
    flags = launch_flags(SafetyPolicy())
    assert f"--disable-features={SANDBOX_ISOLATION_FEATURE}" in flags
    assert WEBRTC_LAUNCH_FLAG in flags
    assert WEBRTC_LAUNCH_FLAG not in launch_flags(SafetyPolicy(block_webrtc=False))
    mine = "--force-webrtc-ip-handling-policy=default"
    assert WEBRTC_LAUNCH_FLAG not in launch_flags(SafetyPolicy(), (mine,))
