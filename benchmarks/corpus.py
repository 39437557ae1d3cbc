"""What the corpus benchmarks share: the saved pages, each served alone from a local route
(every other request aborted, nothing reaches the network), and the tab stand-in that
``extract_page`` reads with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route
from webrefs.session.launcher import chromium_args, find_chromium
from webrefs.snapshot.refs import RefBook
from webrefs.snapshot.world import World, click_responder_js

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
ORIGIN = "http://corpus.webrefs.test"
"""Where the pages are served from (a name only routes answer)."""


def corpus_files(corpus: Path) -> list[str]:
    """The corpus pages in index order (``INDEX.tsv``, first column)."""
    lines = (corpus / "INDEX.tsv").read_text().splitlines()[1:]
    return [line.split("\t")[0] for line in lines if line.strip()]


def serve_only(url: str, body: bytes) -> Any:
    """A route handler that answers ``url`` with ``body`` and aborts everything else."""
    async def route(r: Route) -> None:
        if r.request.url == url:
            await r.fulfill(body=body, content_type="text/html; charset=utf-8")
        else:
            await r.abort()

    return route


async def corpus_browser(pw: Playwright, *, responder: bool = False
                         ) -> tuple[Browser, BrowserContext]:
    """A Chromium and one 1280x720 context to read corpus pages in; ``responder``: with the
    page-world script webrefs' own contexts have (click listeners seen, unchanged pages
    vouched for)."""
    browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_args())
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    if responder:
        await context.add_init_script(script=click_responder_js())
    return browser, context


async def load_corpus_page(page: Page, corpus: Path, name: str) -> None:
    """Show corpus page ``name`` in ``page``, served alone, and wait for its load event."""
    url = f"{ORIGIN}/{name}"
    await page.route("**/*", serve_only(url, (corpus / name).read_bytes()))
    await page.goto(url, wait_until="load", timeout=20000)


class BenchTab:
    """What extract_page needs of a tab: its page and ref book."""

    def __init__(self, page: Page, world: World) -> None:
        self.page = page
        self.refs = RefBook(world)
