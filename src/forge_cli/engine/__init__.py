"""The local Responses engine and ``forge serve``.

The engine answers a :class:`~forge_cli.protocol.Request` from the local knowledge store with the
standard Responses stream events: it runs the hosted tools (file_search, list_documents,
file_reader, page_reader, web_search) itself, then answers with an upstream chat model when one is
configured, else with the retrieval answerer. ``create_app``/``run_server`` serve it over HTTP.
The HTTP parts (starlette, uvicorn) are imported lazily, so ``import forge_cli.engine`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge_cli.engine.answerer import AnswerContext, Answerer
from forge_cli.engine.config import (
    RETRIEVAL_MODEL,
    EmbeddingsConfig,
    EngineConfig,
    UpstreamConfig,
)
from forge_cli.engine.engine import Engine, PreparedRequest
from forge_cli.engine.local import LocalBackend
from forge_cli.engine.retrieval import RetrievalAnswerer
from forge_cli.engine.store import open_store

if TYPE_CHECKING:
    from forge_cli.engine.app import create_app
    from forge_cli.engine.server import BackgroundServer, run_server

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

_LAZY = {
    "create_app": "forge_cli.engine.app",
    "BackgroundServer": "forge_cli.engine.server",
    "run_server": "forge_cli.engine.server",
}


def __getattr__(name: str) -> Any:
    """Import the HTTP server parts on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'forge_cli.engine' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
