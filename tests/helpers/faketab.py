"""A fake tab for tool and adapter tests that need no browser: a tiny state machine that
imitates the demo site (search page -> results -> article) behind the Tab coroutine API.

It runs on its own event-loop thread through webrefs' Runner, exactly like a real Tab, so the
registry's loop bridging, locking and error handling are exercised for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from webrefs._loop import Runner
from webrefs.errors import NavigationError, StaleRefError, UnknownRefError
from webrefs.models import (
    ActionResult,
    PageInfo,
    ScreenMark,
    Screenshot,
    Snapshot,
    SnapshotStats,
    TextResult,
)

PAGES = {
    "home": ("Coastal Lights", "http://demo.test/index.html", [
        ("searchbox", "Search articles", "e1"),
        ("button", "Search", "e2"),
        ("link", "About", "e3"),
    ]),
    "results": ("Search - Coastal Lights", "http://demo.test/search.html?q=lighthouse", [
        ("searchbox", "Search articles", "e4"),
        ("button", "Search", "e5"),
        ("link", "Veldmark Lighthouse", "e6"),
        ("link", "Life of a lighthouse keeper", "e7"),
    ]),
    "article": ("Veldmark Lighthouse - Coastal Lights", "http://demo.test/article-veldmark.html", [
        ("link", "Back to search", "e8"),
    ]),
}
ARTICLE = "Veldmark Lighthouse is a white stone tower. It was built in 1887 and stands 38 metres."


class FakeTab:
    """Implements the Tab coroutines the tools call, on its own loop thread."""

    def __init__(self, tab_id: str = "t1") -> None:
        self._runner = Runner()
        self.id = tab_id
        self.page = "home"
        self.history: list[str] = []
        self.values: dict[str, str] = {}
        self.last_snapshot: Snapshot | None = None
        self.calls: list[tuple[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.delay = 0.0
        self.snapshot_error: Exception | None = None

    @property
    def runner(self) -> Runner:
        return self._runner

    def stop(self) -> None:
        self._runner.stop()

    @property
    def url(self) -> str:
        return PAGES[self.page][1]

    @property
    def closed(self) -> bool:
        return False

    async def _enter(self, name: str, arg: Any) -> None:
        assert asyncio.get_running_loop() is self._runner.loop, "tool ran off the browser loop"
        self.calls.append((name, arg))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        if self.delay:
            await asyncio.sleep(self.delay)
        self.active -= 1

    def _refs(self) -> dict[str, tuple[str, str]]:
        return {ref: (role, name) for role, name, ref in PAGES[self.page][2]}

    def _check(self, ref: str) -> tuple[str, str]:
        known = self._refs()
        if ref in known:
            return known[ref]
        if ref in {r for _, (_, _, items) in PAGES.items() for *_, r in items}:
            raise StaleRefError(f"Ref {ref} is gone from the page.", hint="Take a new snapshot.")
        raise UnknownRefError(f"Ref {ref} was never issued.", hint="Use a ref from the snapshot.")

    def _text(self) -> str:
        title, url, items = PAGES[self.page]
        lines = [f"# {title} ({url})"]
        for role, name, ref in items:
            value = f": {self.values[ref]}" if ref in self.values else ""
            lines.append(f'- {role} "{name}" [ref={ref}]{value}')
        return "\n".join(lines)

    async def atitle(self) -> str:
        return PAGES[self.page][0]

    async def asnapshot(self, **options: Any) -> Snapshot:
        await self._enter("snapshot", options)
        if self.snapshot_error is not None:
            raise self.snapshot_error
        text = self._text()
        snap = Snapshot(
            text=text, refs={},
            stats=SnapshotStats(tokens=len(text) // 4, chars=len(text), nodes_emitted=3,
                                refs_emitted=3, truncated=False),
            page=PageInfo(url=self.url, title=PAGES[self.page][0]),
        )
        self.last_snapshot = snap
        return snap

    def _go(self, page: str, action: str, target: str | None) -> ActionResult:
        before = self.url
        self.history.append(self.page)
        self.page = page
        return ActionResult(action=action, target=target, ref=target, message=f"Clicked {target}.",
                            url_before=before, url_after=self.url, navigated=True)

    async def aclick(self, target: str) -> ActionResult:
        await self._enter("click", target)
        role, name = self._check(target)
        if name == "Search":
            return self._go("results", "click", target)
        if name == "Veldmark Lighthouse":
            return self._go("article", "click", target)
        return ActionResult(action="click", target=target, ref=target,
                            message=f'Clicked {role} "{name}".', url_before=self.url,
                            url_after=self.url)

    async def afill(self, target: str, value: str) -> ActionResult:
        await self._enter("fill", (target, value))
        role, name = self._check(target)
        self.values[target] = value
        return ActionResult(action="fill", target=target, ref=target,
                            message=f'Filled {role} "{name}" with {value!r}.',
                            readback={"value": value})

    async def aselect(self, target: str, values: Sequence[str]) -> ActionResult:
        await self._enter("select", (target, list(values)))
        self._check(target)
        return ActionResult(action="select", target=target, message="Selected.")

    async def acheck(self, target: str, checked: bool) -> ActionResult:
        await self._enter("check", (target, checked))
        self._check(target)
        return ActionResult(action="check", target=target, message=f"Set checked={checked}.")

    async def ascroll(self, direction: str, amount: int, target: str | None) -> ActionResult:
        await self._enter("scroll", (direction, amount, target))
        return ActionResult(action="scroll", message=f"Scrolled {direction} {amount} px.")

    async def apress_key(self, key: str, target: str | None) -> ActionResult:
        await self._enter("press_key", (key, target))
        return ActionResult(action="press_key", message=f"Pressed {key}.")

    async def atype_text(self, text: str, target: str | None, enter: bool) -> ActionResult:
        await self._enter("type", (text, target, enter))
        return ActionResult(action="type", message="Typed.")

    async def aget_text(self, target: str | None, max_length: int) -> TextResult:
        await self._enter("get_text", (target, max_length))
        text = ARTICLE if self.page == "article" else PAGES[self.page][0]
        return TextResult(text=text[:max_length], total_length=len(text),
                          truncated=len(text) > max_length, ref=target,
                          source="element" if target else "main", url=self.url)

    async def agoto(self, url: str) -> ActionResult:
        await self._enter("goto", url)
        if "blocked" in url:
            raise NavigationError(f"Navigation to {url} was blocked.")
        return ActionResult(action="goto", message=f"Opened {url}.", url_after=url,
                            navigated=True)

    async def ago_back(self) -> ActionResult:
        await self._enter("go_back", None)
        if not self.history:
            raise NavigationError("There is no page to go back to.")
        self.page = self.history.pop()
        return ActionResult(action="go_back", message=f"Now at {self.url}.", navigated=True)

    async def ahover(self, target: str) -> ActionResult:
        await self._enter("hover", target)
        self._check(target)
        return ActionResult(action="hover", message="Hovered.")

    async def await_for(
        self, text: str | None, target: str | None, timeout_ms: int, gone: bool = False,
        seconds: float | None = None,
    ) -> ActionResult:
        await self._enter("wait_for", (text, target, timeout_ms, gone, seconds))
        return ActionResult(action="wait_for", message="It appeared.")

    async def aupload(self, target: str, paths: Sequence[str]) -> ActionResult:
        await self._enter("upload", (target, list(paths)))
        return ActionResult(action="upload", message=f"Attached {len(paths)} file(s).")

    async def ascreenshot(self, full_page: bool) -> bytes:
        await self._enter("screenshot", full_page)
        return b"\x89PNG\r\n\x1a\nfake"

    async def ascreenshot_marked(self, ref: str | None = None, *, marks: bool = True,
                                 full_page: bool = False) -> Screenshot:
        await self._enter("screenshot_marked", (ref, marks, full_page))
        return Screenshot(url=self.url, width=640, height=360, scale=0.5,
                          region=(0, 0, 1280, 720), png=b"\x89PNG\r\n\x1a\nfake",
                          marks=[ScreenMark(ref="e1", box=(1, 2, 3, 4), label=(1, 0, 20, 14))]
                          if marks else [], tokens={"anthropic": 308})
