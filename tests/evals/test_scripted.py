"""The scripted model: refs read from outlines, the reference solution played back, answers."""

from __future__ import annotations

import pytest
from webrefs.errors import WebrefsError
from webrefs.evals.baselines.scripted import ScriptedModel, find_ref
from webrefs.evals.demo import load_demo_task
from webrefs.evals.suite.checks import check_pure
from webrefs.evals.suite.tasks import Task
from webrefs.tools.actionparse import parse_actions

OUTLINE = ('- search:\n    - searchbox "Search articles" [ref=e4]\n    - button "Search" [ref=e5]')


def test_find_ref_reads_outline_lines() -> None:
    text = ('- main:\n  - search:\n    - searchbox "Search articles" [placeholder="x"] [ref=e4]\n'
            '    - button "Search" [ref=e5]\n  - link "Veldmark Lighthouse" [ref=f1e13]')
    assert find_ref(text, ["searchbox", "textbox"], "search") == "e4"
    assert find_ref(text, ["button"], "Search") == "e5"
    assert find_ref(text, ["link"], "veldmark") == "f1e13"
    assert find_ref(text, ["link"], "harbour") is None
    assert find_ref(text, ["main"]) is None  # no ref on that line


def test_scripted_model_fails_loudly_without_the_needed_element() -> None:
    model = ScriptedModel(load_demo_task())
    assert model.next_call(None) == ("web_snapshot", {})
    with pytest.raises(WebrefsError, match="needs a searchbox/textbox named 'Search'"):
        model.next_call('- button "Go" [ref=e1]')


def test_task_success_checks() -> None:
    task = load_demo_task()

    def why(answer: str, url: str) -> list[str]:
        results = [check_pure(c, answer=answer, url=url, requests=[]) for c in task.success]
        return [r.why for r in results if r is not None and not r.ok]

    assert why("It was built in 1887.", "http://h/article-veldmark.html") == []
    assert why("I do not know.", "http://h/index.html") == [
        "the answer 'I do not know.' does not contain '1887'",
        "the final URL 'http://h/index.html' does not match /article-veldmark/"]




def test_reply_writes_actions_as_json_in_markdown_then_answers() -> None:
    model = ScriptedModel(load_demo_task())
    first = model.reply(None)
    assert parse_actions(first)[0].tool == "web_snapshot"
    fill = parse_actions(model.reply(OUTLINE))[0]
    assert (fill.tool, fill.args) == ("web_fill", {"value": "lighthouse", "ref": "e4"})
    click = parse_actions(model.reply("Filled e4."))[0]
    assert click.args == {"ref": "e5"}  # still read from the outline seen before
    for observation in ('- link "Veldmark Lighthouse" [ref=e13]', "Clicked e13."):
        model.reply(observation)
    assert model.next_call("Page text") == ("web_get_text", {})
    assert model.done
    assert model.reply("It was built in 1887 and stands 38 metres.") == (
        "Veldmark Lighthouse was built in 1887."
    )
    assert [tool for tool, _ in model.log] == [s.tool for s in model.task.reference_calls]


def test_answer_without_a_match() -> None:
    model = ScriptedModel(load_demo_task())
    model.observe("nothing useful")
    assert model.answer() == "I could not find the answer."


def test_diff_lines_count_as_outline_lines() -> None:
    assert find_ref('+  - button "Search" [ref=e12]', ["button"], "search") == "e12"


def test_exact_names_and_fixed_answers() -> None:
    text = '- link "Storm lantern sale" [ref=e1]\n- link "Storm lantern" [ref=e2]'
    assert find_ref(text, ["link"], "storm lantern") == "e1"
    assert find_ref(text, ["link"], "storm lantern", exact=True) == "e2"
    task = Task.model_validate({
        "id": "t", "start_url": "/", "goal": "g", "success": [{"type": "answer", "contains": "x"}],
        "reference": [{"tool": "web_snapshot"}, {"answer": "Fixed."}]})
    model = ScriptedModel(task)
    assert model.next_call(None) == ("web_snapshot", {})
    assert model.next_call("...") is None and model.answer() == "Fixed."


SEARCHED = ('Clicked e5 (button "Search"); navigated to http://h/search.html.\n\nPage now:\n'
            '[snapshot] url=http://h/search.html\n- link "Veldmark Lighthouse" [ref=e13]\n'
            '- link "Veldmark Lighthouse keepers" [ref=e14]')


def test_a_snapshot_the_action_answered_is_not_asked_for_again() -> None:
    model = ScriptedModel(load_demo_task())
    model.next_call(None)
    model.next_call(OUTLINE)
    assert model.next_call('Filled e4 (searchbox "Search articles") with "lighthouse". '
                           "Nothing else on the page changed.") == (
        "web_click", {"ref": "e5"})
    # the click's result carried the new page: the reference's web_snapshot is left out
    assert model.next_call(SEARCHED) == ("web_click", {"ref": "e13"})
    assert [tool for tool, _ in model.log] == [
        "web_snapshot", "web_fill", "web_click", "web_click"]


