"""Typed models shared by the layers: the page tree (extract -> render), snapshots
(render -> tools) and action results (actions -> tools).

The page tree mirrors the extractor's JSON (format ``version`` 2, documented in
``extractor.js``); field aliases are the JSON's camelCase names.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from .quoting import quote

__all__ = [
    "INTERACTIVE_ROLES",
    "ActionResult",
    "AnswerItem",
    "Box",
    "DialogEvent",
    "ExtractStats",
    "FrameInfo",
    "HeldRequest",
    "Node",
    "NodeRef",
    "PageAnswer",
    "PageInfo",
    "PageTree",
    "RenderedFrom",
    "RequestRecord",
    "SafetyDecision",
    "ScreenMark",
    "Screenshot",
    "SelectOption",
    "Snapshot",
    "SnapshotStats",
    "TextResult",
]

INTERACTIVE_ROLES: frozenset[str] = frozenset(
    {
        "link", "button", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
        "slider", "spinbutton", "switch", "menuitem", "menuitemcheckbox", "menuitemradio",
        "tab", "option", "treeitem", "gridcell",
    }
)
"""Roles an agent acts on; nodes with these roles always get a ref."""


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, frozen=True, extra="ignore")


class Box(NamedTuple):
    """Bounding box in CSS pixels, relative to the top-left of the main frame's document (the
    extractor writes it as ``[x, y, w, h]``)."""

    x: float
    y: float
    w: float
    h: float


class SelectOption(_Model):
    value: str
    label: str
    selected: bool = False
    disabled: bool = False


class FrameInfo(_Model):
    """An iframe's document. ``error`` says why it could not be read (then no children)."""

    prefix: str | None = None
    """Ref prefix of refs inside this frame (``f1``); ``None`` for the main frame."""
    url: str = ""
    name: str = ""
    error: str | None = None


class Node(_Model):
    tag: str = "#text"
    """Lower-case tag name; ``#text`` for a run of text (the extractor leaves it out there)."""
    role: str | None = None
    name: str = ""
    text: str = ""
    """Direct text of the node (not of its children), folded and capped."""
    ref: str | None = None
    level: int | None = None
    states: dict[str, bool | str] = Field(default_factory=dict)
    """checked (true/false/"mixed"), selected, disabled, readonly, required, expanded, pressed,
    focused, invalid, modal."""
    attrs: dict[str, str] = Field(default_factory=dict)
    value: str | None = None
    options: list[SelectOption] | None = None
    box: Box | None = None
    in_viewport: bool = Field(False, alias="inViewport")
    font_size: float = Field(16.0, alias="fontSize")
    clickable: bool = False
    """Clickable by cursor:pointer or an inline click handler, with no interactive role."""
    hint: str = ""
    """For a control with no name: what it may be (a description, title, icon class or image
    file name, id or name attribute). A guess, never its name."""
    frame: FrameInfo | None = None
    """Set on iframe nodes; their children are the frame's document."""
    children: list[Node] = Field(default_factory=list)

    @property
    def interactive(self) -> bool:
        return self.clickable or (self.role in INTERACTIVE_ROLES)


class ExtractStats(_Model):
    dom_nodes: int = Field(0, alias="domNodes")
    visited_nodes: int = Field(0, alias="visitedNodes")
    emitted_nodes: int = Field(0, alias="emittedNodes")
    skipped_hidden: int = Field(0, alias="skippedHidden")
    js_time_ms: float = Field(0.0, alias="jsTimeMs")
    truncated: bool = False
    truncated_reasons: list[str] = Field(default_factory=list, alias="truncatedReasons")
    """Which extractor caps bit: maxNodes, maxDepth, maxTextPerNode, maxAttr, maxOptions."""
    frames: int = 1


class Size(_Model):
    width: float = 0
    height: float = 0


class Point(_Model):
    x: float = 0
    y: float = 0


