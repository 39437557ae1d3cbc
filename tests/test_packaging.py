"""The wheel: builds, installs into a fresh virtual environment, imports, and carries its
non-Python files (extractor script, prompt templates, eval suites, demo site)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Build from a private copy: setuptools writes build/ and *.egg-info next to the sources,
    # and another test process may be building at the same time.
    src = tmp_path_factory.mktemp("src") / "webrefs"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", ".*cache",
    ))
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out),
         str(src)],
        check=True, capture_output=True, text=True,
    )
    wheels = list(out.glob("webrefs-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "webrefs/__init__.py",
        "webrefs/py.typed",
        "webrefs/snapshot/extractor.js",
        "webrefs/session/__init__.py",
        "webrefs/snapshot/__init__.py",
        "webrefs/render/__init__.py",
        "webrefs/safety/__init__.py",
        "webrefs/tools/__init__.py",
        "webrefs/actions/__init__.py",
        "webrefs/adapters/__init__.py",
        "webrefs/prompts/__init__.py",
        "webrefs/evals/__init__.py",
    ):
        assert required in names, f"{required} missing from the wheel"
    assert any(n.startswith("webrefs/prompts/") and n.endswith((".md", ".toml")) for n in names)
    assert any(n.startswith("webrefs/evals/suites/") and n.endswith(".json") for n in names)
    assert any(n.startswith("webrefs/evals/demo_site/") for n in names)
    assert not any(n.startswith(("toolkit/", "tests/", "adapters/")) for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "webrefs = webrefs.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_wheel_installs_and_imports_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )
    # Install the wheel itself into the fresh environment (no network: --no-deps), and let
    # its dependencies come from this environment, appended after the fresh site-packages.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "-q", str(wheel)],
        check=True, capture_output=True, text=True,
    )
    (purelib / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = (
        "import importlib.resources as r, webrefs, webrefs.adapters, webrefs.prompts, "
        "webrefs.evals, webrefs.evals.cli, webrefs.evals.running.cluster\n"
        "print(webrefs.__file__)\n"
        "print(r.files('webrefs.snapshot').joinpath('extractor.js').read_text()[:20])\n"
        "print(sorted(p.name for p in r.files('webrefs.evals').joinpath('suites').iterdir()))\n"
    )
    proc = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert str(purelib) in out.splitlines()[0], "webrefs was imported from somewhere else"
    assert ".json" in out.splitlines()[-1]
    assert (venv / "bin" / "webrefs").exists()


def test_published_metadata_has_classifiers_and_no_test_tools(wheel: Path) -> None:
    import email

    archive = zipfile.ZipFile(wheel)
    name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    meta = email.message_from_bytes(archive.read(name))
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in classifiers)
    extras = set(meta.get_all("Provides-Extra") or [])
    assert {"langchain", "llamaindex", "evals", "all"} <= extras and "test" not in extras
    requires = " ".join(meta.get_all("Requires-Dist") or []).lower()
    for tool in ("pytest", "mypy", "ruff", "hypothesis", "langchain-tests", "build"):
        assert f"{tool}>" not in requires and f"{tool} " not in requires, tool
