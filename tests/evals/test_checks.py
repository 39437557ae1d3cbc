"""Success checks: each passes when it holds and says why when it does not."""

from __future__ import annotations

import asyncio

import pytest
from webrefs import Tab
from webrefs.evals.suite.checks import check_all, check_pure, form_fields
from webrefs.evals.suite.tasks import (
    AnswerCheck,
    ElementCheck,
    JsCheck,
    RequestCheck,
    TextCheck,
    UrlCheck,
)
from webrefs.models import RequestRecord

from tests.helpers.server import SiteServer

GET = RequestRecord(method="GET", url="http://s.test/done.html?name=Ada+L&model=brass")
POST = RequestRecord(method="POST", url="http://s.test/api/send",
                     post_data="to=bob%40x.test&subject=Hi&to=carol%40x.test")
JSON = RequestRecord(method="POST", url="http://s.test/api/json",
                     post_data='{"amount": 5, "currency": "EUR"}')


def pure(check: object, answer: str = "", url: str = "http://s.test/",
         requests: list[RequestRecord] | None = None) -> tuple[bool, str]:
    result = check_pure(check, answer=answer, url=url, requests=requests or [])  # type: ignore[arg-type]
    assert result is not None
    return result.ok, result.why


def test_answer_checks() -> None:
    assert pure(AnswerCheck(contains="1887"), "Built in 1887.") == (True, "")
    ok, why = pure(AnswerCheck(contains="1887"), "I don't know")
    assert not ok and why == "the answer \"I don't know\" does not contain '1887'"
    assert pure(AnswerCheck(equals="Yes"), " yes ")[0]
    assert not pure(AnswerCheck(equals="Yes"), "yes, it is")[0]
    assert pure(AnswerCheck(regex=r"\b20\b"), "It burns 20 hours")[0]
    assert not pure(AnswerCheck(regex=r"\b20\b"), "It burns 200 hours")[0]
    with pytest.raises(ValueError, match="needs 'contains', 'equals' or 'regex'"):
        AnswerCheck()


def test_url_check() -> None:
    assert pure(UrlCheck(pattern=r"/done\.html"), url="http://s.test/done.html?x=1")[0]
    ok, why = pure(UrlCheck(pattern="careers"), url="http://s.test/index.html")
    assert not ok and "does not match /careers/" in why


def test_form_fields_from_query_urlencoded_and_json_bodies() -> None:
    assert form_fields(GET) == {"name": "Ada L", "model": "brass"}
    assert form_fields(POST) == {"to": "carol@x.test", "subject": "Hi"}
    assert form_fields(JSON) == {"amount": "5", "currency": "EUR"}


def test_request_checks() -> None:
    reqs = [GET, POST, JSON]
    assert pure(RequestCheck(method="GET", url=r"done\.html", form={"model": "brass"}),
                requests=reqs)[0]
    ok, why = pure(RequestCheck(method="GET", url=r"done\.html", form={"model": "storm"}),
                   requests=reqs)
    assert not ok and "model='brass' (wanted 'storm')" in why
    ok, why = pure(RequestCheck(url=r"/api/send", form={"subject": "Hi"}), requests=[GET])
    assert not ok and "no POST request to a URL matching" in why
    assert pure(RequestCheck(url=r"/api/json", form={"currency": "EUR"}), requests=reqs)[0]


def test_page_checks_return_none_from_the_pure_part() -> None:
    assert check_pure(TextCheck(contains="x"), answer="", url="", requests=[]) is None


PAGE = ("<title>t</title><label><input type=checkbox id=c checked> Newsletter</label>"
        "<label for=n>Name</label><input id=n value=Ada><button disabled>Send</button>"
        "<p>Order received</p><p style='display:none'>hidden words</p>")


@pytest.mark.browser
def test_element_text_and_js_checks_on_a_live_page(tab: Tab, site: SiteServer) -> None:
    tab.goto(site.url("/basic/one.html"))
    tab.evaluate("(html) => { document.body.innerHTML = html; }", PAGE)

    def run(*checks: object) -> list[tuple[bool, str]]:
        results = asyncio.run(check_all(list(checks), tab=tab, answer="",  # type: ignore[arg-type]
                                        requests=[]))
        return [(r.ok, r.why) for r in results]

    assert run(ElementCheck(role="checkbox", name="newsletter", checked=True),
               ElementCheck(role="textbox", name="Name", value="Ada"),
               ElementCheck(role="button", name="Send", disabled=True),
               ElementCheck(role="link", present=False),
               TextCheck(contains="order RECEIVED"),
               TextCheck(contains="hidden words", present=False),
               JsCheck(expression="() => document.querySelector('#n').value === 'Ada'"),
               ) == [(True, "")] * 7
    results = run(ElementCheck(role="checkbox", name="newsletter", checked=False),
                  ElementCheck(role="button", name="Cancel"),
                  ElementCheck(role="textbox", name="Name", value="Bob"),
                  TextCheck(contains="Order received", present=False),
                  JsCheck(expression="() => 1 + 1 === 3", description="maths is broken"))
    assert [ok for ok, _ in results] == [False] * 5
    whys = [why for _, why in results]
    assert whys[0] == "the checkbox named 'newsletter' is there but its checked is true"
    assert whys[1] == "no button named 'Cancel' on the page"
    assert whys[2] == "the textbox named 'Name' is there but its value is 'Ada'"
    assert whys[3] == "'Order received' is on the page"
    assert whys[4] == "maths is broken: got False"


def test_page_checks_without_a_page_fail_with_the_reason() -> None:
    results = asyncio.run(check_all([TextCheck(contains="x"), AnswerCheck(contains="a")],
                                    tab=None, answer="a", requests=[]))
    assert [(r.ok, r.why) for r in results] == [(False, "no page is open"), (True, "")]
