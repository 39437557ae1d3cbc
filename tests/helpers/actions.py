"""Helpers for the action tests: find refs in a snapshot by role and name, run page code."""

from __future__ import annotations

from typing import Any

from webrefs import Tab


def ref(tab: Tab, role: str, name: str) -> str:
    """The ref of the first element with ``role`` whose name starts with ``name`` in the
    latest snapshot (taking one when there is none)."""
    snap = tab.last_snapshot or tab.snapshot()
    for r, node in snap.refs.items():
        if node.role == role and node.name.startswith(name):
            return r
    raise AssertionError(f"no {role} {name!r} in snapshot:\n{snap.text}")


def js(tab: Tab, script: str, arg: Any = None) -> Any:
    """Evaluate ``script`` in the tab's page (on the browser's loop)."""
    return tab.runner.run(tab.page.evaluate(script, arg))


def text_of(tab: Tab, element_id: str) -> str:
    """``textContent`` of the element with that id."""
    return str(js(tab, "(id) => document.getElementById(id).textContent", element_id))


def opened(tab: Tab, url: str) -> Tab:
    """``tab`` at ``url`` with a snapshot taken (so refs exist)."""
    tab.goto(url)
    tab.snapshot()
    return tab
