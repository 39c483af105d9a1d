"""``--mcp`` values and ``[mcp.servers.NAME]`` tables: names, transports, secrets, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from forge_cli.config import ConfigFile
from forge_cli.errors import ConfigError, UsageError
from forge_cli.mcp.config import expand_secrets, parse_cli_spec, resolve_specs, spec_from_table
from forge_cli.mcp.tools import tool_name


def test_cli_values_become_stdio_or_http_servers() -> None:
    spec = parse_cli_spec("npx -y @modelcontextprotocol/server-filesystem /tmp")
    assert spec.transport == "stdio"
    assert (spec.command, spec.args) == (
        "npx",
        ("-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
    )
    assert spec.name == "tmp"
    spec = parse_cli_spec("python /srv/weather_server.py")
    assert spec.name == "weather_server"
    spec = parse_cli_spec("https://user:secret@mcp.example.org:8443/mcp")
    assert (spec.transport, spec.name) == ("http", "mcp")
    assert "secret" not in spec.describe()
    assert parse_cli_spec("http://127.0.0.1:8000/mcp").name == "mcp_8000"
    assert parse_cli_spec("http://localhost/mcp").name == "mcp"
    spec = parse_cli_spec("docs=uvx mcp-docs --root '/a b'")
    assert (spec.name, spec.args) == ("docs", ("mcp-docs", "--root", "/a b"))
    with pytest.raises(UsageError):
        parse_cli_spec("  ")
    with pytest.raises(UsageError):
        parse_cli_spec("python 'unterminated")


def test_names_are_unique_and_configured_servers_can_be_named() -> None:
    tables = {"files": {"command": "fs-server", "enabled": False}, "web": {"url": "http://h/mcp"}}
    specs = resolve_specs(["python a/srv.py", "python b/srv.py", "files"], tables)
    assert [s.name for s in specs] == ["web", "srv", "srv_2", "files"]
    assert resolve_specs([], tables)[0].name == "web"  # disabled servers stay off


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({}, "either command"),
        ({"command": "a", "url": "http://b"}, "either command"),
        ({"command": "a", "args": "x"}, "args must be a list"),
        ({"command": "a", "approval": "maybe"}, "approval must be"),
        ({"command": "a", "timeout": 0}, "timeout must be"),
        ({"command": "a", "start_timeout": "soon"}, "start_timeout must be"),
        ({"command": "a", "colour": "red"}, "unknown key 'colour'"),
        ({"url": "http://b", "headers": {"X": 1}}, "headers must be a table of strings"),
    ],
)
def test_bad_tables_are_one_line_config_errors(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        spec_from_table("srv", table)


def test_timeouts() -> None:
    spec = spec_from_table("a", {"command": "x", "timeout": 5, "start_timeout": 90})
    assert (spec.timeout, spec.start_timeout) == (5.0, 90.0)
    assert spec_from_table("a", {"command": "x"}).start_timeout == 30.0


def test_trust_and_approval() -> None:
    assert spec_from_table("a", {"command": "x"}).approval == "ask"
    assert spec_from_table("a", {"command": "x", "trust": True}).approval == "auto"
    assert spec_from_table("a", {"command": "x", "approval": "deny"}).approval == "deny"


def test_secrets_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_TOKEN", "t0k")
    assert expand_secrets("Bearer ${MY_TOKEN}", where="w") == "Bearer t0k"
    monkeypatch.delenv("MY_TOKEN")
    with pytest.raises(ConfigError, match="MY_TOKEN"):
        expand_secrets("Bearer ${MY_TOKEN}", where="MCP server 'x'")


def test_config_file_keeps_mcp_tables_when_saved(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[mcp.servers.files]\ncommand = "fs"\nargs = ["-v"]\nenv = { A = "${B}" }\n'
        '[profiles.default]\nmodel = "m"\n'
    )
    config = ConfigFile.load(path)
    config.set("model", "n", profile="default")
    config.save()
    again = ConfigFile.load(path)
    assert again.mcp_servers == {"files": {"command": "fs", "args": ["-v"], "env": {"A": "${B}"}}}
    path.write_text("[mcp]\nservers = 3\n")
    with pytest.raises(ConfigError):
        ConfigFile.load(path)


def test_tool_names_fit_function_calling_rules() -> None:
    assert tool_name("files", "read_file") == "files__read_file"
    assert tool_name("my.server", "get weather") == "my_server__get_weather"
    long = tool_name("s" * 24, "t" * 80)
    assert len(long) == 64
    assert long != tool_name("s" * 24, "t" * 79 + "u")
