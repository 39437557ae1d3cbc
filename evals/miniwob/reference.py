"""The MiniWoB++ reference: every task's scripted policy, from the family modules, and the
factory a suite's ``{"policy": "webrefs.evals.miniwob.reference:reference_model"}`` names."""

from __future__ import annotations

from ..suite.tasks import Task
from . import dragging, drawing, email, families, icons, picking, placing, searching, seeing
from .policy import Play, Policy, PolicyChatModel, stuck

__all__ = ["NO_REFERENCE_YET", "POLICIES", "reference_model"]

POLICIES: dict[str, Policy] = {**families.POLICIES, **email.POLICIES, **icons.POLICIES,
                               **dragging.POLICIES, **seeing.POLICIES,
                               **picking.POLICIES, **searching.POLICIES,
                               **drawing.POLICIES, **placing.POLICIES}
"""The reference policy of each MiniWoB++ task (by task name)."""

NO_REFERENCE_YET: dict[str, str] = {}
"""Expressible tasks whose reference fails today, and why (they stay in the suite)."""


def _missing(task_id: str) -> Policy:
    def play(goal: str) -> Play:
        raise stuck(f"there is no reference policy for MiniWoB++ task {task_id!r}")
        yield ("web_snapshot", {})  # pragma: no cover - makes this a generator

    return play


def reference_model(task: Task, text_actions: bool = False) -> PolicyChatModel:
    """The reference for a MiniWoB++ task (its id is the MiniWoB++ task name)."""
    return PolicyChatModel(policy=POLICIES.get(task.id) or _missing(task.id),
                           text_actions=text_actions)
