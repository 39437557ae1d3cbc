"""Every error webrefs raises, in one tree.

Each error says what happened and what the caller (often a model) can do next. Every class has
a stable ``code`` that tool adapters put in front of the message, so an agent loop can branch on
it, and an optional ``hint`` with the next step.

::

    WebrefsError
    ├── BrowserError                  the browser as a whole
    │   ├── BrowserNotFoundError      no Chromium or Chrome to launch
    │   ├── BrowserLaunchError        found one, but it did not start
    │   ├── ConnectError              Browser.connect() could not attach
    │   └── BrowserClosedError        closed, or its process died
    ├── TabError                      one tab
    │   ├── TabClosedError            the tab was closed
    │   ├── PageCrashedError          the renderer crashed (a fresh page replaces it)
    │   └── NavigationError           goto/back/forward failed or was blocked
    │       └── NavigationBlockedError   the safety policy forbids that URL (names the rule)
    ├── TargetError                   the ``target`` argument of an action
    │   ├── InvalidTargetError        malformed (empty, too long, wrong type)
    │   ├── UnknownRefError           a ref this tab never issued
    │   ├── WrongTabError             a ref (or description) read on another tab
    │   ├── StaleRefError             a ref whose element is gone (re-snapshot)
    │   ├── AmbiguousTargetError      a description matched several elements
    │   └── NoMatchError              a description matched nothing
    ├── ActionError                   the element was found, the action failed
    │   ├── NotActionableError        covered, disabled, read-only, wrong kind of element
    │   ├── ActionTimeoutError        gave up after the stated time
    │   ├── ConsentError              a sensitive action was not confirmed (not run)
    │   └── VerificationError         the action ran but its effect did not stick
    ├── SnapshotError                 reading the page failed
    │   └── SnapshotFormatError       extractor JSON malformed or of the wrong version
    ├── TokenizerError                a tiktoken encoding cannot be loaded
    └── InvalidArgumentError          a bad argument value (also a ``ValueError``)

Playwright's own exceptions are translated in one place, :func:`translate_playwright_error`,
so nothing outside this package ever sees them.

What a model reads (:meth:`WebrefsError.for_model`) and what the host program reads
(``str(err)``) differ in one way: a ``host_hint`` (what the program running the agent should
do, which may name Python APIs) is shown to the host only. Messages are bounded: every
message and hint is cut to a few hundred characters, values echoed in them are elided with
:func:`elide`.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from .quoting import quote, redacted, redacting

__all__ = [
    "ActionError",
    "ActionTimeoutError",
    "AmbiguousTargetError",
    "BrowserClosedError",
    "BrowserError",
    "BrowserLaunchError",
    "BrowserNotFoundError",
    "ConnectError",
    "ConsentError",
    "InvalidArgumentError",
    "InvalidTargetError",
    "NavigationBlockedError",
    "NavigationError",
    "NoMatchError",
    "NotActionableError",
    "PageCrashedError",
    "SnapshotError",
    "SnapshotFormatError",
    "StaleRefError",
    "TabClosedError",
    "TabError",
    "TargetError",
    "TokenizerError",
    "UnknownRefError",
    "VerificationError",
    "WebrefsError",
    "WrongTabError",
    "cap",
    "clip",
    "elide",
    "missing_extra",
    "redacted",
    "redacting",
    "translate_playwright_error",
]


MAX_MESSAGE_CHARS = 1000
"""Longest message an error keeps; longer ones are elided in the middle."""
MAX_HINT_CHARS = 400
"""Longest hint an error keeps."""


def clip(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` (secrets replaced first)."""
    text = redacted(text)
    return text if len(text) <= limit else text[:limit]


def elide(value: object, limit: int = 80) -> str:
    """``repr``-like text of ``value`` (a string is quoted) of at most about ``limit``
    characters: a long value keeps its start and end and says how much was left out."""
    if isinstance(value, str):
        value = redacted(value)
        if len(value) <= limit:
            return repr(value)
        keep = max(limit // 2 - 10, 4)
        return (f"{value[:keep]!r}…[{len(value) - 2 * keep} characters left out]…"
                f"{value[-keep:]!r}")
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not break an error message
        text = f"<{type(value).__name__}>"
    return cap(text, limit)


def cap(text: str, limit: int) -> str:
    """``text`` cut in the middle to about ``limit`` characters, saying how much was cut
    (secrets replaced first, see :func:`redacting`)."""
    text = redacted(text)
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 15, 4)
    return f"{text[:keep]}…[{len(text) - 2 * keep} characters left out]…{text[-keep:]}"


