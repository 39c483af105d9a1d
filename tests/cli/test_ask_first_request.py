"""``forge ask`` writes a new conversation's request as plain data, before pydantic and the
protocol models are imported (ADR 0020): the body is the typed request's, key for key; the probe
shows what is loaded when the request's socket connects; the server gets one request and the
conversation is saved as before."""

from __future__ import annotations

import itertools
import json
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from forge_cli.backends.chat.request import to_chat_body
from forge_cli.cli.build import new_conversation, plain_first_request
from forge_cli.config import Settings
from forge_cli.conversations import build_request
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks
from helpers.connect_probe import loaded_at_connect  # type: ignore[import-not-found]
from helpers.loopback import (  # type: ignore[import-not-found]
    LoopbackServer,
    Reply,
    responses_answer,
)

Run = Callable[..., subprocess.CompletedProcess[str]]

NOT_BEFORE_THE_REQUEST = (
    "pydantic",
    "pydantic_core",
    "forge_cli.protocol._base",
    "forge_cli.protocol.request",
    "forge_cli.conversations.model",
    "forge_cli.agent.turn",
)

_VALUES: dict[str, tuple[Any, ...]] = {
    "api": ("responses", "knowledge-forge"),
    "model": (None, "gpt-5"),
    "instructions": (None, "", "Be brief.\nVery."),
    "effort": (None, "low"),
    "temperature": (None, 0.0, 1.5),
    "top_p": (None, 0.9),
    "max_output_tokens": (None, 256),
}


def _combinations() -> list[dict[str, Any]]:
    keys = list(_VALUES)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*_VALUES.values())]


def _wire(settings: Settings, text: str) -> dict[str, Any] | None:
    return plain_first_request(settings, text)


def _typed(settings: Settings, text: str) -> dict[str, Any]:
    conversation = new_conversation(settings)
    request = build_request(conversation, text, stores_responses=False, model="")
    return request.to_wire()


@pytest.mark.parametrize("text", ["hi", 'ünï "code"\n<doc>\x00</doc>'])
def test_the_plain_body_is_the_typed_requests_key_for_key(text: str) -> None:
    for values in _combinations():
        settings = Settings(**values)
        wire = _wire(settings, text)
        assert wire is not None, values
        expected = _typed(settings, text)
        assert list(wire.items()) == list(expected.items()), values
        assert json.dumps(wire) == json.dumps(expected), values


@pytest.mark.parametrize(
    "change",
    [
        {"tools": ("web-search",)},
        {"tools": ("file-search",), "vector_stores": ("vs_1",)},
        {"temperature": 1},  # an int: pydantic sends 1.0; the typed path decides
        {"max_output_tokens": True},
        {"model": 5},
    ],
)
def test_anything_else_is_left_to_the_typed_request(change: dict[str, Any]) -> None:
    settings = replace(Settings(api="responses"), **change)
    assert _wire(settings, "hi") is None


def _loaded_at_connect(tmp_path: Path, *extra: str) -> list[str]:
    args = ["ask", "--api", "responses", "--base-url", "http://127.0.0.1:9/v1", *extra, "hi"]
    return loaded_at_connect(tmp_path, NOT_BEFORE_THE_REQUEST, args)


@pytest.mark.parametrize("extra", [(), ("--plain",), ("--json",), ("--no-save",)])
def test_ask_sends_before_pydantic_and_the_models_load(tmp_path: Path, extra: tuple[str]) -> None:
    assert _loaded_at_connect(tmp_path, *extra) == []


@pytest.mark.parametrize(
    "extra",
    [
        ("-t", "web-search"),  # hosted tools: their definitions are models
        ("--max-time", "30"),  # an agent option: the agent loop sends the requests
    ],
)
def test_the_probe_sees_the_models_of_a_typed_first_request(
    tmp_path: Path, extra: tuple[str, ...]
) -> None:
    """Other requests are built as models first (so the test above can fail)."""
    loaded = _loaded_at_connect(tmp_path, *extra)
    assert {"pydantic", "forge_cli.protocol.request"} <= set(loaded)


def _reply(text: str) -> Reply:
    return Reply.sse(responses_answer(text, model="m"))


