"""The one error hierarchy: shape, messages, and the Playwright translation boundary."""

from __future__ import annotations

import inspect

import pytest
from webrefs import errors
from webrefs.errors import (
    ActionTimeoutError,
    BrowserClosedError,
    NavigationError,
    NotActionableError,
    PageCrashedError,
    StaleRefError,
    WebrefsError,
    translate_playwright_error,
)


def _classes() -> list[type[WebrefsError]]:
    return [
        obj for name in errors.__all__
        if inspect.isclass(obj := getattr(errors, name)) and issubclass(obj, BaseException)
    ]


def test_every_error_is_a_webrefs_error_with_a_unique_code() -> None:
    classes = _classes()
    assert len(classes) > 15
    codes = [cls.code for cls in classes]
    assert all(issubclass(cls, WebrefsError) for cls in classes)
    assert len(codes) == len(set(codes)), "two error classes share a code"


def test_the_docstring_tree_names_every_class() -> None:
    doc = errors.__doc__ or ""
    for cls in _classes():
        assert cls.__name__ in doc, f"{cls.__name__} is missing from the drawn tree"


def test_message_hint_and_model_line() -> None:
    err = StaleRefError("Ref e5 is stale.", hint="Take a new snapshot.", snapshot="S")
    assert str(err) == "Ref e5 is stale. Take a new snapshot."
    assert err.for_model() == "[stale_ref] Ref e5 is stale. Take a new snapshot."
    assert err.snapshot == "S"
    assert isinstance(errors.InvalidArgumentError("x"), ValueError)


class FakePlaywrightError(Exception):
    pass


@pytest.mark.parametrize(
    ("text", "expected", "needle"),
    [
        ("Target page, context or browser has been closed", BrowserClosedError, "closed"),
        ("Page crashed", PageCrashedError, "crashed"),
        (
            "Timeout 5000ms exceeded.\nCall log:\n  - waiting for element to be visible",
            ActionTimeoutError,
            "5000 ms",
        ),
        (
            "Timeout 5000ms exceeded.\n - <div class=\"overlay\"></div> intercepts pointer events",
            NotActionableError,
            "<div>",
        ),
        ("Element is not attached to the DOM", StaleRefError, "removed"),
        ("net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/", NavigationError, "ERR_CONNECTION"),
        ("something nobody expected", WebrefsError, "something nobody expected"),
    ],
)
def test_translation(text: str, expected: type[WebrefsError], needle: str) -> None:
    err = translate_playwright_error(FakePlaywrightError(text), doing="clicking e5")
    assert type(err) is expected
    assert needle in str(err)
    assert "clicking e5" in str(err)


def test_covered_element_reason() -> None:
    err = translate_playwright_error(
        FakePlaywrightError("<div id=\"modal\">…</div> intercepts pointer events"), doing="x"
    )
    assert isinstance(err, NotActionableError)
    assert err.reason == "covered"


@pytest.mark.parametrize(("text", "name"), [
    ("page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/", "ERR_CONNECTION_REFUSED"),
    ("net::ERR_CERT_AUTHORITY_INVALID at https://x.test/", "ERR_CERT_AUTHORITY_INVALID"),
    ("NS_ERROR_UNKNOWN_HOST", "NS_ERROR_UNKNOWN_HOST"),
])
def test_a_navigation_error_carries_the_net_error_name(text: str, name: str) -> None:
    err = translate_playwright_error(FakePlaywrightError(text), doing="opening the page")
    assert isinstance(err, NavigationError) and err.net_error == name
    assert NavigationError("Blocked.").net_error is None


def test_the_cli_reads_the_net_error_field_not_the_text() -> None:
    from webrefs.cli import _net_error

    line = _net_error("http://127.0.0.1:1/", "ERR_CONNECTION_REFUSED")
    assert line is not None and "refused (ERR_CONNECTION_REFUSED)" in line
    assert _net_error("http://x/", None) is None
    assert _net_error("http://x/", "ERR_SOMETHING_NEW") is None
