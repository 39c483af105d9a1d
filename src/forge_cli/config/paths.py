"""Where Forge keeps its files: the config file, saved conversations and the prompt history.

Every path is resolved at call time (never at import), so an environment variable set by a test or
by the user's shell is always honoured (the older CLI bound its server URL at import, §6.1).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "CONFIG_ENV",
    "DATA_DIR_ENV",
    "config_path",
    "conversations_dir",
    "data_dir",
    "history_path",
    "is_own_config_dir",
]

CONFIG_ENV = "FORGE_CONFIG"
"""Overrides the config file path."""

DATA_DIR_ENV = "FORGE_DATA_DIR"
"""Overrides the data directory (conversations, history, the local knowledge store)."""


def config_path() -> Path:
    """``$FORGE_CONFIG``, else ``config.toml`` in the platform config directory."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    # Imported lazily: only commands that read configuration pay for it.
    from platformdirs import user_config_dir

    return Path(user_config_dir("forge", appauthor=False)) / "config.toml"


def data_dir() -> Path:
    """``$FORGE_DATA_DIR``, else the platform data directory."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("forge", appauthor=False))


def conversations_dir() -> Path:
    """Where saved conversations live."""
    return data_dir() / "conversations"


def history_path() -> Path:
    """The REPL's persistent input history."""
    return data_dir() / "history"


def is_own_config_dir(path: Path) -> bool:
    """Whether ``path`` is a directory Forge owns on the config side: the platform's ``forge``
    config directory or its ``templates`` folder (tightened to 0700 when found looser). A
    directory holding a ``$FORGE_CONFIG`` file may be shared (a home directory): never ours."""
    if os.environ.get(CONFIG_ENV):
        return False
    own = config_path().parent
    return path in (own, own / "templates")
