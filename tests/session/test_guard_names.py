"""The context's network guard judges a host by its name before it resolves it: a name the
domain rules refuse is never handed to the resolver (a lookup would tell the resolver the
name), and one that only its addresses can decide is. No real resolver is touched: the
running loop's ``getaddrinfo`` (what the guard resolves with) is replaced by a recorder."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from webrefs.safety import SafetyPolicy
from webrefs.session.guard import NetworkGuard

POLICY = SafetyPolicy(block_private_network=True, allowed_domains=("*.ok.test", "exact.test"),
                      blocked_domains=("bad.ok.test",))


@pytest.fixture
async def looked_up(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[str]]:
    """Names the guard asked the resolver for; every name 'resolves' to a public address
    (a string: nothing is ever sent to it), ``inside.ok.test`` to a private one."""
    asked: list[str] = []
    loop = asyncio.get_running_loop()

    async def fake_getaddrinfo(host: str, *_args: Any, **_kwargs: Any) -> list[Any]:
        asked.append(host)
        address = "10.1.2.3" if host.startswith("inside.") else "93.184.216.34"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))]

    monkeypatch.setattr(loop, "getaddrinfo", fake_getaddrinfo)
    yield asked


@pytest.mark.parametrize(("url", "rule"), [
    ("http://evil.test/", "not-allowed-domain"),
    ("https://evil.test.example/x", "not-allowed-domain"),
    ("ws://other.test/socket", "not-allowed-domain"),
    ("http://bad.ok.test/", "blocked-domain"),
    ("http://metadata.google.internal/computeMetadata/v1/", "not-allowed-domain"),
])
async def test_a_name_the_rules_refuse_is_not_resolved(looked_up: list[str], url: str,
                                                       rule: str) -> None:
    guard = NetworkGuard(POLICY)
    verdict = await guard.judge(url, top_level=True)
    assert not verdict.allowed and verdict.rule == rule
    assert looked_up == []


async def test_metadata_names_are_refused_by_name_under_private_blocking(
        looked_up: list[str]) -> None:
    guard = NetworkGuard(SafetyPolicy(block_private_network=True))
    verdict = await guard.judge("http://metadata.google.internal/", top_level=True)
    assert verdict.rule == "link-local" and looked_up == []


async def test_names_only_addresses_can_decide_are_resolved(looked_up: list[str]) -> None:
    guard = NetworkGuard(POLICY)
    assert (await guard.judge("http://www.ok.test/", top_level=True)).allowed
    inside = await guard.judge("http://inside.ok.test/", top_level=True)
    assert inside.rule == "private-network" and "10.1.2.3" in inside.reason
    assert looked_up == ["www.ok.test", "inside.ok.test"]
    # a host named exactly is trusted whatever it resolves to: no lookup either
    assert (await guard.judge("http://exact.test/", top_level=True)).allowed
    assert looked_up == ["www.ok.test", "inside.ok.test"]


async def test_resolver_rules_answer_before_the_resolver(looked_up: list[str]) -> None:
    guard = NetworkGuard(POLICY, args=["--host-resolver-rules=MAP *.ok.test 127.0.0.1"])
    verdict = await guard.judge("http://app.ok.test/", top_level=True)
    assert verdict.rule == "private-network" and looked_up == []
