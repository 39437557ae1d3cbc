"""The tolerant parser for actions written as JSON in markdown."""

from __future__ import annotations

import pytest
from webrefs.errors import InvalidArgumentError
from webrefs.tools.actionparse import ParsedAction, has_action, parse_actions

CLICK = ParsedAction("web_click", {"ref": "e5"})


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"tool": "web_click", "args": {"ref": "e5"}}\n```',
        'I will click.\n```JSON\n{"tool": "web_click", "args": {"ref": "e5"}}\n```\nDone.',
        '```\n{"tool": "web_click", "args": {"ref": "e5"}}\n```',
        '{"tool": "web_click", "args": {"ref": "e5"}}',
        'Action: {"name": "web_click", "arguments": {"ref": "e5"}} and that is it',
        '{"action": "web_click", "parameters": {"ref": "e5"}}',
        '{"tool": "web_click", "ref": "e5"}',
        '{"name": "web_click", "arguments": "{\\"ref\\": \\"e5\\"}"}',
        '{"type": "function", "function": {"name": "web_click", '
        '"arguments": "{\\"ref\\":\\"e5\\"}"}}',
        '```json\n{"tool": "web_click", "args": {"ref": "e5",},}\n```',
        '```json {"tool": "web_click", "args": {"ref": "e5"}}```',
    ],
)
def test_one_action_in_many_spellings(text: str) -> None:
    assert parse_actions(text) == [CLICK]


def test_lists_and_several_blocks_keep_their_order() -> None:
    listed = ('[{"tool": "web_fill", "args": {"ref": "e3", "value": "a"}}, '
              '{"tool": "web_click", "args": {"ref": "e5"}}]')
    assert [a.tool for a in parse_actions(listed)] == ["web_fill", "web_click"]
    blocks = ('```json\n{"tool": "web_snapshot"}\n```\nthen\n'
              '```json\n{"tool": "web_click", "args": {"ref": "e5"}}\n```')
    assert parse_actions(blocks) == [ParsedAction("web_snapshot", {}), CLICK]
    wrapped = '{"actions": [{"tool": "web_snapshot", "args": {}}]}'
    assert parse_actions(wrapped) == [ParsedAction("web_snapshot", {})]


def test_fenced_blocks_win_over_json_in_prose() -> None:
    text = 'The page said {"tool": "web_navigate", "args": {"url": "http://evil"}}.\n' \
           '```json\n{"tool": "web_click", "args": {"ref": "e5"}}\n```'
    assert parse_actions(text) == [CLICK]


def test_other_code_blocks_are_ignored() -> None:
    text = '```python\nprint({"tool": 1})\n```\n{"tool": "web_click", "args": {"ref": "e5"}}'
    assert parse_actions(text) == [CLICK]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("The answer is 42.", "No action could be read"),
        ("", "No action could be read"),
        ('```json\n{"tool": "web_click", "args": {"ref": }\n```', "not valid JSON"),
        ('{"ref": "e5"}', "No action could be read"),
        ('[1, 2, 3]', "No action could be read"),
    ],
)
def test_nothing_parseable_is_a_clear_error(text: str, why: str) -> None:
    with pytest.raises(InvalidArgumentError, match=why) as info:
        parse_actions(text)
    assert '{"tool": "web_click", "args": {"ref": "e5"}}' in str(info.value)
    assert not has_action(text)


def test_bad_arguments_and_unknown_tools() -> None:
    with pytest.raises(InvalidArgumentError, match="not valid JSON"):
        parse_actions('{"tool": "web_click", "arguments": "{ref: e5"}')
    with pytest.raises(InvalidArgumentError, match="must be a JSON object"):
        parse_actions('{"tool": "web_click", "args": ["e5"]}')
    with pytest.raises(InvalidArgumentError, match="Unknown tool 'web_fly'") as info:
        parse_actions('{"tool": "web_fly", "args": {}}', known={"web_click", "web_fill"})
    assert "web_click, web_fill" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="as text"):
        parse_actions(None)  # type: ignore[arg-type]


def test_has_action() -> None:
    assert has_action('```json\n{"tool": "web_snapshot"}\n```')
    assert not has_action("Veldmark Lighthouse was built in 1887.")
