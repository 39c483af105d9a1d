"""Every reply of `forge serve`, plain and streamed, validates against the official SDK's types.

The SDK builds its response objects without validation, so a reply it does not allow still
"works" until a client touches the wrong field (issue 30 item 11: a chat `file_citation`
annotation, a Responses usage without `cache_write_tokens`). Here each route's raw JSON is
validated with the newest openai package's pydantic models (`model_validate`, which checks
every field), including every event of both streams.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from openai.types import FileDeleted, FileObject, Model, VectorStore, VectorStoreDeleted
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.vector_store_search_response import VectorStoreSearchResponse
from openai.types.vector_stores import (
    VectorStoreFile,
    VectorStoreFileBatch,
    VectorStoreFileDeleted,
)
from pydantic import TypeAdapter

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore

pytestmark = pytest.mark.conformance

DOCS = {
    "saturn.md": "# Saturn\n\nSaturn's rings are made of ice and rock. The rings are very thin.",
    "mars.md": "# Mars\n\nMars has two small moons called Phobos and Deimos.",
}
QUESTION = "What are Saturn's rings made of?"
STREAM_EVENT: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx2.Client]:
    folder = tmp_path_factory.mktemp("serve-types")
    with KnowledgeStore(folder / "k.db") as store:
        engine = Engine(store, EngineConfig(seed=False))
        with (
            BackgroundServer(engine) as server,
            httpx2.Client(base_url=server.base_url, timeout=30) as client,
        ):
            yield client


@pytest.fixture(scope="module")
def store_id(http: httpx2.Client) -> str:
    created = _ok(http.post("/vector_stores", json={"name": "planets"}))
    VectorStore.model_validate(created)
    for name, text in DOCS.items():
        uploaded = _ok(
            http.post(
                "/files",
                files={"file": (name, text.encode(), "text/markdown")},
                data={"purpose": "assistants"},
            )
        )
        FileObject.model_validate(uploaded)
        attached = _ok(
            http.post(f"/vector_stores/{created['id']}/files", json={"file_id": uploaded["id"]})
        )
        VectorStoreFile.model_validate(attached)
    return str(created["id"])


def _ok(reply: httpx2.Response) -> Any:
    assert reply.status_code == 200, reply.text
    return reply.json()


def _sse(reply: httpx2.Response) -> list[dict[str, Any]]:
    assert reply.status_code == 200, reply.text
    datas = [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]
    return [json.loads(data) for data in datas if data != "[DONE]"]


def _file_search(store_id: str) -> list[dict[str, Any]]:
    return [{"type": "file_search", "vector_store_ids": [store_id]}]


def test_knowledge_routes(http: httpx2.Client, store_id: str) -> None:
    VectorStore.model_validate(_ok(http.get(f"/vector_stores/{store_id}")))
    for store in _ok(http.get("/vector_stores"))["data"]:
        VectorStore.model_validate(store)
    VectorStore.model_validate(_ok(http.post(f"/vector_stores/{store_id}", json={"name": "p"})))
    files = _ok(http.get(f"/vector_stores/{store_id}/files"))["data"]
    for member in files:
        VectorStoreFile.model_validate(member)
        VectorStoreFile.model_validate(
            _ok(http.get(f"/vector_stores/{store_id}/files/{member['id']}"))
        )
    for file in _ok(http.get("/files"))["data"]:
        FileObject.model_validate(file)
        FileObject.model_validate(_ok(http.get(f"/files/{file['id']}")))
    hits = _ok(http.post(f"/vector_stores/{store_id}/search", json={"query": "moons"}))["data"]
    assert hits
    for hit in hits:
        VectorStoreSearchResponse.model_validate(hit)
    for model in _ok(http.get("/models"))["data"]:
        Model.model_validate(model)


def test_batches_and_deletes(http: httpx2.Client) -> None:
    made = _ok(http.post("/vector_stores", json={"name": "scratch"}))
    uploaded = _ok(
        http.post("/files", files={"file": ("a.md", b"# A\n\nAlpha text.", "text/markdown")})
    )
    batch = _ok(
        http.post(f"/vector_stores/{made['id']}/file_batches", json={"file_ids": [uploaded["id"]]})
    )
    VectorStoreFileBatch.model_validate(batch)
    VectorStoreFileBatch.model_validate(
        _ok(http.get(f"/vector_stores/{made['id']}/file_batches/{batch['id']}"))
    )
    removed = _ok(http.delete(f"/vector_stores/{made['id']}/files/{uploaded['id']}"))
    VectorStoreFileDeleted.model_validate(removed)
    FileDeleted.model_validate(_ok(http.delete(f"/files/{uploaded['id']}")))
    VectorStoreDeleted.model_validate(_ok(http.delete(f"/vector_stores/{made['id']}")))


@pytest.mark.parametrize("include", [True, False])
def test_responses_plain_and_streamed(http: httpx2.Client, store_id: str, include: bool) -> None:
    body: dict[str, Any] = {"model": "forge", "input": QUESTION, "tools": _file_search(store_id)}
    if include:
        body["include"] = ["file_search_call.results"]
    plain = Response.model_validate(_ok(http.post("/responses", json=body)))
    search = plain.output[0]
    assert search.type == "file_search_call"
    # As OpenAI: the results only when the request asks for them.
    assert (search.results is not None) is include
    assert plain.usage is not None
    assert plain.usage.input_tokens_details.cache_write_tokens == 0
    Response.model_validate(_ok(http.get(f"/responses/{plain.id}")))
    events = _sse(http.post("/responses", json={**body, "stream": True}))
    assert events
    for event in events:
        STREAM_EVENT.validate_python(event)
    final = Response.model_validate(events[-1]["response"])
    assert (final.output[0].results is not None) is include  # type: ignore[union-attr]


def test_chat_plain_and_streamed(http: httpx2.Client, store_id: str) -> None:
    body = {"model": "forge", "messages": [{"role": "user", "content": QUESTION}]}
    plain = ChatCompletion.model_validate(_ok(http.post("/chat/completions", json=body)))
    assert "ice and rock" in (plain.choices[0].message.content or "")
    chunks = _sse(
        http.post(
            "/chat/completions",
            json={**body, "stream": True, "stream_options": {"include_usage": True}},
        )
    )
    assert chunks
    for chunk in chunks:
        ChatCompletionChunk.model_validate(chunk)
