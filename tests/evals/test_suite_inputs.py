"""A suite is data: it reaches only its own folder, and names only code it may run.

Each hostile suite is refused by ``webrefs eval`` in one line with exit code 2, before any
site is served, any browser starts or anything it names is imported; the site server
refuses links that lead out at request time too; the code a suite may name is webrefs' own
or in its folder, anything else only with ``--allow-code``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from webrefs.errors import InvalidArgumentError
from webrefs.evals.cli import main
from webrefs.evals.models.providers import policy_model
from webrefs.evals.running.episode import har_urls
from webrefs.evals.running.sites import serve_folder
from webrefs.evals.suite.codescope import CodeScope
from webrefs.evals.suite.tasks import load_suite

from tests.helpers.paths import DATA

MINI_SITE = DATA / "suites" / "mini-site"


def webrefs(*args: str, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webrefs.cli", *args], capture_output=True,
                          text=True, timeout=timeout,
                          env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})


def one_line_refusal(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """The command refused its input: exit 2, one line on stderr naming ``words``."""
    err = proc.stderr
    assert proc.returncode == 2, proc.stdout + err
    assert "Traceback" not in err + proc.stdout
    assert err.startswith("webrefs eval: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err
    return err


def suite(folder: Path, site: dict[str, Any] | None, *, name: str = "probe",
          start_url: str = "/", reference: list[dict[str, Any]] | None = None,
          goal: str = "Read the page.") -> Path:
    """A one-task suite file in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "schema": 1, "name": name,
        "tasks": [{"id": "t", "start_url": start_url, "goal": goal,
                   "success": [{"type": "answer", "contains": "hello"}],
                   "reference": reference or [{"tool": "web_get_text"}, {"answer": "hello"}]}],
    }
    if site is not None:
        data["site"] = {"origin": "http://probe.webrefs.test", **site}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- the site stays in the suite's folder ---------------------------------------------------------
def _etc(tmp: Path) -> Path:
    return suite(tmp / "s", {"folder": "/etc"})


def _absolute_inside(tmp: Path) -> Path:  # even a path that happens to be inside
    (tmp / "s" / "site").mkdir(parents=True)
    return suite(tmp / "s", {"folder": str(tmp / "s" / "site")})


def _dot_dot(tmp: Path) -> Path:
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.txt").write_text("not for the agent")
    return suite(tmp / "s", {"folder": "../outside"})


def _dot_dot_back_in(tmp: Path) -> Path:
    (tmp / "outside").mkdir()
    return suite(tmp / "s", {"folder": "../s/../outside"})


def _linked_folder(tmp: Path) -> Path:
    (tmp / "s").mkdir()
    (tmp / "s" / "site").symlink_to("/etc", target_is_directory=True)
    return suite(tmp / "s", {"folder": "site"})


def _link_in_site(tmp: Path) -> Path:
    (tmp / "s" / "site").mkdir(parents=True)
    (tmp / "s" / "site" / "index.html").write_text("<p>hello</p>")
    (tmp / "s" / "site" / "passwd.txt").symlink_to("/etc/passwd")
    return suite(tmp / "s", {"folder": "site"})


def _linked_folder_in_site(tmp: Path) -> Path:
    (tmp / "s" / "site").mkdir(parents=True)
    (tmp / "s" / "site" / "index.html").write_text("<p>hello</p>")
    (tmp / "s" / "site" / "etc").symlink_to("/etc", target_is_directory=True)
    return suite(tmp / "s", {"folder": "site"})


def _file_start_page(tmp: Path) -> Path:
    (tmp / "s" / "site").mkdir(parents=True)
    return suite(tmp / "s", {"folder": "site"}, start_url="file:///etc/passwd")


