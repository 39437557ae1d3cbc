"""The shared corpus of saved real pages, for tests that read them in a real browser.

The corpus lives outside the repository (``../shared/corpus`` beside the checkout, or where
``WEBREFS_CORPUS`` says); no page of it is kept here. :func:`serve_corpus` serves a list of
its files on loopback under neutral addresses (``/page/N.html`` is the N-th file), so a
file's name, which often says what the page is, never reaches the page or the reader.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from webrefs.evals.running.sites import SiteHandler, serve_folder

from tests.helpers.paths import ROOT


def corpus_dir() -> Path:
    """Where the shared corpus is (``WEBREFS_CORPUS``, else ``../shared/corpus``)."""
    return Path(os.environ.get("WEBREFS_CORPUS") or ROOT.parent / "shared" / "corpus")


def corpus_index() -> list[str]:
    """Every page of the corpus, in the order of its index (``INDEX.tsv``, first column)."""
    lines = (corpus_dir() / "INDEX.tsv").read_text().splitlines()[1:]
    return [line.split("\t")[0] for line in lines if line.strip()]


def missing_pages(names: list[str]) -> str | None:
    """Why some of ``names`` cannot be read from the corpus, or ``None``."""
    where = corpus_dir()
    gone = [name for name in names if not (where / name).is_file()]
    if gone:
        return (f"{len(gone)} corpus pages are not in {where} (first: {gone[0]}); the corpus "
                "is kept beside the checkout as ../shared/corpus, or name it with "
                "WEBREFS_CORPUS")
    return None


class _CorpusHandler(SiteHandler):
    """``/page/N.html`` is the N-th file given; nothing else is served."""

    files: ClassVar[list[Path]] = []

    def do_GET(self) -> None:
        name = self.path.split("?")[0]
        if name.startswith("/page/") and name.endswith(".html"):
            try:
                body = self.files[int(name[6:-5])].read_bytes()
            except (ValueError, IndexError):
                body = b""
            if body:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        self.send_error(404)


@contextmanager
def serve_corpus(files: list[Path]) -> Iterator[int]:
    """Serve ``files`` on 127.0.0.1 (``/page/N.html`` is ``files[N]``); yields the port."""
    handler = type("Handler", (_CorpusHandler,), {"files": files})
    with serve_folder(corpus_dir(), handler) as port:
        yield port
