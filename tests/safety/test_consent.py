"""Sensitive actions through the tool layer: classified before they run, refused without
consent, run with it (sync or async callbacks), and every decision in the ActionResult."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from webrefs import WebTools
from webrefs.errors import ConsentError, InvalidArgumentError
from webrefs.safety import DEFAULT_RULES, ConsentRequest, Rule, SafetyPolicy

from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]


def _ref(tools: WebTools, name: str) -> str:
    snap = tools.call("web_snapshot", {}).artifact
    return next(r for r, n in snap.refs.items() if n.name == name)


def _state(tools: WebTools) -> str:
    return str(tools.current_tab().evaluate("document.getElementById('state').textContent"))


def test_payment_without_a_callback_is_refused_and_says_why(make_tools: Make,
                                                            site: SiteServer) -> None:
    tools = make_tools()
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    out = tools.run("web_click", {"ref": _ref(tools, "Pay 5000 EUR")})
    assert out.is_error and isinstance(out.artifact, ConsentError)
    assert out.content.startswith("web_click failed: [needs_consent] web_click on e")
    assert "needs the user's confirmation" in out.content and "payment" in out.content
    assert "SafetyPolicy" not in out.content  # the host's remedy is not the model's
    assert _state(tools) == "unpaid"
    decision = out.artifact.result.safety
    assert decision.level == "confirm" and decision.outcome == "refused" and decision.gated
    assert not out.artifact.result.success


def test_a_sync_callback_sees_the_request_and_decides(make_tools: Make, site: SiteServer) -> None:
    asked: list[ConsentRequest] = []

    def no(request: ConsentRequest) -> bool:
        asked.append(request)
        return False

    tools = make_tools(SafetyPolicy(consent=no))
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    pay = _ref(tools, "Pay 5000 EUR")
    out = tools.run("web_click", {"ref": pay})
    assert out.is_error and "The host's policy refused web_click" in out.content
    assert _state(tools) == "unpaid"
    (request,) = asked
    assert request.action == "click" and request.target == pay
    assert request.target_name == 'button "Pay 5000 EUR"' and request.level == "confirm"
    assert request.url.endswith("/safety/pay.html") and request.reasons

    tools.browser.set_safety(SafetyPolicy(consent=lambda r: True))  # type: ignore[union-attr]
    ok = tools.call("web_click", {"ref": pay})
    assert _state(tools) == "PAID" and "(confirmed by the host's policy)" in ok.content
    assert ok.artifact.safety.outcome == "approved" and ok.artifact.safety.level == "confirm"


def test_the_note_names_who_decided(make_tools: Make, site: SiteServer) -> None:
    # a callback that decides by rule is not a person: the note may not say "the user"
    tools = make_tools(SafetyPolicy(consent=lambda r: True))
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    ok = tools.call("web_click", {"ref": _ref(tools, "Pay 5000 EUR")})
    assert "(confirmed by the host's policy)" in ok.content and "the user" not in ok.content
    assert ok.artifact.safety.decided_by == "the host's policy"

    for who in ("the user", "the eval harness"):
        tools.browser.set_safety(  # type: ignore[union-attr]
            SafetyPolicy(consent=lambda r: True, consent_by=who))
        tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
        ok = tools.call("web_click", {"ref": _ref(tools, "Pay 5000 EUR")})
        assert f"(confirmed by {who})" in ok.content, ok.content
        assert ok.artifact.safety.decided_by == who

    tools.browser.set_safety(  # type: ignore[union-attr]
        SafetyPolicy(consent=lambda r: False, consent_by="the eval harness"))
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    out = tools.run("web_click", {"ref": _ref(tools, "Pay 5000 EUR")})
    assert out.is_error and "The eval harness refused web_click" in out.content, out.content
    assert out.artifact.result.safety.decided_by == "the eval harness"


def test_consent_by_must_name_someone() -> None:
    with pytest.raises(InvalidArgumentError, match="consent_by"):
        SafetyPolicy(consent_by=" ")


def test_an_async_callback_works_too(make_tools: Make, site: SiteServer) -> None:
    async def yes(request: ConsentRequest) -> bool:
        return request.action == "click"

    tools = make_tools(SafetyPolicy(consent=yes))
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    tools.call("web_click", {"ref": _ref(tools, "Pay 5000 EUR")})
    assert _state(tools) == "PAID"


def test_levels_by_target_page_and_context(make_tools: Make, site: SiteServer) -> None:
    tools = make_tools()
    tools.call("web_navigate", {"url": site.url("/safety/blog.html")})
    submitted = tools.call("web_click", {"ref": _ref(tools, "Submit")}).artifact
    assert submitted.safety.level == "notify" and _state(tools) == "sent"  # runs, recorded
    refused = tools.run("web_click", {"ref": _ref(tools, "Delete comment")})
    assert refused.is_error and _state(tools) == "sent"
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    back = tools.call("web_click", {"ref": _ref(tools, "Back to cart")}).artifact
    assert back.safety.level == "notify" and back.safety.reasons  # the page is sensitive
    typed = tools.call("web_scroll", {"direction": "down"}).artifact
    assert typed.safety is None  # scrolling is not classified


def test_chinese_pages_and_names(make_tools: Make, site: SiteServer) -> None:
    tools = make_tools()
    tools.call("web_navigate", {"url": site.url("/safety/zh.html")})
    assert tools.run("web_click", {"ref": _ref(tools, "立即购买")}).is_error
    go = tools.call("web_click", {"ref": _ref(tools, "继续")}).artifact
    assert go.safety.level == "notify" and _state(tools) == "gone"


def test_rules_are_data_the_user_extends(make_tools: Make, site: SiteServer) -> None:
    rules = (*DEFAULT_RULES, Rule("target", r"back to cart", "block", "the cart is off limits"))
    tools = make_tools(SafetyPolicy(rules=rules, consent=lambda r: True))
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    out = tools.run("web_click", {"ref": _ref(tools, "Back to cart")})
    assert out.is_error and "blocks it (" in out.content and "the cart is off limits" in out.content
    assert _state(tools) == "unpaid"
    off = make_tools(SafetyPolicy(sensitive_actions=False))
    off.call("web_navigate", {"url": site.url("/safety/pay.html")})
    assert off.call("web_click", {"ref": _ref(off, "Pay 5000 EUR")}).artifact.safety is None


def test_the_host_programs_own_calls_are_recorded_not_stopped(make_tools: Make,
                                                               site: SiteServer) -> None:
    tools = make_tools()
    tab = tools.browser.new_tab(site.url("/safety/pay.html"))  # type: ignore[union-attr]
    pay = next(r for r, n in tab.snapshot().refs.items() if n.name == "Pay 5000 EUR")
    result = tab.click(pay)
    assert result.safety is not None and result.safety.level == "confirm"
    assert not result.safety.gated and _state(tools) == "PAID"

    strict = make_tools(SafetyPolicy(gate="all"))
    tab = strict.browser.new_tab(site.url("/safety/pay.html"))  # type: ignore[union-attr]
    pay = next(r for r, n in tab.snapshot().refs.items() if n.name == "Pay 5000 EUR")
    try:
        tab.click(pay)
    except ConsentError as err:
        assert err.result.safety.gated
    else:
        raise AssertionError("gate='all' let the host's payment through")
    try:  # running a script always needs consent
        tab.evaluate("document.title")
    except ConsentError as err:
        assert "a script" in err.message
    else:
        raise AssertionError("gate='all' let the host's script run")
    strict.browser.set_safety(SafetyPolicy(gate="all", consent=lambda r: True))  # type: ignore[union-attr]
    assert _state(strict) == "unpaid"
