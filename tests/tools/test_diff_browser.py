"""after_action="diff" on a page larger than the budget: an action that changes one field
reports that field, not the elements the new snapshot's budget happened to cut."""

from __future__ import annotations

import pytest
from webrefs import Browser
from webrefs.evals.baselines.scripted import find_ref
from webrefs.tools import WebTools

from tests.helpers.server import SiteServer

pytestmark = pytest.mark.browser


def test_fill_on_a_long_page_diffs_only_what_changed(browser: Browser, site: SiteServer) -> None:
    tab = browser.new_tab()
    try:
        tab.goto(site.url("/render/products.html"))
        tools = WebTools(tab=tab, after_action="diff", max_tokens=900)
        email = find_ref(tab.snapshot(max_tokens=20_000).text, ["textbox"], "Email")
        assert email
        first = tools.call("web_snapshot").artifact.text  # the baseline the model saw
        assert "truncated=true" in first
        out = tools.call("web_fill", {"ref": email, "value": "a@b.test"}).content
        # the field changed as the summary says, and nothing else did (the elements the
        # budget cut are not reported as removed): one sentence, no page content
        assert out.endswith("Nothing else on the page changed."), out
        assert "[diff]" not in out and "removed" not in out, out
        tab.fill(email, "c@d.test")  # behind the model's back: the tools say nothing of it
        out = tools.call("web_snapshot", {"changes_only": True}).content
        # the diff's lines (page content may be fenced between marker lines)
        lines = out.split("\n")
        start = next(i for i, ln in enumerate(lines) if ln.startswith("[diff] "))
        diff = [ln for ln in lines[start:] if not ln.startswith("<<<")]
        assert "changed=1 added=0 removed=0" in diff[0], out
        assert diff[1] == "in form:", out  # the line of the element holding it
        assert diff[2].startswith('  ~ textbox "Email"') and 'value="c@d.test"' in diff[2], out
        assert diff[2].endswith('(was: [value="a@b.test"])'), out
        assert diff[3].startswith("unchanged: ") and diff[3].endswith(" other elements"), out
        assert len(diff) == 4, out
    finally:
        tab.close()
