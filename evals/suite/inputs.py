"""Eval inputs read as data: bounded JSON files and paths confined to where they belong.

Suite files, results files and recorded pages come from anywhere (a colleague's run, a
downloaded benchmark), so each is read the same careful way:

- **JSON files** (:func:`read_json`) are refused, in one line naming the file, when they are
  larger than the reader's limit, not UTF-8, not JSON (numbers past Python's digit limit
  included), or nested deeper than :data:`MAX_DEPTH` levels: a file never ends in a
  ``RecursionError`` or ``MemoryError``.
- **Paths a suite names** (:func:`confined`) stay inside the suite's own folder
  (:func:`suite_root`): an absolute path, a ``..`` out of it, or a link that leads out is
  refused, and so is a link inside a site folder that leads out of it (:func:`site_files`).
  The site server refuses the same links at request time (``sites.SiteHandler``).
- **A site that is an installed package's folder** is found without importing the package
  (:func:`package_folder`): importing runs its code.
- **Recorded pages** (:func:`read_har`): a HAR entry whose body is in a file names a file
  beside the HAR, never elsewhere.

Every refusal is an :class:`~webrefs.errors.InvalidArgumentError` (``webrefs eval`` exits
with 2). Pure code: no browser.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError
from webrefs.errors import InvalidArgumentError

__all__ = ["MAX_DEPTH", "MAX_HAR_BYTES", "MAX_RESULTS_BYTES", "MAX_SUITE_BYTES", "confined",
           "depth_of", "inside", "package_folder", "problems", "read_har", "read_json",
           "site_files", "suite_root"]

MAX_DEPTH = 100
"""The deepest nesting of arrays and objects read from a suite, results or HAR file (a
suite nests about 8 levels deep, a results file about 10 plus what models put in tool
arguments)."""
MAX_SUITE_BYTES = 64 * 2**20
"""A suite file: MiniWoB++'s 87 tasks take 40 KB."""
MAX_RESULTS_BYTES = 256 * 2**20
"""A results file keeps every tool output (each up to 20,000 characters); a run of the
builtin suite's 48 tasks writes well under 1 MB."""
MAX_HAR_BYTES = 512 * 2**20
"""A task's recorded pages, bodies included."""


def problems(exc: ValidationError, limit: int = 3) -> str:
    """What a pydantic validation found, on one line: ``where: what`` of the first
    ``limit`` problems, and how many more there are."""
    errors = exc.errors()
    shown = []
    for err in errors[:limit]:
        where = " ".join(".".join(str(p) for p in err["loc"]).split()) or "(top)"
        shown.append(f"{where}: {' '.join(str(err['msg']).split())}")
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(shown) + more


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def depth_of(value: Any, limit: int) -> int:
    """How deep ``value`` nests lists and dicts, counted without recursion; stops counting
    past ``limit`` (returns ``limit + 1``)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return limit + 1
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_json(path: Path, what: str, *, max_bytes: int) -> Any:
    """The JSON value of the file at ``path`` (``what`` names it in errors: "Suite file")."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise InvalidArgumentError(
                f"{what} {path} is {size:,} bytes; at most {_mib(max_bytes)} is read.")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidArgumentError(f"{what} {path} cannot be read: {exc}") from None
    except MemoryError:
        raise InvalidArgumentError(f"{what} {path} is too large to read here.") from None
    try:
        data = json.loads(text)
    except RecursionError:
        data, too_deep = None, True
    except MemoryError:
        raise InvalidArgumentError(f"{what} {path} is too large to read here.") from None
    except ValueError as exc:  # JSONDecodeError, and integers past the digit limit
        raise InvalidArgumentError(f"{what} {path} is not readable JSON: "
                                   f"{' '.join(str(exc).split())}") from None
    else:
        too_deep = depth_of(data, MAX_DEPTH) > MAX_DEPTH
    if too_deep:
        raise InvalidArgumentError(
            f"{what} {path} nests arrays and objects more than {MAX_DEPTH} levels deep.")
    return data


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path`` is ``root`` or below it, both with every link followed."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def suite_root(suite_file: Path) -> Path:
    """The folder a suite may reach: the suite file's own folder (links followed). A suite
    shipped with webrefs (in its ``suites`` folder) may reach the ``webrefs.evals``
    package, where its sites are."""
    real = Path(os.path.realpath(suite_file))
    package = Path(os.path.realpath(str(resources.files("webrefs.evals"))))
    if real.parent == package / "suites":
        return package
    return real.parent


