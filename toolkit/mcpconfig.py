"""The options of ``webrefs mcp``, from a TOML file (``--config``) and the command line.

Both end in the library's own options objects, so no option is defined twice: each
section of the file takes the fields of one of them, by their Python names, and its keys
and types are read from that class::

    [browser]                  # BrowserOptions, plus endpoint
    headless = true
    user_data_dir = "~/.webrefs/profile"    # a persistent profile
    storage_state = "state.json"
    proxy = "http://proxy.internal:3128"
    user_agent = "Mozilla/5.0 ..."
    endpoint = "http://127.0.0.1:9222"      # attach instead of launching

    [tools]                    # ToolOptions
    tools = "default"          # or a list of tool and group names
    max_tokens = 3000
    after_action = "diff"

    [safety]                   # SafetyPolicy
    allowed_domains = ["*.example.com", "example.com"]
    block_private_network = true
    default_rules = true       # keep webrefs' rules and add these
    rules = [{on = "target", pattern = "launch", level = "block", reason = "no rockets"}]
    [safety.secrets]           # a secret's name = the environment variable holding it
    password = "SHOP_PASSWORD"

    [server]                   # McpOptions
    elicit = true              # ask the client's user about actions that need consent
    idle_timeout_s = 1800      # over HTTP: end a session with no request for this long

A key the class does not have, or a value of the wrong type, is an error naming the
section and the key. Secret values are read from environment variables only, never from
the file or the command line. What the command line gives replaces what the file says.
"""

from __future__ import annotations

import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from .adapters.mcp import McpOptions
from .errors import InvalidArgumentError
from .safety import ConsentRequest, SafetyPolicy
from .safety.sensitive import DEFAULT_RULES, Rule
from .session.launcher import BrowserOptions
from .tools import ToolOptions, select_tools

__all__ = ["load_config", "read_toml"]

MAX_CONFIG_BYTES = 1_000_000
"""Largest config file read."""

_BROWSER_EXTRA = ("endpoint",)
_SAFETY_NOT_SET = ("consent", "consent_by", "sensitive_data", "rules")
"""SafetyPolicy fields a file cannot set as they are: the consent callback is the server's,
secrets come as ``secrets`` (environment variable names), rules as tables."""
_SAFETY_EXTRA = ("secrets", "rules", "default_rules")
_SERVER_KEYS: dict[str, Any] = {"elicit": bool, "idle_timeout_s": float}
_RULE_KEYS = {"on": str, "pattern": str, "level": str, "reason": str, "escalate": str,
              "actions": list}


def _fail(where: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{where}: {message}")


def read_toml(path: str) -> dict[str, Any]:
    """The TOML file at ``path`` as a dict; an error names the file and what is wrong."""
    file = Path(path).expanduser()
    try:
        if file.stat().st_size > MAX_CONFIG_BYTES:
            raise _fail(path, f"the file is larger than {MAX_CONFIG_BYTES} bytes")
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _fail(path, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(path, f"cannot be read ({type(exc).__name__})") from None
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, f"not valid TOML ({exc})") from None
    return data


def _check_sections(path: str, data: Mapping[str, Any]) -> None:
    unknown = sorted(set(data) - {"browser", "tools", "safety", "server"})
    if unknown:
        raise _fail(path, f"unknown section(s) {', '.join(unknown)}; the sections are "
                    "[browser], [tools], [safety] and [server]")
    for name, section in data.items():
        if not isinstance(section, dict):
            raise _fail(path, f"{name} must be a section ([{name}]), not a single value")


def _type_name(kind: Any) -> str:
    origin = typing.get_origin(kind)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_type_name(a) for a in typing.get_args(kind))
    if kind is type(None):
        return "none"
    if origin is tuple and len(args := typing.get_args(kind)) == 2 and args[1] is Ellipsis:
        return f"a list of {_type_name(args[0]).removeprefix('a ').removeprefix('an ')}s"
    if origin is tuple:
        return f"a list of {len(typing.get_args(kind))} numbers"
    if kind is tuple or origin is list:
        return "a list"
    if origin is dict or kind is dict or origin is Mapping:
        return "a table"
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(kind))
    return {bool: "true or false", int: "an integer", float: "a number",
            str: "a string"}.get(kind, getattr(kind, "__name__", str(kind)))


