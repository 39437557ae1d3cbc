"""Overhead of webrefs' click (target resolution, checks, readiness wait) over a bare
Playwright ``locator.click()``, measured in the same run on the same browser.

Two local pages: a static one (the click changes the DOM synchronously) and one whose click
handler updates the DOM 300 ms later. Goals: on the static page the median overhead is at most
150 ms; on the async page webrefs never returns before the update has landed.

    python benchmarks/bench_actions.py [--runs 30] [--json results.json]

Pages are served from memory by a local server; nothing reaches the network.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from webrefs import Browser, Tab

PAGES = {
    "/static.html": """<!doctype html><title>static</title><main><h1>Static</h1>
<p id="n">0</p>
<button id="go" onclick="const p = document.getElementById('n');
  p.textContent = +p.textContent + 1">Add one</button>
</main>""",
    "/async.html": """<!doctype html><title>async</title><main><h1>Async</h1>
<p id="n">0</p>
<button id="go" onclick="setTimeout(() => { const p = document.getElementById('n');
  p.textContent = +p.textContent + 1; }, 300)">Add one later</button>
</main>""",
}


class _Pages(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = PAGES.get(self.path.split("?")[0])
        data = (body or "not found").encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _count(tab: Tab) -> int:
    script = "() => +document.getElementById('n').textContent"
    return int(tab.runner.run(tab.page.evaluate(script)))


def _bare_click(tab: Tab) -> None:
    tab.runner.run(tab.page.locator("#go").click())


def _ref_of_button(tab: Tab) -> str:
    snap = tab.snapshot()
    return next(r for r, n in snap.refs.items() if n.role == "button")


def measure(tab: Tab, url: str, runs: int) -> dict[str, Any]:
    """Alternate bare and webrefs clicks; record times and whether the update had landed."""
    tab.goto(url)
    ref = _ref_of_button(tab)
    bare: list[float] = []
    ours: list[float] = []
    bare_landed = ours_landed = 0
    for _ in range(runs):
        before = _count(tab)
        t0 = time.perf_counter()
        _bare_click(tab)
        bare.append((time.perf_counter() - t0) * 1000)
        bare_landed += _count(tab) == before + 1
        time.sleep(0.4)  # let a pending async update land before the next round
        before = _count(tab)
        t0 = time.perf_counter()
        result = tab.click(ref)
        ours.append((time.perf_counter() - t0) * 1000)
        ours_landed += _count(tab) == before + 1
        assert result.success
    return {
        "url": url,
        "runs": runs,
        "bare_median_ms": round(statistics.median(bare), 1),
        "webrefs_median_ms": round(statistics.median(ours), 1),
        "overhead_median_ms": round(statistics.median(ours) - statistics.median(bare), 1),
        "webrefs_p90_ms": round(sorted(ours)[int(0.9 * (len(ours) - 1))], 1),
        "bare_update_landed": bare_landed,
        "webrefs_update_landed": ours_landed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None, help="also write results here")
    args = parser.parse_args(argv)

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with Browser.launch() as browser:
            tab = browser.new_tab()
            static = measure(tab, origin + "/static.html", args.runs)
            late = measure(tab, origin + "/async.html", args.runs)
    finally:
        server.shutdown()
    results = {"static": static, "async_300ms": late}
    print("| page | bare locator.click() | webrefs click | overhead (median) | webrefs p90 "
          "| update landed when call returned (bare / webrefs) |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['bare_median_ms']} ms | {r['webrefs_median_ms']} ms | "
              f"{r['overhead_median_ms']} ms | {r['webrefs_p90_ms']} ms | "
              f"{r['bare_update_landed']}/{r['runs']} / {r['webrefs_update_landed']}/{r['runs']} |")
    ok_static = static["overhead_median_ms"] <= 150
    ok_async = late["webrefs_update_landed"] == late["runs"]
    print(f"\nstatic overhead <= 150 ms: {'yes' if ok_static else 'NO'}; "
          f"async update always landed before webrefs returned: {'yes' if ok_async else 'NO'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok_static and ok_async else 1


if __name__ == "__main__":
    sys.exit(main())
