"""The one way every action runs: resolve the target, arm the readiness monitor, act with real
input, wait until the page is ready, read back, and report what changed.

Failures keep what was observed: an :class:`ActionError` carries the partial
:class:`ActionResult` in ``err.result``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from ..errors import (
    ActionError,
    ActionTimeoutError,
    ConsentError,
    NotActionableError,
    StaleRefError,
    WebrefsError,
    clip,
    translate_playwright_error,
)
from ..models import ActionResult, DialogEvent, HeldRequest, SafetyDecision
from ..quoting import named, quote
from ..render.diff import diff_snapshots
from ..render.outline import safe_role
from ..safety.consent import is_gated
from ..safety.fence import clean_line
from ..session.effects import Flight
from . import answer as answering
from . import readiness
from .dom import hit_test
from .guarding import action_words, effect_refusal, judge_action, start_reads
from .limits import clamp_ms
from .targets import Target, resolve

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["Outcome", "covered_error", "perform", "timeout_ms"]

MIN_ACTION_TIMEOUT_MS = 500
"""Smallest action timeout: ``0`` or less is raised to this, never "forever"."""
_GRACE_S = 2.0
"""Extra time on top of the action timeout before a hung browser call is abandoned."""
POPUP_PARSE_S = 5.0
"""Longest wait for a popup the action opened to finish parsing its document."""
_MAX_EFFECTS = 20


@dataclass
class Outcome:
    """What an action function reports back to :func:`perform`."""

    message: str
    readback: dict[str, Any] = field(default_factory=dict)
    verify: Callable[[], Awaitable[None]] | None = None
    """Runs after the readiness wait (may update ``message``/``readback`` or raise)."""
    settled: readiness.ReadyReport | None = None
    """What the readiness wait saw, set before ``verify`` runs (``None`` without a wait)."""


ActFn = Callable[[Target | None], Awaitable[Outcome]]


def timeout_ms(tab: TabCore) -> int:
    """The tab's action timeout, clamped (``0`` never means forever)."""
    return clamp_ms(tab.options.action_timeout_ms, default=5000, low=MIN_ACTION_TIMEOUT_MS,
                    name="action_timeout_ms")


async def covered_error(tab: TabCore, target: Target, doing: str) -> NotActionableError | None:
    """A ``covered`` error naming what covers the target (and its ref), or ``None``."""
    info = await hit_test(target.spot, tab.refs.world)
    if info is None:
        return None
    # tag, role and name are the page's: a role is printed only as a role word, a name only
    # quoted (a page could otherwise end webrefs' sentence with its own)
    tag = safe_role(str(info.get("tag") or ""), "?")
    role = safe_role(str(info.get("role") or ""), "")
    what = named(f"{role} <{tag}>" if role else f"<{tag}>", str(info.get("name") or ""), 80)
    covering_ref = None
    hit = info.get("hit")
    if hit is not None:
        covering_ref = await _ref_of(tab, hit)
    if covering_ref:
        what += f" [ref={covering_ref}]"
    return NotActionableError(
        f"Cannot {doing}: it is covered by {what}.",
        hint="Close or act on the covering element first"
        + (f" ({covering_ref})" if covering_ref else "")
        + ", then take a new snapshot.",
        reason="covered",
        covering_ref=covering_ref,
        covering_tag=info.get("tag"),
    )


_REF_OF_JS = """
(el, key) => { const reg = window[key]; if (!reg || !(reg.books instanceof Map)) return null;
  for (const book of reg.books.values()) { const r = book.byEl.get(el); if (r) return r; }
  return null; }
"""


async def _ref_of(tab: TabCore, handle: ElementHandle) -> str | None:
    """The ref this tab issued for the element, if any (asked from the page's registry)."""
    try:
        ref = await tab.refs.world.value(handle, _REF_OF_JS, tab.refs.registry_key, 2.0)
    except (TimeoutError, PlaywrightError, ValueError):
        return None
    if not isinstance(ref, str):
        return None
    try:
        return ref if tab.refs.was_issued(ref) else None
    except WebrefsError:
        return None


def _leave_notes(dialogs: list[DialogEvent]) -> list[str]:
    """What a result says of a page that asked to confirm leaving it (``beforeunload``)."""
    asked = [d for d in dialogs if d.type == "beforeunload"]
    if any(d.handled == "accepted" for d in asked):
        return ["the page asked to confirm leaving it, and leaving was confirmed"]
    if asked:
        return ["the page asked to confirm leaving it and was answered no, so the tab stayed "
                "(web_navigate or web_go_back leave it)"]
    return []


