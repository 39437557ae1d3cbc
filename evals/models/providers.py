"""Eval providers: what plays the agent's model in an episode.

(The harness wraps each model in :class:`~webrefs.evals.models.providermodel.EpisodeModel` for
recorded calls, retries and the text-action fallback.)

A :class:`Provider` names a source of LangChain chat models and makes one per episode (a
fresh model per task, so no state leaks between episodes). Built in:

- ``reference``: a model-free baseline that plays each task's reference solution through
  the same tools and agent loop
  (:class:`~webrefs.evals.baselines.langchain_scripted.ScriptedChatModel`,
  or the task's policy when its reference is one, :func:`policy_model`). It proves every
  task solvable; it is never an LLM.
- ``reference-text``: the same baseline writing its actions as JSON in markdown, through the
  fallback for models without tool calling (proves that path offline).
- ``human``: a person at the terminal reads what the model would (:mod:`.human`) and types
  each action; a human baseline, one episode at a time.
- ``llamaindex:openai-like:MODEL`` / ``llamaindex:openai:MODEL``: a LlamaIndex LLM, run
  through the LlamaIndex adapter in a ``FunctionAgent`` (any other LlamaIndex LLM object:
  build a :class:`Provider` with ``kind="llamaindex"`` in Python);
- ``PROVIDER:MODEL`` (``openai:gpt-4.1-mini``, ``anthropic:...``, ``ollama:...``): any chat
  model LangChain's ``init_chat_model`` can build, or any OpenAI-compatible endpoint
  (``openai:MODEL`` with ``base_url``); its SDK is an optional install, and a missing one is
  an error naming the pip command. Models in :data:`TEXT_ONLY` (or any, by option) use the
  JSON-in-markdown fallback.

Settings (temperature, seed, max output tokens) are recorded with the results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import Any, Literal

from webrefs.errors import InvalidArgumentError
from webrefs.tools.capabilities import Capabilities, Mode, capabilities

from ..suite.codescope import CodeScope
from ..suite.redact import redact_url, redact_urls
from ..suite.tasks import Task

__all__ = ["BUILTIN", "BUILTIN_PROVIDERS", "TEXT_ONLY", "Provider", "policy_model",
           "resolve_provider"]

TEXT_ONLY = ("ollama:gemma:*", "ollama:gemma2*", "ollama:llama2*", "ollama:phi3*",
             "ollama:tinyllama*")
"""Models known to lack native tool calling (glob patterns): they get the JSON-in-markdown
fallback automatically."""



@dataclass(frozen=True)
class Provider:
    """A named source of chat models for episodes."""

    name: str
    """How results name it (``reference``, ``openai:gpt-4.1-mini``)."""
    label: str
    """How reports describe it."""
    baseline: bool
    """A model-free baseline rather than an LLM."""
    make_model: Callable[[Task], Any] = field(repr=False)
    """A fresh LangChain chat model for one task."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Temperature, seed, max output tokens: recorded in the results."""
    text_actions: bool = False
    """The model writes actions as JSON in markdown (no native tool calling)."""
    human: bool = False
    """A person types each action (the ``human`` provider): a human baseline, run one
    episode at a time."""
    kind: Literal["langchain", "llamaindex"] = "langchain"
    """Which adapter and agent loop run it: a LangChain chat model in ``create_agent``, or a
    LlamaIndex function-calling LLM in a ``FunctionAgent``."""
    capabilities: Capabilities = field(default_factory=Capabilities)
    """What its chat API accepts (``webrefs.tools.capabilities``): where screenshots go, and
    how its episodes see pages unless the run says (:meth:`mode`). Baselines read text."""

    sees: Mode | None = None
    """How its episodes see pages unless the run says, when not its capabilities' default."""

    def mode(self, asked: Mode | None = None) -> Mode:
        """How its episodes see pages: ``asked``, else its capabilities' default (``dom`` for
        text actions and LlamaIndex, whose loops take no images)."""
        if asked is not None:
            return asked
        if self.text_actions or self.kind != "langchain":
            return "dom"
        if self.sees is not None:
            return self.sees
        return self.capabilities.default_mode


