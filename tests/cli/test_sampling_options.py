"""Issue 14 item 6: --temperature, --top-p and --max-output-tokens reach both APIs."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks
from helpers.loopback import LoopbackServer, Reply, sse  # type: ignore[import-not-found]

Forge = Callable[..., subprocess.CompletedProcess[str]]
SAMPLING = ["--temperature", "0.2", "--top-p", "0.9", "--max-output-tokens", "64"]


def _responses_answer() -> Reply:
    item: dict[str, Any] = {
        "type": "message", "id": "m1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}],
    }  # fmt: skip
    done = {"id": "r1", "status": "completed", "output": [item]}
    return Reply.sse(
        [
            sse({"type": "response.created", "response": {"id": "r1"}}),
            sse({"type": "response.output_item.done", "output_index": 0, "item": item}),
            sse({"type": "response.completed", "response": done}),
        ]
    )


def test_chat_completions_gets_the_sampling_options(forge: Forge) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("ok"))
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "-m", "m", *SAMPLING, "Hi"
        )
    assert proc.returncode == 0, proc.stderr
    body = server.requests[0]
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.9, 64)


def test_responses_gets_the_sampling_options(forge: Forge) -> None:
    with LoopbackServer() as server:
        server.add(_responses_answer())
        proc = forge(
            "ask", "--api", "responses", "--base-url", server.base_url, "-m", "m", *SAMPLING, "Hi"
        )
        body = server.requests[0].json()
    assert proc.returncode == 0, proc.stderr
    assert (body["temperature"], body["top_p"], body["max_output_tokens"]) == (0.2, 0.9, 64)


@pytest.mark.parametrize(
    "args", [["--temperature", "3"], ["--top-p", "0"], ["--max-output-tokens", "0"]]
)
def test_out_of_range_sampling_options_are_usage_errors(forge: Forge, args: list[str]) -> None:
    assert forge("ask", *args, "Hi").returncode == 2


def test_sampling_settings_from_the_environment_are_checked(forge: Forge) -> None:
    proc = forge("ask", "Hi", env={"FORGE_TEMPERATURE": "hot"})
    assert proc.returncode == 2
    assert "FORGE_TEMPERATURE" in proc.stderr
