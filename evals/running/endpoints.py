"""Which browser each worker slot attaches to (``--browser-endpoint``), as a pure function.

A run's ``browser_endpoint`` is one of three forms:

- one address (``http://127.0.0.1:9222``): every worker attaches to the same browser, each
  episode in a context of its own;
- a template naming ``{worker}`` (``http://browser-{worker}:9222``): worker ``i`` (counted
  from 0) attaches to the template with ``i`` put in, for a pool whose browsers are numbered;
- a comma-separated list (``http://a:9222,http://b:9222``): worker ``i`` attaches to the
  ``i``-th address; there must be at least as many addresses as workers (the rest are
  unused).

:func:`worker_endpoints` turns the option and the number of workers into one address per
worker, or raises :class:`InvalidArgumentError` saying what is wrong with it.
"""

from __future__ import annotations

import string

from webrefs.errors import InvalidArgumentError

__all__ = ["WORKER_FIELD", "worker_endpoints"]

WORKER_FIELD = "worker"
"""The template field a worker's number (from 0) replaces."""

_HINT = ("Give one address, a template naming {worker} (http://browser-{worker}:9222), "
         "or a comma-separated list with an address per worker.")


def _fields(text: str) -> list[str]:
    try:
        return [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as exc:
        raise InvalidArgumentError(f"--browser-endpoint {text!r} is not a valid template: "
                                   f"{exc}.", hint=_HINT) from None


def worker_endpoints(spec: str | None, workers: int) -> list[str | None]:
    """One address per worker slot (None everywhere when no endpoint is given: each worker
    launches its own browser)."""
    if workers < 1:
        raise InvalidArgumentError("workers must be at least 1.")
    if spec is None or not spec.strip():
        return [None] * workers
    parts = [p.strip() for p in spec.split(",")]
    if any(not p for p in parts):
        raise InvalidArgumentError(f"--browser-endpoint {spec!r} has an empty address.",
                                   hint=_HINT)
    if len(parts) > 1:
        if any(_fields(p) for p in parts):
            raise InvalidArgumentError(
                f"--browser-endpoint {spec!r} mixes a list with a template.", hint=_HINT)
        if len(parts) < workers:
            raise InvalidArgumentError(
                f"--browser-endpoint lists {len(parts)} browsers for {workers} workers.",
                hint=f"List one address per worker, or run with --workers {len(parts)}.")
        return list(parts[:workers])
    only = parts[0]
    fields = _fields(only)
    if not fields:
        return [only] * workers
    unknown = sorted(set(fields) - {WORKER_FIELD})
    if unknown:
        raise InvalidArgumentError(
            f"--browser-endpoint {only!r} names {', '.join('{' + f + '}' for f in unknown)}; "
            "a template may name only {worker}.", hint=_HINT)
    try:
        return [only.format(worker=i) for i in range(workers)]
    except (ValueError, IndexError, KeyError) as exc:
        raise InvalidArgumentError(f"--browser-endpoint {only!r} is not a valid template: "
                                   f"{exc}.", hint=_HINT) from None
