"""The in-process path streams live, and gives the same final snapshot as `forge serve`."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator

import anyio
import pytest
from engine_helpers import file_search_request

from forge_cli.backends.base import Backend
from forge_cli.backends.responses.backend import ResponsesBackend
from forge_cli.engine import AnswerContext, Engine, EngineConfig, RetrievalAnswerer
from forge_cli.engine.local import LocalBackend
from forge_cli.engine.server import BackgroundServer
from forge_cli.protocol import Response, StreamEvent
from forge_cli.stream import SnapshotBuilder

pytestmark = pytest.mark.anyio


class GatedAnswerer:
    """The retrieval answerer, held before its answer until the test opens the gate."""

    def __init__(self) -> None:
        self.gate = anyio.Event()
        self.inner = RetrievalAnswerer()

    @property
    def model(self) -> str:
        return self.inner.model

    async def answer(self, ctx: AnswerContext) -> AsyncIterator[StreamEvent]:
        await self.gate.wait()
        async for event in self.inner.answer(ctx):
            yield event


async def test_in_process_path_delivers_events_before_the_answer_is_done(corpus) -> None:
    answerer = GatedAnswerer()
    backend = LocalBackend(engine=Engine(corpus.store, EngineConfig(seed=False), answerer=answerer))
    assert isinstance(backend, Backend)
    stream = backend.stream(file_search_request(corpus.vector_store_id, "foghorn"))
    first = [await anext(stream), await anext(stream)]
    assert [e.type for e in first] == ["response.created", "response.in_progress"]
    assert not answerer.gate.is_set()  # the answer step has not even started
    answerer.gate.set()
    rest = [event async for event in stream]
    assert rest[-1].type == "response.completed"
    await backend.aclose()


def _normalised(snapshot: Response) -> str:
    """The snapshot as JSON with its per-run ids and times replaced."""
    text = snapshot.model_dump_json()
    text = text.replace(snapshot.id.removeprefix("resp_"), "ID")
    data = json.loads(text)
    data.pop("created_at", None)
    return json.dumps(data, sort_keys=True)


async def _fold(backend: Backend, request) -> Response:  # type: ignore[no-untyped-def]
    builder = SnapshotBuilder()
    async for event in backend.stream(request):
        builder.feed(event)
    assert builder.terminal == "completed"
    return builder.finish()


async def test_in_process_and_serve_give_identical_final_snapshots(corpus) -> None:
    engine = Engine(corpus.store, EngineConfig(seed=False))
    request = file_search_request(corpus.vector_store_id, "What causes spring tides?")
    local = await _fold(LocalBackend(engine=engine), request)
    with BackgroundServer(engine) as server:
        remote_backend = ResponsesBackend(base_url=server.base_url)
        try:
            remote = await _fold(remote_backend, request)
        finally:
            await remote_backend.aclose()
    assert local.output_text
    assert local.annotations()
    assert _normalised(local) == _normalised(remote)


_CONNECTS: list[object] = []
_COUNTING: list[bool] = []
_HOOKED: list[bool] = []


def _count_connects(event: str, args: tuple[object, ...]) -> None:
    if event == "socket.connect" and _COUNTING:
        _CONNECTS.append(args[1])


async def test_a_backend_reuses_its_connection_to_a_real_server(corpus) -> None:
    """Several requests to `forge serve` (uvicorn) in a row: each answer is whole, and the
    client carries them on one kept-alive connection."""
    if not _HOOKED:  # an audit hook cannot be removed: added once, it counts only when asked
        sys.addaudithook(_count_connects)
        _HOOKED.append(True)
    engine = Engine(corpus.store, EngineConfig(seed=False))
    request = file_search_request(corpus.vector_store_id, "What causes spring tides?")
    with BackgroundServer(engine) as server:
        backend = ResponsesBackend(base_url=server.base_url)
        _CONNECTS.clear()
        _COUNTING.append(True)
        try:
            answers = [_normalised(await _fold(backend, request)) for _ in range(3)]
        finally:
            _COUNTING.clear()
            await backend.aclose()
    assert answers[0] == answers[1] == answers[2]
    assert len(_CONNECTS) == 1, _CONNECTS
