"""Token counting with tiktoken: one cached encoder per encoding, exact counts, no fallback.

A model name (``gpt-4o``) is mapped to its encoding with tiktoken's own table. When an
encoding cannot be loaded (tiktoken downloads its files on first use, which fails offline)
:class:`~webrefs.errors.TokenizerError` names the remedy; counts are never silently replaced
by character estimates.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError, TokenizerError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "TOKENIZER_REMEDY",
    "TokenCounter",
    "count_tokens",
    "encoding_name",
    "get_encoding",
    "require_encodings",
]

TOKENIZER_REMEDY = (
    "tiktoken downloads its encoding files on first use. Give this program network access "
    "once, or set TIKTOKEN_CACHE_DIR to a folder holding tiktoken's cached files (fill it on "
    "a machine with network: TIKTOKEN_CACHE_DIR=DIR python -c \"import tiktoken; "
    "tiktoken.get_encoding('o200k_base')\"). 'webrefs doctor' checks the tokenizer."
)
"""What to do when an encoding cannot be loaded (a remedy for the host, not for a model)."""

_lock = threading.Lock()
_encoders: dict[str, tiktoken.Encoding] = {}


_names: dict[str, str] = {}


def encoding_name(name: str) -> str:
    """The tiktoken encoding name for an encoding or model name."""
    known = _names.get(name) if isinstance(name, str) else None
    if known is not None:
        return known
    resolved = _resolve(name)
    if len(_names) < 1000:
        _names[name] = resolved
    return resolved


def _resolve(name: str) -> str:
    import tiktoken
    import tiktoken.model

    if not isinstance(name, str) or not name.strip():
        raise InvalidArgumentError("The tokenizer encoding must be a non-empty string.")
    name = name.strip()
    if name in tiktoken.list_encoding_names():
        return name
    try:
        return tiktoken.model.encoding_name_for_model(name)
    except KeyError:
        known = ", ".join(sorted(tiktoken.list_encoding_names()))
        raise InvalidArgumentError(
            f"{name!r} is neither a tiktoken encoding nor a model tiktoken knows.",
            hint=f"Use one of: {known}, or a model name such as 'gpt-4o'.",
        ) from None


def get_encoding(name: str = "o200k_base") -> tiktoken.Encoding:
    """The cached encoder for an encoding or model name."""
    enc = _encoders.get(name)
    if enc is not None:
        return enc
    resolved = encoding_name(name)
    with _lock:
        enc = _encoders.get(resolved)
        if enc is None:
            import tiktoken

            try:
                enc = tiktoken.get_encoding(resolved)
                enc.encode_ordinary("webrefs")
            except Exception as exc:  # tiktoken raises plain exceptions when a download fails
                raise TokenizerError(
                    f"The tiktoken encoding {resolved!r} could not be loaded "
                    f"({type(exc).__name__}: {' '.join(str(exc).split())[:200]}).",
                    hint=TOKENIZER_REMEDY,
                    encoding=resolved,
                ) from exc
            _encoders[resolved] = enc
        _encoders[name] = enc
    return enc


def require_encodings(*names: str) -> None:
    """Load each encoding (or model name) now, so a missing tokenizer fails once, up front,
    with :data:`TOKENIZER_REMEDY`, instead of inside every later snapshot. Raises
    :class:`~webrefs.errors.TokenizerError`."""
    for name in dict.fromkeys(names):
        get_encoding(name)


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Exact number of tokens of ``text`` (special tokens are counted as plain text)."""
    return len(get_encoding(encoding).encode_ordinary(text))


class TokenCounter:
    """Counts many short strings, each one encoded at most once."""

    def __init__(self, encoding: str = "o200k_base") -> None:
        self.encoder = get_encoding(encoding)
        self._cache: dict[str, int] = {}

    def count(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = len(self.encoder.encode_ordinary(text))
            self._cache[text] = n
        return n

    def trim_cache(self, limit: int) -> None:
        """Forget every cached count once more than ``limit`` strings are cached."""
        if len(self._cache) > limit:
            self._cache.clear()

    def exact(self, text: str) -> int:
        """Count a whole text (not cached: used once per result)."""
        return len(self.encoder.encode_ordinary(text))

    def head(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` whose count is at most ``max_tokens``."""
        if max_tokens <= 0:
            return ""
        ids = self.encoder.encode_ordinary(text)
        if len(ids) <= max_tokens:
            return text
        cut = self.encoder.decode(ids[:max_tokens])
        while cut and (self.exact(cut) > max_tokens or not text.startswith(cut)):
            cut = cut[:-1]
        return cut
