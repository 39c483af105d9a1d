"""The official openai SDK against ``forge serve``'s Chat Completions, file batches, file content
and structured output: every route driven the way real clients (``llm``, openai-agents, chat UIs)
drive them, on loopback, with the retrieval answerer and with an upstream model (a loopback fake
Chat Completions server standing in for Ollama / vLLM)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.config import UpstreamConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

pytestmark = pytest.mark.conformance

DOCS = {
    "saturn.md": "# Saturn\n\nSaturn's rings are made of ice and rock. The rings are very thin.",
    "mars.md": "# Mars\n\nMars has two small moons called Phobos and Deimos.",
}
QUESTION = "What are Saturn's rings made of?"
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def _serve(tmp_path: Path, config: EngineConfig) -> Iterator[OpenAI]:
    with KnowledgeStore(tmp_path / "k.db") as store:
        engine = Engine(store, config)
        with (
            BackgroundServer(engine) as server,
            OpenAI(base_url=server.base_url, api_key="unused", max_retries=0) as sdk,
        ):
            yield sdk


@pytest.fixture
def client(tmp_path: Path) -> Iterator[OpenAI]:
    yield from _serve(tmp_path, EngineConfig(seed=False))


@pytest.fixture
def upstream() -> Iterator[FakeChatServer]:
    with FakeChatServer() as server:
        yield server


@pytest.fixture
def upstream_client(tmp_path: Path, upstream: FakeChatServer) -> Iterator[OpenAI]:
    config = EngineConfig(
        seed=False, upstream=UpstreamConfig(upstream.base_url, "up-model", api_key_env=None)
    )
    yield from _serve(tmp_path, config)


def _upload(client: OpenAI, tmp_path: Path) -> list[str]:
    ids = []
    for name, text in DOCS.items():
        path = tmp_path / name
        path.write_text(text)
        with path.open("rb") as handle:
            ids.append(client.files.create(file=handle, purpose="assistants").id)
    return ids


@pytest.fixture
def planets(client: OpenAI, tmp_path: Path) -> str:
    store = client.vector_stores.create(name="planets")
    batch = client.vector_stores.file_batches.create_and_poll(
        vector_store_id=store.id, file_ids=_upload(client, tmp_path)
    )
    assert batch.status == "completed"
    return store.id


def test_chat_completion_plain_answers_from_the_documents(client: OpenAI, planets: str) -> None:
    done = client.chat.completions.create(
        model="forge-retrieval", messages=[{"role": "user", "content": QUESTION}]
    )
    answer = done.choices[0].message.content or ""
    assert "ice and rock" in answer
    assert done.choices[0].finish_reason == "stop"
    assert done.object == "chat.completion"
    assert done.usage is not None
    assert done.usage.total_tokens == done.usage.prompt_tokens + done.usage.completion_tokens


def test_chat_completion_streamed_matches_the_plain_answer(client: OpenAI, planets: str) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": QUESTION},
    ]
    plain = client.chat.completions.create(model="forge-retrieval", messages=messages)
    chunks = list(
        client.chat.completions.create(
            model="forge-retrieval",
            messages=messages,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None


def test_chat_stream_helper_accumulates(client: OpenAI, planets: str) -> None:
    with client.chat.completions.stream(
        model="forge-retrieval", messages=[{"role": "user", "content": QUESTION}]
    ) as stream:
        final = stream.get_final_completion()
    assert "ice and rock" in (final.choices[0].message.content or "")


def test_chat_accepts_tool_definitions(client: OpenAI, planets: str) -> None:
    done = client.chat.completions.create(
        model="forge-retrieval",
        messages=[{"role": "user", "content": QUESTION}],
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
    )
    assert "ice and rock" in (done.choices[0].message.content or "")


def test_chat_rejects_malformed_messages(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="messages"):
        client.chat.completions.create(model="m", messages=[])
    with pytest.raises(openai.BadRequestError, match="role"):
        client.chat.completions.create(model="m", messages=[{"content": "hi"}])  # type: ignore[list-item, typeddict-item]


def test_chat_with_upstream_returns_tool_calls_then_answers(
    upstream_client: OpenAI, upstream: FakeChatServer
) -> None:
    upstream.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    first = upstream_client.chat.completions.create(
        model="up-model",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    sent = upstream.requests[0]
    assert "get_weather" in json.dumps(sent["tools"])

    upstream.add(text_chunks("It is sunny in Paris."))
    second = upstream_client.chat.completions.create(
        model="up-model",
        messages=[
            {"role": "user", "content": "Weather in Paris?"},
            choice.message.model_dump(exclude_none=True),  # type: ignore[list-item]
            {"role": "tool", "tool_call_id": call.id, "content": "21 C, sunny"},
        ],
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
    )
    assert second.choices[0].message.content == "It is sunny in Paris."
    replayed = json.dumps(upstream.requests[1]["messages"])
    assert "21 C, sunny" in replayed
    upstream.assert_consumed()


SCHEMA = {
    "type": "object",
    "properties": {"planet": {"type": "string"}},
    "required": ["planet"],
    "additionalProperties": False,
}


def test_structured_output_goes_to_the_upstream_model(
    upstream_client: OpenAI, upstream: FakeChatServer
) -> None:
    upstream.add(text_chunks('{"planet": "Saturn"}'))
    response = upstream_client.responses.create(
        model="up-model",
        input="Which planet has rings?",
        text={"format": {"type": "json_schema", "name": "planet", "schema": SCHEMA}},
    )
    assert json.loads(response.output_text) == {"planet": "Saturn"}
    sent = upstream.requests[0]["response_format"]
    assert sent == {"type": "json_schema", "json_schema": {"name": "planet", "schema": SCHEMA}}

    upstream.add(text_chunks('{"planet": "Mars"}'))
    chat = upstream_client.chat.completions.create(
        model="up-model",
        messages=[{"role": "user", "content": "A red planet?"}],
        response_format={"type": "json_object"},
    )
    assert json.loads(chat.choices[0].message.content or "") == {"planet": "Mars"}
    assert upstream.requests[1]["response_format"] == {"type": "json_object"}


def test_structured_output_without_a_model_is_a_clear_400(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="upstream model"):
        client.responses.create(
            model="forge-retrieval",
            input=QUESTION,
            text={"format": {"type": "json_schema", "name": "planet", "schema": SCHEMA}},
        )
    with pytest.raises(openai.BadRequestError, match="upstream model"):
        client.chat.completions.create(
            model="forge-retrieval",
            messages=[{"role": "user", "content": QUESTION}],
            response_format={"type": "json_object"},
        )


def test_file_batches_create_retrieve_cancel_list(
    client: OpenAI, tmp_path: Path, planets: str
) -> None:
    store = client.vector_stores.create(name="again")
    ids = [f.id for f in client.files.list()]
    batch = client.vector_stores.file_batches.create(vector_store_id=store.id, file_ids=ids)
    assert batch.object == "vector_store.files_batch"
    assert batch.file_counts.completed == len(ids) == batch.file_counts.total
    fetched = client.vector_stores.file_batches.retrieve(batch.id, vector_store_id=store.id)
    assert fetched.id == batch.id
    assert fetched.status == "completed"
    cancelled = client.vector_stores.file_batches.cancel(batch.id, vector_store_id=store.id)
    assert cancelled.status == "completed"  # nothing was left to cancel
    files = client.vector_stores.file_batches.list_files(batch.id, vector_store_id=store.id)
    assert {f.id for f in files} == set(ids)
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.file_batches.retrieve("vsfb_nope", vector_store_id=store.id)
    with pytest.raises(openai.NotFoundError):
        client.vector_stores.file_batches.create(vector_store_id=store.id, file_ids=["nope"])


def test_file_batches_upload_and_poll(client: OpenAI, tmp_path: Path) -> None:
    store = client.vector_stores.create(name="uploaded")
    paths = []
    for name, text in DOCS.items():
        path = tmp_path / f"up-{name}"
        path.write_text(text)
        paths.append(path)
    handles = [p.open("rb") for p in paths]
    try:
        batch = client.vector_stores.file_batches.upload_and_poll(
            vector_store_id=store.id, files=handles
        )
    finally:
        for handle in handles:
            handle.close()
    assert batch.file_counts.completed == 2
    hits = client.vector_stores.search(store.id, query="Phobos")
    assert hits.data[0].filename == "up-mars.md"


def test_vector_store_file_content(client: OpenAI, planets: str) -> None:
    files = list(client.vector_stores.files.list(vector_store_id=planets))
    contents = {
        f.id: "".join(
            part.text or ""
            for part in client.vector_stores.files.content(f.id, vector_store_id=planets)
        )
        for f in files
    }
    assert sorted(contents.values()) == sorted(DOCS.values())