def test_a_result_without_the_page_or_of_another_tab_still_gets_its_snapshot() -> None:
    for result in ('Clicked e5 (button "Search"); navigated to http://h/search.html. '
                   "Take a snapshot to see the page.",
                   "Note: the active tab changed from t1 to t2 (http://h/); the tools act on "
                   "it.\n" + SEARCHED):
        model = ScriptedModel(load_demo_task())
        model.next_call(None)
        model.next_call(OUTLINE)
        model.next_call("Filled e4.")
        assert model.next_call(result) == ("web_snapshot", {})


def test_changes_are_outlines_and_removed_refs_are_not_used() -> None:
    model = ScriptedModel(load_demo_task())
    model.calls = model.calls[:5] + model.calls[4:]  # click a Veldmark link twice
    model.next_call(None)
    model.next_call(OUTLINE)
    model.next_call("Filled e4.")
    assert model.next_call("Clicked e5.") == ("web_snapshot", {})  # none mode: played
    page = SEARCHED.split("\n\nPage now:\n")[1]
    assert model.next_call(page) == ("web_click", {"ref": "e13"})
    diff = ('Clicked e13.\n\nChanges since the last snapshot:\n[diff] changed=1 added=0 '
            'removed=1\nin list "Results":\n  ~ button "Search" [ref=e5]  (was: "Find")\n'
            "- removed: e13\nunchanged: 3 other elements")
    # e13 is gone since: the next Veldmark link is the one still on the page
    assert model.next_call(diff) == ("web_click", {"ref": "e14"})


def test_a_changed_line_is_read_without_its_old_state() -> None:
    text = ('[diff] changed=1 added=1 removed=0\nin form "Find":\n  ~ button "Search" [ref=e5]  '
            '(was: "Go")\n+ link "Harbour" [ref=e9]')
    model = ScriptedModel(load_demo_task())
    model.observe(text)
    outline, removed = model._outlines[-1]
    assert find_ref(outline, ["button"], "search") == "e5"
    assert find_ref(outline, ["button"], "go") is None
    assert find_ref(outline, ["link"], "harbour") == "e9" and not removed


def test_reading_the_text_between_keeps_the_page_the_action_showed() -> None:
    task = Task.model_validate({
        "id": "t", "start_url": "/", "goal": "g", "success": [{"type": "answer", "contains": "x"}],
        "reference": [{"tool": "web_click", "target": {"role": "link", "name": "Veldmark"}},
                      {"tool": "web_get_text"}, {"tool": "web_snapshot"},
                      {"tool": "web_click", "target": {"role": "link", "name": "keepers"}},
                      {"answer": "Done."}]})
    model = ScriptedModel(task)
    model.observe(SEARCHED.split("\n\nPage now:\n")[1])
    assert model.next_call() == ("web_click", {"ref": "e13"})
    assert model.next_call(SEARCHED) == ("web_get_text", {})
    # the text changed nothing: the page the click's result carried is still the page
    assert model.next_call("Text of the page's main content:\nVeldmark") == (
        "web_click", {"ref": "e14"})


def test_a_last_text_read_is_left_out_when_the_page_shown_holds_the_answer() -> None:
    task = Task.model_validate({
        "id": "t", "start_url": "/", "goal": "g", "success": [{"type": "answer", "contains": "x"}],
        "reference": [{"tool": "web_click", "target": {"role": "link", "name": "Veldmark"}},
                      {"tool": "web_get_text"},
                      {"answer": {"pattern": r"built in (\d{4})", "template": "In {0}."}}]})
    shown = ('Clicked e13 (link "Veldmark Lighthouse"); navigated to http://h/v.html.\n\n'
             'Page now:\n[snapshot] url=http://h/v.html\n- heading "Veldmark" [level=1]\n'
             '- paragraph: It was built in 1887.')
    for result, calls, answer in (
            (shown, ["web_click"], "In 1887."),  # the page shown holds the answer
            (shown.replace("1887", "the last century"), ["web_click", "web_get_text"], None),
            ("Clicked e13; navigated to http://h/v.html. It was built in 1887.",
             ["web_click", "web_get_text"], None)):  # no page shown: the text is read
        model = ScriptedModel(task)
        model.observe(SEARCHED.split("\n\nPage now:\n")[1])
        assert model.next_call() == ("web_click", {"ref": "e13"})
        model.next_call(result)
        assert [tool for tool, _ in model.log] == calls
        if answer is not None:
            assert model.done and model.answer() == answer
