"""Token counting: exact, cached, model names mapped, a clear error when an encoding is missing."""

from __future__ import annotations

import pytest
from webrefs.errors import InvalidArgumentError, TokenizerError
from webrefs.render import tokens
from webrefs.render.tokens import TokenCounter, count_tokens, encoding_name, get_encoding


def test_counts_match_tiktoken() -> None:
    import tiktoken

    text = '- button "Search" [ref=e5]\n  - link "Home" [ref=e1]'
    assert count_tokens(text) == len(tiktoken.get_encoding("o200k_base").encode_ordinary(text))
    assert count_tokens("<|endoftext|>") > 1  # special tokens are plain text here


def test_model_names_map_to_encodings() -> None:
    assert encoding_name("gpt-4o") == "o200k_base"
    assert encoding_name("gpt-4") == "cl100k_base"
    assert encoding_name("cl100k_base") == "cl100k_base"
    assert get_encoding("gpt-4o") is get_encoding("o200k_base")


def test_unknown_name_is_an_argument_error() -> None:
    with pytest.raises(InvalidArgumentError, match="neither a tiktoken encoding"):
        encoding_name("not-a-model")


def test_missing_encoding_names_the_remedy(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken

    def fail(name: str) -> None:
        raise OSError("network is unreachable")

    monkeypatch.setattr(tiktoken, "get_encoding", fail)
    monkeypatch.setattr(tokens, "_encoders", {})
    with pytest.raises(TokenizerError, match="TIKTOKEN_CACHE_DIR"):
        get_encoding("p50k_base")


def test_counter_caches_and_head_cuts_to_a_token_budget() -> None:
    counter = TokenCounter()
    line = '  - link "Gold bar 1g" [ref=e8]'
    assert counter.count(line) == counter.count(line) == counter.exact(line)
    assert line in counter._cache
    text = "word " * 100
    head = counter.head(text, 10)
    assert text.startswith(head) and counter.exact(head) <= 10 and len(head) > 0
    assert counter.head(text, 0) == ""
    assert counter.head("short", 100) == "short"
