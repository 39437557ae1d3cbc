"""The layering of the package, enforced: every import (``TYPE_CHECKING`` and function-level
imports included) runs down the layers drawn in ARCHITECTURE.md, never up or sideways; no
import circles; no module reaches into another object's private attributes.

The package is read as source with ``ast`` (nothing is imported), so the rule holds for code
paths no test runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.parsing import parse_source
from tests.helpers.paths import ROOT

# The source folder of each package root, as the wheel lays it out.
SOURCES = {
    "webrefs": ROOT / "toolkit",
    "webrefs.adapters": ROOT / "adapters",
    "webrefs.evals": ROOT / "evals",
    "webrefs.prompts": ROOT / "prompts",
}

# Groups from the bottom up. A module may import modules of its own group and of lower
# layers. Groups on one layer are siblings and never import each other.
LAYERS: list[dict[str, tuple[str, ...]]] = [
    {"base": ("webrefs.errors", "webrefs.models", "webrefs.options", "webrefs._loop",
              "webrefs.prompts", "webrefs.quoting")},
    {"snapshot": ("webrefs.snapshot",), "render": ("webrefs.render",),
     "safety": ("webrefs.safety",)},
    {"session": ("webrefs.session",)},
    {"actions": ("webrefs.actions",)},
    {"front": ("webrefs.tab", "webrefs.browser")},
    {"tools": ("webrefs.tools",)},
    {"api": ("webrefs",)},
    {"adapters": ("webrefs.adapters",)},
    # The eval harness, grouped by what each part is (see ARCHITECTURE.md, "The eval
    # harness"); its front (``webrefs eval``, ``webrefs demo``) and the bundled suites'
    # code (builtin/, miniwob/) are the package's own group on top.
    {"evals.suite": ("webrefs.evals.suite",)},
    {"evals.baselines": ("webrefs.evals.baselines",),
     "evals.reports": ("webrefs.evals.reports",)},
    {"evals.models": ("webrefs.evals.models",)},
    {"evals.running": ("webrefs.evals.running",)},
    {"evals": ("webrefs.evals",)},
    {"cli": ("webrefs.cli", "webrefs.mcpconfig")},
]

# What adapters and evals may use of the core: its public API and the tool registry
# ("webrefs" is the package's own names alone, not everything under it).
PUBLIC = ("webrefs", "webrefs.errors", "webrefs.models", "webrefs.options", "webrefs.prompts",
          "webrefs.tools", "webrefs.render")
# tools/ reaches the browser only through the public Tab and Browser.
TOOLS_MAY_NOT = ("webrefs.session", "webrefs.actions", "webrefs.snapshot")


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _harness(group: str) -> bool:
    """Adapters and every group of the eval harness: above the public API."""
    return group == "adapters" or group == "evals" or group.startswith("evals.")


def _harness_may_use(group: str, target: str, t_group: str) -> bool:
    """Adapters use the public API; the eval harness also adapters and its own lower groups."""
    if target == "webrefs" or any(_within(target, p) for p in PUBLIC if p != "webrefs"):
        return True
    return group != "adapters" and (t_group == "adapters" or _harness(t_group))


def group_of(module: str) -> tuple[int, str]:
    best: tuple[int, str, int] | None = None
    for level, groups in enumerate(LAYERS):
        for name, prefixes in groups.items():
            for prefix in prefixes:
                if _within(module, prefix) and (best is None or len(prefix) > best[2]):
                    best = (level, name, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS and ARCHITECTURE.md"
    return best[0], best[1]


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool

    def tree(self) -> ast.Module:
        return parse_source(self.path.read_text(encoding="utf-8"), str(self.path))


def modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for root_name, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([root_name, *parts])
            if name in found:  # e.g. webrefs.adapters also seen under toolkit: not possible
                raise AssertionError(f"two sources for {name}")
            found[name] = Module(name, path, path.name == "__init__.py")
    return found


def imports_of(mod: Module, known: dict[str, Module]) -> set[str]:
    """Every webrefs module ``mod`` imports, resolved to the deepest known module."""
    package = mod.name if mod.is_package else mod.name.rpartition(".")[0]
    out: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != mod.name:
            out.add(target)

    for node in ast.walk(mod.tree()):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("webrefs"):
                    add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts)
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            if not source.startswith("webrefs"):
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                add(sub if sub in known else source)
    return out


MODULES = modules()
for _module in MODULES.values():  # parsed on import: see tests/helpers/parsing.py
    _module.tree()
GRAPH = {name: imports_of(mod, MODULES) for name, mod in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        group_of(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_run_down_the_layers(name: str) -> None:
    level, group = group_of(name)
    wrong = []
    for target in sorted(GRAPH[name]):
        t_level, t_group = group_of(target)
        if t_group == group:
            continue
        if t_level >= level:
            kind = "sideways" if t_level == level else "upward"
            wrong.append(f"{target} ({kind}: {group} -> {t_group})")
        elif _harness(group) and not _harness_may_use(group, target, t_group):
            wrong.append(f"{target} (adapters and evals use only the public API and tools)")
        elif group == "tools" and any(_within(target, p) for p in TOOLS_MAY_NOT):
            wrong.append(f"{target} (tools act through the public Tab and Browser only)")
    assert not wrong, f"{name} imports: " + "; ".join(wrong)


def test_no_import_circles() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    # A package's __init__ importing its own submodules is not a circle of design.
    real = [c for c in circles if not all(
        m == c[0] or _within(m, min(c, key=len)) for m in c
    ) or not any(MODULES[m].is_package for m in c)]
    assert not real, f"import circles: {real}"


def test_no_reaching_into_private_attributes() -> None:
    """``obj._name`` only on ``self``/``cls`` (or the module's own names)."""
    wrong = []
    for name, mod in MODULES.items():
        for node in ast.walk(mod.tree()):
            if not isinstance(node, ast.Attribute):
                continue
            attr = node.attr
            if not attr.startswith("_") or attr.startswith("__"):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            wrong.append(f"{name}:{node.lineno} .{attr}")
    assert not wrong, "private attributes used from outside: " + ", ".join(wrong)


def test_the_rule_catches_a_violation() -> None:
    """The check itself can fail: an import from the render layer into the session layer is
    upward for render, and adapters may not use the session engine."""
    assert group_of("webrefs.render.budget")[0] < group_of("webrefs.session.tabcore")[0]
    assert group_of("webrefs.snapshot.refs")[0] == group_of("webrefs.render.diff")[0]
    assert group_of("webrefs.snapshot.refs")[1] != group_of("webrefs.render.diff")[1]
    fake = Module("webrefs.render.fake", ROOT / "toolkit" / "render" / "fake.py", False)
    tree_source = "from ..session.tabcore import TabCore\nfrom ..snapshot import refs\n"
    parsed = {**MODULES, fake.name: fake}

    class Fake(Module):
        def tree(self) -> ast.Module:
            return parse_source(tree_source)

    found = imports_of(Fake(fake.name, fake.path, False), parsed)
    assert found == {"webrefs.session.tabcore", "webrefs.snapshot.refs"}


def test_the_harness_groups_are_ordered() -> None:
    """The eval harness's groups stand in the order ARCHITECTURE.md draws: the suite format at
    the bottom, baselines and reports beside each other, models above them, running above
    those, the commands on top; so an upward import among them is caught like any other."""
    order = ["webrefs.evals.suite.tasks", "webrefs.evals.baselines.scripted",
             "webrefs.evals.models.providers", "webrefs.evals.running.runner",
             "webrefs.evals.cli"]
    levels = [group_of(m)[0] for m in order]
    assert levels == sorted(levels) and len(set(levels)) == len(levels)
    assert group_of("webrefs.evals.reports.results")[0] == levels[1]
    assert group_of("webrefs.evals.reports.results")[1] != group_of(order[1])[1]
    assert group_of("webrefs.evals.miniwob.seeds")[1] == "evals"
    # The harness reaches the core through its public names only.
    assert _harness_may_use("evals.reports", "webrefs", "api")
    assert _harness_may_use("evals.running", "webrefs.render.tokens", "render")
    assert not _harness_may_use("evals.reports", "webrefs.session.tabcore", "session")
    assert not _harness_may_use("adapters", "webrefs.evals.suite.tasks", "evals.suite")
