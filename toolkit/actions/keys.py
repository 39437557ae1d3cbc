"""press_key: a key or combination (``Enter``, ``Control+A``, ``Shift+Tab``) on a target or on
whatever has focus, with trusted keyboard input."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..models import ActionResult
from .limits import normalize_key
from .perform import Outcome, perform, timeout_ms
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["press_key"]


async def press_key(tab: TabCore, key: str, target: str | None = None) -> ActionResult:
    """Press ``key`` on ``target`` (focusing it first) or on the focused element."""
    combo = normalize_key(key)

    async def act(t: Target | None) -> Outcome:
        if t is not None:
            name = f"{t.ref} ({t.label})" if t.label else t.ref
            await t.handle.press(combo, timeout=timeout_ms(tab))
            return Outcome(f"Pressed {combo} on {name}.")
        await asyncio.wait_for(tab.page.keyboard.press(combo), timeout_ms(tab) / 1000)
        return Outcome(f"Pressed {combo}.")

    return await perform(tab, "press_key", target, act, doing=f"pressing {combo}")
