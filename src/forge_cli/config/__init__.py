"""Settings, profiles and paths: a TOML file, ``FORGE_*`` environment variables and flags.

Precedence is flags > environment > profile > defaults. Secrets (a stored API key) live only in
the 0600 config file and are never echoed, logged, exported or saved in conversations.
"""

from __future__ import annotations

from forge_cli.config.file import ConfigFile, atomic_write_private
from forge_cli.config.paths import (
    CONFIG_ENV,
    DATA_DIR_ENV,
    config_path,
    conversations_dir,
    data_dir,
    history_path,
)
from forge_cli.config.resolve import PROFILE_ENV, env_layer, resolve_settings, selected_profile
from forge_cli.config.settings import (
    API_KINDS,
    DRIVERS,
    EFFORTS,
    KEYS,
    SECRET_KEYS,
    TOOL_NAMES,
    ApiKind,
    KeySpec,
    Settings,
    parse_value,
)

__all__ = [
    "API_KINDS",
    "CONFIG_ENV",
    "DATA_DIR_ENV",
    "DRIVERS",
    "EFFORTS",
    "KEYS",
    "PROFILE_ENV",
    "SECRET_KEYS",
    "TOOL_NAMES",
    "ApiKind",
    "ConfigFile",
    "KeySpec",
    "Settings",
    "atomic_write_private",
    "config_path",
    "conversations_dir",
    "data_dir",
    "env_layer",
    "history_path",
    "parse_value",
    "resolve_settings",
    "selected_profile",
]
