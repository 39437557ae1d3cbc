"""Secrets through the tool layer: the model writes ``<secret>name</secret>``; the value is
typed only on its domain and appears in no tool output or artifact, even when the page echoes
it into its text, title and URL. Password and masked fields never show their value."""

from __future__ import annotations

import json
from collections.abc import Callable

from webrefs import WebTools
from webrefs.errors import InvalidArgumentError
from webrefs.safety import SafetyPolicy

from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]
SECRET = "Hunter2-S3cr3t!"
TOKEN = "tok-9Z8Y7X-secret"


def _refs(tools: WebTools) -> dict[str, str]:
    snap = tools.call("web_snapshot", {}).artifact
    return {n.name: r for r, n in snap.refs.items()}


def _dump(value: object) -> str:
    if hasattr(value, "model_dump_json"):
        return str(value.model_dump_json())
    if isinstance(value, list):
        return json.dumps([_dump(v) for v in value])
    return str(value)


def _value(tools: WebTools, element: str) -> str:
    return str(tools.current_tab().evaluate(f"document.getElementById('{element}').value"))


def test_secret_is_typed_but_never_shown(make_tools: Make, site: SiteServer) -> None:
    policy = SafetyPolicy(sensitive_data={"token": TOKEN,
                                          "127.0.0.1": {"password": SECRET}})
    tools = make_tools(policy, include=["web_tabs"], after_action="diff")
    outputs = [tools.call("web_navigate", {"url": site.url("/safety/login.html")})]
    refs = _refs(tools)
    outputs.append(tools.call("web_fill", {"ref": refs["Password"],
                                           "value": "<secret>password</secret>"}))
    outputs.append(tools.call("web_fill", {"ref": refs["Token"],
                                           "value": "<secret>token</secret>"}))
    assert _value(tools, "pw") == SECRET and _value(tools, "token") == TOKEN  # really typed
    assert "a password field: the value is not shown" in outputs[1].content
    assert outputs[1].artifact.readback == {"value": None, "filled": True, "ready": "quiet"} \
        or outputs[1].artifact.readback.get("filled") is True
    assert "<secret>token</secret>" in outputs[2].content
    # the page echoes the token into its text and title
    outputs.append(tools.call("web_snapshot", {}))
    outputs.append(tools.call("web_get_text", {}))
    outputs.append(tools.call("web_tabs", {}))
    prompt = tools.system_prompt()
    outputs.append(tools.call("web_click", {"ref": refs["Sign in"]}))  # GET: both in the URL
    outputs.append(tools.call("web_get_text", {}))
    seen = "\n".join([prompt, *(o.content for o in outputs), *(_dump(o.artifact)
                                                                for o in outputs),
                      _dump(tools.browser.requests)])  # type: ignore[union-attr]
    assert "You typed <secret>token</secret>" in seen  # the echo is there, redacted
    for form in (SECRET, TOKEN, "Hunter2-S3cr3t%21", "Hunter2"):
        assert form not in seen, form


def test_secret_of_another_domain_is_not_typed(make_tools: Make, site: SiteServer) -> None:
    tools = make_tools(SafetyPolicy(sensitive_data={"bank.test": {"password": SECRET}}))
    tools.call("web_navigate", {"url": site.url("/safety/login.html")})
    out = tools.run("web_fill", {"ref": _refs(tools)["Password"],
                                 "value": "<secret>password</secret>"})
    assert out.is_error and isinstance(out.artifact, InvalidArgumentError)
    assert "may not be typed into a field of 127.0.0.1" in out.content and SECRET not in out.content
    assert _value(tools, "pw") == ""
    unknown = tools.run("web_fill", {"ref": _refs(tools)["User"], "value": "<secret>nope</secret>"})
    assert unknown.is_error and "no secret named 'nope'" in unknown.content


def test_password_and_masked_fields_show_filled_or_empty(make_tools: Make,
                                                          site: SiteServer) -> None:
    tools = make_tools()
    tools.call("web_navigate", {"url": site.url("/safety/login.html")})
    refs = _refs(tools)
    for name, element in (("Password", "pw"), ("PIN", "pin")):
        out = tools.call("web_fill", {"ref": refs[name], "value": "typed-in-clear-42"})
        assert _value(tools, element) == "typed-in-clear-42"
        assert "typed-in-clear-42" not in out.content + _dump(out.artifact), name
        assert out.artifact.readback["filled"] is True
    snap = tools.call("web_snapshot", {})
    assert "typed-in-clear-42" not in snap.content + _dump(snap.artifact)