def test_ask_sends_one_request_and_saves_the_conversation(forge: Run, tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.add(_reply("forty-two"))
        proc = forge(
            "ask", "--api", "responses", "--base-url", server.base_url, "--plain", "-m", "m", "q?"
        )
        assert proc.returncode == 0, proc.stderr
        [sent] = server.requests
    assert sent.json() == {
        "model": "m",
        "input": [{"role": "user", "content": "q?"}],
        "stream": True,
    }
    assert proc.stdout.strip() == "forty-two"
    [saved] = (tmp_path / "data").rglob("c*.json")  # the forge fixture's data directory
    conversation = json.loads(saved.read_text(encoding="utf-8"))
    assert saved.stem == conversation["id"]
    assert conversation["turns"][0]["user"] == "q?"
    assert conversation["turns"][0]["status"] == "completed"
    assert conversation["settings"]["model"] == "m"


def test_a_refused_request_reads_as_before(forge: Run) -> None:
    with LoopbackServer() as server:
        server.add(Reply.json(401, {"error": {"message": "no such key"}}))
        proc = forge("ask", "--api", "responses", "--base-url", server.base_url, "--plain", "q?")
        assert len(server.requests) == 1
        url = server.base_url
    assert proc.returncode != 0
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith(f"forge: error: {url}/responses refused the credentials (HTTP 401)")
    )


# --- the same over Chat Completions (--api chat) ------------------------------------------------

_CHAT_VALUES: dict[str, tuple[Any, ...]] = {
    "model": ("m", "llama3.2:3b"),
    "instructions": (None, "", "Be brief.\nVery."),
    "effort": (None, "", "low"),
    "temperature": (None, 0.0, 1.5),
    "top_p": (None, 0.9),
    "max_output_tokens": (None, 256),
}


def _chat_combinations() -> list[dict[str, Any]]:
    keys = list(_CHAT_VALUES)
    values = itertools.product(*_CHAT_VALUES.values())
    return [{"api": "chat", **dict(zip(keys, v, strict=True))} for v in values]


def _typed_chat(settings: Settings, text: str) -> dict[str, Any]:
    conversation = new_conversation(settings)
    request = build_request(conversation, text, stores_responses=False, model=settings.model or "")
    body = to_chat_body(request)
    assert body.dropped_tools == []
    return body.kwargs


@pytest.mark.parametrize("text", ["hi", "", 'ünï "code"\n<doc>\x00</doc>'])
def test_the_plain_chat_body_is_the_typed_requests_key_for_key(text: str) -> None:
    for values in _chat_combinations():
        settings = Settings(**values)
        body = _wire(settings, text)
        assert body is not None, values
        expected = _typed_chat(settings, text)
        assert list(body.items()) == list(expected.items()), values
        assert json.dumps(body) == json.dumps(expected), values


@pytest.mark.parametrize(
    "change",
    [
        {"tools": ("web-search",)},  # hosted tools over chat: the agent loop runs them
        {"tools": ("file-search",), "vector_stores": ("vs_1",)},
        {"temperature": 1},
        {"max_output_tokens": True},
    ],
)
def test_anything_else_over_chat_is_left_to_the_typed_request(change: dict[str, Any]) -> None:
    settings = replace(Settings(api="chat", model="m"), **change)
    assert _wire(settings, "hi") is None


def _chat_loaded_at_connect(tmp_path: Path, *extra: str) -> list[str]:
    args = ["ask", "--api", "chat", "--base-url", "http://127.0.0.1:9/v1", "-m", "m", *extra, "hi"]
    return loaded_at_connect(tmp_path, NOT_BEFORE_THE_REQUEST, args)


@pytest.mark.parametrize("extra", [(), ("--plain",), ("--json",), ("--no-save",)])
def test_ask_over_chat_sends_before_pydantic_and_the_models_load(
    tmp_path: Path, extra: tuple[str]
) -> None:
    assert _chat_loaded_at_connect(tmp_path, *extra) == []


def test_the_probe_sees_the_models_of_a_chat_request_with_client_side_tools(
    tmp_path: Path,
) -> None:
    """A client-side function tool: the agent loop builds the request as a model first."""
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from forge_cli.tools import tool\n\n\n@tool\ndef ping() -> str:\n"
        '    """Answer pong."""\n    return "pong"\n'
    )
    loaded = _chat_loaded_at_connect(tmp_path, "--functions", str(tools), "--yes")
    assert {"pydantic", "forge_cli.protocol.request"} <= set(loaded)


def test_ask_over_chat_sends_one_request_and_saves_the_conversation(
    forge: Run, tmp_path: Path
) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("forty-two"))
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "--plain", "-m", "m",
            "--temperature", "0.5", "q?",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        [sent] = server.requests
    assert sent == {
        "model": "m",
        "messages": [{"role": "user", "content": "q?"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.5,
    }
    assert proc.stdout.strip() == "forty-two"
    [saved] = (tmp_path / "data").rglob("c*.json")
    conversation = json.loads(saved.read_text(encoding="utf-8"))
    assert conversation["turns"][0]["user"] == "q?"
    assert conversation["turns"][0]["status"] == "completed"
