"""Opening the local knowledge store the way the engine's settings say (dense retrieval or not)."""

from __future__ import annotations

import os
from pathlib import Path

from forge_cli.engine.config import EngineConfig
from forge_cli.knowledge import Embedder, KnowledgeStore, default_store_path
from forge_cli.knowledge.embed.local import LocalEmbedder, local_model_available
from forge_cli.privacy import private_dir

__all__ = ["open_store"]


def open_store(
    path: str | os.PathLike[str] | None = None, config: EngineConfig | None = None
) -> KnowledgeStore:
    """The knowledge store at ``path`` (default: the data directory), with the configured
    embeddings endpoint when ``config.embeddings`` is set, else the embedded offline model
    (``knowledge.local_embedding``; loaded on first use only). Every opener uses this, so ingest
    (``forge vs``, ``/upload``) and search (chat, ``forge serve``) embed the same way."""
    embedder: Embedder | None = None
    if config is None or config.embeddings is None:
        if local_model_available():
            embedder = LocalEmbedder()
    else:
        from forge_cli.backends.embeddings import OpenAIEmbedder

        settings = config.embeddings
        embedder = OpenAIEmbedder(
            settings.base_url, settings.model, api_key_env=settings.api_key_env
        )
    if path is None:
        path = default_store_path()
        private_dir(path.parent)  # the data directory is Forge's own: 0700, tightened if needed
    return KnowledgeStore(Path(path), embedder=embedder)
