"""An action's result carries what the page said in answer (``ActionResult.answer``, and the
words a model reads in the tool result), on pages of the shapes a model met: a settings form
whose save answers in a status, a toast, a calculator's aria-live result, a sign-in that
comes back with an error, a field marked aria-invalid, a required field the browser's form
check stops, a sortable column, a click that changes nothing. Real Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from webrefs import Tab
from webrefs.models import AnswerItem
from webrefs.render.answer import ANSWER_MAX_TOKENS
from webrefs.render.tokens import count_tokens
from webrefs.tools import WebTools

from tests.helpers.actions import js, opened, ref

pytestmark = pytest.mark.browser

PAGES = "/actions/answers"


@pytest.fixture
def settings(tab: Tab, site) -> Tab:  # type: ignore[no-untyped-def]
    return opened(tab, site.url(f"{PAGES}/settings.html"))


@pytest.fixture
def tools(tab: Tab) -> Iterator[WebTools]:
    yield WebTools(tab=tab)


def said(text: str) -> str:
    """What a tool result adds after the action's own sentence."""
    return text.split(". ", 1)[1] if ". " in text else ""


def test_a_save_answers_in_a_status(settings: Tab, tools: WebTools) -> None:
    save = ref(settings, "button", "Save changes")
    out = tools.call("web_click", {"ref": save})
    assert out.artifact.answer.items == [AnswerItem(
        kind="live", role="status", text="Not saved: Display name must be 1 to 30 characters.")]
    assert out.content == (f'Clicked {save} (button "Save changes"). The page says: status '
                           '"Not saved: Display name must be 1 to 30 characters.".')
    # the same refusal once more (the page set its words again) is said again: the fix did
    # not work
    again = tools.call("web_click", {"ref": save})
    assert said(again.content) == ('The page says: status "Not saved: Display name must be 1 '
                                   'to 30 characters.".')
    tools.call("web_fill", {"ref": ref(settings, "textbox", "Display name"), "value": "Ada"})
    saved = tools.call("web_click", {"ref": save})
    assert said(saved.content) == 'The page says: status "Settings saved.".'
    # "Settings saved." once more tells nothing new
    third = tools.call("web_click", {"ref": save})
    assert third.artifact.answer is None and said(third.content) == ""


def test_an_alert_toast(settings: Tab) -> None:
    r = settings.click(ref(settings, "button", "Save T-501"))
    assert r.answer is not None
    assert r.answer.items == [AnswerItem(kind="live", role="alert", text="Saved T-501.")]


def test_a_calculator_result_in_aria_live(settings: Tab, tools: WebTools) -> None:
    out = tools.call("web_click", {"ref": ref(settings, "button", "Calculate")})
    assert said(out.content) == 'The page says: "Shipping 3 kg to zone B costs €10.25.".'
    tools.call("web_select", {"ref": ref(settings, "combobox", "Zone"), "values": ["C"]})
    out = tools.call("web_click", {"ref": ref(settings, "button", "Calculate")})
    assert said(out.content) == 'The page says: "Shipping 3 kg to zone C costs €8.50.".'


def test_a_field_marked_aria_invalid_with_its_error_message(settings: Tab) -> None:
    field = ref(settings, "textbox", "Promo code")
    r = settings.click(ref(settings, "button", "Apply code"))
    assert r.answer is not None
    assert r.answer.items == [AnswerItem(kind="invalid", role="textbox", name="Promo code",
                                         text="Code EXPIRED10 has expired.", ref=field)]


def test_a_click_that_changes_nothing_says_so(settings: Tab, tools: WebTools) -> None:
    idle = ref(settings, "button", "Does nothing")
    out = tools.call("web_click", {"ref": idle})
    assert out.artifact.answer is not None and out.artifact.answer.unchanged
    assert out.content == f'Clicked {idle} (button "Does nothing"). Nothing on the page changed.'


def test_a_click_whose_request_answers_late_is_not_called_unchanged(
        tab: Tab, site, tools: WebTools) -> None:  # type: ignore[no-untyped-def]
    # the save's request outlives the wait's patience for requests; the page changes after it
    opened(tab, site.url(f"{PAGES}/slow-save.html"))
    save = ref(tab, "button", "Save note")
    out = tools.call("web_click", {"ref": save})
    assert "Nothing on the page changed" not in out.content, out.content
    assert out.artifact.readback.get("requests") == 1


def test_a_change_that_says_nothing_adds_nothing(settings: Tab, tools: WebTools) -> None:
    count = ref(settings, "button", "Count")
    out = tools.call("web_click", {"ref": count})
    assert js(settings, "() => document.getElementById('counted').textContent") == "1"
    assert out.artifact.answer is None
    assert out.content == f'Clicked {count} (button "Count").'


