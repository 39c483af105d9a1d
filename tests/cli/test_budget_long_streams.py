"""Issue 29 item 4: a time budget ends only a stream that runs over it.

A long, well-formed answer streamed at once in many network reads, with ``--max-time`` far
from reached, must come out whole and saved as completed, on both APIs and in every view: the
budget once waited for each of the stream's steps in a task of its own, and the HTTP stream,
read from a new task at every step, was cut short ("the stream ended early").
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

import pytest

from forge_cli.testing.fake_chat_server import chunk
from helpers.loopback import LoopbackServer, Reply, Send  # type: ignore[import-not-found]

Forge = Callable[..., subprocess.CompletedProcess[str]]

WORDS = [f" word{index}" for index in range(3000)]
TEXT = "".join(WORDS)


def _frame(data: dict[str, object], *, named: bool) -> bytes:
    event = f"event: {data['type']}\n" if named else ""
    return f"{event}data: {json.dumps(data)}\n\n".encode()


def _responses_body() -> bytes:
    where = {"item_id": "m1", "output_index": 0, "content_index": 0}
    message = {"type": "message", "id": "m1", "role": "assistant", "status": "in_progress"}
    done = {**message, "status": "completed", "content": [{"type": "output_text", "text": TEXT}]}
    response = {"id": "r1", "object": "response", "status": "in_progress", "output": []}
    opened = {**message, "content": []}
    finished = {**response, "status": "completed", "output": [done]}
    events: list[dict[str, object]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        {"type": "response.content_part.added", **where, "part": {"type": "output_text"}},
        *({"type": "response.output_text.delta", **where, "delta": word} for word in WORDS),
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": finished},
    ]
    return b"".join(_frame(event, named=True) for event in events)


def _chat_body() -> bytes:
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": word}) for word in WORDS]
    chunks.append(chunk({}, finish_reason="stop"))
    return b"".join(_frame(c, named=False) for c in chunks) + b"data: [DONE]\n\n"


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("view", ["--plain", "--json", "--rich"])
def test_a_long_answer_well_within_the_time_budget_is_whole(
    forge: Forge, api: str, view: str
) -> None:
    body = _responses_body() if api == "responses" else _chat_body()
    steps = [Send(body[start : start + 4096]) for start in range(0, len(body), 4096)]
    with LoopbackServer() as server:
        server.add(Reply.sse(steps))
        proc = forge(
            "ask", "--api", api, "--base-url", server.base_url, "-m", "m",
            "--max-time", "30", *([] if view == "--rich" else [view]), "Tell me everything.",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    if view == "--json":
        document = json.loads(proc.stdout)
        assert document["status"] == "completed"
        assert document["text"] == TEXT
    else:
        assert "word2999" in proc.stdout
