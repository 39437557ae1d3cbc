"""Helpers for snapshot-engine tests: run extract_page / resolve_ref on a Tab's loop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webrefs import Tab
from webrefs.models import Node, PageTree
from webrefs.snapshot.extract import extract_page
from webrefs.snapshot.refs import resolve_ref


def extract(tab: Tab, **kwargs: Any) -> PageTree:
    core = tab.core

    async def go() -> PageTree:
        return await extract_page(core.page, core.refs, dialogs=core.dialog_log, **kwargs)

    return tab.runner.run(core.call("extracting", go))


def resolve_html(tab: Tab, ref: str) -> str:
    """outerHTML of the element a ref resolves to (raises the ref errors)."""
    core = tab.core

    async def go() -> str:
        _frame, handle = await resolve_ref(core.page, core.refs, ref)
        try:
            return str(await handle.evaluate("e => e.outerHTML"))
        finally:
            await handle.dispose()

    return tab.runner.run(core.call("resolving", go))


def evaluate(tab: Tab, script: str, arg: Any = None) -> Any:
    core = tab.core
    return tab.runner.run(core.call("evaluating", lambda: core.page.evaluate(script, arg)))


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def find(tree: PageTree, *, role: str | None = None, name: str | None = None,
         tag: str | None = None) -> Node:
    hits = find_all(tree, role=role, name=name, tag=tag)
    assert hits, f"no node with role={role!r} name={name!r} tag={tag!r}"
    return hits[0]


def find_all(tree: PageTree, *, role: str | None = None, name: str | None = None,
             tag: str | None = None) -> list[Node]:
    return [
        n for n in walk(tree.root)
        if (role is None or n.role == role) and (name is None or n.name == name)
        and (tag is None or n.tag == tag)
    ]


def all_text(tree: PageTree) -> str:
    """Every string of the tree, for "never appears anywhere" checks."""
    return tree.model_dump_json()


def same(a: PageTree, b: PageTree) -> str | None:
    """None when the trees are equal (in-page time aside), else where they first differ."""
    da, db = a.model_dump(), b.model_dump()
    da["stats"].pop("js_time_ms"), db["stats"].pop("js_time_ms")
    return _first_difference(da, db, "tree")


def _first_difference(a: Any, b: Any, where: str) -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            found = _first_difference(a.get(k), b.get(k), f"{where}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items, a full read has {len(b)}: {a!r:.300} / {b!r:.300}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {a!r:.200}, a full read: {b!r:.200}"
