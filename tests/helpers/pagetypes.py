"""The labelled page-type set: which pages, where they are served, and what they are.

The labels are data (``tests/data/pagetypes.json``): for each source a page id and the type a
person gives it, or ``"none"`` when no type of ``PAGE_TYPES`` fits. Sources:

- ``builtin``: every page of the builtin eval site (paths under ``http://builtin.webrefs.test``),
- ``demo``: the demo suite's site (``http://demo.webrefs.test``),
- ``pagetypes``: the test pages of ``tests/sites/pagetypes`` (neutral file names),
- ``corpus``: saved real pages of the shared corpus, by their file name in its index. They are
  served one at a time under a neutral address (``/page/N.html``), so a file's name, which
  often says what the page is, never reaches the classifier. The corpus lives outside the
  repository (``../shared/corpus`` beside the checkout, or ``WEBREFS_CORPUS``); no page of it
  is kept here.

:func:`read_labelled` serves all of them on loopback under fixed names (Chromium's
host-resolver rules; every other host resolves to nothing) and reads each page's tree with a
real browser. :func:`score` is the measure: for each type, how often it is right where it is
printed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from webrefs import Browser
from webrefs.evals.builtin.server import BuiltinHandler
from webrefs.evals.running.sites import SiteHandler, host_resolver_rules, serve_folder
from webrefs.evals.suite.tasks import load_suite
from webrefs.models import PageTree

from tests.helpers.corpus import corpus_dir, missing_pages, serve_corpus
from tests.helpers.paths import DATA, SITES

LABELS = DATA / "pagetypes.json"
NONE = "none"
ORIGINS = {"builtin": "builtin.webrefs.test", "demo": "demo.webrefs.test",
           "pagetypes": "pages.webrefs.test", "corpus": "corpus.webrefs.test"}
PRECISION = 0.95
"""A type is printed only where it is right on at least this share of the pages."""
TABS = 4
"""Pages read at once."""


def labels() -> dict[str, dict[str, str]]:
    """``{source: {page id: label}}``."""
    data: dict[str, dict[str, str]] = json.loads(LABELS.read_text())
    return data


@dataclass
class Page:
    source: str
    id: str
    label: str
    url: str
    tree: PageTree | None = None


def missing_corpus() -> str | None:
    """Why the labelled corpus pages cannot be read, or ``None``."""
    return missing_pages(list(labels().get("corpus", {})))


@contextmanager
def read_labelled(sources: tuple[str, ...] = tuple(ORIGINS)) -> Iterator[list[Page]]:
    """Every labelled page of ``sources`` with its tree, read by a real browser."""
    table = labels()
    pages: list[Page] = []
    corpus_files = [corpus_dir() / name for name in table.get("corpus", {})]
    with ExitStack() as stack:
        ports: dict[str, int] = {}
        if "builtin" in sources:
            www = Path(load_suite("builtin").site_dir or ".")
            ports[ORIGINS["builtin"]] = stack.enter_context(serve_folder(www, BuiltinHandler))
        if "demo" in sources:
            demo = Path(load_suite("demo").site_dir or ".")
            ports[ORIGINS["demo"]] = stack.enter_context(serve_folder(demo, SiteHandler))
        if "pagetypes" in sources:
            ports[ORIGINS["pagetypes"]] = stack.enter_context(
                serve_folder(SITES / "pagetypes", SiteHandler))
        if "corpus" in sources:
            ports[ORIGINS["corpus"]] = stack.enter_context(serve_corpus(corpus_files))
        browser = Browser.launch(args=(f"--host-resolver-rules={host_resolver_rules(ports)}",))
        stack.callback(browser.close)
        for source in sources:
            for i, (page_id, label) in enumerate(table.get(source, {}).items()):
                if source == "corpus":
                    url = f"http://{ORIGINS[source]}/page/{i}.html"
                elif source == "pagetypes":
                    url = f"http://{ORIGINS[source]}/{page_id}"
                else:
                    url = f"http://{ORIGINS[source]}{page_id}"
                pages.append(Page(source, page_id, label, url))

        # a few tabs at once (tabs run concurrently on the browser's loop): most of a page's
        # time is its readiness wait, spent idle
        def read(share: list[Page]) -> None:
            tab = browser.new_tab()
            try:
                for page in share:
                    tab.goto(page.url)
                    page.tree = tab.read_tree()
            finally:
                tab.close()

        with ThreadPoolExecutor(TABS) as pool:
            for done in [pool.submit(read, pages[i::TABS]) for i in range(TABS)]:
                done.result()
        yield pages


@dataclass
class Score:
    """How the classifier did on a labelled set."""

    printed: Counter[str] = field(default_factory=Counter)
    """Pages where each type was printed."""
    right: Counter[str] = field(default_factory=Counter)
    """Of those, the pages where it was the label."""
    labelled: Counter[str] = field(default_factory=Counter)
    """Pages labelled with each type."""
    wrong: list[tuple[str, str, str, str]] = field(default_factory=list)
    """``(source, id, label, printed)`` of every page where a printed type was not the label."""
    pages: int = 0

    def precision(self, kind: str | None = None) -> float:
        printed = self.printed[kind] if kind else sum(self.printed.values())
        right = self.right[kind] if kind else sum(self.right.values())
        return right / printed if printed else 1.0

    def recall(self, kind: str) -> float:
        return self.right[kind] / self.labelled[kind] if self.labelled[kind] else 1.0


def score(results: list[tuple[str, str, str, str]]) -> Score:
    """``results``: ``(source, id, label, type given)`` per page; ``unknown`` is not printed."""
    out = Score(pages=len(results))
    for source, page_id, label, given in results:
        if label != NONE:
            out.labelled[label] += 1
        if given == "unknown":
            continue
        out.printed[given] += 1
        if given == label:
            out.right[given] += 1
        else:
            out.wrong.append((source, page_id, label, given))
    return out
