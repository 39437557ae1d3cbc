"""The ``webrefs`` command: ``doctor``, ``snapshot``, ``demo`` and ``eval``.

``demo`` and ``eval`` belong to :mod:`webrefs.evals`; this module, the application layer, only
hands their arguments on."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import sys
from collections.abc import Sequence

__all__ = ["main"]

_ENCODINGS = ("o200k_base", "cl100k_base")


def _doctor(args: argparse.Namespace) -> int:
    from .errors import WebrefsError
    from .session.launcher import find_chromium

    ok = True
    print(f"python      {platform.python_version()} ({sys.executable})")
    for dist in ("webrefs", "playwright", "pydantic", "tiktoken", "langchain-core",
                 "llama-index-core", "vcrpy"):
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "not installed"
        print(f"{dist:<18}{version}")

    try:
        executable = find_chromium(args.executable_path)
        print(f"browser     {executable}")
    except WebrefsError as exc:
        print(f"browser     MISSING: {exc}")
        return 1
    try:
        from .browser import Browser

        with Browser.launch(executable_path=executable) as browser:
            tab = browser.new_tab("data:text/html,<title>webrefs doctor</title><p>ok</p>")
            version = browser.version
            print(f"browser     starts: yes (version {version}, page title {tab.title!r})")
    except WebrefsError as exc:
        print(f"browser     starts: NO: {exc}")
        ok = False

    import tiktoken

    cache = os.environ.get("TIKTOKEN_CACHE_DIR")
    print(f"tokenizer   TIKTOKEN_CACHE_DIR={cache or '(not set)'}")
    for name in _ENCODINGS:
        try:
            tiktoken.get_encoding(name).encode("webrefs")
            print(f"tokenizer   {name}: loads")
        except Exception as exc:  # tiktoken raises plain exceptions on a failed download
            ok = False
            print(f"tokenizer   {name}: FAILS ({type(exc).__name__}). Remedy: point "
                  "TIKTOKEN_CACHE_DIR at a folder holding tiktoken's cached encoding files.")
    print("doctor      " + ("all good" if ok else "problems found (see above)"))
    return 0 if ok else 1


def _snapshot(args: argparse.Namespace) -> int:
    from .browser import Browser

    with Browser.launch() as browser:
        tab = browser.new_tab(args.url)
        snap = tab.snapshot(
            max_tokens=args.max_tokens,
            interactive_only=not args.content,
            format=args.format,
        )
        print(snap.text)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="webrefs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    doctor = sub.add_parser("doctor", help="check Python, packages, browser and tokenizer")
    doctor.add_argument("--executable-path", default=None, help="browser binary to check")
    doctor.set_defaults(func=_doctor)

    # Listed for --help only: main() hands everything after 'demo' and 'eval' to their own
    # parsers.
    sub.add_parser("demo", help="run the offline demo agent on the bundled site", add_help=False)
    sub.add_parser("eval", help="run, record, validate and compare eval suites (see 'webrefs "
                   "eval --help')", add_help=False)

    snap = sub.add_parser("snapshot", help="print the snapshot of a URL")
    snap.add_argument("url")
    snap.add_argument("--max-tokens", type=int, default=3000)
    snap.add_argument("--content", action="store_true", help="include content, not only controls")
    snap.add_argument("--format", choices=("text", "json"), default="text")
    snap.set_defaults(func=_snapshot)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        # Everything after 'demo' belongs to the demo, options included.
        from .evals.demo import main as demo_main

        code: int = demo_main(argv[1:])
        return code
    if argv[:1] == ["eval"]:
        from .evals.cli import main as eval_main

        return eval_main(argv[1:])
    args = _parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
