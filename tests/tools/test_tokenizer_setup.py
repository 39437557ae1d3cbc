"""A tokenizer that cannot load fails once, when the tools are built, with the remedy for the
host; it never reaches the model as a tool error. Runs in subprocesses with an empty tiktoken
cache and every proxy variable pointing at a closed local port, so nothing can be downloaded."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers.server import SiteServer


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nobody listens on it once the socket is closed


def _offline_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "all_proxy")}
    proxy = f"http://127.0.0.1:{_closed_port()}"
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY"):
        env[name] = proxy
    env["TIKTOKEN_CACHE_DIR"] = str(cache)
    return env


_BUILD = textwrap.dedent("""
    import sys
    from webrefs import Browser, WebTools
    from webrefs.errors import TokenizerError

    with Browser.launch() as browser:
        browser.new_tab(sys.argv[1])
        for build in (lambda: WebTools(browser), lambda: WebTools.from_tab(browser.active_tab)):
            try:
                build()
            except TokenizerError as err:
                print("HOST:", str(err).replace("\\n", " "))
            else:
                print("BUILT")
        if sys.argv[2] == "langchain":
            from webrefs.adapters.langchain import WebToolkit
            try:
                WebToolkit(browser=browser)
            except TokenizerError:
                print("LANGCHAIN: TokenizerError")
        if sys.argv[2] == "llamaindex":
            from webrefs.adapters.llamaindex import WebToolSpec
            try:
                WebToolSpec(browser=browser)
            except TokenizerError:
                print("LLAMAINDEX: TokenizerError")
""")


def test_tools_fail_when_built_with_the_remedy(tmp_path: Path, site: SiteServer) -> None:
    cache = tmp_path / "empty-tiktoken-cache"
    cache.mkdir()
    for adapter in ("langchain", "llamaindex"):
        proc = subprocess.run(
            [sys.executable, "-c", _BUILD, site.url("/basic/one.html"), adapter],
            capture_output=True, text=True, timeout=120, env=_offline_env(cache),
        )
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        host = [ln for ln in lines if ln.startswith("HOST:")]
        assert len(host) == 2, proc.stdout  # WebTools(browser) and WebTools.from_tab(tab)
        for line in host:
            assert "'o200k_base' could not be loaded" in line
            assert "TIKTOKEN_CACHE_DIR" in line and "network" in line
        assert "BUILT" not in proc.stdout
        assert f"{adapter.upper()}: TokenizerError" in proc.stdout
    assert not any(cache.iterdir())  # nothing was downloaded


def test_demo_ends_on_the_tokenizer_remedy(tmp_path: Path) -> None:
    cache = tmp_path / "empty-tiktoken-cache"
    cache.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "webrefs.cli", "demo"],
        capture_output=True, text=True, timeout=180, env=_offline_env(cache),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    output = proc.stdout + proc.stderr
    assert "may not have loaded" not in output
    assert "model ->" not in proc.stdout  # no tool ran: it failed before the first call
    assert "TIKTOKEN_CACHE_DIR" in proc.stderr and "Traceback" not in output
