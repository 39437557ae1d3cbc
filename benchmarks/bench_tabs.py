"""What a new tab costs: open a tab, load one page in it, close it, against Playwright's own
``new_page()``, ``goto()`` and ``close()`` on a browser launched the way Playwright launches it,
measured in the same run on the same machine.

Three browsers take turns, one batch each per round:

- ``playwright``: ``chromium.launch()`` with Playwright's flags; a page per cycle;
- ``webrefs``: ``Browser.launch()``; ``new_tab``, ``goto``, ``close`` per cycle (the guard, its
  scripts and the answer to the navigation included);
- ``webrefs, popup on``: the same with the address bar's web popup left on
  (``UNSEEN_UI_DISABLED_FEATURES`` emptied), as webrefs launched before it was turned off.

Per cycle it reports the wall time (median of the batches) and the CPU the whole machine spent
(``/proc/stat``, every process: the browser, the pages' renderers, Playwright's driver and
Python), which is what a loaded machine, such as a test run on two cores, pays. Linux only.

    python benchmarks/bench_tabs.py [--rounds 5] [--cycles 20] [--json results.json]

The page is served from memory by a local server; nothing reaches the network.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright
from webrefs import Browser
from webrefs.session import launcher

PAGE = """<!doctype html><title>A form</title><style>body { font: 16px sans-serif }</style>
<main><h1>Order</h1><form><label>Name <input name="n"></label>
<label>Size <select><option>S<option>M<option>L</select></label>
<ul>""" + "".join(f"<li><a href='#i{i}'>Item {i}</a></li>" for i in range(40)) + """</ul>
<button>Send</button></form></main>"""


class _Page(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        found = self.path.split("?")[0] == "/page.html"
        data = (PAGE if found else "not found").encode()
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)  # a tab may close before its page arrived


def _busy_ticks() -> int:
    """Clock ticks the machine has spent busy (all CPUs, every process) since boot."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")  # /proc/stat counts in these ticks


async def _batch(cycle: Callable[[], Awaitable[None]], cycles: int) -> tuple[float, float]:
    """Wall ms and machine CPU ms per cycle over ``cycles`` cycles."""
    await asyncio.sleep(0.5)  # the last batch's closing work settles first
    ticks, t0 = _busy_ticks(), time.perf_counter()
    for _ in range(cycles):
        await cycle()
    wall = (time.perf_counter() - t0) * 1000 / cycles
    await asyncio.sleep(0.3)  # closing a tab goes on after close() returns: count it too
    return wall, (_busy_ticks() - ticks) * _TICK_MS / cycles


async def run(rounds: int, cycles: int, url: str) -> dict[str, Any]:
    async with async_playwright() as pw:
        peer = await pw.chromium.launch(executable_path=launcher.find_chromium())
        context = await peer.new_context()

        async def playwright_cycle() -> None:
            page = await context.new_page()
            await page.goto(url)
            await page.close()

        ours = await Browser.alaunch()
        kept = launcher.UNSEEN_UI_DISABLED_FEATURES
        launcher.UNSEEN_UI_DISABLED_FEATURES = ()
        try:
            popup = await Browser.alaunch()
        finally:
            launcher.UNSEEN_UI_DISABLED_FEATURES = kept

        def webrefs_cycle(browser: Browser) -> Callable[[], Awaitable[None]]:
            async def cycle() -> None:
                tab = await browser.anew_tab()
                result = await tab.agoto(url)
                assert result.success, result
                await tab.aclose()
            return cycle

        modes = {"playwright": playwright_cycle, "webrefs": webrefs_cycle(ours),
                 "webrefs, popup on": webrefs_cycle(popup)}
        got: dict[str, list[tuple[float, float]]] = {name: [] for name in modes}
        try:
            for cycle in modes.values():  # warm-up: first tabs, caches, compiled code
                await _batch(cycle, 2)
            for _ in range(rounds):
                for name, cycle in modes.items():
                    got[name].append(await _batch(cycle, cycles))
        finally:
            await ours.aclose()
            await popup.aclose()
            await peer.close()
    return {name: {"wall_ms": round(statistics.median(w for w, _ in xs), 1),
                   "cpu_ms": round(statistics.median(c for _, c in xs), 1),
                   "batches": [[round(w, 1), round(c, 1)] for w, c in xs]}
            for name, xs in got.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cycles", type=int, default=20, help="tabs per batch")
    parser.add_argument("--json", type=Path, default=None, help="also write results here")
    args = parser.parse_args(argv)
    if not Path("/proc/stat").exists():
        print("bench_tabs: needs Linux (/proc/stat) to count the machine's CPU", file=sys.stderr)
        return 2

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        results = asyncio.run(run(args.rounds, args.cycles,
                                  f"http://127.0.0.1:{server.server_address[1]}/page.html"))
    finally:
        server.shutdown()
    base = results["playwright"]
    print(f"{args.rounds} rounds of {args.cycles} tabs each (median of the rounds)\n")
    print("| browser | wall per tab | machine CPU per tab | wall / Playwright | "
          "CPU / Playwright |")
    print("|---|---:|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['wall_ms']} ms | {r['cpu_ms']} ms | "
              f"{r['wall_ms'] / base['wall_ms']:.2f} | {r['cpu_ms'] / base['cpu_ms']:.2f} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
