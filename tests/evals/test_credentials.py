"""Credentials in a provider's URL reach the provider and nothing the harness writes.

``--base-url http://user:pass@host/v1?api-key=...``: the user-info and key-like query values
are gone from cassettes, ``results.json``, ``report.md``, ``report.html``, the provider
table and the command's output, in every form (as given, percent-encoded, and as the base64
of the ``Basic`` header an HTTP client makes of them), while the server still gets them.
Cassettes are read as plain data whatever vcrpy is installed.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from webrefs.evals.suite.redact import redact_url, redact_urls
from webrefs.evals.suite.tasks import load_suite

from tests.helpers.openai_server import ScriptedOpenAIServer
from tests.helpers.paths import DATA

MINI = str(DATA / "suites" / "mini.json")
USER, PASSWORD, QUERY_KEY = "ada", "pw!secret:42/x", "qk-7f3a9c2e11"


@pytest.mark.parametrize(("url", "clean"), [
    ("http://user:pass@host/v1", "http://host/v1"),
    ("https://user@host:8443/v1/", "https://host:8443/v1/"),
    ("http://user:pa@ss@127.0.0.1:9/v1", "http://127.0.0.1:9/v1"),  # '@' left unencoded
    ("http://u:p%40ss%3A@[::1]:8080/v1", "http://[::1]:8080/v1"),
    ("HTTP://U:P@HOST/V1", "HTTP://HOST/V1"),
    ("user:pass@host/v1", "host/v1"),  # no scheme, as some clients take it
    ("http://host/v1?api-key=s3cret&api-version=2024-10-01",
     "http://host/v1?api-key=REDACTED&api-version=2024-10-01"),
    ("http://host/v1?key=a&alt=json&access_token=b&X-Amz-Signature=c&sig=d",
     "http://host/v1?key=REDACTED&alt=json&access_token=REDACTED&X-Amz-Signature=REDACTED"
     "&sig=REDACTED"),
    ("http://host/cb#access_token=tok&state=1", "http://host/cb#access_token=REDACTED&state=1"),
    ("http://host/v1?q=a%20b&page=2", "http://host/v1?q=a%20b&page=2"),  # untouched
    ("http://host/path@x/v1", "http://host/path@x/v1"),  # an '@' in the path is no user-info
    ("http://host", "http://host"),
])
def test_redact_url_drops_user_info_and_key_values(url: str, clean: str) -> None:
    assert redact_url(url) == clean
    assert redact_url(clean) == clean


def test_redact_urls_finds_urls_in_text_json_and_html() -> None:
    text = ('failed: POST http://u:pw@h/v1/chat?key=k1 (see "https://a:b@x.test/p"), '
            '{"base_url": "http://u:pw@h/v1"} <a href="http://u:pw@h/?token=t">x</a> '
            "http://u:pw@h/v1\\nnext")
    assert redact_urls(text) == (
        'failed: POST http://h/v1/chat?key=REDACTED (see "https://x.test/p"), '
        '{"base_url": "http://h/v1"} <a href="http://h/?token=REDACTED">x</a> '
        "http://h/v1\\nnext")
    assert redact_urls("no url here: user:pass@host") == "no url here: user:pass@host"


def forms() -> dict[str, str]:
    """Every form of the credentials that must not be written anywhere."""
    return {
        "password": PASSWORD,
        "percent-encoded password": quote(PASSWORD, safe=""),
        "base64 of the Basic header": base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode(),
        "query key": QUERY_KEY,
    }


def leaks(folder: Path, *texts: str) -> list[str]:
    found = []
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    assert files, "nothing was written (the test is void)"
    for name, secret in forms().items():
        for path in files:
            if secret.encode() in path.read_bytes():
                found.append(f"{name} in {path.relative_to(folder)}")
        for i, text in enumerate(texts):
            if secret in text:
                found.append(f"{name} in the command's output {i}")
    return found


@pytest.mark.browser
@pytest.mark.slow
def test_credentials_in_the_base_url_are_written_nowhere(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OPENAI_API_KEY": "sk-test-not-a-key-000"}
    with ScriptedOpenAIServer(load_suite(MINI).suite.tasks) as server:
        port = server.base_url.split(":")[2].split("/")[0]
        url = (f"http://{USER}:{quote(PASSWORD, safe='')}@127.0.0.1:{port}/v1"
               f"?api-key={QUERY_KEY}")
        proc = subprocess.run(
            [sys.executable, "-m", "webrefs.cli", "eval", "run", "--suite", MINI, "--task",
             "newsletter", "--provider", "openai:scripted-model", "--base-url", url, "--record",
             "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=300,
            env=env)
        sent = [h.get("Authorization", "") for h in server.headers]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "openai:scripted-model newsletter: success" in proc.stderr
    assert sent and all(h == "Basic " + forms()["base64 of the Basic header"] for h in sent), (
        "the client did not send the credentials (the test is void)")
    assert sorted(p.name for p in out.iterdir()) == ["cassettes", "pages", "report.html",
                                                     "report.md", "results.json"]
    again = subprocess.run([sys.executable, "-m", "webrefs.cli", "eval", "report", str(out)],
                           capture_output=True, text=True, timeout=120, env=env)
    assert again.returncode == 0, again.stderr
    assert leaks(out, proc.stdout, proc.stderr, again.stdout, again.stderr) == []
    results = (out / "results.json").read_text()
    assert f'"base_url": "http://127.0.0.1:{port}/v1?api-key=REDACTED"' in results


def test_a_cassette_is_read_as_data_whatever_vcrpy_is_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cassette from someone else's run (``--replay DIR``) names a Python call; vcrpy
    before its safe loader (6 and 7, which this package admits) read cassettes with PyYAML's
    full loader, which makes that call."""
    import yaml
    from vcr.serializers import yamlserializer
    from webrefs.evals.models.recording import cassette

    marker = tmp_path / "ran.marker"
    path = tmp_path / "t.yaml"
    path.write_text("interactions:\n- !!python/object/apply:builtins.exec\n"
                    f"  - open({str(marker)!r}, 'w').close()\nversion: 1\n")
    assert yaml.load(path.read_text(), Loader=yaml.Loader)["interactions"] == [None]
    assert marker.exists()  # the full loader runs it: the cassette is a real attack
    marker.unlink()
    monkeypatch.setattr(yamlserializer, "deserialize",
                        lambda text: yaml.load(text, Loader=yaml.Loader))  # as vcrpy 6 did
    with pytest.raises(ValueError, match="python/object/apply"), cassette(path, "replay"):
        pass
    assert not marker.exists()
