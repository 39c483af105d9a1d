"""What ``forge ask`` sends to each kind of server, read from the bodies a loopback server got.

OpenAI-compatible Responses servers get only standard fields (the effort as ``reasoning.effort``);
Chat servers get ``reasoning_effort``; Knowledge Forge gets its own top-level ``effort`` and the
older Knowledge Forge CLI's defaults, and only when Forge knows it talks to Knowledge Forge
(``--api knowledge-forge``, or ``KNOWLEDGE_FORGE_URL`` configured the server).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from helpers.loopback import LoopbackServer, Reply, sse, sse_done  # type: ignore[import-not-found]

Run = Callable[..., subprocess.CompletedProcess[str]]


def _responses_reply() -> Reply:
    done = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "m1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
    }
    return Reply.sse(
        [
            sse(
                {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}
            ),
            sse({"type": "response.completed", "response": done}),
        ]
    )


def _chat_reply() -> Reply:
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
    }
    return Reply.sse([sse(chunk), sse_done()])


def _sent(forge: Run, reply: Reply, *args: str, env: dict[str, str] | None = None) -> Any:
    with LoopbackServer() as server:
        server.add(reply)
        full = [a.replace("{url}", server.base_url) for a in args]
        env = {
            k: v.replace("{root}", server.base_url.removesuffix("/v1"))
            for k, v in (env or {}).items()
        }
        proc = forge("ask", "--plain", *full, "hi", env=env)
        assert proc.returncode == 0, proc.stderr
        assert server.requests, "nothing was sent"
        return server.requests[0]


def test_responses_sends_the_effort_as_reasoning_effort_and_no_kf_fields(forge: Run) -> None:
    args = ("--api", "responses", "--base-url", "{url}", "-m", "gpt-5", "--effort", "high")
    body = _sent(forge, _responses_reply(), *args, "-t", "file-search", "--vs", "vs_1").json()
    assert body["reasoning"] == {"effort": "high"}
    assert "effort" not in body
    for field in ("store", "temperature", "max_output_tokens"):
        assert field not in body, field
    assert body["model"] == "gpt-5"
    assert body["tools"] == [{"type": "file_search", "vector_store_ids": ["vs_1"]}]


def test_responses_without_effort_sends_no_reasoning(forge: Run) -> None:
    body = _sent(forge, _responses_reply(), "--api", "responses", "--base-url", "{url}", "-m", "m")
    assert "reasoning" not in body.json()
    assert "effort" not in body.json()


def test_chat_sends_reasoning_effort(forge: Run) -> None:
    args = ("--api", "chat", "--base-url", "{url}", "-m", "o4-mini", "--effort", "low")
    body = _sent(forge, _chat_reply(), *args).json()
    assert body["reasoning_effort"] == "low"
    assert "effort" not in body
    assert "reasoning" not in body


def test_knowledge_forge_api_sends_kf_fields_and_the_older_cli_defaults(forge: Run) -> None:
    args = ("--api", "knowledge-forge", "--base-url", "{url}", "-t", "file-search", "--vs", "v1")
    request = _sent(forge, _responses_reply(), *args)
    assert request.path == "/v1/responses"
    body = request.json()
    assert body["model"] == "qwen-max-latest"
    assert body["effort"] == "low"
    assert body["store"] is True
    assert body["temperature"] == 0.7
    assert body["max_output_tokens"] == 1000
    assert body["tools"] == [
        {"type": "file_search", "vector_store_ids": ["v1"], "max_num_results": 10}
    ]
    assert "reasoning" not in body


def test_knowledge_forge_keeps_what_the_user_chose(forge: Run) -> None:
    args = ("--api", "knowledge-forge", "--base-url", "{url}", "-m", "qwen3", "--effort", "dev")
    body = _sent(forge, _responses_reply(), *args).json()
    assert (body["model"], body["effort"]) == ("qwen3", "dev")


def test_knowledge_forge_url_alone_talks_knowledge_forge(forge: Run) -> None:
    body = _sent(forge, _responses_reply(), env={"KNOWLEDGE_FORGE_URL": "{root}"}).json()
    assert body["model"] == "qwen-max-latest"
    assert body["effort"] == "low"
    assert body["store"] is True


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_openai_api_key_is_read_for_openai_compatible_servers(forge: Run, api: str) -> None:
    reply = _chat_reply() if api == "chat" else _responses_reply()
    args = ("--api", api, "--base-url", "{url}", "-m", "m")
    request = _sent(forge, reply, *args, env={"OPENAI_API_KEY": "sk-openai-test"})
    assert request.headers["authorization"] == "Bearer sk-openai-test"


@pytest.mark.parametrize("api", ["responses", "chat", "knowledge-forge"])
def test_forge_api_key_wins_when_set(forge: Run, api: str) -> None:
    reply = _chat_reply() if api == "chat" else _responses_reply()
    env = {"OPENAI_API_KEY": "sk-openai-test", "FORGE_API_KEY": "sk-forge-test"}
    request = _sent(forge, reply, "--api", api, "--base-url", "{url}", "-m", "m", env=env)
    assert request.headers["authorization"] == "Bearer sk-forge-test"


def test_knowledge_forge_does_not_send_the_openai_key(forge: Run) -> None:
    env = {"OPENAI_API_KEY": "sk-openai-test"}
    request = _sent(
        forge, _responses_reply(), "--api", "knowledge-forge", "--base-url", "{url}", env=env
    )
    assert "authorization" not in request.headers


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"OPENAI_API_KEY": "sk-openai-test"}, "$OPENAI_API_KEY"),
        ({"OPENAI_API_KEY": "sk-openai-test", "FORGE_API_KEY": "sk-forge-test"}, "$FORGE_API_KEY"),
    ],
)
def test_doctor_names_the_variable_it_used(forge: Run, env: dict[str, str], expected: str) -> None:
    with LoopbackServer() as server:
        server.add(Reply.json(200, {"data": [{"id": "m"}]}), Reply.json(200, {"data": []}))
        proc = forge("doctor", "--api", "responses", "--base-url", server.base_url, env=env)
    assert f"ok    auth     key read from {expected}" in proc.stdout, proc.stdout
    assert "sk-" not in proc.stdout


def test_doctor_without_a_key_names_both_variables(forge: Run) -> None:
    with LoopbackServer() as server:
        server.add(Reply.json(200, {"data": [{"id": "m"}]}), Reply.json(200, {"data": []}))
        proc = forge("doctor", "--api", "chat", "--base-url", server.base_url)
    assert "no key in $FORGE_API_KEY or $OPENAI_API_KEY" in proc.stdout, proc.stdout
