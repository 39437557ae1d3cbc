"""Click time on pages that never stop changing, against a static page, in the same run.

The live pages are the test site's ``actions/live.html`` in each of its kinds (a price moved
by a chain of timeouts every 100 ms, a clock set by an interval, a carousel moved by script, a
CSS animation whose iterations the page reports, a video whose time the page shows); the
static page is the same file with nothing moving. When the ``miniwob`` package is installed,
MiniWoB++'s ``stock-market`` page (its price drawn every 100 ms by an interval) is measured
too. Each click is a webrefs ``click`` on a button whose handler changes the page at once;
its time is the call's wall time, and the readiness reason (``quiet`` or ``max_wait``) is
counted. Median over ``--runs`` clicks per page, after one warm-up click; between clicks the
page runs by itself for ``--gap`` seconds, as it would while a model reads the result.

    python benchmarks/bench_live_settle.py [--runs 7] [--gap 1.0] [--json results.json]

Pages are served on 127.0.0.1 by a local server; nothing reaches the network.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from webrefs import Browser, Tab

HERE = Path(__file__).resolve().parent
SITE = HERE.parent / "tests" / "sites"
KINDS = ["static", "price", "clock", "carousel", "css", "video"]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _button(tab: Tab, name: str) -> str:
    snap = tab.snapshot()
    return next(r for r, n in snap.refs.items() if n.role == "button" and n.name == name)


def _summary(label: str, times: list[float], reasons: list[str]) -> dict[str, Any]:
    return {"page": label, "runs": len(times),
            "median_ms": round(statistics.median(times), 1),
            "max_ms": round(max(times), 1),
            "quiet": reasons.count("quiet"), "max_wait": reasons.count("max_wait")}


def _click(tab: Tab, ref: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = tab.click(ref)
    return (time.perf_counter() - t0) * 1000, str(r.readback.get("ready"))


def measure_site(tab: Tab, origin: str, kind: str, runs: int, gap: float) -> dict[str, Any]:
    tab.goto(f"{origin}/actions/live.html?kind={kind}")
    ref = _button(tab, "Buy")
    time.sleep(gap)
    _click(tab, ref)  # warm-up
    times: list[float] = []
    reasons: list[str] = []
    for _ in range(runs):
        time.sleep(gap)
        ms, why = _click(tab, ref)
        times.append(ms)
        reasons.append(why)
    return _summary(kind, times, reasons)


def measure_stock_market(tab: Tab, runs: int, gap: float) -> dict[str, Any] | None:
    try:
        import miniwob  # type: ignore[import-untyped]
        from webrefs.evals.miniwob.site import SETUP_JS
    except ImportError:
        return None
    server, origin = _serve(Path(miniwob.__file__).resolve().parent / "html")
    try:
        times: list[float] = []
        reasons: list[str] = []
        for i in range(runs + 1):
            # each Buy ends an episode: a new one (not timed) before every click
            tab.goto(f"{origin}/miniwob/stock-market.html")
            tab.evaluate(SETUP_JS, {"seed": i, "time_limit": False})
            ref = _button(tab, "Buy")
            time.sleep(gap)
            ms, why = _click(tab, ref)
            if i:  # the first is the warm-up
                times.append(ms)
                reasons.append(why)
        return _summary("MiniWoB++ stock-market", times, reasons)
    finally:
        server.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--gap", type=float, default=1.0)
    parser.add_argument("--json", type=Path, default=None, help="also write results here")
    args = parser.parse_args(argv)
    server, origin = _serve(SITE)
    rows: list[dict[str, Any]] = []
    try:
        with Browser.launch() as browser:
            tab = browser.new_tab()
            for kind in KINDS:
                rows.append(measure_site(tab, origin, kind, args.runs, args.gap))
            stock = measure_stock_market(tab, args.runs, args.gap)
            if stock is not None:
                rows.append(stock)
            wait_limit = tab.options.max_wait_ms
    finally:
        server.shutdown()
    print(f"wait limit {wait_limit} ms; {args.runs} clicks per page, {args.gap} s apart\n")
    print("| page | click, median | slowest | settled quiet / at the limit |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['page']} | {r['median_ms']} ms | {r['max_ms']} ms | "
              f"{r['quiet']} / {r['max_wait']} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"wait_limit_ms": wait_limit, "rows": rows}, indent=2))
    live = [r for r in rows if r["page"] != "static"]
    ok = all(r["median_ms"] <= 1500 for r in live)
    print(f"\nevery live page's median click <= 1500 ms: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
