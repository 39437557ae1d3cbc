"""Redaction, pure: every common encoding of a secret is replaced (properties over random
secrets), text is redacted before any cut so no cut leaves part of a secret (random cut
points through every cut helper), short secrets follow their documented rules, and data is
redacted field by field. Browser probes of the same are in test_secret_echo.py."""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import re
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from webrefs.errors import InvalidArgumentError, cap, clip, elide, redacting
from webrefs.models import ActionResult, DialogEvent, Node, PageTree
from webrefs.safety import SafetyPolicy
from webrefs.safety.consent import ConsentRequest, ask
from webrefs.safety.fence import clean_line
from webrefs.safety.secrets import (
    MIN_ENCODED_CHARS,
    MIN_REDACT_CHARS,
    placeholder,
    redact,
    redact_data,
    redactor,
    same_origin,
    secrets_for,
    substitute,
)

# what a password or token is made of: letters, digits, punctuation, a few non-ASCII letters
# and a space; never the « » the tests put around it
_CHARS = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"),
                       exclude_characters="«»\u00a0\u2028\u2029")
SECRETS = st.text(_CHARS, min_size=MIN_ENCODED_CHARS, max_size=40).filter(
    lambda s: s == s.strip() and "  " not in s)
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _b64(data: str) -> str:
    return base64.b64encode(data.encode()).decode()


def _js_uri(value: str) -> str:
    """JavaScript's encodeURIComponent."""
    return quote(value, safe="!'()*~")


def encodings(value: str) -> dict[str, str]:
    """The encodings a page commonly puts a value in (written here without webrefs)."""
    return {
        "raw": value,
        "uri": _js_uri(value),
        "quote": quote(value, safe=""),
        "uri_lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(),
                            quote(value, safe="")),  # %c3%a9: hex digits in lower case
        "uri2": _js_uri(_js_uri(value)),
        "form": quote_plus(value, safe="*"),
        "form_in_url": _js_uri(quote_plus(value)),
        "html": html.escape(value),
        "html_text": html.escape(value, quote=False),
        "entities": "".join(f"&#{ord(c)};" for c in value),
        "hex_entities": "".join(f"&#x{ord(c):X};" for c in value),
        "json": json.dumps(value),
        "json_utf8": json.dumps(value, ensure_ascii=False),
        "json_in_json": json.dumps(json.dumps(value)),
        "json_in_url": _js_uri(json.dumps({"v": value})),
        "html_in_url": _js_uri(html.escape(value)),
        "b64": _b64(value),
        "b64url": base64.urlsafe_b64encode(value.encode()).decode().rstrip("="),
        "b64_in_url": _js_uri(_b64(value)),
    }


