"""``webrefs mcp`` against the MCP SDK's own client over stdio, in a subprocess: the tools it
lists are the registry's, tools act on a local page, errors come back as tool errors, consent
is asked through elicitation, and the server ends (browser closed) when the client goes."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from webrefs import Browser
from webrefs.adapters.langchain import WebToolkit
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.adapters.mcp import mcp_tools
from webrefs.tools import TOOL_SPECS, ToolOptions, select_tools
from webrefs.tools.fmt import format_error

from tests.helpers.server import SiteServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]

ElicitFn = Any


@asynccontextmanager
async def client(errlog: Path, *extra: str, elicitation: ElicitFn | None = None,
                 env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A client session with ``webrefs mcp`` in a subprocess (its stderr into ``errlog``)."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "webrefs.cli", "mcp", *extra],
                                   env={**os.environ, **(env or {})})
    with errlog.open("w") as err:
        async with (stdio_client(params, errlog=err) as (read, write),
                    ClientSession(read, write, elicitation_callback=elicitation) as session):
            await session.initialize()
            yield session


def text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def ref_of(snapshot: str, name: str) -> str:
    line = next(x for x in snapshot.splitlines() if name in x)
    found = re.search(r"\be\d+\b", line)
    assert found is not None, line
    return found.group(0)


def stopped_cleanly(errlog: Path) -> None:
    log = errlog.read_text()
    assert "stopped (the client closed the connection); the browser is closed" in log, log
    assert "Traceback" not in log, log


async def test_lists_the_registry_tools_with_hints(tmp_path: Path) -> None:
    log = tmp_path / "err.txt"
    async with client(log, "--tools", "all") as session:
        listed = (await session.list_tools()).tools
    specs = select_tools(ToolOptions(tools="all"))
    assert [t.name for t in listed] == [s.name for s in specs]
    for tool, spec in zip(listed, specs, strict=True):
        assert tool.description == spec.description
        assert tool.input_schema == spec.json_schema()
        assert tool.annotations is not None
        assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == \
            spec.hints.as_mcp()
    click = next(t for t in listed if t.name == "web_click")
    snapshot = next(t for t in listed if t.name == "web_snapshot")
    assert click.annotations and click.annotations.destructive_hint is True
    assert snapshot.annotations and snapshot.annotations.read_only_hint is True
    stopped_cleanly(log)  # no tool call: no browser was started, and the server ended


async def test_snapshot_click_and_tool_errors(tmp_path: Path, site: SiteServer) -> None:
    log = tmp_path / "err.txt"
    async with client(log) as session:
        nav = await session.call_tool("web_navigate",
                                      {"url": site.url("/safety/pay.html")})
        assert not nav.is_error, text(nav)
        snap = await session.call_tool("web_snapshot", {})
        assert not snap.is_error and "Back to cart" in text(snap)
        back = ref_of(text(snap), "Back to cart")
        clicked = await session.call_tool("web_click", {"ref": back})
        assert not clicked.is_error, text(clicked)
        got = await session.call_tool("web_get_text", {})
        assert "back" in text(got)

        stale = await session.call_tool("web_click", {"ref": "e999"})
        assert stale.is_error and "e999" in text(stale)
        assert text(stale).startswith("web_click failed")

        unknown = await session.call_tool("web_fly", {})
        assert unknown.is_error and "There is no tool named 'web_fly'" in text(unknown)

        bad = await session.call_tool("web_click", {"ref": 5, "bogus": True})
        assert bad.is_error and text(bad).startswith("web_click failed: [invalid_argument]")
        # the server still works after every error
        again = await session.call_tool("web_snapshot", {})
        assert not again.is_error
    stopped_cleanly(log)


async def test_error_text_is_the_other_adapters(tmp_path: Path, site: SiteServer,
                                                browser: Browser) -> None:
    """The same stale ref gives the same message through MCP and through the registry's
    own error output (what the LangChain and LlamaIndex adapters give the model)."""
    tab = browser.new_tab(site.url("/safety/pay.html"))
    try:
        spec = WebToolSpec(tab=tab)
        direct = spec.webtools.run("web_click", {"ref": "e999"})
        assert direct.is_error
        async with client(tmp_path / "err.txt") as session:
            await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
            await session.call_tool("web_snapshot", {})
            via_mcp = await session.call_tool("web_click", {"ref": "e999"})
        assert via_mcp.is_error
        assert text(via_mcp) == direct.content == format_error("web_click", direct.artifact)
    finally:
        tab.close()


def accepting(answer: str) -> ElicitFn:
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    elicit.asked = asked  # type: ignore[attr-defined]
    return elicit


async def _pay(session: ClientSession, site: SiteServer) -> types.CallToolResult:
    await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
    snap = text(await session.call_tool("web_snapshot", {}))
    return await session.call_tool("web_click", {"ref": ref_of(snap, "Pay 5000 EUR")})


async def _state(session: ClientSession) -> str:
    return text(await session.call_tool("web_get_text", {}))


async def test_consent_accepted_through_elicitation(tmp_path: Path, site: SiteServer) -> None:
    elicit = accepting("accept")
    async with client(tmp_path / "err.txt", elicitation=elicit) as session:
        paid = await _pay(session, site)
        assert not paid.is_error, text(paid)
        assert "PAID" in await _state(session)
    assert len(elicit.asked) == 1 and "Pay 5000 EUR" in elicit.asked[0]


async def test_consent_declined_through_elicitation(tmp_path: Path, site: SiteServer) -> None:
    elicit = accepting("decline")
    async with client(tmp_path / "err.txt", elicitation=elicit) as session:
        paid = await _pay(session, site)
        assert paid.is_error
        assert "The user rejected web_click" in text(paid) and "not done" in text(paid)
        assert "unpaid" in await _state(session)
    assert len(elicit.asked) == 1


async def test_consent_refused_without_elicitation(tmp_path: Path, site: SiteServer) -> None:
    async with client(tmp_path / "err.txt") as session:  # a client with no elicitation
        paid = await _pay(session, site)
        assert paid.is_error
        assert "no one can confirm it here" in text(paid)
        assert "unpaid" in await _state(session)


async def test_three_adapters_offer_the_same_tools(browser: Browser, tmp_path: Path) -> None:
    async with client(tmp_path / "err.txt", "--tools", "all") as session:
        listed = (await session.list_tools()).tools
    via_mcp = {t.name: (t.description, t.input_schema) for t in listed}
    lc = WebToolkit(browser=browser, tools="all").get_tools()
    via_langchain = {t.name: (t.description, t.args_schema.model_json_schema())  # type: ignore[union-attr]
                     for t in lc}
    li = WebToolSpec(browser=browser, tools="all").to_tool_list()
    via_llamaindex = {t.metadata.name: (t.metadata.description,
                                        t.metadata.fn_schema.model_json_schema())  # type: ignore[union-attr]
                      for t in li}
    assert via_mcp == via_langchain == via_llamaindex
    assert set(via_mcp) == set(TOOL_SPECS)
    for tool in lc:  # the hints reach LangChain too, as metadata
        assert tool.metadata == TOOL_SPECS[tool.name].hints.as_mcp()
    assert [t.name for t in mcp_tools(select_tools(ToolOptions(tools="all")))] == list(via_mcp)


def test_mcp_without_the_extra_names_the_pip_command(tmp_path: Path) -> None:
    """With the mcp package hidden, ``webrefs mcp`` says how to install it."""
    import subprocess

    hide = tmp_path / "hide"
    (hide / "mcp").mkdir(parents=True)
    (hide / "mcp" / "__init__.py").write_text("raise ImportError('no mcp here')\n")
    env = dict(os.environ, PYTHONPATH=str(hide))
    proc = subprocess.run([sys.executable, "-m", "webrefs.cli", "mcp"], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert "pip install 'webrefs[mcp]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_http_two_clients_each_on_its_own_context(tmp_path: Path,
                                                        site: SiteServer) -> None:
    import asyncio
    import signal
    import subprocess

    import anyio
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    log = tmp_path / "err.txt"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "webrefs.cli", "mcp", "--tools", "all",
                                 "--http", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, env=dict(os.environ))
    try:
        for _ in range(200):  # until it listens
            try:
                _r, w = await asyncio.open_connection("127.0.0.1", port)
                w.close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"

        async def use(page: str, word: str) -> tuple[str, str]:
            async with (streamable_http_client(url) as (read, write),
                        ClientSession(read, write) as session):
                await session.initialize()
                nav = await session.call_tool("web_navigate", {"url": site.url(page)})
                assert not nav.is_error, text(nav)
                await anyio.sleep(1.0)  # both sessions have navigated before either reads
                seen = text(await session.call_tool("web_get_text", {}))
                tabs = text(await session.call_tool("web_tabs", {"action": "list"}))
                assert word in seen
                return seen, tabs

        results: dict[str, tuple[str, str]] = {}

        async def run(page: str, word: str) -> None:
            results[page] = await use(page, word)

        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "/safety/pay.html", "5000 EUR")
            tg.start_soon(run, "/safety/blog.html", "")
        _pay_text, pay_tabs = results["/safety/pay.html"]
        blog_text, blog_tabs = results["/safety/blog.html"]
        assert "5000 EUR" not in blog_text
        assert "pay.html" in pay_tabs and "blog.html" not in pay_tabs
        assert "blog.html" in blog_tabs and "pay.html" not in blog_tabs
        for _ in range(100):  # both clients ended their sessions: the browser closes
            if "the last session ended; the browser is closed" in log.read_text():
                break
            await asyncio.sleep(0.1)
        assert "the last session ended; the browser is closed" in log.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert code == 0, log.read_text()
    assert "stopped; the browser is closed" in log.read_text()


def test_http_refuses_a_remote_address_without_the_flag() -> None:
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "webrefs.cli", "mcp", "--http", "0.0.0.0:8931"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert "--allow-remote" in proc.stderr and "Traceback" not in proc.stderr


def test_stdio_sigterm_closes_the_browser(tmp_path: Path, site: SiteServer) -> None:
    """A server whose browser runs, stopped by SIGTERM while the client keeps stdin open: it
    closes the browser, says so, and ends by the signal (the conftest check finds no
    Chromium left behind)."""
    import json
    import signal
    import subprocess

    log = tmp_path / "err.txt"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "web_navigate", "arguments": {"url": site.url("/safety/pay.html")}}},
    ]
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "webrefs.cli", "mcp"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                env=dict(os.environ), text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert answers[1]["id"] == 2 and answers[1]["result"]["isError"] is False, answers
        proc.send_signal(signal.SIGTERM)  # stdin still open: only the signal stops it
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == -signal.SIGTERM, log.read_text()  # ended by the signal, after closing
    assert "stopped (SIGTERM); the browser is closed" in log.read_text()
    assert "Traceback" not in log.read_text()


async def test_consent_refused_when_the_elicitation_fails(tmp_path: Path,
                                                          site: SiteServer) -> None:
    """A client that declares elicitation but answers it with an error has not said no: the
    model reads the policy's refusal (nobody could confirm), not that the user rejected it."""
    async def broken(context: Any, params: types.ElicitRequestParams) -> types.ErrorData:
        return types.ErrorData(code=types.INTERNAL_ERROR, message="no form here")

    async with client(tmp_path / "err.txt", elicitation=broken) as session:
        paid = await _pay(session, site)
        assert paid.is_error
        assert "no one can confirm it here" in text(paid) and "rejected" not in text(paid)
        assert "unpaid" in await _state(session)