def policy_model(task: Task, *, text_actions: bool = False,
                 code: CodeScope | None = None) -> Any:
    """The chat model of a task whose reference is a policy (``module:name`` of a factory
    ``(task, text_actions) -> chat model``), imported only when ``code`` (the suite's code
    scope; webrefs' own modules when ``None``) allows it."""
    spec = task.reference_policy
    if spec is None:
        raise InvalidArgumentError(f"Task {task.id!r} has no reference policy.")
    factory = (code or CodeScope()).load(spec, f"task {task.id}: reference policy")
    return factory(task, text_actions)


def _reference(code: CodeScope | None = None) -> Provider:
    from ..baselines.langchain_scripted import ScriptedChatModel

    def make(task: Task) -> Any:
        if task.reference_policy is not None:
            return policy_model(task, code=code)
        return ScriptedChatModel(task=task)

    return Provider(
        name="reference",
        label="model-free baseline: plays each task's reference solution",
        baseline=True,
        make_model=make,
        # pages as text, but a policy that needs to see (a task naming web_screenshot) reads
        # the screenshot's pixels in its tool result
        capabilities=Capabilities(images=True, images_in_tool_results=True),
        sees="dom",
    )


def _reference_text(code: CodeScope | None = None) -> Provider:
    from ..baselines.langchain_scripted import TextScriptedChatModel

    def make(task: Task) -> Any:
        if task.reference_policy is not None:
            return policy_model(task, text_actions=True, code=code)
        return TextScriptedChatModel(task=task)

    return Provider(
        name="reference-text",
        label="model-free baseline: the reference solutions, written as JSON actions in text",
        baseline=True,
        make_model=make,
        text_actions=True,
    )


def _heuristic(code: CodeScope | None = None) -> Provider:
    from ..baselines.heuristic import HeuristicChatModel

    return Provider(
        name="heuristic",
        label="model-free baseline: matches goal words to roles and names (no per-task code)",
        baseline=True,
        make_model=lambda task: HeuristicChatModel(),
    )


def _human(code: CodeScope | None = None) -> Provider:
    from ..baselines.human import HumanChatModel

    return Provider(
        name="human",
        label="human baseline: a person reads what the model would and types each action",
        baseline=False,
        human=True,
        make_model=lambda task: HumanChatModel(),
    )


def _chat_model(spec: str, settings: dict[str, Any], text_actions: bool | None) -> Provider:
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise InvalidArgumentError(
            f"Provider {spec!r} needs LangChain's model loader.",
            hint="pip install 'langchain>=1.0' and the provider's package "
                 "(e.g. 'langchain-openai').",
        ) from None
    kwargs = {k: v for k, v in settings.items() if v is not None}
    kwargs.setdefault("max_retries", 0)  # the harness retries, with its own bound

    def make(_task: Task) -> Any:
        try:
            return init_chat_model(spec, **kwargs)
        except ImportError as exc:
            raise InvalidArgumentError(
                f"Provider {spec!r}: {str(exc).splitlines()[0]}",
                hint="Install the provider's LangChain package, e.g. "
                     "pip install langchain-openai.",
            ) from None
        except Exception as exc:  # the SDK refuses its settings: a missing key, a bad URL
            first = redact_urls((str(exc).strip().splitlines() or [type(exc).__name__])[0])
            unknown = "infer model provider" in first or "Unsupported" in first
            raise InvalidArgumentError(
                f"Provider {spec!r} could not be created: {first[:300]}",
                hint="Name a provider LangChain knows (openai:, anthropic:, google_genai:, "
                     "ollama:, ...)." if unknown else
                     "Set the provider's API key in its environment variable "
                     "(e.g. OPENAI_API_KEY), or replay recorded calls.",
            ) from None

    make(Task.model_validate({  # fail now, not in every episode, when the SDK is missing
        "id": "probe", "start_url": "about:blank", "goal": "probe",
        "success": [{"type": "answer", "contains": "x"}], "reference": [{"answer": "x"}],
    }))
    text = any(fnmatch(spec, p) for p in TEXT_ONLY) if text_actions is None else text_actions
    shown = {k: redact_url(v) if k == "base_url" else v for k, v in kwargs.items()
             if k not in ("api_key", "max_retries")}
    return Provider(name=spec, label=f"LLM: {spec}", baseline=False, make_model=make,
                    settings={**shown, "text_actions": text}, text_actions=text,
                    capabilities=capabilities(spec))


