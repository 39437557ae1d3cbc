"""The structured results of tools (``webrefs.tools.outputs``): every one fits its tool's
output schema, the schemas are compact objects, and the text the model reads is never
repeated in them."""

from __future__ import annotations

import jsonschema
import pytest
from webrefs.models import (
    ActionResult,
    DialogEvent,
    NodeRef,
    PageInfo,
    SafetyDecision,
    ScreenMark,
    Screenshot,
    Snapshot,
    SnapshotStats,
    TextResult,
)
from webrefs.tools import TOOL_SPECS
from webrefs.tools.fmt import TabLine
from webrefs.tools.outputs import OUTPUT_MODELS, output_schema, structured

SNAPSHOT = Snapshot(
    text="[snapshot] ...\n- button \"Pay\" [ref=e1]",
    refs={"e1": NodeRef(ref="e1", role="button", name="Pay"),
          "e2": NodeRef(ref="e2", role="link", name="Home")},
    stats=SnapshotStats(tokens=40, chars=120, nodes_emitted=2, refs_emitted=2,
                        truncated=False),
    page=PageInfo(url="http://shop.test/", title="Shop", page_type="unknown"))
ACTION = ActionResult(action="click", ref="e1", message="Clicked button \"Pay\".",
                      url_before="http://shop.test/", url_after="http://shop.test/paid",
                      navigated=True, dialogs=[DialogEvent(type="alert", message="Thanks")],
                      safety=SafetyDecision(level="confirm", outcome="approved"))
TEXT = TextResult(text="Hello " * 50, total_length=300, truncated=False, source="main",
                  url="http://shop.test/")
SHOT = Screenshot(url="http://shop.test/", width=640, height=360, scale=0.5,
                  region=(0, 0, 1280, 720),
                  marks=[ScreenMark(ref="e1", box=(1, 2, 30, 40), label=(1, 2, 10, 10))])
TABS = [TabLine(id="t1", url="http://shop.test/", title="Shop", active=True)]

ARTIFACTS = {"web_snapshot": SNAPSHOT, "web_get_text": TEXT, "web_screenshot": SHOT,
             "web_tabs": TABS, "web_click": ACTION, "web_navigate": ACTION}


@pytest.mark.parametrize("name", sorted(ARTIFACTS))
def test_each_structured_result_fits_its_schema(name: str) -> None:
    schema = output_schema(name)
    data = structured(name, ARTIFACTS[name])
    assert schema is not None and schema["type"] == "object" and data is not None
    jsonschema.validate(data, schema)


def test_what_they_say() -> None:
    snap = structured("web_snapshot", SNAPSHOT)
    assert snap == {"url": "http://shop.test/", "title": "Shop", "page_type": "unknown",
                    "refs": [{"ref": "e1", "role": "button", "name": "Pay"},
                             {"ref": "e2", "role": "link", "name": "Home"}],
                    "tokens": 40, "truncated": False}
    action = structured("web_click", ACTION)
    assert action == {"success": True, "ref": "e1", "url": "http://shop.test/paid",
                      "navigated": True, "new_tabs": [], "dialogs": ["alert: Thanks"],
                      "safety": "approved"}
    text = structured("web_get_text", TEXT)
    assert text is not None and "text" not in text and text["total_length"] == 300


def test_every_action_tool_has_one_and_evaluate_none() -> None:
    assert output_schema("web_evaluate") is None
    assert structured("web_evaluate", {"any": "value"}) is None
    assert set(OUTPUT_MODELS) == set(TOOL_SPECS) - {"web_evaluate"}
    assert structured("web_snapshot", ACTION) is None  # an artifact of another kind


def test_schemas_are_compact() -> None:
    for name in OUTPUT_MODELS:
        schema = output_schema(name)
        assert schema is not None
        text = str(schema)
        assert "'description'" not in text and "'default'" not in text
        assert "'$ref'" not in text and "'$defs'" not in text
        assert set(schema["required"]) == set(schema["properties"])
    snapshot = output_schema("web_snapshot")
    assert snapshot is not None and "title" in snapshot["properties"]  # a field, kept