async def test_structured_results_under_their_output_schemas(tmp_path: Path,
                                                             site: SiteServer) -> None:
    """A snapshot's refs and what an action did come as ``structuredContent`` under the tool's
    ``outputSchema`` (the SDK's client checks each result against it); a tool without one
    (``web_evaluate``) lists none, and an error carries no structured result."""
    import jsonschema

    async with client(tmp_path / "err.txt", "--tools", "all") as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        assert listed["web_evaluate"].output_schema is None
        for name in ("web_snapshot", "web_click", "web_navigate", "web_get_text", "web_tabs"):
            schema = listed[name].output_schema
            assert schema is not None and schema["type"] == "object", name

        nav = await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
        assert nav.structured_content is not None
        assert nav.structured_content["navigated"] is True
        assert nav.structured_content["url"].endswith("/safety/pay.html")

        snap = await session.call_tool("web_snapshot", {})
        data = snap.structured_content
        assert data is not None
        jsonschema.validate(data, listed["web_snapshot"].output_schema or {})
        back = ref_of(text(snap), "Back to cart")
        by_ref = {r["ref"]: r for r in data["refs"]}
        assert by_ref[back]["name"] == "Back to cart" and by_ref[back]["role"] == "button"
        assert list(by_ref) == re.findall(r"\[ref=(e\d+)\]", text(snap))  # every ref, in order
        assert data["url"].endswith("/safety/pay.html") and data["tokens"] > 0
        assert "outline" not in data and text(snap) not in str(data)  # never the text again

        clicked = await session.call_tool("web_click", {"ref": back})
        assert clicked.structured_content is not None
        jsonschema.validate(clicked.structured_content, listed["web_click"].output_schema or {})
        assert clicked.structured_content["ref"] == back
        assert clicked.structured_content["success"] is True

        tabs = await session.call_tool("web_tabs", {"action": "list"})
        assert tabs.structured_content is not None
        assert [t["active"] for t in tabs.structured_content["tabs"]] == [True]

        stale = await session.call_tool("web_click", {"ref": "e999"})
        assert stale.is_error and stale.structured_content is None


