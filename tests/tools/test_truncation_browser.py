"""On a long page, web_snapshot uses the budget it is given: no default cap cuts before the
token budget, and every marker names the limit that cut and a way around it."""

from __future__ import annotations

import re

import pytest
from webrefs import Browser
from webrefs.tools import WebTools

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def test_a_large_budget_is_used_and_markers_name_the_budget(
        browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/render/products.html?n=400"))
        tools = WebTools(tab=tab)
        big = tools.call("web_snapshot", {"max_tokens": 20_000}).artifact
        # 400 products: a link and a button each, plus the search and newsletter forms
        assert big.stats.refs_emitted >= 806 and not big.stats.truncated, big.stats
        assert big.stats.truncation_reasons == []
        small = tools.call("web_snapshot", {"max_tokens": 3000}).artifact
        assert small.stats.truncated and small.stats.truncation_reasons == ["max_tokens"]
        markers = [ln for ln in small.text.split("\n") if ln.lstrip().startswith("- ... ")]
        assert markers, small.text
        for m in markers:
            assert re.search(r"\(over the token budget; (scope=|web_scroll (down|up)|"
                             r"max_tokens above 3000)", m), m
    finally:
        tab.close()
