"""Eval providers: what plays the agent's model in an episode.

A :class:`Provider` names a source of LangChain chat models and makes one per episode (a
fresh model per task, so no state leaks between episodes). Built in:

- ``reference``: a model-free baseline that plays each task's reference solution through
  the same tools and agent loop (:class:`~webrefs.evals.langchain_scripted.ScriptedChatModel`).
  It proves every task solvable; it is never an LLM.
- ``PROVIDER:MODEL`` (``openai:gpt-4.1-mini``, ``anthropic:...``, ``ollama:...``): any chat
  model LangChain's ``init_chat_model`` can build; its SDK is an optional install, and a
  missing one is an error naming the pip command.

Settings (temperature, seed, max output tokens) are recorded with the results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webrefs.errors import InvalidArgumentError

from .tasks import Task

__all__ = ["BUILTIN", "BUILTIN_PROVIDERS", "Provider", "resolve_provider"]



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


def _reference() -> Provider:
    from .langchain_scripted import ScriptedChatModel

    return Provider(
        name="reference",
        label="model-free baseline: plays each task's reference solution",
        baseline=True,
        make_model=lambda task: ScriptedChatModel(task=task),
    )


def _chat_model(spec: str, settings: dict[str, Any]) -> Provider:
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise InvalidArgumentError(
            f"Provider {spec!r} needs LangChain's model loader.",
            hint="pip install 'langchain>=1.0' and the provider's package "
                 "(e.g. 'langchain-openai').",
        ) from None
    kwargs = {k: v for k, v in settings.items() if v is not None}

    def make(_task: Task) -> Any:
        try:
            return init_chat_model(spec, **kwargs)
        except ImportError as exc:
            raise InvalidArgumentError(
                f"Provider {spec!r}: {str(exc).splitlines()[0]}",
                hint="Install the provider's LangChain package, e.g. "
                     "pip install langchain-openai.",
            ) from None

    make(Task.model_validate({  # fail now, not in every episode, when the SDK is missing
        "id": "probe", "start_url": "about:blank", "goal": "probe",
        "success": [{"type": "answer", "contains": "x"}], "reference": [{"answer": "x"}],
    }))
    return Provider(name=spec, label=f"LLM: {spec}", baseline=False, make_model=make,
                    settings=kwargs)


BUILTIN: dict[str, Callable[[], Provider]] = {
    "reference": _reference,
}
"""The offline providers by name (model-free baselines)."""
BUILTIN_PROVIDERS = tuple(BUILTIN)


def resolve_provider(spec: str, *, temperature: float | None = None, seed: int | None = None,
                     max_tokens: int | None = None) -> Provider:
    """The provider named ``spec``; an unknown name is an error listing the known ones."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    if ":" in spec and spec.split(":", 1)[1]:
        settings = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens}
        return _chat_model(spec, settings)
    raise InvalidArgumentError(
        f"Unknown provider {spec!r}.",
        hint="Use one of: " + ", ".join(BUILTIN_PROVIDERS)
        + ", or PROVIDER:MODEL for any LangChain chat model (e.g. openai:gpt-4.1-mini).",
    )
