"""Shell completion of values: vector store names and ids, conversation ids.

These run on every Tab, so they read only what they need, directly: the local store's
``vector_stores`` table (read-only, no migrations) and the conversation folder's file names.
Failures complete nothing; completion never prints an error.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from click.shell_completion import CompletionItem

__all__ = ["complete_conversations", "complete_vector_stores"]


def complete_vector_stores(ctx: Any, param: Any, incomplete: str) -> list[CompletionItem]:
    """Store ids and names of the local knowledge store that start with ``incomplete``."""
    from forge_cli.knowledge.paths import default_store_path

    path = default_store_path()
    if not path.is_file():
        return []
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.5) as db:
            rows = db.execute("SELECT id, name FROM vector_stores").fetchall()
    except sqlite3.Error:
        return []
    items: dict[str, str] = {}
    for store_id, name in rows:
        if name:
            items.setdefault(str(name), str(store_id))
        items.setdefault(str(store_id), str(name or ""))
    return [
        CompletionItem(value, help=info)
        for value, info in items.items()
        if value.startswith(incomplete)
    ]


def complete_conversations(ctx: Any, param: Any, incomplete: str) -> list[CompletionItem]:
    """Saved conversation ids that start with ``incomplete``, newest first."""
    from forge_cli.config.paths import conversations_dir

    folder = conversations_dir()
    try:
        files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    return [CompletionItem(p.stem) for p in files if p.stem.startswith(incomplete)]
