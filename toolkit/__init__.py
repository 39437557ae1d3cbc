"""webrefs: a browser LLM agents can read cheaply and act on precisely.

    from webrefs import Browser

    with Browser.launch() as browser:
        tab = browser.new_tab("https://example.com")
        print(tab.snapshot().text)          # - link "More information..." [ref=e1]
        print(tab.click("e1").summary())
"""

from __future__ import annotations

from .browser import Browser
from .errors import WebrefsError
from .models import ActionResult, NodeRef, PageTree, Snapshot, TextResult
from .options import RenderOptions, TabOptions
from .render.diff import diff_snapshots
from .render.pagetype import classify_page
from .render.renderer import render
from .safety import ConsentRequest, SafetyPolicy
from .session.launcher import BrowserOptions
from .snapshot.script import extractor_script, parse_snapshot_json
from .snapshot.world import IsolationWarning
from .tab import Tab
from .tools import ToolOptions, WebTools

__version__ = "0.1.0"

__all__ = [
    "ActionResult",
    "Browser",
    "BrowserOptions",
    "ConsentRequest",
    "IsolationWarning",
    "NodeRef",
    "PageTree",
    "RenderOptions",
    "SafetyPolicy",
    "Snapshot",
    "Tab",
    "TabOptions",
    "TextResult",
    "ToolOptions",
    "WebTools",
    "WebrefsError",
    "__version__",
    "classify_page",
    "diff_snapshots",
    "extractor_script",
    "parse_snapshot_json",
    "render",
]