class PageTree(_Model):
    """One page, all frames stitched: the renderer's only input."""

    version: int = 2
    url: str = ""
    title: str = ""
    viewport: Size = Field(default_factory=Size)
    scroll: Point = Field(default_factory=Point)
    document: Size = Field(default_factory=Size)
    root: Node
    frames: list[FrameInfo] = Field(default_factory=list)
    dialogs: list[DialogEvent] = Field(default_factory=list)
    """Native dialogs (alert/confirm/prompt) seen while the page was read."""
    focused_ref: str | None = Field(None, alias="focusedRef")
    stats: ExtractStats = Field(default_factory=ExtractStats)


class NodeRef(_Model):
    """What a ref in a snapshot points at (for programs and description matching)."""

    ref: str
    role: str
    name: str = ""
    tag: str = ""
    attrs: dict[str, str] = Field(default_factory=dict)
    text: str = ""
    frame: str | None = None


class SnapshotStats(_Model):
    tokens: int
    chars: int
    nodes_emitted: int
    refs_emitted: int
    truncated: bool
    """Nodes of the page are missing from the outline (a budget or cap cut them, or the
    extractor stopped reading); a marker line names the limit and a way around it. Texts cut
    short end in ``…`` in place and do not count."""
    truncation_reasons: list[str] = Field(default_factory=list)
    """Limits that bit: max_tokens, max_chars, max_nodes, viewport_only, max_depth (nodes
    lifted, none lost) and the extractor's caps as ``extractor.<reason>``."""
    extractor: ExtractStats = Field(default_factory=ExtractStats)


class PageInfo(_Model):
    url: str = ""
    title: str = ""
    page_type: str = "unknown"


class RenderedFrom(_Model):
    """What a snapshot was rendered from: the whole page tree and the options that decide
    which nodes are elements. Diffs compare these, not what each budget happened to keep."""

    tree: PageTree
    interactive_only: bool = True
    compact: bool = True
    max_depth: int = 12
    max_text_per_node: int = 200


class Snapshot(_Model):
    text: str
    refs: dict[str, NodeRef]
    stats: SnapshotStats
    page: PageInfo
    source: RenderedFrom | None = Field(default=None, exclude=True, repr=False)
    """The tree this snapshot was rendered from (kept in memory, never serialized); ``None``
    for a snapshot built from text. :func:`~webrefs.diff_snapshots` uses it."""

    def __str__(self) -> str:
        return self.text


class DialogEvent(_Model):
    type: Literal["alert", "confirm", "prompt", "beforeunload"]
    message: str
    handled: Literal["dismissed", "accepted"] = "dismissed"
    answer: str | None = None


class HeldRequest(_Model):
    """A request the safety policy held and judged by what it does before it was sent: one an
    action caused (a form submission, a ``fetch`` that writes, a navigation), or one the page
    sent while no action ran (``cause="page"``). See ``webrefs.safety.effects``."""

    method: str
    url: str
    """Where it was going (card numbers masked, capped)."""
    kind: Literal["navigate", "submit", "send"]
    """``submit``: a form submission (a navigation with a body); ``send``: a ``fetch``, XHR
    or beacon with POST, PUT, PATCH or DELETE; ``navigate``: a GET navigation."""
    level: Literal["auto", "notify", "confirm", "block"] = "auto"
    reasons: list[str] = Field(default_factory=list)
    outcome: Literal["allowed", "approved", "refused"] = "allowed"
    """Sent without asking, sent with consent, or failed before it was sent."""
    asked: bool = False
    """The consent callback was asked about this request and decided it (``False`` for one
    covered by the consent its action already had, and for one refused with no one to
    decide: no callback, or one that answered ``None``)."""
    decided_by: str | None = None
    """Who answered when it was asked (``SafetyPolicy.consent_by``: ``"the user"``, ``"the
    host's policy"``, ``"the eval harness"``)."""
    cause: Literal["action", "page"] = "action"
    tab: str | None = None
    """The tab whose page sent it, when known."""

    def describe(self) -> str:
        """``POST http://shop.test/pay (a form submission)``."""
        what = {"submit": "a form submission", "send": "a request",
                "navigate": "a navigation"}[self.kind]
        return f"{self.method} {self.url[:160]} ({what})"


