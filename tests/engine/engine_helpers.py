"""Helpers for engine tests: collect events, check the stream's structure."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Any

from forge_cli.protocol import Request, StreamEvent


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    """Every event of a stream."""
    return [event async for event in events]


RESULTS = "file_search_call.results"


def file_search_request(vector_store_id: str, question: str, **tool: Any) -> Request:
    """A request with one file_search tool over ``vector_store_id``, asking for the call's
    results (returned only when asked for, as OpenAI does)."""
    spec = {"type": "file_search", "vector_store_ids": [vector_store_id], **tool}
    return Request.model_validate(
        {"model": "any", "input": question, "tools": [spec], "include": [RESULTS]}
    )


def check_structure(events: list[StreamEvent]) -> None:
    """What the strict openai ``responses.stream()`` accumulator demands, and more.

    First event ``response.created``; sequence numbers 0, 1, 2, ...; every item added once and
    finished once with the same id and type; deltas only for items that were added.
    """
    assert events[0].type == "response.created"
    assert [e.data["sequence_number"] for e in events] == list(range(len(events)))
    assert all(e.data["type"] == e.type for e in events)
    added: dict[int, dict[str, Any]] = {}
    done: set[int] = set()
    for event in events:
        if event.type == "response.output_item.added":
            index = event.data["output_index"]
            assert index not in added
            assert index == len(added)
            added[index] = event.data["item"]
        elif event.type == "response.output_item.done":
            index = event.data["output_index"]
            assert added[index]["id"] == event.data["item"]["id"]
            assert added[index]["type"] == event.data["item"]["type"]
            done.add(index)
        elif "output_index" in event.data:
            assert event.data["output_index"] in added
            assert event.data["output_index"] not in done
    assert done == set(added)
    assert events[-1].type in ("response.completed", "response.failed")


def read_reply(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body (by Content-Length) of a raw HTTP reply."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        piece = sock.recv(65536)
        if not piece:
            break
        rest += piece
    return status, headers, rest
