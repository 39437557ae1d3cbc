"""The task format: suites of tasks, each with a goal, success checks and a reference solution.

A suite is a JSON file (schema below, published by ``webrefs eval schema``) plus the site it
runs on. Every model here is frozen and forbids unknown fields, so a typo in a suite is an
error naming the field, not a silently ignored check::

    {
      "schema": 1,
      "name": "demo",
      "site": {"folder": "demo_site", "origin": "http://demo.webrefs.test"},
      "tasks": [{
        "id": "lighthouse-year",
        "start_url": "/index.html",
        "goal": "Find the year Veldmark Lighthouse was built.",
        "max_steps": 12,
        "tags": ["search", "read"],
        "success": [{"type": "answer", "contains": "1887"},
                    {"type": "url", "pattern": "article-veldmark"}],
        "reference": [
          {"tool": "web_fill", "target": {"role": ["searchbox", "textbox"], "name": "Search"},
           "args": {"value": "lighthouse"}},
          {"tool": "web_click", "target": {"role": "button", "name": "Search"}},
          {"answer": {"pattern": "built in (\\\\d{4})", "template": "It was built in {0}."}}
        ]
      }]
    }

Reference steps name their target by role and name, never by ref: the reference provider
looks the ref up in the latest snapshot it was shown, so each task proves itself solvable
through the tools alone. Pure code: no browser.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from webrefs.errors import InvalidArgumentError

from .inputs import (
    MAX_SUITE_BYTES,
    confined,
    package_folder,
    problems,
    read_json,
    site_files,
    suite_root,
)

__all__ = [
    "SCHEMA_VERSION",
    "AnswerCheck",
    "AnswerStep",
    "Check",
    "ElementCheck",
    "JsCheck",
    "LoadedSuite",
    "PolicyStep",
    "RequestCheck",
    "RewardCheck",
    "Setup",
    "Site",
    "Step",
    "Suite",
    "Target",
    "Task",
    "TextCheck",
    "ToolStep",
    "UrlCheck",
    "builtin_suites",
    "load_suite",
    "suite_schema",
]

SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return value


# -- success checks ----------------------------------------------------------------------------
class UrlCheck(_Model):
    """The final URL of the active tab matches ``pattern`` (a regex, searched)."""

    type: Literal["url"] = "url"
    pattern: str

    _check = field_validator("pattern")(_regex)


class ElementCheck(_Model):
    """An element with ``role`` and ``name`` is on the page (or, with ``present: false``, is
    not), in the states given. States left out are not checked."""

    type: Literal["element"] = "element"
    role: str
    name: str | None = None
    """Case-insensitive substring of the accessible name (``exact`` for the whole name)."""
    exact: bool = False
    present: bool = True
    checked: bool | None = None
    selected: bool | None = None
    disabled: bool | None = None
    expanded: bool | None = None
    value: str | None = None
    """The field's current value, exactly."""


class TextCheck(_Model):
    """The page's visible text contains ``contains`` (case-insensitive), or not."""

    type: Literal["text"] = "text"
    contains: str
    present: bool = True


class JsCheck(_Model):
    """A JavaScript predicate on the page: ``expression`` (an expression or a function
    taking no argument) must evaluate to a truthy value."""

    type: Literal["js"] = "js"
    expression: str
    description: str = ""
    """What the predicate means, shown when it fails."""


class AnswerCheck(_Model):
    """The agent's final answer: contains a string, equals it, or matches a regex (all
    case-insensitive); at least one of the three."""

    type: Literal["answer"] = "answer"
    contains: str | None = None
    equals: str | None = None
    regex: str | None = None

    def model_post_init(self, _context: Any) -> None:
        if self.contains is None and self.equals is None and self.regex is None:
            raise ValueError("an answer check needs 'contains', 'equals' or 'regex'")
        if self.regex is not None:
            _regex(self.regex)


class RequestCheck(_Model):
    """A request was sent (read from the recorded traffic) whose URL matches ``url`` (regex),
    with ``method``, carrying the given form fields (URL-encoded, multipart-free forms, or a
    JSON object body)."""

    type: Literal["request"] = "request"
    url: str
    method: str = "POST"
    form: dict[str, str] = Field(default_factory=dict)

    _check = field_validator("url")(_regex)


class RewardCheck(_Model):
    """A reward the page computes itself (a benchmark's own scoring): ``expression`` (a
    JavaScript expression or function taking no argument) evaluates to a number, or to an
    object ``{"reward": number, "done": bool, "reason": str}``; the check holds when the
    reward is above ``above`` (and the page says it is done, when it says). The reward is
    kept with the result (``CheckResult.value``)."""

    type: Literal["reward"] = "reward"
    expression: str
    above: float = 0.0


Check = Annotated[
    UrlCheck | ElementCheck | TextCheck | JsCheck | AnswerCheck | RequestCheck | RewardCheck,
    Field(discriminator="type"),
]


