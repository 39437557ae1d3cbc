"""Argument models of the webrefs tools: one pydantic model per tool (the public contract).

Field descriptions come from ``webrefs.prompts`` (``tools.toml``), the single source of the
words a model reads; the names, types and defaults live here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ..prompts import arg_description

__all__ = [
    "ARGS_MODELS",
    "VISION_ARGS_MODELS",
    "CheckArgs",
    "ClickArgs",
    "ClickPointArgs",
    "DragArgs",
    "DragPointArgs",
    "EvaluateArgs",
    "FillArgs",
    "GetTextArgs",
    "GoBackArgs",
    "GoForwardArgs",
    "HoverArgs",
    "HoverPointArgs",
    "NavigateArgs",
    "PressKeyArgs",
    "ReloadArgs",
    "ScreenshotArgs",
    "ScrollArgs",
    "SelectArgs",
    "SnapshotArgs",
    "TabsArgs",
    "TypeArgs",
    "UploadArgs",
    "WaitForArgs",
]


def _doc(tool: str, arg: str) -> str:
    return arg_description(tool, arg)


def _as_list(value: Any) -> Any:
    """Models often send a single item as a bare string."""
    return [value] if isinstance(value, str) else value


StrList = Annotated[list[str], BeforeValidator(_as_list)]
"""A list of strings that also accepts one string."""


def _drop_property_titles(schema: dict[str, Any]) -> None:
    """Property titles only repeat the names; leaving them out saves tokens and gives every
    adapter the same schema."""
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class _Args(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_extra=_drop_property_titles
    )


class SnapshotArgs(_Args):
    interactive_only: bool = Field(True, description=_doc("web_snapshot", "interactive_only"))
    scope: str | None = Field(None, description=_doc("web_snapshot", "scope"))
    max_tokens: int | None = Field(None, ge=50, description=_doc("web_snapshot", "max_tokens"))
    changes_only: bool = Field(False, description=_doc("web_snapshot", "changes_only"))


class ClickArgs(_Args):
    ref: str = Field(description=_doc("web_click", "ref"), min_length=1)


class FillArgs(_Args):
    ref: str = Field(description=_doc("web_fill", "ref"), min_length=1)
    value: str = Field(description=_doc("web_fill", "value"))


class SelectArgs(_Args):
    ref: str = Field(description=_doc("web_select", "ref"), min_length=1)
    values: StrList = Field(description=_doc("web_select", "values"), min_length=1)


class CheckArgs(_Args):
    ref: str = Field(description=_doc("web_check", "ref"), min_length=1)
    checked: bool = Field(True, description=_doc("web_check", "checked"))


class ScrollArgs(_Args):
    direction: Literal["up", "down", "left", "right"] = Field(
        description=_doc("web_scroll", "direction")
    )
    amount: int = Field(300, ge=1, le=100_000, description=_doc("web_scroll", "amount"))
    ref: str | None = Field(None, description=_doc("web_scroll", "ref"))


class PressKeyArgs(_Args):
    key: str = Field(description=_doc("web_press_key", "key"), min_length=1)
    ref: str | None = Field(None, description=_doc("web_press_key", "ref"))


class TypeArgs(_Args):
    text: str = Field(description=_doc("web_type", "text"))
    ref: str | None = Field(None, description=_doc("web_type", "ref"))
    enter: bool = Field(False, description=_doc("web_type", "enter"))


class GetTextArgs(_Args):
    ref: str | None = Field(None, description=_doc("web_get_text", "ref"))
    max_length: int = Field(
        2000, ge=1, le=100_000, description=_doc("web_get_text", "max_length")
    )


class NavigateArgs(_Args):
    url: str = Field(description=_doc("web_navigate", "url"), min_length=1)


class GoBackArgs(_Args):
    pass


MAX_EXPRESSION_CHARS = 4000
"""Longest expression ``web_evaluate`` takes."""


class EvaluateArgs(_Args):
    expression: str = Field(description=_doc("web_evaluate", "expression"), min_length=1,
                            max_length=MAX_EXPRESSION_CHARS)


class GoForwardArgs(_Args):
    pass


class ReloadArgs(_Args):
    pass


class DragArgs(_Args):
    ref: str = Field(description=_doc("web_drag", "ref"), min_length=1)
    to_ref: str | None = Field(default=None, description=_doc("web_drag", "to_ref"),
                               min_length=1)
    dx: int | None = Field(default=None, description=_doc("web_drag", "dx"), ge=-5000, le=5000)
    dy: int | None = Field(default=None, description=_doc("web_drag", "dy"), ge=-5000, le=5000)

    @model_validator(mode="after")
    def _one_destination(self) -> DragArgs:
        if (self.to_ref is None) == (self.dx is None and self.dy is None):
            raise ValueError("give either to_ref, or dx and dy (not both)")
        return self


class HoverArgs(_Args):
    ref: str = Field(description=_doc("web_hover", "ref"), min_length=1)


class WaitForArgs(_Args):
    text: str | None = Field(None, description=_doc("web_wait_for", "text"))
    ref: str | None = Field(None, description=_doc("web_wait_for", "ref"))
    gone: bool = Field(False, description=_doc("web_wait_for", "gone"))
    seconds: float | None = Field(
        None, gt=0, le=30, description=_doc("web_wait_for", "seconds")
    )
    timeout_ms: int = Field(
        5000, ge=100, le=30_000, description=_doc("web_wait_for", "timeout_ms")
    )


class UploadArgs(_Args):
    ref: str = Field(description=_doc("web_upload", "ref"), min_length=1)
    paths: StrList = Field(description=_doc("web_upload", "paths"), min_length=1)


class TabsArgs(_Args):
    action: Literal["list", "switch", "close"] = Field(
        "list", description=_doc("web_tabs", "action")
    )
    tab_id: str | None = Field(None, description=_doc("web_tabs", "tab_id"))


class ScreenshotArgs(_Args):
    full_page: bool = Field(False, description=_doc("web_screenshot", "full_page"))
    ref: str | None = Field(None, description=_doc("web_screenshot", "ref"), min_length=1)
    marks: bool = Field(True, description=_doc("web_screenshot", "marks"))


# -- vision mode: pointer tools that also take a point of the latest screenshot -------------
MAX_PIXEL = 20_000
"""Largest screenshot coordinate taken."""


def _pixel(tool: str, arg: str) -> Any:
    return Field(None, ge=0, le=MAX_PIXEL, description=_doc(tool, arg))


def _ref_or_point(ref: str | None, x: int | None, y: int | None, *, what: str = "") -> None:
    if (x is None) != (y is None):
        raise ValueError(f"give x and y together{what}")
    if (ref is None) == (x is None):
        raise ValueError(f"give either ref, or x and y (not both){what}")


class ClickPointArgs(_Args):  # web_click in vision mode: a ref, or a point of a screenshot

    ref: str | None = Field(None, description=_doc("web_click", "ref"), min_length=1)
    x: int | None = _pixel("web_click", "x")
    y: int | None = _pixel("web_click", "y")

    @model_validator(mode="after")
    def _one_target(self) -> ClickPointArgs:
        _ref_or_point(self.ref, self.x, self.y)
        return self


class HoverPointArgs(_Args):  # web_hover in vision mode: a ref, or a point of a screenshot

    ref: str | None = Field(None, description=_doc("web_hover", "ref"), min_length=1)
    x: int | None = _pixel("web_hover", "x")
    y: int | None = _pixel("web_hover", "y")

    @model_validator(mode="after")
    def _one_target(self) -> HoverPointArgs:
        _ref_or_point(self.ref, self.x, self.y)
        return self


class DragPointArgs(_Args):
    # web_drag in vision mode: from a ref or a point, onto a ref, to a point or by an offset

    ref: str | None = Field(None, description=_doc("web_drag", "ref"), min_length=1)
    x: int | None = _pixel("web_drag", "x")
    y: int | None = _pixel("web_drag", "y")
    to_ref: str | None = Field(default=None, description=_doc("web_drag", "to_ref"),
                               min_length=1)
    to_x: int | None = _pixel("web_drag", "to_x")
    to_y: int | None = _pixel("web_drag", "to_y")
    dx: int | None = Field(default=None, description=_doc("web_drag", "dx"), ge=-5000, le=5000)
    dy: int | None = Field(default=None, description=_doc("web_drag", "dy"), ge=-5000, le=5000)

    @model_validator(mode="after")
    def _one_of_each(self) -> DragPointArgs:
        _ref_or_point(self.ref, self.x, self.y, what=" for the start")
        if (self.to_x is None) != (self.to_y is None):
            raise ValueError("give to_x and to_y together")
        ends = [self.to_ref is not None, self.to_x is not None,
                self.dx is not None or self.dy is not None]
        if sum(ends) != 1:
            raise ValueError("give one end: to_ref, to_x and to_y, or dx and dy")
        if self.ref is not None and self.to_x is not None:
            raise ValueError("a drag from a ref ends on to_ref or by dx and dy; to_x and to_y "
                             "go with x and y")
        if self.x is not None and self.to_x is None:
            raise ValueError("a drag from x and y ends at to_x and to_y")
        return self


ARGS_MODELS: dict[str, type[_Args]] = {
    "web_snapshot": SnapshotArgs,
    "web_click": ClickArgs,
    "web_fill": FillArgs,
    "web_select": SelectArgs,
    "web_check": CheckArgs,
    "web_scroll": ScrollArgs,
    "web_press_key": PressKeyArgs,
    "web_type": TypeArgs,
    "web_get_text": GetTextArgs,
    "web_wait_for": WaitForArgs,
    "web_navigate": NavigateArgs,
    "web_go_back": GoBackArgs,
    "web_evaluate": EvaluateArgs,
    "web_go_forward": GoForwardArgs,
    "web_reload": ReloadArgs,
    "web_drag": DragArgs,
    "web_hover": HoverArgs,
    "web_upload": UploadArgs,
    "web_tabs": TabsArgs,
    "web_screenshot": ScreenshotArgs,
}
"""Tool name -> argument model."""

VISION_ARGS_MODELS: dict[str, type[_Args]] = {
    "web_click": ClickPointArgs,
    "web_hover": HoverPointArgs,
    "web_drag": DragPointArgs,
}
"""Tool name -> argument model in vision mode (``vision=True``), where it differs: pointer
tools that also take ``x, y`` in pixels of the latest screenshot."""
