"""Vision mode against the DOM snapshot: time and tokens per step on the builtin pages.

    python benchmarks/bench_vision.py [--rounds 5] [--write-readme]

Each distinct start page of the builtin eval suite (served on loopback, one headless
Chromium, viewport 1280 x 720 at device scale 1) is read in one run of this script, in turn,
``--rounds`` times each way, through the tool registry (``WebTools(vision=True)``), as a model
would call it:

- ``web_snapshot`` (default 3000-token budget): wall time of the call; tokens of its text
  (o200k_base, ``webrefs.render.tokens.count_tokens``).
- ``web_screenshot`` with marks: wall time of the call (a snapshot for the boxes, the
  capture, downscaling, drawing); the image's estimated tokens per provider family
  (``webrefs.render.marks.image_tokens``) plus the tokens of the text beside it.
- ``web_screenshot`` with ``marks=false``: the same without drawing (what marks cost).

Medians over the rounds; the page order is the same in each round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from webrefs import Browser
from webrefs.evals.running.sites import host_resolver_rules, load_handler, origin_host, serve_folder
from webrefs.evals.suite.tasks import load_suite
from webrefs.models import Screenshot
from webrefs.render.tokens import count_tokens
from webrefs.tools import WebTools

README = Path(__file__).resolve().parent / "README.md"
START, END = "<!-- vision:start -->", "<!-- vision:end -->"


async def _timed(tools: WebTools, name: str, args: dict[str, Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = await tools.acall(name, args)
    return (time.perf_counter() - t0) * 1000, out


async def measure(rounds: int) -> list[dict[str, Any]]:
    loaded = load_suite("builtin")
    site = loaded.suite.site
    assert site is not None and loaded.site_dir is not None
    pages = sorted({t.start_url for t in loaded.suite.tasks})
    rows: dict[str, dict[str, list[float]]] = {p: {} for p in pages}
    with serve_folder(loaded.site_dir, load_handler(site.handler)) as port:
        rules = host_resolver_rules({origin_host(site.origin): port})
        browser = await Browser.alaunch(headless=True, args=(f"--host-resolver-rules={rules}",))
        try:
            ctx = await browser.anew_context()
            tools = WebTools(ctx, vision=True)
            for _ in range(rounds):
                for page in pages:
                    await tools.acall("web_navigate", {"url": site.origin + page})
                    row = rows[page]
                    ms, snap = await _timed(tools, "web_snapshot", {})
                    row.setdefault("snapshot_ms", []).append(ms)
                    row.setdefault("snapshot_tokens", []).append(count_tokens(snap.content))
                    ms, out = await _timed(tools, "web_screenshot", {})
                    shot: Screenshot = out.artifact
                    row.setdefault("marks_ms", []).append(ms)
                    row.setdefault("marks", []).append(len(shot.marks))
                    row.setdefault("caption_tokens", []).append(count_tokens(out.content))
                    for family, n in shot.tokens.items():
                        row.setdefault(f"image_{family}", []).append(n)
                    ms, _ = await _timed(tools, "web_screenshot", {"marks": False})
                    row.setdefault("plain_ms", []).append(ms)
            await ctx.aclose()
        finally:
            await browser.aclose()
    return [{"page": p, **{k: statistics.median(v) for k, v in r.items()}}
            for p, r in rows.items()]


def table(rows: list[dict[str, Any]], rounds: int) -> str:
    head = ("| page | snapshot ms | snapshot tokens | screenshot+marks ms | plain screenshot ms "
            "| marks | image tokens Anthropic / OpenAI / Gemini | caption tokens |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|\n")
    lines = [f"| `{r['page']}` | {r['snapshot_ms']:.0f} | {r['snapshot_tokens']:.0f} | "
             f"{r['marks_ms']:.0f} | {r['plain_ms']:.0f} | {r['marks']:.0f} | "
             f"{r['image_anthropic']:.0f} / {r['image_openai']:.0f} / {r['image_google']:.0f} | "
             f"{r['caption_tokens']:.0f} |" for r in rows]
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0] if k != "page"}
    lines.append(f"| **median of pages** | {med['snapshot_ms']:.0f} | "
                 f"{med['snapshot_tokens']:.0f} | {med['marks_ms']:.0f} | {med['plain_ms']:.0f} "
                 f"| {med['marks']:.0f} | {med['image_anthropic']:.0f} / "
                 f"{med['image_openai']:.0f} / {med['image_google']:.0f} | "
                 f"{med['caption_tokens']:.0f} |")
    return (f"Medians of {rounds} rounds, {len(rows)} builtin pages, one run.\n\n"
            + head + "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args()
    rows = asyncio.run(measure(args.rounds))
    text = table(rows, args.rounds)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    if args.write_readme:
        readme = README.read_text(encoding="utf-8")
        if START in readme:
            before, rest = readme.split(START, 1)
            after = rest.split(END, 1)[1]
            readme = f"{before}{START}\n{text}{END}{after}"
            README.write_text(readme, encoding="utf-8")


if __name__ == "__main__":
    main()
