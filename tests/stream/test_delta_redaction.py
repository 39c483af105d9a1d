"""Issue 12: a key a server echoes in the answer, split across text deltas, never reaches a
snapshot (so neither the live terminal, --jsonl deltas, the document nor a saved file)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from forge_cli.protocol.events import StreamEvent
from forge_cli.redact import clear_secrets, register_secret
from forge_cli.stream.folding import fold

pytestmark = pytest.mark.anyio

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _key() -> Iterator[None]:
    register_secret(KEY)
    yield
    clear_secrets()


def _events(pieces: list[str]) -> list[StreamEvent]:
    where = {"item_id": "m1", "output_index": 0, "content_index": 0}
    message = {"type": "message", "id": "m1", "role": "assistant", "status": "in_progress",
               "content": []}  # fmt: skip
    text = "".join(pieces)
    done = {**message, "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
    events = [
        StreamEvent("response.created", {"response": {"id": "r", "status": "in_progress"}}),
        StreamEvent("response.output_item.added", {"output_index": 0, "item": message}),
        StreamEvent(
            "response.content_part.added",
            {**where, "part": {"type": "output_text", "text": "", "annotations": []}},
        ),
    ]
    events += [StreamEvent("response.output_text.delta", {**where, "delta": p}) for p in pieces]
    events += [
        StreamEvent("response.output_text.done", {**where, "text": text}),
        StreamEvent("response.output_item.done", {"output_index": 0, "item": done}),
        StreamEvent(
            "response.completed",
            {"response": {"id": "r", "status": "completed", "output": [done]}},
        ),
    ]
    return events


async def _stream(events: list[StreamEvent]) -> AsyncIterator[StreamEvent]:
    for event in events:
        yield event


async def test_a_key_split_across_deltas_never_reaches_a_snapshot() -> None:
    pieces = ["Your key is ", KEY[:5], KEY[5:13], KEY[13:], " — keep it safe."]
    texts = [snapshot.output_text async for snapshot in fold(_stream(_events(pieces)))]
    assert all(KEY[:5] + KEY[5:9] not in text for text in texts)  # not even half of it
    assert all(KEY not in text for text in texts)
    assert texts[-1] == "Your key is *** — keep it safe."


async def test_text_that_only_looks_like_a_key_start_is_not_lost() -> None:
    pieces = ["prefix sk-", "te", "rminal output"]
    texts = [snapshot.output_text async for snapshot in fold(_stream(_events(pieces)))]
    assert texts[-1] == "prefix sk-terminal output"
