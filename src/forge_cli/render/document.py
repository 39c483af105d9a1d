"""The ``forge.answer/v1`` JSON document: the machine-readable form of one answer.

Text is kept exactly as the server sent it (``text``); ``text_cited`` has markers normalised to
the ``[n]`` of ``citations``. Items are typed: every tool call has ``arguments``, ``result`` and
``status``; a function call carries its output. The JSON Schema is
``forge_cli/render/schema/forge.answer.v1.json`` (see ``docs/json-output.md``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from forge_cli.errors import ForgeError, StreamError
from forge_cli.protocol.citations import Citation, CitationNumbering, cite_message
from forge_cli.protocol.guards import (
    is_code_interpreter_call,
    is_computer_call,
    is_file_reader_call,
    is_file_search_call,
    is_function_call,
    is_function_call_output,
    is_list_documents_call,
    is_mcp_approval_request,
    is_mcp_call,
    is_mcp_list_tools,
    is_message,
    is_page_reader_call,
    is_reasoning,
    is_web_search_call,
)
from forge_cli.protocol.items import FunctionCallOutput
from forge_cli.protocol.response import Response
from forge_cli.render.context import item_key
from forge_cli.render.summary import error_text
from forge_cli.render.timing import ItemClock

__all__ = ["SCHEMA_ID", "answer_document", "error_code", "item_document", "load_schema"]

SCHEMA_ID = "forge.answer/v1"

Fields = dict[str, Any]
_Extract = Callable[[Any, dict[str, FunctionCallOutput]], Fields]


def _message(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    return {"role": item.role, "text": item.text, "refusal": item.refusal}


def _reasoning(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    return {"text": item.text}


def _file_search(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    results = None
    if item.results is not None:
        results = [r.to_wire() for r in item.results]
    return {"arguments": {"queries": item.queries}, "result": {"results": results}}


def _web_search(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    action = item.action.to_wire() if item.action is not None else None
    sources = [s.to_wire() for s in item.all_sources()]
    return {"arguments": {"queries": item.all_queries(), "action": action},
            "result": {"sources": sources}}  # fmt: skip


def _list_documents(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    return {"arguments": {"queries": item.queries},
            "result": {"count": item.count, "documents": item.documents}}  # fmt: skip


def _traceable(item: Any) -> Fields:
    return {"progress": item.progress, "execution_trace": item.execution_trace}


def _file_reader(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    args = {"doc_ids": item.doc_ids, "query": item.query, "file_name": item.file_name}
    return {"arguments": args, "result": {"content": item.content, **_traceable(item)}}


def _page_reader(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    args = {"document_id": item.document_id, "start_page": item.start_page,
            "end_page": item.end_page, "file_name": item.file_name}  # fmt: skip
    return {"arguments": args, "result": {"content": item.content, **_traceable(item)}}


def _code(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    outputs = item.all_outputs() if item.outputs or item.results else None  # KF: ``results``
    return {"arguments": {"code": item.code, "container_id": item.container_id},
            "result": {"logs": item.logs(), "outputs": outputs}}  # fmt: skip


def _function(item: Any, outputs: dict[str, FunctionCallOutput]) -> Fields:
    parsed = item.parsed_arguments()
    output = outputs.get(item.call_id)
    result = None
    if output is not None:
        result = {"output": output.output_text, "is_error": bool(output.is_error)}
    return {"name": item.name, "call_id": item.call_id,
            "arguments": parsed if parsed is not None else {"_raw": item.arguments},
            "result": result}  # fmt: skip


def _function_output(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    return {"call_id": item.call_id, "name": item.name,
            "result": {"output": item.output_text, "is_error": bool(item.is_error)}}  # fmt: skip


def _computer(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    return {"arguments": {"action": item.action, "actions": item.actions}, "result": None}


def _mcp_call(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    parsed = item.parsed_arguments()
    result = None
    if item.output is not None or item.error_text is not None:
        result = {"output": item.output, "error": item.error_text}
    return {"server": item.server_label, "name": item.name, "call_id": item.call_id,
            "arguments": parsed if parsed is not None else {"_raw": item.arguments},
            "result": result, "duration_ms": item.duration_ms,
            **_traceable(item)}  # fmt: skip


def _mcp_list_tools(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    tools = [{"name": t.name, "description": t.description} for t in item.tools]
    return {"server": item.server_label, "result": {"tools": tools}}


def _mcp_approval(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    try:
        parsed = json.loads(item.arguments or "{}")
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        parsed = None
    return {"server": item.server_label, "name": item.name,
            "arguments": parsed if parsed is not None else {"_raw": item.arguments},
            "result": None}  # fmt: skip


def _unknown(item: Any, _outputs: dict[str, FunctionCallOutput]) -> Fields:
    return {"raw": item.to_wire() if hasattr(item, "to_wire") else None}


_EXTRACTORS: list[tuple[Callable[[object], bool], _Extract]] = [
    (is_message, _message),
    (is_reasoning, _reasoning),
    (is_file_search_call, _file_search),
    (is_web_search_call, _web_search),
    (is_list_documents_call, _list_documents),
    (is_file_reader_call, _file_reader),
    (is_page_reader_call, _page_reader),
    (is_code_interpreter_call, _code),
    (is_function_call, _function),
    (is_function_call_output, _function_output),
    (is_computer_call, _computer),
    (is_mcp_call, _mcp_call),
    (is_mcp_list_tools, _mcp_list_tools),
    (is_mcp_approval_request, _mcp_approval),
]


def item_document(
    item: Any, index: int, outputs: dict[str, FunctionCallOutput], clock: ItemClock | None
) -> Fields:
    """One entry of ``items``: type, id, status, elapsed time and kind-specific fields."""
    extract = next((fn for guard, fn in _EXTRACTORS if guard(item)), _unknown)
    key = item_key(item, index)
    return {
        "type": str(getattr(item, "type", "unknown")),
        "id": getattr(item, "id", None),
        "status": getattr(item, "status", None),
        "elapsed_s": round(clock.elapsed(key), 3) if clock is not None else None,
        **extract(item, outputs),
    }


def _items(response: Response, clock: ItemClock | None) -> list[Fields]:
    outputs = {i.call_id: i for i in response.output if is_function_call_output(i) and i.call_id}
    paired = {i.call_id for i in response.output if is_function_call(i) and i.call_id}
    docs = []
    for index, item in enumerate(response.output):
        if is_function_call_output(item) and item.call_id in paired:
            continue  # shown inside its function_call
        docs.append(item_document(item, index, outputs, clock))
    return docs


def error_code(error: BaseException | str) -> str:
    """The documented machine-readable code of ``error`` (docs/json-output.md)."""
    if isinstance(error, ForgeError):
        return error.error_code
    if isinstance(error, BaseException):
        return "internal_error"
    return ForgeError.error_code


def _error_object(response: Response, error: BaseException | str | None) -> Fields | None:
    message = error_text(error) if error is not None else None
    if error is not None and message is not None:
        server = getattr(error, "code", None) if isinstance(error, StreamError) else None
        return {"code": error_code(error), "message": message,
                "server_code": server if isinstance(server, str) else None}  # fmt: skip
    if response.error is not None:
        return {"code": StreamError.error_code,
                "message": response.error.message or response.error.code or "failed",
                "server_code": response.error.code}  # fmt: skip
    return None


def answer_document(
    response: Response,
    *,
    citations: Sequence[Citation] | None = None,
    clock: ItemClock | None = None,
    interrupted: bool = False,
    error: BaseException | str | None = None,
    status: str | None = None,
) -> Fields:
    """The ``forge.answer/v1`` document of a (final) snapshot.

    ``status`` is the turn's outcome (``completed``, ``incomplete``, ``failed``,
    ``interrupted``) when the caller knows it (the turn runner does); otherwise it is derived
    from the snapshot, and an answer that ended in ``error`` is ``failed``.
    """
    numbering = CitationNumbering()
    cited = ["\n\n".join(cite_message(item, numbering))
             for item in response.output if is_message(item)]  # fmt: skip
    found = numbering.finalize(response)
    err = _error_object(response, error)
    if interrupted:
        final_status = "interrupted"
    elif status is not None:
        final_status = status
    elif err is not None and response.status in (None, "in_progress", "queued"):
        final_status = "failed"  # never "in_progress" for an answer that ended in an error
    else:
        final_status = response.status or "in_progress"
    usage = response.usage.model_dump(mode="json") if response.usage is not None else None
    timings = None
    if clock is not None:
        first = clock.first_output()
        timings = {"total_s": round(clock.total(), 3),
                   "first_output_s": None if first is None else round(first, 3),
                   "approval_wait_s": round(clock.waited(), 3)}  # fmt: skip
    return {
        "schema": SCHEMA_ID,
        "id": response.id,
        "model": response.model,
        "status": final_status,
        "text": response.output_text,
        "text_cited": "\n\n".join(cited),
        "items": _items(response, clock),
        "citations": [c.to_json() for c in (citations if citations is not None else found)],
        "usage": usage,
        "timings": timings,
        "error": err,
    }


def load_schema() -> dict[str, Any]:
    """The checked-in JSON Schema of ``forge.answer/v1`` (draft 2020-12)."""
    import json

    text = (
        resources.files("forge_cli.render")
        .joinpath("schema/forge.answer.v1.json")
        .read_text(encoding="utf-8")
    )
    loaded: dict[str, Any] = json.loads(text)
    return loaded
