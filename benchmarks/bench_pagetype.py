"""How often the page-type label is right, on the labelled set of the tests.

    python benchmarks/bench_pagetype.py [--write-readme] [--json FILE]

Reads every labelled page (``tests/data/pagetypes.json``: the builtin eval site, the demo site,
the page-type test pages and saved real pages of the corpus, served under neutral addresses)
with a real browser and reports, per type, how many pages it was guessed on
(``guess_page``), how many of those were right (precision), and how many of the pages
labelled with it it found (recall); then the same for what snapshots print (``classify_page``,
which keeps only the types of ``PRINTED``). A type is printed only when its precision is at
least 95%. Needs Chromium and the corpus (``../shared/corpus`` or ``WEBREFS_CORPUS``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from webrefs.render.pagetype import PRINTED, classify_page, guess_page  # noqa: E402

from tests.helpers.pagetypes import (  # noqa: E402
    PRECISION,
    Score,
    missing_corpus,
    read_labelled,
    score,
)

README = REPO / "benchmarks" / "README.md"
START, END = "<!-- pagetype:start -->", "<!-- pagetype:end -->"


def table(measured: Score, kinds: list[str]) -> list[str]:
    lines = ["| type | guessed on | right | precision | labelled | recall | printed |",
             "|---|---|---|---|---|---|---|"]
    for kind in kinds:
        lines.append(
            f"| {kind} | {measured.printed[kind]} | {measured.right[kind]} | "
            f"{measured.precision(kind):.3f} | {measured.labelled[kind]} | "
            f"{measured.recall(kind):.3f} | {'yes' if kind in PRINTED else 'no'} |")
    return lines


def report(rows: list[tuple[str, str, str, str, str]]) -> str:
    guessed = score([(s, i, label, g) for s, i, label, g, _ in rows])
    printed = score([(s, i, label, p) for s, i, label, _, p in rows])
    sources: dict[str, int] = {}
    for s, *_ in rows:
        sources[s] = sources.get(s, 0) + 1
    kinds = sorted(set(guessed.printed) | set(guessed.labelled))
    shown = sum(printed.printed.values())
    lines = [
        f"{len(rows)} labelled pages ({', '.join(f'{n} {s}' for s, n in sources.items())}); "
        f"a type is printed when its precision on the pages it is guessed on is at least "
        f"{PRECISION:.0%}.",
        "",
        f"**What snapshots print (`page=`)**: a type on {shown} of {len(rows)} pages, right "
        f"on {sum(printed.right.values())} of them (precision {printed.precision():.3f}); "
        f"`unknown` on the others.",
        "",
        "Every type as guessed (`guess_page`), before the unreliable ones are dropped:",
        "",
        *table(guessed, kinds),
        "",
        "Printed pages that were wrong:",
        "",
        *([f"- {s} `{i}`: labelled {label}, printed {p}" for s, i, label, p in printed.wrong]
          or ["- none"]),
    ]
    return "\n".join(lines)


def write_readme(body: str) -> None:
    section = (f"{START}\n## Page types\n\n"
               "`python benchmarks/bench_pagetype.py --write-readme` (needs Chromium and the "
               "corpus). `tests/render/test_pagetype_labels.py` enforces the same threshold "
               "on the same set. Before this measure the classifier printed a type on 120 of "
               "these pages and was right on 85 (precision 0.708): the shop's home, its "
               "catalogue and category pages, the wiki's home and the inventory table were "
               "`search_engine`, contacts and every mail message `email_inbox`. Checkout, "
               "dashboard and settings have one or two pages each here: their figures say "
               "little yet.\n\n" + body + f"\n{END}")
    text = README.read_text(encoding="utf-8")
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    README.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--json", type=Path, help="keep every page's label and guesses")
    args = parser.parse_args()
    why = missing_corpus()
    if why:
        sys.exit(why)
    with read_labelled() as pages:
        rows = [(p.source, p.id, p.label, guess_page(p.tree), classify_page(p.tree))
                for p in pages if p.tree is not None]
    body = report(rows)
    print(body)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.write_readme:
        write_readme(body)


if __name__ == "__main__":
    main()
