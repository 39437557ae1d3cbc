"""Holding the requests of a context until the safety policy has judged what they do.

The network guard's routing (:mod:`webrefs.session.guard`) hands every request it lets through
to :meth:`EffectGate.allow` before it is sent, and Chromium's interception
(:mod:`webrefs.session.hops`) every redirect hop to :meth:`EffectGate.allow_hop`. Requests
that only read pass at once; effects (:func:`webrefs.safety.effects.effect_kind`: form
submissions, writing ``fetch``/XHR/beacons, navigations) are judged by
:func:`webrefs.safety.effects.classify_effect` with what the page showed: for the submission
of the form of the action's element, the submitting control's text and the choices changed in
the form (read before the action: while a navigation is pending, Chromium holds every DevTools
call to its frame, so nothing can be read from the page then); the page's visible text when a
rule needs it (the action's own read, or a read now for a request that is not a navigation).

Contract:

- An action registers a :class:`Flight` for the time it runs and waits (:meth:`begin`,
  :meth:`end`; the one action path does this). While a flight is open, every request of the
  context is charged to it (its own tab's flight first): the flight's caller decides whether
  consent applies (``gated``), and consent the action itself already got by its name covers
  its requests (``covered``: asked once, not twice).
- A request charged to no flight (the page's own timer, a background ``fetch``) is judged the
  same way. Consent applies to it when the policy's ``gate`` is ``"all"`` or the last action
  in the context was gated (the model's); it is then refused when sensitive and nobody can
  consent, and a refusal of the same request in the last :data:`REPEAT_S` is repeated without
  asking again. Such decisions are logged (:meth:`take_page_log`).
- ``confirm`` asks the policy's consent callback (one question at a time per context) with a
  :class:`~webrefs.safety.consent.ConsentRequest` whose ``effect`` is the request; ``True``
  sends it, anything else fails it before it is sent. ``block`` fails it without asking.
- Every page read is bounded (:data:`READ_TIMEOUT_S`); a read that fails judges the request
  by its address and body alone. Nothing here raises into the routing: a fault in judging
  lets the request go (the network rules still hold) and is reported to the loop's exception
  handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request

from ..models import HeldRequest
from ..safety.consent import ConsentRequest, ask
from ..safety.effects import (
    BODY_CHARS,
    Effect,
    EffectKind,
    EffectVerdict,
    FormContext,
    body_text,
    classify_effect,
    effect_kind,
    mask_cards,
)
from ..safety.policy import SafetyPolicy

if TYPE_CHECKING:
    from ..snapshot.world import World

__all__ = ["PAGE_TEXT_CHARS", "READ_TIMEOUT_S", "REPEAT_S", "EffectGate", "Flight",
           "read_page_text"]

PAGE_TEXT_CHARS = 20_000
"""How much of the page's visible text the text rules read."""
READ_TIMEOUT_S = 2.0
"""Longest wait for one page read (a page stuck in a loop never answers)."""
REPEAT_S = 30.0
"""A request the page sends by itself again within this time after a refusal is refused
without asking again (a page on a timer cannot flood the person asked)."""
MAX_LOG = 200
MAX_HELD = 20

# run in webrefs' own world: a page that replaced ``innerText`` cannot hide its text
_PAGE_TEXT_JS = """(root, n) => { const b = document.body;
  return b ? String(b.innerText || '').slice(0, n) : ''; }"""

async def read_page_text(world: World, page: Page) -> str:
    """The visible text of ``page``'s main document (first :data:`PAGE_TEXT_CHARS`), read in
    webrefs' own world; ``""`` when the page does not answer in time."""
    try:
        text = await world.value(page.main_frame, _PAGE_TEXT_JS, PAGE_TEXT_CHARS,
                                 READ_TIMEOUT_S)
    except (TimeoutError, PlaywrightError, ValueError):
        return ""
    return text if isinstance(text, str) else ""