def _fits(value: Any, kind: Any) -> bool:
    """Whether a TOML value fits a field's annotation (the shapes options fields use)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return True
    if origin in (types.UnionType, typing.Union):
        return any(_fits(value, a) for a in args)
    if kind is type(None):
        return value is None
    if origin is typing.Literal:
        return value in args
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is str:
        return isinstance(value, str)
    if origin is tuple:
        if not isinstance(value, list):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args,
                                                                             strict=True))
    if origin in (dict, Mapping):
        return isinstance(value, dict) and all(
            isinstance(k, str) and _fits(v, args[1]) for k, v in value.items())
    return False


def _as_field(value: Any, kind: Any) -> Any:
    """A TOML value as the field wants it (lists become tuples where the field has one)."""
    if isinstance(value, list) and (typing.get_origin(kind) is tuple or any(
            typing.get_origin(a) is tuple for a in typing.get_args(kind))):
        return tuple(value)
    return value


def _section(cls: type, where: str, data: Mapping[str, Any], *,
             extra: tuple[str, ...] = (), not_set: tuple[str, ...] = ()) -> dict[str, Any]:
    """The keys of ``data`` checked against the fields of ``cls`` (names and types)."""
    # names a module imports only for type checkers, resolved here
    hints = typing.get_type_hints(cls, localns={"Rule": Rule, "ConsentRequest": ConsentRequest})
    names = [f.name for f in fields(cls) if f.name not in not_set]
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in extra:
            continue
        if key not in names:
            raise _fail(where, f"unknown key {key!r}; the keys are "
                        f"{', '.join(sorted([*names, *extra]))}")
        if not _fits(value, hints[key]):
            raise _fail(f"{where}.{key}", f"must be {_type_name(hints[key])}, got "
                        f"{type(value).__name__} {str(value)[:60]!r}")
        out[key] = _as_field(value, hints[key])
    return out


def _rules(where: str, items: Any) -> tuple[Rule, ...]:
    if not isinstance(items, list):
        raise _fail(where, "must be a list of tables ([[safety.rules]])")
    rules: list[Rule] = []
    for i, item in enumerate(items):
        here = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise _fail(here, "must be a table with on, pattern, level and reason")
        for key, value in item.items():
            if key not in _RULE_KEYS:
                raise _fail(here, f"unknown key {key!r}; the keys are "
                            f"{', '.join(_RULE_KEYS)}")
            if not isinstance(value, _RULE_KEYS[key]):
                raise _fail(f"{here}.{key}", f"must be {_type_name(_RULE_KEYS[key])}")
        missing = [k for k in ("on", "pattern", "level", "reason") if k not in item]
        if missing:
            raise _fail(here, f"needs {', '.join(missing)}")
        try:
            rules.append(Rule(item["on"], item["pattern"], item["level"], item["reason"],
                              escalate=item.get("escalate"),
                              actions=tuple(item.get("actions", ()))))
        except InvalidArgumentError as exc:
            raise _fail(here, exc.message) from None
    return tuple(rules)


def _secrets(where: str, table: Any, environ: Mapping[str, str]) -> dict[str, Any]:
    """``{name: VARIABLE}`` (or ``{"*.site.test": {name: VARIABLE}}``) as the secrets'
    values, read from the environment."""
    if not isinstance(table, dict):
        raise _fail(where, "must be a table of secret names and environment variable names")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out[key] = _secrets(f"{where}.{key}", value, environ)
            continue
        if not isinstance(value, str) or not value:
            raise _fail(f"{where}.{key}", "must name an environment variable (a string)")
        if value not in environ:
            raise _fail(f"{where}.{key}", f"the environment variable {value} is not set; "
                        "secret values are taken from the environment only")
        out[key] = environ[value]
    return out


def _safety(where: str, data: Mapping[str, Any], environ: Mapping[str, str]) -> SafetyPolicy:
    given = _section(SafetyPolicy, where, data, extra=_SAFETY_EXTRA, not_set=_SAFETY_NOT_SET)
    if "default_rules" in data and not isinstance(data["default_rules"], bool):
        raise _fail(f"{where}.default_rules", "must be true or false")
    rules = _rules(f"{where}.rules", data.get("rules", []))
    if data.get("default_rules", True):
        rules = (*DEFAULT_RULES, *rules)
    given["rules"] = rules
    if "secrets" in data:
        given["sensitive_data"] = _secrets(f"{where}.secrets", data["secrets"], environ)
    try:
        return SafetyPolicy(**given)
    except InvalidArgumentError as exc:
        raise _fail(where, exc.message) from None


def _build(cls: type, where: str, given: dict[str, Any]) -> Any:
    try:
        return cls(**given)
    except InvalidArgumentError as exc:
        raise _fail(where, exc.message) from None


def _expand_path(value: Any) -> Any:
    return str(Path(value).expanduser()) if isinstance(value, str) else value


def load_config(file: Mapping[str, Any] | None = None, *, path: str = "config",
                browser: Mapping[str, Any] | None = None,
                tools: Mapping[str, Any] | None = None,
                safety: Mapping[str, Any] | None = None,
                server: Mapping[str, Any] | None = None,
                environ: Mapping[str, str] | None = None) -> McpOptions:
    """The server's options: the file's sections (``file``, read from ``path``), each
    replaced key by key by what the command line gave (``browser``, ``tools``, ``safety``,
    ``server``: keys as in the file, ``None`` values left out)."""
    file = file or {}
    _check_sections(path, file)
    environ = os.environ if environ is None else environ

    def merged(name: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
        out = dict(file.get(name, {}))
        out.update({k: v for k, v in (given or {}).items() if v is not None})
        return out

    b = merged("browser", browser)
    endpoint = b.pop("endpoint", None)
    if endpoint is not None and not isinstance(endpoint, str):
        raise _fail(f"{path} [browser].endpoint", "must be a string (a CDP or Playwright "
                    "server address)")
    browser_given = _section(BrowserOptions, f"{path} [browser]", b)
    for key in ("user_data_dir", "storage_state", "executable_path", "downloads_dir"):
        if key in browser_given:
            browser_given[key] = _expand_path(browser_given[key])
    if endpoint is not None and browser_given.get("user_data_dir"):
        raise _fail(f"{path} [browser]", "user_data_dir (a profile webrefs launches) and "
                    "endpoint (a browser already running) exclude each other")
    if browser_given.get("user_data_dir") and browser_given.get("storage_state"):
        raise _fail(f"{path} [browser]", "storage_state cannot be used with user_data_dir: "
                    "a profile keeps its own state")
    options = _build(BrowserOptions, f"{path} [browser]", browser_given)

    t = _section(ToolOptions, f"{path} [tools]", merged("tools", tools))
    tool_options = _build(ToolOptions, f"{path} [tools]", t)
    try:
        select_tools(tool_options)  # tool and group names are known
    except InvalidArgumentError as exc:
        raise _fail(f"{path} [tools]", f"{exc.message} {exc.hint}") from None
    policy = _safety(f"{path} [safety]", merged("safety", safety), environ)

    s = merged("server", server)
    for key, value in s.items():
        if key not in _SERVER_KEYS:
            raise _fail(f"{path} [server]", f"unknown key {key!r}; the keys are "
                        f"{', '.join(_SERVER_KEYS)}")
        if not _fits(value, _SERVER_KEYS[key]):
            raise _fail(f"{path} [server].{key}", f"must be {_type_name(_SERVER_KEYS[key])}")
    try:
        return McpOptions(tools=tool_options, browser=options, safety=policy, endpoint=endpoint,
                          **s)
    except InvalidArgumentError as exc:
        raise _fail(f"{path} [server]", exc.message) from None