def _dialog_note(dialogs: list[DialogEvent], limit: int) -> str:
    if len(dialogs) > limit:
        return (f"dialog storm: {len(dialogs)} dialogs, the first {limit} listed; "
                f"past {limit} in one action every dialog is dismissed")
    return ""


async def _after(tab: TabCore, result: ActionResult) -> ActionResult:
    mode = tab.options.after
    if mode == "none" or tab.page.is_closed():
        return result
    from .snapshot import take_snapshot

    before = tab.last_snapshot
    try:
        snap = await take_snapshot(tab, {})
    except WebrefsError:
        return result
    if mode == "snapshot":
        return result.model_copy(update={"snapshot": snap})
    diff = diff_snapshots(before, snap)
    return result.model_copy(update={"diff": diff})


async def perform(tab: TabCore, action: str, target: object | None, act: ActFn, *,
                  doing: str, wait: bool = True, limit_ms: int | None = None,
                  url: str | None = None, chosen: Sequence[str] = (),
                  judged_as: str | None = None) -> ActionResult:
    """Run ``act`` on ``tab`` under its lock and build the :class:`ActionResult`.

    ``doing`` completes "... while <doing>" in error messages. ``wait=False`` skips the
    readiness wait. ``limit_ms`` replaces the tab's action timeout as the bound of ``act``.
    The safety policy judges the action first (``url``: where a navigation goes; ``chosen``:
    what it chooses, a select's values; ``judged_as``: the action the rules judge it as, when
    not ``action``); a refused one raises :class:`ConsentError` without
    running. The requests it causes while it runs and waits are held and judged by what they
    do (:mod:`webrefs.session.effects`); when one was refused, the action raises
    :class:`ConsentError` after it ran, its result saying what was held and why.
    """

    async def body() -> ActionResult:
        tab.take_dialogs()
        url_before = tab.page.url
        opened_before = len(tab.browser.opened_log)
        blocked_before = len(tab.browser.blocked)
        downloads_before = len(tab.downloads)
        resolved: Target | None
        ready: readiness.Readiness | None
        # independent page round trips: what the safety rules read of the page and the target
        # is read while the element is found and the monitor installed
        early = start_reads(tab, judged_as or action, target)
        try:
            if target is not None and wait:
                resolved, ready = await _resolve_and_arm(tab, target)
            else:
                resolved = await resolve(tab, target) if target is not None else None
                ready = await readiness.arm(tab) if wait else None
        except BaseException:
            early.cancel()
            raise
        partial = ActionResult(
            action=action, target=str(target) if target is not None else None,
            ref=(resolved.ref or None) if resolved else None,
            matched_by=resolved.matched_by if resolved else None,
            url_before=url_before, url_after=url_before,
        )
        try:
            judged = await judge_action(tab, action, target, resolved, url=url,
                                        early=early, chosen=chosen, judged_as=judged_as)
        except ConsentError as refusal:
            if ready:
                ready.close()
            refused = partial.model_copy(update={"safety": refusal.decision})
            raise _with_result(refusal, refused, tab) from None
        decision = judged.decision
        if decision is not None:
            partial = partial.model_copy(update={"safety": decision})
        # the requests the action causes are judged by what they do while it runs and waits
        flight = tab.browser.effects.begin(Flight(
            tab=tab.id, action=action, target=str(target) if target is not None else None,
            target_name=judged.name, url=url_before,
            gated=decision.gated if decision is not None else is_gated(tab.browser.safety),
            covered=decision is not None and decision.outcome == "approved",
            page_text=early.page_text, form=judged.form))
        try:
            return await _run(tab, action, target, act, resolved, ready, partial, flight,
                              decision, judged.name, doing=doing, limit_ms=limit_ms,
                              opened_before=opened_before, blocked_before=blocked_before,
                              downloads_before=downloads_before)
        finally:
            tab.browser.effects.end(flight)

    return await tab.call(doing, body)


