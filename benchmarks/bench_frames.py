"""Reads of a page with frames: full, unchanged and after a small change, against the AI snapshot.

The corpus pages are served alone (every other request aborted), so none of them shows a
frame with content: this benchmark makes such a page. A host page (``one.test``) holds
``--same`` frames of its own origin and ``--cross`` frames of another site (``two.test``:
with site isolation, each in a renderer process of its own); every frame shows a list of
``--items`` items, each a link and a button. Everything is served by the benchmark's own
route (nothing reaches the network; the names never resolve). Per round, interleaved, as in
``bench_incremental.py``: a full read (the host's watch of every frame forgotten), a read of
the unchanged page, Playwright's ``page.aria_snapshot(mode="ai")`` of the page (frames
included), a read after a text edit in the host page, and a read after a text edit in one
cross-site frame (in a same-origin one where there is none); the best of ``--repeat`` rounds
of each.

    python benchmarks/bench_frames.py [--same 2] [--cross 2] [--items 150] [--repeat 15]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from corpus import BenchTab
from playwright.async_api import Frame, Page, Route, async_playwright
from webrefs.session.launcher import chromium_args, find_chromium
from webrefs.snapshot.extract import extract_page
from webrefs.snapshot.world import World, click_responder_js, register_engine

HOST = "http://one.test"
OTHER = "http://two.test"

_EDIT = """() => { const t = document.querySelector('li:nth-child(7) a').firstChild;
  t.data = t.data.endsWith(' (edited)') ? t.data.slice(0, -9) : t.data + ' (edited)'; }"""


def frame_page(title: str, items: int) -> str:
    rows = "".join(f'<li><a href="/item/{i}">{title} item {i}</a> <button>Save {i}</button></li>'
                   for i in range(items))
    return f"<!doctype html><title>{title}</title><h1>{title}</h1><ul>{rows}</ul>"


def host_page(same: int, cross: int, items: int) -> str:
    frames = "".join(f'<iframe src="{HOST}/frame/{i}" width="600" height="300"></iframe>'
                     for i in range(same))
    frames += "".join(f'<iframe src="{OTHER}/frame/{i}" width="600" height="300"></iframe>'
                      for i in range(cross))
    return frame_page("Host", items // 3).replace("</h1>", f"</h1>{frames}", 1)


async def serve(route: Route, pages: dict[str, str]) -> None:
    body = pages.get(route.request.url)
    if body is None:
        await route.abort()
    else:
        await route.fulfill(status=200, content_type="text/html", body=body)


async def timed(tab: BenchTab, full: bool) -> float:
    if full:
        tab.refs.kept.clear()
    t0 = time.perf_counter()
    await extract_page(tab.page, tab.refs)
    return (time.perf_counter() - t0) * 1000


async def aria(page: Page) -> float:
    t0 = time.perf_counter()
    await page.aria_snapshot(mode="ai")
    return (time.perf_counter() - t0) * 1000


def edited_frame(page: Page) -> Frame:
    children = page.frames[1:]
    return next((f for f in children if f.url.startswith(OTHER)), children[0])


async def measure(same: int, cross: int, items: int, repeat: int) -> dict[str, Any]:
    pages = {f"{HOST}/": host_page(same, cross, items)}
    for i in range(same):
        pages[f"{HOST}/frame/{i}"] = frame_page(f"Same {i}", items)
    for i in range(cross):
        pages[f"{OTHER}/frame/{i}"] = frame_page(f"Cross {i}", items)
    times: dict[str, list[float]] = {k: [] for k in ("full", "same", "aria", "host", "frame")}
    async with async_playwright() as pw:
        world = World(await register_engine(pw))
        browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_args())
        context = await browser.new_context(viewport={"width": 1280, "height": 720})
        await context.add_init_script(script=click_responder_js())
        await context.route("**/*", lambda route: serve(route, pages))
        page = await context.new_page()
        await page.goto(f"{HOST}/", wait_until="load")
        if len(page.frames) != 1 + same + cross or any(not f.url.startswith("http")
                                                       for f in page.frames):
            raise SystemExit(f"the frames did not load: {[f.url for f in page.frames]}")
        tab = BenchTab(page, world)
        for _ in range(3):  # warm-up (the direct lines find the frames' worlds)
            await timed(tab, False)
            await asyncio.sleep(0.05)
        for _ in range(repeat):
            times["full"].append(await timed(tab, True))
            times["same"].append(await timed(tab, False))
            times["aria"].append(await aria(page))
            await page.evaluate(_EDIT)
            times["host"].append(await timed(tab, False))
            await edited_frame(page).evaluate(_EDIT)
            times["frame"].append(await timed(tab, False))
        await browser.close()
    return {k: min(v) for k, v in times.items()} | {
        f"{k}_p50": statistics.median(v) for k, v in times.items()}


def report(res: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [f"A host page with {args.same} frame(s) of its origin and {args.cross} of another "
             f"site, {args.items} items each; best of {args.repeat} rounds (median in brackets).",
             "", "| read | ms | ratio to the AI snapshot | ratio to a full read |",
             "|---|---:|---:|---:|"]
    for key, label in (("aria", "Playwright's AI snapshot"), ("full", "full read"),
                       ("same", "unchanged page"), ("host", "after a text edit in the host page"),
                       ("frame", "after a text edit in one frame")):
        lines.append(f"| {label} | {res[key]:.2f} ({res[key + '_p50']:.2f}) | "
                     f"{res[key] / res['aria']:.3f} | {res[key] / res['full']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--same", type=int, default=2)
    ap.add_argument("--cross", type=int, default=2)
    ap.add_argument("--items", type=int, default=150)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    print(report(asyncio.run(measure(args.same, args.cross, args.items, args.repeat)), args))


if __name__ == "__main__":
    main()
