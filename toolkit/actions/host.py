"""Page access for host programs (eval checks, harnesses, a user's own glue), not for models:
run JavaScript on the page and read the whole page tree. Both take the tab's lock and are
bounded in time; neither is a model tool.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import ActionTimeoutError, InvalidArgumentError
from ..models import PageTree
from ..snapshot.extract import extract_page
from .guarding import judge_action
from .limits import clamp_ms

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["evaluate", "read_tree"]


async def evaluate(tab: TabCore, expression: str, arg: Any = None,
                   timeout_ms: int = 10_000) -> Any:
    """The value of ``expression`` (a JavaScript expression or function, as Playwright's
    ``page.evaluate`` takes it) on the tab's main frame, within ``timeout_ms``."""
    if not isinstance(expression, str) or not expression.strip():
        raise InvalidArgumentError("The expression must be JavaScript given as a string.",
                                   host_hint="Tab.evaluate() takes a JavaScript expression.")
    limit = clamp_ms(timeout_ms, default=10_000)

    async def run() -> Any:
        # running a script is sensitive (always "confirm"); stopped only under gate="all"
        await judge_action(tab, "evaluate", None, None)
        try:
            return await asyncio.wait_for(tab.page.evaluate(expression, arg), limit / 1000)
        except TimeoutError:
            raise ActionTimeoutError(
                f"The page did not answer within {limit} ms (its main thread may be busy).",
                hint="Reload the page, or raise timeout_ms.",
            ) from None

    return await tab.call("evaluating a script", run)


async def read_tree(tab: TabCore, *, content_refs: bool = True) -> PageTree:
    """The whole page as a :class:`PageTree` (all frames, no budget, no rendering)."""

    async def run() -> PageTree:
        tree = await extract_page(tab.page, tab.refs, content_refs=content_refs)
        tab.last_tree = tree
        return tree

    return await tab.call("reading the page", run)
