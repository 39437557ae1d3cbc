"""Reference policies for the email-inbox family: find an email by its sender, then forward,
reply to, star or delete it (the goal in several phrasings)."""

from __future__ import annotations

from .policy import Policy

__all__ = ["POLICIES"]

POLICIES: dict[str, Policy] = {}
"""The reference policy of each email-inbox task (by task name)."""
