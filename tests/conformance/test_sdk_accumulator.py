"""Conformance with the official SDK: the same bytes, served from a loopback server, fold into the
same items and text with our builder as with ``openai``'s own ``responses.stream`` accumulator —
and ours additionally keeps annotations, reasoning text and refusals while streaming."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from forge_cli.protocol import Message, OutputText, Reasoning, Refusal, Response
from forge_cli.stream import SnapshotBuilder
from forge_cli.testing.scripted import load_sse_fixture

OPENAI_STYLE = [
    "openai_file_search.sse",
    "openai_web_search.sse",
    "openai_function_call.sse",
    "openai_reasoning.sse",
    "openai_refusal.sse",
]


class _FixtureServer(ThreadingHTTPServer):
    body: bytes = b""


class _Handler(BaseHTTPRequestHandler):
    server: _FixtureServer

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def fixture_server() -> Iterator[_FixtureServer]:
    server = _FixtureServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def _sdk_final(server: _FixtureServer, body: bytes) -> Any:
    import openai

    server.body = body
    port = server.server_address[1]
    client = openai.OpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    try:
        with client.responses.stream(model="gpt-test", input="hi") as stream:
            return stream.get_final_response()
    finally:
        client.close()


def _core(item: dict[str, Any]) -> dict[str, Any]:
    """The fields both sides must agree on."""
    keys = ("type", "id", "status", "call_id", "name", "arguments", "queries", "role")
    core = {k: item.get(k) for k in keys if item.get(k) is not None}
    if item.get("type") == "message":
        core["content"] = [
            {"type": p["type"], "text": p.get("text"), "refusal": p.get("refusal")}
            for p in item.get("content", [])
        ]
    if item.get("type") == "file_search_call":
        core["results"] = [
            (r.get("file_id"), r.get("filename"), r.get("score"), r.get("text"))
            for r in item.get("results") or []
        ]
    if item.get("type") == "reasoning":
        core["summary"] = [p.get("text") for p in item.get("summary", [])]
    return core


@pytest.mark.conformance
@pytest.mark.parametrize("name", OPENAI_STYLE)
def test_final_items_and_text_match_the_sdk(
    fixture_server: _FixtureServer, sse_dir: Path, name: str
) -> None:
    body = (sse_dir / name).read_bytes()
    sdk = _sdk_final(fixture_server, body)
    builder = SnapshotBuilder()
    for event in load_sse_fixture(sse_dir / name):
        builder.feed(event)
    ours = builder.finish()
    sdk_items = [_core(item.model_dump(mode="json")) for item in sdk.output]
    our_items = [_core(item.to_wire()) for item in ours.output]
    for sdk_item, our_item in zip(sdk_items, our_items, strict=False):
        if "status" not in sdk_item:
            # The SDK leaves items the server sent without a status (reasoning, mcp_list_tools)
            # at None; Forge settles them once done (issue 13: never "in progress" forever).
            assert our_item.pop("status", None) == "completed", our_item
    assert our_items == sdk_items
    assert ours.output_text == sdk.output_text
    assert ours.id == sdk.id


def _before_completed(path: Path) -> Response:
    builder = SnapshotBuilder()
    for event in load_sse_fixture(path):
        if event.type == "response.completed":
            break
        builder.feed(event)
    return builder.snapshot


@pytest.mark.conformance
def test_ours_keeps_annotations_reasoning_and_refusals_while_streaming(sse_dir: Path) -> None:
    """The SDK drops these until ``response.completed``; ours has them as they come."""
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    def sdk_snapshot(path: Path) -> Any:
        import openai._models as models
        from openai._types import omit

        state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
        for event in load_sse_fixture(path):
            if event.type == "response.completed":
                break
            state.handle_event(models.construct_type(type_=ResponseStreamEvent, value=event.data))
        # The accumulator keeps its snapshot in a private (name-mangled) attribute.
        return state._ResponseStreamState__current_snapshot

    fs = _before_completed(sse_dir / "openai_file_search.sse")
    assert len(fs.annotations()) == 2
    sdk_fs = sdk_snapshot(sse_dir / "openai_file_search.sse")
    assert sdk_fs.output[1].content[0].annotations == []

    reasoning = _before_completed(sse_dir / "openai_reasoning.sse").output[0]
    assert isinstance(reasoning, Reasoning)
    assert "metres" in reasoning.summary_text
    sdk_reasoning = sdk_snapshot(sse_dir / "openai_reasoning.sse").output[0]
    assert not any(part.text for part in sdk_reasoning.summary)

    refusal = _before_completed(sse_dir / "openai_refusal.sse").output[0]
    assert isinstance(refusal, Message)
    assert isinstance(refusal.content[0], Refusal)
    assert refusal.refusal == "I can't help with picking that lock."
    sdk_refusal = sdk_snapshot(sse_dir / "openai_refusal.sse").output[0]
    assert not any(getattr(part, "refusal", "") for part in sdk_refusal.content)
    assert not isinstance(refusal.content[0], OutputText)