async def _run(tab: TabCore, action: str, target: object | None, act: ActFn,
               resolved: Target | None, ready: readiness.Readiness | None,
               partial: ActionResult, flight: Flight, decision: SafetyDecision | None,
               judged_name: str, *, doing: str, limit_ms: int | None, opened_before: int,
               blocked_before: int, downloads_before: int) -> ActionResult:
    """The action itself, the wait, and the result (the part of :func:`perform` that runs
    with the action's flight open)."""

    async def acting() -> Outcome:
        try:
            return await act(resolved)
        except PlaywrightError:
            if not flight.asking_navigation:
                raise
            # the browser call waited for a navigation the policy holds while someone is
            # asked: the input was given; what became of the navigation is decided below
            return Outcome(f"{doing[:1].upper()}{doing[1:]}: done.")

    # what the page shows before the action, to tell what it said in answer (never raises)
    probe = await answering.arm(tab, action, resolved) if ready is not None else None
    limit = (limit_ms or timeout_ms(tab)) / 1000 + _GRACE_S
    try:
        outcome = await asyncio.wait_for(acting(), timeout=limit)
    except TimeoutError:
        if ready:
            ready.close()
        err: WebrefsError = ActionTimeoutError(
            f"Gave up after {int(limit * 1000)} ms while {doing}: the browser did not "
            "answer (the page may be stuck).",
            hint="Take a new snapshot; reload the page if it stays stuck.",
        )
        raise _with_result(err, partial, tab) from None
    except PlaywrightError as exc:
        if tab.page.is_closed() and not tab.crashed:
            await asyncio.sleep(0.2)  # a killed browser closes pages before it disconnects
        if _closed_itself(tab):
            # the page closed its own tab during the action (window.close() in a click
            # handler): the action happened; the result says the tab is gone
            outcome = Outcome(f"{doing[:1].upper()}{doing[1:]}: done, and the tab closed "
                              "during it.")
            return _finish(tab, partial.model_copy(update={"message": outcome.message}),
                           await ready.settle() if ready else None, opened_before)
        if ready:
            ready.close()
        if tab.crashed or tab.page.is_closed():
            raise  # TabCore.call recovers and reports the crash
        err = translate_playwright_error(exc, doing=doing)
        if isinstance(err, NotActionableError) and err.reason == "covered" and resolved:
            better = await _safe_covered(tab, resolved, doing)
            err = better or err
        raise _with_result(err, partial, tab) from None
    except ActionError as err:
        if ready:
            ready.close()
        raise _with_result(err, partial, tab) from None
    except BaseException:
        if ready:
            ready.close()
        raise
    report = await ready.settle() if ready else None
    report = await _held_decided(tab, flight, ready, report)
    safety = _with_effects(decision, flight, tab)
    if safety is not None:
        partial = partial.model_copy(update={"safety": safety})
    if flight.refused:
        held = effect_refusal(action_words(action, target, judged_name), flight.refused,
                              partial.safety or SafetyDecision(),
                              flight.undecided[0] if flight.undecided else None)
        done = partial.model_copy(update={"message": held.message})
        raise _with_result(held, _finish(tab, done, report, opened_before,
                                         blocked_before=blocked_before), tab) from None
    if ready is not None and ready.popups:
        # the parse wait stays within the navigation timeout, so the call's own bound
        # (which counts it once) is not eaten by it
        nav_s = max(int(tab.options.navigation_timeout_ms or 0), 1000) / 1000
        await _await_tabs(tab, opened_before, ready.popups,
                          parse_s=min(POPUP_PARSE_S, nav_s))
    downloads = tab.downloads[downloads_before:]
    if downloads:
        await _await_downloads(downloads)
        outcome.readback["downloads"] = [dict(d) for d in downloads]
    if decision is not None and decision.outcome == "approved":
        outcome.message = f"{outcome.message} (confirmed by {decision.decided_by or 'the user'})"
    confirmed = [h for h in flight.asked if h.outcome == "approved"]
    if confirmed:
        sent = ", ".join(h.describe() for h in confirmed[:3])
        outcome.message = f"{outcome.message} ({confirmed[0].decided_by or 'the user'} " \
            f"confirmed the request it caused: {sent})"
    result = partial.model_copy(update={
        "message": outcome.message,
        "readback": outcome.readback,
    })
    if outcome.verify is not None:
        outcome.settled = report
        try:
            await outcome.verify()
        except ActionError as err:
            raise _with_result(err, _finish(tab, result, report, opened_before), tab) from None
        except StaleRefError:
            # the action worked and its element then left the page (e.g. it navigated)
            outcome.message += " The element then left the page, so it was not read back."
        result = result.model_copy(update={
            "message": outcome.message, "readback": outcome.readback})
    result = _finish(tab, result, report, opened_before, blocked_before=blocked_before)
    result = await answering.answered(tab, probe, result)
    return await _after(tab, result)