# -- reference solutions -----------------------------------------------------------------------
class Target(_Model):
    """Which snapshot line a reference step acts on: the first with one of the roles whose
    name contains ``name`` (case-insensitive), or equals it with ``exact``."""

    role: tuple[str, ...]
    name: str | None = None
    exact: bool = False

    @field_validator("role", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value


class ToolStep(_Model):
    """One tool call: ``args`` as given, plus ``ref`` found from ``target`` when set."""

    tool: str
    target: Target | None = None
    args: dict[str, Any] = Field(default_factory=dict)


class AnswerSpec(_Model):
    pattern: str
    """Regex searched in the tool results seen, newest first; its groups fill ``template``."""
    template: str = "{0}"

    _check = field_validator("pattern")(_regex)


class AnswerStep(_Model):
    """The final answer: a fixed string, or one read from what the tools returned."""

    answer: str | AnswerSpec


class PolicyStep(_Model):
    """A reference that is a program rather than a fixed list of calls, for tasks whose page
    varies per episode: ``module:name`` of a factory ``(task, text_actions) -> chat model``
    that reads the goal and what the tools return (never the page itself) and decides each
    call. It is the only step of its reference. The module is webrefs' own or one in the
    suite's folder (elsewhere only with ``--allow-code``: see
    :mod:`~webrefs.evals.suite.codescope`)."""

    policy: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


Step = ToolStep | AnswerStep | PolicyStep


class Setup(_Model):
    """JavaScript run in the start page once it has loaded, before the agent starts: a
    function taking ``{seed, time_limit}`` (the run's seed; whether the task's own time
    limit holds). With ``goal``, what it returns is the episode's goal and the task's
    ``goal`` only describes it."""

    script: str = Field(min_length=1)
    goal: bool = False


# -- tasks and suites --------------------------------------------------------------------------
class Task(_Model):
    """One task an agent is given."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
    start_url: str
    """Where the episode starts: a path on the suite's site (``/index.html``) or an
    ``http``/``https`` URL."""
    goal: str = Field(min_length=1)
    """The instruction given to the agent."""
    max_steps: int = Field(20, ge=1, le=1000)
    """Tool calls allowed before the episode counts as failed (at most 1,000: a task that
    watches a page change, such as MiniWoB's stock-market, looks many times)."""
    tags: tuple[str, ...] = ()
    difficulty: Literal["easy", "medium", "hard"] | None = None
    success: tuple[Check, ...] = Field(min_length=1)
    """All must hold at the end."""
    reference: tuple[Step, ...] = Field(min_length=1)
    """A solution through the tools, written against roles and names."""
    setup: Setup | None = None
    """Run in the start page before the agent starts (seeding, the goal read from the page)."""
    own_browser: bool = False
    """Run each episode in a browser process of its own, not in a context of the run's shared
    browser: for tasks that use what the contexts of one browser share, such as the clipboard
    (a copy in one episode would be pasted in another). Attached to a browser over CDP, such
    episodes take turns instead."""
    tools: tuple[str, ...] = ()
    """Tools this task needs besides the run's selection (tool names or group names of
    ``webrefs.tools.TOOL_GROUPS``, such as ``web_hover``): every provider is offered them on
    this task."""

    @field_validator("start_url")
    @classmethod
    def _web_start(cls, value: str) -> str:
        scheme, sep, _ = value.partition("://")
        if sep and scheme.lower() not in ("http", "https"):
            raise ValueError("a start page is a path on the suite's site (/index.html) or an "
                             f"http(s) URL, not a {scheme}: URL")
        return value

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from webrefs.tools import TOOL_GROUPS, TOOL_SPECS

        unknown = [t for t in value if t not in TOOL_SPECS and t not in TOOL_GROUPS]
        if unknown:
            raise ValueError(f"unknown tool(s) {', '.join(unknown)}; use names of "
                             f"{', '.join(TOOL_SPECS)} or groups {', '.join(TOOL_GROUPS)}")
        return value

    @property
    def reference_calls(self) -> tuple[ToolStep, ...]:
        return tuple(s for s in self.reference if isinstance(s, ToolStep))

    @property
    def reference_answer(self) -> AnswerStep | None:
        last = self.reference[-1]
        return last if isinstance(last, AnswerStep) else None

    @property
    def reference_policy(self) -> str | None:
        """``module:name`` of the reference's policy, when it is one."""
        first = self.reference[0]
        return first.policy if isinstance(first, PolicyStep) else None

    def model_post_init(self, _context: Any) -> None:
        if any(isinstance(s, PolicyStep) for s in self.reference) and len(self.reference) > 1:
            raise ValueError("a policy step can only be the only step of a reference")
        answers = [i for i, s in enumerate(self.reference) if isinstance(s, AnswerStep)]
        if answers and answers != [len(self.reference) - 1]:
            raise ValueError("an answer step can only be the last step of a reference")


class Site(_Model):
    """The site a suite runs on, served locally under a fixed origin."""

    folder: str
    """Folder of the site's files, relative to the suite file (or to ``package``), and
    inside the suite file's folder (or the package's): an absolute path, a ``..`` out of
    it or a link that leads out is refused, as is a link in the site that leads out of
    the site."""
    package: str | None = Field(None, pattern=r"^[A-Za-z_][\w.]*$")
    """An installed Python package whose files are the site (``folder`` is then inside
    it): for benchmarks distributed as packages. It is found, never imported. Not
    installed: the suite cannot load."""
    origin: str = Field(pattern=r"^http://[a-z0-9-]+(\.[a-z0-9-]+)*\.test$")
    """The fixed origin the site is served under (a ``.test`` host, mapped to loopback)."""
    handler: str | None = Field(None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    """``module:Class`` of a request handler with server-side behaviour (forms, sessions,
    validation): a subclass of :class:`~webrefs.evals.running.sites.SiteHandler`, in webrefs or in
    a module in the suite's folder (elsewhere only with ``--allow-code``: see
    :mod:`~webrefs.evals.suite.codescope`). Without one the folder is served as static files."""


class Suite(_Model):
    """A suite file."""

    schema_version: int = Field(SCHEMA_VERSION, alias="schema")
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    description: str = ""
    site: Site | None = None
    tasks: tuple[Task, ...] = Field(min_length=1)
    excluded: dict[str, str] = Field(default_factory=dict)
    """Tasks of the benchmark a suite is adapted from that it leaves out, with why (reports
    list them; they are never run)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def model_post_init(self, _context: Any) -> None:
        if self.schema_version != SCHEMA_VERSION:
            raise ValueError(f"schema {self.schema_version} is not supported "
                             f"(this webrefs reads schema {SCHEMA_VERSION})")
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"two tasks have the id {task.id!r}")
            seen.add(task.id)

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise InvalidArgumentError(f"No task {task_id!r} in suite {self.name!r}.",
                                   hint=f"Tasks: {', '.join(t.id for t in self.tasks)}.")


class LoadedSuite(_Model):
    """A suite with where it came from."""

    suite: Suite
    path: str
    """The suite file."""
    content_hash: str
    """SHA-256 of the suite file and its site's files, so a result names exactly what ran."""
    root: str = ""
    """The folder the suite is confined to (its file's folder, links followed; for a suite
    shipped with webrefs, the ``webrefs.evals`` package): its site and its Python modules
    are there."""
    site_folder: str | None = None
    """The site's folder, checked to be in ``root`` (or in the site's package)."""

    @property
    def site_dir(self) -> Path | None:
        return Path(self.site_folder) if self.site_folder is not None else None

    def start_url(self, task: Task) -> str:
        if "://" in task.start_url or self.suite.site is None:
            return task.start_url
        return self.suite.site.origin + "/" + task.start_url.lstrip("/")


def builtin_suites() -> dict[str, Path]:
    """The suites shipped with webrefs, by name."""
    folder = resources.files("webrefs.evals").joinpath("suites")
    out: dict[str, Path] = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".json"):
            out[entry.name[:-5]] = Path(str(entry))
    return dict(sorted(out.items()))


def _site_dir(suite_file: Path, site: Site) -> Path:
    """The site's folder, confined to the suite's folder (or to the site's package)."""
    if site.package is not None:
        return confined(package_folder(site.package), site.folder, "site.folder")
    return confined(suite_file.parent, site.folder, "site.folder", suite_root(suite_file))


def _hash(path: Path, site: Path | None) -> str:
    digest = hashlib.sha256(path.read_bytes())
    if site is not None:
        for file in site_files(site):
            digest.update(str(file.relative_to(site)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def load_suite(name_or_path: str | Path) -> LoadedSuite:
    """A builtin suite by name (``demo``) or a suite file by path, validated, its site
    confined to its folder (see :mod:`~webrefs.evals.suite.inputs`). Nothing it names is
    imported."""
    builtin = builtin_suites()
    key = str(name_or_path)
    path = builtin[key] if key in builtin else Path(key)
    if not path.is_file():
        raise InvalidArgumentError(
            f"No suite {key!r}: it is neither a builtin suite nor a file.",
            hint=f"Builtin suites: {', '.join(builtin) or 'none'}.",
        )
    raw = read_json(path, "Suite file", max_bytes=MAX_SUITE_BYTES)
    try:
        suite = Suite.model_validate(raw)
    except ValidationError as exc:
        raise InvalidArgumentError(
            f"Suite file {path} does not follow the task format: {problems(exc)}.",
            hint="Run 'webrefs eval schema' for the format.",
        ) from None
    root = suite_root(path)
    try:
        site = _site_dir(path, suite.site) if suite.site is not None else None
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"Suite {suite.name}: {err.message}", hint=err.hint) from None
    if site is not None and not site.is_dir():
        raise InvalidArgumentError(f"Suite {suite.name}: its site folder {site} does not exist.")
    try:
        content_hash = _hash(path, site)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"Suite {suite.name}: {err.message}", hint=err.hint) from None
    except OSError as exc:
        raise InvalidArgumentError(f"Suite {suite.name}: its files cannot be read: {exc}") from None
    return LoadedSuite(suite=suite, path=str(path.resolve()), content_hash=content_hash,
                       root=str(root), site_folder=str(site) if site is not None else None)


def suite_schema() -> dict[str, Any]:
    """The JSON Schema of a suite file."""
    schema = Suite.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "webrefs eval suite"
    return schema
