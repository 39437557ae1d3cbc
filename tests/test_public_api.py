"""The public API is explicit: every package has an ``__all__`` and it only names real things."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ["webrefs", "webrefs.errors", "webrefs.models", "webrefs.options", "webrefs.actions"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_explicit_and_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    for item in exported:
        assert hasattr(module, item), f"{name}.__all__ names missing {item}"


def test_top_level_contract() -> None:
    import webrefs

    for item in ("Browser", "Tab", "Snapshot", "ActionResult", "RenderOptions", "TabOptions",
                 "WebrefsError", "WebTools", "ToolOptions", "render", "extractor_script",
                 "parse_snapshot_json"):
        assert item in webrefs.__all__


def test_core_never_imports_the_extras() -> None:
    import subprocess
    import sys

    code = (
        "import sys, webrefs, webrefs.browser, webrefs.actions\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'langchain', "
        "'llama_index', 'vcr')]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