async def _held_decided(tab: TabCore, flight: Flight, ready: readiness.Readiness | None,
                        report: readiness.ReadyReport | None) -> readiness.ReadyReport | None:
    """Wait for the answers about the requests held for this action (a person may take a
    while; the call's own bound applies). When an answer came after the readiness wait ended
    and let a request go, wait (bounded) for that request's response and for the page again."""
    settled_at = time.monotonic()
    await flight.decided()
    if ready is None or not flight.approved_late or flight.last_answer <= settled_at:
        return report
    nav_s = max(int(tab.options.navigation_timeout_ms or 0), 1000) / 1000
    await flight.answered(nav_s)
    if tab.page.is_closed():
        return report
    try:
        again = await readiness.arm(tab)
    except (PlaywrightError, WebrefsError):
        return report
    later = await again.settle()
    if report is not None:
        later.navigated = later.navigated or report.navigated
        later.waited_ms += report.waited_ms
        later.mutations += report.mutations
        later.added_elements += report.added_elements
        later.ambient_added += report.ambient_added
    return later


def _with_effects(decision: SafetyDecision | None, flight: Flight,
                  tab: TabCore) -> SafetyDecision | None:
    """The action's decision with the requests it caused (and those its page sent by itself
    since the last action) that the rules found sensitive."""
    effects = [*tab.browser.effects.take_page_log(tab.id), *flight.held]
    if not effects:
        return decision
    base = decision if decision is not None else SafetyDecision(gated=flight.gated)
    return base.model_copy(update={"effects": effects[:_MAX_EFFECTS]})


def _page_notes(effects: list[HeldRequest]) -> list[str]:
    """Notes on the requests the page sent by itself, between actions, that were refused."""
    refused = [h for h in effects if h.cause == "page" and h.outcome == "refused"]
    if not refused:
        return []
    first = refused[0]
    more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
    why = "; ".join(first.reasons[:2])
    return [f"before this action, the page itself tried to send {first.describe()}{more}, "
            f"which the safety policy held ({why}); it was not sent"]


async def _resolve_and_arm(tab: TabCore, target: object) -> tuple[Target, readiness.Readiness]:
    found, armed = await asyncio.gather(resolve(tab, target), readiness.arm(tab),
                                        return_exceptions=True)
    if isinstance(armed, BaseException):
        raise armed
    if isinstance(found, BaseException):
        armed.close()
        raise found
    return found, armed


async def _safe_covered(tab: TabCore, target: Target, doing: str) -> NotActionableError | None:
    try:
        return await covered_error(tab, target, doing)
    except (WebrefsError, PlaywrightError):
        return None


async def _await_tabs(tab: TabCore, before: int, count: int, patience_s: float = 2.0,
                      parse_s: float = POPUP_PARSE_S) -> None:
    """Give the browser a moment to register popups the page opened as tabs, then give each
    new tab's document time to be parsed (``DOMContentLoaded``), so a snapshot right after the
    action reads the page, not an empty one. Both waits are bounded."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience_s
    log = tab.browser.opened_log
    while len(log) < before + count and loop.time() < deadline:
        await asyncio.sleep(0.02)
    opened = set(log[before:])
    pages = [t.page for t in tab.browser.tabs if t.id in opened and not t.page.is_closed()]
    await asyncio.gather(*(_parsed(page, parse_s) for page in pages))


async def _parsed(page: Page, within_s: float) -> None:
    # still loading after the bound, or closed: the tab is reported as it is
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await asyncio.wait_for(
            page.wait_for_load_state("domcontentloaded", timeout=within_s * 1000),
            within_s + _GRACE_S)


async def _await_downloads(entries: list[dict[str, Any]], patience_s: float = 5.0) -> None:
    """Give downloads started by the action a few seconds to be saved (never longer)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience_s
    while loop.time() < deadline and any(
        e.get("saved") is None and e.get("error") is None for e in entries
    ):
        await asyncio.sleep(0.05)


def _closed_itself(tab: TabCore) -> bool:
    """The tab's page closed (not crashed, browser still there): the page closed its tab."""
    if tab.crashed or tab.browser.dead:
        return False
    return tab.closed or tab.page.is_closed()


