"""Items the server leaves without a status are settled; an item whose id changes stays one."""

from __future__ import annotations

from typing import Any

from forge_cli.protocol import StreamEvent
from forge_cli.stream.builder import SnapshotBuilder


def _fold(*events: dict[str, Any]) -> SnapshotBuilder:
    builder = SnapshotBuilder()
    for event in events:
        builder.feed(StreamEvent(event["type"], event))
    return builder


def _done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def _added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def _completed(*output: dict[str, Any]) -> dict[str, Any]:
    response = {"id": "r", "status": "completed", "output": list(output)}
    return {"type": "response.completed", "response": response}


MCP_TOOLS = {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "x", "tools": []}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}


def test_a_status_less_item_is_completed_when_done() -> None:
    builder = _fold(_added(0, REASONING), _done(0, REASONING))
    assert builder.snapshot.output[0].status == "completed"


def test_a_status_less_item_never_done_is_settled_when_the_response_ends() -> None:
    builder = _fold(_added(0, MCP_TOOLS), _completed(MCP_TOOLS))
    assert builder.snapshot.output[0].status == "completed"


def test_a_status_sent_by_the_server_is_kept() -> None:
    call = {
        "type": "function_call",
        "id": "fc",
        "call_id": "c",
        "name": "f",
        "status": "incomplete",
    }
    builder = _fold(_added(0, call), _completed(call))
    assert builder.snapshot.output[0].status == "incomplete"


def test_compaction_is_complete_when_added() -> None:
    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"}
    builder = _fold(_added(0, compaction))
    assert builder.snapshot.output[0].status == "completed"


def test_an_id_changed_in_response_completed_keeps_the_streamed_id() -> None:
    renamed = {**REASONING, "id": "rs_NEW", "summary": [{"type": "summary_text", "text": "t"}]}
    builder = _fold(_added(0, REASONING), _done(0, REASONING), _completed(renamed))
    [item] = builder.snapshot.output
    assert item.id == "rs_1"
    assert item.status == "completed"
    assert builder.diagnostics.counts["renamed"] == 1


def test_an_id_changed_in_output_item_done_keeps_the_streamed_id() -> None:
    builder = _fold(_added(0, REASONING), _done(0, {**REASONING, "id": "rs_other"}))
    [item] = builder.snapshot.output
    assert item.id == "rs_1"


def test_a_new_item_in_response_completed_is_not_merged_into_another_kind() -> None:
    message = {"type": "message", "id": "m", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "hi", "annotations": []}]}  # fmt: skip
    builder = _fold(_added(0, REASONING), _completed(message))
    assert [item.type for item in builder.snapshot.output] == ["message"]
