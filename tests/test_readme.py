"""Every Python example in the README runs offline, as written, and prints what it claims."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_its_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index: int, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(BLOCKS[index])
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    # Each example's comments promise an output; check the promised text really appears.
    promised = re.findall(r"# (Veldmark Lighthouse was built in 1887\.)", BLOCKS[index])
    for line in promised:
        assert line in proc.stdout
    if "tab.fill(" in BLOCKS[index]:
        assert "Filled" in proc.stdout and "navigated to" in proc.stdout


def test_the_readme_suite_example_follows_the_task_format() -> None:
    import json

    from webrefs.evals.suite.tasks import Suite

    (block,) = [b for b in re.findall(r"```json\n(.*?)```", README.read_text(), re.S)
                if '"tasks"' in b]
    suite = Suite.model_validate(json.loads(block))
    assert suite.tasks[0].id == "order-brass"
    # The example is the mini test suite's task, so the test suite runs it for real.
    mini = json.loads((ROOT / "tests" / "data" / "suites" / "mini.json").read_text())
    real = next(t for t in mini["tasks"] if t["id"] == "order-brass")
    example = json.loads(block)["tasks"][0]
    assert example["goal"] == real["goal"] and example["start_url"] == real["start_url"]
    assert [s.get("tool") for s in example["reference"]] == [
        s.get("tool") for s in real["reference"]]


def test_the_readme_mcp_config_starts_webrefs_mcp() -> None:
    import json

    (block,) = [b for b in re.findall(r"```json\n(.*?)```", README.read_text(), re.S)
                if "mcpServers" in b]
    server = json.loads(block)["mcpServers"]["webrefs"]
    assert server["command"] == "webrefs" and server["args"][0] == "mcp"
    from webrefs.cli import _parser

    args = _parser().parse_args(server["args"])  # the options it gives exist
    assert args.command == "mcp"


def test_the_readme_mcp_toml_loads() -> None:
    """The README's config file example is one ``webrefs mcp --config`` accepts."""
    import tomllib

    from webrefs.mcpconfig import load_config

    (block,) = re.findall(r"```toml\n(.*?)```", README.read_text(), re.S)
    options = load_config(tomllib.loads(block), path="README",
                          environ={"SHOP_PASSWORD": "example"})
    assert options.tools.after_action == "diff"
    assert options.safety.sensitive_data == {"password": "example"}
