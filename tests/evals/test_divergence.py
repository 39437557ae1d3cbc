"""A replay that leaves its recording says where: the model request, the step whose result
first differs, and the differing lines as a unified diff (budgeted, credentials out of URLs),
never the HTTP client's "Connection error."."""

from __future__ import annotations

import json
from pathlib import Path

from webrefs.evals.models.recording import DIFF_CHARS, divergence, recorded_observations
from webrefs.evals.models.safeyaml import CassetteYaml


def cassette(path: Path, requests: list[list[dict[str, str]]]) -> Path:
    interactions = [{"request": {"method": "POST", "uri": "http://127.0.0.1/v1/chat/completions",
                                 "body": json.dumps({"messages": m}), "headers": {}},
                     "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
                                  "body": {"string": "{}"}}} for m in requests]
    path.write_text(CassetteYaml.serialize({"interactions": interactions, "version": 1}),
                    encoding="utf-8")
    return path


def conversation(*tool_results: str) -> list[dict[str, str]]:
    out = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Buy low."}]
    for i, text in enumerate(tool_results):
        out += [{"role": "assistant", "content": f"call {i}"}, {"role": "tool", "content": text}]
    return out


def test_the_first_differing_step_and_its_lines(tmp_path: Path) -> None:
    path = cassette(tmp_path / "t.yaml", [conversation(), conversation("price $52.00\nBuy"),
                                          conversation("price $52.00\nBuy", "price $51.10")])
    assert recorded_observations(path)[2] == ["sys", "Buy low.", "price $52.00\nBuy",
                                              "price $51.10"]
    told = divergence(path, 3, ["sys", "Buy low.", "price $52.00\nBuy", "price $50.40"])
    assert told is not None
    assert told.startswith("The replay diverged at model request 3: the result of step 2 ")
    assert "-price $51.10" in told and "+price $50.40" in told
    assert "Buy\n" not in told.split("\n", 1)[1]  # only the lines that differ
    goal = divergence(path, 1, ["sys", "Sell high."])
    assert goal is not None and "model request 1: the goal differs" in goal


def test_the_diff_is_budgeted_and_redacted(tmp_path: Path) -> None:
    page = [f"line {i} http://user:pw@shop.test/?api_key=sk-abcdef0123456789" for i in range(500)]
    path = cassette(tmp_path / "t.yaml", [conversation("\n".join(page))])
    other = [p.replace("line", "row") for p in page]
    told = divergence(path, 1, ["sys", "Buy low.", "\n".join(other)])
    assert told is not None
    assert len(told) < DIFF_CHARS + 200
    assert "pw@" not in told and "sk-abcdef0123456789" not in told


def test_an_unreadable_or_empty_recording_gives_no_diff(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("interactions: [", encoding="utf-8")
    assert divergence(bad, 1, ["sys"]) is None
    assert divergence(cassette(tmp_path / "same.yaml", [conversation()]), 1,
                      ["sys", "Buy low."]) is None
