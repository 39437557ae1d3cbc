"""Where the test data lives, for tests in any folder."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
"""The tests/ folder."""
ROOT = TESTS.parent
"""The project checkout."""
SITES = TESTS / "sites"
"""Pages served by the local test server."""
DATA = TESTS / "data"
"""Trees and golden renders."""
