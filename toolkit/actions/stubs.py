"""Placeholders until the actions land."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..models import ActionResult, TextResult

if TYPE_CHECKING:
    from ..tab import TabCore


async def click(tab: TabCore, target: str, *, button: str = "left", double: bool = False) -> ActionResult:
    raise NotImplementedError


async def hover(tab: TabCore, target: str) -> ActionResult:
    raise NotImplementedError


async def fill(tab: TabCore, target: str, value: str) -> ActionResult:
    raise NotImplementedError


async def select(tab: TabCore, target: str, values: str | Sequence[str]) -> ActionResult:
    raise NotImplementedError


async def check(tab: TabCore, target: str, checked: bool = True) -> ActionResult:
    raise NotImplementedError


async def scroll(tab: TabCore, direction: str, amount: int | str | None, target: str | None) -> ActionResult:
    raise NotImplementedError


async def press_key(tab: TabCore, key: str, target: str | None) -> ActionResult:
    raise NotImplementedError


async def get_text(tab: TabCore, target: str | None, max_length: int) -> TextResult:
    raise NotImplementedError


async def wait_for(tab: TabCore, text: str | None, target: str | None, timeout_ms: int) -> ActionResult:
    raise NotImplementedError


async def upload(tab: TabCore, target: str, paths: str | Sequence[str]) -> ActionResult:
    raise NotImplementedError


async def screenshot(tab: TabCore, full_page: bool) -> bytes:
    raise NotImplementedError