def _llamaindex(spec: str, settings: dict[str, Any]) -> Provider:
    _, flavour, model = spec.split(":", 2)
    import os

    kwargs: dict[str, Any] = {"model": model}
    if settings.get("temperature") is not None:
        kwargs["temperature"] = settings["temperature"]
    if settings.get("max_tokens") is not None:
        kwargs["max_tokens"] = settings["max_tokens"]
    try:
        if flavour == "openai-like":
            from llama_index.llms.openai_like import (  # type: ignore[import-untyped]
                OpenAILike as llm_class,
            )

            kwargs.update(api_base=settings.get("base_url"), is_chat_model=True,
                          is_function_calling_model=True,
                          api_key=os.environ.get("OPENAI_API_KEY", ""))
        elif flavour == "openai":
            from llama_index.llms.openai import (
                OpenAI as llm_class,
            )

            if settings.get("base_url"):
                kwargs["api_base"] = settings["base_url"]
        else:
            raise InvalidArgumentError(
                f"Unknown LlamaIndex provider {flavour!r} in {spec!r}.",
                hint="Use llamaindex:openai-like:MODEL or llamaindex:openai:MODEL, or pass a "
                     "Provider(kind='llamaindex') from Python.")
    except ImportError:
        package = ("llama-index-llms-openai-like" if flavour == "openai-like"
                   else "llama-index-llms-openai")
        raise InvalidArgumentError(f"Provider {spec!r} needs {package}.",
                                   hint=f"pip install {package}") from None
    shown = {k: redact_url(v) if k == "api_base" and isinstance(v, str) else v
             for k, v in kwargs.items() if k != "api_key"}
    return Provider(name=spec, label=f"LLM (LlamaIndex): {flavour}:{model}", baseline=False,
                    make_model=lambda _task: llm_class(**kwargs), settings=shown,
                    kind="llamaindex")


BUILTIN: dict[str, Callable[[CodeScope | None], Provider]] = {
    "reference": _reference,
    "reference-text": _reference_text,
    "heuristic": _heuristic,
    "human": _human,
}
"""The offline providers by name (model-free baselines, and the human at the terminal), made
for a suite's code scope (the reference runs a task's policy only when the scope allows
it)."""
BUILTIN_PROVIDERS = tuple(BUILTIN)


def resolve_provider(spec: str, *, temperature: float | None = None, seed: int | None = None,
                     max_tokens: int | None = None, base_url: str | None = None,
                     text_actions: bool | None = None,
                     code: CodeScope | None = None) -> Provider:
    """The provider named ``spec``; an unknown name is an error listing the known ones.
    ``text_actions`` forces (or forbids) the JSON-in-markdown fallback; ``None`` consults
    :data:`TEXT_ONLY`. ``code`` is the suite's code scope, for reference policies (webrefs'
    own modules when ``None``). ``base_url`` is used as given and recorded without its
    credentials (:func:`~webrefs.evals.suite.redact.redact_url`)."""
    if spec in BUILTIN:
        return BUILTIN[spec](code)
    if spec.startswith("llamaindex:") and spec.count(":") >= 2:
        return _llamaindex(spec, {"temperature": temperature, "max_tokens": max_tokens,
                                  "base_url": base_url})
    if ":" in spec and spec.split(":", 1)[1]:
        settings = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens,
                    "base_url": base_url}
        return _chat_model(spec, settings, text_actions)
    raise InvalidArgumentError(
        f"Unknown provider {spec!r}.",
        hint="Use one of: " + ", ".join(BUILTIN_PROVIDERS)
        + ", or PROVIDER:MODEL for any LangChain chat model (e.g. openai:gpt-4.1-mini).",
    )
