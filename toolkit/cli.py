"""The ``webrefs`` command: ``doctor``, ``snapshot``, ``mcp``, ``demo`` and ``eval``.

``demo`` and ``eval`` belong to :mod:`webrefs.evals` and ``mcp`` to
:mod:`webrefs.adapters.mcp` (imported only when run: it needs the ``mcp`` extra); this
module, the application layer, only hands their arguments on. Failures end in one line on
stderr saying what went wrong and what to do, with exit code 2 for bad input and 1 for
everything else; never a traceback."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from .adapters.mcp import McpOptions

__all__ = ["main"]

_ENCODINGS = ("o200k_base", "cl100k_base")


def _doctor(args: argparse.Namespace) -> int:
    from .errors import WebrefsError
    from .session.launcher import find_chromium

    ok = True
    print(f"python      {platform.python_version()} ({sys.executable})")
    for dist in ("webrefs", "playwright", "pydantic", "tiktoken", "langchain-core",
                 "llama-index-core", "vcrpy", "pillow", "mcp"):
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
        from .safety import SafetyPolicy

        # the doctor's own data: page; no model is involved
        with Browser.launch(executable_path=executable, safety=SafetyPolicy.off()) as browser:
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


_NET_ERRORS: tuple[tuple[str, str, str], ...] = (
    # (Chromium's net error name, what went wrong, what to do)
    ("ERR_CONNECTION_REFUSED", "the connection was refused",
     "check that a server is listening at that address and port, or fix the URL"),
    ("ERR_NAME_NOT_RESOLVED", "the host name could not be resolved",
     "check the spelling of the host, or your network and DNS"),
    ("ERR_INTERNET_DISCONNECTED", "there is no network connection",
     "connect to a network and try again"),
    ("ERR_CONNECTION_TIMED_OUT", "the connection timed out",
     "check that the host is reachable, or raise --timeout"),
    ("ERR_TIMED_OUT", "the server did not answer in time",
     "check that the host is reachable, or raise --timeout"),
    ("ERR_CONNECTION_RESET", "the connection was reset",
     "check the server; if it speaks plain HTTP, use http:// instead of https://"),
    ("ERR_CONNECTION_CLOSED", "the server closed the connection",
     "check the server; if it speaks plain HTTP, use http:// instead of https://"),
    ("ERR_EMPTY_RESPONSE", "the server sent no data",
     "check the server; if it speaks TLS, use https://"),
    ("ERR_SSL_PROTOCOL_ERROR", "the TLS handshake failed",
     "if the server speaks plain HTTP, use http:// instead of https://"),
    ("ERR_SSL_VERSION_OR_CIPHER_MISMATCH", "the TLS handshake failed (no common version)",
     "check the server's TLS setup, or use http:// if it speaks plain HTTP"),
    ("ERR_CERT_", "the server's TLS certificate is not trusted",
     "use a URL whose certificate is valid, or install the issuing authority"),
    ("ERR_UNSAFE_PORT", "the browser refuses that port as unsafe",
     "serve the page on another port"),
    ("ERR_TOO_MANY_REDIRECTS", "the page redirects in a loop", "check the URL or the server"),
    ("ERR_FILE_NOT_FOUND", "the file does not exist", "check the path"),
)

MIN_TOKENS = 50
"""Smallest snapshot budget the command accepts: below it not even a page summary fits."""


class _CliError(Exception):
    """A failure explained in one line; ``code`` is the exit code (2 bad input, 1 failure)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _progress(args: argparse.Namespace, text: str) -> None:
    if getattr(args, "progress", False):
        print(f"webrefs: {text}", file=sys.stderr, flush=True)