def confined(base: Path, relative: str, field: str, root: Path | None = None) -> Path:
    """``base / relative`` with every link followed, refused unless it stays in ``root``
    (``base`` when not given); ``field`` names the suite field in the message."""
    root = base if root is None else root
    if not relative or os.path.isabs(relative):
        raise InvalidArgumentError(
            f"The suite's {field} {relative!r} must be a path relative to the suite's folder.",
            hint="Put the site in a folder beside the suite file.")
    target = Path(os.path.realpath(base / relative))
    if not inside(target, root):
        raise InvalidArgumentError(
            f"The suite's {field} {relative!r} leads out of the suite's folder ({target}).",
            hint="A suite reaches only files in its own folder: put the site beside the "
                 "suite file (a copy, not a link).")
    return target


def site_files(folder: Path) -> list[Path]:
    """The files of a site folder, sorted; refused when a link in it leads out of it (links
    to folders are not followed: what they lead to inside the folder is listed anyway)."""
    files: list[Path] = []
    for base, dirs, names in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in [*dirs, *names]:
            entry = Path(base) / name
            if entry.is_symlink() and not inside(entry, folder):
                raise InvalidArgumentError(
                    f"The site folder {folder} holds a link that leads out of it: "
                    f"{entry.relative_to(folder)} -> {os.path.realpath(entry)}.",
                    hint="Copy the file into the site instead of linking to it.")
        files += [Path(base) / n for n in sorted(names) if (Path(base) / n).is_file()]
    return files


def _find_spec(fullname: str, locations: list[str] | None) -> ModuleSpec | None:
    """What the import system's finders say of ``fullname`` (under a parent package found at
    ``locations``), asked the way an import asks them, but nothing is imported."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(fullname, locations)
        except (ImportError, ValueError, TypeError):
            continue
        if spec is not None:
            return cast(ModuleSpec, spec)
    return None


def package_folder(name: str) -> Path:
    """The folder of the installed package ``name``, found without importing it (nor the
    packages above it), by the finders an import would ask (editable installs included)."""
    parts = name.split(".")
    locations: list[str] | None = None
    for i in range(len(parts)):
        spec = _find_spec(".".join(parts[:i + 1]), locations)
        if spec is None or not spec.submodule_search_locations:
            raise InvalidArgumentError(
                f"The suite's site is the Python package {name!r}, which is not installed.",
                hint=f"pip install {parts[0]}")
        locations = list(spec.submodule_search_locations)
    assert locations is not None
    return Path(os.path.realpath(locations[0]))


def read_har(path: Path) -> dict[str, Any]:
    """A HAR file of recorded pages; a body kept in a file must name a file beside it."""
    data = read_json(path, "Recorded pages", max_bytes=MAX_HAR_BYTES)
    log = data.get("log") if isinstance(data, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InvalidArgumentError(f"Recorded pages {path} are not a HAR file (no log.entries).")
    for entry in entries:
        request = entry.get("request")
        if not (isinstance(request, dict) and isinstance(request.get("method"), str)
                and isinstance(request.get("url"), str)):
            raise InvalidArgumentError(
                f"Recorded pages {path}: an entry has no request method and URL.")
        for part in ("request", "response"):
            body = entry.get(part)
            body = (body.get("content") or body.get("postData")) if isinstance(body, dict) else None
            name = body.get("_file") if isinstance(body, dict) else None
            if name is None:
                continue
            if not isinstance(name, str) or os.path.isabs(name) or not inside(
                    path.parent / name, path.parent):
                raise InvalidArgumentError(
                    f"Recorded pages {path} name a body file outside their folder: "
                    f"{str(name)[:200]!r}.")
    assert isinstance(data, dict)
    return data
