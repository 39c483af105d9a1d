"""The local backend: the built-in engine, called in-process.

It iterates the engine's event stream directly -- the very events ``forge serve`` writes as SSE --
so local and remote answers share the client's whole path from events to snapshots to screen.
(httpx2's ``ASGITransport`` buffers whole bodies, so routing through the ASGI app in-process could
not deliver a live stream.)
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator

from forge_cli.backends.base import one_event_per_batch
from forge_cli.engine.config import EngineConfig
from forge_cli.engine.engine import Engine
from forge_cli.knowledge import KnowledgeStore
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request

__all__ = ["LocalBackend"]


class LocalBackend:
    """A :class:`~forge_cli.backends.base.Backend` answering from the local knowledge store.

    Give it a store path (``None``: the default data directory) or an open
    :class:`KnowledgeStore`; a store it opened itself is closed by :meth:`aclose`.
    Validation errors (unknown vector store, bad filter) are raised as ``NotFoundError`` /
    ``UsageError`` on the first iteration, before any event.
    """

    name = "local"
    runs_hosted_tools = True
    stores_responses = False

    def __init__(
        self,
        store: KnowledgeStore | str | os.PathLike[str] | None = None,
        config: EngineConfig | None = None,
        *,
        engine: Engine | None = None,
    ) -> None:
        self._owns_store = False
        if engine is not None:
            self.engine = engine
            return
        if not isinstance(store, KnowledgeStore):
            from forge_cli.engine.store import open_store

            store = open_store(store, config)
            self._owns_store = True
        self.engine = Engine(store, config)

    @property
    def store(self) -> KnowledgeStore:
        """The knowledge store the engine answers from."""
        return self.engine.store

    async def list_models(self) -> list[str]:
        """The models the engine answers as (the upstream model when one is configured)."""
        return self.engine.model_names()

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """The engine's events for ``request``, as they are produced."""
        async for event in self.engine.stream(request):
            yield event

    def stream_batches(self, request: Request) -> AsyncGenerator[list[StreamEvent], None]:
        """The engine's events one at a time (it has no network reads to batch)."""
        return one_event_per_batch(self.stream(request))

    async def aclose(self) -> None:
        """Close the store if this backend opened it."""
        if self._owns_store:
            self._owns_store = False
            self.engine.store.close()
