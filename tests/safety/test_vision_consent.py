"""A click at a point of a screenshot is judged like a click on a ref: the element under the
point (the control around what the point hits) is what the consent rules see."""

from __future__ import annotations

from collections.abc import Callable

from webrefs import WebTools
from webrefs.errors import ConsentError
from webrefs.models import Screenshot
from webrefs.safety import ConsentRequest, SafetyPolicy

from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]


def _centre(tools: WebTools, name: str) -> tuple[int, int]:
    """The centre, in pixels of a new screenshot, of the mark of the element named ``name``."""
    snap = tools.call("web_snapshot", {}).artifact
    ref = next(r for r, n in snap.refs.items() if n.name == name)
    shot = tools.call("web_screenshot", {}).artifact
    assert isinstance(shot, Screenshot)
    x, y, w, h = next(m.box for m in shot.marks if m.ref == ref)
    return x + w // 3, y + h // 2  # on the button's text, inside it


def _state(tools: WebTools) -> str:
    return str(tools.current_tab().evaluate("document.getElementById('state').textContent"))


def test_a_coordinate_click_on_pay_is_refused_without_consent(make_tools: Make,
                                                              site: SiteServer) -> None:
    tools = make_tools(vision=True)
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    x, y = _centre(tools, "Pay 5000 EUR")
    out = tools.run("web_click", {"x": x, "y": y})
    assert out.is_error and isinstance(out.artifact, ConsentError), out.content
    assert "[needs_consent]" in out.content and "payment" in out.content
    assert 'button "Pay 5000 EUR"' in out.content
    assert _state(tools) == "unpaid"
    decision = out.artifact.result.safety
    assert decision.level == "confirm" and decision.outcome == "refused"
    # an innocent button by coordinates is clicked at once
    bx, by = _centre(tools, "Back to cart")
    ok = tools.run("web_click", {"x": bx, "y": by})
    assert not ok.is_error and _state(tools) == "back", ok.content


def test_the_consent_callback_sees_the_element_under_the_point(make_tools: Make,
                                                               site: SiteServer) -> None:
    asked: list[ConsentRequest] = []

    def yes(request: ConsentRequest) -> bool:
        asked.append(request)
        return True

    tools = make_tools(SafetyPolicy(consent=yes), vision=True)
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})
    x, y = _centre(tools, "Pay 5000 EUR")
    out = tools.run("web_click", {"x": x, "y": y})
    assert not out.is_error, out.content
    assert _state(tools) == "PAID" and "(confirmed by the host's policy)" in out.content
    (request,) = asked
    assert request.action == "click" and request.target_name == 'button "Pay 5000 EUR"'
    assert request.target == f"({x}, {y}) of the screenshot"
