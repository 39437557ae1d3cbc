"""The extractor script as a string, and parsing of its output, for any host.

A host that is not Playwright (a mobile WebView, a browser extension) evaluates
``(<extractor_script()>)({...options})`` in a frame and passes the returned string to
:func:`parse_snapshot_json`. The JSON format is documented at the top of the script.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from pydantic import Field, StrictInt, ValidationError

from ..errors import SnapshotFormatError
from ..models import PageTree

__all__ = ["FORMAT_VERSION", "QuickRead", "extractor_script", "parse_snapshot_json", "quick_read"]

FORMAT_VERSION = 1
"""Version of the extractor's JSON format this package reads."""


@lru_cache(maxsize=1)
def extractor_script() -> str:
    """The extractor: a JavaScript function expression ``(opts) => string`` (doc comment first)."""
    return resources.files(__package__).joinpath("extractor.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def script_body() -> str:
    """The function expression without its leading doc comment (what Playwright evaluates)."""
    text = extractor_script()
    start = text.find("*/")
    return text[start + 2 :].strip() if text.lstrip().startswith("/*") and start >= 0 else text


def load_frame_json(text: str) -> dict[str, Any]:
    """Decode one frame's output and check its version; the raw dict for stitching."""
    if not isinstance(text, str):
        raise SnapshotFormatError(
            f"The extractor output must be a JSON string, got {type(text).__name__}."
        )
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SnapshotFormatError(f"The extractor output is not valid JSON: {exc}.") from None
    if not isinstance(data, dict):
        raise SnapshotFormatError("The extractor output must be a JSON object.")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise SnapshotFormatError(
            f"The extractor output has format version {version!r}; this webrefs reads "
            f"version {FORMAT_VERSION}.",
            host_hint="Use the script from webrefs.extractor_script() of this same webrefs "
            "version.",
        )
    if not isinstance(data.get("root"), dict):
        raise SnapshotFormatError("The extractor output has no 'root' node object.")
    return data


def tree_from_dict(data: dict[str, Any]) -> PageTree:
    """Validate a (possibly stitched) extractor dict into a :class:`PageTree`."""
    try:
        return PageTree.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise SnapshotFormatError(
            f"The extractor output does not match format version {FORMAT_VERSION}: "
            f"{first.get('msg', 'invalid')} at {where or 'top level'} "
            f"({exc.error_count()} error(s))."
        ) from None


def parse_snapshot_json(text: str) -> PageTree:
    """Build a :class:`PageTree` from one frame's extractor output, produced by any host.

    Raises :class:`~webrefs.errors.SnapshotFormatError` for malformed JSON, a wrong
    ``version`` or a shape that does not match the format.
    """
    return tree_from_dict(load_frame_json(text))


class _FrameOutput(PageTree):
    """One frame's output as it comes: a page tree plus what only the reader needs."""

    next_ref: StrictInt = Field(alias="nextRef")
    iframes: StrictInt = 0
    root_missing: bool = Field(False, alias="rootMissing")


class QuickRead:
    """A frame's output read straight from its JSON text: the tree, the frame's ref counter
    after the read, and whether ``rootSelector`` matched nothing."""

    __slots__ = ("next_ref", "root_missing", "tree")

    def __init__(self, tree: PageTree, next_ref: int, root_missing: bool) -> None:
        self.tree = tree
        self.next_ref = next_ref
        self.root_missing = root_missing


def quick_read(text: object) -> QuickRead | None:
    """One frame's output validated straight from its JSON text, with no dicts in between
    (for a page with no child frames: nothing to stitch). ``None`` when the output holds
    iframe nodes or does not validate: the general path then reads it, and says precisely
    what is wrong."""
    if not isinstance(text, str):
        return None
    try:
        out = _FrameOutput.model_validate_json(text)
    except ValidationError:
        return None
    if out.version != FORMAT_VERSION or out.iframes:
        return None
    tree = PageTree.model_construct(
        _fields_set=out.model_fields_set & set(PageTree.model_fields),
        **{name: getattr(out, name) for name in PageTree.model_fields})
    return QuickRead(tree, out.next_ref, out.root_missing)