class WebrefsError(Exception):
    """Base class. ``str(err)`` is a complete sentence a model can act on (plus, for the host
    program, the ``host_hint`` when there is one)."""

    code: ClassVar[str] = "error"
    model_hint: ClassVar[str | None] = None
    """When set, what the model is told to do instead of ``hint`` (the hint then goes to the
    host only)."""

    def __init__(self, message: str, *, hint: str | None = None, host_hint: str | None = None,
                 **details: Any) -> None:
        self.message = cap(str(message), MAX_MESSAGE_CHARS)
        self.hint = cap(str(hint), MAX_HINT_CHARS) if hint else None
        self.host_hint = cap(str(host_hint), MAX_HINT_CHARS) if host_hint else None
        """What the host program should do (never shown to the model)."""
        self.details: dict[str, Any] = details
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts = [self.message, self.hint or "", self.host_hint or ""]
        return " ".join(p for p in parts if p)

    def for_model(self) -> str:
        """One line for a tool message: ``[code] message hint``, without the host's hint."""
        hint = self.model_hint or self.hint
        text = f"{self.message} {hint}" if hint else self.message
        return f"[{self.code}] {text}"


class BrowserError(WebrefsError):
    code = "browser_error"


class BrowserNotFoundError(BrowserError):
    code = "browser_not_found"


class BrowserLaunchError(BrowserError):
    code = "browser_launch_failed"


class ConnectError(BrowserError):
    code = "connect_failed"


class BrowserClosedError(BrowserError):
    """The browser is gone. The model is told to stop and report it; what the host should do
    (launch a new browser) is in ``host_hint``."""

    code = "browser_closed"
    model_hint = (
        "The browser is gone, so no web tool can work until the application restarts it: "
        "stop calling web tools and tell the user the browser closed."
    )

    def __init__(self, message: str, *, hint: str | None = None, host_hint: str | None = None,
                 **details: Any) -> None:
        host_hint = host_hint or hint or (
            "Launch a new Browser and create the tools again on it; this one cannot be used.")
        super().__init__(message, hint=None, host_hint=host_hint, **details)


class TabError(WebrefsError):
    code = "tab_error"


class TabClosedError(TabError):
    code = "tab_closed"


class PageCrashedError(TabError):
    code = "page_crashed"


class NavigationError(TabError):
    """``net_error`` is the browser's name for a network failure (``ERR_CONNECTION_REFUSED``,
    ``ERR_NAME_NOT_RESOLVED``, ...), ``None`` when the failure was not one."""

    code = "navigation_failed"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.net_error: str | None = details.pop("net_error", None)
        super().__init__(message, hint=hint, **details)


class NavigationBlockedError(NavigationError):
    """The safety policy forbids the URL. ``rule`` names the rule (``scheme``,
    ``blocked-domain``, ``not-allowed-domain``, ``link-local``, ``private-network``,
    ``invalid-host``); ``url`` is the URL refused."""

    code = "navigation_blocked"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.rule: str = str(details.pop("rule", "policy"))
        self.url: str = str(details.pop("url", ""))
        super().__init__(message, hint=hint, **details)


class TargetError(WebrefsError):
    code = "target_error"


class InvalidTargetError(TargetError):
    code = "invalid_target"


class UnknownRefError(TargetError):
    code = "unknown_ref"


class WrongTabError(TargetError):
    """A target read on one tab was used while the tools act on another. ``ref_tab`` is the
    tab it came from, ``current_tab`` the tab acted on now."""

    code = "wrong_tab"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.ref_tab: str | None = details.pop("ref_tab", None)
        self.current_tab: str | None = details.pop("current_tab", None)
        super().__init__(message, hint=hint, **details)


class StaleRefError(TargetError):
    """The ref was valid once; its element is gone. ``snapshot`` may hold a fresh snapshot."""

    code = "stale_ref"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.snapshot: Any = details.pop("snapshot", None)
        super().__init__(message, hint=hint, **details)


class AmbiguousTargetError(TargetError):
    """``candidates`` lists ``(ref, score, label)`` tuples, best first."""

    code = "ambiguous_target"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.candidates: list[tuple[str, float, str]] = list(details.pop("candidates", []))
        super().__init__(message, hint=hint, **details)


class NoMatchError(TargetError):
    code = "no_match"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.candidates: list[tuple[str, float, str]] = list(details.pop("candidates", []))
        super().__init__(message, hint=hint, **details)


class ActionError(WebrefsError):
    """``result`` holds the partial ``ActionResult`` (what was observed before failing)."""

    code = "action_failed"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.result: Any = details.pop("result", None)
        super().__init__(message, hint=hint, **details)


class NotActionableError(ActionError):
    """``reason`` is one of: covered, disabled, readonly, not_editable, not_select,
    not_checkable, not_visible, detached, not_scrollable, not_file_input, not_a_control (a
    click on a line that is no control, to which the page did not react)."""

    code = "not_actionable"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.reason: str = str(details.pop("reason", "unknown"))
        super().__init__(message, hint=hint, **details)