async def test_screenshot_comes_as_image_content(tmp_path: Path, site: SiteServer) -> None:
    import base64

    async with client(tmp_path / "err.txt", "--vision") as session:
        await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
        shot = await session.call_tool("web_screenshot", {})
    assert not shot.is_error, text(shot)
    images = [c for c in shot.content if isinstance(c, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    png = base64.b64decode(images[0].data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    data = shot.structured_content
    assert data is not None and data["marks"]
    assert data["width"] > 0 and int.from_bytes(png[16:20], "big") == data["width"]
    assert "Screenshot of" in text(shot)


async def test_options_from_a_config_file_and_the_command_line(tmp_path: Path,
                                                               site: SiteServer) -> None:
    """One server started with ``--config`` and flags over it: the tool selection, the user
    agent, the proxy (every request went through it), the safety policy's blocked domains, a
    secret read from the environment, and a flag that replaces the file's budget."""
    from tests.helpers.proxy import RecordingProxy

    with RecordingProxy(ports={site.port}) as proxy:
        config = tmp_path / "webrefs.toml"
        config.write_text(f"""
[browser]
user_agent = "webrefs-config-test/1"
proxy = "http://127.0.0.1:{proxy.port}"

[tools]
tools = ["web_navigate", "web_snapshot", "web_fill", "web_get_text"]
max_tokens = 400

[safety]
blocked_domains = ["blocked.test"]

[safety.secrets]
code = "WEBREFS_TEST_CODE"
""")
        secret = "s3cret-value"
        log = tmp_path / "err.txt"
        async with client(log, "--config", str(config), "--max-tokens", "600",
                          env={"WEBREFS_TEST_CODE": secret}) as session:
            names = [t.name for t in (await session.list_tools()).tools]
            assert names == ["web_snapshot", "web_fill", "web_get_text", "web_navigate"]
            page = site.url("/mcp/whoami.html")
            nav = await session.call_tool("web_navigate", {"url": page})
            assert not nav.is_error, text(nav)
            assert "UA=webrefs-config-test/1" in text(await session.call_tool("web_get_text",
                                                                              {}))
            snap = text(await session.call_tool("web_snapshot", {}))
            assert re.search(r"tokens=\d+/600\b", snap), snap.splitlines()[0]
            filled = await session.call_tool(
                "web_fill", {"ref": ref_of(snap, "Code"), "value": "<secret>code</secret>"})
            assert not filled.is_error, text(filled)
            shown = text(await session.call_tool("web_get_text", {}))
            assert f"length={len(secret)}" in shown  # the value typed was the secret's
            blocked = await session.call_tool("web_navigate", {"url": "http://blocked.test/"})
            assert blocked.is_error and "blocked.test" in text(blocked)
        assert secret not in log.read_text()
        through = [s for s in proxy.seen if s.forwarded and "/mcp/whoami.html" in s.target]
        assert through, proxy.seen  # the page came through the configured proxy
        assert proxy.refused == []
    stopped_cleanly(log)


async def test_browser_endpoint_attaches_and_leaves_it_running(tmp_path: Path,
                                                               site: SiteServer) -> None:
    """``--browser-endpoint``: the tools act in a browser the user started, and the server
    detaches at the end, leaving it running with the page the agent opened."""
    import json
    import urllib.request

    from tests.helpers.debugged import DebuggedChromium

    with DebuggedChromium(tmp_path / "profile") as chrome:
        log = tmp_path / "err.txt"
        async with client(log, "--browser-endpoint", chrome.endpoint) as session:
            nav = await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
            assert not nav.is_error, text(nav)
            assert "5000 EUR" in text(await session.call_tool("web_get_text", {}))
        stopped_cleanly(log)
        assert chrome.proc.poll() is None  # still running
        with urllib.request.urlopen(f"{chrome.endpoint}/json/list", timeout=10) as answer:
            pages = json.load(answer)
        assert any(p.get("url", "").endswith("/safety/pay.html") for p in pages), pages


async def test_a_persistent_profile_keeps_what_a_page_stored(tmp_path: Path,
                                                             site: SiteServer) -> None:
    page = site.url("/mcp/remember.html")
    profile = str(tmp_path / "profile")
    async with client(tmp_path / "one.txt", "--profile", profile) as session:
        await session.call_tool("web_navigate", {"url": page})
        snap = text(await session.call_tool("web_snapshot", {}))
        clicked = await session.call_tool("web_click", {"ref": ref_of(snap, 'button "Remember"')})
        assert "stored=kept" in text(await session.call_tool("web_get_text", {})), text(clicked)
    async with client(tmp_path / "two.txt", "--profile", profile) as session:
        await session.call_tool("web_navigate", {"url": page})
        assert "stored=kept" in text(await session.call_tool("web_get_text", {}))
    async with client(tmp_path / "three.txt") as session:  # a fresh profile: nothing kept
        await session.call_tool("web_navigate", {"url": page})
        assert "stored=null" in text(await session.call_tool("web_get_text", {}))


async def test_storage_state_starts_from_a_saved_state(tmp_path: Path, site: SiteServer) -> None:
    import json

    state = tmp_path / "state.json"
    origin = site.url("/").rstrip("/")
    state.write_text(json.dumps({"cookies": [], "origins": [
        {"origin": origin, "localStorage": [{"name": "k", "value": "from-state"}]}]}))
    async with client(tmp_path / "err.txt", "--storage-state", str(state)) as session:
        await session.call_tool("web_navigate", {"url": site.url("/mcp/remember.html")})
        assert "stored=from-state" in text(await session.call_tool("web_get_text", {}))


@asynccontextmanager
async def http_server(log: Path, *extra: str) -> AsyncIterator[tuple[str, Any]]:
    """``webrefs mcp --http`` in a subprocess: its URL and process; SIGTERM at the end, which
    must end it with exit code 0."""
    import asyncio
    import signal
    import subprocess

    port = _free_port()
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "webrefs.cli", "mcp", "--http",
                                 f"127.0.0.1:{port}", *extra], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, env=dict(os.environ))
    try:
        for _ in range(300):  # until it listens
            try:
                _r, w = await asyncio.open_connection("127.0.0.1", port)
                w.close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert code == 0, log.read_text()
    assert "stopped; the browser is closed" in log.read_text()
    assert "Traceback" not in log.read_text(), log.read_text()


async def _until(check: Any, timeout: float = 20.0) -> Any:
    import asyncio

    for _ in range(int(timeout / 0.1)):
        value = check()
        if value:
            return value
        await asyncio.sleep(0.1)
    return check()


async def test_http_browser_closes_when_the_last_client_goes(tmp_path: Path,
                                                             site: SiteServer) -> None:
    """Two HTTP clients: one ends its session (DELETE), the other just goes away. The
    browser runs while either is there, and once the second has made no call for the idle
    timeout its context and the browser close: no Chromium is left under the server, which
    keeps serving (a new client starts a new browser)."""
    from mcp.client.streamable_http import streamable_http_client

    from tests.helpers.procs import chromium_descendants

    log = tmp_path / "err.txt"
    async with http_server(log, "--idle-timeout", "2") as (url, proc):
        async with (streamable_http_client(url, terminate_on_close=False) as (r2, w2),
                    ClientSession(r2, w2) as leaving):
            await leaving.initialize()
            nav = await leaving.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
            assert not nav.is_error, text(nav)
            async with (streamable_http_client(url) as (r1, w1),
                        ClientSession(r1, w1) as polite):
                await polite.initialize()
                await polite.call_tool("web_navigate", {"url": site.url("/safety/blog.html")})
            assert chromium_descendants(proc.pid)  # the other client still has the browser
            assert "the last session ended" not in log.read_text()
            # the client goes without ending its session (no DELETE)
        assert await _until(lambda: "the last session ended; the browser is closed"
                            in log.read_text()), log.read_text()
        assert "a session made no call for 2 s" in log.read_text()
        assert await _until(lambda: not chromium_descendants(proc.pid))
        assert proc.poll() is None  # the server itself keeps serving
        async with (streamable_http_client(url) as (r3, w3), ClientSession(r3, w3) as again):
            await again.initialize()
            nav = await again.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
            assert not nav.is_error, text(nav)
        assert await _until(lambda: not chromium_descendants(proc.pid))


async def test_http_sessions_get_the_configured_browser(tmp_path: Path,
                                                        site: SiteServer) -> None:
    """Each HTTP session's own context keeps what the server was told (user agent, proxy)."""
    from mcp.client.streamable_http import streamable_http_client

    from tests.helpers.proxy import RecordingProxy

    with RecordingProxy(ports={site.port}) as proxy:
        server = http_server(tmp_path / "err.txt", "--user-agent", "webrefs-http/1",
                             "--proxy", f"http://127.0.0.1:{proxy.port}")
        async with (server as (url, _proc), streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            nav = await session.call_tool("web_navigate",
                                          {"url": site.url("/mcp/whoami.html")})
            assert not nav.is_error, text(nav)
            seen = text(await session.call_tool("web_get_text", {}))
        assert "UA=webrefs-http/1" in seen
        assert any(s.forwarded and "/mcp/whoami.html" in s.target for s in proxy.seen)
        assert proxy.refused == []


async def test_safety_options_reach_the_browser(tmp_path: Path, site: SiteServer) -> None:
    """``--block-private-network`` refuses the loopback page; a consent rule from the config
    file blocks the button it names, with its reason, on a server that reaches the page."""
    async with client(tmp_path / "one.txt", "--block-private-network") as session:
        nav = await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
        assert nav.is_error and "web_navigate failed" in text(nav)
        assert "private" in text(nav).lower() or "loopback" in text(nav).lower(), text(nav)
    config = tmp_path / "rules.toml"
    config.write_text('[safety]\nrules = [{on = "target", pattern = "back to cart", '
                      'level = "block", reason = "carts are not for leaving"}]\n')
    async with client(tmp_path / "two.txt", "--config", str(config)) as session:
        await session.call_tool("web_navigate", {"url": site.url("/safety/pay.html")})
        snap = text(await session.call_tool("web_snapshot", {}))
        back = await session.call_tool("web_click", {"ref": ref_of(snap, "Back to cart")})
        assert back.is_error and "carts are not for leaving" in text(back), text(back)
        assert "unpaid" in await _state(session)  # nothing was clicked


async def test_a_browser_that_cannot_start_is_a_tool_error(tmp_path: Path) -> None:
    """Nothing listens at ``--browser-endpoint``: each call is a tool error saying so (not a
    protocol error), and the server goes on and ends cleanly."""
    log = tmp_path / "err.txt"
    endpoint = f"http://127.0.0.1:{_free_port()}"  # free: nothing listens there
    async with client(log, "--browser-endpoint", endpoint) as session:
        for _ in range(2):
            snap = await session.call_tool("web_snapshot", {})
            assert snap.is_error and text(snap).startswith("web_snapshot failed"), text(snap)
            assert "could not be started or reached" in text(snap)
            assert "connect_over_cdp" not in text(snap)  # the host's detail stays in the log
    assert "the browser could not be started" in log.read_text()
    assert endpoint in log.read_text()
    stopped_cleanly(log)
