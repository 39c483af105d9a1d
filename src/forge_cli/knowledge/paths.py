"""Where the knowledge store lives by default."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_DIR_ENV", "default_store_path"]

DATA_DIR_ENV = "FORGE_DATA_DIR"
"""Environment variable that overrides the platform data directory."""


def default_store_path() -> Path:
    """``$FORGE_DATA_DIR/knowledge.db``, else ``knowledge.db`` in the platform data directory."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser() / "knowledge.db"
    # Imported lazily: platformdirs costs start-up time and only this function needs it.
    from platformdirs import user_data_dir

    return Path(user_data_dir("forge", appauthor=False)) / "knowledge.db"
