"""scroll: the page or a scrollable element, by pixels or screens; reports the new position and
whether new content appeared (infinite scroll: how many new elements were added)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..errors import (
    ActionError,
    ActionTimeoutError,
    NotActionableError,
    translate_playwright_error,
)
from ..models import ActionResult
from .dom import EVAL_TIMEOUT_S, run_js
from .limits import parse_scroll
from .perform import Outcome, perform
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["scroll"]

# With an element: that element if it scrolls along the axis, else its nearest ancestor that
# does, else the page. Without one (el === null): the page. ``a.read`` only reads the position.
_SCROLL_JS = """
(el, a) => {
  const page = document.scrollingElement || document.documentElement;
  const axisY = a.dir === 'up' || a.dir === 'down';
  const scrolls = (n) => {
    if (n === page) return axisY ? n.scrollHeight > innerHeight : n.scrollWidth > innerWidth;
    const s = getComputedStyle(n); const o = axisY ? s.overflowY : s.overflowX;
    return /(auto|scroll|overlay)/.test(o) &&
      (axisY ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth);
  };
  let box = page;
  if (el) {
    let n = el;
    while (n && n !== page && n.nodeType === 1 && !scrolls(n)) {
      n = n.parentElement || (n.getRootNode() && n.getRootNode().host) || null;
    }
    box = n && n.nodeType === 1 ? n : page;
  }
  const isPage = box === page || box === document.body;
  const view = axisY ? (isPage ? innerHeight : box.clientHeight)
                     : (isPage ? innerWidth : box.clientWidth);
  if (!a.read) {
    const dist = a.pixels != null ? a.pixels : Math.round(a.screens * view);
    const sign = (a.dir === 'up' || a.dir === 'left') ? -1 : 1;
    const opts = axisY ? {top: sign * dist} : {left: sign * dist};
    opts.behavior = 'instant';
    if (isPage) window.scrollBy(opts); else box.scrollBy(opts);
  }
  const sx = isPage ? scrollX : box.scrollLeft, sy = isPage ? scrollY : box.scrollTop;
  const sw = isPage ? page.scrollWidth : box.scrollWidth;
  const sh = isPage ? page.scrollHeight : box.scrollHeight;
  const vw = isPage ? innerWidth : box.clientWidth, vh = isPage ? innerHeight : box.clientHeight;
  return {x: Math.round(sx), y: Math.round(sy), width: sw, height: sh,
          maxX: Math.max(0, sw - vw), maxY: Math.max(0, sh - vh), isPage,
          scrollable: scrolls(box), view,
          what: isPage ? 'the page' : '<' + box.tagName.toLowerCase() + '>'};
}
"""


# Whether the element's centre lies beyond the window, or beyond a box that clips it, in the
# direction asked; if so it is scrolled into view (every scrolling ancestor moves).
_REVEAL_JS = """
(el, dir) => {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const beyond = (b) => dir === 'down' ? y >= b.bottom : dir === 'up' ? y < b.top
    : dir === 'right' ? x >= b.right : x < b.left;
  const up = (n) => n.parentElement || (n.getRootNode() && n.getRootNode().host) || null;
  let hidden = beyond({top: 0, left: 0, bottom: innerHeight, right: innerWidth});
  for (let n = up(el); !hidden && n && n !== document.documentElement && n !== document.body;
       n = up(n)) {
    const s = getComputedStyle(n);
    if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
      hidden = beyond(n.getBoundingClientRect());
    }
  }
  if (!hidden) return false;
  el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  return true;
}
"""


async def _reveal(tab: TabCore, t: Target, direction: str) -> bool:
    """Scroll ``t`` into view when its centre is hidden in ``direction`` (off screen, or
    clipped by a scrolling box it sits in); whether it had to. An element already passed
    (hidden the other way) is left alone, so its box keeps scrolling the way asked."""
    return bool(await run_js(t.spot, _REVEAL_JS, direction, world=tab.refs.world))


_POSITION_KEYS = {"x", "y", "width", "height", "maxX", "maxY", "isPage", "scrollable", "view",
                  "what"}


async def _run(tab: TabCore, t: Target | None, args: dict[str, Any]) -> dict[str, Any]:
    # In webrefs' own world (see webrefs.snapshot.world): a page that replaced its built-ins
    # cannot garble the positions read back.
    where = t.spot if t is not None else tab.page.main_frame
    try:
        result = await tab.refs.world.value(where, _SCROLL_JS, args, EVAL_TIMEOUT_S)
    except TimeoutError:
        raise ActionTimeoutError(
            "The page did not answer the scroll (its main thread may be busy)."
        ) from None
    except PlaywrightError as exc:
        raise translate_playwright_error(exc, doing="scrolling") from None
    if not isinstance(result, dict) or not result.keys() >= _POSITION_KEYS:
        raise ActionError("The page's scroll position could not be read.",
                          hint="Take a new snapshot and try again.")
    return result


def _at_end(pos: dict[str, Any], direction: str) -> bool:
    if direction == "down":
        return bool(pos["y"] >= pos["maxY"] - 1)
    if direction == "up":
        return bool(pos["y"] <= 0)
    if direction == "right":
        return bool(pos["x"] >= pos["maxX"] - 1)
    return bool(pos["x"] <= 0)


async def scroll(tab: TabCore, direction: str = "down", amount: int | str | None = None,
                 target: str | None = None) -> ActionResult:
    """Scroll ``direction`` by ``amount`` (pixels, or screens; one screen when ``None``)."""
    d, how = parse_scroll(direction, amount)
    args = {"dir": d, "pixels": how.pixels, "screens": how.screens, "read": False}

    async def act(t: Target | None) -> Outcome:
        if t is not None and await _reveal(tab, t, d):
            name = f"{t.ref} ({t.label})" if t.label else t.ref
            now = await _run(tab, t, {**args, "read": True})
            return Outcome(
                f"Scrolled {name} into view (it was hidden {d} inside {now['what']}).",
                {"revealed": True, "x": now["x"], "y": now["y"], "max_x": now["maxX"],
                 "max_y": now["maxY"], "content_grew": False, "at_end": _at_end(now, d)})
        before = await _run(tab, t, {**args, "read": True})
        if t is not None and not before["scrollable"] and before["isPage"]:
            name = f"{t.ref} ({t.label})" if t.label else t.ref
            raise NotActionableError(
                f"Cannot scroll {name}: neither it nor the page around it scrolls {d}.",
                hint="The whole content is already visible.", reason="not_scrollable",
            )
        after = await _run(tab, t, args)
        axis = "y" if d in ("up", "down") else "x"
        moved = abs(after[axis] - before[axis])
        outcome = Outcome("", {"moved_px": moved})

        async def verify() -> None:
            now = await _run(tab, t, {**args, "read": True})
            grew = now["height"] > before["height"] or now["width"] > before["width"]
            rb = outcome.readback
            rb.update({"x": now["x"], "y": now["y"], "max_x": now["maxX"], "max_y": now["maxY"],
                       "content_grew": grew, "at_end": _at_end(now, d)})
            if grew:
                rb["grown_px"] = max(int(now["height"] - before["height"]),
                                     int(now["width"] - before["width"]))
            where = f"{axis}={now[axis]} of {now['maxY' if axis == 'y' else 'maxX']}"
            if moved == 0:
                edge = "end" if d in ("down", "right") else "start"
                msg = f"Did not scroll {now['what']} {d}: already at the {edge} ({where})."
            else:
                msg = f"Scrolled {now['what']} {d} by {moved} px to {where}"
                msg += " (at the end)." if rb["at_end"] and not grew else "."
            if grew:
                msg += " New content appeared"
            outcome.message = msg

        outcome.verify = verify
        return outcome

    result = await perform(tab, "scroll", target, act, doing=f"scrolling {d}")
    if result.readback.get("content_grew"):
        # everything the scroll brought in, whether or not the list was already growing by
        # itself (which depends on how soon after the last load the scroll came)
        items = int(result.readback.get("added_elements", 0)) + \
            int(result.readback.get("ambient_added", 0))
        rb = {**result.readback, "new_items": items}
        # the model reads how much the page grew, which is the same in every run; how many
        # elements came is in the readback (when they land against the wait may differ)
        grown = int(rb.get("grown_px") or 0)
        said = f" (the page grew by {grown} px)." if grown else "."
        msg = result.message.replace("New content appeared", "New content appeared" + said, 1)
        result = result.model_copy(update={"readback": rb, "message": msg})
    return result
