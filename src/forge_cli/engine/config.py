"""Settings of the local Responses engine: the upstream model, web search, defaults and limits.

Plain frozen dataclasses so the CLI can build them from its own settings; :meth:`EngineConfig.
from_env` reads the documented environment variables for ``forge serve`` and tests.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from forge_cli.redact import register_secret

__all__ = [
    "RETRIEVAL_MODEL",
    "SEARXNG_ENV",
    "UPSTREAM_API_KEY_ENV_ENV",
    "UPSTREAM_BASE_URL_ENV",
    "UPSTREAM_MODEL_ENV",
    "EmbeddingsConfig",
    "EngineConfig",
    "UpstreamConfig",
]

RETRIEVAL_MODEL = "forge-retrieval"
"""The model name of answers composed by the retrieval answerer (no language model involved)."""

SEARXNG_ENV = "FORGE_SEARXNG_URL"
UPSTREAM_BASE_URL_ENV = "FORGE_UPSTREAM_BASE_URL"
UPSTREAM_MODEL_ENV = "FORGE_UPSTREAM_MODEL"
UPSTREAM_API_KEY_ENV_ENV = "FORGE_UPSTREAM_API_KEY_ENV"
EMBEDDINGS_BASE_URL_ENV = "FORGE_EMBEDDINGS_BASE_URL"
EMBEDDINGS_MODEL_ENV = "FORGE_EMBEDDINGS_MODEL"
EMBEDDINGS_API_KEY_ENV_ENV = "FORGE_EMBEDDINGS_API_KEY_ENV"


@dataclass(frozen=True, slots=True)
class UpstreamConfig:
    """An OpenAI-compatible Chat Completions server the engine asks for answers.

    ``api_key_env`` names the environment variable holding the key (the key itself is never
    stored in settings); local servers that need no key may leave the variable unset.
    """

    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    timeout: float = 120.0

    def api_key(self) -> str | None:
        """The key from the environment, if any."""
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        register_secret(key)
        return key


@dataclass(frozen=True, slots=True)
class EmbeddingsConfig:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint for dense retrieval in the local store.

    When set, chunks are embedded at ingest and searches fuse dense (cosine) and BM25 rankings by
    reciprocal rank fusion (``docs/knowledge.md``).
    """

    base_url: str
    model: str
    api_key_env: str | None = None


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """How the engine answers.

    - ``upstream``: answer with this chat model; ``None`` selects the retrieval answerer.
    - ``searxng_url``: base URL of a SearXNG instance for ``web_search`` (``None``: web search
      calls fail with a message saying how to configure it).
    - ``default_vector_stores``: ids or names searched when a request enables no tools at all;
      empty means every vector store in the knowledge store.
    - ``seed``: create/refresh the bundled ``forge-docs`` store on first use.
    - ``embeddings``: dense retrieval for the store the engine opens (``None``: BM25 only).
    """

    upstream: UpstreamConfig | None = None
    searxng_url: str | None = None
    embeddings: EmbeddingsConfig | None = None
    default_vector_stores: tuple[str, ...] = ()
    seed: bool = True
    max_tool_rounds: int = 6
    default_max_results: int = 8
    stored_responses: int = 256
    stored_response_bytes: int = 64 * 1024 * 1024
    web_timeout: float = 15.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineConfig:
        """Settings from ``FORGE_UPSTREAM_*``, ``FORGE_EMBEDDINGS_*`` and ``FORGE_SEARXNG_URL``."""
        env = os.environ if environ is None else environ
        upstream = None
        base_url = env.get(UPSTREAM_BASE_URL_ENV)
        model = env.get(UPSTREAM_MODEL_ENV)
        if base_url and model:
            key_env = env.get(UPSTREAM_API_KEY_ENV_ENV, "OPENAI_API_KEY") or None
            upstream = UpstreamConfig(base_url=base_url, model=model, api_key_env=key_env)
        embeddings = None
        embed_url, embed_model = env.get(EMBEDDINGS_BASE_URL_ENV), env.get(EMBEDDINGS_MODEL_ENV)
        if embed_url and embed_model:
            embeddings = EmbeddingsConfig(
                embed_url, embed_model, env.get(EMBEDDINGS_API_KEY_ENV_ENV) or None
            )
        return cls(
            upstream=upstream, searxng_url=env.get(SEARXNG_ENV) or None, embeddings=embeddings
        )