def test_a_failed_sign_in_says_why(tab: Tab, site, tools: WebTools) -> None:  # type: ignore[no-untyped-def]
    opened(tab, site.url(f"{PAGES}/login.html"))
    user = ref(tab, "textbox", "Username")
    tools.call("web_fill", {"ref": user, "value": "ada"})
    out = tools.call("web_press_key", {"key": "Enter", "ref": user})
    r = out.artifact
    assert r.navigated and r.answer is not None and r.answer.new_page
    assert r.answer.items == [
        AnswerItem(kind="title", text="Sign in"),
        AnswerItem(kind="notice", text="Wrong username or password (4 attempts left)."),
    ]
    assert ('New page "Sign in". The page says: "Wrong username or password (4 attempts '
            'left).". Take a snapshot to see the page.') in out.content


def test_a_required_field_the_browser_stops(tab: Tab, site, tools: WebTools) -> None:  # type: ignore[no-untyped-def]
    opened(tab, site.url(f"{PAGES}/signup.html"))
    email = ref(tab, "textbox", "Email")
    out = tools.call("web_click", {"ref": ref(tab, "button", "Subscribe")})
    message = js(tab, "() => document.getElementById('email').validationMessage")
    assert message  # the browser's own words, in its language
    r = out.artifact
    assert not r.navigated
    assert r.answer is not None and r.answer.items == [AnswerItem(
        kind="form_check", role="textbox", name="Email", text=message, ref=email)]
    assert said(out.content) == (f'The browser did not send the form: {email} textbox "Email": '
                                 f'"{message}".')
    # typed with Enter: the same check, with the field's new message
    out = tools.call("web_type", {"ref": email, "text": "abc", "enter": True})
    message = js(tab, "() => document.getElementById('email').validationMessage")
    assert message and out.artifact.answer.items[0].text == message


def test_a_sort_header_says_the_new_order(tab: Tab, site, tools: WebTools) -> None:  # type: ignore[no-untyped-def]
    opened(tab, site.url(f"{PAGES}/stock.html"))
    stock = ref(tab, "button", "Stock")
    out = tools.call("web_click", {"ref": stock})
    assert out.artifact.answer.items == [AnswerItem(kind="sort", name="Stock", text="ascending",
                                                    values=["3", "5", "12"], row="Nuts | 3")]
    assert said(out.content) == ('Column "Stock" now sorted ascending; first values "3", "5", '
                                 '"12"; first row "Nuts | 3".')
    out = tools.call("web_click", {"ref": stock})
    assert said(out.content) == ('Column "Stock" now sorted descending; first values "40", '
                                 '"12", "5"; first row "Screws | 40".')


def test_an_answer_stays_within_its_budget(settings: Tab, tools: WebTools) -> None:
    js(settings, """() => {
      const b = document.createElement('button'); b.textContent = 'Flood'; b.id = 'flood';
      b.onclick = () => { for (let i = 0; i < 6; i++) {
        const d = document.createElement('div'); d.setAttribute('role', 'alert');
        d.textContent = `Alert ${i}: ` + 'the warehouse is closed today '.repeat(12);
        document.body.appendChild(d); } };
      document.querySelector('main').appendChild(b); }""")
    settings.snapshot()
    out = tools.call("web_click", {"ref": ref(settings, "button", "Flood")})
    assert len(out.artifact.answer.items) >= 5
    words = said(out.content)
    assert words.startswith('The page says: alert "Alert 0: the warehouse is closed')
    assert words.endswith("(cut; web_snapshot shows the rest)")
    assert count_tokens(words) <= ANSWER_MAX_TOKENS


def test_what_a_shadow_tree_says_and_changes(tab: Tab, site, tools: WebTools) -> None:  # type: ignore[no-untyped-def]
    opened(tab, site.url(f"{PAGES}/review.html"))
    # a star pressed inside an open shadow tree changed the page: not "nothing changed"
    star = tools.call("web_click", {"ref": ref(tab, "button", "4 stars")})
    assert star.artifact.answer is None and "Nothing" not in star.content
    out = tools.call("web_click", {"ref": ref(tab, "button", "Post review")})
    assert said(out.content) == 'The page says: status "Thank you, your review is posted.".'
    # a change inside a closed shadow tree cannot be seen: never called "nothing changed"
    bump = tools.call("web_click", {"ref": ref(tab, "button", "Bump")})
    assert bump.artifact.answer is None and "Nothing" not in bump.content


def test_a_new_tabs_first_page_says_what_it_says(tab: Tab, site, tools: WebTools) -> None:  # type: ignore[no-untyped-def]
    """The first navigation of a new tab leaves a blank page, which is not read: the page
    it opens is answered as a new page all the same, and so is the next one."""
    assert tab.url == "about:blank"
    first = tools.call("web_navigate", {"url": site.url(f"{PAGES}/login-failed.html")})
    r = first.artifact
    assert r.answer is not None and r.answer.new_page
    assert r.answer.items == [
        AnswerItem(kind="title", text="Sign in"),
        AnswerItem(kind="notice", text="Wrong username or password (4 attempts left)."),
    ]
    again = tools.call("web_navigate", {"url": site.url(f"{PAGES}/login-failed.html")})
    assert again.artifact.answer == r.answer
