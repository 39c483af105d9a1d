"""One retrieval behind every door: the local client, ``forge serve``'s vector-store search, the
engine's hosted file_search and the client tools give the same passages, and a model reads the
same tool result whether the engine or the agent loop ran the tool."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_helpers import collect, file_search_request

from forge_cli.backends.knowledge_http import HttpKnowledgeClient
from forge_cli.engine import Engine, EngineConfig, UpstreamConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import LocalKnowledgeClient
from forge_cli.protocol import Request
from forge_cli.tools.builtin.knowledge import FileSearch, KnowledgeToolkit, SearchArgs
from helpers.loopback import LoopbackServer, RecordedRequest, Reply, sse, sse_done

pytestmark = pytest.mark.anyio

QUESTIONS = [
    "How often does the keeper sound the foghorn?",
    "what feeds a sourdough starter",
    "why are there spring tides",
]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "up",
            "choices": [choice]}  # fmt: skip


def _reply(delta: dict[str, Any], finish: str) -> Reply:
    return Reply.sse([sse(_chunk(delta)), sse(_chunk({}, finish)), sse_done()])


@pytest.mark.parametrize("question", QUESTIONS)
async def test_every_door_returns_the_same_passages(corpus, question: str) -> None:  # type: ignore[no-untyped-def]
    vs = corpus.vector_store_id
    local = await LocalKnowledgeClient(corpus.store, seed=False).search(
        vs, question, max_num_results=3
    )
    assert local, "the corpus answers every question"
    expected = [(h.file_id, h.text, round(h.score, 6)) for h in local]

    engine = Engine(corpus.store, EngineConfig(seed=False))
    with BackgroundServer(engine, token="tok") as server:
        remote = HttpKnowledgeClient(server.base_url, api_key="tok")
        try:
            served = await remote.search(vs, question, max_num_results=3)
        finally:
            await remote.aclose()
    assert [(h.file_id, h.text, round(h.score, 6)) for h in served] == expected

    events = await collect(engine.stream(file_search_request(vs, question, max_num_results=3)))
    call = events[-1].data["response"]["output"][0]
    assert call["type"] == "file_search_call"
    hosted = [(r["file_id"], r["text"], round(r["score"], 6)) for r in call["results"]]
    assert hosted == expected

    kit = KnowledgeToolkit(corpus.store, [vs])
    output = await FileSearch(kit).run(SearchArgs(query=question, max_results=3))
    tool = [(p.file_id, p.text, round(p.score or 0.0, 6)) for p in output.citations]
    assert tool == expected


async def test_the_engine_shows_a_model_what_the_client_tool_shows(corpus) -> None:  # type: ignore[no-untyped-def]
    question = QUESTIONS[0]
    seen: list[RecordedRequest] = []

    def answer(request: RecordedRequest) -> Reply:
        seen.append(request)
        return _reply({"role": "assistant", "content": "Every thirty seconds [1]."}, "stop")

    arguments = json.dumps({"query": question})
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "file_search", "arguments": arguments}}  # fmt: skip
    with LoopbackServer() as server:
        server.add(_reply({"role": "assistant", "tool_calls": [call]}, "tool_calls"), answer)
        config = EngineConfig(
            seed=False,
            upstream=UpstreamConfig(base_url=server.base_url, model="up", api_key_env=None),
        )
        request = Request.model_validate(
            {
                "model": "m",
                "input": question,
                "tools": [
                    {
                        "type": "file_search",
                        "vector_store_ids": [corpus.vector_store_id],
                        "max_num_results": 3,
                    }
                ],
            }
        )
        await collect(Engine(corpus.store, config).stream(request))
        server.assert_consumed()
    [engine_reads] = [m["content"] for m in seen[0].json()["messages"] if m["role"] == "tool"]

    kit = KnowledgeToolkit(corpus.store, [corpus.vector_store_id])
    client_reads = (await FileSearch(kit).run(SearchArgs(query=question, max_results=3))).text
    assert engine_reads == client_reads
    assert engine_reads.startswith("[1] lighthouse.md (file_id ")


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("file_reader", {"file_id": "file_missing"}),
        ("page_reader", {"file_id": "file_missing", "start_page": 1}),
    ],
)
async def test_a_store_error_fails_the_hosted_call_and_the_model_reads_it(
    corpus,  # type: ignore[no-untyped-def]
    name: str,
    arguments: dict[str, Any],
) -> None:
    seen: list[RecordedRequest] = []

    def answer(request: RecordedRequest) -> Reply:
        seen.append(request)
        return _reply({"role": "assistant", "content": "No such file."}, "stop")

    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip
    with LoopbackServer() as server:
        server.add(_reply({"role": "assistant", "tool_calls": [call]}, "tool_calls"), answer)
        config = EngineConfig(
            seed=False,
            upstream=UpstreamConfig(base_url=server.base_url, model="up", api_key_env=None),
        )
        request = Request.model_validate(
            {"model": "m", "input": "read it", "tools": [{"type": name}]}
        )
        events = await collect(Engine(corpus.store, config).stream(request))
        server.assert_consumed()
    item = events[-1].data["response"]["output"][0]
    assert (item["type"], item["status"]) == (f"{name}_call", "failed")
    assert "file_missing" in item["error"]["message"]
    [reads] = [m["content"] for m in seen[0].json()["messages"] if m["role"] == "tool"]
    assert reads.startswith("Error: ")
    assert "file_missing" in reads
