"""Which MCP servers a run uses: ``--mcp`` values and ``[mcp.servers.NAME]`` config tables.

A server is either a command started over stdio (``command``, ``args``, ``env``, ``cwd``) or a
streamable-HTTP URL (``url``, ``headers``). Secrets never sit in the config file: ``env`` and
``headers`` values may name environment variables as ``${NAME}``, filled in when the server
starts (an unset variable is a one-line configuration error naming it). ``trust = true`` runs the
server's tools without asking; ``approval`` sets the policy (``auto``, ``ask``, ``deny``)
explicitly. This module is pure data: no SDK import, no process, no network.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Literal
from urllib.parse import urlsplit

from forge_cli.errors import ConfigError, UsageError

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_START_TIMEOUT",
    "McpServerSpec",
    "expand_secrets",
    "parse_cli_spec",
    "resolve_specs",
    "spec_from_table",
]

DEFAULT_CALL_TIMEOUT = 60.0
"""Seconds one MCP tool call may take before it fails with a timeout result."""

DEFAULT_START_TIMEOUT = 30.0
"""Seconds a server may take to start and list its tools (``npx``/``uvx`` may download first)."""

Approval = Literal["auto", "ask", "deny"]

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,24}$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TABLE_KEYS = frozenset(
    {
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "trust",
        "approval",
        "timeout",
        "start_timeout",
        "enabled",
    }
)


@dataclass(frozen=True)
class McpServerSpec:
    """How to reach one MCP server, and how far its tools are trusted."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    approval: Approval = "ask"
    timeout: float = DEFAULT_CALL_TIMEOUT
    start_timeout: float = DEFAULT_START_TIMEOUT
    enabled: bool = True

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``http`` for a URL, ``stdio`` for a command."""
        return "http" if self.url else "stdio"

    def describe(self) -> str:
        """What the server is, for listings (never header or env values: they may be secret)."""
        if self.url:
            parts = urlsplit(self.url)
            host = parts.hostname or ""
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{host}{port}{parts.path}"
        return shlex.join([self.command or "", *self.args])


def expand_secrets(value: str, *, where: str) -> str:
    """``value`` with every ``${NAME}`` replaced from the environment."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if found is None:
            raise ConfigError(f"{where} needs the environment variable {name}, which is not set")
        return found

    return _VAR.sub(replace, value)


def _default_name(spec_text: str, url: bool) -> str:
    if url:
        parts = urlsplit(spec_text)
        host = parts.hostname or ""
        if host == "localhost" or host.replace(".", "").isdigit() or ":" in host:
            base = f"mcp_{parts.port}" if parts.port else "mcp"  # an address names nothing
        else:
            base = host.split(".")[0] or "mcp"
    else:
        words = shlex.split(spec_text)
        # `python server.py`, `npx -y @scope/server-files`, `uvx mcp-server-git`: the last word
        # that is not an option names the server best.
        plain = [w for w in words if not w.startswith("-")] or words or ["mcp"]
        base = PurePath(plain[-1]).stem if len(plain) > 1 else PurePath(plain[0]).stem
        base = base.split("/")[-1]
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", base).strip("_-") or "mcp"
    return cleaned[:24]


def parse_cli_spec(text: str) -> McpServerSpec:
    """A server from a ``--mcp`` value: ``URL``, ``COMMAND ARGS…`` or ``NAME=`` before either."""
    raw = text.strip()
    name = None
    head, sep, rest = raw.partition("=")
    if sep and _NAME.match(head) and " " not in head:
        name, raw = head, rest.strip()
    if not raw:
        raise UsageError(f"--mcp {text!r}: give a command or a URL")
    is_url = raw.startswith(("http://", "https://"))
    if is_url:
        return McpServerSpec(name=name or _default_name(raw, True), url=raw)
    try:
        words = shlex.split(raw)
    except ValueError as exc:
        raise UsageError(f"--mcp {text!r}: {exc}") from None
    return McpServerSpec(
        name=name or _default_name(raw, False), command=words[0], args=tuple(words[1:])
    )


def _strings(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f"{where} must be a table of strings")
    return dict(value)


def _seconds(table: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"{where}: {key} must be a positive number of seconds")
    return float(value)


def spec_from_table(name: str, table: Mapping[str, Any]) -> McpServerSpec:
    """A server from its ``[mcp.servers.NAME]`` table."""
    where = f"[mcp.servers.{name}]"
    if not _NAME.match(name):
        raise ConfigError(f"{where}: server names are 1-24 letters, digits, '_' or '-'")
    unknown = sorted(set(table) - _TABLE_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}")
    command, url = table.get("command"), table.get("url")
    if bool(command) == bool(url):
        raise ConfigError(f"{where}: set either command (stdio) or url (streamable HTTP)")
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"{where}: args must be a list of strings")
    approval: Approval
    given = table.get("approval")
    if given is None:
        approval = "auto" if table.get("trust") is True else "ask"
    elif given in ("auto", "ask", "deny"):
        approval = given
    else:
        raise ConfigError(f"{where}: approval must be auto, ask or deny")
    timeout = _seconds(table, "timeout", DEFAULT_CALL_TIMEOUT, where)
    start_timeout = _seconds(table, "start_timeout", DEFAULT_START_TIMEOUT, where)
    cwd = table.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{where}: cwd must be a string")
    for key in ("command", "url"):
        if table.get(key) is not None and not isinstance(table.get(key), str):
            raise ConfigError(f"{where}: {key} must be a string")
    return McpServerSpec(
        name=name,
        command=command,
        args=tuple(args),
        env=_strings(table.get("env", {}), f"{where} env"),
        cwd=cwd,
        url=url,
        headers=_strings(table.get("headers", {}), f"{where} headers"),
        approval=approval,
        timeout=timeout,
        start_timeout=start_timeout,
        enabled=table.get("enabled", True) is not False,
    )


def resolve_specs(
    cli_values: Iterable[str], config_tables: Mapping[str, Mapping[str, Any]]
) -> list[McpServerSpec]:
    """The servers of a run: enabled config servers, then ``--mcp`` ones (names made unique).

    A ``--mcp NAME`` that names a configured server turns that server on (even if disabled).
    """
    configured = {name: spec_from_table(name, table) for name, table in config_tables.items()}
    chosen: dict[str, McpServerSpec] = {n: s for n, s in configured.items() if s.enabled}
    for value in cli_values:
        if value.strip() in configured:
            spec = configured[value.strip()]
            chosen[spec.name] = McpServerSpec(**{**spec.__dict__, "enabled": True})
            continue
        spec = parse_cli_spec(value)
        name, n = spec.name, 2
        while name in chosen:
            name = f"{spec.name[:21]}_{n}"
            n += 1
        chosen[name] = McpServerSpec(**{**spec.__dict__, "name": name})
    return list(chosen.values())
