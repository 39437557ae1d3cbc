"""Which Python code a suite may name, judged before anything is imported.

Two suite fields name Python code as ``module:name``: ``site.handler`` (the site server's
request handler class) and a task's reference ``policy`` (a chat-model factory). Importing
a module runs it, so a name is judged by where its module is, found by the import system's
path finder without running anything:

- **webrefs' own** modules (``webrefs.evals.builtin.server:BuiltinHandler``): allowed;
- **the suite's folder**: a module or package in the folder the suite is confined to
  (:func:`~webrefs.evals.suite.inputs.suite_root`), every file of it there (links followed):
  allowed, and loaded from that folder under its own name (a module of that name loaded
  from elsewhere is a conflict, refused);
- **anything else** (``builtins:print``, an installed package, a module elsewhere on the
  path): refused, unless the run trusts the suite's code (``webrefs eval run --allow-code``,
  ``RunOptions.allow_code``); it is then imported the ordinary way.

JavaScript a suite carries (``setup`` scripts, ``js`` and ``reward`` checks) runs in the
page, inside the browser, and is not judged here.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from dataclasses import dataclass
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from webrefs.errors import InvalidArgumentError

from .inputs import inside

if TYPE_CHECKING:
    from .tasks import Suite

__all__ = ["CodeScope", "Where", "code_fields", "page_scripts"]

Where = Literal["webrefs", "suite", "outside"]

_LOADING = threading.Lock()


def _split(spec: str) -> tuple[str, str]:
    module, _, name = spec.partition(":")
    return module, name


def _specs_in(module: str, root: Path) -> list[ModuleSpec] | None:
    """The specs of ``module`` and the packages above it, found in ``root`` only (nothing
    is imported), or ``None`` when it is not there."""
    parts = module.split(".")
    locations = [str(root)]
    found: list[ModuleSpec] = []
    for i in range(len(parts)):
        spec = PathFinder.find_spec(".".join(parts[:i + 1]), locations)
        if spec is None:
            return None
        found.append(spec)
        if i < len(parts) - 1:
            if not spec.submodule_search_locations:
                return None
            locations = list(spec.submodule_search_locations)
    return found


def _spec_paths(spec: ModuleSpec) -> list[str]:
    paths = [spec.origin] if spec.origin and spec.has_location else []
    return paths + list(spec.submodule_search_locations or [])


def _module_paths(module: ModuleType) -> list[str]:
    file = getattr(module, "__file__", None)
    return ([file] if isinstance(file, str) else []) + [
        p for p in getattr(module, "__path__", []) if isinstance(p, str)]


def _all_inside(paths: list[str], root: Path) -> bool:
    return bool(paths) and all(inside(p, root) for p in paths)


@dataclass(frozen=True)
class CodeScope:
    """What code one suite may name (see the module docstring)."""

    root: Path | None = None
    """The suite's folder; ``None``: webrefs' own modules only."""
    allow_any: bool = False
    """Trust the suite's code: names outside webrefs and the suite's folder are imported."""
    suite: str = ""
    """The suite's name, for messages."""

    @property
    def _of(self) -> str:
        return f"Suite {self.suite}: " if self.suite else ""

    def where(self, spec: str) -> Where:
        """Where ``spec``'s module is, judged without importing anything."""
        module, _ = _split(spec)
        if module == "webrefs" or module.startswith("webrefs."):
            return "webrefs"
        if self.root is not None:
            specs = _specs_in(module, self.root)
            if specs and all(_all_inside(_spec_paths(s), self.root) for s in specs):
                return "suite"
        return "outside"

    def describe(self, where: Where) -> str:
        """How a validation report names ``where``."""
        if where == "webrefs":
            return "webrefs' own module"
        if where == "suite":
            return "a module in the suite's folder"
        return ("outside webrefs and the suite's folder: trusted by --allow-code"
                if self.allow_any else
                "outside webrefs and the suite's folder: refused without --allow-code")

    def check(self, spec: str, field: str) -> Where:
        """Where ``spec`` is; raises :class:`InvalidArgumentError` when it may not run."""
        where = self.where(spec)
        if where == "outside" and not self.allow_any:
            raise InvalidArgumentError(
                f"{self._of}{field} {spec!r} names Python code outside webrefs and the suite's "
                "folder; it was not imported.",
                hint="Only webrefs' modules and modules in the suite's folder are run; trust "
                     "this suite's code with --allow-code (RunOptions.allow_code in Python).")
        return where

    def load(self, spec: str, field: str) -> Any:
        """The object ``spec`` names, imported only once :meth:`check` allows it."""
        where = self.check(spec, field)
        module_name, name = _split(spec)
        try:
            if where == "suite":
                assert self.root is not None
                module = self._from_root(module_name, self.root, field, spec)
            else:
                module = importlib.import_module(module_name)
            return getattr(module, name)
        except InvalidArgumentError:
            raise
        except (ImportError, AttributeError) as exc:
            raise InvalidArgumentError(
                f"{self._of}{field} {spec!r} cannot be loaded: {exc}") from None
        except Exception as exc:  # the module's own code failed while it was imported
            first = (str(exc).strip().splitlines() or [""])[0]
            raise InvalidArgumentError(
                f"{self._of}{field} {spec!r} failed while it was imported: "
                f"{type(exc).__name__}: {first[:300]}") from None

    @staticmethod
    def _from_root(module_name: str, root: Path, field: str, spec: str) -> ModuleType:
        """Import ``module_name`` from the suite's folder under its own name."""
        top = module_name.split(".")[0]
        with _LOADING:
            present = sys.modules.get(top)
            if present is not None and not _all_inside(_module_paths(present), root):
                raise InvalidArgumentError(
                    f"{field} {spec!r}: a module named {top!r} is already loaded from "
                    "elsewhere, so the suite's own cannot be.",
                    hint="Give the suite's module a name of its own.")
            if present is None:
                found = PathFinder.find_spec(top, [str(root)])
                if found is None or found.loader is None:
                    raise ImportError(f"No module named {top!r} in the suite's folder")
                module = importlib.util.module_from_spec(found)
                sys.modules[top] = module
                try:
                    found.loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(top, None)
                    raise
            module = importlib.import_module(module_name)
        if not _all_inside(_module_paths(module), root):
            raise InvalidArgumentError(
                f"{field} {spec!r}: the module loaded is not the one in the suite's folder.")
        return module


def code_fields(suite: Suite) -> list[tuple[str, str]]:
    """``(field, module:name)`` of every field of ``suite`` that names Python code."""
    fields: list[tuple[str, str]] = []
    if suite.site is not None and suite.site.handler is not None:
        fields.append(("site.handler", suite.site.handler))
    for task in suite.tasks:
        if task.reference_policy is not None:
            fields.append((f"task {task.id}: reference policy", task.reference_policy))
    return fields


def page_scripts(suite: Suite) -> dict[str, int]:
    """How many tasks carry each kind of JavaScript run in the page (not Python code)."""
    counts = {"setup": 0, "js check": 0, "reward check": 0}
    for task in suite.tasks:
        counts["setup"] += task.setup is not None
        counts["js check"] += any(c.type == "js" for c in task.success)
        counts["reward check"] += any(c.type == "reward" for c in task.success)
    return {k: v for k, v in counts.items() if v}
