"""The heuristic policy, without a browser: what it reads from goals and outlines, and the
calls it makes."""

from __future__ import annotations

from webrefs.evals.baselines.heuristic import HeuristicPolicy, goal_values, parse_outline
from webrefs.evals.models.providers import resolve_provider

COMPOSE = """[snapshot] url=http://x.test/mail/compose title="Compose" refs=6
- main:
  - heading "New message" [level=1]
  - form:
    - textbox "To" [ref=e1]
    - textbox "Cc" [ref=e2]
    - textbox "Subject" [ref=e3]
    - textbox "Message" [ref=e4]
    - button "Send" [ref=e5]
    - button "Save draft" [ref=e6]
"""


def test_parse_outline_reads_roles_names_values_and_states() -> None:
    els = parse_outline('- combobox "Zone" [value="A"] [options=A|B] [ref=e2]\n'
                        '  - checkbox "Terms" [checked] [ref=e3]\n'
                        '+ - button "Go" [disabled] [ref=e4]\n- heading "No ref"')
    assert [(e.role, e.name, e.ref) for e in els] == [("combobox", "Zone", "e2"),
                                                      ("checkbox", "Terms", "e3"),
                                                      ("button", "Go", "e4")]
    assert els[0].value == "A" and els[0].options == ("A", "B")
    assert els[1].checked and els[2].disabled


def test_goal_values_with_their_context() -> None:
    values = goal_values("Search for flights from Lisbon to Oslo Gardermoen on 14 July 2025 "
                         "for two adults, card 4539 1488 0343 6467, subject 'Hi there'.")
    got = {(v.text, v.kind) for v in values}
    assert {("Lisbon", "place"), ("Oslo Gardermoen", "name"), ("2025-07-14", "date"),
            ("2", "number"), ("4539 1488 0343 6467", "card"), ("Hi there", "quoted")} <= got
    subject = next(v for v in values if v.text == "Hi there")
    assert "subject" in subject.context


def test_policy_fills_fields_by_label_then_clicks_the_submit_button() -> None:
    policy = HeuristicPolicy(goal="Send the minutes to olu@tern.test, with rhea@tern.test in "
                                  "copy (Cc). Subject 'Minutes', message 'See below.'")
    assert policy.next_call() == ("web_snapshot", {})
    policy.observe("web_snapshot", COMPOSE)
    calls = []
    while (call := policy.next_call()) is not None and call[0] == "web_fill":
        calls.append(call)
        policy.observe(call[0], "Filled.")
    assert sorted((c[1]["ref"], c[1]["value"]) for c in calls) == [
        ("e1", "olu@tern.test"), ("e2", "rhea@tern.test"), ("e3", "Minutes"),
        ("e4", "See below.")]
    assert call == ("web_click", {"ref": "e5"})


def test_policy_answers_a_question_from_the_page_text() -> None:
    policy = HeuristicPolicy(goal="What is the new door code for the bike room?")
    policy.observe("web_snapshot", '- link "Home" [ref=e1]')
    assert policy.next_call() == ("web_get_text", {"max_length": 8000})
    policy.observe("web_get_text", "Hello.\n\nFrom Monday the door code for the bike room is "
                                   "4817. Do not share it.")
    assert policy.next_call() is None
    assert "4817" in policy.answer()


def test_heuristic_is_a_builtin_baseline() -> None:
    provider = resolve_provider("heuristic")
    assert provider.baseline and provider.label.startswith("model-free baseline")
