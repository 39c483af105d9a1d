"""The local Responses engine and ``forge serve``.

The engine answers a :class:`~forge_cli.protocol.Request` from the local knowledge store with the
standard Responses stream events: it runs the hosted tools (file_search, list_documents,
file_reader, page_reader, web_search) itself, then answers with an upstream chat model when one is
configured, else with the retrieval answerer. ``create_app``/``run_server`` serve it over HTTP.
Every export is imported lazily, so ``import forge_cli.engine`` (or ``forge_cli.engine.store`` on
the way to a local ``forge vs search``) loads neither the HTTP parts nor the engine itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.engine.answerer import AnswerContext, Answerer
    from forge_cli.engine.app import create_app
    from forge_cli.engine.config import (
        RETRIEVAL_MODEL,
        EmbeddingsConfig,
        EngineConfig,
        UpstreamConfig,
    )
    from forge_cli.engine.engine import Engine, PreparedRequest
    from forge_cli.engine.local import LocalBackend
    from forge_cli.engine.retrieval import RetrievalAnswerer
    from forge_cli.engine.server import BackgroundServer, run_server
    from forge_cli.engine.store import open_store

__all__ = [
    "RETRIEVAL_MODEL",
    "AnswerContext",
    "Answerer",
    "BackgroundServer",
    "EmbeddingsConfig",
    "Engine",
    "EngineConfig",
    "LocalBackend",
    "PreparedRequest",
    "RetrievalAnswerer",
    "UpstreamConfig",
    "create_app",
    "open_store",
    "run_server",
]

_WHERE = {
    "RETRIEVAL_MODEL": "config",
    "AnswerContext": "answerer",
    "Answerer": "answerer",
    "BackgroundServer": "server",
    "EmbeddingsConfig": "config",
    "Engine": "engine",
    "EngineConfig": "config",
    "LocalBackend": "local",
    "PreparedRequest": "engine",
    "RetrievalAnswerer": "retrieval",
    "UpstreamConfig": "config",
    "create_app": "app",
    "open_store": "store",
    "run_server": "server",
}
"""Public name → the submodule that defines it (imported on first use)."""

__getattr__ = lazy_exports(__name__, _WHERE)
