"""Ref book of one tab (placeholder: replaced by the snapshot engine)."""

from __future__ import annotations

__all__ = ["RefBook"]


class RefBook:
    def forget_documents(self) -> None:
        pass
