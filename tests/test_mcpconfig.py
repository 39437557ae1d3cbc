"""``webrefs mcp``'s options from a TOML file and the command line: the library's own options
objects, every mistake named by its section and key, secrets from the environment only."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from webrefs import BrowserOptions, SafetyPolicy, ToolOptions
from webrefs.adapters.mcp import McpOptions
from webrefs.errors import InvalidArgumentError
from webrefs.mcpconfig import load_config, read_toml
from webrefs.safety.sensitive import DEFAULT_RULES, Rule

FULL = """
[browser]
headless = false
user_data_dir = "/tmp/profile-x"
proxy = "http://127.0.0.1:3128"
user_agent = "agent/1"
args = ["--lang=de"]
viewport = [800, 600]

[tools]
tools = ["core", "web_navigate"]
exclude = ["web_scroll"]
max_tokens = 1200
after_action = "diff"

[safety]
allowed_domains = ["example.com", "*.example.com"]
blocked_domains = ["ads.example.com"]
block_private_network = true
rules = [{on = "target", pattern = "launch", level = "block", reason = "no rockets"}]

[safety.secrets]
password = "SHOP_PASSWORD"

[safety.secrets."*.bank.test"]
pin = "BANK_PIN"

[server]
elicit = false
idle_timeout_s = 60
"""


def config(text: str, **given: dict[str, object]) -> McpOptions:
    return load_config(tomllib.loads(text), path="c.toml",
                       environ={"SHOP_PASSWORD": "hunter2", "BANK_PIN": "9876"}, **given)


def test_every_section_becomes_the_library_options() -> None:
    got = config(FULL)
    assert got.browser == BrowserOptions(
        headless=False, user_data_dir="/tmp/profile-x", proxy="http://127.0.0.1:3128",
        user_agent="agent/1", args=("--lang=de",), viewport=(800, 600))
    assert got.tools == ToolOptions(
        tools=("core", "web_navigate"), exclude=("web_scroll",), max_tokens=1200,
        after_action="diff")
    safety = got.safety
    assert isinstance(safety, SafetyPolicy)
    assert safety.allowed_domains == ("example.com", "*.example.com")
    assert safety.blocked_domains == ("ads.example.com",)
    assert safety.block_private_network is True
    assert safety.rules == (*DEFAULT_RULES, Rule("target", "launch", "block", "no rockets"))
    assert safety.sensitive_data == {"password": "hunter2", "*.bank.test": {"pin": "9876"}}
    assert got.elicit is False and got.endpoint is None
    assert got.idle_timeout_s == 60


def test_defaults_without_a_file() -> None:
    got = load_config({})
    assert got.tools == ToolOptions() and got.browser == BrowserOptions()
    assert got.safety == SafetyPolicy() and got.elicit is True


def test_the_command_line_replaces_the_file_key_by_key() -> None:
    got = config(FULL, tools={"max_tokens": 600, "after_action": None},
                 browser={"user_agent": "cli/2", "headless": None},
                 safety={"allowed_domains": ["127.0.0.1"]}, server={"elicit": None})
    assert got.tools.max_tokens == 600 and got.tools.after_action == "diff"
    assert got.browser.user_agent == "cli/2" and got.browser.headless is False
    assert got.safety.allowed_domains == ("127.0.0.1",)
    assert got.safety.block_private_network is True


def test_rules_can_replace_the_defaults() -> None:
    got = config('[safety]\ndefault_rules = false\n'
                 'rules = [{on = "url", pattern = "pay", level = "confirm", reason = "pays"}]')
    assert got.safety.rules == (Rule("url", "pay", "confirm", "pays"),)


@pytest.mark.parametrize(("text", "named"), [
    ("[tools]\nmax_token = 500", "c.toml [tools]: unknown key 'max_token'"),
    ("[tools]\nmax_tokens = \"500\"", "c.toml [tools].max_tokens: must be an integer"),
    ("[tools]\nmax_tokens = 10", "c.toml [tools]: max_tokens must be an integer >= 50"),
    ("[tools]\nafter_action = \"all\"", "c.toml [tools].after_action: must be 'none' or"),
    ("[tools]\ntools = [\"web_fly\"]", "c.toml [tools]: Unknown tool name(s) in tools: 'web_fly'"),
    ("[browser]\nheadless = 1", "c.toml [browser].headless: must be true or false"),
    ("[browser]\nviewport = [1]", "c.toml [browser].viewport: must be a list of 2 numbers"),
    ("[browser]\nprofile = \"x\"", "c.toml [browser]: unknown key 'profile'"),
    ("[browser]\nendpoint = 9222", "c.toml [browser].endpoint: must be a string"),
    ("[browser]\nendpoint = \"http://127.0.0.1:9222\"\nuser_data_dir = \"p\"",
     "user_data_dir (a profile webrefs launches) and endpoint"),
    ("[safety]\nallowed_domains = \"example.com\"",
     "c.toml [safety].allowed_domains: must be a list of strings or none"),
    ("[safety]\ngate = \"some\"", "c.toml [safety].gate: must be 'tools' or 'all'"),
    ("[safety]\nconsent_by = \"me\"", "c.toml [safety]: unknown key 'consent_by'"),
    ("[safety]\nsensitive_data = {a = \"b\"}", "c.toml [safety]: unknown key 'sensitive_data'"),
    ("[safety]\nrules = [{on = \"x\", pattern = \"a\", level = \"block\", reason = \"r\"}]",
     "c.toml [safety].rules[0]: Rule.on must be one of"),
    ("[safety]\nrules = [{on = \"url\", pattern = \"a\"}]",
     "c.toml [safety].rules[0]: needs level, reason"),
    ("[safety]\nrules = [{on = \"url\", pattern = \"(\", level = \"block\", reason = \"r\"}]",
     "c.toml [safety].rules[0]: Rule pattern '(' is not a valid regular expression"),
    ("[safety.secrets]\ntoken = \"NOT_SET_ANYWHERE\"",
     "c.toml [safety].secrets.token: the environment variable NOT_SET_ANYWHERE is not set"),
    ("[safety.secrets]\ntoken = 5", "c.toml [safety].secrets.token: must name an environment"),
    ("[server]\nhttp = \"x\"", "c.toml [server]: unknown key 'http'"),
    ("[server]\nidle_timeout_s = \"long\"", "c.toml [server].idle_timeout_s: must be a number"),
    ("[server]\nidle_timeout_s = 0", "c.toml [server]: idle_timeout_s must be a positive"),
    ("[server]\nelicit = \"no\"", "c.toml [server].elicit: must be true or false"),
    ("[brwoser]\nheadless = true", "c.toml: unknown section(s) brwoser"),
    ("tools = \"all\"", "c.toml: tools must be a section ([tools]), not a single value"),
])
def test_a_mistake_is_named_by_its_section_and_key(text: str, named: str) -> None:
    with pytest.raises(InvalidArgumentError) as err:
        config(text)
    assert named in str(err.value)


def test_read_toml_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[tools\n")
    with pytest.raises(InvalidArgumentError, match=r"bad\.toml: not valid TOML"):
        read_toml(str(bad))
    with pytest.raises(InvalidArgumentError, match="no such file"):
        read_toml(str(tmp_path / "missing.toml"))


def run_mcp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "webrefs.cli", "mcp", *args],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**os.environ, **(env or {})})


def test_the_command_names_a_bad_key_in_one_line(tmp_path: Path) -> None:
    file = tmp_path / "webrefs.toml"
    file.write_text("[tools]\nmax_tokens = \"lots\"\n")
    proc = run_mcp("--config", str(file))
    assert proc.returncode == 2
    assert "[tools].max_tokens: must be an integer" in proc.stderr
    assert str(file) in proc.stderr and "Traceback" not in proc.stderr


def test_a_secret_flag_names_a_variable_never_a_value(tmp_path: Path) -> None:
    proc = run_mcp("--secret", "pin=WEBREFS_NO_SUCH_VARIABLE")
    assert proc.returncode == 2
    assert "environment variable WEBREFS_NO_SUCH_VARIABLE is not set" in proc.stderr
    proc = run_mcp("--secret", "pin")
    assert proc.returncode == 2 and "is not NAME=VARIABLE" in proc.stderr


def test_http_refuses_a_persistent_profile(tmp_path: Path) -> None:
    proc = run_mcp("--profile", str(tmp_path / "p"), "--http", "127.0.0.1:1")
    assert proc.returncode == 2 and "persistent profile" in proc.stderr


def test_flags_go_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's own flags, read into the same options: a ``--secret`` beside the file's
    secrets, a comma list of tools, the budget over the file's."""
    from webrefs.cli import _mcp_config, _parser

    file = tmp_path / "c.toml"
    file.write_text('[tools]\nmax_tokens = 900\n[safety.secrets]\nb = "WEBREFS_B"\n')
    monkeypatch.setenv("WEBREFS_A", "value-a")
    monkeypatch.setenv("WEBREFS_B", "value-b")
    args = _parser().parse_args(["mcp", "--config", str(file), "--secret", "a=WEBREFS_A",
                                 "--tools", "web_snapshot,web_click", "--max-tokens", "700",
                                 "--exclude", "web_click", "--headed",
                                 "--allowed-domains", "example.com,*.example.com"])
    options = _mcp_config(args)
    assert options.safety.sensitive_data == {"a": "value-a", "b": "value-b"}
    assert options.tools.tools == ("web_snapshot", "web_click")
    assert options.tools.exclude == ("web_click",) and options.tools.max_tokens == 700
    assert options.browser.headless is False
    assert options.safety.allowed_domains == ("example.com", "*.example.com")
