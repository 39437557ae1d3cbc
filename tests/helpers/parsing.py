"""Parsing Python source in tests, safe from a CPython 3.11 defect.

CPython 3.11 before 3.11.8 can fail to build an AST ("AST constructor recursion depth
mismatch") once other tests in the same worker have moved the interpreter's recursion
counters (deep recursion on purpose, a changed recursion limit). Parses are cached, and
test modules parse what they need when they are imported, before any test runs.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from functools import cache

__all__ = ["parse_source"]


@cache
def parse_source(source: str, filename: str = "<unknown>") -> ast.Module:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ast.parse, source, filename).result()
