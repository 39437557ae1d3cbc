"""Redaction through the tool layer: the attack page tests/sites/safety/secret-echo.html echoes
a typed secret, in twelve encodings, into text, the title, the URL, attributes, field values,
option labels and a dialog, or puts it where webrefs cuts (a long paragraph, title, URL and
dialog). Nothing a model reads (every tool's text and artifact, errors, the system prompt) and
no consent request shown to the host may hold the secret in any of those encodings, whole or
cut; the page is behind the recording proxy and the secret goes to no other origin."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from webrefs import ConsentRequest, WebTools
from webrefs.safety import SafetyPolicy

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]
SECRET = "Zq7 \"pa$$\"+<w0rd>&'\u00e9!*~/?=#%@(x)"
"""Has every character some encoding changes (and one encodeURIComponent leaves alone)."""
TIGHT = "Xk9_\"pa$$\"+<w0rd>&'\u00e9!*~/?=#%@(x)"
"""No space in it: a cut at a word boundary cannot fall before it."""
LONG = "".join("k3Vx9QpZ"[i % 8] + "abcdefghijklmnopqrstuvwxyz"[(i * 7) % 26] for i in range(160))
"""320 characters: longer than any cap on a snapshot's texts."""
ENCODINGS = ("raw", "uri", "uri2", "form", "html", "entities", "json", "jsonascii", "jsonurl",
             "b64", "b64url", "basic")
PLACES = ("text", "title", "url", "attr", "value", "option", "dialog")


def _dump(value: object) -> str:
    if hasattr(value, "model_dump_json"):
        return str(value.model_dump_json())
    if isinstance(value, BaseException):
        return json.dumps({k: repr(v) for k, v in vars(value).items()}) + repr(value.args)
    if isinstance(value, (list, tuple)):
        return json.dumps([_dump(v) for v in value])
    return repr(value)


def _read_everything(tools: WebTools, asked: list[ConsentRequest],
                     outputs: list[Any]) -> str:
    """Every text a model (or the host's consent callback) reads after the echo."""
    tab = tools.current_tab()
    refs = {n.name: r for r, n in tools.call("web_snapshot", {}).artifact.refs.items()}
    outputs += [tools.call("web_snapshot", {}),
                tools.call("web_snapshot", {"interactive_only": False}),
                tools.call("web_get_text", {}), tools.call("web_tabs", {}),
                tools.call("web_screenshot", {}),
                tools.run("web_navigate", {"url": "file:///etc/hostname"}),  # "the tab is at"
                tools.run("web_click", {"ref": refs["Pay 5 EUR"]})]  # consent: refused
    pays = [r for n, r in refs.items() if n.startswith("Pay raw")]
    if pays:
        outputs.append(tools.run("web_click", {"ref": pays[0]}))
    assert tab.evaluate("document.getElementById('paid').textContent") == ""
    # a copy of the page in a popup: the next call notes the switch to it, naming its URL
    outputs.append(tools.call("web_click", {"ref": refs["Open a copy"]}))
    outputs += [tools.call("web_get_text", {}), tools.call("web_tabs", {})]
    assert "active tab changed" in outputs[-3].content
    texts = [tools.system_prompt()]
    for out in outputs:
        texts += [out.content, _dump(out.artifact)]
    for request in asked:
        texts += [request.describe(), request.key, repr(request)]
    return "\n".join(texts)


def _tools(make_tools: Make, asked: list[ConsentRequest], secret: str = SECRET) -> WebTools:
    def refuse(request: ConsentRequest) -> bool:
        asked.append(request)
        return False

    policy = SafetyPolicy(sensitive_data={"token": secret}, consent=refuse)
    return make_tools(policy, include=["web_tabs"], vision=True, after_action="diff")


def _echo(tools: WebTools, site: SiteServer, into: str, secret: str = SECRET) -> list[Any]:
    """Open the page, type the secret; the page echoes it (returns the outputs so far)."""
    outputs = [tools.call("web_navigate", {"url": site.url(f"/safety/secret-echo.html?into="
                                                           f"{into}")})]
    refs = {n.name: r for r, n in tools.call("web_snapshot", {}).artifact.refs.items()}
    outputs.append(tools.call("web_fill", {"ref": refs["Token"],
                                           "value": "<secret>token</secret>"}))
    tab = tools.current_tab()
    assert tab.evaluate("document.getElementById('token').value") == secret  # really typed
    return outputs


def _placed(tools: WebTools) -> dict[str, str]:
    placed = tools.current_tab().evaluate("window.placed")
    assert isinstance(placed, dict) and set(placed) == set(ENCODINGS)
    return {k: str(v) for k, v in placed.items()}


