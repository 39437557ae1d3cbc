"""What changed between two snapshot texts, as a short line diff. Pure logic, no browser."""

from __future__ import annotations

from difflib import SequenceMatcher

__all__ = ["diff_snapshots"]


def diff_snapshots(before: str | None, after: str, *, max_lines: int = 80) -> str:
    """Lines removed (``- ``) and added (``+ ``) from ``before`` to ``after``.

    Returns ``"no changes"`` when nothing changed, and the whole new text (marked as such) when
    there is no earlier snapshot. At most ``max_lines`` lines, then a count of the rest.
    """
    if before is None:
        return "(no earlier snapshot; the whole page)\n" + after
    old = before.splitlines()
    new = after.splitlines()
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        out.extend(f"- {line.strip()}" for line in old[i1:i2])
        out.extend(f"+ {line.strip()}" for line in new[j1:j2])
    if not out:
        return "no changes"
    if len(out) > max_lines:
        rest = len(out) - max_lines
        out = [*out[:max_lines], f"... {rest} more changed lines"]
    return "\n".join(out)
