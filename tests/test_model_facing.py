"""What a model can read names tools and arguments, never Python APIs.

Messages and hints of errors (``for_model()``), tool and argument descriptions and the prompts
are scanned for Python-looking text (``click()``, ``TabOptions.x``, ``webrefs.x``,
``Browser.connect``); remedies for the host program belong in ``host_hint``, which never
reaches the model. The source is read with ``ast``, so paths no test runs are covered too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from webrefs import Browser, errors, prompts
from webrefs.tools import TOOL_SPECS, WebTools

from tests.helpers.parsing import parse_source
from tests.helpers.paths import ROOT
from tests.helpers.server import SiteServer

PYTHON_API = re.compile(
    r"\b[A-Za-z_][\w.]*\(\)"                       # click(), webrefs.extractor_script()
    r"|\b[a-z]+_[a-z_]*\([^)]*\)"                  # new_tab(url), save_storage_state(path)
    r"|\b\w*Options\.[\w{]"                        # TabOptions.upload_roots
    r"|\bwebrefs\.\w"                               # webrefs.anything
    r"|\b(?:Browser|Tab|WebTools|WebToolkit|WebToolSpec|SafetyPolicy)\.[a-z_]"  # Browser.launch
    r"|\bawait\b"
)

SOURCES = [ROOT / "toolkit", ROOT / "adapters"]


def _strings(node: ast.AST) -> Iterator[str]:
    """The text of a string expression (f-string holes as ``{}``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        yield "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    elif isinstance(node, ast.BinOp):
        yield from _strings(node.left)
        yield from _strings(node.right)
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)


def _host_only(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Validation of options objects runs when the host builds them, never in a tool call."""
    return func.name == "__post_init__"


def model_facing_error_texts() -> list[tuple[str, str]]:
    """(where, text) of every message and ``hint=`` given to an error class in the package."""
    out: list[tuple[str, str]] = []
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            tree = parse_source(path.read_text(encoding="utf-8"))
            skip: set[int] = set()
            for fn in ast.walk(tree):
                if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and _host_only(fn):
                    skip |= {id(n) for n in ast.walk(fn)}
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or id(node) in skip:
                    continue
                f = node.func
                name = f.id if isinstance(f, ast.Name) else (
                    f.attr if isinstance(f, ast.Attribute) else "")
                if not (name.endswith("Error") and hasattr(errors, name)):
                    continue
                exprs = list(node.args[:1]) + [k.value for k in node.keywords
                                               if k.arg in ("message", "hint")]
                for expr in exprs:
                    for text in _strings(expr):
                        out.append((f"{path.relative_to(ROOT)}:{node.lineno}", text))
    return out


def test_the_scan_finds_what_it_looks_for() -> None:
    for bad in ("Use click() for buttons.", "Set TabOptions.upload_roots.",
                "Use webrefs.extractor_script", "call Browser.connect first",
                "RenderOptions.{} must be", "Open one with new_tab(url)."):
        assert PYTHON_API.search(bad), bad
    for fine in ("Use web_click for buttons.", "scope= a CSS selector", "max_tokens above 900",
                 "Call web_snapshot again.", "e.g. example.com"):
        assert not PYTHON_API.search(fine), fine
    texts = model_facing_error_texts()
    assert len(texts) > 100  # the scan sees the package's errors
    assert any("is not a ref this tab issued" in t for _, t in texts)


def test_error_messages_and_hints_name_no_python_api() -> None:
    wrong = [f"{where}: {text[:100]}" for where, text in model_facing_error_texts()
             if PYTHON_API.search(text)]
    assert not wrong, "Python API in model-facing error text (move it to host_hint):\n" + (
        "\n".join(wrong))


def test_class_level_hints_name_no_python_api() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        if isinstance(cls, type) and issubclass(cls, errors.WebrefsError):
            assert not PYTHON_API.search(cls.model_hint or ""), name
            # a default message built by the class itself (no arguments beyond the message)
            assert not PYTHON_API.search(cls("Something failed.").for_model()), name


def test_tool_words_and_prompts_name_no_python_api() -> None:
    texts: list[tuple[str, str]] = []
    for name, spec in TOOL_SPECS.items():
        texts.append((name, spec.description))
        for after in prompts.AFTER_ACTION_MODES:
            texts.append((f"{name} ({after})", spec.for_after(after).description))
        for arg, prop in spec.json_schema().get("properties", {}).items():
            texts.append((f"{name}.{arg}", str(prop.get("description", ""))))
    for mode in prompts.SYSTEM_MODES:
        for after in prompts.AFTER_ACTION_MODES:
            texts.append((f"{mode} ({after})", prompts.render_system_prompt(
                mode, page="x", tools=["web_click"], after_action=after)))
    texts.append(("action_format", prompts.action_format("web_click")))
    texts.append(("page_state", prompts.PAGE_STATE_LEFT_OUT))
    wrong = [f"{where}: {PYTHON_API.search(t).group(0)}"  # type: ignore[union-attr]
             for where, t in texts if PYTHON_API.search(t)]
    assert not wrong, wrong


# -- concrete paths through the tools --------------------------------------------------------
@pytest.fixture
def forms(browser: Browser, site: SiteServer) -> Iterator[WebTools]:
    tab = browser.new_tab(site.url("/actions/forms.html"))
    try:
        yield WebTools(tab=tab, include=("web_upload",))
    finally:
        tab.close()


def _ref(tools: WebTools, role: str, name: str) -> str:
    snap = tools.call("web_snapshot", {"interactive_only": True, "max_tokens": 4000}).artifact
    return next(r for r, n in snap.refs.items() if n.role == role and name in n.name)


def _said(tools: WebTools, tool: str, args: dict[str, object]) -> str:
    out = tools.run(tool, args)
    assert out.is_error, out.content
    err = out.artifact
    assert isinstance(err, errors.WebrefsError)
    assert not PYTHON_API.search(out.content), out.content
    if err.host_hint:
        assert err.host_hint not in out.content  # the host's remedy stays with the host
    return out.content


@pytest.mark.browser
def test_error_paths_through_the_tools_name_tools(forms: WebTools, tmp_path: Path) -> None:
    button = _ref(forms, "button", "Count")
    said = _said(forms, "web_check", {"ref": button})
    assert "[not_actionable]" in said and "web_click" in said
    said = _said(forms, "web_select", {"ref": button, "values": ["x"]})
    assert "web_click" in said or "web_fill" in said
    name = _ref(forms, "textbox", "Full name")
    said = _said(forms, "web_fill", {"ref": name, "value": "x" * 100_001})
    assert "[invalid_argument]" in said and "shorter" in said
    upload = _ref(forms, "button", "Attachment")
    (tmp_path / "a.txt").write_text("a")
    said = _said(forms, "web_upload", {"ref": upload, "paths": [str(tmp_path / "a.txt")]})
    assert "not possible here" in said