def normalize_url(url: str) -> str:
    """The URL to open: a scheme-less address (``127.0.0.1:8000/``, ``example.com``) gets
    ``http://``; an existing local file becomes a ``file://`` URL."""
    url = url.strip()
    if not url:
        raise _CliError("the URL is empty; give one such as http://127.0.0.1:8000/", 2)
    lowered = url.lower()
    if "://" in url or lowered.startswith(("about:", "data:", "file:")):
        if not lowered.startswith(("http://", "https://", "file://", "about:", "data:")):
            raise _CliError(f"cannot open {url[:200]!r}: only http://, https://, file://, "
                            "about: and data: URLs are supported", 2)
        return url
    path = Path(url).expanduser()
    if url.startswith(("/", "./", "../", "~")) or path.exists():
        if not path.exists():
            raise _CliError(f"no such file: {url[:200]}; give an existing file or a URL", 2)
        return path.resolve().as_uri()
    return "http://" + url


def _viewport(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x720")
    width, height = int(match.group(1)), int(match.group(2))
    if not (100 <= width <= 10000 and 100 <= height <= 10000):
        raise argparse.ArgumentTypeError(
            f"{text!r}: width and height must be between 100 and 10000 pixels")
    return width, height


def _net_error(url: str, net_error: str | None) -> str | None:
    """One line for a navigation failure named by a Chromium net error
    (``NavigationError.net_error``), else ``None``."""
    if not net_error:
        return None
    for name, what, remedy in _NET_ERRORS:
        if net_error.startswith(name):
            return f"cannot open {url[:200]}: {what} ({net_error}); {remedy}"
    return None


def _snapshot(args: argparse.Namespace) -> int:
    from .browser import Browser
    from .errors import (
        ActionTimeoutError,
        InvalidArgumentError,
        NavigationError,
        NoMatchError,
        TargetError,
    )
    from .options import TabOptions
    from .safety import SafetyPolicy

    url = normalize_url(args.url)
    if args.max_tokens < MIN_TOKENS:
        raise _CliError(f"--max-tokens {args.max_tokens} is too small for a snapshot; use "
                        f"at least {MIN_TOKENS} (the default is 3000)", 2)
    launch: dict[str, Any] = {
        "tab_options": TabOptions(navigation_timeout_ms=max(args.timeout, 1) * 1000),
        # a person typed this URL (file: and data: included) and reads the result; the
        # safety policy guards agents, not the command line
        "safety": SafetyPolicy.off()}
    if args.viewport is not None:
        launch["viewport"] = args.viewport
    _progress(args, "starting the browser")
    with Browser.launch(**launch) as browser:
        _progress(args, f"opening {url}")
        try:
            tab = browser.new_tab(url)
        except NavigationError as exc:
            line = _net_error(url, exc.net_error)
            raise _CliError(line) if line else exc from None
        if args.wait_for:
            _progress(args, f"waiting for {args.wait_for!r}")
            try:
                tab.wait_for(text=args.wait_for, timeout_ms=args.timeout * 1000)
            except ActionTimeoutError:
                raise _CliError(f"{args.wait_for!r} did not appear on {tab.url[:200]} within "
                                f"{args.timeout} s; check the text, or raise --timeout") from None
        _progress(args, "taking the snapshot")
        try:
            snap = tab.snapshot(
                max_tokens=args.max_tokens,
                interactive_only=not args.content,
                format=args.format,
                scope=args.scope,
            )
        except (TargetError, InvalidArgumentError) as exc:
            if args.scope is None:
                raise
            if isinstance(exc, NoMatchError):
                raise _CliError(f"--scope {args.scope!r} matched nothing on "
                                f"{tab.url[:200]}; check the CSS selector, or leave --scope out "
                                "for the whole page", 2) from None
            raise _CliError(f"--scope {args.scope!r}: {exc}", 2) from None
    if args.json:
        print(snap.model_dump_json(indent=2))
    else:
        print(snap.text)
    if snap.stats.refs_emitted == 0 and "max_tokens" in snap.stats.truncation_reasons:
        print(f"webrefs: note: --max-tokens {args.max_tokens} only fits a summary of this page; "
              "raise it to see its elements", file=sys.stderr)
    return 0


def _names(text: str | None) -> str | list[str] | None:
    """A comma-separated list of names (one name stays a string)."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    return names[0] if len(names) == 1 else names


def _secret_names(items: list[str] | None) -> dict[str, str] | None:
    """``--secret NAME=VARIABLE`` as ``{NAME: VARIABLE}``: the value is read from the
    environment variable, never given on the command line."""
    if not items:
        return None
    out: dict[str, str] = {}
    for item in items:
        name, sep, variable = item.partition("=")
        if not sep or not name.strip() or not variable.strip():
            raise _CliError(f"--secret {item[:40]!r} is not NAME=VARIABLE (the name the model "
                            "writes, and the environment variable holding the value)", 2)
        out[name.strip()] = variable.strip()
    return out


def _mcp_config(args: argparse.Namespace) -> McpOptions:
    """The server's options: the ``--config`` file, and the flags given over it."""
    from .mcpconfig import load_config, read_toml

    file = read_toml(args.config) if args.config else {}
    browser = {"headless": args.headless, "endpoint": args.browser_endpoint,
               "user_data_dir": args.profile, "storage_state": args.storage_state,
               "proxy": args.proxy, "user_agent": args.user_agent,
               "executable_path": args.executable_path,
               "args": list(args.browser_arg) if args.browser_arg else None}
    tools = {"tools": _names(args.tools), "include": _names(args.include),
             "exclude": _names(args.exclude), "max_tokens": args.max_tokens,
             "after_action": args.after_action, "vision": args.vision or None}
    for key in ("include", "exclude"):
        if isinstance(tools[key], str):
            tools[key] = [tools[key]]
    secrets = _secret_names(args.secret)
    kept = file.get("safety", {}).get("secrets") if isinstance(file.get("safety"), dict) else None
    if secrets is not None and isinstance(kept, dict):
        secrets = {**kept, **secrets}  # the file's secrets, and the flags' beside them
    safety = {"allowed_domains": _names(args.allowed_domains),
              "blocked_domains": _names(args.blocked_domains),
              "block_private_network": args.block_private_network,
              "secrets": secrets}
    for key in ("allowed_domains", "blocked_domains"):
        if isinstance(safety[key], str):
            safety[key] = [safety[key]]
    server = {"elicit": False if args.no_elicit else None, "idle_timeout_s": args.idle_timeout}
    return load_config(file, path=args.config or "the command line", browser=browser,
                       tools=tools, safety=safety, server=server)


def _mcp(args: argparse.Namespace) -> int:
    try:
        from .adapters.mcp import is_loopback, serve_http, serve_stdio
    except ImportError:
        raise _CliError("webrefs mcp needs the MCP SDK (the mcp extra): pip install "
                        "'webrefs[mcp]'", 1) from None
    options = _mcp_config(args)  # a bad file or flag fails here, before serving
    if args.http is None:
        return serve_stdio(options)
    host, port = args.http
    if options.browser.user_data_dir:
        raise _CliError("--http gives each session a browser context of its own, which a "
                        "persistent profile (--profile, user_data_dir) cannot; use stdio "
                        "for a profile, or storage_state to start sessions logged in", 2)
    if not is_loopback(host):
        if not args.allow_remote:
            raise _CliError(f"--http {host}:{port} would serve the browser to other machines; "
                            "add --allow-remote to mean it, or use 127.0.0.1", 2)
        print(f"webrefs mcp: warning: serving on {host}, which is not loopback: anyone who "
              "can reach this port drives the browser (there is no authentication)",
              file=sys.stderr, flush=True)
    return serve_http(options, host, port)


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT, e.g. 127.0.0.1:8931")
    return host.strip("[]") or "127.0.0.1", int(port)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _version() -> str:
    try:
        return importlib.metadata.version("webrefs")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout
        from . import __version__

        return __version__


_DESCRIPTION = """\
Browser tools for LLM agents, from the command line.

  webrefs doctor                    check Python, packages, browser and tokenizer
  webrefs snapshot 127.0.0.1:8000/  print the snapshot a model would read
  webrefs mcp                       serve the tools to MCP clients (stdio)
  webrefs demo                      run the offline demo agent
  webrefs eval --help               run and compare eval suites
"""


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="webrefs", description=_DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"webrefs {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    doctor = sub.add_parser("doctor", help="check Python, packages, browser and tokenizer")
    doctor.add_argument("--executable-path", default=None, help="browser binary to check")
    doctor.set_defaults(func=_doctor)

    # Listed for --help only: main() hands everything after 'demo' and 'eval' to their own
    # parsers.
    sub.add_parser("demo", help="run the offline demo agent on the bundled site", add_help=False)
    sub.add_parser("eval", help="run, record, validate and compare eval suites (see 'webrefs "
                   "eval --help')", add_help=False)

    snap = sub.add_parser(
        "snapshot", help="print the snapshot of a URL",
        description="Open a URL in a headless browser and print the snapshot a model would "
        "read. A URL without a scheme gets http://; a local file path is opened as a file.")
    snap.add_argument("url", help="the page to open, e.g. 127.0.0.1:8000/ or https://example.com")
    snap.add_argument("--max-tokens", type=int, default=3000, metavar="N",
                      help=f"token budget of the snapshot (at least {MIN_TOKENS}; default 3000)")
    snap.add_argument("--content", action="store_true", help="include content, not only controls")
    snap.add_argument("--format", choices=("text", "json"), default="text",
                      help="outline as text (what a model reads) or as JSON")
    snap.add_argument("--json", action="store_true",
                      help="print the whole snapshot object (text, refs, stats, page) as JSON")
    snap.add_argument("--scope", metavar="SELECTOR",
                      help="only the part of the page matching this CSS selector")
    snap.add_argument("--viewport", type=_viewport, metavar="WxH",
                      help="browser viewport in CSS pixels, e.g. 1280x720")
    snap.add_argument("--wait-for", metavar="TEXT",
                      help="wait until TEXT shows on the page before the snapshot")
    snap.add_argument("--timeout", type=int, default=30, metavar="SECONDS",
                      help="upper bound for loading the page and for --wait-for (default 30)")
    shown = snap.add_mutually_exclusive_group()
    shown.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="report progress on stderr (default: when stderr is a terminal)")
    shown.add_argument("--quiet", "-q", dest="progress", action="store_false",
                       help="no progress on stderr")
    snap.set_defaults(func=_snapshot)

    mcp = sub.add_parser(
        "mcp", help="serve the browser tools to MCP clients (stdio or HTTP)",
        description="An MCP server with webrefs' tools, over stdin and stdout (or streamable "
        "HTTP with --http). The browser "
        "starts on the first tool call and closes when the client goes. Needs the mcp extra "
        "(pip install 'webrefs[mcp]').")
    mcp.add_argument("--config", metavar="FILE",
                     help="a TOML file of options ([browser], [tools], [safety], [server]; "
                     "see the README); flags given here replace what it says")
    head = mcp.add_mutually_exclusive_group()
    head.add_argument("--headless", dest="headless", action="store_true", default=None,
                      help="run the browser without a window (the default)")
    head.add_argument("--headed", dest="headless", action="store_false",
                      help="show the browser window")
    mcp.add_argument("--browser-endpoint", metavar="URL",
                     help="attach to a running browser (a CDP address such as "
                     "http://127.0.0.1:9222, or a Playwright server ws://...) instead of "
                     "launching one; it is left running at the end")
    mcp.add_argument("--profile", metavar="DIR",
                     help="a persistent browser profile folder (cookies and logins are kept)")
    mcp.add_argument("--storage-state", metavar="FILE",
                     help="start from saved cookies and local storage (a file written by "
                     "Browser.save_storage_state)")
    mcp.add_argument("--proxy", metavar="URL", help="send all traffic through this proxy")
    mcp.add_argument("--user-agent", metavar="TEXT", help="the User-Agent pages see")
    mcp.add_argument("--tools", metavar="NAMES", default=None,
                     help="tools offered: 'default', 'all', a group name, or a comma-separated "
                     "list of tool and group names")
    mcp.add_argument("--include", metavar="NAMES", help="tools or groups added (comma-separated)")
    mcp.add_argument("--exclude", metavar="NAMES",
                     help="tools or groups removed (comma-separated)")
    mcp.add_argument("--max-tokens", type=int, default=None, metavar="N",
                     help="token budget of snapshots (default 3000)")
    mcp.add_argument("--after-action", choices=("none", "diff", "snapshot"), default=None,
                     help="what an action returns besides its summary (default none)")
    mcp.add_argument("--vision", action="store_true",
                     help="offer web_screenshot and points of it (needs webrefs[vision])")
    mcp.add_argument("--allowed-domains", metavar="HOSTS",
                     help="the only hosts the browser may reach (comma-separated patterns "
                     "such as example.com,*.example.com)")
    mcp.add_argument("--blocked-domains", metavar="HOSTS",
                     help="hosts the browser may never reach (comma-separated patterns)")
    private = mcp.add_mutually_exclusive_group()
    private.add_argument("--block-private-network", dest="block_private_network",
                         action="store_true", default=None,
                         help="block loopback and private addresses (off by default)")
    private.add_argument("--allow-private-network", dest="block_private_network",
                         action="store_false", help="reach loopback and private addresses")
    mcp.add_argument("--secret", action="append", metavar="NAME=VARIABLE",
                     help="a secret the model writes as <secret>NAME</secret>, its value read "
                     "from the environment variable VARIABLE (never given here; repeatable)")
    mcp.add_argument("--browser-arg", action="append", metavar="FLAG",
                     help="an extra Chromium flag, e.g. --browser-arg=--host-resolver-rules=... "
                     "(repeatable)")
    mcp.add_argument("--executable-path", default=None, help="the browser binary")
    mcp.add_argument("--http", type=_host_port, metavar="HOST:PORT",
                     help="serve over streamable HTTP at http://HOST:PORT/mcp instead of "
                     "stdio (a loopback host; each session gets its own browser context)")
    mcp.add_argument("--allow-remote", action="store_true",
                     help="let --http listen on an address that is not loopback")
    mcp.add_argument("--idle-timeout", type=float, metavar="SECONDS",
                     help="with --http: end a session that made no request for this long, "
                     "closing its browser context (default 1800)")
    mcp.add_argument("--no-elicit", action="store_true",
                     help="refuse actions that need consent instead of asking the client")
    mcp.set_defaults(func=_mcp)
    return parser


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _run(argv: list[str]) -> int:
    if argv[:1] == ["demo"]:
        # Everything after 'demo' belongs to the demo, options included.
        from .evals.demo import main as demo_main

        code: int = demo_main(argv[1:])
        return code
    if argv[:1] == ["eval"]:
        from .evals.cli import main as eval_main

        return eval_main(argv[1:])
    args = _parser().parse_args(argv)
    if getattr(args, "progress", False) is None:
        args.progress = sys.stderr.isatty()
    result: int = args.func(args)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 failure, 2 bad input)."""
    from .errors import InvalidArgumentError, WebrefsError

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(argv)
    except _CliError as exc:
        print(f"webrefs: error: {_one_line(str(exc))}", file=sys.stderr)
        return exc.code
    except WebrefsError as exc:
        # str() is the message, the hint and the host's hint: what happened and what to do.
        print(f"webrefs: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2 if isinstance(exc, InvalidArgumentError) else 1
    except KeyboardInterrupt:
        print("webrefs: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("WEBREFS_DEBUG"):
            raise
        print(f"webrefs: error: unexpected {type(exc).__name__}: "
              f"{_one_line(str(exc))[:300]}; run again with WEBREFS_DEBUG=1 to see where, "
              "and report it", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
