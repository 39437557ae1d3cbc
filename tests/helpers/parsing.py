"""Parsing Python source in tests, safe from a CPython 3.11 defect.

CPython 3.11 before 3.11.8 can fail to build an AST ("AST constructor recursion depth
mismatch") in a thread that earlier caught a RecursionError, which other tests in the same
worker may do on purpose. Each parse here runs on a fresh thread, whose counters are clean.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor

__all__ = ["parse_source"]


def parse_source(source: str, filename: str = "<unknown>") -> ast.Module:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ast.parse, source, filename).result()
