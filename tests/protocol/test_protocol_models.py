"""The wire protocol: every union member has its guard, lenient parsing, pass-through fields."""

from __future__ import annotations

import time
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from forge_cli.protocol import (
    Annotation,
    FileReaderCall,
    FunctionCallOutput,
    OutputItem,
    Request,
    Tool,
    UnknownItem,
    parse_annotation,
    parse_item,
    parse_response,
    parse_tool,
)
from forge_cli.protocol.guards import ANNOTATION_GUARDS, ITEM_GUARDS, TOOL_GUARDS
from forge_cli.protocol.traceable import append_trace, trace_line, unit_progress


def _members(union: Any) -> list[type[BaseModel]]:
    """The model classes of a discriminated ``Annotated[A | B | ..., Discriminator]`` union."""
    inner = typing.get_args(union)[0]
    return [typing.get_args(member)[0] for member in typing.get_args(inner)]


@pytest.mark.parametrize(
    ("union", "guards"),
    [(OutputItem, ITEM_GUARDS), (Annotation, ANNOTATION_GUARDS), (Tool, TOOL_GUARDS)],
    ids=["items", "annotations", "tools"],
)
def test_every_union_member_has_exactly_one_guard(union: Any, guards: dict[str, Any]) -> None:
    members = _members(union)
    assert len(members) >= 5
    for cls in members:
        instance = cls.model_construct()
        matching = {name for name, guard in guards.items() if guard(instance)}
        # web_search and web_search_preview share one guard; every other member has its own.
        assert matching, f"{cls.__name__} has no guard"
        assert len({guards[name] for name in matching}) == 1, f"{cls.__name__}: {matching}"


def test_unknown_and_invalid_items_keep_their_raw_fields() -> None:
    unknown = parse_item({"type": "knowledge_search_call", "id": "k1", "status": "x", "n": 3})
    assert isinstance(unknown, UnknownItem)
    assert unknown.to_wire() == {"type": "knowledge_search_call", "id": "k1", "status": "x", "n": 3}
    broken = parse_item({"type": "file_search_call", "id": "f", "queries": "not a list"})
    assert isinstance(broken, UnknownItem)
    assert broken.to_wire()["queries"] == "not a list"
    assert isinstance(parse_item("garbage"), UnknownItem)
    assert parse_annotation(None) is None
    assert parse_annotation({"type": "new_kind", "x": 1}) is not None
    assert parse_tool({"type": "mcp", "server_url": "u"}).to_wire() == {
        "type": "mcp",
        "server_url": "u",
    }


def test_one_bad_item_does_not_spoil_a_response() -> None:
    response = parse_response(
        {
            "id": "r",
            "status": "completed",
            "output": [
                {"type": "message", "content": [{"type": "output_text", "text": "hi"}]},
                {"type": "function_call", "name": 7},
            ],
        }
    )
    assert response.output_text == "hi"
    assert isinstance(response.output[1], UnknownItem)


def test_request_passes_unknown_fields_through_and_omits_none() -> None:
    request = Request(
        model="m",
        input=[
            {"role": "user", "content": "hi"},
            FunctionCallOutput(call_id="c1", output="42"),
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        ],
        tools=[{"type": "file_search", "vector_store_ids": ["vs_1"]}],  # type: ignore[list-item]
        user="someone",  # a Knowledge Forge field we do not model
    )
    body = request.to_wire()
    assert body["user"] == "someone"
    assert "instructions" not in body
    assert body["input"][1] == {"type": "function_call_output", "call_id": "c1", "output": "42"}
    assert body["tools"] == [{"type": "file_search", "vector_store_ids": ["vs_1"]}]


def test_traceable_tool_call() -> None:
    assert FileReaderCall(progress=150).progress == 1.0  # over 100: clamped
    assert FileReaderCall(progress=40).progress == 0.4  # a percentage some servers send
    assert FileReaderCall(progress=-1).progress == 0.0
    assert unit_progress(0.25) == 0.25
    noon = time.mktime((2026, 1, 2, 12, 0, 5, 0, 0, -1))
    first = trace_line("opened", "load", now=noon)
    assert first == "[12:00:05] [load] opened"
    assert trace_line("page 1 of 3", now=noon) == "[12:00:05] page 1 of 3"
    trace = append_trace(append_trace(None, first), trace_line("page 1 of 3", now=noon))
    call = FileReaderCall(execution_trace=trace + "\n  \n")
    lines = call.trace_lines()
    assert lines == [first, "[12:00:05] page 1 of 3"]
    assert call.trace_lines(last=1) == lines[1:]
