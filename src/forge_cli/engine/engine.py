"""The local Responses engine: a Request in, the standard Responses stream events out.

The same :meth:`Engine.stream` feeds the in-process :class:`~forge_cli.engine.local.
LocalBackend` and the SSE endpoint of ``forge serve``, so both paths produce identical events.
:meth:`Engine.prepare` validates a request (tools, vector stores, filters, previous response)
*before* any event is produced, so bad input is one clear error rather than a failed stream.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from anyio import to_thread

from forge_cli.engine.answerer import AnswerContext, Answerer
from forge_cli.engine.config import RETRIEVAL_MODEL, EngineConfig
from forge_cli.engine.conversation import last_user_text
from forge_cli.engine.emitter import ResponseEmitter
from forge_cli.engine.hosted import ToolContext
from forge_cli.engine.retrieval import RetrievalAnswerer
from forge_cli.engine.toolset import Toolset, resolve_toolset
from forge_cli.engine.websearch import SearxngClient
from forge_cli.errors import ForgeError, NotFoundError
from forge_cli.knowledge import KnowledgeStore, ensure_seed_store
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request

__all__ = ["Engine", "PreparedRequest"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A validated request, ready to run."""

    request: Request
    toolset: Toolset
    history: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class _Stored:
    response: dict[str, Any]
    transcript: tuple[dict[str, Any], ...]
    size: int
    """Estimated bytes held: the response and the whole transcript (history shared with other
    entries counts for each, so the sum over-estimates, never under-estimates)."""


def _stored_size(response: dict[str, Any], transcript: tuple[dict[str, Any], ...]) -> int:
    return len(json.dumps(response, ensure_ascii=False, default=str)) + len(
        json.dumps(transcript, ensure_ascii=False, default=str)
    )


