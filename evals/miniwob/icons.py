"""Reference policies for tasks whose controls are icons or unnamed: social-media, order-food,
click-pie, text-editor."""

from __future__ import annotations

from .policy import Policy

__all__ = ["POLICIES"]

POLICIES: dict[str, Policy] = {}
"""The reference policy of each of these tasks (by task name)."""
