"""The official openai SDK (>= 3) as a client of `forge serve` on loopback.

Covers vector stores, file upload and attachment, search, and both streaming styles of the
Responses API -- including the strict ``responses.stream()`` accumulator of openai 3.52
(protocol.md §2.3) -- with file_search results and file_citation annotations in the final response.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore

pytestmark = pytest.mark.conformance

DOCS = {
    "saturn.md": "# Saturn\n\nSaturn's rings are made of ice and rock. The rings are very thin.",
    "mars.md": "# Mars\n\nMars has two small moons called Phobos and Deimos.",
}
QUESTION = "What are Saturn's rings made of?"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[BackgroundServer]:
    with KnowledgeStore(tmp_path / "k.db") as store:
        engine = Engine(store, EngineConfig(seed=False))
        with BackgroundServer(engine) as server:
            yield server


@pytest.fixture
def client(served: BackgroundServer) -> Iterator[OpenAI]:
    with OpenAI(base_url=served.base_url, api_key="unused", max_retries=0) as sdk:
        yield sdk


@pytest.fixture
def vector_store_id(client: OpenAI, tmp_path: Path) -> str:
    store = client.vector_stores.create(name="planets", metadata={"topic": "space"})
    for name, text in DOCS.items():
        path = tmp_path / name
        path.write_text(text)
        with path.open("rb") as handle:
            uploaded = client.files.create(file=handle, purpose="assistants")
        assert uploaded.filename == name
        assert uploaded.bytes == len(text.encode())
        attached = client.vector_stores.files.create_and_poll(
            vector_store_id=store.id, file_id=uploaded.id, attributes={"planet": name[:-3]}
        )
        assert attached.status == "completed"
    return store.id


def test_vector_store_lifecycle_and_search(client: OpenAI, vector_store_id: str) -> None:
    fetched = client.vector_stores.retrieve(vector_store_id)
    assert fetched.name == "planets"
    assert fetched.file_counts.completed == 2
    assert vector_store_id in [vs.id for vs in client.vector_stores.list()]
    renamed = client.vector_stores.update(vector_store_id, name="solar system")
    assert renamed.name == "solar system"
    files = list(client.vector_stores.files.list(vector_store_id=vector_store_id))
    assert {f.attributes["planet"] for f in files if f.attributes} == {"saturn", "mars"}
    page = client.vector_stores.search(vector_store_id, query="moons Phobos")
    assert page.data[0].filename == "mars.md"
    assert "Phobos" in page.data[0].content[0].text
    filtered = client.vector_stores.search(
        vector_store_id,
        query="rings moons",
        filters={"type": "eq", "key": "planet", "value": "saturn"},
    )
    assert {hit.filename for hit in filtered.data} == {"saturn.md"}
    mars = next(f for f in files if f.attributes and f.attributes["planet"] == "mars")
    assert client.files.content(mars.id).read() == DOCS["mars.md"].encode()
    client.vector_stores.files.delete(mars.id, vector_store_id=vector_store_id)
    assert client.vector_stores.retrieve(vector_store_id).file_counts.total == 1
    assert client.files.delete(mars.id).deleted
    assert client.vector_stores.delete(vector_store_id).deleted


def _tools(vector_store_id: str) -> list[dict[str, object]]:
    return [{"type": "file_search", "vector_store_ids": [vector_store_id]}]


def _check_final(response: openai.types.responses.Response) -> None:
    assert response.status == "completed"
    search = response.output[0]
    assert search.type == "file_search_call"
    assert search.results
    assert search.results[0].filename == "saturn.md"
    message = response.output[-1]
    assert message.type == "message"
    annotations = message.content[0].annotations
    assert annotations
    assert all(a.type == "file_citation" for a in annotations)
    assert annotations[0].filename == "saturn.md"
    assert "ice and rock" in response.output_text


def test_responses_create_stream(client: OpenAI, vector_store_id: str) -> None:
    stream = client.responses.create(
        model="forge",
        input=QUESTION,
        tools=_tools(vector_store_id),  # type: ignore[arg-type]
        include=["file_search_call.results"],
        stream=True,
    )
    events = list(stream)
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created"
    assert kinds[-1] == "response.completed"
    assert "response.output_text.delta" in kinds
    assert "response.output_text.annotation.added" in kinds
    numbers = [e.sequence_number for e in events]
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)
    final = events[-1]
    assert final.type == "response.completed"
    _check_final(final.response)


def test_responses_stream_helper_get_final_response(client: OpenAI, vector_store_id: str) -> None:
    with client.responses.stream(
        model="forge",
        input=QUESTION,
        tools=_tools(vector_store_id),  # type: ignore[arg-type]
        include=["file_search_call.results"],
    ) as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == final.output_text
    _check_final(final)
    assert client.responses.retrieve(final.id).output_text == final.output_text


def test_non_streaming_create(client: OpenAI, vector_store_id: str) -> None:
    response = client.responses.create(
        model="forge",
        input=QUESTION,
        tools=_tools(vector_store_id),  # type: ignore[arg-type]
        include=["file_search_call.results"],  # as OpenAI: results only when asked for
    )
    _check_final(response)


def test_unknown_vector_store_is_a_404_in_openai_shape(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model="forge", input="x", tools=_tools("vs_missing"), stream=True)  # type: ignore[arg-type]
    assert caught.value.status_code == 404
    body = caught.value.body
    assert isinstance(body, dict)
    assert "vs_missing" in body["message"]
    assert set(body) >= {"message", "type", "param", "code"}
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.retrieve("vs_missing")
