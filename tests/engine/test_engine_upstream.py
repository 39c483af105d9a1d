"""The upstream answerer against a scripted OpenAI-compatible chat server on loopback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_helpers import check_structure, collect

from forge_cli.engine import Engine, EngineConfig, UpstreamConfig
from forge_cli.protocol import Request
from forge_cli.protocol.citing import CitationFilter, Segment
from forge_cli.stream import SnapshotBuilder
from helpers.loopback import LoopbackServer, RecordedRequest, Reply, sse, sse_done

pytestmark = pytest.mark.anyio


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "up",
        "choices": [choice],
    }


def _tool_call_reply(name: str, arguments: dict[str, Any]) -> Reply:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return Reply.sse(
        [
            sse(_chunk({"role": "assistant", "tool_calls": [call]})),
            sse(_chunk({}, "tool_calls")),
            sse_done(),
        ]
    )


def _text_reply(*pieces: str) -> Reply:
    steps = [sse(_chunk({"role": "assistant", "content": p})) for p in pieces]
    return Reply.sse([*steps, sse(_chunk({}, "stop")), sse_done()])


def test_citation_filter_handles_markers_split_across_deltas() -> None:
    flt = CitationFilter({1, 2})
    segments = flt.feed("Foghorns sound [") + flt.feed("1][2]. See [7] and a[") + flt.finish()
    assert segments == [
        Segment(text="Foghorns sound"),
        Segment(cites=(1,)),
        Segment(cites=(2,)),
        Segment(text=". See [7] and a"),
        Segment(text="["),
    ]


async def test_model_reads_a_file_server_side_and_its_citations_become_annotations(corpus) -> None:  # type: ignore[no-untyped-def]
    file_id = corpus.file_ids["lighthouse.md"]
    seen: list[RecordedRequest] = []

    def second(request: RecordedRequest) -> Reply:
        seen.append(request)
        return _text_reply(
            "The keeper sounds the foghorn every thirty seconds [", "1]. Unknown [9]."
        )

    with LoopbackServer() as server:
        server.add(_tool_call_reply("file_reader", {"file_id": file_id}), second)
        config = EngineConfig(
            seed=False,
            upstream=UpstreamConfig(base_url=server.base_url, model="up", api_key_env=None),
        )
        engine = Engine(corpus.store, config)
        request = Request.model_validate(
            {
                "model": "m",
                "input": "How often is the foghorn sounded?",
                "tools": [
                    {"type": "file_search", "vector_store_ids": [corpus.vector_store_id]},
                    {"type": "file_reader"},
                ],
            }
        )
        events = await collect(engine.stream(request))
        server.assert_consumed()
    check_structure(events)
    first_body = server.requests[0].json()
    assert {t["function"]["name"] for t in first_body["tools"]} == {"file_search", "file_reader"}
    tool_message = next(m for m in seen[0].json()["messages"] if m["role"] == "tool")
    assert tool_message["content"].startswith("[1] lighthouse.md")
    kinds = [e.type for e in events]
    assert "response.file_reader_call.progress" in kinds
    builder = SnapshotBuilder()
    for event in events:
        builder.feed(event)
    snapshot = builder.finish()
    reader = snapshot.output[0]
    assert reader.type == "file_reader_call"
    assert reader.status == "completed"
    assert reader.progress == 1.0
    assert "read text" in (reader.execution_trace or "")
    assert (
        snapshot.output_text == "The keeper sounds the foghorn every thirty seconds. Unknown [9]."
    )
    (citation,) = snapshot.annotations()
    assert citation.file_id == file_id
    assert citation.index == len("The keeper sounds the foghorn every thirty seconds")
    assert events[-1].data["response"]["model"] == "up"


async def test_client_function_calls_end_the_response_for_the_client(corpus) -> None:  # type: ignore[no-untyped-def]
    with LoopbackServer() as server:
        server.add(_tool_call_reply("get_weather", {"city": "Oslo"}))
        config = EngineConfig(
            seed=False,
            upstream=UpstreamConfig(base_url=server.base_url, model="up", api_key_env=None),
        )
        request = Request.model_validate(
            {
                "model": "m",
                "input": "weather?",
                "tools": [
                    {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
                ],
            }
        )
        events = await collect(Engine(corpus.store, config).stream(request))
        server.assert_consumed()
    check_structure(events)
    (call,) = events[-1].data["response"]["output"]
    assert call["type"] == "function_call"
    assert call["name"] == "get_weather"
    assert json.loads(call["arguments"]) == {"city": "Oslo"}


async def test_an_upstream_error_chunk_fails_the_response_with_its_message(corpus) -> None:  # type: ignore[no-untyped-def]
    error = {"error": {"message": "tool_use_failed: bad call", "code": "tool_use_failed"}}
    reply = Reply.sse([sse(_chunk({"role": "assistant", "content": "Par"})), sse(error)])
    with LoopbackServer() as server:
        server.add(reply)
        config = EngineConfig(
            seed=False,
            upstream=UpstreamConfig(base_url=server.base_url, model="up", api_key_env=None),
        )
        request = Request.model_validate({"model": "m", "input": "hi"})
        events = await collect(Engine(corpus.store, config).stream(request))
    last = events[-1]
    assert last.type == "response.failed"
    message = last.data["response"]["error"]["message"]
    assert message == "the upstream model failed: tool_use_failed: bad call"