def _blocked_notes(tab: TabCore, since: int) -> tuple[list[str], list[dict[str, Any]]]:
    """What the safety policy refused on this tab since ``since`` (notes, readback)."""
    seen = [b for b in tab.browser.blocked[since:] if b.tab in (None, tab.id)]
    notes: list[str] = []
    for b in seen[:5]:
        if b.after == "commit":
            where = "so the tab was sent to about:blank"
        elif b.after == "redirect":
            where = ("reached by a redirect; the tab was stopped" if b.navigation else
                     "reached by a redirect")
        else:
            where = "so the tab did not go there" if b.navigation else "so it was not sent"
        notes.append(f"the page tried to open {clean_line(b.url, 120)}, which the safety "
                     f"policy blocks ({b.rule}: {b.reason}), {where}")
    if len(seen) > 5:
        notes.append(f"{len(seen) - 5} more requests were blocked")
    readback = [{"url": clip(b.url, 300), "rule": b.rule, "kind": b.kind,
                 "navigation": b.navigation} for b in seen[:20]]
    return notes, readback


def _finish(tab: TabCore, result: ActionResult, report: readiness.ReadyReport | None,
            opened_before: int, *, blocked_before: int | None = None) -> ActionResult:
    dialogs = tab.take_dialogs()
    url_after = tab.page.url if not tab.page.is_closed() else result.url_before
    message = result.message
    notes: list[str] = []
    closed = _closed_itself(tab)
    if closed:
        notes.append(f"the page then closed its own tab {tab.id}, so it is gone")
    if report is not None and report.reason in ("max_wait", "busy"):
        notes.append(
            "the page was still busy when the wait ended" if report.reason == "busy"
            else f"the page kept changing for {int(report.waited_ms)} ms (wait limit reached)"
        )
    if report is not None and report.unanswered:
        n = report.unanswered
        notes.append(
            f"{'a request' if n == 1 else f'{n} requests'} the page sent in answer had no reply "
            f"after {readiness.ACTION_REQUEST_PATIENCE_MS // 1000} s; the page may still "
            "change when it comes, so look again before repeating this")
    for d in result.readback.get("downloads", []):
        if d.get("saved"):
            notes.append(f"downloaded {quote(d['name'], 120)} to {quote(d['saved'], 300)}")
        else:
            notes.append(f"download of {quote(d['name'], 120)} not saved: "
                         f"{d.get('error') or 'pending'}")
    notes.extend(_leave_notes(dialogs))
    storm = _dialog_note(dialogs, tab.options.max_dialogs)
    if storm:
        notes.append(storm)
    blocked: list[dict[str, Any]] = []
    if blocked_before is not None:
        more, blocked = _blocked_notes(tab, blocked_before)
        notes.extend(more)
    if result.safety is not None:
        notes.extend(_page_notes(result.safety.effects))
    if notes:
        message = f"{message} ({'; '.join(notes)})"
    readback = dict(result.readback)
    if blocked:
        readback["blocked"] = blocked
    if closed:
        readback["tab_closed"] = True
    if report is not None:
        readback.setdefault("ready", report.reason)
        if report.added_elements:
            readback.setdefault("added_elements", report.added_elements)
        if report.ambient:
            readback.setdefault("ambient_changes", report.ambient)
        if report.ambient_added:
            readback.setdefault("ambient_added", report.ambient_added)
        if report.requests:
            readback.setdefault("requests", report.requests)
        if report.unanswered:
            readback.setdefault("unanswered_requests", report.unanswered)
    return result.model_copy(update={
        "message": message,
        "url_after": url_after,
        "navigated": bool(report and report.navigated) or url_after != result.url_before,
        "new_tabs": list(tab.browser.opened_log[opened_before:]),
        "dialogs": dialogs[: max(tab.options.max_dialogs, 1)],
        "mutations": report.mutations if report else 0,
        "focused": report.focused if report else None,
        "waited_ms": report.waited_ms if report else 0.0,
        "readback": readback,
    })


def _with_result(err: WebrefsError, partial: ActionResult, tab: TabCore) -> WebrefsError:
    if isinstance(err, ActionError):
        dialogs = [*partial.dialogs, *tab.take_dialogs()]
        storm = _dialog_note(dialogs, tab.options.max_dialogs)
        if storm:
            err.message = f"{err.message} ({storm})"
        dialogs = dialogs[: max(tab.options.max_dialogs, 1)]
        url_after = tab.page.url if not tab.page.is_closed() else partial.url_before
        err.result = partial.model_copy(update={
            "success": False,
            "error_code": err.code,
            "message": str(err),
            "dialogs": dialogs,
            "url_after": url_after,
            "navigated": url_after != partial.url_before,
        })
    return err
