"""Saved instruction templates: ``--template NAME`` and ``forge templates``.

A template is a text file ``NAME.md`` in the ``templates`` folder next to the config file. Its
text is the system instructions. It may start with a block of settings between ``+++`` lines,
in TOML, using the keys of a profile (``model``, ``effort``, ``tools``, ``vector_stores``, ...):

    +++
    model = "qwen3:8b"
    tools = ["file-search"]
    +++
    You are a terse reviewer. Answer in at most three sentences.

Precedence: flags > template > environment > profile > defaults (a template is chosen for this
run, so it beats the ambient layers; an explicit flag still wins). Secrets cannot be set here.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forge_cli.config.paths import config_path
from forge_cli.config.settings import KEYS, SECRET_KEYS, parse_value
from forge_cli.errors import ConfigError, UsageError

__all__ = [
    "TEMPLATE_NAME",
    "Template",
    "delete_template",
    "list_templates",
    "load_template",
    "save_template",
    "template_path",
    "templates_dir",
]

TEMPLATE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_FENCE = "+++"


@dataclass(frozen=True)
class Template:
    """A template's instructions and the settings it sets (checked, by key)."""

    name: str
    instructions: str
    settings: dict[str, Any] = field(default_factory=dict)

    def layer(self) -> dict[str, Any]:
        """The settings layer it contributes (instructions included when there are any)."""
        layer = dict(self.settings)
        if self.instructions:
            layer["instructions"] = self.instructions
        return layer


def templates_dir() -> Path:
    """The ``templates`` folder next to the config file."""
    return config_path().parent / "templates"


def _check_name(name: str) -> str:
    if not TEMPLATE_NAME.match(name):
        raise UsageError(
            f"bad template name {name!r}: use letters, digits, '_', '-' or '.' (at most 64)"
        )
    return name


def template_path(name: str) -> Path:
    """Where template ``name`` lives (whether or not it exists)."""
    return templates_dir() / f"{_check_name(name)}.md"


def list_templates() -> list[str]:
    """The names of the saved templates, sorted."""
    folder = templates_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.md") if TEMPLATE_NAME.match(p.stem))


def load_template(name: str) -> Template:
    """Read and check template ``name``; a missing or bad one is a one-line error."""
    path = template_path(name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        known = ", ".join(list_templates()) or "none yet"
        raise UsageError(
            f"no template {name!r} (templates: {known})",
            hint=f"create it with `forge templates save {name} TEXT`",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read template {name!r} ({path}): {exc}") from None
    return parse_template(name, text, source=str(path))


def parse_template(name: str, text: str, *, source: str = "template") -> Template:
    """A template from its file text (settings block checked against the setting keys)."""
    settings: dict[str, Any] = {}
    body = text
    lines = text.splitlines(keepends=True)
    if lines and lines[0].strip() == _FENCE:
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == _FENCE), None)
        if end is None:
            raise ConfigError(f"{source}: the settings block opened with +++ is never closed")
        try:
            raw = tomllib.loads("".join(lines[1:end]))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: bad settings block: {exc}") from None
        settings = _check_settings(raw, source)
        body = "".join(lines[end + 1 :])
    return Template(name, body.strip(), settings)


def _check_settings(raw: dict[str, Any], source: str) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    for key, value in raw.items():
        if key in SECRET_KEYS:
            raise ConfigError(f"{source}: {key!r} cannot be set in a template (it is a secret)")
        if key not in KEYS:
            known = ", ".join(sorted(k for k in KEYS if k not in SECRET_KEYS))
            raise ConfigError(f"{source}: unknown setting {key!r} (known: {known})")
        checked[key] = parse_value(key, value, source=f"{source} ({key})")
    return checked


def save_template(name: str, text: str, *, overwrite: bool = False) -> Path:
    """Write template ``name`` (checked first); refuses to replace one unless ``overwrite``."""
    parse_template(name, text, source=f"template {name!r}")
    path = template_path(name)
    if path.exists() and not overwrite:
        raise UsageError(f"template {name!r} exists", hint="use --force to replace it")
    from forge_cli.config.file import atomic_write_private

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_private(path, text if text.endswith("\n") else text + "\n")
    return path


def delete_template(name: str) -> None:
    """Remove template ``name``."""
    path = template_path(name)
    try:
        path.unlink()
    except FileNotFoundError:
        raise UsageError(f"no template {name!r}") from None
