"""A minimal TOML writer for Forge's own config file (no new dependency).

It writes exactly what :mod:`forge_cli.config.file` stores: top-level scalars and tables
(``[profiles.NAME]`` and sub-tables such as ``[profiles.NAME.engine]``) holding strings,
booleans, integers, floats and lists of strings. Anything else is a programming error and raises
``TypeError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps", "toml_value"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(value: str) -> str:
    # A JSON string is a valid TOML basic string for everything we write: JSON escapes
    # quotes, backslashes and control characters; ensure_ascii keeps it to \\uXXXX forms.
    return json.dumps(value, ensure_ascii=True)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def toml_value(value: Any) -> str:
    """One value as TOML (a string, boolean, number or list of them)."""
    return _value(value)


def _table_lines(prefix: str, table: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    scalars = {k: v for k, v in table.items() if not isinstance(v, Mapping)}
    tables = {k: v for k, v in table.items() if isinstance(v, Mapping)}
    if prefix and (scalars or not tables):
        lines.append(f"[{prefix}]")
    lines.extend(f"{_key(k)} = {_value(v)}" for k, v in scalars.items())
    for name, sub in tables.items():
        if lines:
            lines.append("")
        sub_prefix = f"{prefix}.{_key(name)}" if prefix else _key(name)
        lines.extend(_table_lines(sub_prefix, sub))
    return lines


def dumps(document: Mapping[str, Any]) -> str:
    """``document`` as TOML text (round-trips through :func:`tomllib.loads`)."""
    return "\n".join(_table_lines("", document)) + "\n"
