"""The local engine's settings and store, built from a run's Settings without the engine itself.

Kept apart from :mod:`forge_cli.cli.build` so the knowledge commands on a local store
(``forge vs search``) import neither the protocol models, the backends nor the engine: opening the
store is all they need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli.config import Settings
from forge_cli.errors import ConfigError

if TYPE_CHECKING:
    from forge_cli.engine.config import EngineConfig
    from forge_cli.knowledge import KnowledgeStore

__all__ = ["engine_config", "open_local_store"]


def engine_config(settings: Settings) -> EngineConfig:
    """The local engine's ``EngineConfig`` from the ``engine.*`` settings.

    Their environment variables (``FORGE_SEARXNG_URL``, ``FORGE_UPSTREAM_*``) are the ones
    ``EngineConfig.from_env`` reads, so ``forge serve`` and ``forge chat`` agree.
    """
    from forge_cli.engine.config import EmbeddingsConfig, EngineConfig, UpstreamConfig
    from forge_cli.jsonsafe import set_max_depth

    set_max_depth(settings.limits_max_json_depth)  # every parse of untrusted JSON in this run

    base_url, model = settings.engine_upstream_base_url, settings.engine_upstream_model
    if bool(base_url) != bool(model):
        missing = "engine.upstream_model" if base_url else "engine.upstream_base_url"
        raise ConfigError(
            f"{missing} is not set; the local engine needs both an upstream URL and model",
            hint=f"forge config set {missing} VALUE (or unset the other)",
        )
    upstream = None
    if base_url and model:
        upstream = UpstreamConfig(
            base_url=base_url,
            model=model,
            api_key_env=settings.engine_upstream_api_key_env or "OPENAI_API_KEY",
        )
    embeddings = None
    embed_url, embed_model = settings.engine_embeddings_base_url, settings.engine_embeddings_model
    if bool(embed_url) != bool(embed_model):
        missing = "engine.embeddings_model" if embed_url else "engine.embeddings_base_url"
        raise ConfigError(
            f"{missing} is not set; embeddings need both a URL and a model",
            hint=f"forge config set {missing} VALUE (or unset the other)",
        )
    if embed_url and embed_model:
        embeddings = EmbeddingsConfig(
            embed_url, embed_model, settings.engine_embeddings_api_key_env
        )
    return EngineConfig(
        upstream=upstream,
        searxng_url=settings.engine_searxng_url,
        embeddings=embeddings,
        default_vector_stores=settings.engine_default_vector_stores,
    )


def open_local_store(settings: Settings) -> KnowledgeStore:
    """The local knowledge store, opened the way the local engine opens it (with the configured
    embeddings endpoint, if any): for ``forge vs``, ``/upload`` and the client tools alike."""
    from forge_cli.engine.store import open_store

    return open_store(None, engine_config(settings))
