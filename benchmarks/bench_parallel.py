"""Two tabs driven in parallel against the same work done one tab after the other.

Each tab runs the same agent-like loop: open a page, take a snapshot, fill a field, click a
button, read the text, go to a second page and snapshot it. The sequential run does both tabs'
loops one after the other; the parallel run drives the two tabs at once from two threads
(blocking API) and from one event loop (``asyncio.gather`` over the coroutines). Goal: parallel
is not slower than sequential.

    python benchmarks/bench_parallel.py [--rounds 5] [--repeat 3] [--json results.json]

Pages are served from memory by a local server on 127.0.0.1; nothing reaches the network.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from webrefs import Browser, Tab

ROWS = "".join(f"<tr><td>Item {i}</td><td><a href='#r{i}'>open {i}</a></td></tr>"
               for i in range(300))
PAGES = {
    "/form.html": f"""<!doctype html><title>form</title><main><h1>Form</h1>
<label>Name <input id="name"></label>
<button id="go" onclick="document.getElementById('out').textContent =
  'Hello ' + document.getElementById('name').value">Greet</button>
<p id="out">nobody</p><table>{ROWS}</table></main>""",
    "/list.html": f"""<!doctype html><title>list</title><main><h1>List</h1>
<table>{ROWS}</table></main>""",
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


def _refs(tab: Tab) -> tuple[str, str]:
    snap = tab.last_snapshot
    assert snap is not None
    box = next(r for r, n in snap.refs.items() if n.role == "textbox")
    button = next(r for r, n in snap.refs.items() if n.role == "button")
    return box, button


async def _loop(tab: Tab, origin: str, rounds: int) -> None:
    for i in range(rounds):
        await tab.agoto(f"{origin}/form.html?{i}")
        await tab.asnapshot()
        box, button = _refs(tab)
        await tab.afill(box, f"tab {tab.id}")
        await tab.aclick(button)
        text = await tab.aget_text()
        assert f"Hello tab {tab.id}" in text.text
        await tab.agoto(f"{origin}/list.html?{i}")
        await tab.asnapshot()


def _blocking_loop(tab: Tab, origin: str, rounds: int) -> None:
    for i in range(rounds):
        tab.goto(f"{origin}/form.html?{i}")
        tab.snapshot()
        box, button = _refs(tab)
        tab.fill(box, f"tab {tab.id}")
        tab.click(button)
        assert f"Hello tab {tab.id}" in tab.get_text().text
        tab.goto(f"{origin}/list.html?{i}")
        tab.snapshot()


def measure(rounds: int, repeat: int) -> dict[str, Any]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{httpd.server_address[1]}"
    times: dict[str, list[float]] = {"sequential": [], "threads": [], "gather": []}
    with Browser.launch() as browser:
        tabs = [browser.new_tab(), browser.new_tab()]
        _blocking_loop(tabs[0], origin, 1)  # warm-up
        _blocking_loop(tabs[1], origin, 1)
        for _ in range(repeat):
            t0 = time.perf_counter()
            for tab in tabs:
                _blocking_loop(tab, origin, rounds)
            times["sequential"].append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            threads = [threading.Thread(target=_blocking_loop, args=(tab, origin, rounds))
                       for tab in tabs]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            times["threads"].append(time.perf_counter() - t0)

            async def both() -> None:
                await asyncio.gather(*(_loop(tab, origin, rounds) for tab in tabs))

            t0 = time.perf_counter()
            asyncio.run(both())
            times["gather"].append(time.perf_counter() - t0)
    httpd.shutdown()
    result: dict[str, Any] = {"rounds": rounds, "repeat": repeat, "seconds": times}
    result["median_s"] = {k: round(statistics.median(v), 3) for k, v in times.items()}
    seq = result["median_s"]["sequential"]
    result["ratio_parallel_over_sequential"] = {
        k: round(result["median_s"][k] / seq, 3) for k in ("threads", "gather")}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the raw results to this file")
    args = parser.parse_args()
    result = measure(args.rounds, args.repeat)
    print(json.dumps({k: v for k, v in result.items() if k != "seconds"}, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()
