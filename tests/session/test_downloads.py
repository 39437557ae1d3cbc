"""Names downloads are saved under: no folders, no reserved names, bounded length."""

from __future__ import annotations

import pytest
from webrefs.session.downloads import sanitize_filename


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\win.ini", "win.ini"),
        ("a:b?c*.txt", "a_b_c_.txt"),
        ("", "download"),
        ("...", "download"),
        ("CON.txt", "_CON.txt"),
        ("x" * 300 + ".csv", "x" * 116 + ".csv"),
    ],
)
def test_sanitize_filename(raw: str, safe: str) -> None:
    assert sanitize_filename(raw) == safe
