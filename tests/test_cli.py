"""The webrefs command line."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import socket
import subprocess
import sys

import pytest
from webrefs.cli import main

from tests.helpers.server import SiteServer


def test_doctor_reports_a_working_browser_and_tokenizer() -> None:
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        pytest.fail("TIKTOKEN_CACHE_DIR is not set: run the suite through '.ci/dev test'")
    proc = subprocess.run(
        [sys.executable, "-m", "webrefs.cli", "doctor"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "starts: yes" in proc.stdout
    assert "o200k_base: loads" in proc.stdout
    assert "playwright" in proc.stdout
    assert re.search(r"^pillow +\S", proc.stdout, re.M)  # the vision extra, or "not installed"
    assert re.search(r"^mcp +\S", proc.stdout, re.M)  # the mcp extra, or "not installed"


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_demo_options_reach_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--help"])
    assert info.value.code == 0
    assert "--" in capsys.readouterr().out  # the demo's own options are listed


# -- the snapshot command: every failure is one line and an exit code, never a traceback --------

def _webrefs(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webrefs.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert lines[0].startswith("webrefs"), lines[0]
    return lines[0]


def test_version_is_printed() -> None:
    proc = _webrefs("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"webrefs {importlib.metadata.version('webrefs')}"


def test_help_has_no_restructuredtext_markup() -> None:
    for args in (("--help",), ("snapshot", "--help")):
        proc = _webrefs(*args)
        assert proc.returncode == 0, proc.stderr
        for markup in ("``", ":mod:", ":class:", ":func:", ":meth:"):
            assert markup not in proc.stdout, (args, proc.stdout)
    snap_help = _webrefs("snapshot", "--help").stdout
    for option in ("--scope", "--json", "--viewport", "--wait-for"):
        assert option in snap_help


def test_snapshot_without_a_scheme_uses_http(site: SiteServer) -> None:
    address = site.url("/basic/one.html").removeprefix("http://")
    proc = _webrefs("snapshot", address, "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert f'url={site.url("/basic/one.html")}' in proc.stdout
    assert 'link "Go to page two"' in proc.stdout


def test_snapshot_of_a_refused_connection_is_one_line_and_exit_1() -> None:
    port = _free_port()
    proc = _webrefs("snapshot", f"127.0.0.1:{port}/")
    assert proc.returncode == 1
    line = _one_error_line(proc)
    assert "refused" in line and f"127.0.0.1:{port}" in line
    assert "check that a server is listening" in line


def test_snapshot_of_https_on_a_plain_http_server_is_a_tls_error(site: SiteServer) -> None:
    proc = _webrefs("snapshot", site.url("/basic/one.html").replace("http://", "https://"))
    assert proc.returncode == 1
    line = _one_error_line(proc)
    assert "TLS" in line and "use http://" in line


def test_snapshot_with_a_budget_too_small_is_bad_input(site: SiteServer) -> None:
    proc = _webrefs("snapshot", site.url("/basic/one.html"), "--max-tokens", "5")
    assert proc.returncode == 2
    line = _one_error_line(proc)
    assert "--max-tokens 5 is too small" in line and "at least" in line
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--viewport", "wide"), "WIDTHxHEIGHT"),
        (("--max-tokens", "lots"), "invalid int value"),
        (("--scope", "#nowhere"), "matched nothing"),
    ],
)
def test_snapshot_bad_options_are_one_line_and_exit_2(
    site: SiteServer, args: tuple[str, ...], words: str
) -> None:
    proc = _webrefs("snapshot", site.url("/basic/one.html"), *args)
    assert proc.returncode == 2, proc.stderr
    assert words in _one_error_line(proc)


def test_snapshot_options_scope_viewport_wait_for_json(site: SiteServer) -> None:
    url = site.url("/config/late.html")
    proc = _webrefs("snapshot", url, "--json", "--content", "--viewport", "640x480",
                    "--wait-for", "Arrived late", "--scope", "#late", "--progress")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["page"]["url"] == url
    assert "Arrived late" in data["text"]
    assert "viewport 640x480" in data["text"]  # the page writes its viewport size late
    assert "Outside the scope" not in data["text"]
    assert set(data) >= {"text", "refs", "stats", "page"}
    progress = proc.stderr
    assert "starting the browser" in progress and "waiting for 'Arrived late'" in progress


def test_snapshot_wait_for_text_that_never_shows_is_one_line(site: SiteServer) -> None:
    proc = _webrefs("snapshot", site.url("/basic/one.html"), "--wait-for", "Never shown",
                    "--timeout", "2", "--quiet")
    assert proc.returncode == 1
    line = _one_error_line(proc)
    assert "'Never shown' did not appear" in line and "--timeout" in line
