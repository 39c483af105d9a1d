"""``store``: follow-ups send ``previous_response_id`` only when responses are stored.

A real ``forge chat`` (stdin piped, two messages) talks to a loopback Responses server; the
second request shows whether the history was resent.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge_cli.cli.build import build_backend
from forge_cli.config import Settings
from helpers.loopback import LoopbackServer, Reply, sse  # type: ignore[import-not-found]

Run = Callable[..., subprocess.CompletedProcess[str]]


def _answer(response_id: str, text: str) -> Reply:
    item: dict[str, Any] = {
        "type": "message",
        "id": f"m_{response_id}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return Reply.sse(
        [
            sse({"type": "response.created", "response": {"id": response_id}}),
            sse({"type": "response.output_item.done", "output_index": 0, "item": item}),
            sse(
                {
                    "type": "response.completed",
                    "response": {"id": response_id, "status": "completed", "output": [item]},
                }
            ),
        ]
    )


def _chat_twice(forge: Run, *flags: str, env: dict[str, str] | None = None) -> list[Any]:
    with LoopbackServer() as server:
        server.add(_answer("resp_1", "One."), _answer("resp_2", "Two."))
        proc = forge(
            "chat",
            "--api",
            "responses",
            "--base-url",
            server.base_url,
            *flags,
            input="first question\nsecond question\n",
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        server.assert_consumed()
        return [request.json() for request in server.requests]


def _texts(body: dict[str, Any]) -> list[str]:
    return [item["content"] for item in body["input"]]


@pytest.mark.parametrize(
    ("flags", "env", "config"),
    [
        (("--store",), {}, ""),
        ((), {"FORGE_STORE": "true"}, ""),
        ((), {}, "[profiles.default]\nstore = true\n"),
    ],
    ids=["flag", "env", "profile"],
)
def test_with_store_the_follow_up_sends_only_the_new_input(
    forge: Run, tmp_path: Path, flags: tuple[str, ...], env: dict[str, str], config: str
) -> None:
    if config:
        (tmp_path / "config.toml").write_text(config)
    first, second = _chat_twice(forge, *flags, env=env)
    assert first["store"] is True
    assert second["store"] is True
    assert "previous_response_id" not in first
    assert second["previous_response_id"] == "resp_1"
    assert _texts(second) == ["second question"]


@pytest.mark.parametrize("flags", [(), ("--no-store",)], ids=["default", "no-store"])
def test_without_store_the_history_is_resent(forge: Run, flags: tuple[str, ...]) -> None:
    first, second = _chat_twice(forge, *flags, env={"FORGE_STORE": "1"} if flags else None)
    assert "previous_response_id" not in second
    assert _texts(second) == ["first question", "One.", "second question"]
    if flags:  # --no-store beats FORGE_STORE and is sent, so vLLM-style servers accept it
        assert first["store"] is False
        assert second["store"] is False
    else:
        assert "store" not in first
        assert "store" not in second


@pytest.mark.anyio
@pytest.mark.parametrize(("store", "expected"), [(True, True), (False, False), (None, False)])
async def test_backend_stores_responses_only_when_store_is_sent(
    store: bool | None, expected: bool
) -> None:
    backend = build_backend(
        Settings(api="responses", base_url="http://127.0.0.1:9/v1", store=store)
    )
    try:
        assert getattr(backend, "stores_responses") is expected  # noqa: B009
    finally:
        await backend.aclose()