@pytest.mark.parametrize(("make", "words"), [
    (_etc, ["site.folder '/etc' must be a path relative to the suite's folder"]),
    (_absolute_inside, ["must be a path relative to the suite's folder"]),
    (_dot_dot, ["site.folder '../outside' leads out of the suite's folder"]),
    (_dot_dot_back_in, ["leads out of the suite's folder"]),
    (_linked_folder, ["site.folder 'site' leads out of the suite's folder (/etc)"]),
    (_link_in_site, ["holds a link that leads out of it: passwd.txt -> /etc/passwd"]),
    (_linked_folder_in_site, ["holds a link that leads out of it: etc -> /etc"]),
    (_file_start_page, ["not a file: URL"]),
])
def test_a_suite_reaching_out_of_its_folder_is_refused_before_anything_runs(
        tmp_path: Path, make: Any, words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    path = make(tmp_path)
    out = tmp_path / "out"
    proc = webrefs("eval", "run", "--suite", str(path), "--out", str(out), "--quiet")
    one_line_refusal(proc, *words)
    assert not out.exists()  # nothing served, nothing run, nothing written
    code = main(["validate", str(path)])  # the same through the entry point, in this process
    captured = capsys.readouterr()
    one_line_refusal(subprocess.CompletedProcess([], code, captured.out, captured.err), *words)


def test_a_site_in_the_suite_folder_loads(tmp_path: Path) -> None:
    """The same shapes, kept inside, are fine: links within the site, a folder below."""
    site = tmp_path / "s" / "pages" / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_text("<p>hello</p>")
    (site / "same.html").symlink_to(site / "index.html")
    loaded = load_suite(suite(tmp_path / "s", {"folder": "pages/site"}))
    assert loaded.site_dir == site.resolve()
    assert loaded.root == str((tmp_path / "s").resolve())


def test_the_site_server_does_not_follow_a_link_out_of_the_site(tmp_path: Path) -> None:
    """A link made after the suite loaded (or any the checks missed) is not served."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>hello</p>")
    (tmp_path / "secret.txt").write_text("the secret outside the site")
    (site / "inner.txt").symlink_to(site / "index.html")
    (site / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (site / "up").symlink_to(tmp_path, target_is_directory=True)
    with serve_folder(site) as port:
        def get(path: str) -> tuple[int, bytes]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as err:
                return err.code, b""

        assert get("/index.html") == (200, b"<p>hello</p>")
        assert get("/inner.txt") == (200, b"<p>hello</p>")  # a link within the site
        assert get("/leak.txt")[0] == 404
        assert get("/up/secret.txt")[0] == 404
        assert get("/up/")[0] == 404  # no listing of the folder above either


def _har(tmp: Path, body: dict[str, Any]) -> Path:
    har = tmp / "pages" / "t.har"
    har.parent.mkdir(parents=True, exist_ok=True)
    har.write_text(json.dumps({"log": {"entries": [{
        "request": {"method": "GET", "url": "http://probe.webrefs.test/"},
        "response": {"status": 200, "content": {"mimeType": "text/html", **body}}}]}}))
    return har


def test_recorded_pages_keep_their_body_files_beside_them(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "body.html").write_text("<p>hello</p>")
    ok = _har(tmp_path, {"_file": "body.html"})
    assert har_urls(ok) == {("GET", "http://probe.webrefs.test/")}
    for name in ("/etc/passwd", "../../etc/passwd", "sub/../../secret"):
        with pytest.raises(InvalidArgumentError, match="name a body file outside their folder"):
            har_urls(_har(tmp_path, {"_file": name}))
    (tmp_path / "pages" / "linked.html").symlink_to("/etc/passwd")
    with pytest.raises(InvalidArgumentError, match="outside their folder"):
        har_urls(_har(tmp_path, {"_file": "linked.html"}))
    (tmp_path / "pages" / "t.har").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidArgumentError, match="more than 100 levels deep"):
        har_urls(tmp_path / "pages" / "t.har")


def test_a_site_package_is_found_without_importing_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "lib" / "probe_site_pkg"
    (package / "html").mkdir(parents=True)
    (package / "html" / "index.html").write_text("<p>hello</p>")
    marker = tmp_path / "imported.marker"
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    loaded = load_suite(suite(tmp_path / "s", {"folder": "html", "package": "probe_site_pkg"}))
    assert loaded.site_dir == (package / "html").resolve()
    assert not marker.exists(), "loading the suite ran the package's code"
    assert "probe_site_pkg" not in sys.modules
    with pytest.raises(InvalidArgumentError, match="leads out of the suite's folder"):
        load_suite(suite(tmp_path / "s2", {"folder": "../..", "package": "probe_site_pkg"}))


# -- code a suite names ----------------------------------------------------------------------------
HANDLER = '''
from pathlib import Path
from webrefs.evals.running.sites import SiteHandler

Path(__file__).with_name("imported.marker").write_text("imported")


class Handler(SiteHandler):
    def do_GET(self) -> None:
        if self.path != "/hello":
            return super().do_GET()
        body = b"<title>Hello</title><p>hello from WHERE</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
'''

READ_HELLO = [{"tool": "web_get_text"},
              {"answer": {"pattern": "(hello from \\w+)", "template": "{0}"}}]


def code_suites(tmp: Path) -> dict[str, Path]:
    """Suites on one site: a handler in the suite's folder, one elsewhere on the module path
    (``PYTHONPATH=tmp/elsewhere``), and a policy naming a builtin."""
    folder = tmp / "suite"
    (folder / "site").mkdir(parents=True)
    (folder / "site" / "index.html").write_text("<p>the index</p>")
    (folder / "suite_probe_handler.py").write_text(HANDLER.replace("WHERE", "inside"))
    (tmp / "elsewhere").mkdir()
    (tmp / "elsewhere" / "outside_probe_handler.py").write_text(
        HANDLER.replace("WHERE", "outside"))
    return {
        "inside": suite(folder, {"folder": "site", "handler": "suite_probe_handler:Handler"},
                        name="inside", start_url="/hello", reference=READ_HELLO),
        "outside": suite(folder, {"folder": "site",
                                  "handler": "outside_probe_handler:Handler"},
                         name="outside", start_url="/hello", reference=READ_HELLO),
        "print": suite(folder, {"folder": "site"}, name="printing",
                       reference=[{"policy": "builtins:print"}]),
    }


def test_code_outside_webrefs_and_the_suite_folder_is_refused_before_it_is_imported(
        tmp_path: Path) -> None:
    suites = code_suites(tmp_path)
    env = {"PYTHONPATH": str(tmp_path / "elsewhere")}
    marker = tmp_path / "elsewhere" / "imported.marker"
    out = tmp_path / "out"
    proc = webrefs("eval", "run", "--suite", str(suites["outside"]), "--out", str(out),
                   "--quiet", env=env)
    one_line_refusal(proc, "site.handler 'outside_probe_handler:Handler' names Python code "
                           "outside webrefs and the suite's folder", "--allow-code")
    assert not marker.exists() and not out.exists()
    proc = webrefs("eval", "run", "--suite", str(suites["print"]), "--out", str(out), "--quiet")
    one_line_refusal(proc, "task t: reference policy 'builtins:print'")
    assert "PolicyStep" not in proc.stdout  # print was never called with the task
    proc = webrefs("eval", "validate", str(suites["outside"]), env=env)
    assert ("python code: site.handler: outside_probe_handler:Handler (outside webrefs and the "
            "suite's folder: refused without --allow-code)") in proc.stdout
    one_line_refusal(proc, "--allow-code")
    assert not marker.exists()


@pytest.mark.browser
def test_allow_code_trusts_the_suite_and_the_suite_folder_needs_no_trust(
        tmp_path: Path) -> None:
    suites = code_suites(tmp_path)
    proc = webrefs("eval", "validate", str(suites["inside"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("python code: site.handler: suite_probe_handler:Handler (a module in the suite's "
            "folder)") in proc.stdout
    assert "ok   t (1 steps)" in proc.stdout
    out = tmp_path / "out"
    proc = webrefs("eval", "run", "--suite", str(suites["outside"]), "--out", str(out),
                   "--quiet", "--allow-code", env={"PYTHONPATH": str(tmp_path / "elsewhere")})
    assert proc.returncode == 0, proc.stderr
    episode = json.loads((out / "results.json").read_text())["episodes"][0]
    assert episode["status"] == "success" and episode["answer"] == "hello from outside"


def test_the_code_scope_judges_by_where_the_module_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "suite"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "policy.py").write_text(
        "def make(task, text_actions):\n    return ('made', task.id, text_actions)\n")
    (folder / "json.py").write_text("loads = None\n")  # shadows a module already loaded
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "linked_probe_mod.py").write_text("x = 1\n")
    (folder / "linked_probe_mod.py").symlink_to(tmp_path / "elsewhere" / "linked_probe_mod.py")
    scope = CodeScope(root=folder, suite="probe")
    assert scope.where("webrefs.evals.builtin.server:BuiltinHandler") == "webrefs"
    assert scope.where("pkg.policy:make") == "suite"
    assert scope.where("builtins:print") == "outside"
    assert scope.where("os:system") == "outside"
    assert scope.where("linked_probe_mod:x") == "outside"  # a link out of the folder
    with pytest.raises(InvalidArgumentError, match="already loaded from elsewhere"):
        scope.load("json:loads", "site.handler")
    monkeypatch.delitem(sys.modules, "pkg", raising=False)
    monkeypatch.delitem(sys.modules, "pkg.policy", raising=False)
    task = load_suite(suite(folder, None, reference=[{"policy": "pkg.policy:make"}])).suite.tasks[0]
    assert policy_model(task, code=scope) == ("made", "t", False)
    assert Path(sys.modules["pkg.policy"].__file__ or "").parent == folder / "pkg"
    with pytest.raises(InvalidArgumentError, match="names Python code outside webrefs"):
        policy_model(task)  # no scope: webrefs' own modules only
    trusting = CodeScope(root=folder, allow_any=True)
    assert trusting.load("os.path:join", "site.handler") is os.path.join
