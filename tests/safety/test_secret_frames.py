"""A secret scoped to a site is typed only into fields whose own frame is of that site: a
frame of another origin on the site's page (however it is nested, or a blank or sandboxed
frame) is refused, and the recording proxy sees the secret go nowhere but the site."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from webrefs import WebTools
from webrefs.errors import InvalidArgumentError
from webrefs.safety import SafetyPolicy

from tests.helpers.proxy import RecordingProxy
from tests.helpers.server import SiteServer

Make = Callable[..., WebTools]
SECRET = "Bank-Pw 7&Q/\u00e9!"  # also carries characters encodeURIComponent changes


def _bank(tools: WebTools, site: SiteServer, nest: str) -> dict[str, str]:
    url = f"http://a.safety.test:{site.port}/safety/secret-bank.html?nest={nest}"
    tools.call("web_navigate", {"url": url})
    for _ in range(30):  # frames load after the page: wait until their fields are listed
        snap = tools.call("web_snapshot", {}).artifact
        names = {n.name: r for r, n in snap.refs.items()}
        if len([n for n in names if "password" in n.lower()]) >= 2:
            return names
        time.sleep(0.2)
    raise AssertionError(f"the frames did not load: {sorted(names)}")


def _policy() -> SafetyPolicy:
    return SafetyPolicy(sensitive_data={"a.safety.test": {"bank_pw": SECRET}})


def _sent(proxy: RecordingProxy, start: int) -> list[str]:
    """Requests since ``start`` that carry the secret (in any of its URL spellings)."""
    from urllib.parse import quote

    forms = {SECRET, quote(SECRET, safe=""), quote(SECRET, safe="!'()*~"), "Bank-Pw"}
    return [f"{s.host} {s.target}" for s in proxy.seen[start:]
            if any(f in s.target for f in forms)]


def _fill(tools: WebTools, ref: str) -> tuple[bool, str]:
    out = tools.run("web_fill", {"ref": ref, "value": "<secret>bank_pw</secret>"})
    return out.is_error, out.content


@pytest.mark.parametrize(("nest", "field"), [
    ("thief", "Confirm password"),          # a frame of another origin on the bank's page
    ("bank-thief", "Confirm password"),     # ... inside a frame of the bank's own origin
    ("thief-blank", "Blank password"),      # a blank frame the other origin wrote itself
    ("sandboxed", "Inner password"),        # the bank's own URL, sandboxed: an opaque origin
])
def test_a_frame_of_another_origin_never_gets_the_secret(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy, nest: str,
        field: str) -> None:
    tools = make_tools(_policy())
    refs = _bank(tools, site, nest)
    start = len(proxy.seen)
    failed, content = _fill(tools, refs[field])
    assert failed and "may not be typed" in content, content
    assert SECRET not in content
    assert _sent(proxy, start) == []  # nothing left for the other origin
    frame_values = tools.current_tab().evaluate(
        "[...document.querySelectorAll('iframe')].length")
    assert frame_values >= 1
    # the bank's own field, in the top frame, still takes it
    failed, content = _fill(tools, refs["Bank password"])
    assert not failed, content
    assert tools.current_tab().evaluate("document.getElementById('own').value") == SECRET


def test_a_frame_of_the_site_inside_a_frame_of_another_origin_gets_it(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy) -> None:
    tools = make_tools(_policy())
    refs = _bank(tools, site, "thief-bank")
    start = len(proxy.seen)
    failed, content = _fill(tools, refs["Inner password"])  # its own origin is the bank's
    assert not failed, content
    assert SECRET not in content
    deadline = time.monotonic() + 5  # (the page's request may reach the proxy after the fill)
    while not (sent := _sent(proxy, start)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sent and all(s.startswith("a.safety.test ") for s in sent), sent
    failed, content = _fill(tools, refs["Confirm password"])  # its parent's origin is not
    assert failed and "may not be typed" in content
    assert all(s.startswith("a.safety.test ") for s in _sent(proxy, start))


def test_an_unknown_or_misplaced_secret_is_a_clear_error(make_tools: Make,
                                                         site: SiteServer) -> None:
    tools = make_tools(_policy())
    refs = _bank(tools, site, "thief")
    out = tools.run("web_fill", {"ref": refs["Confirm password"],
                                 "value": "<secret>bank_pw</secret>"})
    assert isinstance(out.artifact, InvalidArgumentError)
    assert "b.safety.test" in out.content  # says which site the field belongs to


def test_web_type_gives_a_secret_only_to_its_sites_frame_and_never_shows_it(
        make_tools: Make, site: SiteServer, proxy: RecordingProxy) -> None:
    tools = make_tools(_policy())
    refs = _bank(tools, site, "thief")
    start = len(proxy.seen)
    out = tools.run("web_type", {"ref": refs["Confirm password"],
                                 "text": "<secret>bank_pw</secret>"})
    assert out.is_error and "may not be typed" in out.content, out.content
    assert SECRET not in out.content and _sent(proxy, start) == []
    out = tools.run("web_type", {"ref": refs["Bank password"],
                                 "text": "<secret>bank_pw</secret>"})
    assert not out.is_error, out.content
    assert tools.current_tab().evaluate("document.getElementById('own').value") == SECRET
    assert SECRET not in out.content and "Bank-Pw" not in out.content
    assert out.content.startswith('Typed "<secret>bank_pw</secret>" into '), out.content