class SafetyDecision(_Model):
    """How the safety policy judged an action (``webrefs.safety``): by what it is, before it
    ran (``level``, ``reasons``, ``outcome``), and by what it did (``effects``)."""

    level: Literal["auto", "notify", "confirm", "block"] = "auto"
    """``auto`` runs; ``notify`` runs and is reported; ``confirm`` needs consent; ``block``
    never runs."""
    reasons: list[str] = Field(default_factory=list)
    """Why the rules gave that level (empty for ``auto``)."""
    outcome: Literal["allowed", "approved", "refused"] = "allowed"
    """What happened: ran without asking, ran with consent, or was not run."""
    decided_by: str | None = None
    """Who gave or refused the consent (``SafetyPolicy.consent_by``); ``None`` when no one
    was asked."""
    gated: bool = True
    """Whether the policy applied (``False``: the host program's own call under
    ``gate="tools"``: classified and recorded, never stopped)."""
    effects: list[HeldRequest] = Field(default_factory=list)
    """Requests the action caused that the rules found sensitive (``notify`` and up), each
    with what became of it: a refused one was never sent."""


class AnswerItem(_Model):
    """One thing the page said in answer to an action (see :class:`PageAnswer`). ``name``,
    ``text`` and ``values`` are the page's strings, cleaned and capped, never webrefs'
    words; ``role`` is a role word."""

    kind: Literal["title", "form_check", "field_check", "invalid", "live", "dialog", "toast",
                  "notice", "sort"]
    """``title``: the title of the page the action led to; ``form_check``: a field the
    browser's own form check stopped the form at (the form was not sent); ``field_check``:
    the field the action touched now fails that check; ``invalid``: a field the page marked
    invalid (``aria-invalid``), with its message; ``live``: text that appeared or changed in a
    live region (``role=status|alert|log``, ``aria-live``, ``<output>``); ``dialog``: a dialog
    that opened; ``toast``: a toast or snackbar that appeared; ``notice``: error- or
    status-like text at the top of a new page's main content; ``sort``: the column header the
    action clicked and the order it now shows."""
    role: str = ""
    name: str = ""
    """The element's name (a field's label, a dialog's title, a column's header)."""
    text: str = ""
    """What it says: the message, the region's new text, the sort direction (``aria-sort``)."""
    row: str = ""
    """``sort``: the first row's cells joined by ``" | "`` (the item that now comes first)."""
    ref: str | None = None
    """The element's ref, when this tab issued one."""
    values: list[str] = Field(default_factory=list)
    """For ``sort``: the first values of that column, in the order the table now shows."""


class PageAnswer(_Model):
    """What the page said in answer to an action, read in webrefs' world before the action
    and after it settled (:mod:`webrefs.render.answer` decides what counts). Empty answers
    are not kept: ``ActionResult.answer`` is ``None`` when the page said nothing new."""

    items: list[AnswerItem] = Field(default_factory=list)
    """Most telling first."""
    new_page: bool = False
    """Read from the document the action led to (a navigation), not the one it started on."""
    unchanged: bool = False
    """A click after which nothing on the page changed: no element, text, attribute, scroll
    position, title or state of the clicked control, and no navigation, dialog or tab."""


