"""The structured result of a tool, for programs: one small model per kind of artifact.

A tool's text is what a model reads; its artifact (:class:`~webrefs.Snapshot`,
:class:`~webrefs.ActionResult`, ...) is what a Python host gets. Hosts that take results as
JSON (MCP's ``structuredContent`` with an ``outputSchema``) get the compact form here: the
refs of a snapshot, what an action did, the tabs, a screenshot's geometry and marks, where a
text came from. It never repeats the text the model reads (outline, page text), so it adds
little to what a client stores, and its schemas add little to a tool list.

:func:`output_schema` is the JSON Schema of a tool's structured result (``None`` for a tool
without one: ``web_evaluate``'s value may be anything); :func:`structured` turns the
artifact of a call into a JSON object that schema accepts. Names and titles in it are the
page's strings, cleaned as the outline cleans them but not fenced: a host that shows them to
a model should use the text instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..models import ActionResult, Screenshot, Snapshot, TextResult
from .fmt import TabLine

__all__ = [
    "OUTPUT_MODELS",
    "ActionOutput",
    "RefOutput",
    "ScreenshotOutput",
    "SnapshotOutput",
    "TabsOutput",
    "TextOutput",
    "output_schema",
    "structured",
]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RefOutput(_Out):
    """One element of a snapshot that carries a ref."""

    ref: str
    role: str
    name: str = ""


class SnapshotOutput(_Out):
    """A snapshot's page and refs (the outline itself is the text)."""

    url: str
    title: str
    page_type: str
    refs: list[RefOutput]
    tokens: int
    truncated: bool


class ActionOutput(_Out):
    """What an action did (its sentence is the text)."""

    success: bool
    ref: str | None = None
    url: str
    """The page's address after the action."""
    navigated: bool = False
    new_tabs: list[str] = []
    dialogs: list[str] = []
    """Each native dialog seen, as ``type: message``."""
    safety: str | None = None
    """How the safety policy let it run (``allowed``, ``approved``), when it judged it."""


class TabsOutput(_Out):
    """The open tabs."""

    tabs: list[TabLine]


class TextOutput(_Out):
    """Where a page text came from (the text itself is the text)."""

    url: str
    ref: str | None = None
    source: str
    total_length: int
    truncated: bool


class MarkOutput(_Out):
    ref: str
    box: tuple[int, int, int, int]


class ScreenshotOutput(_Out):
    """What a screenshot shows: its size in pixels, the part of the page (CSS pixels) and
    the refs drawn on it (boxes in image pixels)."""

    url: str
    width: int
    height: int
    scale: float
    region: tuple[float, float, float, float]
    marks: list[MarkOutput]


_ACTIONS = ("web_click", "web_fill", "web_select", "web_check", "web_scroll", "web_press_key",
            "web_type", "web_wait_for", "web_navigate", "web_go_back", "web_go_forward",
            "web_reload", "web_hover", "web_drag", "web_upload")

OUTPUT_MODELS: Mapping[str, type[_Out]] = {
    "web_snapshot": SnapshotOutput,
    "web_get_text": TextOutput,
    "web_tabs": TabsOutput,
    "web_screenshot": ScreenshotOutput,
    **dict.fromkeys(_ACTIONS, ActionOutput),
}
"""The structured result of each tool that has one, by tool name."""


def _compact(schema: Any, defs: dict[str, Any]) -> Any:
    """``schema`` as few tokens say it: no titles, descriptions or defaults (every field is
    always sent, so every field is required), ``["string", "null"]`` for an optional
    string, definitions written in place."""
    if isinstance(schema, list):
        return [_compact(v, defs) for v in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _compact(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    options = schema.get("anyOf")
    if options and all(set(o) == {"type"} and isinstance(o["type"], str) for o in options):
        schema = {**{k: v for k, v in schema.items() if k != "anyOf"},
                  "type": [o["type"] for o in options]}
    out = {k: ({name: _compact(field, defs) for name, field in v.items()}
               if k == "properties" else _compact(v, defs))
           for k, v in schema.items() if k not in ("title", "description", "default", "$defs")}
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
    return out


@cache
def _schema(model: type[_Out]) -> dict[str, Any]:
    full = model.model_json_schema()
    schema: dict[str, Any] = _compact(full, full.get("$defs", {}))
    return schema


def output_schema(name: str) -> dict[str, Any] | None:
    """The JSON Schema (an object) of tool ``name``'s structured result, or ``None``."""
    model = OUTPUT_MODELS.get(name)
    return None if model is None else dict(_schema(model))


def _from(artifact: object) -> _Out | None:
    if isinstance(artifact, Snapshot):
        return SnapshotOutput(
            url=artifact.page.url, title=artifact.page.title, page_type=artifact.page.page_type,
            refs=[RefOutput(ref=r.ref, role=r.role, name=r.name)
                  for r in artifact.refs.values()],
            tokens=artifact.stats.tokens, truncated=artifact.stats.truncated)
    if isinstance(artifact, ActionResult):
        safety = artifact.safety.outcome if artifact.safety is not None else None
        return ActionOutput(
            success=artifact.success, ref=artifact.ref,
            url=artifact.url_after or artifact.url_before,
            navigated=artifact.navigated, new_tabs=list(artifact.new_tabs),
            dialogs=[f"{d.type}: {d.message}" for d in artifact.dialogs], safety=safety)
    if isinstance(artifact, TextResult):
        return TextOutput(url=artifact.url, ref=artifact.ref, source=artifact.source,
                          total_length=artifact.total_length, truncated=artifact.truncated)
    if isinstance(artifact, Screenshot):
        return ScreenshotOutput(
            url=artifact.url, width=artifact.width, height=artifact.height,
            scale=artifact.scale, region=artifact.region,
            marks=[MarkOutput(ref=m.ref, box=m.box) for m in artifact.marks])
    if isinstance(artifact, list) and all(isinstance(t, TabLine) for t in artifact):
        return TabsOutput(tabs=list(artifact))
    return None


def structured(name: str, artifact: object) -> dict[str, Any] | None:
    """The structured result of a call of tool ``name`` whose artifact is ``artifact``, as
    JSON data its :func:`output_schema` accepts; ``None`` when the tool has none."""
    model = OUTPUT_MODELS.get(name)
    if model is None:
        return None
    out = _from(artifact)
    if out is None or not isinstance(out, model):
        return None
    data: dict[str, Any] = out.model_dump(mode="json")
    return data
