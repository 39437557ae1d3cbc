"""Model prices, for the cost of an episode: a table the user supplies and extends.

webrefs ships no prices (they change too often to be right for long); pass a TOML file::

    # prices.toml: US dollars per million tokens
    ["openai:gpt-4.1-mini"]
    input = 0.40
    output = 1.60

A provider with no price, or one that reports no token usage, has no cost: it is left
blank, never guessed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from webrefs.errors import InvalidArgumentError

__all__ = ["Price", "episode_cost", "load_prices"]


@dataclass(frozen=True)
class Price:
    input: float
    """US dollars per million prompt tokens."""
    output: float
    """US dollars per million completion tokens."""


def load_prices(path: Path) -> dict[str, Price]:
    """The price table in ``path`` (provider name -> price)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidArgumentError(f"Cannot read prices from {path}: {exc}") from None
    except RecursionError:
        raise InvalidArgumentError(f"Cannot read prices from {path}: it nests arrays or "
                                   "tables too deeply.") from None
    table: dict[str, Price] = {}
    for name, entry in raw.items():
        try:
            table[name] = Price(input=float(entry["input"]), output=float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise InvalidArgumentError(
                f"{path}: the price of {name!r} needs numbers 'input' and 'output' "
                "(US dollars per million tokens).") from None
    return table


def episode_cost(price: Price | None, prompt_tokens: int | None,
                 completion_tokens: int | None) -> float | None:
    """Dollars spent, or ``None`` when the price or the usage is unknown."""
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    return round((prompt_tokens * price.input + completion_tokens * price.output) / 1e6, 6)