@pytest.mark.parametrize("into", PLACES)
def test_no_encoding_of_an_echoed_secret_reaches_the_model(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, into: str) -> None:
    asked: list[ConsentRequest] = []
    tools = _tools(make_tools, asked)
    start = len(proxy.seen)
    outputs = _echo(tools, site, into)
    placed = _placed(tools)
    seen = _read_everything(tools, asked, outputs)
    assert "<secret>token</secret>" in seen  # the echo was read, redacted
    assert asked, "the consent callback was asked"
    # an encoding leaked when its middle (all but 3 characters at each end) is there whole
    leaked = sorted(k for k in ENCODINGS if placed[k][3:-3] in seen)
    assert leaked == [], f"{into}: leaked as {leaked}"
    assert all(s.host in ("127.0.0.1", "localhost") for s in proxy.seen[start:])


def _fragments(seen: str, secret: str, n: int = 5) -> list[str]:
    """Runs of ``n`` characters of ``secret`` found in ``seen``."""
    return sorted({secret[i:i + n] for i in range(len(secret) - n + 1)
                   if secret[i:i + n] in seen})


def test_get_text_cut_inside_a_secret_shows_no_part_of_it(make_tools: Make,
                                                          site: SiteServer) -> None:
    asked: list[ConsentRequest] = []
    tools = _tools(make_tools, asked, TIGHT)
    _echo(tools, site, "raw", TIGHT)
    whole = str(tools.current_tab().evaluate("document.querySelector('main').innerText"))
    at = whole.index(TIGHT)
    shown = []
    for cut in range(at - 1, at + len(TIGHT) + 2):  # every cut point in and around it
        out = tools.call("web_get_text", {"max_length": cut})
        shown += [out.content, _dump(out.artifact)]
    seen = "\n".join(shown)
    assert "You typed:" in seen
    assert _fragments(seen, TIGHT, 4) == []


def test_a_long_secret_shows_no_part_of_it_anywhere(make_tools: Make,
                                                    site: SiteServer) -> None:
    asked: list[ConsentRequest] = []
    tools = _tools(make_tools, asked, LONG)
    outputs = _echo(tools, site, "raw", LONG)
    whole = str(tools.current_tab().evaluate("document.querySelector('main').innerText"))
    at = whole.index(LONG)
    for cut in (at + 5, at + 150, at + 199, at + 200, at + 319):
        outputs.append(tools.call("web_get_text", {"max_length": cut}))
    seen = _read_everything(tools, asked, outputs)
    assert "<secret>token</secret>" in seen
    assert _fragments(seen, LONG, 8) == []


@pytest.mark.parametrize("into", ["longtitle", "longurl", "longdialog"])
def test_a_secret_where_a_title_url_or_dialog_is_cut_shows_no_part_of_it(
        make_tools: Make, site: SiteServer, into: str) -> None:
    asked: list[ConsentRequest] = []
    tools = _tools(make_tools, asked)
    outputs = _echo(tools, site, into)
    placed = _placed(tools)
    seen = _read_everything(tools, asked, outputs)
    found = _fragments(seen, SECRET) + _fragments(seen, placed["uri"])
    assert found == [], f"{into}: {found}"


def test_the_adapters_show_no_secret(make_tools: Make, site: SiteServer) -> None:
    """LangChain's tools, live prompt and LlamaIndex's tools read the same redacted outputs."""
    from langchain_core.messages import HumanMessage
    from webrefs.adapters.langchain import WebToolkit
    from webrefs.adapters.llamaindex import WebToolSpec

    asked: list[ConsentRequest] = []
    tools = _tools(make_tools, asked)
    _echo(tools, site, "longurl")
    placed = _placed(tools)
    kit = WebToolkit(browser=tools.browser, include=["web_tabs"])
    chain = {t.name: t for t in kit.get_tools()}
    seen = [kit.system_prompt(), str(chain["web_tabs"].invoke({})),
            str(chain["web_snapshot"].invoke({})), str(chain["web_get_text"].invoke({}))]

    class Request:  # what the live prompt middleware is given before a model call
        def __init__(self) -> None:
            self.system_message = None
            self.messages = [HumanMessage("go")]

        def override(self, **kw: Any) -> Any:
            seen.append(str(kw["system_message"].content))
            return self

    kit.live_prompt().wrap_model_call(Request(), lambda request: None)  # type: ignore[arg-type]
    assert "Current browser state" in seen[-1]
    spec = WebToolSpec(browser=tools.browser, include=["web_tabs"])
    llama = {t.metadata.name: t for t in spec.to_tool_list()}
    seen += [spec.system_prompt(), str(llama["web_tabs"].call()),
             str(llama["web_snapshot"].call())]
    text = "\n".join(seen)
    assert "<secret>token</secret>" in text
    found = _fragments(text, SECRET) + _fragments(text, placed["uri"])
    assert found == []
