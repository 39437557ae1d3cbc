"""What MCP costs: per call, and in the tool list a client reads.

    python benchmarks/bench_mcp.py [--runs 30] [--json FILE] [--write-readme]

**Per-call overhead.** One local page (served from memory on 127.0.0.1) is opened twice in
the same run: in a browser this process drives through the tool registry
(``WebTools.acall``), and in ``webrefs mcp`` (a subprocess over stdio, the SDK's own client).
Each round takes a ``web_snapshot`` and a ``web_click`` (a button whose click changes the
page at once) both ways, alternating, so both meet the same machine moment; the medians of
``--runs`` rounds are compared. What MCP adds is JSON-RPC over a pipe, the SDK's validation
of the result against the tool's output schema, and the server's own loop.

**Tool-list tokens.** webrefs' ``tools/list`` (as its client receives it: every entry as
compact JSON, o200k_base, ``webrefs.render.tokens.TokenCounter``) against playwright-mcp's
for the same capabilities, and the part a host hands a model (name, description and input
schema per tool; annotations and output schemas stay with the host). playwright-mcp's
numbers are :data:`PLAYWRIGHT_MCP` below; how they were counted is said there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from webrefs import Browser
from webrefs.adapters.mcp import mcp_tools
from webrefs.render.tokens import TokenCounter
from webrefs.tools import ToolOptions, WebTools, select_tools

README = Path(__file__).resolve().parent / "README.md"
START, END = "<!-- mcp:start -->", "<!-- mcp:end -->"

PAGE = """<!doctype html><title>Counter</title><main><h1>Counter</h1>
<p id="n">0</p>
<button id="go" onclick="const p = document.getElementById('n');
  p.textContent = +p.textContent + 1">Add one</button>
