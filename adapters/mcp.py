"""An MCP server over the one tool registry (``webrefs mcp``).

::

    webrefs mcp                      # stdio: one client, one browser
    webrefs mcp --http 127.0.0.1:8931   # streamable HTTP: a browser context per session

Every tool of the selection is an MCP tool with the registry's name, description and JSON
Schema as they are (the low-level ``mcp`` server, so no schema is derived twice), and the
hints of ``webrefs.tools.TOOL_HINTS`` as its annotations. A result is its text, plus image
content for a screenshot, plus ``structuredContent`` (the refs of a snapshot, what an action
did, ...: ``webrefs.tools.outputs``) under the tool's ``outputSchema``; a failed call is a
tool result with ``isError`` whose text is what the other adapters give the model
(``format_error``). An action the safety policy wants a
person to confirm is asked of the client through elicitation when the client offers it
(accepted: the call is made again and runs; declined: refused), else it is refused with the
message every adapter gives when no one can confirm.

One browser per server, launched on the first tool call and closed when the server ends
(the client closes stdin, or SIGTERM).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from webrefs.errors import missing_extra

try:
    import mcp_types as types
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise missing_extra("webrefs.adapters.mcp", "mcp") from exc

from webrefs import Browser, BrowserOptions, SafetyPolicy
from webrefs.errors import BrowserError, ConsentError, InvalidArgumentError, WebrefsError
from webrefs.tools import ToolOptions, ToolOutput, ToolSpec, WebTools, select_tools
from webrefs.tools.fmt import format_error
from webrefs.tools.outputs import output_schema, structured

from .consent import Approvals, askable, question, rejected

__all__ = ["McpOptions", "WebMcpServer", "is_loopback", "mcp_tools", "serve_http", "serve_stdio"]

SERVER_NAME = "webrefs"


@dataclass(frozen=True)
class McpOptions:
    """How ``webrefs mcp`` runs: the library's own options objects, and what only a server
    has (where its browser comes from, whether it asks the client)."""

    tools: ToolOptions = field(default_factory=ToolOptions)
    """Which tools are offered and how they answer (``max_tokens``, ``after_action``, ...)."""
    browser: BrowserOptions = field(default_factory=BrowserOptions)
    """How the browser is launched (``headless``, ``user_data_dir`` for a persistent
    profile, ``storage_state``, ``proxy``, ``user_agent``, ``args``, ...). With ``endpoint``
    only its context fields apply (``Browser.connect``)."""
    endpoint: str | None = None
    """Attach to a running browser (a CDP address or a Playwright server) instead of
    launching one; the server detaches from it at the end and leaves it running."""
    safety: SafetyPolicy = field(default_factory=SafetyPolicy)
    """The safety policy; its consent callback is the server's own (the client's user,
    asked through elicitation), whatever this one has."""
    elicit: bool = True
    """Ask the client (MCP elicitation) about actions that need a person's consent, when the
    client offers elicitation; ``False`` refuses them."""
    idle_timeout_s: float = 1800.0
    """Over HTTP: a session with no request for this long is ended and its context closed
    (a client that went away without ending its session)."""

    def __post_init__(self) -> None:
        if not (isinstance(self.idle_timeout_s, int | float) and 0 < self.idle_timeout_s
                < float("inf")) or isinstance(self.idle_timeout_s, bool):
            raise InvalidArgumentError(
                f"idle_timeout_s must be a positive number of seconds, got "
                f"{self.idle_timeout_s!r}.")


def mcp_tools(specs: list[ToolSpec]) -> list[types.Tool]:
    """The MCP tool of each spec: same name, description and JSON Schema, its hints, and the
    schema of its structured result where it has one (``webrefs.tools.outputs``)."""
    return [types.Tool(name=s.name, description=s.description, input_schema=s.json_schema(),
                       output_schema=output_schema(s.name),
                       annotations=types.ToolAnnotations(**_hints(s)))
            for s in specs]


def _hints(spec: ToolSpec) -> dict[str, bool]:
    h = spec.hints
    return {"read_only_hint": h.read_only, "destructive_hint": h.destructive,
            "idempotent_hint": h.idempotent, "open_world_hint": h.open_world}


def _result(name: str, out: ToolOutput) -> types.CallToolResult:
    """The text the model reads, a screenshot's image, and the structured result."""
    content: list[Any] = [types.TextContent(type="text", text=out.content)]
    for png in out.images:
        content.append(types.ImageContent(type="image", mime_type="image/png",
                                          data=base64.b64encode(png).decode("ascii")))
    return types.CallToolResult(content=content, is_error=out.is_error,
                                structured_content=structured(name, out.artifact))


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                is_error=True)


CONSENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Allow it",
                               "description": "Let the browser do this.", "default": True}},
}
"""The form an elicitation shows: one yes/no field."""