@dataclass(eq=False)
class Flight:
    """One action running on a tab: the requests sent meanwhile are charged to it."""

    tab: str
    action: str
    target: str | None
    target_name: str
    """Role, name and shown text of the action's element, when it has one."""
    url: str
    """The page the action runs on."""
    gated: bool
    """Consent applies (the model's call, or ``gate="all"``)."""
    covered: bool = False
    """The action itself got consent by its name: requests it causes that need ``confirm``
    are not asked about again."""
    page_text: asyncio.Future[str] | None = None
    """The page text the action's own judgement read, if it read it."""
    form: FormContext | None = None
    """The form of the action's element as it was before the action (a form submission's
    request cannot wait for a page read), with the choices the action makes."""
    held: list[HeldRequest] = field(default_factory=list)
    """Requests judged ``notify`` or higher, in order (at most :data:`MAX_HELD`)."""
    approved_late: list[Request] = field(default_factory=list)
    """Requests sent after someone was asked (the action may wait for their answers)."""
    last_answer: float = 0.0
    """When the last answer to a question about this flight's requests came (monotonic)."""
    asking_navigation: bool = False
    """A main-frame navigation of this flight is held while someone is asked."""
    pending: set[asyncio.Future[Any]] = field(default_factory=set)
    """Questions about its requests still waiting for an answer."""
    undecided: list[ConsentRequest] = field(default_factory=list)
    """Questions the callback answered ``None`` ("not decided here": a host that asks a
    person another way, such as a LangGraph interrupt, and runs the action again)."""
    answers: dict[str, bool | None] = field(default_factory=dict)
    """Answers given for its requests, by method and URL (asked once per action)."""

    @property
    def refused(self) -> list[HeldRequest]:
        return [h for h in self.held if h.outcome == "refused"]

    @property
    def asked(self) -> list[HeldRequest]:
        return [h for h in self.held if h.asked]

    async def decided(self) -> None:
        """Wait until every request held for this flight has been decided (the caller's own
        bound applies: a person may take a while to answer)."""
        while self.pending:
            await asyncio.wait(list(self.pending))

    async def answered(self, timeout_s: float) -> None:
        """Wait (bounded) until the requests sent after someone was asked have answers."""
        waits = [asyncio.ensure_future(_response(r)) for r in self.approved_late]
        if waits:
            await asyncio.wait(waits, timeout=timeout_s)
            for w in waits:
                w.cancel()


async def _response(request: Request) -> None:
    with contextlib.suppress(PlaywrightError):
        await request.response()