class ActionResult(_Model):
    """What an action did. Returned on success; carried by ``ActionError.result`` on failure."""

    success: bool = True
    action: str
    target: str | None = None
    """The target as given (ref or description)."""
    ref: str | None = None
    """The ref acted on (resolved from a description when needed)."""
    matched_by: Literal["ref", "description", "point"] | None = None
    error_code: str | None = None
    message: str = ""
    """One sentence of what happened, for the model."""
    url_before: str = ""
    url_after: str = ""
    navigated: bool = False
    new_tabs: list[str] = Field(default_factory=list)
    """Ids of tabs (popups) opened by the action."""
    dialogs: list[DialogEvent] = Field(default_factory=list)
    mutations: int = 0
    focused: str | None = None
    """Role and name (and ref when known) of the element focused afterwards."""
    readback: dict[str, Any] = Field(default_factory=dict)
    """What was read back to verify: value, checked, selected, scroll position, text length..."""
    waited_ms: float = 0.0
    snapshot: Snapshot | None = None
    diff: str | None = None
    safety: SafetyDecision | None = None
    """How the safety policy judged the action (``None`` when no policy classified it)."""
    answer: PageAnswer | None = None
    """What the page said in answer (a status or alert, a dialog, a validation message, the
    new page's title, a re-sorted column, or that nothing changed); ``None`` when it said
    nothing new or the action is not one that is answered."""

    def summary(self) -> str:
        """One line of what happened and what changed (for tool messages)."""
        head = self.message or f"{self.action} {'done' if self.success else 'failed'}"
        parts = [head.rstrip().rstrip(".")]
        if self.navigated and self.url_after and self.url_after not in head:  # said once
            parts.append(f"navigated to {self.url_after}")
        if self.new_tabs:
            parts.append(f"opened tab(s) {', '.join(self.new_tabs)}")
        for d in self.dialogs:
            said = f": {quote(d.message, 200)}" if d.message else ""
            parts.append(f"{d.type} dialog {d.handled}{said}")
        return "; ".join(parts) + "."


class ScreenMark(_Model):
    """One ref drawn on a screenshot (set-of-marks), in image pixels."""

    ref: str
    box: tuple[int, int, int, int]
    """The element's box ``(x, y, w, h)`` in the image, cut to it."""
    label: tuple[int, int, int, int]
    """Where the label holding the ref is drawn."""


class Screenshot(_Model):
    """What ``web_screenshot`` took: the image (``png``, not serialized), its size, the part of
    the page it shows, the refs drawn on it and what it costs a model."""

    url: str = ""
    width: int
    """Image width in pixels."""
    height: int
    scale: float
    """Image pixels per CSS pixel (below 1 when the image was downscaled)."""
    region: tuple[float, float, float, float]
    """The part of the page shown, ``(x, y, w, h)`` in CSS pixels of the main document."""
    viewport: bool = True
    """The image shows the viewport (else one element's box, or the whole page)."""
    marks: list[ScreenMark] = Field(default_factory=list)
    """The refs drawn (empty for a plain screenshot)."""
    tokens: dict[str, int] = Field(default_factory=dict)
    """Estimated input tokens of the image per provider family
    (``webrefs.render.marks.TOKEN_RULES``)."""
    png: bytes = Field(default=b"", exclude=True, repr=False)

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        """The image point of page point ``(x, y)`` (CSS pixels of the main document)."""
        return (x - self.region[0]) * self.scale, (y - self.region[1]) * self.scale

    def to_page(self, x: float, y: float) -> tuple[float, float]:
        """The page point (CSS pixels of the main document) of image point ``(x, y)``."""
        return self.region[0] + x / self.scale, self.region[1] + y / self.scale


class TextResult(_Model):
    """Visible text of an element or of the page's main content."""

    text: str
    total_length: int
    """Length of the whole text before truncation."""
    truncated: bool = False
    ref: str | None = None
    source: str = "element"
    """element, main, article, largest_block or body."""
    url: str = ""

    def __str__(self) -> str:
        return self.text


Node.model_rebuild()
PageTree.model_rebuild()


class RequestRecord(_Model):
    """A request a page of the browser sent (kept for hosts: evals, audits)."""

    method: str
    url: str
    resource_type: str = ""
    post_data: str | None = None
    """The request body as text (capped at 64 KB), when there is one."""