class Engine:
    """Answers Responses requests from a :class:`KnowledgeStore`.

    ``answerer`` overrides the choice made from ``config`` (upstream model when configured,
    else retrieval); tests use it to gate or script the answer step.
    """

    def __init__(
        self,
        store: KnowledgeStore,
        config: EngineConfig | None = None,
        *,
        answerer: Answerer | None = None,
    ) -> None:
        self.store = store
        self.config = config or EngineConfig()
        self.answerer = answerer or self._default_answerer()
        self._web = (
            SearxngClient(self.config.searxng_url, timeout=self.config.web_timeout)
            if self.config.searxng_url
            else None
        )
        self._stored: OrderedDict[str, _Stored] = OrderedDict()
        self._stored_bytes = 0
        self._seed_lock = threading.Lock()
        self._seeded = not self.config.seed

    def _default_answerer(self) -> Answerer:
        if self.config.upstream is not None:
            from forge_cli.engine.upstream import UpstreamAnswerer

            return UpstreamAnswerer(self.config.upstream, max_rounds=self.config.max_tool_rounds)
        return RetrievalAnswerer()

    # -- preparation -------------------------------------------------------------------------

    def model_names(self) -> list[str]:
        """The models this engine answers as: its answerer's, then retrieval-only."""

        return list(dict.fromkeys([self.answerer.model, RETRIEVAL_MODEL]))

    def ensure_seeded(self) -> None:
        """Create or refresh the bundled ``forge-docs`` store once per engine (thread-safe)."""
        with self._seed_lock:
            if not self._seeded:
                ensure_seed_store(self.store)
                self._seeded = True

    def _prepare_sync(self, request: Request) -> PreparedRequest:
        self.ensure_seeded()
        history: tuple[dict[str, Any], ...] = ()
        if request.previous_response_id:
            history = self._lookup(request.previous_response_id).transcript
        toolset = resolve_toolset(
            self.store,
            request,
            default_stores=self.config.default_vector_stores,
            default_max=self.config.default_max_results,
        )
        return PreparedRequest(request=request, toolset=toolset, history=history)

    async def prepare(self, request: Request) -> PreparedRequest:
        """Validate ``request``; raises ``NotFoundError`` / ``UsageError`` on bad input."""
        return await to_thread.run_sync(self._prepare_sync, request)

    # -- running -----------------------------------------------------------------------------

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Prepare and run ``request``, yielding its events as they are produced."""
        prepared = await self.prepare(request)
        async for event in self.run(prepared):
            yield event

    async def run(self, prepared: PreparedRequest) -> AsyncIterator[StreamEvent]:
        """The events of a prepared request, from ``response.created`` to a terminal event."""
        request = prepared.request
        emitter = ResponseEmitter(f"resp_{uuid.uuid4().hex}", self.answerer.model, request)
        query = last_user_text(request)
        ctx = AnswerContext(
            request=request,
            query=query,
            tools=ToolContext(self.store, emitter, prepared.toolset, web=self._web),
            history=list(prepared.history),
            transcript=[{"role": "user", "content": query}],
        )
        if self.answerer.model == RETRIEVAL_MODEL:
            # No model reads the conversation: only the question is used (as the search query).
            ctx.usage["input_tokens"] = max(1, len(query) // 4)
        else:
            ctx.usage["input_tokens"] = _estimate_tokens(request, prepared.history)
        yield emitter.lifecycle("response.created", "in_progress")
        yield emitter.lifecycle("response.in_progress", "in_progress")
        try:
            async for event in self.answerer.answer(ctx):
                yield event
        except ForgeError as exc:
            yield self._failed(emitter, "server_error", exc.one_line())
            return
        except Exception as exc:  # a bug must end the stream visibly, not hang the client
            _log.exception("local engine failed")
            yield self._failed(emitter, "server_error", f"internal engine error: {exc}")
            return
        usage = _usage(ctx.usage)
        final = emitter.lifecycle("response.completed", "completed", usage=usage)
        self._remember(final.data["response"], [*prepared.history, *ctx.transcript])
        yield final

    def _failed(self, emitter: ResponseEmitter, code: str, message: str) -> StreamEvent:
        error = {"code": code, "message": message}
        event = emitter.lifecycle("response.failed", "failed", error=error)
        self._remember(event.data["response"], [])
        return event

    async def respond(self, request: Request) -> dict[str, Any]:
        """Run ``request`` to the end and return the final Response object (non-streaming)."""
        final: dict[str, Any] = {}
        async for event in self.stream(request):
            if event.type in ("response.completed", "response.failed"):
                final = event.data["response"]
        return final

    # -- stored responses --------------------------------------------------------------------

    def _remember(self, response: dict[str, Any], transcript: list[dict[str, Any]]) -> None:
        """Keep a finished response: the most recent ``stored_responses`` that fit together in
        ``stored_response_bytes``; one larger than that on its own is not kept at all."""
        kept = tuple(transcript)
        size = _stored_size(response, kept)
        if size > self.config.stored_response_bytes:
            return
        self._stored[str(response["id"])] = _Stored(response, kept, size)
        self._stored_bytes += size
        while (
            len(self._stored) > self.config.stored_responses
            or self._stored_bytes > self.config.stored_response_bytes
        ):
            _, dropped = self._stored.popitem(last=False)
            self._stored_bytes -= dropped.size

    def _lookup(self, response_id: str) -> _Stored:
        stored = self._stored.get(response_id)
        if stored is None:
            raise NotFoundError(f"no stored response with id {response_id!r}")
        return stored

    def get_response(self, response_id: str) -> dict[str, Any]:
        """A finished response by id (kept in memory, most recent ``stored_responses``)."""
        return self._lookup(response_id).response


def _estimate_tokens(request: Request, history: tuple[dict[str, Any], ...]) -> int:
    size = len(request.model_dump_json()) + sum(len(str(m.get("content") or "")) for m in history)
    return max(1, size // 4)


def _usage(counts: dict[str, int]) -> dict[str, Any]:
    inp, out = counts.get("input_tokens", 0), counts.get("output_tokens", 0)
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": inp + out,
    }