<ul>""" + "".join(f'<li><a href="#item{i}">Item {i}</a></li>' for i in range(20)) + """</ul>
</main>"""

PLAYWRIGHT_MCP_SOURCE = "@playwright/mcp 0.0.79 (microsoft/playwright-mcp commit 4c50776)"
PLAYWRIGHT_MCP: dict[str, tuple[int, int]] = {
    # tool: (tokens of its tools/list entry, tokens of name + description + input schema)
    "browser_click": (182, 157), "browser_close": (70, 44),
    "browser_console_messages": (168, 141), "browser_drag": (183, 157),
    "browser_drop": (228, 197), "browser_evaluate": (185, 158),
    "browser_file_upload": (111, 85), "browser_fill_form": (95, 69),
    "browser_find": (222, 194), "browser_handle_dialog": (113, 86),
    "browser_hover": (122, 96), "browser_navigate": (92, 64),
    "browser_navigate_back": (78, 52), "browser_network_request": (179, 151),
    "browser_network_requests": (181, 154), "browser_press_key": (110, 83),
    "browser_resize": (107, 80), "browser_run_code_unsafe": (203, 172),
    "browser_select_option": (160, 134), "browser_snapshot": (184, 158),
    "browser_take_screenshot": (310, 283), "browser_type": (199, 173),
    "browser_wait_for": (128, 102), "browser_tabs": (144, 118),
    "browser_mouse_wheel": (106, 79),
}
"""playwright-mcp's default tools (its "core automation" and "tab management" groups, 24
tools) and ``browser_mouse_wheel`` (opt-in, ``--caps=vision``), counted from the tool list
its README generates from the tool definitions (``update-readme.js``) at
:data:`PLAYWRIGHT_MCP_SOURCE`: each entry rebuilt as its server lists it (name, description,
the input schema as zod writes it: ``$schema``, ``type``, ``properties`` with each
parameter's type and description, ``required``, ``additionalProperties: false``; the
annotations ``title``, ``readOnlyHint``, ``destructiveHint``, ``openWorldHint``) and counted
as compact JSON with o200k_base. The README gives no enum values and no item schemas of
arrays (taken as strings here), so these counts are a lower bound of the real list."""

SAME_CAPABILITIES: dict[str, tuple[str, ...]] = {
    # webrefs tool: the playwright-mcp tools that do the same
    "web_snapshot": ("browser_snapshot",),
    "web_click": ("browser_click",),
    "web_fill": ("browser_type",),
    "web_select": ("browser_select_option",),
    "web_check": ("browser_click",),
    "web_scroll": ("browser_mouse_wheel",),
    "web_press_key": ("browser_press_key",),
    "web_type": ("browser_type",),
    "web_wait_for": ("browser_wait_for",),
    "web_navigate": ("browser_navigate",),
    "web_go_back": ("browser_navigate_back",),
    "web_hover": ("browser_hover",),
    "web_drag": ("browser_drag",),
    "web_upload": ("browser_file_upload",),
    "web_tabs": ("browser_tabs",),
    "web_screenshot": ("browser_take_screenshot",),
    "web_evaluate": ("browser_evaluate",),
}
"""Capabilities both have. ``web_get_text``, ``web_go_forward`` and ``web_reload`` have no
playwright-mcp tool of their own (it reads text through the snapshot, and has no forward
or reload) and are counted apart."""


class _Page(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        data = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _entry(tool: types.Tool, *, output: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    if not output:
        data.pop("outputSchema", None)
    return data


def _model_view(tool: types.Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description,
            "parameters": tool.input_schema}


def list_tokens(tools: list[types.Tool]) -> dict[str, dict[str, int]]:
    """Per tool: tokens of its tools/list entry, without its output schema, and of what a
    host gives a model."""
    counter = TokenCounter("o200k_base")

    def count(data: dict[str, Any]) -> int:
        return counter.exact(json.dumps(data, separators=(",", ":"), ensure_ascii=False))

    return {t.name: {"list": count(_entry(t)), "list_no_output": count(_entry(t, output=False)),
                     "model": count(_model_view(t))} for t in tools}


def token_tables(listed_default: list[types.Tool],
                 listed_all: list[types.Tool]) -> dict[str, Any]:
    ours_all = list_tokens(listed_all)
    ours_default = {t.name: ours_all[t.name] for t in listed_default}
    theirs_default = {n: v for n, v in PLAYWRIGHT_MCP.items() if n != "browser_mouse_wheel"}
    matched_ours = {n: ours_all[n] for n in SAME_CAPABILITIES}
    matched_theirs = sorted({p for ps in SAME_CAPABILITIES.values() for p in ps})

    def total(rows: dict[str, dict[str, int]], key: str) -> int:
        return sum(r[key] for r in rows.values())

    return {
        "ours_per_tool": ours_all,
        "default": {
            "ours_tools": len(ours_default), "theirs_tools": len(theirs_default),
            "ours_list": total(ours_default, "list"),
            "ours_list_no_output": total(ours_default, "list_no_output"),
            "ours_model": total(ours_default, "model"),
            "theirs_list": sum(v[0] for v in theirs_default.values()),
            "theirs_model": sum(v[1] for v in theirs_default.values()),
        },
        "same_capabilities": {
            "ours_tools": len(matched_ours), "theirs_tools": len(matched_theirs),
            "ours_list": total(matched_ours, "list"),
            "ours_list_no_output": total(matched_ours, "list_no_output"),
            "ours_model": total(matched_ours, "model"),
            "theirs_list": sum(PLAYWRIGHT_MCP[n][0] for n in matched_theirs),
            "theirs_model": sum(PLAYWRIGHT_MCP[n][1] for n in matched_theirs),
        },
        "ours_only": {n: ours_all[n] for n in ("web_get_text", "web_go_forward", "web_reload")},
    }


async def _timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await call
    return (time.perf_counter() - started) * 1000, result


def _text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def overhead(runs: int) -> dict[str, Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    times: dict[str, list[float]] = {k: [] for k in
                                     ("direct_snapshot", "mcp_snapshot", "direct_click",
                                      "mcp_click")}
    browser = await Browser.alaunch()
    params = StdioServerParameters(command=sys.executable, args=["-m", "webrefs.cli", "mcp"],
                                   env=dict(os.environ))
    try:
        tools = WebTools(browser)
        with open(os.devnull, "w") as quiet:
            async with (stdio_client(params, errlog=quiet) as (read, write),
                        ClientSession(read, write) as session):
                await session.initialize()
                await tools.acall("web_navigate", {"url": url})
                await session.call_tool("web_navigate", {"url": url})
                direct_ref = _ref(str((await tools.acall("web_snapshot", {})).content))
                mcp_ref = _ref(_text(await session.call_tool("web_snapshot", {})))
                for _ in range(2):  # warm both ways up
                    await tools.acall("web_click", {"ref": direct_ref})
                    await session.call_tool("web_click", {"ref": mcp_ref})
                for _ in range(runs):
                    ms, _out = await _timed(tools.acall("web_snapshot", {}))
                    times["direct_snapshot"].append(ms)
                    ms, res = await _timed(session.call_tool("web_snapshot", {}))
                    assert not res.is_error
                    times["mcp_snapshot"].append(ms)
                    ms, _out = await _timed(tools.acall("web_click", {"ref": direct_ref}))
                    times["direct_click"].append(ms)
                    ms, res = await _timed(session.call_tool("web_click", {"ref": mcp_ref}))
                    assert not res.is_error, _text(res)
                    times["mcp_click"].append(ms)
    finally:
        await browser.aclose()
        server.shutdown()
    medians = {k: statistics.median(v) for k, v in times.items()}
    return {"runs": runs, "median_ms": medians,
            "overhead_ms": {"snapshot": medians["mcp_snapshot"] - medians["direct_snapshot"],
                            "click": medians["mcp_click"] - medians["direct_click"]},
            "ratio": {"snapshot": medians["mcp_snapshot"] / medians["direct_snapshot"],
                      "click": medians["mcp_click"] / medians["direct_click"]}}


def _ref(outline: str) -> str:
    line = next(x for x in outline.splitlines() if 'button "Add one"' in x)
    return line.split("[ref=")[1].split("]")[0]


async def listed(tools: str) -> list[types.Tool]:
    """The tools ``webrefs mcp --tools TOOLS`` lists to the SDK's client."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "webrefs.cli", "mcp", "--tools", tools],
                                   env=dict(os.environ))
    with open(os.devnull, "w") as quiet:
        async with (stdio_client(params, errlog=quiet) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            found = (await session.list_tools()).tools
    expected = [t.name for t in mcp_tools(select_tools(ToolOptions(tools=tools)))]
    assert [t.name for t in found] == expected
    return list(found)


def report(result: dict[str, Any]) -> str:
    o, tok = result["overhead"], result["tokens"]
    d, s = tok["default"], tok["same_capabilities"]
    m = o["median_ms"]
    lines = [
        "## MCP: per-call overhead and tool-list tokens",
        "",
        "`python benchmarks/bench_mcp.py --runs 30 --write-readme` (needs Chromium). One page "
        "served from memory, opened in a browser driven through the registry in the "
        "benchmark's process and in `webrefs mcp` over stdio (the SDK's client, which checks "
        "each result against the tool's output schema); `web_snapshot` and `web_click` "
        f"alternate both ways, {o['runs']} rounds after two warm-up clicks, medians.",
        "",
        "| call | registry (`WebTools.acall`) | through MCP (stdio) | overhead | ratio |",
        "|---|---|---|---|---|",
        f"| `web_snapshot` | {m['direct_snapshot']:.1f} ms | {m['mcp_snapshot']:.1f} ms | "
        f"{o['overhead_ms']['snapshot']:+.1f} ms | {o['ratio']['snapshot']:.2f} |",
        f"| `web_click` | {m['direct_click']:.1f} ms | {m['mcp_click']:.1f} ms | "
        f"{o['overhead_ms']['click']:+.1f} ms | {o['ratio']['click']:.2f} |",
        "",
        "Tokens of the tool list (o200k_base, every `tools/list` entry as compact JSON, as the "
        "client receives it; \"model\" is what a host puts in a model's prompt: name, "
        "description, input schema). playwright-mcp's numbers are counted from the tool "
        f"list its README generates, at {PLAYWRIGHT_MCP_SOURCE}, each entry rebuilt as its "
        "server lists it; the README gives no enum values or array item schemas, so they are "
        "a lower bound (see `PLAYWRIGHT_MCP` in the script). No text of theirs is kept here.",
        "",
        "| tool list | webrefs tools | webrefs `tools/list` | of it output schemas | "
        "webrefs, model | playwright-mcp tools | playwright-mcp `tools/list` | "
        "playwright-mcp, model |",
        "|---|---|---|---|---|---|---|---|",
        f"| defaults | {d['ours_tools']} | {d['ours_list']} | "
        f"{d['ours_list'] - d['ours_list_no_output']} | {d['ours_model']} | "
        f"{d['theirs_tools']} | ≥ {d['theirs_list']} | ≥ {d['theirs_model']} |",
        f"| the same capabilities | {s['ours_tools']} | {s['ours_list']} | "
        f"{s['ours_list'] - s['ours_list_no_output']} | {s['ours_model']} | "
        f"{s['theirs_tools']} | ≥ {s['theirs_list']} | ≥ {s['theirs_model']} |",
        "",
        "The same capabilities: " + ", ".join(
            f"`{k}` = {'/'.join(f'`{p}`' for p in v)}" for k, v in SAME_CAPABILITIES.items())
        + ". webrefs' `web_get_text`, `web_go_forward` and `web_reload` have no counterpart "
        "(" + ", ".join(f"{n} {v['list']}" for n, v in tok["ours_only"].items())
        + " tokens in the list).",
        "",
        f"What a model reads of webrefs' default list is {d['ours_model'] / d['theirs_model']:.2f} "
        "of what it reads of playwright-mcp's default list (which offers more tools); for the "
        f"same capabilities it is {s['ours_model'] / s['theirs_model']:.2f} of theirs at most "
        "(their count being a lower bound): webrefs' descriptions say more (budgets, refs, "
        "what comes back, when consent is asked). The output schemas are "
        f"{d['ours_list'] - d['ours_list_no_output']} tokens of webrefs' default `tools/list`; "
        "a host keeps them to check results, and no model reads them. Over stdio MCP adds "
        f"{o['overhead_ms']['snapshot']:.1f} ms to a snapshot and "
        f"{o['overhead_ms']['click']:.1f} ms to a click (medians of one run on the shared "
        "2-core machine; a click's median moves by several milliseconds from run to run).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args(argv)

    async def run() -> dict[str, Any]:
        default, every = await listed("default"), await listed("all")
        return {"tokens": token_tables(default, every), "overhead": await overhead(args.runs)}

    result = asyncio.run(run())
    text = report(result)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    if args.write_readme:
        readme = README.read_text()
        block = f"{START}\n{text}\n{END}"
        if START in readme:
            head, rest = readme.split(START, 1)
            readme = head + block + rest.split(END, 1)[1]
        else:
            readme = readme.rstrip("\n") + "\n\n" + block + "\n"
        README.write_text(readme)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
