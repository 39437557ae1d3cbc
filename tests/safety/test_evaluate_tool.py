"""web_evaluate: a script's value for the model, opt-in only, confirmed by the user on every
call, its value budgeted and fenced as page data, and every failure a tool error."""

from __future__ import annotations

from collections.abc import Callable

from webrefs import WebTools
from webrefs.errors import ConsentError, InvalidArgumentError
from webrefs.safety import ConsentRequest, SafetyPolicy
from webrefs.tools import ALL_TOOLS, DEFAULT_TOOLS
from webrefs.tools.specs import EVALUATE_MAX_TOKENS

from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]
MARK = "document.title = 'ran'; 7 * 6"


def _open(tools: WebTools, site: SiteServer) -> None:
    tools.call("web_navigate", {"url": site.url("/safety/pay.html")})


def test_web_evaluate_is_never_a_default_tool(make_tools: Make) -> None:
    assert "web_evaluate" not in DEFAULT_TOOLS and "web_evaluate" in ALL_TOOLS
    assert "web_evaluate" not in make_tools().names
    assert "web_evaluate" in make_tools(include=["web_evaluate"]).names


def test_web_evaluate_without_consent_runs_nothing(make_tools: Make, site: SiteServer) -> None:
    tools = make_tools(include=["web_evaluate"])
    _open(tools, site)
    out = tools.run("web_evaluate", {"expression": MARK})
    assert out.is_error and isinstance(out.artifact, ConsentError), out.content
    assert "needs the user's confirmation" in out.content and "scripts" in out.content
    assert tools.current_tab().title != "ran"  # the script never ran


def test_web_evaluate_asks_and_returns_fenced_json(make_tools: Make, site: SiteServer) -> None:
    asked: list[ConsentRequest] = []

    def yes(request: ConsentRequest) -> bool:
        asked.append(request)
        return True

    tools = make_tools(SafetyPolicy(consent=yes), include=["web_evaluate"])
    _open(tools, site)
    out = tools.run("web_evaluate", {"expression": MARK})
    assert not out.is_error, out.content
    assert [r.action for r in asked] == ["evaluate"]  # asked once, for this call
    assert out.artifact == 42 and "\n42\n" in out.content
    assert "<<<page content" in out.content  # fenced: page data, not instructions
    assert tools.current_tab().title == "ran"
    obj = tools.run("web_evaluate", {"expression": "({rows: [1, 2], name: 'Ann'})"})
    assert '{"rows": [1, 2], "name": "Ann"}' in obj.content
    assert len(asked) == 2  # every call is confirmed
    nothing = tools.run("web_evaluate", {"expression": "undefined"})
    assert "returned nothing" in nothing.content
    big = tools.run("web_evaluate", {"expression": "'word '.repeat(5000)"})
    assert not big.is_error and f"cut at {EVALUATE_MAX_TOKENS} tokens" in big.content
    assert len(big.content) < 8000
    thrown = tools.run("web_evaluate", {"expression": "(() => { throw new Error('nope') })()"})
    assert thrown.is_error and "nope" in thrown.content, thrown.content


def test_web_evaluate_rejects_bad_arguments(make_tools: Make) -> None:
    tools = make_tools(SafetyPolicy(consent=lambda r: True), include=["web_evaluate"])
    for bad in ({}, {"expression": ""}, {"expression": "x" * 5000}, {"expression": 5}):
        out = tools.run("web_evaluate", bad)
        assert out.is_error and isinstance(out.artifact, InvalidArgumentError), out.content
        assert "expression" in out.content


def test_web_evaluate_is_bounded_in_time(make_tools: Make, site: SiteServer) -> None:
    tools = make_tools(SafetyPolicy(consent=lambda r: True), include=["web_evaluate"])
    _open(tools, site)
    out = tools.run("web_evaluate", {"expression": "while (true) {}"})
    assert out.is_error and "[action_timeout]" in out.content, out.content
    stuck = tools.run("web_snapshot", {})  # the page's thread is still busy: said, not hung
    assert stuck.is_error and "not responding" in stuck.content, stuck.content
    # and the loop goes on: navigating gives the tab a fresh page
    moved = tools.run("web_navigate", {"url": site.url("/safety/pay.html")})
    assert not moved.is_error, moved.content
    assert not tools.run("web_snapshot", {}).is_error
