"""The safety policy on the one action path: classify an action before it runs
(:func:`webrefs.safety.classify`), ask for consent on ``confirm``, refuse on ``block``.

Under ``gate="tools"`` (the default) only the model's tool calls are stopped; the host
program's own calls are classified and recorded (``gated=False``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..errors import ConsentError
from ..models import SafetyDecision
from ..safety.consent import ConsentRequest, ask, is_gated
from ..safety.sensitive import TARGET_ACTIONS, classify
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["CLASSIFIED_ACTIONS", "judge_action", "read_page_text"]

CLASSIFIED_ACTIONS = ("click", "check", "select", "press_key", "fill", "upload", "goto",
                      "evaluate")
"""Actions the policy classifies (reading, scrolling, hovering and waiting are not)."""
PAGE_TEXT_CHARS = 20_000
"""How much of the page's visible text the text rules read."""
_TOOL = {"goto": "web_navigate", "evaluate": "a script"}

# run in webrefs' own world: a page that replaced ``innerText`` cannot hide its text from the
# rules
_PAGE_TEXT_JS = """(root, n) => { const b = document.body;
  return b ? String(b.innerText || '').slice(0, n) : ''; }"""


def read_page_text(tab: TabCore, action: str) -> asyncio.Task[str] | None:
    """Start reading the page's visible text when the policy's text rules will need it for
    ``action`` (so the read runs alongside finding the target); ``None`` when they won't."""
    policy = tab.browser.safety
    if (not policy.classifies or action not in TARGET_ACTIONS
            or not any(r.on == "text" for r in policy.rules)):
        return None
    return asyncio.ensure_future(_page_text(tab))


async def _page_text(tab: TabCore) -> str:
    try:
        text = await tab.refs.world.value(tab.page.main_frame, _PAGE_TEXT_JS, PAGE_TEXT_CHARS,
                                          2.0)
    except (TimeoutError, PlaywrightError, ValueError):
        return ""
    return text if isinstance(text, str) else ""


async def judge_action(tab: TabCore, action: str, target: object | None,
                       resolved: Target | None, *, url: str | None = None,
                       page_text: asyncio.Task[str] | None = None) -> SafetyDecision | None:
    """The policy's decision on ``action`` (``None`` when it classifies nothing). Raises
    :class:`ConsentError` (carrying the decision) when the action may not run.
    ``page_text``: the read :func:`read_page_text` started, if any."""
    policy = tab.browser.safety
    if not policy.classifies or action not in CLASSIFIED_ACTIONS:
        return None
    where = url if url is not None else tab.page.url
    name = resolved.label if resolved is not None and resolved.label else ""
    text = ""
    if action in TARGET_ACTIONS and any(r.on == "text" for r in policy.rules):
        text = await (page_text if page_text is not None else _page_text(tab))
    decision = classify(policy.rules, action=action, url=where, page_text=text,
                        target_name=name)
    gated = is_gated(policy)
    decision = decision.model_copy(update={"gated": gated})
    if not gated or decision.level in ("auto", "notify"):
        return decision
    tool = _TOOL.get(action, f"web_{action}")
    what = f"{tool} on {target}" if target is not None else tool
    if name:
        what += f" ({name})"
    why = "; ".join(decision.reasons) or "the safety policy"
    request = ConsentRequest(action=action, target=str(target) if target is not None else None,
                             target_name=name, url=where, level=decision.level,
                             reasons=tuple(decision.reasons))
    refused = decision.model_copy(update={"outcome": "refused"})
    if decision.level == "block":
        raise ConsentError(
            f"{what} was not done: the safety policy blocks it ({why}).",
            hint="Do not look for another way to do it; tell the user it is blocked.",
            host_hint="Change SafetyPolicy.rules to allow it.",
            request=request, decision=refused)
    answer = await ask(policy, request)
    if answer is None:
        raise ConsentError(
            f"{what} was not done: it needs the user's confirmation ({why}), and no one can "
            "confirm it here.",
            hint="Tell the user what you were about to do and let them confirm or do it "
            "themselves; do not look for another way to do it.",
            host_hint="Pass SafetyPolicy(consent=callback) to let a person confirm such "
            "actions.",
            request=request, decision=refused)
    if not answer:
        raise ConsentError(
            f"The user refused {what} ({why}); it was not done.",
            hint="Do not try it again; continue without it or ask the user what to do.",
            request=request, refused=True, decision=refused)
    return decision.model_copy(update={"outcome": "approved"})
