"""The Chat Completions backend against a loopback OpenAI-compatible server."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from forge_cli.backends.chat.backend import PLACEHOLDER_API_KEY, ChatCompletionsBackend
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    BackendHTTPError,
    ProtocolError,
)
from forge_cli.protocol import (
    FileSearchTool,
    FunctionCall,
    FunctionCallOutput,
    FunctionTool,
    InputMessage,
    Message,
    OutputText,
    Request,
    Response,
)
from forge_cli.stream import fold
from forge_cli.stream.builder import SnapshotBuilder
from forge_cli.testing.fake_chat_server import (
    ChatReply,
    FakeChatServer,
    chunk,
    text_chunks,
    tool_call_chunks,
    usage_chunk,
)

pytestmark = pytest.mark.anyio


async def _final(backend: ChatCompletionsBackend, request: Request) -> Response:
    last = Response()
    async for snapshot in fold(backend.stream(request)):
        last = snapshot
    return last


async def _run(
    replies: list[Any], request: Request | None = None
) -> tuple[Response, FakeChatServer]:
    with FakeChatServer(replies) as server:
        backend = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
        try:
            response = await _final(backend, request or Request(model="m", input="hi"))
        finally:
            await backend.aclose()
        server.assert_consumed()
    return response, server


async def test_text_answer_and_usage() -> None:
    response, _ = await _run([text_chunks("Hello there, world")])
    assert response.status == "completed"
    assert response.output_text == "Hello there, world"
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (10, 5)


CALLS = [("get_weather", {"city": "Paris", "days": 2}), ("get_time", {"zone": "CET"})]


@pytest.mark.parametrize(
    "style", ["openai", "repeated", "whole", "one_chunk", "no_index", "duplicate"]
)
@pytest.mark.parametrize("finish_reason", ["tool_calls", "stop"])
async def test_tool_call_chunking_variants(style: Any, finish_reason: str) -> None:
    chunks = tool_call_chunks(CALLS, style=style, finish_reason=finish_reason)
    response, _ = await _run([chunks])
    calls = response.function_calls()
    assert [(c.call_id, c.name, c.parsed_arguments()) for c in calls] == [
        ("call_0", "get_weather", {"city": "Paris", "days": 2}),
        ("call_1", "get_time", {"zone": "CET"}),
    ]
    assert all(c.status == "completed" for c in calls)


async def test_missing_index_and_missing_id_use_position_and_synthesised_ids() -> None:
    entries = [
        {"function": {"name": "a", "arguments": '{"x": 1}'}},
        {"function": {"name": "b", "arguments": {"y": 2}}},
    ]
    response, _ = await _run([[chunk({"tool_calls": entries}), chunk({}, finish_reason="stop")]])
    calls = response.function_calls()
    assert [(c.name, c.parsed_arguments()) for c in calls] == [("a", {"x": 1}), ("b", {"y": 2})]
    assert all(c.call_id.startswith("call_") for c in calls)
    assert calls[0].call_id != calls[1].call_id


async def test_whole_call_repeated_is_not_doubled() -> None:
    whole = {"index": 0, "id": "call_9", "function": {"name": "f", "arguments": '{"a": 1}'}}
    chunks = [
        chunk({"tool_calls": [whole]}),
        chunk({"tool_calls": [whole]}),
        chunk({}, finish_reason="tool_calls"),
    ]
    response, _ = await _run([chunks])
    [call] = response.function_calls()
    assert call.arguments == '{"a": 1}'


async def test_reasoning_content_becomes_a_reasoning_item() -> None:
    chunks = [chunk({"reasoning_content": "think "}), chunk({"reasoning_content": "more"})]
    chunks += text_chunks("answer")
    response, _ = await _run([chunks])
    assert [item.type for item in response.output] == ["reasoning", "message"]
    assert response.output[0].text == "think more"  # type: ignore[union-attr]


async def test_request_translation() -> None:
    request = Request(
        model="m",
        instructions="Be brief.",
        input=[
            InputMessage(role="user", content="weather?"),
            Message(content=[OutputText(text="Let me check.")]),
            FunctionCall(call_id="c1", name="get_weather", arguments='{"city": "Oslo"}'),
            FunctionCallOutput(call_id="c1", output="rain"),
        ],
        tools=[
            FunctionTool(name="get_weather", description="Weather.", parameters={"type": "object"}),
            FileSearchTool(vector_store_ids=["vs_1"]),
        ],
        tool_choice={"type": "function", "name": "get_weather"},
        temperature=0.2,
        max_output_tokens=50,
    )
    with FakeChatServer([text_chunks("ok")]) as server:
        backend = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
        await _final(backend, request)
        await backend.aclose()
        body = server.requests[0]
        auth = server.headers[0]["authorization"]
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "rain"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather.",
                "parameters": {"type": "object"},
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["temperature"], body["max_tokens"]) == (0.2, 50)
    assert backend.dropped_tools == ["file_search"]
    assert auth == f"Bearer {PLACEHOLDER_API_KEY}"


async def test_api_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test-123")
    with FakeChatServer([text_chunks("ok")]) as server:
        backend = ChatCompletionsBackend(base_url=server.base_url, api_key_env="MY_KEY")
        await _final(backend, Request(model="m", input="hi"))
        await backend.aclose()
        assert server.headers[0]["authorization"] == "Bearer sk-test-123"


async def test_auth_error_names_the_env_var() -> None:
    reply = ChatReply(status=401, body={"error": {"message": "bad key"}})
    with pytest.raises(AuthError) as info:
        await _run([reply])
    assert info.value.env_var == "OPENAI_API_KEY"
    assert "OPENAI_API_KEY" in info.value.one_line()


async def test_http_error_carries_status_and_server_message() -> None:
    reply = ChatReply(status=400, body={"error": {"message": "model not found"}})
    with pytest.raises(BackendHTTPError) as info:
        await _run([reply])
    assert info.value.status_code == 400
    assert info.value.server_message == "model not found"


async def test_connection_refused_is_a_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = ChatCompletionsBackend(base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(BackendConnectionError):
        await _final(backend, Request(model="m", input="hi"))
    await backend.aclose()


async def test_stream_cut_short_is_a_protocol_error() -> None:
    reply = ChatReply(chunks=[chunk({"content": "partial"})], done=False)
    with pytest.raises(ProtocolError):
        await _run([reply])


async def test_error_object_mid_stream_fails_the_response_and_settles_its_items() -> None:
    error = {"error": {"message": "model crashed", "code": "tool_use_failed"}}
    reply = ChatReply(chunks=[chunk({"reasoning_content": "hm"}), chunk({"content": "par"}), error])
    with FakeChatServer([reply]) as server:
        backend = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
        events = [event async for event in backend.stream(Request(model="m", input="x"))]
        await backend.aclose()
    assert events[-1].type == "response.failed"
    response = events[-1].data["response"]
    assert response["status"] == "failed"
    assert response["error"] == {"message": "model crashed", "code": "tool_use_failed"}
    assert [(i["type"], i["status"]) for i in response["output"]] == [
        ("reasoning", "completed"),
        ("message", "completed"),
    ]
    builder = SnapshotBuilder()
    for event in events:
        builder.feed(event)
    assert builder.snapshot.status == "failed"
    assert builder.snapshot.output_text == "par"
    assert builder.error is not None
    assert builder.error.message == "model crashed"


async def test_length_finish_is_incomplete() -> None:
    chunks = [chunk({"content": "cut"}), chunk({}, finish_reason="length"), usage_chunk()]
    response, _ = await _run([chunks])
    assert response.status == "incomplete"
    assert response.incomplete_details == {"reason": "max_output_tokens"}
