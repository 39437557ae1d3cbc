"""Consent follows what an action does: the requests an action causes (form submissions,
writing fetches, navigations) are held and judged before they are sent, through the tool
layer, behind the recording proxy. Each attack page does something sensitive through a control
whose name says nothing of it; the proxy's log shows whether the request left.

For every probe: with no consent callback and with one that refuses, the request never reaches
the server and the action's result says what was held and why; with one that approves, it is
sent and the callback was asked about that request. Innocent forms are never asked about. A
request the page sends by itself while no action runs is judged the same way."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from webrefs import WebTools
from webrefs.errors import ConsentError
from webrefs.safety import ConsentRequest, SafetyPolicy

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]


def _open(tools: WebTools, site: SiteServer, page: str, token: str) -> dict[str, str]:
    out = tools.run("web_navigate", {"url": site.url(f"/safety/{page}?t={token}")})
    assert not out.is_error, out.content
    snap = tools.call("web_snapshot", {}).artifact
    return {n.name: r for r, n in snap.refs.items()}


def _sent(proxy: RecordingProxy, token: str, path: str) -> list[str]:
    """Requests for ``/__effects/<path>`` of this test that reached the proxy."""
    return [f"{s.method} {s.target}" for s in proxy.seen
            if f"/__effects/{path}?" in s.target and f"t={token}" in s.target]


def _settle(proxy: RecordingProxy, token: str, path: str, wait_s: float = 1.0) -> list[str]:
    """The requests sent, once the page had a moment to send one (it may come late)."""
    deadline = time.monotonic() + wait_s
    while not _sent(proxy, token, path) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _sent(proxy, token, path)


@dataclass(frozen=True)
class Probe:
    page: str
    path: str
    """Where the sensitive request goes (under /__effects/)."""
    method: str
    steps: tuple[tuple[str, dict[str, object]], ...]
    """Tool calls (arguments name refs by their element's name, as ``@Name``); the last one
    causes the request."""
    why: str
    """A word the held request's reasons contain."""


PROBES = {
    "enter_in_a_card_field": Probe(
        "effect-card.html", "pay", "POST",
        (("web_fill", {"ref": "@Card number", "value": "4111 1111 1111 1111"}),
         ("web_press_key", {"ref": "@Card number", "key": "Enter"})), "card number"),
    "a_select_that_submits": Probe(
        "effect-select.html", "account", "POST",
        (("web_select", {"ref": "@Account actions", "values": ["Delete my account"]}),),
        "deletion"),
    "a_checkbox_that_submits": Probe(
        "effect-checkbox.html", "checkout/confirm", "POST",
        (("web_check", {"ref": "@Email me a receipt"}),), "payment"),
    "a_continue_button_that_pays": Probe(
        "effect-continue.html", "api/payments", "POST",
        (("web_click", {"ref": "@Continue"}),), "card number"),
    "a_submit_on_blur": Probe(
        "effect-blur.html", "transfer", "POST",
        (("web_fill", {"ref": "@Gift message", "value": "Happy birthday"}),
         ("web_click", {"ref": "@Show details"})), "transfer"),
    "a_submit_on_a_timer": Probe(
        "effect-timer.html", "transfer", "POST",
        (("web_click", {"ref": "@Show details"}),), "transfer"),
    "a_default_button_shown_as_pay": Probe(
        "effect-receipt.html", "receipts", "POST",
        (("web_fill", {"ref": "@Note", "value": "thanks"}),
         ("web_press_key", {"ref": "@Note", "key": "Enter"})), "payment"),
    "enter_typed_in_a_field_shown_as_pay": Probe(
        "effect-receipt.html", "receipts", "POST",
        (("web_type", {"ref": "@Note", "text": "thanks", "enter": True}),), "payment"),
    "a_get_link_to_a_delete_url": Probe(
        "effect-link.html", "account/delete", "GET",
        (("web_click", {"ref": "@Your account"}),), "deletes"),
    "a_link_redirected_to_a_delete_url": Probe(
        "effect-link.html", "account/delete", "GET",
        (("web_click", {"ref": "@Your profile"}),), "deletes"),
}


def _run(tools: WebTools, refs: dict[str, str], probe: Probe) -> object:
    out = None
    for tool, args in probe.steps:
        args = {k: refs[v[1:]] if isinstance(v, str) and v.startswith("@") else v
                for k, v in args.items()}
        out = tools.run(tool, args)
    return out


def _answering(answer: bool) -> tuple[list[ConsentRequest], Callable[[ConsentRequest], bool]]:
    """A consent callback that gives ``answer`` and the list of the requests it was asked."""
    asked: list[ConsentRequest] = []

    def callback(request: ConsentRequest) -> bool:
        asked.append(request)
        return answer

    return asked, callback


@pytest.mark.parametrize("name", list(PROBES))
def test_a_sensitive_request_is_not_sent_without_consent(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str,
        name: str) -> None:
    probe = PROBES[name]
    tools = make_tools()
    refs = _open(tools, site, probe.page, token)
    out = _run(tools, refs, probe)
    assert _settle(proxy, token, probe.path) == []
    assert out.is_error and isinstance(out.artifact, ConsentError), out.content  # type: ignore[attr-defined]
    err = out.artifact  # type: ignore[attr-defined]
    assert "ran, but the request it caused" in err.message and "so it was not sent" in \
        err.message, err.message
    assert "no one can confirm it here" in err.message
    assert "4111" not in out.content  # type: ignore[attr-defined]  # card numbers are masked
    held = [h for h in err.result.safety.effects if h.outcome == "refused"]
    assert held and held[0].method == probe.method and held[0].cause == "action"
    assert f"/__effects/{probe.path}" in held[0].url and held[0].level == "confirm"
    assert any(probe.why in r for r in held[0].reasons), held[0].reasons
    assert not err.result.success and err.result.error_code == "needs_consent"


@pytest.mark.parametrize("name", list(PROBES))
def test_a_sensitive_request_waits_for_the_users_answer(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str,
        name: str) -> None:
    probe = PROBES[name]
    asked, no = _answering(False)

    tools = make_tools(SafetyPolicy(consent=no))
    refs = _open(tools, site, probe.page, token)
    out = _run(tools, refs, probe)
    assert _settle(proxy, token, probe.path) == []
    assert out.is_error and "the host's policy refused the request it caused" in out.content, \
        out.content  # type: ignore[attr-defined]
    (request,) = asked
    assert request.effect is not None and request.effect.method == probe.method
    assert f"/__effects/{probe.path}" in request.effect.url
    assert request.level == "confirm" and request.url.startswith(site.url("/safety/"))
    assert "is sending" in request.describe()

    approved, yes = _answering(True)

    tools.browser.set_safety(SafetyPolicy(consent=yes))  # type: ignore[union-attr]
    refs = _open(tools, site, probe.page, token)
    out = _run(tools, refs, probe)
    assert not out.is_error, out.content  # type: ignore[attr-defined]
    assert len(_settle(proxy, token, probe.path, wait_s=3.0)) == 1
    assert "the host's policy confirmed the request it caused" in out.content  # type: ignore[attr-defined]
    assert [r.effect is not None for r in approved] == [True]
    effects = out.artifact.safety.effects  # type: ignore[attr-defined]
    assert [(h.outcome, h.asked) for h in effects if h.level == "confirm"] == [("approved", True)]


def test_the_name_rules_see_the_text_a_button_shows(make_tools: Make, site: SiteServer,
                                                     proxy: RecordingProxy, token: str) -> None:
    tools = make_tools()
    refs = _open(tools, site, "effect-receipt.html", token)
    out = tools.run("web_click", {"ref": refs["View receipt"]})
    assert out.is_error and isinstance(out.artifact, ConsentError)
    # refused by its name and shown text, before anything ran: no request was even held
    assert "was not done" in out.content and '(shows "Pay")' in out.content, out.content
    assert out.artifact.result.safety.effects == []
    assert _settle(proxy, token, "receipts") == []


def test_consent_by_name_covers_the_actions_own_submission(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    asked, yes = _answering(True)

    tools = make_tools(SafetyPolicy(consent=yes))
    refs = _open(tools, site, "effect-card.html", token)
    tools.call("web_fill", {"ref": refs["Card number"], "value": "4111 1111 1111 1111"})
    out = tools.call("web_click", {"ref": refs["Pay 5000 EUR"]})
    assert len(_settle(proxy, token, "pay", wait_s=3.0)) == 1
    assert [r.effect for r in asked] == [None]  # asked once, about the click itself
    (held,) = out.artifact.safety.effects
    assert held.outcome == "approved" and not held.asked
    assert any("card number" in r for r in held.reasons)
    assert "confirmed by the host's policy" in out.content


def test_web_navigate_to_a_delete_address_asks_before_it_leaves(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    tools = make_tools()
    out = tools.run("web_navigate", {"url": site.url(f"/__effects/account/delete?t={token}")})
    assert out.is_error and "was not done" in out.content and "deletes" in out.content
    assert _sent(proxy, token, "account/delete") == []


def test_innocent_forms_are_not_asked_about(make_tools: Make, site: SiteServer,
                                            proxy: RecordingProxy, token: str) -> None:
    asked, record = _answering(True)

    tools = make_tools(SafetyPolicy(consent=record))
    refs = _open(tools, site, "effect-innocent.html", token)
    assert len(_settle(proxy, token, "collect")) == 1  # the page's time-stamped beacon
    tools.call("web_fill", {"ref": refs["Search mail"], "value": "delete my account"})
    searched = tools.call("web_press_key", {"ref": refs["Search mail"], "key": "Enter"})
    assert len(_settle(proxy, token, "search")) == 1
    refs = _open(tools, site, "effect-innocent.html", token)
    tools.call("web_fill", {"ref": refs["Username"], "value": "ada"})
    tools.call("web_fill", {"ref": refs["Password"], "value": "Pay-me-4111"})
    signed_in = tools.call("web_click", {"ref": refs["Sign in"]})
    assert len(_settle(proxy, token, "login")) == 1
    refs = _open(tools, site, "effect-innocent.html", token)
    tools.call("web_select", {"ref": refs["Language"], "values": ["Deutsch"]})
    tools.call("web_check", {"ref": refs["Email notifications"]})
    saved = tools.call("web_click", {"ref": refs["Save"]})
    assert len(_settle(proxy, token, "settings")) == 1
    assert asked == []
    for out in (searched, signed_in, saved):
        safety = out.artifact.safety
        assert safety is None or all(h.level != "confirm" for h in safety.effects)


def test_a_request_the_page_sends_on_its_own_after_the_models_action(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    tools = make_tools()
    refs = _open(tools, site, "effect-timer.html", token)
    opened = tools.call("web_click", {"ref": refs["Open offer"]})  # its timer fires later
    assert opened.artifact.safety is None or not opened.artifact.safety.effects
    time.sleep(3.5)
    assert _sent(proxy, token, "transfer") == []
    assert "refused transfer" in tools.call("web_get_text", {}).content  # the page saw it fail
    after = tools.call("web_click", {"ref": refs["Close"]})
    assert "before this action, the page itself tried to send POST" in after.content
    (held,) = [h for h in after.artifact.safety.effects if h.cause == "page"]
    assert held.outcome == "refused" and held.level == "confirm" and not held.asked


def test_a_request_the_page_sends_on_its_own_asks_the_callback(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    asked, yes = _answering(True)

    tools = make_tools(SafetyPolicy(consent=yes))
    refs = _open(tools, site, "effect-timer.html", token)
    tools.call("web_click", {"ref": refs["Open offer"]})
    assert len(_settle(proxy, token, "transfer", wait_s=5.0)) == 1
    (request,) = asked
    assert request.action == "page" and request.target is None
    assert request.effect is not None and request.effect.cause == "page"
    assert request.describe().startswith("the page at ")


def test_the_host_programs_own_pages_are_judged_but_not_stopped(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    tools = make_tools()  # gate="tools": the host's own calls are recorded, never stopped
    tab = tools.browser.new_tab(site.url(f"/safety/effect-continue.html?t={token}"))  # type: ignore[union-attr]
    ref = next(r for r, n in tab.snapshot().refs.items() if n.name == "Continue")
    result = tab.click(ref)
    assert len(_settle(proxy, token, "api/payments")) == 1
    (held,) = result.safety.effects
    assert held.outcome == "allowed" and held.level == "confirm" and not result.safety.gated

    strict = make_tools(SafetyPolicy(gate="all"))
    tab = strict.browser.new_tab(site.url(f"/safety/effect-timer.html?t={token}x"))  # type: ignore[union-attr]
    ref = next(r for r, n in tab.snapshot().refs.items() if n.name == "Open offer")
    tab.click(ref)
    time.sleep(3.5)
    assert _sent(proxy, f"{token}x", "transfer") == []


def test_a_slow_answer_about_a_held_navigation_outlasts_the_actions_timeout(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, token: str) -> None:
    # the browser call waits for the form's navigation, which is held while a person answers
    # (longer than the 5 s action timeout): the input counts as given, the answer decides
    asked: list[float] = []

    def slowly_yes(request: ConsentRequest) -> bool:
        asked.append(time.monotonic())
        time.sleep(6.5)
        return True

    tools = make_tools(SafetyPolicy(consent=slowly_yes))
    refs = _open(tools, site, "effect-card.html", token)
    tools.call("web_fill", {"ref": refs["Card number"], "value": "4111 1111 1111 1111"})
    out = tools.run("web_press_key", {"ref": refs["Card number"], "key": "Enter"})
    assert not out.is_error, out.content
    assert len(asked) == 1 and "the host's policy confirmed the request it caused" in out.content
    assert len(_settle(proxy, token, "pay", wait_s=3.0)) == 1
    assert out.artifact.navigated and "/__effects/pay" in out.artifact.url_after