class ActionTimeoutError(ActionError):
    code = "action_timeout"


class ConsentError(ActionError):
    """A sensitive action needed consent and did not get it: the consent callback refused,
    or there is none (``refused`` tells which). ``request`` is the
    :class:`~webrefs.safety.ConsentRequest`; ``err.result.safety`` the decision."""

    code = "needs_consent"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        self.request: Any = details.pop("request", None)
        self.refused: bool = bool(details.pop("refused", False))
        self.decision: Any = details.pop("decision", None)
        super().__init__(message, hint=hint, **details)


class VerificationError(ActionError):
    code = "verification_failed"


class SnapshotError(WebrefsError):
    code = "snapshot_failed"


class SnapshotFormatError(SnapshotError):
    code = "snapshot_format"


class TokenizerError(WebrefsError):
    code = "tokenizer_unavailable"


class InvalidArgumentError(WebrefsError, ValueError):
    code = "invalid_argument"


_CLOSED = re.compile(
    r"Target (page, context or browser )?(has been |was )?closed|Browser has been closed|"
    r"browser has disconnected|Connection closed|Target closed",
    re.IGNORECASE,
)
_CRASHED = re.compile(r"crash", re.IGNORECASE)
_TIMEOUT = re.compile(r"Timeout (\d+)ms exceeded", re.IGNORECASE)
_DETACHED = re.compile(r"not attached to the DOM|detached|Element is not attached", re.I)
_COVERED = re.compile(r"<(\w[\w-]*)\b[^\n]*?intercepts pointer events")
_NET_ERROR = re.compile(r"net::(ERR_[A-Z0-9_]+)|\b(NS_ERROR_[A-Z0-9_]+)")


def translate_playwright_error(exc: BaseException, *, doing: str = "the call") -> WebrefsError:
    """Turn any Playwright exception into the matching :class:`WebrefsError`.

    ``doing`` completes the sentence "... while <doing>" in the message.
    The only place in webrefs that reads Playwright's error texts. What is echoed of them is
    quoted (:func:`webrefs.quoting.quote`): Playwright describes elements with the page's text.
    """
    if isinstance(exc, WebrefsError):
        return exc
    text = str(exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    if _CRASHED.search(text) and "page" in text.lower():
        return PageCrashedError(
            f"The page crashed while {doing}.",
            hint="The tab was replaced with a fresh page; navigate again and take a new snapshot.",
        )
    if _CLOSED.search(text):
        return BrowserClosedError(
            f"The browser or tab closed while {doing}.",
            hint="Open a new tab, or launch the browser again if it has exited.",
        )
    m = _COVERED.search(text)
    if m:
        return NotActionableError(
            f"The element is covered by another element (<{m.group(1)}>) while {doing}.",
            hint="Close the overlay or dialog covering it, or scroll, then take a new snapshot.",
            reason="covered",
            covering_tag=m.group(1),
        )
    m = _TIMEOUT.search(text)
    if m:
        return ActionTimeoutError(
            f"Timed out after {m.group(1)} ms while {doing}: {quote(_last_log_line(text))}",
            hint="The element may be hidden, disabled or still loading; take a new snapshot.",
        )
    if _DETACHED.search(text):
        return StaleRefError(
            f"The element was removed from the page while {doing}.",
            hint="Take a new snapshot and use a current ref.",
        )
    if "net::" in text or "NS_ERROR" in text:
        name = _NET_ERROR.search(text)
        return NavigationError(f"Navigation failed while {doing}: {quote(first, 300)}",
                               net_error=(name.group(1) or name.group(2)) if name else None)
    return WebrefsError(f"The browser reported an error while {doing}: {quote(first, 300)}")


def _last_log_line(text: str) -> str:
    """Playwright's call log explains a timeout; its last meaningful line is the reason."""
    lines = [ln.strip(" -") for ln in text.splitlines() if ln.strip()]
    for line in reversed(lines):
        if line and not line.startswith("=") and "Call log" not in line:
            return line[:200]
    return lines[0][:200] if lines else "no details"


_EXTRA_PACKAGES = {
    "langchain": "langchain-core", "llamaindex": "llama-index-core", "evals": "vcrpy",
    "vision": "Pillow",
}


def missing_extra(module: str, extra: str) -> ImportError:
    """The one ImportError for an optional dependency that is not installed: ``module``
    needs the ``webrefs[extra]`` extra (raise it ``from`` the original ImportError)."""
    needs = _EXTRA_PACKAGES.get(extra, extra)
    return ImportError(f"{module} needs {needs}: pip install 'webrefs[{extra}]'")