class _Session:
    """The tools of one client: on the server's browser (stdio) or a context of it (HTTP)."""

    def __init__(self, webtools: WebTools, approvals: Approvals) -> None:
        self.webtools = webtools
        self.approvals = approvals
        self.calls = 0
        """Tool calls running now."""
        self.last_call = time.monotonic()
        """When the last tool call ended (or the session opened)."""

    def idle_for(self) -> float:
        """Seconds since the last call ended; 0 while one runs."""
        return 0.0 if self.calls else time.monotonic() - self.last_call


def _session_key(ctx: ServerRequestContext[Any]) -> str:
    """Which client a request comes from: its HTTP session, or the one stdio client."""
    headers = getattr(ctx.request, "headers", None)
    if headers is not None:
        return str(headers.get("mcp-session-id") or "")
    return "stdio"


class WebMcpServer:
    """The low-level MCP server and the one browser behind it (launched on first use)."""

    def __init__(self, options: McpOptions | None = None) -> None:
        self.options = options or McpOptions()
        self.specs = select_tools(self.options.tools)  # bad names fail here, before serving
        self._browser: Browser | None = None
        self._launching = asyncio.Lock()
        self._opening = asyncio.Lock()
        self._sessions: dict[str, _Session] = {}
        self.server: Server[Any] = Server(SERVER_NAME, on_list_tools=self._list_tools,
                                          on_call_tool=self._call_tool)

    # -- the browser ---------------------------------------------------------------------------
    async def _browser_now(self) -> Browser:
        async with self._launching:
            if self._browser is None:
                self._browser = await self._start()
            return self._browser

    async def _start(self) -> Browser:
        """Launch the browser, or attach to the one at ``endpoint``."""
        opts, safety = self.options.browser, self.options.safety
        if self.options.endpoint is None:
            return await Browser.alaunch(options=opts, safety=safety)
        # only the context fields (and a Playwright server's launch fields) apply there
        return await Browser.aconnect(self.options.endpoint, options=opts, safety=safety)

    def close(self) -> None:
        """Close the browser (when one was launched), and with it every session's context."""
        self._sessions.clear()
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(WebrefsError):
                browser.close()

    async def _session(self, ctx: ServerRequestContext[Any]) -> _Session:
        key = _session_key(ctx)
        async with self._opening:
            return self._sessions.get(key) or await self._open(key)

    async def _open(self, key: str) -> _Session:
        browser = await self._browser_now()
        if key != "stdio":  # an HTTP session: a context of its own (cookies, tabs)
            browser = await browser.anew_context()
        approvals = Approvals()
        # approvals come only from a person answering the client's elicitation
        safety = replace(browser.safety, consent=approvals, consent_by="the user")
        webtools = WebTools(browser, options=self.options.tools, safety=safety)
        found = self._sessions[key] = _Session(webtools, approvals)
        return found

    async def end_session(self, key: str, *, idle_over: float | None = None) -> bool:
        """Close the context of an HTTP session that ended (with ``idle_over``: only when it
        has been idle longer than that); with the last one, the browser (the next session
        launches another). Whether it was ended."""
        async with self._opening:
            session = self._sessions.get(key)
            if session is None or (idle_over is not None and session.idle_for() <= idle_over):
                return False
            del self._sessions[key]
            if session.webtools.browser is not None:
                with contextlib.suppress(WebrefsError):
                    await session.webtools.browser.aclose()
            if not self._sessions:
                async with self._launching:
                    browser, self._browser = self._browser, None
                if browser is not None:
                    with contextlib.suppress(WebrefsError):
                        await browser.aclose()
                    print("webrefs mcp: the last session ended; the browser is closed",
                          file=sys.stderr, flush=True)
            return True

    # -- the handlers --------------------------------------------------------------------------
    async def _list_tools(self, ctx: ServerRequestContext[Any],
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=mcp_tools(self.specs))

    async def _call_tool(self, ctx: ServerRequestContext[Any],
                         params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments
        args: Mapping[str, Any] | None = arguments if isinstance(arguments, Mapping) else None
        try:
            session = await self._session(ctx)
        except WebrefsError as err:
            # a browser that cannot start (a bad proxy, nothing at the endpoint) is the
            # host's to mend: the log says why, the model reads that nothing was done, and
            # the next call tries again
            print(f"webrefs mcp: the browser could not be started: {err}", file=sys.stderr,
                  flush=True)
            return _error(format_error(name, BrowserError(
                "The browser could not be started or reached, so nothing was done.",
                hint="No web tool can work until it starts: tell the user (the MCP server's "
                "log says why).")))
        session.calls += 1
        try:
            return await self._run(ctx, session, name, args)
        finally:
            session.calls -= 1
            session.last_call = time.monotonic()

    async def _run(self, ctx: ServerRequestContext[Any], session: _Session, name: str,
                   args: Mapping[str, Any] | None) -> types.CallToolResult:
        """One tool call; consent asked of the client when the policy wants it."""
        try:
            try:
                out = await session.webtools.acall(name, args)
            except ConsentError as err:
                request = askable(err)
                answer = None if request is None else await self._ask(ctx, name, request)
                if answer is None or request is None:
                    raise  # nobody could be asked: the policy's own refusal
                if not answer:
                    raise rejected(name, err, request) from None
                session.approvals.add(request)
                out = await session.webtools.acall(name, args)
        except WebrefsError as err:
            return _error(format_error(name, err))
        return _result(name, out)

    def _can_elicit(self, ctx: ServerRequestContext[Any]) -> bool:
        if not self.options.elicit:
            return False
        caps = ctx.session.client_capabilities
        return caps is not None and caps.elicitation is not None

    async def _ask(self, ctx: ServerRequestContext[Any], tool: str,
                   request: Any) -> bool | None:
        """Ask the client's user: ``True`` or ``False``, or ``None`` when the client cannot
        be asked (no elicitation, or the request failed)."""
        if not self._can_elicit(ctx):
            return None
        try:
            answer = await ctx.session.elicit_form(
                question(tool, request), CONSENT_SCHEMA, related_request_id=ctx.request_id)
        except Exception:  # the client did not answer: nobody consented
            return None
        if answer.action != "accept":
            return False
        return (answer.content or {}).get("approve", True) is not False

    # -- running -------------------------------------------------------------------------------
    async def run_stdio(self) -> None:
        """Serve one client on stdin/stdout until it closes stdin."""
        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    async def run_http(self, host: str, port: int) -> None:
        """Serve clients over streamable HTTP at ``http://host:port/mcp`` until SIGTERM or
        Ctrl-C (uvicorn's own handlers stop it)."""
        import uvicorn

        app = self.server.streamable_http_app(
            host=host, session_idle_timeout=self.options.idle_timeout_s)

        async def ending_sessions(scope: Any, receive: Any, send: Any) -> None:
            """The SDK's app; after a client ends its session (DELETE), its context closes."""
            await app(scope, receive, send)
            if scope.get("type") == "http" and scope.get("method") == "DELETE":
                ended = dict(scope.get("headers") or ()).get(b"mcp-session-id")
                if ended:
                    await self.end_session(ended.decode("latin-1"))

        config = uvicorn.Config(ending_sessions, host=host, port=port, log_level="warning",
                                lifespan="on")
        reaper = asyncio.create_task(self._reap_idle())
        try:
            await uvicorn.Server(config).serve()
        finally:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper

    async def _reap_idle(self) -> None:
        """End the HTTP sessions whose client went away without ending them: no tool call
        for ``idle_timeout_s`` (the SDK forgets such a session after as long)."""
        limit = self.options.idle_timeout_s
        while True:
            await asyncio.sleep(min(max(limit / 4, 0.05), 5.0))
            for key, session in list(self._sessions.items()):
                if (key != "stdio" and session.idle_for() > limit
                        and await self.end_session(key, idle_over=limit)):
                    print(f"webrefs mcp: a session made no call for {limit:g} s; its browser "
                          "context is closed", file=sys.stderr, flush=True)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    import ipaddress

    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve_http(options: McpOptions, host: str, port: int) -> int:
    """Run the streamable HTTP server until SIGTERM or Ctrl-C; the browser is closed after."""
    server = WebMcpServer(options)
    print(f"webrefs mcp: serving MCP at http://{host}:{port}/mcp", file=sys.stderr, flush=True)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # uvicorn stops on SIGTERM, then raises the signal again with the handler it found: this
    # one, so the browser is closed below instead of the process ending there
    signal.signal(signal.SIGTERM, stop)
    try:
        asyncio.run(server.run_http(host, port))
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    print("webrefs mcp: stopped; the browser is closed", file=sys.stderr, flush=True)
    return 0


def serve_stdio(options: McpOptions) -> int:
    """Run the stdio server until the client goes or SIGTERM; the browser is closed after.
    Says on stderr why it stopped."""
    server = WebMcpServer(options)

    def stopped(why: str) -> None:
        server.close()
        print(f"webrefs mcp: stopped ({why}); the browser is closed", file=sys.stderr,
              flush=True)

    def terminate(signum: int, frame: object) -> None:
        # stdin is read on a worker thread that nothing can cancel while the client keeps it
        # open, so the server cannot wind down by itself: close the browser, then end as
        # SIGTERM ends a process
        stopped("SIGTERM")
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminate)
    try:
        asyncio.run(server.run_stdio())
    except KeyboardInterrupt:
        stopped("interrupted")
        return 130
    except BaseException:
        server.close()
        raise
    stopped("the client closed the connection")
    return 0