class EffectGate:
    """Judges, holds and asks about the effects of one context's requests."""

    def __init__(self, policy: Callable[[], SafetyPolicy],
                 tab_of: Callable[[Page], str | None],
                 world: Callable[[], World]) -> None:
        self._policy = policy
        self._tab_of = tab_of
        self._world = world
        self.flights: list[Flight] = []
        self.log: list[HeldRequest] = []
        """Decisions on requests charged to no flight (``notify`` and up), oldest first."""
        self._seen: dict[str | None, int] = {}
        self._last_gated: bool | None = None
        self._asking: asyncio.Lock | None = None
        self._refused_at: dict[str, float] = {}

    # -- flights ----------------------------------------------------------------------------
    def begin(self, flight: Flight) -> Flight:
        """Charge the context's requests to ``flight`` until :meth:`end`."""
        self.flights.append(flight)
        self._last_gated = flight.gated
        return flight

    def end(self, flight: Flight) -> None:
        if flight in self.flights:
            self.flights.remove(flight)

    def _flight_for(self, tab: str | None) -> Flight | None:
        for flight in reversed(self.flights):
            if flight.tab == tab:
                return flight
        return self.flights[-1] if self.flights else None

    def take_page_log(self, tab: str) -> list[HeldRequest]:
        """Decisions on requests ``tab``'s pages sent by themselves since the last call."""
        start = min(self._seen.get(tab, 0), len(self.log))
        self._seen[tab] = len(self.log)
        return [h for h in self.log[start:] if h.tab in (tab, None)]

    # -- judging ----------------------------------------------------------------------------
    async def allow(self, request: Request, page: Page | None) -> bool:
        """Whether ``request`` (routed by Playwright) may be sent (``False``: fail it). Holds
        it while it is judged and while someone is asked; never raises."""
        policy = self._policy()
        if not policy.classifies:
            return True
        try:
            navigation = request.is_navigation_request()
            kind = effect_kind(request.method, request.resource_type, navigation)
            if kind is None:
                return True
            raw: bytes | None = None
            if kind != "navigate":
                with contextlib.suppress(PlaywrightError, ValueError):
                    raw = request.post_data_buffer
            out = _Outgoing(request.method.upper(), request.url, kind, raw,
                            request.headers.get("content-type", ""), page,
                            navigation and _is_main(request), request)
        except (PlaywrightError, ValueError, UnicodeError):
            return True  # judged by the network rules alone; the request is not lost
        except Exception as exc:  # a fault of ours: reported, and the request is not lost
            _report(exc)
            return True
        return await self._judged(policy, out)

    async def allow_hop(self, method: str, url: str, resource_type: str, top: bool,
                        body: bytes | None, content_type: str, page: Page | None) -> bool:
        """The same for a redirect hop, which Playwright's routing never sees (Chromium's
        interception holds it: :mod:`webrefs.session.hops`); ``top``: it loads a tab's
        page."""
        policy = self._policy()
        if not policy.classifies:
            return True
        kind = effect_kind(method, resource_type, top or resource_type == "document")
        if kind is None:
            return True
        return await self._judged(policy, _Outgoing(method.upper(), url, kind, body,
                                                    content_type, page, top, None))

    async def _judged(self, policy: SafetyPolicy, out: _Outgoing) -> bool:
        """:meth:`_judge`, never raising: a request that cannot be judged by what it does is
        left to the network rules (a fault of ours is reported), never lost."""
        try:
            return await self._judge(policy, out)
        except (PlaywrightError, TimeoutError, ValueError, UnicodeError):
            return True
        except Exception as exc:
            _report(exc)
            return True

    async def _judge(self, policy: SafetyPolicy, out: _Outgoing) -> bool:
        page = out.page
        tab = self._tab_of(page) if page is not None else None
        flight = self._flight_for(tab)
        body = body_text(out.body[: BODY_CHARS * 3] if out.body else None, out.content_type)
        page_url = page.url if page is not None and not page.is_closed() else ""
        effect = Effect(method=out.method, url=out.url, kind=out.kind, body=body,
                        page_url=page_url)
        if (out.kind != "send" and flight is not None and flight.form is not None
                and flight.form.matches(effect.method, effect.url)):
            effect = replace(effect, submitter=flight.form.submitter,
                             choices=flight.form.choices)
        verdict = classify_effect(policy.rules, effect)
        if (verdict.page_text_matters and page is not None
                and any(r.on == "text" for r in policy.rules)):
            text = await self._page_text(flight, tab, page, navigation=out.kind != "send")
            if text:
                effect = replace(effect, page_text=text)
                verdict = classify_effect(policy.rules, effect)
        if verdict.level == "auto":
            return True
        return await self._decide(policy, out, effect, verdict, flight, tab, page_url)

    async def _page_text(self, flight: Flight | None, tab: str | None, page: Page, *,
                         navigation: bool) -> str:
        """The page's text: the one the action read before it ran, else read now, unless
        the request is a navigation (the browser holds page reads until it is decided)."""
        task = flight.page_text if flight is not None and flight.tab == tab else None
        if task is not None:
            if not task.done():
                with contextlib.suppress(Exception):
                    await asyncio.shield(task)
            if task.done() and not task.cancelled() and task.exception() is None:
                return task.result()
        if navigation:
            return ""
        return await read_page_text(self._world(), page)

    async def _decide(self, policy: SafetyPolicy, out: _Outgoing, effect: Effect,
                      verdict: EffectVerdict, flight: Flight | None, tab: str | None,
                      page_url: str) -> bool:
        held = HeldRequest(method=effect.method, url=mask_cards(effect.url)[:300],
                           kind=effect.kind,
                           level=verdict.level, reasons=list(verdict.reasons),
                           cause="action" if flight is not None else "page", tab=tab)
        gated = (flight.gated if flight is not None
                 else policy.gate == "all" or bool(self._last_gated))
        if verdict.level == "notify" or not gated:
            return self._record(flight, held, "allowed")
        if verdict.level == "block":
            return self._record(flight, held, "refused")
        if flight is not None and flight.covered:
            return self._record(flight, held, "approved")
        key = f"{effect.method} {effect.url.split('#')[0]}"
        if flight is not None and key in flight.answers:
            return self._record(flight, held, "approved" if flight.answers[key] else "refused")
        if flight is None:
            at = self._refused_at.get(key)
            if at is not None and time.monotonic() - at < REPEAT_S:
                return self._record(None, held, "refused")
        if policy.consent is None:
            return self._remember(flight, key, held, None)
        navigation = out.main_navigation
        if flight is not None and navigation:
            flight.asking_navigation = True
        if flight is not None:
            consent = ConsentRequest(action=flight.action, target=flight.target,
                                     target_name=flight.target_name, url=flight.url or page_url,
                                     level=held.level, reasons=tuple(held.reasons), effect=held)
        else:
            consent = ConsentRequest(action="page", target=None, target_name="",
                                     url=page_url, level=held.level,
                                     reasons=tuple(held.reasons), effect=held)
        waiting: asyncio.Future[bool | None] = asyncio.ensure_future(self._ask(policy, consent))
        if flight is not None:
            flight.pending.add(waiting)
        try:
            answer = await waiting
        except Exception:  # a callback that raised: no consent
            answer = None
        finally:
            if flight is not None:
                flight.pending.discard(waiting)
                flight.last_answer = time.monotonic()
                if navigation:
                    flight.asking_navigation = False
        held = held.model_copy(update={
            "asked": answer is not None,
            "decided_by": policy.consent_by if answer is not None else None})
        if answer is None and flight is not None:
            flight.undecided.append(consent)
        allowed = self._remember(flight, key, held, answer)
        if allowed and flight is not None and out.request is not None:
            flight.approved_late.append(out.request)
        return allowed

    async def _ask(self, policy: SafetyPolicy, consent: ConsentRequest) -> bool | None:
        """The callback's answer (one question at a time in this context)."""
        if self._asking is None:
            self._asking = asyncio.Lock()
        async with self._asking:
            return await ask(policy, consent)

    def _remember(self, flight: Flight | None, key: str, held: HeldRequest,
                  answer: bool | None) -> bool:
        if flight is not None:
            flight.answers[key] = answer
        elif not answer:
            if len(self._refused_at) > MAX_LOG:
                self._refused_at.clear()
            self._refused_at[key] = time.monotonic()
        return self._record(flight, held, "approved" if answer else "refused")

    def _record(self, flight: Flight | None, held: HeldRequest,
                outcome: Literal["allowed", "approved", "refused"]) -> bool:
        held = held.model_copy(update={"outcome": outcome})
        if flight is not None:
            if len(flight.held) < MAX_HELD:
                flight.held.append(held)
        else:
            if len(self.log) >= MAX_LOG:
                drop = MAX_LOG // 2
                del self.log[:drop]
                self._seen = {k: max(0, v - drop) for k, v in self._seen.items()}
            self.log.append(held)
        return outcome != "refused"


@dataclass(frozen=True)
class _Outgoing:
    """A request about to be sent, as the gate needs it."""

    method: str
    url: str
    kind: EffectKind
    body: bytes | None
    content_type: str
    page: Page | None
    main_navigation: bool
    """It loads a tab's page (the browser call that caused it may be waiting for it)."""
    request: Request | None
    """Playwright's request, when it came through the routing."""


def _report(exc: Exception) -> None:
    asyncio.get_running_loop().call_exception_handler({
        "message": "webrefs could not judge a request by what it does", "exception": exc})


def _frame_of(request: Request) -> Frame | None:
    try:
        return request.frame
    except PlaywrightError:  # a service worker's request has no frame
        return None


def _is_main(request: Request) -> bool:
    frame = _frame_of(request)
    return frame is not None and frame.parent_frame is None
