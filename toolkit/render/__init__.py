"""The render layer: a :class:`~webrefs.PageTree` into the text a model reads. Pure: no
browser, no I/O.

Pipeline (:func:`render` in :mod:`.renderer`): :mod:`.layout` (which nodes, folded how) ->
:mod:`.attention` (what matters most) -> :mod:`.budget` (what fits in the token budget, and
the markers that say what was cut) -> :mod:`.outline` (the text or JSON lines). Beside it:
:mod:`.tokens` (tiktoken counting), :mod:`.pagetype` (what kind of page), :mod:`.summary`
(the tier for tiny budgets), :mod:`.diff` (what changed between two snapshots), and for
screenshots :mod:`.marks` (which refs to mark, where labels go, image size and tokens) and
:mod:`.picture` (drawing them, with Pillow).
"""

from __future__ import annotations

from .diff import diff_snapshots
from .pagetype import classify_page
from .renderer import render

__all__ = ["classify_page", "diff_snapshots", "render"]