def _cores(value: str) -> list[str]:
    """The characters of base64 that carry only ``value``'s bits, at each alignment."""
    raw = value.encode()
    out = []
    for shift in range(3):
        enc = base64.b64encode(b"\x00" * shift + raw).decode()
        first, last = -(-8 * shift // 6), (8 * shift + 8 * len(raw)) // 6
        out.append(enc[first:last])
    return out


@PROPERTY
@given(secret=SECRETS, before=st.text(max_size=20), after=st.text(max_size=20))
def test_no_encoding_of_a_secret_survives(secret: str, before: str, after: str) -> None:
    for name, form in encodings(secret).items():
        text = f"{before}«{form}»{after}"
        out = redact(text, {"pw": secret})
        assert form not in out, (name, form, out)
        assert placeholder("pw") in out, (name, form, out)


@PROPERTY
@given(secret=SECRETS, user=st.text(st.characters(codec="ascii", categories=("L", "N")),
                                    max_size=9))
def test_base64_of_a_secret_inside_longer_base64_is_caught(secret: str, user: str) -> None:
    basic = _b64(f"{user}:{secret}")  # an Authorization: Basic header
    out = redact(f"Basic {basic}", {"pw": secret})
    assert placeholder("pw") in out
    for core in _cores(secret):
        if len(core) >= MIN_ENCODED_CHARS:
            assert core not in out


def _no_part(out: str, secret: str, n: int = 4) -> bool:
    return not any(secret[i:i + n] in out for i in range(len(secret) - n + 1))


CUTTERS: dict[str, Callable[[str, int], str]] = {
    "clip": clip,
    "cap": cap,
    "elide": elide,
    "clean_line": clean_line,
}


@PROPERTY
@given(secret=SECRETS, before=st.text("abc .", max_size=120), after=st.text("xyz .",
                                                                            max_size=120),
       cut=st.integers(min_value=1, max_value=300), cutter=st.sampled_from(sorted(CUTTERS)),
       form=st.sampled_from(["raw", "uri", "html", "json", "form"]))
def test_no_cut_leaves_part_of_a_secret(secret: str, before: str, after: str, cut: int,
                                        cutter: str, form: str) -> None:
    shown = encodings(secret)[form]
    assume(_no_part(before + "«" + "»" + after + placeholder("pw"), shown))
    text = f"{before}«{shown}»{after}"
    with redacting(redactor({"pw": secret})):
        out = CUTTERS[cutter](text, cut)
    assert _no_part(out, shown), (cutter, cut, out)


def test_a_cut_without_the_redactor_would_leave_a_prefix() -> None:
    """What the property above guards against: cutting first, then redacting."""
    secret = "Tr0ub4dor&3-horse"
    text = f"your password is {secret} keep it"
    cut = clip(text, len("your password is ") + 10)
    assert "Tr0ub4dor&" in redact(cut, {"pw": secret})
    with redacting(redactor({"pw": secret})):
        assert "Tr0ub" not in clip(text, len("your password is ") + 10)


def test_short_secrets_follow_their_rules() -> None:
    assert MIN_REDACT_CHARS == 3 and MIN_ENCODED_CHARS == 6
    # under 3 characters: never searched (it would be everywhere)
    assert redact("ab 12 ab", {"x": "ab"}) == "ab 12 ab"
    assert redact("  ab  ", {"x": "  ab  "}) == "  ab  "  # white space does not count
    # 3 to 5 characters: only where the value stands apart from letters and digits
    pin = {"pin": "1234"}
    assert redact("PIN: 1234.", pin) == "PIN: <secret>pin</secret>."
    assert redact("pin=1234&x", pin) == "pin=<secret>pin</secret>&x"
    assert redact("order 5123456, ref A1234", pin) == "order 5123456, ref A1234"
    assert redact("cat concatenate", {"w": "cat"}) == "<secret>w</secret> concatenate"
    assert redact("q=a%20b%21", {"s": "a b!"}) == "q=<secret>s</secret>"  # encodings: yes
    assert redact(_b64("abcd"), {"s": "abcd"}) == _b64("abcd")  # base64: no
    # from 6 characters: anywhere, and in base64
    six = {"s": "hunter"}
    assert redact("xhunterx", six) == "x<secret>s</secret>x"
    assert placeholder("s") in redact(_b64("hunter"), six)
    assert placeholder("s") in redact(_b64("me:hunter"), six)


def test_placeholders_stay_and_redaction_is_idempotent() -> None:
    secrets = {"secret": "secret", "pw": "secret-pw-1"}
    text = "a <secret>secret</secret> b secret-pw-1 c secret"
    once = redact(text, secrets)
    assert once == "a <secret>secret</secret> b <secret>pw</secret> c <secret>secret</secret>"
    assert redact(once, secrets) == once
    assert redact("nothing here", secrets) == "nothing here"


def test_white_space_inside_a_secret_matches_as_a_page_folds_it() -> None:
    secret = "correct horse  battery"
    for shown in ("correct horse battery", "correct\nhorse\t battery", "correct+horse+battery",
                  "correct%20horse%2B%2Bbattery", "correct&nbsp;horse battery"):
        assert redact(f"[{shown}]", {"pw": secret}) == "[<secret>pw</secret>]", shown


def test_a_long_secret_and_many_secrets() -> None:
    long = "".join(chr(65 + (i * 7) % 26) + str(i % 10) for i in range(250))  # 500 chars
    secrets = {f"s{i}": f"value-{i}-{'x' * i}" for i in range(3, 30)} | {"long": long}
    text = f"head {_js_uri(long)} mid {long} {_b64(long)} tail value-7-xxxxxxx"
    out = redact(text, secrets)
    assert out == ("head <secret>long</secret> mid <secret>long</secret> "
                   "<secret>long</secret> tail <secret>s7</secret>")
    assert redactor(secrets).slack >= len(_js_uri(long))  # the extractor keeps that much more


class _Pair(NamedTuple):
    a: str
    b: float


@dataclasses.dataclass(frozen=True)
class _Data:
    text: str
    items: tuple[str, ...] = ()


def test_data_is_redacted_field_by_field_and_kept_when_clean() -> None:
    secrets = {"pw": "S3cr3t-value"}
    tree = PageTree(url="https://x.test/?t=S3cr3t-value", title="S3cr3t-value",
                    root=Node(tag="body", children=[Node(name="S3cr3t-value", value="ok"),
                                                    Node(text="clean")]),
                    dialogs=[DialogEvent(type="alert", message="S3cr3t-value")])
    out = redact_data(tree, secrets)
    assert "S3cr3t" not in out.model_dump_json()
    assert out.root.children[1] is tree.root.children[1]  # untouched parts are shared
    assert out.root.children[0].value == "ok"
    clean = PageTree(root=Node(tag="body", name="nothing"))
    assert redact_data(clean, secrets) is clean
    result = ActionResult(action="fill", readback={"value": "S3cr3t-value", "S3cr3t-value": 1})
    assert redact_data(result, secrets).readback == {"value": "<secret>pw</secret>",
                                                     "<secret>pw</secret>": 1}
    mixed = [_Pair("S3cr3t-value", 1.0), ("a", "S3cr3t-value"), _Data("S3cr3t-value", ("x",))]
    assert redact_data(mixed, secrets) == [_Pair("<secret>pw</secret>", 1.0),
                                           ("a", "<secret>pw</secret>"),
                                           _Data("<secret>pw</secret>", ("x",))]


async def test_a_consent_callback_never_sees_a_secret() -> None:
    seen: list[ConsentRequest] = []

    def callback(request: ConsentRequest) -> bool:
        seen.append(request)
        return True

    policy = SafetyPolicy(sensitive_data={"bank.test": {"pw": "Hunter2-S3cr3t"}},
                          consent=callback)
    request = ConsentRequest(action="click", target="e1",
                             target_name='button "Pay Hunter2-S3cr3t"',
                             url="https://bank.test/?p=Hunter2-S3cr3t", level="confirm",
                             reasons=("payment",), details={"field": "Hunter2%2DS3cr3t"})
    assert await ask(policy, request) is True
    (shown,) = seen
    assert "Hunter2" not in repr(shown) and "<secret>pw</secret>" in shown.url
    assert shown.key == redact_data(request, {"pw": "Hunter2-S3cr3t"}).key


@pytest.mark.parametrize(("origin", "url", "same"), [
    ("https://bank.test", "https://bank.test/login?x=1", True),
    ("http://bank.test", "http://bank.test:80/", True),
    ("http://a.test:8080", "http://A.TEST:8080/x", True),
    ("http://a.test:8080", "http://a.test:8081/x", False),
    ("https://bank.test", "http://bank.test/", False),
    ("https://bank.test", "https://evil.test/", False),
    ("null", "https://bank.test/", False),
    ("https://bank.test", "about:blank", False),
])
def test_same_origin(origin: str, url: str, same: bool) -> None:
    assert same_origin(origin, url) is same


def test_secrets_follow_the_fields_frame_origin() -> None:
    policy = SafetyPolicy(sensitive_data={"any": "any-value", "*.bank.test": {"pw": "p@ss!"}})
    assert secrets_for(policy, "https://www.bank.test") == {"any": "any-value", "pw": "p@ss!"}
    assert secrets_for(policy, "https://evil.test") == {"any": "any-value"}
    assert secrets_for(policy, "null") == {}  # sandboxed, data: documents
    with pytest.raises(InvalidArgumentError, match=r"may not be typed into a field of evil\.test"):
        substitute("<secret>pw</secret>", policy, "https://evil.test")
    with pytest.raises(InvalidArgumentError, match="no site of its own"):
        substitute("<secret>any</secret>", policy, "null")


@PROPERTY
@given(secret=st.one_of(SECRETS, st.sampled_from(["1234", "a b!", "hunter"])),
       before=st.text(max_size=30), after=st.text(max_size=30))
def test_a_model_is_redacted_as_its_strings_are(secret: str, before: str, after: str) -> None:
    """The one look at a model's JSON before walking it never misses what a walk finds."""
    text = before + secret + after
    node = Node(tag="input", name=text, value=text, attrs={"title": text})
    out = redact_data(node, {"pw": secret})
    assert out.name == out.value == out.attrs["title"] == redact(text, {"pw": secret})
